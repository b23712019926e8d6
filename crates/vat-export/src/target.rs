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

use vat_description::{Axis, Handedness, TargetContainer, Units, UvOrigin};

use crate::exr::{exr_rgba32f, unorm16_pixels};
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
    /// The engine's up axis, handedness and unit, as the description records them.
    pub up: Axis,
    pub handedness: Handedness,
    pub units: Units,
    /// Where the engine's v = 0 lies on an image: top (glTF, DirectX) or bottom (OpenGL, Unity).
    pub uv_origin: UvOrigin,
    /// The container of the converted texture, or `None` when the bake's own KTX2 (or `--format playcanvas`) is it.
    pub container: Option<TargetContainer>,
}

const IDENTITY: [(usize, bool); 3] = [(0, false), (1, false), (2, false)];

/// An engine that keeps glTF's space (right-handed, +Y up, metres, uv origin at the top).
const fn gltf_space(name: &'static str, handedness: Handedness, container: Option<TargetContainer>) -> Convention {
    Convention {
        name,
        axes: IDENTITY,
        scale: 1.0,
        up: Axis::PlusY,
        handedness,
        units: Units::Metres,
        uv_origin: UvOrigin::Top,
        container,
    }
}

vat_model::closed_set! {
    /// The engine a bake is for (`--target`): the registry of engines, each with its
    /// [`Convention`]. Adding one is a member here, its arm in [`Target::convention`] and its
    /// page in docs/targets/ (crates/vat-export/README.md, "Adding a target or a format").
    #[derive(Default)]
    pub enum Target {
        /// glTF's conventions (+Y up, right-handed, metres, uv origin at the top): three.js and the rest GLB as it is.
        #[default]
        Three = "three",
        /// Babylon.js (left-handed, Y up; its glTF loader's root node flips the handedness above the mesh).
        Babylon = "babylon",
        /// PlayCanvas (right-handed, Y up, metres).
        Playcanvas = "playcanvas",
        /// Godot (right-handed, Y up, metres): glTF's space, the texels in a float EXR.
        Godot = "godot",
        /// Unity (left-handed, Y up, metres, uv origin at the bottom): x negated, a float EXR.
        Unity = "unity",
        /// Unreal Engine (left-handed, Z up, centimetres): (x, z, y) × 100, a float EXR.
        Unreal = "unreal",
    }
}

vat_model::named_from_str!(Target, "a target");

impl Target {
    /// The engine's conventions, as its glTF importer leaves a mesh.
    pub fn convention(self) -> Convention {
        let name = self.as_str();
        match self {
            Target::Three => gltf_space(name, Handedness::Right, None),
            // Babylon's glTF loader keeps the vertex data as glTF has it and puts a `__root__`
            // node above (rotation 180° about Y, scaling z by −1) that turns the scene
            // left-handed; a shader writing object-space positions sits under that node.
            Target::Babylon => gltf_space(name, Handedness::RightUnderRoot, None),
            Target::Playcanvas => gltf_space(name, Handedness::Right, None),
            // Godot is glTF's space (right-handed, +Y up, metres); its Image has no 16-bit
            // unorm format and loads PNGs at 8 bits, so the texels go into a 32-bit float EXR.
            Target::Godot => gltf_space(name, Handedness::Right, Some(TargetContainer::Exr)),
            // Unity's glTF importers (glTFast, UnityGLTF) negate x; Unity's v = 0 is the image's bottom.
            Target::Unity => Convention {
                name,
                axes: [(0, true), (1, false), (2, false)],
                scale: 1.0,
                up: Axis::PlusY,
                handedness: Handedness::Left,
                units: Units::Metres,
                uv_origin: UvOrigin::Bottom,
                container: Some(TargetContainer::Exr),
            },
            // Unreal's glTF importer maps (x, y, z) to (x, z, y) and metres to centimetres.
            Target::Unreal => Convention {
                name,
                axes: [(0, false), (2, false), (1, false)],
                scale: 100.0,
                up: Axis::PlusZ,
                handedness: Handedness::Left,
                units: Units::Centimetres,
                uv_origin: UvOrigin::Top,
                container: Some(TargetContainer::Exr),
            },
        }
    }

    /// Its line in `--help`.
    pub fn about(self) -> &'static str {
        match self {
            Target::Three => "glTF's space (+Y up, right-handed, metres), the bake's own files",
            Target::Babylon => "Babylon.js, glTF's space under its loader's __root__ node; a target record",
            Target::Playcanvas => "PlayCanvas, glTF's space; a target record",
            Target::Godot => "Godot, glTF's space; a target record and <name>-godot.exr",
            Target::Unity => "Unity, x negated, uv origin at the bottom; a target record and <name>-unity.exr",
            Target::Unreal => "Unreal Engine, (x, z, y) × 100 in centimetres; a target record and <name>-unreal.exr",
        }
    }

    /// The description records the engine's space (a `target` record): every engine but
    /// three, whose space and files are the bake's own.
    pub fn has_record(self) -> bool {
        self != Target::Three
    }

    /// The engine gets a file of its own, the texels converted (`<name>-<target>.<container>`).
    pub fn has_file(self) -> bool {
        self.convention().container.is_some()
    }
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

    /// The axis map, engine axis by engine axis: `["-x", "+y", "+z"]` for Unity.
    pub fn axis_words(&self) -> [Axis; 3] {
        self.axes.map(|(axis, negate)| Axis::of(axis, negate))
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
        bytes: exr_rgba32f(baked.width, baked.height(), unorm16_pixels(&texels, baked.width, baked.height())),
    });
    Converted { texels, center, half_extent, file }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::types::test_bake;

    #[test]
    fn every_target_lands_on_the_bakes_positions_once_converted_back() {
        let owned = test_bake::owned();
        let baked = owned.baked();
        for target in <Target as strum::IntoEnumIterator>::iter() {
            let convention = target.convention();
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
}
