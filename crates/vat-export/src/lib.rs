//! A finished bake re-packed for other tools' players.
//!
//! What it does: takes a bake as plain data ([`Baked`]: the 16-bit texels as a shader reads
//! them, the texture layout, the bounds, the rest pose and the clips) and returns the files
//! one other format's players expect, named as they expect them: [`playcanvas`] (the
//! PlayCanvas engine's `.vat` container), [`openvat`] (OpenVAT's 16-bit PNG of offsets,
//! remap JSON and normals), [`vat3`] (SideFX Labs VAT 3 soft-body: float EXRs of offsets
//! and normal quaternions, Houdini's data JSON); from a bone bake ([`BakedBones`]: every
//! row's joint matrices), [`babylon`] (the JSON Babylon.js's baked vertex animation
//! reads). [`convert`] puts the texels in one engine's space (`--target`:
//! [`Target::convention`]) and [`exr_rgba32f`] writes them as a 32-bit float EXR. Every position is
//! taken from the bake's own decode of its texels, so an export decodes to the bake's
//! positions within half a step of the export's own quantization.
//!
//! It also owns the registry of both: [`Format`] (`--format`) and [`Target`] (`--target`),
//! one enum each, with every fact the rest of the tool asks about an entry (its name, its
//! line in `--help`, what it needs and refuses, its writer, the engine's conventions).
//!
//! What it does not: evaluate animation, write GLB files (a format that needs a mesh asks
//! for one with a [`MeshRequest`]; the caller writes its rest mesh with that second uv set),
//! or write anything to disk. Bytes are deterministic: the same bake gives the same files.
//!
//! ```
//! use glam::{Vec2, Vec3};
//! use vat_export::{Baked, ClipSpan};
//! // One point, two rows: at the box's low corner, then its high corner; normal +Y.
//! let texels = [0, 0, 0, 0x7fff, 65535, 65535, 65535, 0x7fff];
//! let baked = Baked {
//!     name: "unit", generator: "vatbake", fps: 30.0, texels: &texels, width: 1, rows: 2, bands: 1,
//!     point_columns: &[0], center: [0.0; 3], half_extent: [1.0; 3],
//!     rest_positions: &[Vec3::ZERO], uv0: &[Vec2::ZERO],
//!     triangles: &[],
//!     clips: &[ClipSpan { name: "idle".into(), row: 0, rows: 2, duration: 1.0, ..Default::default() }],
//!     levels: &[],
//! };
//! let export = vat_export::playcanvas(&baked)?;
//! assert_eq!(export.files[0].name, "unit.vat");
//! assert_eq!(&export.files[0].bytes[..4], b"PVAT");
//! # Ok::<(), vat_export::ExportError>(())
//! ```

mod babylon;
mod exr;
mod format;
mod openvat;
mod playcanvas;
mod target;
mod types;
mod vat3;

#[cfg(test)]
mod tests;

pub use babylon::babylon;
pub use exr::{exr_rgba32f, unorm16_pixels, EXR_ZIP_LINES};
pub use format::{Facts, Fits, Format, Writer};
pub use openvat::openvat;
pub use playcanvas::playcanvas;
pub use target::{convert, Convention, Converted, Target};
pub use vat3::{vat3, vat3_size};

pub use types::{Baked, BakedBones, ClipSpan, Export, ExportError, ExportFile, MeshRequest};
