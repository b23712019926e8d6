//! The bake: its entry points, its report, and its two recipes over the pipeline's
//! stages: a vertex bake (`vertices.rs`) or a bone bake (`bones.rs`), by `--mode`; and
//! `verify`'s entry into the same stages (`fresh.rs`), up to evaluate, nothing written.

pub(crate) mod bones;
pub(crate) mod fresh;
pub(crate) mod vertices;

use std::path::PathBuf;
use std::time::Instant;

use anyhow::Result;
use vat_model::Finding;

use crate::description::{self, Description};
use crate::error::Error;
use crate::settings::BakeSettings;
use serde::Serialize;

pub use crate::pipeline::clips::MAX_TEXELS;
use crate::pipeline::encode::Encoded;
use crate::pipeline::ms;
use crate::pipeline::write::write;
pub use crate::pipeline::Timings;
use crate::pipeline::{Clock, Found, Stage};
pub use crate::pipeline::{Unwatched, Watch};
use crate::settings::BakeMode;
pub use crate::settings::GENERATOR;
use crate::staging::Staged;

/// What a bake did, for the summary line and `--json`.
#[derive(Clone, Debug, Serialize)]
pub struct BakeReport {
    /// Path of the description file written (`<name>.vat.json` in the output folder).
    pub description_file: PathBuf,
    /// Every file written, renamed into place in the output folder.
    pub files: Vec<PathBuf>,
    /// Points baked: one texture column each (before wrapping into bands).
    pub points: u32,
    /// Rows of all clips stacked: the height of one band.
    pub rows: u32,
    /// Clips baked.
    pub clips: usize,
    /// Width of the texture in texels.
    pub width: u32,
    /// Height of the texture in texels: bands × rows.
    pub height: u32,
    /// Bands the columns wrap into; 1 when the points fit within the maximum width.
    pub bands: u32,
    /// Size of the texture file as written (compressed), in bytes.
    pub texture_bytes: u64,
    /// Size of the rest-pose mesh (GLB) in bytes.
    pub mesh_bytes: u64,
    /// Size of the texels before compression, in bytes: width × height × 8 (RGBA, 16 bits
    /// per channel).
    pub raw_texel_bytes: u64,
    /// GPU memory the texture takes once uploaded (raw texel bytes: width × layer
    /// height × layers × 8; the layers' padding included).
    pub gpu_bytes: u64,
    /// Largest position error the 16-bit encoding can make with these bounds, in model
    /// units (the description's `positions.precision`).
    pub precision: f32,
    /// The evaluated mesh's size against its skeleton over the same in bind space
    /// (the size guard's figure); 1 for a well-formed rig in its bind pose.
    pub size_ratio: f32,
    /// The decimation and its error, as in the description; null when every point was baked.
    pub decimation: Option<description::Decimation>,
    /// What the user may like to know but need not act on (a point budget that
    /// covers every point, points no triangle used).
    #[serde(serialize_with = "crate::findings::findings_json")]
    pub notes: Vec<Finding>,
    /// How long each stage took, in milliseconds.
    pub timings_ms: Timings,
    /// What the user may want to act on: one per kind, each with a stable code.
    #[serde(serialize_with = "crate::findings::findings_json")]
    pub warnings: Vec<Finding>,
    /// The description as written; not part of the JSON summary.
    #[serde(skip)]
    pub description: Description,
}

/// One bake as it runs, from its first stage to its report: its settings, the clock
/// its stages are entered and timed on, what they found, and the files staged so far.
pub(crate) struct Run<'a> {
    pub(crate) settings: &'a BakeSettings,
    pub(crate) clock: Clock<'a>,
    pub(crate) found: Found,
    /// The texture, once packed; the other files are staged by [`Run::finish`].
    pub(crate) staged: Staged,
    started: Instant,
}

