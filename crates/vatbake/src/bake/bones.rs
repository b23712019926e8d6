//! The bone bake (`--mode bones`): per row, one matrix per joint instead of one
//! texel per point ([`crate::pipeline::bones_palette`]), over the same stages as the
//! vertex bake: load → clips → evaluate → bounds → pack (the matrices) → measure
//! (what the stored matrices lose) → encode → write. No decimation: every point is
//! in the rest mesh, which the player skins.
//!
//! What a bone bake cannot carry is refused: morph-target animation (a face
//! that speaks is per-point motion; `--mode vertices` bakes it).

use anyhow::Result;

use super::{BakeReport, Outcome, Run};
use crate::pipeline::bones_palette::{bind_pose, fitting_palette};
use crate::pipeline::{bounds::*, clips::*, encode::*, evaluate::*, load::*, measure::*, pack::*, Stage, Watch};
use crate::settings::BakeSettings;
use crate::staging::Staged;

/// The bone bake: one call per stage, in order, each entered through the clock
/// and timed into the report.
pub(crate) fn run(settings: &BakeSettings, watch: &dyn Watch, staged: Staged) -> Result<BakeReport> {
    let mut run = Run::new(settings, watch, staged);
    let source = run.clock.stage(Stage::Load, || load(settings, &mut run.found))?;
    let model = &source.model;
    let (clips, slots) = clips_and_slots(model, settings, &mut run.found.warnings)?;
    refuse_morph_animation(model, &clips, settings)?;
    let rates = clip_rows(model, &clips, settings);
    let mut posed = run.clock.stage(Stage::Evaluate, || evaluate(model, &clips, slots, &rates, settings))?;
    run.clock.timings.evaluate += rates.ms;
    let palette = fitting_palette(&posed.rig, settings)?;
    let bounds =
        run.clock.stage(Stage::Bounds, || bounds_and_loops(&posed.rig, &posed.poses, &mut posed.entries, settings))?;
    let bind = bind_pose(&posed.rig);
    let diagonal = bounds.diagonal();
    let matrices = run.clock.stage(Stage::Pack, || {
        pack_matrices(&posed, &palette, &bind.0, diagonal, settings, &mut run.found, &mut run.staged)
    })?;
    run.clock.pack_parts(matrices.parts_ms);
    let errors =
        run.clock.stage(Stage::Measure, || Ok(matrix_errors(&posed, &palette, &matrices, &bind.0, &bounds)))?;
    let made = BoneMade {
        source: &source,
        posed: &posed,
        palette: &palette,
        bind: &bind,
        bounds: &bounds,
        matrices: &matrices,
        errors,
    };
    let encoded = run.clock.stage(Stage::Encode, || encode_bones(&made, settings))?;
    let outcome = Outcome {
        texture_bytes: matrices.ktx2.len() as u64,
        mesh_bytes: encoded.glb.len() as u64,
        raw_texel_bytes: matrices.width as u64 * matrices.rows.len() as u64 * matrices.encoding.texel_bytes(),
        size_ratio: posed.size_ratio,
        decimation: None,
    };
    run.finish(encoded, outcome)
}
