//! The bake's stages, one file each, in the order the data flows through them:
//!
//! load → clips (and slots) → decimate → evaluate → bounds → measure → pack → encode → write
//!
//! - [`load`]: takes the input file and the scene, influence and take settings; gives
//!   the [`load::Source`]: the model with its takes merged, the source's hash and size.
//! - [`clips`]: takes the model and `--clips`; gives the clips in order, the slot each
//!   fills, each clip's rows and the texture's layout (refused past its caps).
//! - [`decimate`]: takes the model in its bind pose and the point budget; gives the
//!   decimation and so the model the later stages evaluate (the source's for `--points all`).
//! - [`evaluate`]: takes that model, the clips and their rows; gives [`evaluate::Posed`]:
//!   the rig, the rest pose (size-guarded), the column order, every row's pose (root
//!   motion taken out) and the clip entries; `--loop-rows` appends rows to it.
//! - [`bounds`]: takes every row's pose; gives the box the positions are quantized
//!   against, and which clips loop.
//! - [`measure`]: takes the source model and the posed rows; gives the decimation's
//!   error (a bone bake measures its stored matrices, after pack).
//! - [`pack`]: takes the posed rows, the layout and the quantizing; gives the staged
//!   texture, [`pack::PackedTexture`] (a bone bake's: [`pack::Matrices`]).
//! - [`encode`]: takes what the stages made ([`encode::Made`], [`encode::BoneMade`]);
//!   gives [`encode::Encoded`]: the rest mesh, other tools' files and the description, as bytes.
//! - [`write`](mod@write): takes the staged texture and the encoded files; gives the files'
//!   paths, all renamed into place together.
//!
//! The vertex bake (`crate::bake::vertices`) and the bone bake (`crate::bake::bones`) are
//! recipes over these stages, each stage entered through a [`Clock`] as a [`Stage`];
//! `verify` reaches them through its one entry, [`crate::bake::fresh`]. A stage knows
//! its inputs and outputs, never the stage after it.

pub(crate) mod bounds;
pub(crate) mod clips;
pub(crate) mod decimate;
pub(crate) mod encode;
pub(crate) mod evaluate;
pub(crate) mod load;
pub(crate) mod measure;
pub(crate) mod pack;
pub(crate) mod write;

// What the stages share: the evaluation kernels, the rest-mesh writers, the bone
// bake's palette, other tools' files, the levels of detail (made in decimate, measured in
// measure, written in encode), and the playback features each applied in its stage.
pub(crate) mod bones_mesh;
pub(crate) mod bones_palette;
pub(crate) mod bones_quat16;
pub(crate) mod export;
pub(crate) mod lods;
pub(crate) mod loop_rows;
pub(crate) mod rest_mesh;
pub(crate) mod sockets;
pub(crate) mod texels;

use std::time::Instant;

use anyhow::Result;
use vat_model::Finding;

use crate::error::Error;

/// What a bake tells whoever watches it (a progress bar), and how the watcher
/// stops it: the stage it has started, how many image rows of the texture are done
/// in the long one, and whether to stop (asked at every stage and every chunk of
/// rows; a stopped bake removes its temporary files and writes nothing). Called
/// from the bake's threads; the default methods ignore everything.
pub trait Watch: Sync {
    /// The bake has started stage `name` (load, decimate, evaluate, bounds, measure, pack, encode, write).
    fn stage(&self, _name: &'static str) {}
    /// `done` of the texture's `total` image rows are evaluated and compressed.
    fn rows(&self, _done: usize, _total: usize) {}
    /// True to stop the bake ([`ErrorKind::Cancelled`](crate::ErrorKind::Cancelled)).
    fn cancelled(&self) -> bool {
        false
    }
}

/// Tells `watch` that `stage` starts, unless it wants the bake stopped.
fn enter(watch: &dyn Watch, stage: Stage) -> Result<(), Error> {
    if watch.cancelled() {
        return Err(Error::cancelled());
    }
    watch.stage(stage.name());
    Ok(())
}

/// Nobody watching.
pub struct Unwatched;

impl Watch for Unwatched {}

/// A stage of the bake, as the watch hears it and the timings record it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Stage {
    Load,
    Decimate,
    Evaluate,
    Bounds,
    Measure,
    Pack,
    Encode,
    Write,
}

