//! Verify's entry into the pipeline: the vertex bake's stages up to evaluate (load →
//! clips → decimate → evaluate, and `--loop-rows`' bounds and loop rows), or the bone
//! bake's (load → clips → evaluate → bounds, with the palette and the bind pose), with
//! the settings a description records; nothing is written. `verify` reaches the pipeline
//! through this and nothing else: what it compares a shipped texture with is here.

use anyhow::Result;
use vat_model::{Clip, Columns, Layout};
use vat_skin::{Rig, RowPose};

use crate::description::ClipEntry;
use crate::pipeline::{bounds::*, clips::*, decimate::*, evaluate::*, load::*, Found};
use crate::settings::BakeSettings;

/// A fresh evaluation of a bake's source, for `verify`: the bake's own load,
/// clip choice, decimation and evaluation with `settings`, nothing written.
pub(crate) struct Fresh<'m> {
    /// The rig of the baked points (decimated, when the settings decimate).
    rig: Rig<'m>,
    /// The pose of every global row, the clips stacked in order.
    poses: Vec<RowPose>,
    /// The clips with their rows, rates and durations (slots not set; loops only with `--loop-rows`).
    pub entries: Vec<ClipEntry>,
    /// The texture layout the bake makes.
    pub layout: Layout,
    /// Which point each column holds, as the bake orders them.
    pub columns: Columns,
    /// SHA-256 of the source file, lowercase hex.
    pub source_sha256: String,
    /// The clips, in the entries' order.
    clips: Vec<&'m Clip>,
    /// Per global row: the root motion taken out (identity where kept).
    corrections: Vec<glam::Mat4>,
}

impl Fresh<'_> {
    /// Positions and normals of every point on global row `row`.
    pub fn evaluate_row(&self, row: usize, positions: &mut [glam::Vec3A], normals: &mut [glam::Vec3A]) {
        self.rig.evaluate(&self.poses[row], 0..self.layout.points, positions, normals);
    }

    /// Positions of every point of clip `clip` at `time` seconds, between global rows
    /// `row` and `row + 1`: the root motion those rows took out, interpolated at
    /// `fraction`, taken out too (as a player adds it back between rows).
    pub fn positions_at(&self, clip: usize, time: f32, row: usize, fraction: f32, positions: &mut [glam::Vec3A]) {
        between_rows(&self.rig, self.clips[clip], &self.corrections, (time, row, fraction), positions);
    }
}

/// Every point of `rig` posed by `clip` at `time` seconds, between global rows `row` and
/// `row + 1`, with the root motion those rows took out (`corrections`), interpolated at
/// `fraction`, taken out too: what a player shows between the two rows.
fn between_rows(
    rig: &Rig,
    clip: &Clip,
    corrections: &[glam::Mat4],
    (time, row, fraction): (f32, usize, f32),
    positions: &mut [glam::Vec3A],
) {
    rig.positions(&rig.pose(Some(clip), time), 0..positions.len(), positions);
    let at = |r: usize| corrections.get(r).map_or(glam::Vec3::ZERO, |c| c.w_axis.truncate());
    let shift = glam::Vec3A::from(at(row).lerp(at(row + 1), fraction));
    if shift != glam::Vec3A::ZERO {
        positions.iter_mut().for_each(|p| *p += shift);
    }
}

/// Runs the bake's stages up to the evaluation (load → clips → decimate →
/// evaluate) with `settings`, and hands the result to `then`: every row's pose of
/// the points the bake would write, without writing anything.
pub(crate) fn evaluate_fresh<R>(settings: &BakeSettings, then: impl FnOnce(&Fresh) -> Result<R>) -> Result<R> {
    let mut found = Found::default();
    let source = load(settings, &mut found)?;
    let clips = pick_clips(&source.model, &settings.clips, &settings.input)?;
    let decimation = decimate(&source.model, settings, &mut found.warnings)?;
    let model = baked_model(&source.model, &decimation);
    let (rates, mut layout) = texture_layout(model, &clips, settings)?;
    let mut posed = evaluate(model, &clips, vec![None; clips.len()], &rates, settings)?;
    if settings.loop_rows {
        bounds_and_loops(&posed.rig, &posed.poses, &mut posed.entries, settings)?;
        layout = add_loop_rows(&mut posed, &mut Vec::new(), settings);
    }
    then(&Fresh {
        rig: posed.rig,
        poses: posed.poses,
        entries: posed.entries,
        layout,
        columns: posed.columns,
        source_sha256: source.sha256.clone(),
        clips,
        corrections: posed.corrections,
    })
}

