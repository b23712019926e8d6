//! `--normals`: where the normals go: packed (octahedral 8+8 in the alpha), separate
//! (octahedral 16+16 in their own array layers) or none.

use glam::Vec3;

use crate::description::{self};

/// `--normals`: where the normals go; the description's `normals.mode`.
pub use vat_description::NormalsMode;

/// Largest angle octahedral 16 + 16 puts between a normal and its decode, in degrees
/// (half a code on each axis of the fold: about 0.0037°; recorded rounded up).
pub const NORMAL16_MAX_ERROR_DEGREES: f32 = 0.004;

/// A unit normal as octahedral 16 + 16 (`--normals separate`): x and y of the fold,
/// each `[-1, 1]` to `0..=65535`, rounded to the nearest code.
pub fn encode_normal16(n: glam::Vec3A) -> [u16; 2] {
    let l1 = n.abs().element_sum();
    let n = if l1 > 0.0 && l1.is_finite() { n / l1 } else { glam::Vec3A::from(vat_model::DEGENERATE_NORMAL) };
    let l1 = n.abs().element_sum();
    let n = n / l1;
    let (x, y) =
        if n.z < 0.0 { ((1.0 - n.y.abs()).copysign(n.x), (1.0 - n.x.abs()).copysign(n.y)) } else { (n.x, n.y) };
    let code = |v: f32| ((v.clamp(-1.0, 1.0) * 0.5 + 0.5) * 65535.0).round() as u16;
    [code(x), code(y)]
}

/// The normal an octahedral 16 + 16 pair decodes to (docs/FORMAT.md).
pub fn decode_normal16(r: u16, g: u16) -> Vec3 {
    let (x, y) = (f32::from(r) / 65535.0 * 2.0 - 1.0, f32::from(g) / 65535.0 * 2.0 - 1.0);
    let mut n = Vec3::new(x, y, 1.0 - x.abs() - y.abs());
    if n.z < 0.0 {
        let sign = |v: f32| if v >= 0.0 { 1.0 } else { -1.0 };
        (n.x, n.y) = ((1.0 - y.abs()) * sign(x), (1.0 - x.abs()) * sign(y));
    }
    n.normalize_or(Vec3::Z)
}

/// The description's `normals` for a mode; `position_layers` is the layers the
/// positions take (1 without `texture.layers`).
pub fn normals_entry(mode: NormalsMode, position_layers: u32) -> description::Normals {
    let (max_error_degrees, first_layer) = match mode {
        NormalsMode::Packed => (vat_bounds::NORMAL_MAX_ERROR_DEGREES, None),
        NormalsMode::Separate => (NORMAL16_MAX_ERROR_DEGREES, Some(position_layers)),
        NormalsMode::None => (0.0, None),
    };
    description::Normals { mode, channel: mode.channel(), encoding: mode.encoding(), max_error_degrees, first_layer }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn octahedral_16_16_stays_within_its_bound() {
        let mut worst = 0.0f32;
        for i in 0..20_000 {
            // A spiral over the whole sphere, both hemispheres and the folds.
            let z = 1.0 - 2.0 * (i as f32 + 0.5) / 20_000.0;
            let r = (1.0 - z * z).sqrt();
            let a = i as f32 * 2.399_963;
            let n = Vec3::new(r * a.cos(), r * a.sin(), z);
            let [x, y] = encode_normal16(n.into());
            // atan2 of the cross and dot products: acos of a dot loses small angles in f32.
            let back = decode_normal16(x, y);
            worst = worst.max(n.cross(back).length().atan2(n.dot(back)).to_degrees());
        }
        assert!(worst > 0.001 && worst <= NORMAL16_MAX_ERROR_DEGREES, "{worst}");
    }
}
