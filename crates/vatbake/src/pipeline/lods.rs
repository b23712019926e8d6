//! The levels of detail (`--lods`): coarser rest meshes whose points are a subset of
//! the baked points, so they play from the one texture. Made in the decimate stage
//! (on the bind pose, as the decimation), measured in the measure stage over every
//! row of every clip, written by encode beside the rest mesh.
//!
//! Owns: the levels' budgets and their checks, the levels' triangles, their error and
//! switch distance, their GLBs. Must not touch: the texture (no level adds a column or
//! a texel), the baked model, the output folder.

use anyhow::Result;
use glam::{Vec2, Vec3, Vec3A};
use rayon::prelude::*;
use vat_bounds::{Bounds, Quantizer};
use vat_decimate::lod::{Lod, LodError, Simplifier};
use vat_decimate::SurfaceDistance;
use vat_model::{Layout, Model};

use super::evaluate::Posed;
use super::rest_mesh::{self, RestMesh};
use super::texels::{self, Quantizing};
use crate::description::{self, LodSwitch};
use crate::error::Error;
use crate::settings::BakeSettings;

/// The projected error a level may show, in pixels, when it is switched to.
pub const SWITCH_PIXELS: f32 = 1.0;
/// The screen height the switch is stated at, in pixels (1080p).
pub const SWITCH_SCREEN_HEIGHT: u32 = 1080;
/// The vertical field of view the switch distance is stated at, in degrees.
pub const SWITCH_FOV_DEGREES: f32 = 60.0;

/// One level: the budget it was made to and its triangles over the baked points.
#[derive(Clone, Debug)]
pub(crate) struct Level {
    pub(crate) lod: Lod,
}

/// The levels `--lods` asks for, of the baked `model` (finest first); none without it.
/// A level that keeps as many points as the bake or the level before, or fewer than
/// keep every uv island and open border, is refused (a usage error naming the value).
pub(crate) fn simplify(model: &Model, settings: &BakeSettings) -> Result<Vec<Level>> {
    if settings.lods.0.is_empty() {
        return Ok(Vec::new());
    }
    let file = settings.input.display();
    let chain = &settings.lods;
    let space = vat_skin::bind_pose_positions(model);
    let simplifier = Simplifier::new(model, &space)
        .map_err(|e| Error::input(format!("{file}: --lods {chain}: {e}; leave --lods out")))?;
    let (points, smallest) = (simplifier.points(), simplifier.smallest());
    let mut levels = Vec::new();
    let mut finer = points;
    for (index, &budget) in chain.0.iter().enumerate() {
        let n = budget.of(points);
        let level = index + 1;
        let refuse = |why: String| -> anyhow::Error {
            Error::usage(format!("{file}: --lods {chain}: level {level} ({budget}, {n} points) {why}")).into()
        };
        if n >= points {
            return Err(refuse(format!(
                "is not below the bake's {points} points; give each level fewer points than the bake keeps \
                 (e.g. --lods {},{})",
                points / 2,
                (points / 4).max(smallest)
            )));
        }
        if n >= finer {
            return Err(refuse(format!(
                "keeps no fewer points than level {index} ({finer} points); list the levels finest first, \
                 each with fewer points"
            )));
        }
        let lod = match simplifier.simplify(n) {
            Ok(lod) => lod,
            Err(LodError::TooSmall { smallest, .. }) => {
                return Err(refuse(format!(
                    "is below the {smallest} points that keep every uv island and open border (fewer would leave \
                     a hole); give at least {smallest}"
                )))
            }
            Err(e) => return Err(refuse(e.to_string())),
        };
        finer = n;
        levels.push(Level { lod });
    }
    Ok(levels)
}

/// What measure finds of one level: its distance to the finest bake's surface.
#[derive(Clone, Copy, Debug)]
pub(crate) struct LevelError {
    pub(crate) distance: SurfaceDistance,
    pub(crate) rows: usize,
}

