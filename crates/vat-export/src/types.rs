//! The bake as the exporters take it, and what they give back: the types and
//! helpers every format shares.

use glam::{DVec3, Vec2, Vec3};

/// A bake, as plain data.
pub struct Baked<'a> {
    /// Stem of the output files.
    pub name: &'a str,
    /// Who wrote the files (`vatbake 0.1.0`), where a format has room for it.
    pub generator: &'a str,
    /// Rows per second the bake sampled at (a clip's own `rate` may be lower).
    pub fps: f32,
    /// RGBA 16-bit texels, `width × bands·rows`, top row first, no delta: what a shader reads.
    pub texels: &'a [u16],
    /// Texture width in texels.
    pub width: usize,
    /// Rows of all clips stacked: the height of one band.
    pub rows: usize,
    /// Bands the columns wrap into.
    pub bands: usize,
    /// The texture column of each point.
    pub point_columns: &'a [u32],
    /// Decode inputs: `position = (rgb / 65535 · 2 − 1) · half_extent + center`.
    pub center: [f32; 3],
    pub half_extent: [f32; 3],
    /// Rest pose of every point, in the texture's space.
    pub rest_positions: &'a [Vec3],
    /// The source's texture coordinates of every point.
    pub uv0: &'a [Vec2],
    /// Every triangle, as point indices, all primitives in order.
    pub triangles: &'a [[u32; 3]],
    /// The clips, in row order.
    pub clips: &'a [ClipSpan],
    /// The levels of detail (`--lods`), finest first: each level's triangles over the
    /// same points (a subset of them), so it plays from the same texels. Empty without.
    pub levels: &'a [Vec<[u32; 3]>],
}

/// One clip's rows.
#[derive(Clone, Debug, Default)]
pub struct ClipSpan {
    pub name: String,
    /// The game slot the clip fills, if any.
    pub slot: Option<String>,
    /// First global row.
    pub row: usize,
    /// Rows (≥ 1).
    pub rows: usize,
    /// Seconds from the first row to the last.
    pub duration: f32,
    /// Rows per second: row k shows time k / rate.
    pub rate: f32,
    /// The clip ends where it starts.
    pub looping: bool,
}

/// A bone bake, as plain data: what a format of joint matrices takes.
pub struct BakedBones<'a> {
    /// Stem of the output files.
    pub name: &'a str,
    /// Who wrote the files (`vatbake 0.1.0`), where a format has room for it.
    pub generator: &'a str,
    /// Every row's matrices, in texture order (matrix `j` in texels `4j .. 4j + 4`).
    pub rows: &'a [Vec<glam::Mat4>],
    /// The clips, in row order.
    pub clips: &'a [ClipSpan],
    /// The rest mesh's file name, which the player skins with the matrices.
    pub mesh_file: &'a str,
}

impl Baked<'_> {
    /// Points baked.
    pub fn points(&self) -> usize {
        self.point_columns.len()
    }

    /// Texture height: every band's rows.
    pub fn height(&self) -> usize {
        self.bands * self.rows
    }

    /// Index of the first u16 of point `point`'s texel on global row `row`.
    pub fn texel_index(&self, point: usize, row: usize) -> usize {
        let column = self.point_columns[point] as usize;
        let (x, y) = (column % self.width, (column / self.width) * self.rows + row);
        (y * self.width + x) * 4
    }

    /// The texel of point `point` on global row `row`.
    pub fn texel(&self, point: usize, row: usize) -> [u16; 4] {
        let i = self.texel_index(point, row);
        [self.texels[i], self.texels[i + 1], self.texels[i + 2], self.texels[i + 3]]
    }

    /// The bake's decode of a position (vat-bounds' decode, the shader's).
    pub fn position(&self, point: usize, row: usize) -> DVec3 {
        let [x, y, z, _] = self.texel(point, row);
        let bounds = vat_bounds::Bounds { center: self.center.into(), half_extent: self.half_extent.into() };
        vat_bounds::decode_position([x, y, z], &bounds).as_dvec3()
    }

    /// The bake's decode of a normal (octahedral 8 + 8 in alpha: vat-bounds' decode), unit length.
    pub fn normal(&self, point: usize, row: usize) -> DVec3 {
        vat_bounds::decode_normal(self.texel(point, row)[3]).as_dvec3()
    }
}

