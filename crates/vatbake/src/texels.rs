//! Every row of every clip, evaluated straight into texels.
//!
//! The box the positions are quantized against must cover every row before the
//! first texel can be written, so the points are evaluated twice: once for
//! their positions alone, to find the box, then again in full (positions and
//! normals), each image row encoded as soon as it is evaluated. No float copy
//! of the animation is kept: memory is the texels and one row of scratch per
//! thread, and the second pass costs less than writing and re-reading a float
//! frame of every point on every row would.
//!
//! Work is split by image rows (one row of one band); each depends only on its
//! own pose and points, so the bytes are the same at any thread count.

use glam::{Vec3, Vec3A};
use rayon::prelude::*;
use vat_bounds::{Bounds, Quantizer};
use vat_model::{Clip, ClipRows, Layout};
use vat_skin::{Rig, RowPose};

/// The pose of every global row: the clips stacked in order, each clip's rows at
/// its row times.
pub fn row_poses(rig: &Rig, clips: &[&Clip], rows: &[ClipRows]) -> Vec<RowPose> {
    let samples: Vec<(&Clip, f32)> = clips
        .iter()
        .zip(rows)
        .flat_map(|(&clip, rows)| rows.times().into_iter().map(move |time| (clip, time)))
        .collect();
    samples.par_iter().map(|&(clip, time)| rig.pose(Some(clip), time)).collect()
}

/// The box around every point on every row, or `None` when a position is not
/// finite (a transform that overflows or degenerates).
pub fn bounds(rig: &Rig, poses: &[RowPose]) -> Option<Bounds> {
    let points = rig.model().points.len();
    let empty = || Extent { min: Vec3A::INFINITY, max: Vec3A::NEG_INFINITY, probe: Vec3A::ZERO };
    let extent = poses
        .par_iter()
        .map_init(
            || vec![Vec3A::ZERO; points],
            |scratch, pose| {
                rig.positions(pose, 0..points, scratch);
                scratch.iter().fold(empty(), |e, &p| Extent {
                    min: e.min.min(p),
                    max: e.max.max(p),
                    probe: e.probe + p * 0.0,
                })
            },
        )
        .reduce(empty, |a, b| Extent { min: a.min.min(b.min), max: a.max.max(b.max), probe: a.probe + b.probe });
    if !extent.probe.is_finite() {
        return None;
    }
    Some(Bounds::from_points(
        (points > 0 && !poses.is_empty())
            .then(|| [Vec3::from(extent.min), Vec3::from(extent.max)])
            .into_iter()
            .flatten(),
    ))
}

/// A running box, and a probe that turns NaN at the first position that is not
/// finite (`p · 0` is 0 for finite `p`, NaN for infinite or NaN): `min` and
/// `max` alone would skip a NaN.
struct Extent {
    min: Vec3A,
    max: Vec3A,
    probe: Vec3A,
}

/// RGBA16 texels of every image row: RGB the position against `bounds`, A the
/// normal. Texels past the last point of the last band stay zero.
pub fn texels(rig: &Rig, poses: &[RowPose], layout: &Layout, bounds: &Bounds) -> Vec<u16> {
    assert_eq!(poses.len(), layout.rows, "one pose per row");
    let mut texels = vec![0u16; layout.texels() * 4];
    let quantizer = Quantizer::new(bounds);
    texels.par_chunks_mut(layout.width * 4).enumerate().for_each_init(
        || (vec![Vec3A::ZERO; layout.width], vec![Vec3A::ZERO; layout.width]),
        |(positions, normals), (y, line)| {
            let points = layout.band_points(y / layout.rows);
            let count = points.len();
            let (positions, normals) = (&mut positions[..count], &mut normals[..count]);
            rig.evaluate(&poses[y % layout.rows], points, positions, normals);
            vat_bounds::encode_texels(&quantizer, positions, normals, &mut line[..count * 4]);
        },
    );
    texels
}

/// Positions of every point for one pose.
pub fn positions(rig: &Rig, pose: &RowPose) -> Vec<Vec3> {
    let points = rig.model().points.len();
    let mut scratch = vec![Vec3A::ZERO; points];
    rig.positions(pose, 0..points, &mut scratch);
    scratch.into_iter().map(Vec3::from).collect()
}
