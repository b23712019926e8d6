//! `--target`: a bake's texels in one engine's own space.
//!
//! A glTF file is right-handed, +Y up and in metres whatever reads it; each engine's glTF
//! importer converts the rest mesh into the engine's space as it loads it. A shader that
//! reads the texture writes object-space positions next to that imported mesh, so the
//! texture has to hold positions in the space the importer produced, not glTF's. The rest
//! mesh stays glTF (the importer converts it); the texels, the decode inputs and the bounds
//! are converted here. Every conversion is a signed axis permutation and a scale: a
//! negated axis stores `65535 − t` and negates its centre, so the texels lose nothing;
//! the scale goes into the centre and half extent. Normals are decoded, mapped and
//! re-encoded (octahedral 8 + 8).

use glam::{DVec3, Vec3};

use crate::types::{Baked, ExportFile};

/// One engine's conventions, as its glTF importer leaves a mesh.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Convention {
    /// The `--target` name.
    pub name: &'static str,
    /// Engine axis `i` is glTF axis `axes[i].0`, negated when `axes[i].1`.
    pub axes: [(usize, bool); 3],
    /// Engine units per metre.
    pub scale: f32,
    /// The engine's up axis, handedness and unit, as words.
    pub up: &'static str,
    pub handedness: &'static str,
    pub units: &'static str,
    /// Where the engine's v = 0 lies on an image: "top" (glTF, DirectX) or "bottom" (OpenGL, Unity).
    pub uv_origin: &'static str,
    /// The container of the converted texture, or `None` when the bake's own KTX2 (or `--format playcanvas`) is it.
    pub container: Option<&'static str>,
}

const IDENTITY: [(usize, bool); 3] = [(0, false), (1, false), (2, false)];

/// An engine that keeps glTF's space (right-handed, +Y up, metres, uv origin at the top).
const fn gltf_space(name: &'static str, handedness: &'static str, container: Option<&'static str>) -> Convention {
    Convention { name, axes: IDENTITY, scale: 1.0, up: "+y", handedness, units: "metres", uv_origin: "top", container }
}

/// Every engine with its conventions; `three` first.
pub const CONVENTIONS: [Convention; 6] = [
    gltf_space("three", "right", None),
    // Babylon's glTF loader keeps the vertex data as glTF has it and puts a `__root__`
    // node above (rotation 180° about Y, scaling z by −1) that turns the scene
    // left-handed; a shader writing object-space positions sits under that node.
    gltf_space("babylon", "right (object space under the loader's __root__ node)", None),
    gltf_space("playcanvas", "right", None),
    // Godot is glTF's space (right-handed, +Y up, metres); its Image has no 16-bit
    // unorm format and loads PNGs at 8 bits, so the texels go into a 32-bit float EXR.
    gltf_space("godot", "right", Some("exr")),
    // Unity's glTF importers (glTFast, UnityGLTF) negate x; Unity's v = 0 is the image's bottom.
    Convention {
        name: "unity",
        axes: [(0, true), (1, false), (2, false)],
        scale: 1.0,
        up: "+y",
        handedness: "left",
        units: "metres",
        uv_origin: "bottom",
        container: Some("exr"),
    },
    // Unreal's glTF importer maps (x, y, z) to (x, z, y) and metres to centimetres.
    Convention {
        name: "unreal",
        axes: [(0, false), (2, false), (1, false)],
        scale: 100.0,
        up: "+z",
        handedness: "left",
        units: "centimetres",
        uv_origin: "top",
        container: Some("exr"),
    },
];

/// The conventions of `name`, or `None` for a name no engine has.
pub fn convention(name: &str) -> Option<Convention> {
    CONVENTIONS.iter().copied().find(|c| c.name == name)
}

impl Convention {
    /// A glTF-space vector in the engine's axes and units.
    pub fn point(&self, p: DVec3) -> DVec3 {
        DVec3::from_array(std::array::from_fn(|i| {
            let (axis, negate) = self.axes[i];
            let v = p[axis] * self.scale as f64;
            if negate {
                -v
            } else {
                v
            }
        }))
    }