impl<'a> Run<'a> {
    /// A bake with `settings` starting now, told to `watch`, its files staged in `staged`.
    pub(crate) fn new(settings: &'a BakeSettings, watch: &'a dyn Watch, staged: Staged) -> Self {
        Run { started: Instant::now(), settings, clock: Clock::new(watch), found: Found::default(), staged }
    }

    /// The write stage and the report: `encoded`'s files staged beside the texture and
    /// all renamed into place, then the report of the bake with `outcome`.
    pub(crate) fn finish(self, encoded: Encoded, outcome: Outcome) -> Result<BakeReport> {
        let Run { settings, mut clock, found, staged, started } = self;
        let files = clock.stage(Stage::Write, || write(staged, &encoded, settings))?;
        Ok(BakeReport::new(encoded.description, files, outcome, found, clock.timings, started, settings))
    }
}

/// What a bake measured that its description does not hold, for its report.
pub(crate) struct Outcome {
    /// The texture file's bytes.
    pub texture_bytes: u64,
    /// The rest mesh's bytes.
    pub mesh_bytes: u64,
    /// The texels' bytes before compression.
    pub raw_texel_bytes: u64,
    /// The size guard's figure.
    pub size_ratio: f32,
    /// The decimation and its error, when points were merged.
    pub decimation: Option<description::Decimation>,
}

impl BakeReport {
    /// The report of a bake whose `files` are in place: the description's facts and
    /// `outcome`'s, the GPU budget checked (its warning into `found`), and the stage
    /// `timings` with the total since `started`.
    pub(crate) fn new(
        description: Description,
        files: Vec<PathBuf>,
        outcome: Outcome,
        mut found: Found,
        mut timings: Timings,
        started: Instant,
        settings: &BakeSettings,
    ) -> BakeReport {
        let gpu_bytes = gpu_budget(&description, settings, &mut found);
        timings.total = ms(started);
        BakeReport {
            description_file: settings.out_dir.join(settings.description_file()),
            files,
            points: description.points,
            rows: description.rows,
            clips: description.clips.len(),
            width: description.texture.width,
            height: description.texture.height,
            bands: description.texture.bands,
            texture_bytes: outcome.texture_bytes,
            mesh_bytes: outcome.mesh_bytes,
            raw_texel_bytes: outcome.raw_texel_bytes,
            gpu_bytes,
            precision: description.positions.precision,
            size_ratio: outcome.size_ratio,
            decimation: outcome.decimation,
            notes: found.notes,
            timings_ms: timings,
            warnings: found.warnings,
            description,
        }
    }
}

/// The GPU memory a bake's texture takes (raw texel bytes of every layer it
/// uploads), with a `gpu-budget` warning past `--gpu-budget`.
pub(crate) fn gpu_budget(description: &Description, settings: &BakeSettings, found: &mut Found) -> u64 {
    let gpu_bytes = crate::features::layers::gpu_bytes(description);
    if let Some(budget) = settings.gpu_budget.filter(|&b| gpu_bytes > b) {
        found.warnings.push(
            Finding::new(
                "gpu-budget",
                format!(
                    "the texture takes {:.1} MiB of GPU memory, more than the budget of {:.1} MiB",
                    gpu_bytes as f64 / 1048576.0,
                    budget as f64 / 1048576.0
                ),
            )
            .advice("lower --points, --fps or --max-frames, or bake fewer --clips"),
        );
    }
    gpu_bytes
}

/// Runs the whole bake for one model: load → clips and slots → decimate →
/// evaluate → bounds → pack (evaluate again, encode, compress) → encode the rest
/// mesh and description → write, all three files renamed into place together.
///
/// ```no_run
/// let settings = vatbake::BakeOptions::default().settings("fixtures/Fox/Fox.glb".into(), "out".into())?;
/// let report = vatbake::bake(&settings)?;
/// assert_eq!(report.points, 1728);
/// # Ok::<(), vatbake::Error>(())
/// ```
pub fn bake(settings: &BakeSettings) -> Result<BakeReport, Error> {
    bake_watched(settings, &Unwatched)
}