/// A value in `[lo, hi]` to 16 bits, rounded to the nearest step (0 when the range is empty).
pub(crate) fn unorm16(v: f64, lo: f64, hi: f64) -> u16 {
    if hi > lo {
        ((v - lo) / (hi - lo) * 65535.0).round().clamp(0.0, 65535.0) as u16
    } else {
        0
    }
}

/// One file of an export.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ExportFile {
    /// File name, beside the bake's own files.
    pub name: String,
    pub bytes: Vec<u8>,
}

/// A rest mesh a format needs: the bake's rest mesh (positions, normals, TEXCOORD_0,
/// materials), saved under `file` with `uv1` as its TEXCOORD_1.
#[derive(Clone, Debug)]
pub struct MeshRequest {
    pub file: String,
    /// TEXCOORD_1 of every point (glTF convention: v = 0 at the image's top row).
    pub uv1: Vec<Vec2>,
    /// One primitive per material (the parts that share one merged) instead of one per part.
    pub merge_materials: bool,
    /// The file of each level of detail's mesh (`Baked::levels`), finest first: the
    /// level's points and triangles, each point with its `uv1` here.
    pub levels: Vec<String>,
}

/// What a format writes.
#[derive(Clone, Debug)]
pub struct Export {
    pub files: Vec<ExportFile>,
    /// The rest mesh to write beside them, when the format has one.
    pub mesh: Option<MeshRequest>,
}

/// A bake that a format cannot hold.
#[derive(Debug, thiserror::Error)]
pub enum ExportError {
    /// Too many texels, points or rows for the format's limits; the message says which and what to change.
    #[error("{0}")]
    TooLarge(String),
    /// The PNG encoder failed.
    #[error("cannot encode a PNG: {0}")]
    Png(#[from] vat_ktx2::Ktx2Error),
}

/// JSON with four-space indents and a final newline, as Python's `json.dump(indent=4)` writes it.
pub(crate) fn json_indent4(value: &serde_json::Value) -> Vec<u8> {
    let mut out = Vec::new();
    let formatter = serde_json::ser::PrettyFormatter::with_indent(b"    ");
    let mut serializer = serde_json::Serializer::with_formatter(&mut out, formatter);
    serde::Serialize::serialize(value, &mut serializer).expect("a JSON value always serializes");
    out.push(b'\n');
    out
}

#[cfg(test)]
pub(crate) mod test_bake {
    use super::*;

    /// Two points on two rows in two clips, every channel varied.
    pub struct Owned {
        pub texels: Vec<u16>,
        pub columns: Vec<u32>,
        pub rest: Vec<Vec3>,
        pub uv0: Vec<Vec2>,
        pub clips: Vec<ClipSpan>,
    }

    pub fn owned() -> Owned {
        // Column 0 holds point 1, column 1 point 0 (a spatial order).
        let texels = vec![
            10, 20, 30, 0x80ff, 1000, 2000, 3000, 0x00ff, // row 0
            65535, 0, 32768, 0xff80, 4000, 5000, 6000, 0x7f7f, // row 1
            7, 8, 9, 0x1234, 11, 12, 13, 0x4321, // row 2
        ];
        Owned {
            texels,
            columns: vec![1, 0],
            rest: vec![Vec3::new(0.5, 0.0, -0.5), Vec3::new(0.0, 1.0, 0.0)],
            uv0: vec![Vec2::new(0.25, 0.5), Vec2::new(0.75, 0.125)],
            clips: vec![
                ClipSpan { name: "walk".into(), row: 0, rows: 2, duration: 1.0 / 30.0, ..Default::default() },
                ClipSpan { name: "pose".into(), row: 2, rows: 1, duration: 1.0 / 30.0, ..Default::default() },
            ],
        }
    }

    impl Owned {
        pub fn baked(&self) -> Baked<'_> {
            Baked {
                name: "unit",
                generator: "vatbake test",
                fps: 30.0,
                texels: &self.texels,
                width: 2,
                rows: 3,
                bands: 1,
                point_columns: &self.columns,
                center: [1.0, 2.0, 3.0],
                half_extent: [0.5, 1.5, 0.0],
                rest_positions: &self.rest,
                uv0: &self.uv0,
                triangles: &[[0, 1, 0]],
                clips: &self.clips,
                levels: &[],
            }
        }
    }
}