    /// An engine-space vector back in glTF's axes and metres.
    pub fn unpoint(&self, e: DVec3) -> DVec3 {
        let mut p = DVec3::ZERO;
        for (i, &(axis, negate)) in self.axes.iter().enumerate() {
            let v = e[i] / self.scale as f64;
            p[axis] = if negate { -v } else { v };
        }
        p
    }

    /// The axis map as words, engine axis by engine axis: `["-x", "+y", "+z"]`.
    pub fn axis_words(&self) -> [String; 3] {
        self.axes.map(|(axis, negate)| format!("{}{}", if negate { '-' } else { '+' }, ["x", "y", "z"][axis]))
    }
}

/// A bake in one engine's space.
#[derive(Clone, Debug)]
pub struct Converted {
    /// RGBA 16-bit texels in the bake's layout, positions and normals in the engine's space.
    pub texels: Vec<u16>,
    /// Decode inputs in the engine's units: `position = (rgb / 65535 · 2 − 1) · half_extent + center`.
    pub center: [f32; 3],
    pub half_extent: [f32; 3],
    /// The file holding `texels`, when the convention writes one.
    pub file: Option<ExportFile>,
}

/// Converts `baked` to `convention`: texels channel by channel, decode inputs, normals.
pub fn convert(baked: &Baked, convention: &Convention) -> Converted {
    let scale = convention.scale;
    let center = std::array::from_fn(|i| {
        let (axis, negate) = convention.axes[i];
        let c = baked.center[axis] * scale;
        if negate {
            -c
        } else {
            c
        }
    });
    let half_extent = std::array::from_fn(|i| baked.half_extent[convention.axes[i].0] * scale);
    let mut texels = baked.texels.to_vec();
    if convention.axes != IDENTITY {
        for texel in texels.chunks_exact_mut(4) {
            let source = [texel[0], texel[1], texel[2]];
            for (i, &(axis, negate)) in convention.axes.iter().enumerate() {
                texel[i] = if negate { 65535 - source[axis] } else { source[axis] };
            }
            let n = vat_bounds::decode_normal(texel[3]).as_dvec3();
            texel[3] = vat_bounds::encode_normal(convention.point(n).as_vec3().normalize_or(Vec3::Y));
        }
    }
    let file = convention.container.map(|container| ExportFile {
        name: format!("{}-{}.{container}", baked.name, convention.name),
        bytes: exr_rgba32f(baked.width, baked.height(), &texels),
    });
    Converted { texels, center, half_extent, file }
}

/// Scanlines per chunk of a ZIP-compressed OpenEXR file.
pub const EXR_ZIP_LINES: usize = 16;

/// A channel value [`exr_rgba32f`] writes: a 16-bit texel as `t / 65535` (exact in a
/// float), a float as it is.
pub trait ExrChannel: Copy {
    fn exr_value(self) -> f32;
}

impl ExrChannel for u16 {
    fn exr_value(self) -> f32 {
        self as f32 / 65535.0
    }
}

impl ExrChannel for f32 {
    fn exr_value(self) -> f32 {
        self
    }
}

