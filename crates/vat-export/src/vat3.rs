//! SideFX Labs VAT 3 soft-body, HDR variant: what three-vat and SideFX's own soft-body
//! shaders read (docs/targets/FORMATS-NOTES.md, docs/targets/vat3.md).
//!
//! - `<name>_pos.exr`: each vertex's offset from its rest position, raw 32-bit floats
//!   (`Use HDR Textures`: the players add the texel to the rest vertex as it is).
//! - `<name>_rot.exr`: the unit quaternion (x, y, z, w in R, G, B, A) that turns (0, 1, 0)
//!   into the vertex's normal, the shortest arc.
//! - `<name>_col.exr`: white; three-vat multiplies the material's colour by it and tints
//!   the mesh grey when it is missing.
//! - `<name>_data.json`: Houdini's array of one object, keys sorted as Houdini writes them.
//! - `<name>_mesh.glb` (asked for): the rest mesh, its TEXCOORD_1 the vertex's lookup uv,
//!   the parts sharing a material merged into one primitive (three-vat plays the first mesh
//!   it finds).
//!
//! Layout: frame-major, as the players step through it. Frame `f` fills the image lines
//! `f · bands .. (f + 1) · bands` (line 0 at the top of the EXR), each band one line of the
//! bake's columns; the lookup uv of a vertex in column `x` of band `b` is
//! `((x + 0.5) / width, (b + 0.5) / height)`, and the players read frame `f` at
//! `v = uv.y + f / frames` counted from the top (three-vat: `1 − v` in the texture, which
//! three.js's `EXRLoader` fills bottom line first). Every texel of the image is used, so the
//! active-pixels ratio is 1 on both axes: written as `Active Pixels Ratio X/Y`, and carried
//! in the bounds' decimals for the players that read it there (`Bound Min Z` and
//! `Bound Max X` are whole tenths, rounded outwards). All clips are frames end to end: clip
//! `i` is frames `clips[i].row .. row + rows`; a bake of one row stores it twice (the
//! players hide a vertex whose uv lies in the last half frame).

use glam::{DVec3, Vec2};
use serde_json::json;

use crate::exr::exr_rgba32f;
use crate::types::{json_indent4, Baked, Export, ExportError, ExportFile, MeshRequest};

/// The tallest and widest texture written: the largest Unity's and Unreal's importers take.
const TEXTURE_LIMIT: usize = 16384;

/// The unit quaternion `[x, y, z, w]` turning (0, 1, 0) into `n` along the shortest arc;
/// half a turn about +X for `n = −Y`.
pub fn quaternion_from_up(n: DVec3) -> [f64; 4] {
    let n = n.normalize_or(DVec3::Y);
    if n.y <= -1.0 + 1e-12 {
        return [1.0, 0.0, 0.0, 0.0];
    }
    // (0, 1, 0) × n = (n.z, 0, −n.x); w = 1 + (0, 1, 0) · n; then normalized.
    let q = [n.z, 0.0, -n.x, 1.0 + n.y];
    let length = q.iter().map(|c| c * c).sum::<f64>().sqrt();
    q.map(|c| c / length)
}

/// The active-pixels ratio a soft-body shader reads from one bound (`computeActivePixelsRatio`
/// in three-vat's `VATEffect.js`): `1 − (⌈10·b⌉ − 10·b)`, `10·b` rounded to 4 decimals, in
/// 32-bit floats as a GPU computes it.
pub fn ratio_from_bound(bound: f32) -> f32 {
    let scaled = bound * 10.0;
    let scaled = (scaled * 10000.0 + 0.5).floor() / 10000.0;
    1.0 - (scaled.ceil() - scaled)
}

/// `bound` moved outwards (down when `down`) to a whole tenth whose ratio is 1.
fn whole_tenth(bound: f32, down: bool) -> f32 {
    let mut tenths = if down { (bound as f64 * 10.0).floor() } else { (bound as f64 * 10.0).ceil() };
    loop {
        let t = (tenths / 10.0) as f32;
        let outside = if down { t <= bound } else { t >= bound };
        if outside && ratio_from_bound(t) == 1.0 {
            return t;
        }
        tenths += if down { -1.0 } else { 1.0 };
    }
}

/// The image size of a VAT 3 soft-body export of `points` points in `bands` band(s) of
/// `width` columns and `rows` rows (one row is stored twice): `(width, height)`, or
/// [`ExportError::TooLarge`] past the 16384 × 16384 that Unity's and Unreal's importers
/// take, with what to change. Known from the layout alone, so a caller can refuse before
/// it bakes anything.
pub fn vat3_size(points: usize, width: usize, bands: usize, rows: usize) -> Result<(usize, usize), ExportError> {
    let frames = rows.max(2);
    let height = frames * bands;
    if height <= TEXTURE_LIMIT && width <= TEXTURE_LIMIT {
        return Ok((width, height));
    }
    let mut advice = Vec::new();
    if width > TEXTURE_LIMIT {
        advice.push(format!("lower --max-width to {TEXTURE_LIMIT} or less"));
    }
    if height > TEXTURE_LIMIT {
        if width < TEXTURE_LIMIT && bands > 1 {
            advice.push(format!("raise --max-width (up to {TEXTURE_LIMIT}) for fewer bands"));
        }
        advice.push("lower --fps, --max-frames or --points".into());
    }
    Err(ExportError::TooLarge(format!(
        "--format vat3: {points} points in {bands} band(s) of {width} columns × {frames} frames need a \
         {width}×{height} texture, over the {TEXTURE_LIMIT}×{TEXTURE_LIMIT} that Unity's and Unreal's importers take: {}",
        advice.join(", or ")
    )))
}

