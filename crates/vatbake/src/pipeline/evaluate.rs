//! Evaluate: the rest pose (and the size guard on it), and the pose of every row of
//! every clip, root motion taken out where asked; `--loop-rows` appends rows here.
//!
//! Owns: the rig, the rest pose and the size guard, the column order, every row's
//! pose and the clip entries (slots, root motion, loop rows). Must not touch:
//! quantizing, texels, the description's other parts, the output folder.

use std::path::Path;

use anyhow::Result;
use glam::Vec3;
use vat_model::{Clip, ClipRows, Columns, Layout, Model};
use vat_skin::{Rig, RowPose};

use super::texels;
use crate::description::{self, ClipEntry};
use crate::error::Error;
use crate::settings::BakeSettings;

/// The evaluated mesh's size against its skeleton, over the same in bind space
/// ([`vat_skin::skeleton_size_ratio`]), outside this range means the model came
/// out the wrong size (the bone-scale and quantization "smear" traps: 1.5–2.4×
/// too big, or flattened).
pub(crate) const SIZE_GUARD: (f32, f32) = (1.0 / 1.5, 1.5);

/// The evaluated model: its rig, rest pose, every row's pose and the clip entries.
pub(crate) struct Posed<'m> {
    /// Per row: the transform that took the root motion out (identity where kept).
    pub(crate) corrections: Vec<glam::Mat4>,
    pub(crate) rig: Rig<'m>,
    /// Which point each texture column holds.
    pub(crate) columns: Columns,
    pub(crate) rest: (Vec<Vec3>, Vec<Vec3>),
    pub(crate) size_ratio: f32,
    pub(crate) poses: Vec<RowPose>,
    pub(crate) entries: Vec<ClipEntry>,
}

/// Evaluate: the rest pose (and the size guard on it), and the pose of every row of every clip.
pub(crate) fn evaluate<'m>(
    model: &'m Model,
    clips: &[&Clip],
    slots: Vec<Option<String>>,
    rates: &super::clips::ClipRates,
    settings: &BakeSettings,
) -> Result<Posed<'m>> {
    let clip_rows: &[ClipRows] = &rates.rows;
    let rig = Rig::new(model);
    let mut rest_positions = vec![Vec3::ZERO; model.points.len()];
    let mut rest_normals = vec![Vec3::ZERO; model.points.len()];
    rig.evaluate_normalized(&rig.pose(None, 0.0), &mut rest_positions, &mut rest_normals);
    let columns = Columns::new(settings.column_order, &rest_positions);
    let size_ratio = vat_skin::skeleton_size_ratio(model, &rest_positions);
    size_guard(size_ratio, &rest_positions, settings.size_guard, &settings.input)?;
    let mut poses = texels::row_poses(&rig, clips, clip_rows);
    let mut entries = Vec::with_capacity(clips.len());
    let mut row = 0u32;
    for (((clip, slot), rows), auto_rate) in clips.iter().zip(slots).zip(clip_rows).zip(&rates.auto) {
        entries.push(ClipEntry {
            name: clip.display_name(),
            source_index: clip.source_index as u32,
            merged_from: clip.merged_from.iter().map(|&i| i as u32).collect(),
            animations_file: clip.file.map(|f| f as u32),
            slot,
            row,
            rows: rows.rows,
            duration: rows.duration,
            rate: rows.rate,
            looping: false,
            loop_row: false,
            root_motion: None,
            auto_rate: auto_rate.clone(),
        });
        row += rows.rows;
    }
    let corrections = crate::features::root_motion::take_root_motion(
        model,
        clips,
        clip_rows,
        &mut poses,
        &mut entries,
        &settings.root_motion,
        &settings.input,
    )?;
    Ok(Posed { corrections, rig, columns, rest: (rest_positions, rest_normals), size_ratio, poses, entries })
}

/// `--loop-rows`: appends a copy of each looping clip's first row after its last
/// (unless it already ends there exactly), in the poses, the entries and the
/// sockets; returns the new layout.
pub(crate) fn add_loop_rows(posed: &mut Posed, sockets: &mut [description::Socket], settings: &BakeSettings) -> Layout {
    let wanted = crate::pipeline::loop_rows::loop_rows(&posed.rig, &posed.poses, &posed.entries);
    let map = crate::pipeline::loop_rows::append_loop_rows(&mut posed.entries, &wanted);
    posed.poses = map.iter().map(|&old| posed.poses[old].clone()).collect();
    posed.corrections = map.iter().map(|&old| posed.corrections[old]).collect();
    for socket in sockets {
        socket.rows = map.iter().map(|&old| socket.rows[old]).collect();
    }
    Layout::new(posed.rig.model().points.len(), map.len(), settings.max_width as usize)
}

/// Refuses a bake whose evaluated mesh is far from the size its skeleton gives it
/// in the bind pose (when `enabled`): the tell of a skinning or dequantization bug, which must be an
/// error, not a silently wrong texture. A size that is not a finite number (a
/// transform that overflows) is refused even with the guard off: the rest mesh
/// could not record it.
pub(crate) fn size_guard(ratio: f32, rest_positions: &[Vec3], enabled: bool, file: &Path) -> Result<()> {
    if !ratio.is_finite() || !rest_positions.iter().all(|p| p.is_finite()) {
        return Err(Error::input(format!(
            "{}: the rest pose evaluates to positions that are not finite numbers \
             (a joint or node transform overflows); check the rig's joint scales and inverse bind matrices",
            file.display()
        ))
        .into());
    }
    if enabled && !(SIZE_GUARD.0..=SIZE_GUARD.1).contains(&ratio) {
        return Err(Error::input(format!(
            "{}: against its skeleton, the evaluated mesh is {ratio:.2}× the size it has in the bind pose, \
             so it would bake the wrong size (the inverse bind matrices scale the mesh against its joints). \
             Check the rig's inverse bind matrices and joint scales in the exporter, or pass --no-size-guard \
             if the rest pose really differs that much from the bind pose",
            file.display()
        ))
        .into());
    }
    Ok(())
}