/// An OpenEXR image, single part, scanlines, ZIP compression (16 lines a chunk), channels
/// A B G R as 32-bit floats, from RGBA values top row first: 16-bit texels as `t / 65535`
/// (a texel's every bit, which an engine imports as a float texture: Godot RGBAF, Unity
/// RGBAFloat, Unreal HDR_F32), or floats as they are (`--format vat3`'s offsets).
/// Deterministic: the same values give the same bytes.
pub fn exr_rgba32f<T: ExrChannel>(width: usize, height: usize, texels: &[T]) -> Vec<u8> {
    const FLOAT: i32 = 2;
    const ZIP: u8 = 3;
    let mut header = Vec::new();
    let mut attribute = |name: &str, kind: &str, value: &[u8]| {
        for text in [name, kind] {
            header.extend_from_slice(text.as_bytes());
            header.push(0);
        }
        header.extend_from_slice(&(value.len() as i32).to_le_bytes());
        header.extend_from_slice(value);
    };
    let mut channels = Vec::new();
    for name in ["A", "B", "G", "R"] {
        channels.extend_from_slice(name.as_bytes());
        channels.push(0);
        channels.extend_from_slice(&FLOAT.to_le_bytes());
        channels.extend_from_slice(&[0, 0, 0, 0]); // pLinear, reserved
        channels.extend_from_slice(&1i32.to_le_bytes());
        channels.extend_from_slice(&1i32.to_le_bytes());
    }
    channels.push(0);
    let window: Vec<u8> = [0i32, 0, width as i32 - 1, height as i32 - 1].iter().flat_map(|v| v.to_le_bytes()).collect();
    attribute("channels", "chlist", &channels);
    attribute("compression", "compression", &[ZIP]);
    attribute("dataWindow", "box2i", &window);
    attribute("displayWindow", "box2i", &window);
    attribute("lineOrder", "lineOrder", &[0]);
    attribute("pixelAspectRatio", "float", &1f32.to_le_bytes());
    attribute("screenWindowCenter", "v2f", &[0; 8]);
    attribute("screenWindowWidth", "float", &1f32.to_le_bytes());
    header.push(0);

    let chunks: Vec<Vec<u8>> = (0..height)
        .step_by(EXR_ZIP_LINES)
        .map(|first| {
            let lines = first..(first + EXR_ZIP_LINES).min(height);
            let mut raw = Vec::with_capacity(lines.len() * width * 16);
            for y in lines {
                let row = &texels[y * width * 4..(y + 1) * width * 4];
                for channel in [3, 2, 1, 0] {
                    for x in 0..width {
                        raw.extend_from_slice(&row[x * 4 + channel].exr_value().to_le_bytes());
                    }
                }
            }
            let packed = zip_block(&raw);
            // A chunk that does not shrink is stored as it is (the format's rule).
            let data = if packed.len() < raw.len() { packed } else { raw };
            let mut chunk = Vec::with_capacity(8 + data.len());
            chunk.extend_from_slice(&(first as i32).to_le_bytes());
            chunk.extend_from_slice(&(data.len() as i32).to_le_bytes());
            chunk.extend_from_slice(&data);
            chunk
        })
        .collect();
    let mut out = Vec::new();
    out.extend_from_slice(&[0x76, 0x2f, 0x31, 0x01, 2, 0, 0, 0]);
    out.extend_from_slice(&header);
    let mut offset = out.len() + chunks.len() * 8;
    for chunk in &chunks {
        out.extend_from_slice(&(offset as u64).to_le_bytes());
        offset += chunk.len();
    }
    for chunk in &chunks {
        out.extend_from_slice(chunk);
    }
    out
}

/// OpenEXR's ZIP block: the bytes split into even and odd positions, each byte stored as
/// its difference from the one before (+128), then zlib.
fn zip_block(raw: &[u8]) -> Vec<u8> {
    let half = raw.len().div_ceil(2);
    let mut split = vec![0u8; raw.len()];
    for (i, &b) in raw.iter().enumerate() {
        split[if i % 2 == 0 { i / 2 } else { half + i / 2 }] = b;
    }
    for i in (1..split.len()).rev() {
        split[i] = split[i].wrapping_sub(split[i - 1]).wrapping_add(128);
    }
    let mut encoder = flate2::write::ZlibEncoder::new(Vec::new(), flate2::Compression::new(6));
    std::io::Write::write_all(&mut encoder, &split).expect("writing to a Vec cannot fail");
    encoder.finish().expect("writing to a Vec cannot fail")
}

