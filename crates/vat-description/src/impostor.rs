//! The impostor sidecar (`<stem>.impostor.json`, written by `vatbake impostor`): how a
//! player finds a unit's pose from a view in the two atlases the command writes beside
//! it. A sidecar, not a section of the description: the impostor is made from a
//! finished bake, and the bake's own files (and the hashes the description records of
//! them) stay as the bake wrote them.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::ExportFile;

/// The value of `format`.
pub const IMPOSTOR_FORMAT: &str = "vatbake.impostor";
/// Bumped when a change could break a reader (2: frames chosen per clip, `fps` null
/// when they were, each clip's `fps` and `motion`).
pub const IMPOSTOR_FORMAT_VERSION: u32 = 2;

/// The sidecar's file name for the bake named `stem`: `<stem>.impostor.json`.
pub fn impostor_file(stem: &str) -> String {
    format!("{stem}.impostor.json")
}

/// A unit's animated impostor: every clip at `fps` from every view, one cell each.
///
/// Cell `c` of the atlases is at column `c mod columns`, row `c div columns` (row 0 the
/// top), `cell` texels square. Frame `f` of a clip is its `first_frame + f`; the cell of
/// frame `F` from azimuth `a` on elevation ring `e` is `(F · elevations + e) · azimuths + a`.
#[derive(Clone, Debug, Serialize, Deserialize, JsonSchema, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct Impostor {
    /// Always `"vatbake.impostor"`.
    pub format: String,
    /// Always 2 for now.
    pub format_version: u32,
    /// The description it was made from (relative to this file), with its size and SHA-256.
    pub description: ExportFile,
    /// Texels per side of a cell.
    pub cell: u32,
    /// Cells per row of the atlases.
    pub columns: u32,
    /// Width and height of each atlas, in texels.
    pub width: u32,
    /// See `width`.
    pub height: u32,
    /// Views around the unit: `azimuths` directions evenly around +Y, the first from +Z
    /// (the model's front), turning toward +X, on each ring of `elevations`.
    pub views: Views,
    /// The model-space point at every cell's centre: the billboard's centre.
    pub pivot: [f32; 3],
    /// The world size of a cell's side (model units): the billboard's size.
    pub size: f32,
    /// Frames per second of clip time asked for, the same for every clip; null when each
    /// clip's were chosen by its motion (`--fps auto`, then `motion` is set).
    pub fps: Option<f32>,
    /// With frames chosen per clip: the farthest, in cell texels, any point of a stored
    /// pose was allowed to be from where the frame shown at its time draws it. Null otherwise.
    pub motion: Option<f32>,
    /// Frames over all clips.
    pub frames: u32,
    /// Every clip, in the description's order.
    pub clips: Vec<ImpostorClip>,
    /// Base colour (RGB, sRGB-encoded) and coverage (alpha): `R8G8B8A8_SRGB`, KTX 2.0 + Zstandard.
    pub colour: ExportFile,
    /// The model-space normal as `(n + 1) / 2` (RGB) and the depth toward the camera as
    /// `0.5 + d / size` (alpha): `R8G8B8A8_UNORM`, KTX 2.0 + Zstandard.
    pub normal: ExportFile,
}

/// The directions the cells are drawn from.
#[derive(Clone, Debug, Serialize, Deserialize, JsonSchema, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct Views {
    /// Directions around +Y per ring, evenly spaced: azimuth `a` is `360° · a / azimuths`.
    pub azimuths: u32,
    /// The rings' elevations above the ground plane, in degrees, ascending.
    pub elevations: Vec<f32>,
}

/// One clip's frames.
#[derive(Clone, Debug, Serialize, Deserialize, JsonSchema, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct ImpostorClip {
    /// The clip's name, as in the description.
    pub name: String,
    /// Index of its first frame over all clips.
    pub first_frame: u32,
    /// Its frames: frame `f` shows clip time `f · duration / frames` when it loops
    /// (the last frame is followed by the first), `f · duration / (frames − 1)` when not.
    pub frames: u32,
    /// The clip's length in seconds.
    pub duration: f32,
    /// Whether it loops (as the description says).
    pub looping: bool,
    /// Frames per second of clip time: intervals between frames over `duration`.
    pub fps: f32,
    /// The farthest, in cell texels, any point of the clip's stored poses is from where
    /// the frame a player shows at that pose's time (the nearest) draws it.
    pub motion: f32,
}