/// Each level's distance to the baked surface over the first `rows` rows (every row
/// of every clip, before loop rows), positions as the texture decodes them: every
/// baked point to the level's nearest triangle, and samples of every level triangle
/// (corners, edge midpoints, centroid) to the baked surface's nearest triangle. Rows
/// are measured in parallel and combined in order: the figures do not depend on the
/// thread count.
pub(crate) fn measure(levels: &[Level], posed: &Posed, rows: usize, quantizing: &Quantizing) -> Vec<LevelError> {
    if levels.is_empty() {
        return Vec::new();
    }
    let model = posed.rig.model();
    let quantizer = Quantizer::on_grid(&quantizing.bounds, &quantizing.grid);
    let mut used = vec![false; model.points.len()];
    for &p in model.triangles.iter().flatten() {
        used[p as usize] = true;
    }
    let per_row: Vec<Vec<SurfaceDistance>> = posed.poses[..rows]
        .par_iter()
        .map(|pose| {
            let positions: Vec<Vec3> = texels::positions(&posed.rig, pose)
                .into_iter()
                .map(|p| vat_bounds::decode_position(quantizer.encode(Vec3A::from(p)), &quantizing.bounds))
                .collect();
            let baked: Vec<Vec3> = positions.iter().zip(&used).filter(|(_, &u)| u).map(|(&p, _)| p).collect();
            levels
                .iter()
                .map(|level| {
                    let to_level = vat_decimate::surface_distance(&baked, &positions, &level.lod.triangles);
                    let samples: Vec<Vec3> = level
                        .lod
                        .triangles
                        .iter()
                        .flat_map(|t| {
                            let [a, b, c] = t.map(|p| positions[p as usize]);
                            [a, b, c, (a + b) * 0.5, (b + c) * 0.5, (c + a) * 0.5, (a + b + c) / 3.0]
                        })
                        .collect();
                    let to_baked = vat_decimate::surface_distance(&samples, &positions, &model.triangles);
                    to_level.combine(to_baked)
                })
                .collect()
        })
        .collect();
    (0..levels.len())
        .map(|level| LevelError {
            distance: per_row.iter().map(|row| row[level]).fold(SurfaceDistance::default(), SurfaceDistance::combine),
            rows,
        })
        .collect()
}

/// When a level whose largest error is `max_error` (model units) may be shown, with
/// the animation bounds' diagonal `diagonal`: [`description::LodSwitch`].
pub(crate) fn switch(max_error: f32, diagonal: f32) -> LodSwitch {
    let (pixels, height, fov) = (SWITCH_PIXELS, SWITCH_SCREEN_HEIGHT, SWITCH_FOV_DEGREES);
    let fraction = if diagonal > 0.0 { max_error / diagonal } else { 0.0 };
    let screen_fraction = if fraction > 0.0 { pixels / (height as f32 * fraction) } else { f32::MAX };
    let distance = max_error * height as f32 / (2.0 * pixels * (fov.to_radians() * 0.5).tan());
    LodSwitch { pixels, screen_height: height, vertical_fov_degrees: fov, screen_fraction, distance }
}

/// What a level's GLB is written from besides the level: the bake's.
pub(crate) struct LevelMesh<'a> {
    pub(crate) name: &'a str,
    pub(crate) model: &'a Model,
    pub(crate) rest: &'a (Vec<Vec3>, Vec<Vec3>),
    pub(crate) layout: &'a Layout,
    pub(crate) columns: &'a vat_model::Columns,
    /// The rest mesh's bounds corners.
    pub(crate) bounds: (Vec3, Vec3),
    pub(crate) generator: &'a str,
    /// For another format's mesh (`--format openvat|vat3`): every baked point's
    /// TEXCOORD_1 in that format's texture, and whether parts sharing a material merge.
    /// None: our own, each point's column in `layout`.
    pub(crate) format_uv1: Option<(&'a [Vec2], bool)>,
}