/// Undoes [`zip_block`]'s split and differences on inflated bytes.
#[cfg(test)]
fn exr_unzip_predictor(inflated: &[u8]) -> Vec<u8> {
    let mut t = inflated.to_vec();
    for i in 1..t.len() {
        t[i] = t[i].wrapping_add(t[i - 1]).wrapping_sub(128);
    }
    let half = t.len().div_ceil(2);
    (0..t.len()).map(|i| if i % 2 == 0 { t[i / 2] } else { t[half + i / 2] }).collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::types::test_bake;

    #[test]
    fn every_target_lands_on_the_bakes_positions_once_converted_back() {
        let owned = test_bake::owned();
        let baked = owned.baked();
        for convention in CONVENTIONS {
            let converted = convert(&baked, &convention);
            for point in 0..baked.points() {
                for row in 0..baked.rows {
                    let i = baked.texel_index(point, row);
                    let t = &converted.texels[i..i + 4];
                    let engine = DVec3::from_array(std::array::from_fn(|a| {
                        (t[a] as f64 / 65535.0 * 2.0 - 1.0) * converted.half_extent[a] as f64
                            + converted.center[a] as f64
                    }));
                    let back = convention.unpoint(engine);
                    assert!((back - baked.position(point, row)).abs().max_element() < 1e-5, "{}", convention.name);
                    let normal = convention.unpoint(vat_bounds::decode_normal(t[3]).as_dvec3()).normalize();
                    assert!(normal.angle_between(baked.normal(point, row)).to_degrees() < 0.6, "{}", convention.name);
                }
            }
        }
    }

    /// Where the offset table starts: after the header's attributes and their null byte.
    pub(crate) fn exr_table(exr: &[u8]) -> usize {
        let mut at = 8;
        loop {
            let name_end = at + exr[at..].iter().position(|&b| b == 0).unwrap();
            if name_end == at {
                return at + 1;
            }
            let kind_end = name_end + 1 + exr[name_end + 1..].iter().position(|&b| b == 0).unwrap();
            let size = i32::from_le_bytes(exr[kind_end + 1..kind_end + 5].try_into().unwrap()) as usize;
            at = kind_end + 5 + size;
        }
    }

    #[test]
    fn the_exr_chunks_inflate_to_the_floats_where_the_format_puts_them() {
        // 2 × 20 texels: two chunks (16 lines, then 4).
        let texels: Vec<u16> = (0..2 * 20 * 4).map(|i| (i * 811 % 65536) as u16).collect();
        let exr = exr_rgba32f(2, 20, &texels);
        assert_eq!(&exr[..8], &[0x76, 0x2f, 0x31, 0x01, 2, 0, 0, 0]);
        let table = exr_table(&exr);
        let offset = |k: usize| u64::from_le_bytes(exr[table + 8 * k..table + 8 * k + 8].try_into().unwrap()) as usize;
        assert_eq!(offset(0), table + 16);
        for (k, y0, lines) in [(0, 0usize, 16), (1, 16, 4)] {
            let at = offset(k);
            assert_eq!(i32::from_le_bytes(exr[at..at + 4].try_into().unwrap()), y0 as i32);
            let size = i32::from_le_bytes(exr[at + 4..at + 8].try_into().unwrap()) as usize;
            let data = &exr[at + 8..at + 8 + size];
            let raw = if size < lines * 2 * 16 {
                let mut inflated = Vec::new();
                std::io::Read::read_to_end(&mut flate2::read::ZlibDecoder::new(data), &mut inflated).unwrap();
                exr_unzip_predictor(&inflated)
            } else {
                data.to_vec()
            };
            assert_eq!(raw.len(), lines * 2 * 16);
            for line in 0..lines {
                for (c, channel) in [3, 2, 1, 0].into_iter().enumerate() {
                    for x in 0..2 {
                        let i = (line * 4 + c) * 2 + x;
                        let f = f32::from_le_bytes(raw[4 * i..4 * i + 4].try_into().unwrap());
                        assert_eq!(f, texels[((y0 + line) * 2 + x) * 4 + channel] as f32 / 65535.0);
                    }
                }
            }
            if k == 1 {
                assert_eq!(at + 8 + size, exr.len(), "the last chunk ends the file");
            }
        }
        // A smooth image shrinks: the chunks are compressed, not stored.
        let smooth: Vec<u16> = (0..64 * 32 * 4).map(|i| (i / 4 % 64 * 100) as u16).collect();
        assert!(exr_rgba32f(64, 32, &smooth).len() < 64 * 32 * 16 / 2);
    }
}
