//! Measure: the decimation's error against the full model, on a sample of rows.

use rayon::prelude::*;
use vat_bounds::Bounds;
use vat_model::{Clip, ClipRows, Model};
use vat_skin::{Rig, RowPose};

use super::evaluate::Posed;
use super::texels;
use crate::description::{self, ClipEntry};

/// Measure: the decimation's error against the full model, on a sample of the rows.
#[allow(clippy::too_many_arguments)]
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