/// A fresh evaluation of a bone bake's source (`--mode bones`), for `verify`: the
/// bone bake's own load, clips, evaluation, bounds, palette and bind pose.
pub(crate) struct FreshBones<'m> {
    rig: Rig<'m>,
    poses: Vec<RowPose>,
    palette: crate::pipeline::bones_palette::Palette,
    bind: Vec<glam::Vec3>,
    /// The clips with their rows, rates and durations.
    pub entries: Vec<ClipEntry>,
    /// The diagonal of the bounds the bake records.
    pub diagonal: f32,
    /// SHA-256 of the source file, lowercase hex.
    pub source_sha256: String,
    /// The clips, in the entries' order.
    clips: Vec<&'m Clip>,
    /// Per global row: the root motion taken out (identity where kept).
    corrections: Vec<glam::Mat4>,
}

impl FreshBones<'_> {
    /// Matrices per row.
    pub fn joints(&self) -> usize {
        self.palette.len()
    }

    /// Rows evaluated.
    pub fn rows(&self) -> usize {
        self.poses.len()
    }

    /// Per point of global row `row`: the distance between the bind pose skinned by
    /// `matrices` (one row of a texture, in palette order) and the evaluation.
    pub fn distances(&self, row: usize, matrices: &[glam::Mat4]) -> Vec<f32> {
        let evaluated = crate::pipeline::texels::positions(&self.rig, &self.poses[row]);
        self.skinned(matrices).iter().zip(&evaluated).map(|(s, p)| s.distance(*p)).collect()
    }

    /// Every point of the bind pose skinned by one row's `matrices` (in palette order):
    /// what a player draws on that row.
    pub fn skinned(&self, matrices: &[glam::Mat4]) -> Vec<glam::Vec3> {
        (0..self.bind.len()).map(|i| self.palette.skin(matrices, i, self.bind[i], vat_model::MAX_INFLUENCES)).collect()
    }

    /// [`Fresh::positions_at`] for a bone bake: every point of clip `clip` at `time`
    /// seconds, between global rows `row` and `row + 1`.
    pub fn positions_at(&self, clip: usize, time: f32, row: usize, fraction: f32, positions: &mut [glam::Vec3A]) {
        between_rows(&self.rig, self.clips[clip], &self.corrections, (time, row, fraction), positions);
    }
}

/// Runs the bone bake's stages up to the bounds with `settings`, and hands the result to
/// `then`, without writing anything.
pub(crate) fn evaluate_fresh_bones<R>(
    settings: &BakeSettings,
    then: impl FnOnce(&FreshBones) -> Result<R>,
) -> Result<R> {
    let mut found = Found::default();
    let source = load(settings, &mut found)?;
    let model = &source.model;
    let (clips, slots) = clips_and_slots(model, settings, &mut found.warnings)?;
    let rates = clip_rows(model, &clips, settings);
    let mut posed = evaluate(model, &clips, slots, &rates, settings)?;
    let palette = crate::pipeline::bones_palette::Palette::new(&posed.rig);
    let bounds = bounds_and_loops(&posed.rig, &posed.poses, &mut posed.entries, settings)?;
    let bind = crate::pipeline::bones_palette::bind_pose(&posed.rig).0;
    then(&FreshBones {
        rig: posed.rig,
        poses: posed.poses,
        palette,
        bind,
        entries: posed.entries,
        diagonal: bounds.diagonal(),
        source_sha256: source.sha256.clone(),
        clips,
        corrections: posed.corrections,
    })
}
