//! Bounds: every point on every row for its position alone, to find the box the
//! positions are quantized against; which clips loop; how far a runtime limited to
//! the first influence set departs.
//!
//! Owns: the box, the clip entries' `looping`, the first-influence-set finding.
//! Must not touch: the poses (it reads them), texels, the output folder.

use anyhow::Result;
use rayon::prelude::*;
use vat_bounds::Bounds;
use vat_model::{Clip, ClipRows, Finding, Model};
use vat_skin::{Rig, RowPose};

use super::texels;
use super::*;
use crate::description::ClipEntry;
use crate::error::Error;
use crate::settings::BakeSettings;

/// A clip loops when its last row is within this fraction of the bounds diagonal of its first.
pub(crate) const LOOP_TOLERANCE: f32 = 0.01;

/// Bounds over every row of every clip; a clip loops when its last row is back where its first was.
pub(crate) fn bounds_and_loops(
    rig: &Rig,
    poses: &[RowPose],
    entries: &mut [ClipEntry],
    settings: &BakeSettings,
) -> Result<Bounds> {
    let bounds = texels::bounds(rig, poses).ok_or_else(|| {
        Error::input(format!(
            "{}: the animation moves points to positions that are not finite numbers, or too far apart \
             for 32-bit floats (a joint or node transform overflows); check the model's scales and keyframes",
            settings.input.display()
        ))
    })?;
    for entry in entries {
        let first = texels::positions(rig, &poses[entry.row as usize]);
        let last = texels::positions(rig, &poses[(entry.row + entry.rows - 1) as usize]);
        let gap = first.iter().zip(&last).map(|(a, b)| a.distance(*b)).fold(0.0, f32::max);
        entry.looping = entry.rows > 1 && gap <= LOOP_TOLERANCE * bounds.diagonal();
    }
    Ok(bounds)
}

/// Where points have more than four influences: how far a first-set-only runtime departs.
pub(crate) fn report_first_set(
    source: &Model,
    first_set: &[([u16; 4], [f32; 4])],
    clips: &[&Clip],
    clip_rows: &[ClipRows],
    bounds: &Bounds,
    settings: &BakeSettings,
    found: &mut Found,
) {
    let departure = first_set_departure(source, first_set, clips, clip_rows);
    let fraction = departure / bounds.diagonal().max(f32::MIN_POSITIVE);
    let baked = match settings.max_influences {
        None => "all baked (the glTF rule)".to_string(),
        Some(n) => format!("the strongest {n} baked (--max-influences)"),
    };
    let mut finding = Finding::new(
        "first-set-departure",
        format!(
            "points have more than 4 joint influences, {baked}; a runtime that reads only JOINTS_0/WEIGHTS_0 \
             (three.js's SkinnedMesh) puts them up to {departure:.3e} ({:.3}% of the bounds diagonal) from this bake",
            100.0 * fraction
        ),
    );
    // Past the bake's own tolerance against three.js, it is worth acting on.
    if fraction > 1e-4 {
        if settings.max_influences.is_none() {
            finding = finding.advice("--max-influences 4 bakes what a runtime limited to four influences shows");
        }
        found.warnings.push(finding);
    } else {
        found.notes.push(finding);
    }
}

/// How far the bake's points would move if skinned with each point's first
/// influence set alone (JOINTS_0/WEIGHTS_0, renormalized), as a runtime that
/// reads only that set does: the largest distance over the rest pose and the
/// rows `vat_decimate::measured_rows` picks, on the full model.
pub(crate) fn first_set_departure(
    source: &Model,
    first_set: &[([u16; 4], [f32; 4])],
    clips: &[&Clip],
    clip_rows: &[ClipRows],
) -> f32 {
    let mut first_only = source.clone();
    for ((joints, weights), (first_joints, first_weights)) in
        first_only.points.joints.iter_mut().zip(first_only.points.weights.iter_mut()).zip(first_set)
    {
        if weights.iter().all(|&w| w == 0.0) {
            continue; // an unskinned point
        }
        *joints = [0; vat_model::MAX_INFLUENCES];
        *weights = [0.0; vat_model::MAX_INFLUENCES];
        joints[..4].copy_from_slice(first_joints);
        weights[..4].copy_from_slice(first_weights);
    }
    let rows: Vec<usize> = clip_rows.iter().map(|r| r.rows as usize).collect();
    let picked = vat_decimate::measured_rows(&rows, vat_decimate::MEASURED_ROWS);
    let mut times: Vec<(Option<&Clip>, f32)> = vec![(None, 0.0)];
    for (clip, rows) in picked.iter().enumerate() {
        times.extend(rows.iter().map(|&row| (Some(clips[clip]), clip_rows[clip].time(row as u32))));
    }
    let (all, first) = (Rig::new(source), Rig::new(&first_only));
    times
        .par_iter()
        .map(|&(clip, time)| {
            let a = texels::positions(&all, &all.pose(clip, time));
            let b = texels::positions(&first, &first.pose(clip, time));
            a.iter().zip(&b).map(|(a, b)| a.distance(*b)).fold(0.0, f32::max)
        })
        .reduce(|| 0.0, f32::max)
}