/// A VAT 3 soft-body export's images, computed texel by texel as the EXR writer asks
/// for them: no full-size image is held.
struct Images<'a> {
    bake: &'a Baked<'a>,
    frames: usize,
    height: usize,
    /// The point in each column of the bake (`None` for a band's unused columns).
    column_points: Vec<Option<usize>>,
    /// The offsets' range, the ratio carriers rounded to whole tenths.
    lo: [f32; 3],
    hi: [f32; 3],
    uv1: Vec<Vec2>,
}

impl<'a> Images<'a> {
    fn new(bake: &'a Baked<'a>) -> Result<Self, ExportError> {
        let (points, width, bands) = (bake.points(), bake.width, bake.bands);
        let (_, height) = vat3_size(points, width, bands, bake.rows)?;
        let frames = bake.rows.max(2);
        let mut column_points = vec![None; width * bands];
        let (mut lo, mut hi) = ([f32::INFINITY; 3], [f32::NEG_INFINITY; 3]);
        let mut uv1 = Vec::with_capacity(points);
        for point in 0..points {
            let column = bake.point_columns[point] as usize;
            column_points[column] = Some(point);
            let (x, band) = (column % width, column / width);
            uv1.push(Vec2::new((x as f32 + 0.5) / width as f32, (band as f32 + 0.5) / height as f32));
            for row in 0..bake.rows {
                let offset = Self::offset(bake, point, row);
                for a in 0..3 {
                    (lo[a], hi[a]) = (lo[a].min(offset[a]), hi[a].max(offset[a]));
                }
            }
        }
        if points == 0 {
            (lo, hi) = ([0.0; 3], [0.0; 3]);
        }
        // The two bounds that carry the active-pixels ratio: whole tenths, so that it reads 1.
        (lo[2], hi[0]) = (whole_tenth(lo[2], true), whole_tenth(hi[0], false));
        Ok(Images { bake, frames, height, column_points, lo, hi, uv1 })
    }

    fn offset(bake: &Baked, point: usize, row: usize) -> [f32; 3] {
        (bake.position(point, row) - bake.rest_positions[point].as_dvec3()).as_vec3().to_array()
    }

    /// The point and the bake's row in texel (`x`, `y`), `y` counted from the top.
    fn at(&self, x: usize, y: usize) -> Option<(usize, usize)> {
        let bands = self.bake.bands;
        let (frame, band) = (y / bands, y % bands);
        self.column_points[band * self.bake.width + x].map(|point| (point, frame.min(self.bake.rows - 1)))
    }

    /// `_pos.exr`'s texel: the offset from the rest position, alpha 1.
    fn position(&self, x: usize, y: usize) -> [f32; 4] {
        self.at(x, y).map_or([0.0, 0.0, 0.0, 1.0], |(point, row)| {
            let [ox, oy, oz] = Self::offset(self.bake, point, row);
            [ox, oy, oz, 1.0]
        })
    }

    /// `_rot.exr`'s texel: the quaternion turning (0, 1, 0) into the normal.
    fn rotation(&self, x: usize, y: usize) -> [f32; 4] {
        self.at(x, y).map_or([0.0, 0.0, 0.0, 1.0], |(point, row)| {
            quaternion_from_up(self.bake.normal(point, row)).map(|c| c as f32)
        })
    }
}