impl Stage {
    /// The name [`Watch::stage`] hears.
    pub(crate) fn name(self) -> &'static str {
        match self {
            Stage::Load => "load",
            Stage::Decimate => "decimate",
            Stage::Evaluate => "evaluate",
            Stage::Bounds => "bounds",
            Stage::Measure => "measure",
            Stage::Pack => "pack",
            Stage::Encode => "encode",
            Stage::Write => "write",
        }
    }

    /// The field of `timings` that holds this stage's time.
    fn time(self, timings: &mut Timings) -> &mut f64 {
        match self {
            Stage::Load => &mut timings.load,
            Stage::Decimate => &mut timings.decimate,
            Stage::Evaluate => &mut timings.evaluate,
            Stage::Bounds => &mut timings.bounds,
            Stage::Measure => &mut timings.measure,
            Stage::Pack => &mut timings.pack,
            Stage::Encode => &mut timings.encode,
            Stage::Write => &mut timings.write,
        }
    }
}

/// Each stage entered through the watch and timed.
pub(crate) struct Clock<'w> {
    pub(crate) watch: &'w dyn Watch,
    pub(crate) timings: Timings,
}

impl<'w> Clock<'w> {
    /// No stage run yet, told to `watch`.
    pub(crate) fn new(watch: &'w dyn Watch) -> Self {
        Clock { watch, timings: Timings::default() }
    }

    /// Runs `work` as `stage`, its time in that stage's field of the timings.
    pub(crate) fn stage<T>(&mut self, stage: Stage, work: impl FnOnce() -> Result<T>) -> Result<T> {
        enter(self.watch, stage)?;
        let at = Instant::now();
        let out = work();
        *stage.time(&mut self.timings) = ms(at);
        out
    }

    /// Records the three parts of the pack stage's time: evaluating, compressing, writing.
    pub(crate) fn pack_parts(&mut self, (evaluate, compress, write): pack::PartsMs) {
        (self.timings.pack_evaluate, self.timings.pack_compress, self.timings.pack_write) = (evaluate, compress, write);
    }
}

/// What the stages found: to act on, and for the record.
#[derive(Default)]
pub(crate) struct Found {
    pub(crate) warnings: Vec<Finding>,
    pub(crate) notes: Vec<Finding>,
}

/// Milliseconds since `since`, to the microsecond: every time the pipeline reports.
pub fn ms(since: std::time::Instant) -> f64 {
    (since.elapsed().as_secs_f64() * 1e6).round() / 1e3
}

/// How long each stage took, in milliseconds.
#[derive(Clone, Debug, Default, serde::Serialize)]
pub struct Timings {
    /// Reading the file, parsing and validating the glTF, decoding its buffers.
    pub load: f64,
    /// Clustering to the point budget; 0 when every point is baked.
    pub decimate: f64,
    /// The rest pose, the size guard, and sampling every joint's matrix on every row;
    /// with `--fps auto`, choosing each clip's rate too.
    pub evaluate: f64,
    /// Skinning every point on every row for its position alone, to find the bounds the
    /// positions are quantized against; the loop check.
    pub bounds: f64,
    /// Measuring the decimation's error (evaluating the full model on the measured rows).
    pub measure: f64,
    /// Skinning every point on every row in full into 16-bit texels, compressed into the
    /// staged texture file as they are made: the stage's wall time. Its three parts
    /// follow; with more than one thread they overlap, so they may add up to more.
    pub pack: f64,
    /// Of `pack`: evaluating every point on every row into texels.
    pub pack_evaluate: f64,
    /// Of `pack`: compressing the texels (Zstandard, or the PNG encoder), file writes excluded.
    pub pack_compress: f64,
    /// Of `pack`: writing the texture's bytes into the staged file.
    pub pack_write: f64,
    /// Building the rest-pose mesh and the description.
    pub encode: f64,
    /// Staging the rest-pose mesh and the description, and renaming all three files into place.
    pub write: f64,
    /// The whole bake, from start to finish.
    pub total: f64,
}