/// [`bake()`], telling `watch` how it gets on and stopping when it asks.
pub fn bake_watched(settings: &BakeSettings, watch: &dyn Watch) -> Result<BakeReport, Error> {
    let earlier = earlier_files(settings);
    let staged = Staged::new(&settings.out_dir).durable(settings.durable);
    let mut report = outcome(recipe(settings, watch, staged), watch)?;
    remove_stale(settings, &earlier, &mut report);
    Ok(report)
}

/// [`bake_watched()`] with every file made in memory, for `bake --dry-run` and
/// `inspect` of a source: the figures are a real bake's, and the report names the files
/// the bake would have written in `settings.out_dir`. Nothing is written anywhere, and
/// an earlier bake's files are left as they are.
pub fn bake_dry(settings: &BakeSettings, watch: &dyn Watch) -> Result<BakeReport, Error> {
    let staged = Staged::in_memory(&settings.out_dir);
    outcome(recipe(settings, watch, staged), watch)
}

/// The bake's recipe for its mode, staging its files in `staged`.
fn recipe(settings: &BakeSettings, watch: &dyn Watch, staged: Staged) -> Result<BakeReport> {
    match settings.mode {
        BakeMode::Vertices => vertices::run(settings, watch, staged),
        BakeMode::Bones => bones::run(settings, watch, staged),
    }
}

/// The files an earlier bake of the same name recorded in the description it left in
/// the output folder (texture, rest mesh, exports), read before the new bake replaces it.
fn earlier_files(settings: &BakeSettings) -> Vec<String> {
    let path = settings.out_dir.join(settings.description_file());
    let Ok(files) = crate::shipped::ShippedFiles::read(&path) else { return Vec::new() };
    let d = files.description;
    let target = d.target.map(|t| t.texture).filter(|t| description::check_file_name(t).is_ok());
    let lods = d.lods.into_iter().map(|l| l.file).filter(|f| description::check_file_name(f).is_ok());
    [d.texture.file, d.mesh.file]
        .into_iter()
        .chain(target)
        .chain(d.exports.into_iter().map(|e| e.file))
        .chain(lods)
        .collect()
}

/// Removes the files of an earlier bake of the same name that this bake did not
/// write (a `--target godot` EXR, a `--format` export, a level of detail, a PNG texture after a KTX2
/// one), which would otherwise sit beside the new bake out of step with it, and says
/// so in a note; with `--keep-stale`, keeps them and warns about each. Names were
/// checked to be plain file names when the description was read.
fn remove_stale(settings: &BakeSettings, earlier: &[String], report: &mut BakeReport) {
    let written: std::collections::HashSet<&std::ffi::OsStr> =
        report.files.iter().filter_map(|f| f.file_name()).collect();
    let stale = earlier
        .iter()
        .filter(|name| !written.contains(std::ffi::OsStr::new(name)) && settings.out_dir.join(name).is_file());
    if settings.keep_stale {
        for name in stale {
            report.warnings.push(
                Finding::new(
                    "stale-kept",
                    format!(
                        "kept {name:?} from an earlier bake of {}: this bake does not write it, so it is out of \
                         step with the new files",
                        settings.description_file()
                    ),
                )
                .advice("remove it by hand, or bake again without --keep-stale to have it removed"),
            );
        }
        return;
    }
    let removed: Vec<String> = stale
        .filter(|name| std::fs::remove_file(settings.out_dir.join(name)).is_ok())
        .map(|name| format!("{name:?}"))
        .collect();
    if !removed.is_empty() {
        report.notes.push(Finding::new(
            "stale-removed",
            format!(
                "removed {} from an earlier bake of {} that this bake does not write",
                removed.join(", "),
                settings.description_file()
            ),
        ));
    }
}

/// The error a bake ends with: cancelled when the watch asked it to stop.
pub(crate) fn outcome(result: Result<BakeReport>, watch: &dyn Watch) -> Result<BakeReport, Error> {
    result.map_err(|e| if watch.cancelled() { Error::cancelled() } else { Error::from(e) })
}