/// The GLB of a level: its points (a subset of the baked points, in their order) in
/// the rest pose, each vertex's TEXCOORD_1 its point's column in `layout` (or the
/// format's uv of that point); the parts, materials and bounds corners as the rest mesh's.
pub(crate) fn write_glb(level: &Level, mesh: &LevelMesh) -> std::io::Result<Vec<u8>> {
    let LevelMesh { name, model, rest, layout, columns, bounds, generator, format_uv1 } = *mesh;
    let lod = &level.lod;
    let mut index_of = vec![u32::MAX; model.points.len()];
    for (i, &p) in lod.points.iter().enumerate() {
        index_of[p as usize] = i as u32;
    }
    let pick = |values: &[Vec3]| -> Vec<Vec3> { lod.points.iter().map(|&p| values[p as usize]).collect() };
    let points = &model.points;
    let subset = vat_model::Points {
        positions: pick(&points.positions),
        normals: pick(&points.normals),
        uv0: lod.points.iter().map(|&p| points.uv0[p as usize]).collect(),
        joints: lod.points.iter().map(|&p| points.joints[p as usize]).collect(),
        weights: lod.points.iter().map(|&p| points.weights[p as usize]).collect(),
    };
    // Each part keeps its kept points' run and its level triangles, renumbered.
    let mut parts = Vec::with_capacity(model.parts.len());
    let (mut first_point, mut first_triangle) = (0, 0);
    for (part, &triangle_count) in model.parts.iter().zip(&lod.part_triangles) {
        let point_count = lod.points.iter().filter(|&&p| part.points().contains(&(p as usize))).count();
        parts.push(vat_model::Part {
            first_point,
            point_count,
            first_triangle,
            triangle_count,
            morph_targets: Vec::new(),
            ..part.clone()
        });
        first_point += point_count;
        first_triangle += triangle_count;
    }
    let reduced = Model {
        parts,
        points: subset,
        triangles: lod.triangles.iter().map(|t| t.map(|p| index_of[p as usize])).collect(),
        materials: model.materials.clone(),
        ..Model::default()
    };
    let uv1: Vec<Vec2> = match format_uv1 {
        Some((uv1, _)) => lod.points.iter().map(|&p| uv1[p as usize]).collect(),
        None => lod.points.iter().map(|&p| Vec2::from(layout.column_uv(columns.column(p as usize)))).collect(),
    };
    rest_mesh::write_glb(&RestMesh {
        name,
        generator,
        model: &reduced,
        positions: &pick(&rest.0),
        normals: &pick(&rest.1),
        layout,
        columns,
        bounds_min: bounds.0,
        bounds_max: bounds.1,
        uv1: Some(&uv1),
        // The corners' uv as the full mesh's: point 0's.
        corner_uv: Some(match format_uv1 {
            Some((uv1, _)) => uv1.first().map_or([0.0; 2], |uv| uv.to_array()),
            None => layout.column_uv(0),
        }),
        merge_materials: format_uv1.is_some_and(|(_, merge)| merge),
        // The levels stay plain floats; `--rest-mesh meshopt` encodes the full mesh only.
        encoding: vat_description::RestMeshEncoding::Plain,
    })
}

/// The description's record of each level, from its GLB and its measured error.
pub(crate) fn describe(
    levels: &[Level],
    errors: &[LevelError],
    glbs: &[(String, Vec<u8>)],
    bounds: &Bounds,
) -> Vec<description::Lod> {
    let diagonal = bounds.diagonal();
    let fraction = |d: f32| if diagonal > 0.0 { d / diagonal } else { 0.0 };
    levels
        .iter()
        .zip(errors)
        .zip(glbs)
        .map(|((level, error), (file, glb))| description::Lod {
            file: file.clone(),
            points: level.lod.points.len() as u32,
            triangles: level.lod.triangles.len() as u32,
            sha256: description::sha256_hex(glb),
            max_error: error.distance.max,
            mean_error: error.distance.mean,
            max_error_fraction: fraction(error.distance.max),
            mean_error_fraction: fraction(error.distance.mean),
            rows_measured: error.rows as u32,
            switch: switch(error.distance.max, diagonal),
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_level_is_shown_where_its_error_projects_to_one_pixel() {
        // 1 cm of error on a 2 m diagonal: 0.5 % of it; at 1080p the diagonal may cover
        // 1 / (1080 × 0.005) = 18.5 % of the screen's height; at 60°, from
        // 0.01 × 1080 / (2 tan 30°) = 9.35 m.
        let switch = switch(0.01, 2.0);
        assert!((switch.screen_fraction - 0.185_185).abs() < 1e-5, "{switch:?}");
        assert!((switch.distance - 9.353_07).abs() < 1e-4, "{switch:?}");
        assert_eq!((switch.pixels, switch.screen_height, switch.vertical_fov_degrees), (1.0, 1080, 60.0));
    }
}
