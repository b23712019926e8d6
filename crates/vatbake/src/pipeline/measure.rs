//! Measure: the decimation's error against the full model, on a sample of rows; for a
//! bone bake, what its stored matrices lose against the evaluation.
//!
//! Owns: the error figures the description records (`decimation`, `bones.max_error`,
//! `bones.four_influence_error`). Must not touch: what is baked: it reads the poses,
//! the model and the matrices and changes none of them; the output folder.

use glam::{Mat4, Vec3};
use rayon::prelude::*;
use vat_bounds::Bounds;
use vat_model::{Clip, ClipRows, Model, MAX_INFLUENCES};
use vat_skin::{Rig, RowPose};

use super::bones_palette::Palette;
use super::evaluate::Posed;
use super::pack::Matrices;
use super::texels;
use crate::description::{self, ClipEntry, InfluenceError};

/// Measure: the decimation's error against the full model, on a sample of the rows.
pub(crate) fn measure(
    source: &Model,
    decimated: &vat_decimate::Decimation,
    posed: &Posed,
    clips: &[&Clip],
    clip_rows: &[ClipRows],
    bounds: &Bounds,
) -> description::Decimation {
    let rig = &posed.rig;
    let (error, rows_measured) =
        decimation_error(source, rig, clips, clip_rows, &posed.poses, &posed.entries, &posed.corrections);
    let diagonal = bounds.diagonal();
    let fraction = |distance: f32| if diagonal > 0.0 { distance / diagonal } else { 0.0 };
    description::Decimation {
        source_points: source.points.len() as u32,
        points: rig.model().points.len() as u32,
        source_triangles: source.triangles.len() as u32,
        cell_size: decimated.cell_size,
        max_error: error.max,
        mean_error: error.mean,
        max_error_fraction: fraction(error.max),
        mean_error_fraction: fraction(error.mean),
        rows_measured: rows_measured as u32,
    }
}

/// The distance from the full-resolution model to the baked surface, over the
/// rows `vat_decimate::measured_rows` picks (the full model is evaluated on
/// those rows only), and how many rows that was. Rows are measured in parallel
/// and combined in order, so the figures do not depend on the thread count.
pub(crate) fn decimation_error(
    source: &Model,
    baked: &Rig,
    clips: &[&Clip],
    clip_rows: &[ClipRows],
    poses: &[RowPose],
    entries: &[ClipEntry],
    corrections: &[glam::Mat4],
) -> (vat_decimate::SurfaceDistance, usize) {
    let rows: Vec<usize> = clip_rows.iter().map(|r| r.rows as usize).collect();
    let picked = vat_decimate::measured_rows(&rows, vat_decimate::MEASURED_ROWS);
    let jobs: Vec<(usize, usize)> =
        picked.iter().enumerate().flat_map(|(clip, rows)| rows.iter().map(move |&row| (clip, row))).collect();
    let source_rig = Rig::new(source);
    let distances: Vec<vat_decimate::SurfaceDistance> = jobs
        .par_iter()
        .map(|&(clip, row)| {
            let time = clip_rows[clip].time(row as u32);
            let row = entries[clip].row as usize + row;
            let mut source_pose = source_rig.pose(Some(clips[clip]), time);
            source_pose.premultiply(corrections[row]);
            let source_positions = texels::positions(&source_rig, &source_pose);
            let baked_positions = texels::positions(baked, &poses[row]);
            vat_decimate::pose_error(source, &source_positions, baked.model(), &baked_positions)
        })
        .collect();
    let error =
        distances.into_iter().fold(vat_decimate::SurfaceDistance::default(), vat_decimate::SurfaceDistance::combine);
    (error, jobs.len())
}

/// What measure finds of a bone bake's matrices.
pub(crate) struct MatrixErrors {
    /// The largest distance between the bind pose skinned by the stored matrices and
    /// the evaluation: the description's `positions.precision`.
    pub(crate) max_error: f32,
    /// What a player limited to 4 influences loses; `None` when no point has more.
    pub(crate) four: Option<InfluenceError>,
}

/// Measure, for a bone bake: the stored matrices against the evaluation they came
/// from, on the bind pose `bind`.
pub(crate) fn matrix_errors(
    posed: &Posed,
    palette: &Palette,
    matrices: &Matrices,
    bind: &[Vec3],
    bounds: &Bounds,
) -> MatrixErrors {
    let stored = matrices.stored();
    MatrixErrors {
        // The 16-bit form was measured when pack chose it.
        max_error: matrices.max_error.unwrap_or_else(|| decode_error(&posed.rig, &posed.poses, stored, palette, bind)),
        four: four_influence_error(palette, stored, &posed.entries, bind, bounds),
    }
}

/// The largest distance between the bind pose skinned by each row's matrices (as
/// stored: f32, or decoded from the 16-bit form) and the bake's own evaluation of the same row.
pub(crate) fn decode_error(rig: &Rig, poses: &[RowPose], rows: &[Vec<Mat4>], palette: &Palette, bind: &[Vec3]) -> f32 {
    poses
        .par_iter()
        .zip(rows)
        .map(|(pose, matrices)| {
            let evaluated = crate::pipeline::texels::positions(rig, pose);
            evaluated
                .iter()
                .enumerate()
                .map(|(i, p)| palette.skin(matrices, i, bind[i], MAX_INFLUENCES).distance(*p))
                .fold(0.0, f32::max)
        })
        .reduce(|| 0.0, f32::max)
}

/// What skinning with the strongest 4 influences (renormalized) loses against all
/// of them, on the measured rows; `None` when no point has more than 4.
fn four_influence_error(
    palette: &Palette,
    rows: &[Vec<Mat4>],
    entries: &[description::ClipEntry],
    bind: &[Vec3],
    bounds: &Bounds,
) -> Option<InfluenceError> {
    let many: Vec<usize> = (0..bind.len()).filter(|&i| palette.count(i) > 4).collect();
    if many.is_empty() {
        return None;
    }
    let clip_rows: Vec<usize> = entries.iter().map(|e| e.rows as usize).collect();
    let picked = vat_decimate::measured_rows(&clip_rows, vat_decimate::MEASURED_ROWS);
    let global: Vec<usize> =
        picked.iter().zip(entries).flat_map(|(rows, e)| rows.iter().map(move |&k| e.row as usize + k)).collect();
    let (mut max, mut sum) = (0.0f32, 0.0f64);
    for &row in &global {
        for &i in &many {
            let all = palette.skin(&rows[row], i, bind[i], MAX_INFLUENCES);
            let four = palette.skin(&rows[row], i, bind[i], 4);
            let d = all.distance(four);
            max = max.max(d);
            sum += f64::from(d);
        }
    }
    let diagonal = bounds.diagonal();
    Some(InfluenceError {
        max,
        mean: (sum / (global.len() * many.len()) as f64) as f32,
        max_fraction: if diagonal > 0.0 { max / diagonal } else { 0.0 },
        rows_measured: global.len() as u32,
    })
}
