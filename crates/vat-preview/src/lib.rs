//! Pictures of a bake, drawn from plain data: a small software rasterizer, a contact
//! sheet of every clip, an animated PNG of one clip, the texture itself as 8-bit
//! images, and impostor cells (one pose from one direction: base colour through the
//! material's texture, coverage, normal and depth; [`render_cell`]).
//!
//! The input is what a decoded bake holds: the rest mesh's triangles ([`Mesh`], indices
//! into the points), and for each row the decoded position and normal of every point
//! ([`Frame`]). One fixed orthographic [`Camera`] frames the [`Bounds`] over all rows,
//! so every frame of a sheet is drawn to the same scale and a unit that moves, drifts,
//! grows or lies on its side shows it. Triangles are depth-tested and shaded with the
//! interpolated per-point normals, lit from a fixed direction, two-sided (a flipped
//! winding draws the same).
//!
//! Output is deterministic: the rasterizer uses integer edge functions and one thread,
//! and PNG files are written with fixed filter and compression settings, so the same
//! inputs give the same bytes.
//!
//! What it does not do: read or write files, or know the bake's formats (the caller
//! decodes the texture and the rest mesh). Dependencies: no crate of this workspace;
//! `png` for encoding and decoding, `zune-jpeg` for decoding the JPEG base colour
//! textures of impostor cells, and `noto-sans-mono-bitmap` for the glyphs of the labels.
//!
//! ```
//! use vat_preview::{render_frame, Bounds, Frame, Mesh, View};
//! // One triangle facing the viewer.
//! let positions = [[-1.0, 0.0, 0.0], [1.0, 0.0, 0.0], [0.0, 2.0, 0.0]];
//! let normals = [[0.0, 0.0, 1.0]; 3];
//! let mesh = Mesh { triangles: vec![[0, 1, 2]] };
//! let bounds = Bounds::of_points(&positions).unwrap();
//! let image = render_frame(&mesh, Frame { positions: &positions, normals: &normals }, &bounds, View::Front, 64, 64)?;
//! assert_eq!((image.width, image.height), (64, 64));
//! let png = image.to_png()?;
//! assert_eq!(&png[1..4], b"PNG");
//! # Ok::<(), vat_preview::Error>(())
//! ```

#![warn(missing_docs)]

mod encode;
mod impostor;
mod raster;
mod sheet;
mod text;
mod texture;
mod types;

pub use encode::animate;
pub use impostor::{
    linear_to_srgb, render_cell, srgb_to_linear, uv_transform, CellCamera, ImpostorCell, Material, Surface, Texture,
    Wrap, IDENTITY_UV, SAMPLES,
};
pub use raster::{render_frame, Camera};
pub use sheet::{contact_sheet, pick_rows, Cell, Clip, Sheet, SheetOptions};
pub use text::{text_width, LINE_HEIGHT};
pub use texture::{normal_texture_image, position_texture_image};
pub use types::{Bounds, Error, Frame, Image, Mesh, View, MAX_PIXELS, MAX_SIDE};

/// The README's example, compiled with the doctests.
#[cfg(doctest)]
#[doc = include_str!("../README.md")]
pub struct ReadmeDoctests;