/// The VAT 3 soft-body export of a bake.
pub fn vat3(bake: &Baked) -> Result<Export, ExportError> {
    let images = Images::new(bake)?;
    let (frames, height, lo, hi) = (images.frames, images.height, images.lo, images.hi);
    // A bound as the shortest decimal that reads back as the same 32-bit float (26.1, not
    // 26.100000381469727), as Houdini writes them.
    let number = |v: f32| v.to_string().parse::<f64>().unwrap_or(v as f64);
    // Houdini's keys, sorted as it writes them, plus two that three-vat reads besides:
    // the ratio (which it then takes over the bounds') and "Use Compressed Normals" (it
    // assumes normals in the position's alpha without it).
    let data = json!([{
        "Active Pixels Ratio X": 1.0,
        "Active Pixels Ratio Y": 1.0,
        "Axis System": "Right-Handed Y-Up",
        "Bound Max X": number(hi[0]),
        "Bound Max Y": number(hi[1]),
        "Bound Max Z": number(hi[2]),
        "Bound Min X": number(lo[0]),
        "Bound Min Y": number(lo[1]),
        "Bound Min Z": number(lo[2]),
        "Frame Count": frames,
        "Houdini FPS": number(bake.fps),
        "Name": bake.name,
        "Spare Color Texture": 0,
        "Two Position Textures": 0,
        "Use Compressed Normals": 0,
        "Use HDR Textures": 1,
        "VAT Type": "Softbody",
        "Vertex Count": bake.points(),
    }]);
    let exr = |suffix: &str, pixel: &(dyn Fn(usize, usize) -> [f32; 4] + Sync)| ExportFile {
        name: format!("{}_{suffix}.exr", bake.name),
        bytes: exr_rgba32f(bake.width, height, pixel),
    };
    Ok(Export {
        files: vec![
            ExportFile { name: format!("{}_data.json", bake.name), bytes: json_indent4(&data) },
            exr("pos", &|x, y| images.position(x, y)),
            exr("rot", &|x, y| images.rotation(x, y)),
            exr("col", &|_, _| [1.0; 4]),
        ],
        mesh: Some(MeshRequest {
            file: format!("{}_mesh.glb", bake.name),
            uv1: images.uv1,
            merge_materials: true,
            // The soft-body players read each vertex's column from its uv: a level is one
            // more such mesh over a subset of the points.
            levels: (1..=bake.levels.len()).map(|k| format!("{}_lod{k}_mesh.glb", bake.name)).collect(),
        }),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::types::test_bake;

    fn rotate(q: [f64; 4], v: DVec3) -> DVec3 {
        let (u, w) = (DVec3::new(q[0], q[1], q[2]), q[3]);
        v + 2.0 * u.cross(u.cross(v) + w * v)
    }

    #[test]
    fn the_quaternion_turns_up_into_the_normal() {
        for n in [DVec3::X, DVec3::Y, -DVec3::Y, DVec3::Z, DVec3::new(0.3, -0.9, 0.2), DVec3::new(-1.0, 1e-9, 0.0)] {
            let q = quaternion_from_up(n);
            assert!((rotate(q, DVec3::Y) - n.normalize()).length() < 1e-12, "{n}");
            assert!((q.iter().map(|c| c * c).sum::<f64>() - 1.0).abs() < 1e-12);
        }
    }

    #[test]
    fn the_ratio_bounds_are_whole_tenths_outside_the_offsets() {
        for (bound, down) in
            [(0.2860112f32, false), (-0.2978338, true), (0.0, false), (0.0, true), (-3.05, false), (123.45, true)]
        {
            let t = whole_tenth(bound, down);
            assert_eq!(ratio_from_bound(t), 1.0, "{bound}");
            assert!(if down { t <= bound } else { t >= bound }, "{bound} → {t}");
            assert!((t - bound).abs() <= 0.1 + 1e-4, "{bound} → {t}");
        }
        // A bound off a tenth is read as a smaller ratio: the reason for rounding.
        assert!((ratio_from_bound(0.2860112) - 0.8601).abs() < 1e-3);
    }

    #[test]
    fn the_players_decode_lands_on_the_bakes_positions_and_normals() {
        let owned = test_bake::owned();
        let bake = owned.baked();
        let export = vat3(&bake).unwrap();
        let names: Vec<&str> = export.files.iter().map(|f| f.name.as_str()).collect();
        assert_eq!(names, ["unit_data.json", "unit_pos.exr", "unit_rot.exr", "unit_col.exr"]);
        let data: serde_json::Value = serde_json::from_slice(&export.files[0].bytes).unwrap();
        assert_eq!(data[0]["Frame Count"], 3);
        assert_eq!(data[0]["Vertex Count"], 2);
        assert_eq!(data[0]["Use HDR Textures"], 1);
        assert_eq!(export.mesh.as_ref().unwrap().file, "unit_mesh.glb");
        // The soft-body decode on the values as written (the EXR files themselves are read
        // back in tests/js/vat3.test.mjs): frame f at v = uv.y + f / frames from the top.
        let images = Images::new(&bake).unwrap();
        let (width, height) = (bake.width, images.height);
        for (point, uv) in images.uv1.iter().enumerate() {
            for frame in 0..3 {
                let v = uv.y + frame as f32 / images.frames as f32;
                let (x, y) = ((uv.x * width as f32) as usize, (v * height as f32) as usize);
                let t = images.position(x, y);
                let engine = bake.rest_positions[point].as_dvec3() + DVec3::new(t[0] as f64, t[1] as f64, t[2] as f64);
                assert!((engine - bake.position(point, frame)).length() < 1e-6, "{point} {frame}");
                let q = images.rotation(x, y).map(|c| c as f64);
                assert!((rotate(q, DVec3::Y) - bake.normal(point, frame)).length() < 1e-6, "{point} {frame}");
            }
        }
        for a in 0..3 {
            assert!(images.lo[a] <= images.hi[a]);
        }
    }
}
