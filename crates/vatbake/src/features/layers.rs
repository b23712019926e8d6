//! The texture's size bound (`--max-size`, `--device`): array layers past the height,
//! and the GPU memory a unit takes (`--gpu-budget`).

use crate::description::{self};

/// A texture size bound, `WxH` (`--max-size`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct MaxSize {
    /// Widest texture.
    pub width: u32,
    /// Tallest texture or array layer.
    pub height: u32,
}

impl std::str::FromStr for MaxSize {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, String> {
        let bad = || format!("\"{s}\" is not a size: give WIDTHxHEIGHT in texels, e.g. 4096x4096");
        let (w, h) = s.split_once(['x', 'X']).ok_or_else(bad)?;
        let (width, height) =
            (w.trim().parse::<u32>().map_err(|_| bad())?, h.trim().parse::<u32>().map_err(|_| bad())?);
        if width == 0 || height == 0 {
            return Err(format!("\"{s}\": both sides must be at least 1 texel"));
        }
        Ok(MaxSize { width, height })
    }
}

/// `--device`: the size bound and GPU memory budget of a class of targets.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Device {
    /// WebGL 2 in browsers (headless Chromium's MAX_TEXTURE_SIZE is 8192).
    Web,
    /// Phones: 4096 texels, a small budget.
    Mobile,
    /// Desktop GPUs: 16384 texels.
    Desktop,
}

impl Device {
    /// The size bound.
    pub fn max_size(self) -> MaxSize {
        let side = match self {
            Device::Web => 8192,
            Device::Mobile => 4096,
            Device::Desktop => 16384,
        };
        MaxSize { width: side, height: side }
    }

    /// The GPU memory budget per unit, in bytes, warned past (`--gpu-budget` overrides it).
    pub fn gpu_budget(self) -> u64 {
        match self {
            Device::Web => 128 << 20,
            Device::Mobile => 32 << 20,
            Device::Desktop => 512 << 20,
        }
    }
}

impl std::str::FromStr for Device {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, String> {
        match s {
            "web" => Ok(Device::Web),
            "mobile" => Ok(Device::Mobile),
            "desktop" => Ok(Device::Desktop),
            _ => Err(format!("\"{s}\" is not a device: give web, mobile or desktop")),
        }
    }
}

/// A byte count for `--gpu-budget`: a whole number with an optional unit, `512MiB`,
/// `64MB` (both read as MiB), `2GiB`, `1048576`.
pub fn parse_bytes(s: &str) -> Result<u64, String> {
    let t = s.trim();
    let split = t.find(|c: char| !c.is_ascii_digit()).unwrap_or(t.len());
    let (digits, unit) = t.split_at(split);
    let scale: u64 = match unit.trim().to_ascii_lowercase().as_str() {
        "" | "b" => 1,
        "k" | "kb" | "kib" => 1 << 10,
        "m" | "mb" | "mib" => 1 << 20,
        "g" | "gb" | "gib" => 1 << 30,
        _ => return Err(format!("\"{s}\" is not a size in bytes: give e.g. 256MiB, 1GiB or a number of bytes")),
    };
    let n: u64 = digits.parse().map_err(|_| format!("\"{s}\" is not a size in bytes: give e.g. 256MiB"))?;
    n.checked_mul(scale).filter(|&b| b > 0).ok_or_else(|| format!("\"{s}\": give a budget above 0 and below 16 EiB"))
}

/// How the logical texture (`layout.height` rows) is split into array layers.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Layers {
    /// Layers (1: a plain 2D texture).
    pub count: u32,
    /// Rows per layer.
    pub height: u32,
}

impl Layers {
    /// The fewest layers of at most `max_height` rows that hold `layout.height` rows,
    /// as even as they can be: `ceil(height / count)` rows each.
    pub fn of(layout: &vat_model::Layout, max_height: Option<u32>) -> Layers {
        let height = layout.height.max(1) as u32;
        let count = max_height.map_or(1, |h| height.div_ceil(h.max(1)));
        Layers { count, height: height.div_ceil(count) }
    }

    /// Rows in all layers: the texture's and the last layer's padding.
    pub fn rows(&self) -> usize {
        self.count as usize * self.height as usize
    }
}

/// GPU memory a bake's texture takes, from its description: raw texel bytes of every
/// layer it uploads (positions' and, with separate normals, the normals').
pub fn gpu_bytes(d: &description::Description) -> u64 {
    let t = &d.texture;
    let rows = u64::from(t.layers.unwrap_or(1)) * u64::from(t.layer_height.unwrap_or(t.height));
    let copies = if d.normals.mode == description::NormalsMode::Separate { 2 } else { 1 };
    // RGBA16 texels, or a bone bake's joint matrices: RGBA32F, or RGBA16 under "quat16".
    let texel_bytes = d.bones.as_ref().map_or(8, |b| b.encoding.texel_bytes());
    // Saturating: an edited description's shape must not overflow.
    rows.saturating_mul(u64::from(t.width)).saturating_mul(texel_bytes * copies)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sizes_and_budgets_parse() {
        assert_eq!("4096x2048".parse::<MaxSize>().unwrap(), MaxSize { width: 4096, height: 2048 });
        assert!("4096".parse::<MaxSize>().is_err());
        assert!("0x8".parse::<MaxSize>().is_err());
        assert_eq!(parse_bytes("64MiB"), Ok(64 << 20));
        assert_eq!(parse_bytes("1GB"), Ok(1 << 30));
        assert!(parse_bytes("lots").is_err());
    }
}
