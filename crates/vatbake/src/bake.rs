//! The bake, as a straight line of stages: load → decimate → evaluate → bounds →
//! pack → encode → write. The only place that knows their order.

use std::path::{Path, PathBuf};
use std::time::Instant;

use anyhow::{Context, Result};
use glam::Vec3;
use rayon::prelude::*;
use serde::Serialize;
use vat_bounds::Bounds;
use vat_model::{Clip, ClipRows, Columns, Finding, Layout, Model};
use vat_skin::{Rig, RowPose};

use crate::description::{self, Axes, ClipEntry, Description, Mesh, Positions, Texture};
use crate::error::{ms, Error};
use crate::playback;
use crate::rest_mesh::{self, RestMesh};
use crate::settings::{BakeSettings, PointBudget, TextureFormat};
use crate::slots;
use crate::staging::Staged;
use crate::texels::{self, Quantizing};

/// The tool's name and version, as written into every output.
pub use crate::settings::GENERATOR;

/// The evaluated mesh's size against its skeleton, over the same in bind space
/// ([`vat_skin::skeleton_size_ratio`]), outside this range means the model came
/// out the wrong size (the bone-scale and quantization "smear" traps: 1.5–2.4×
/// too big, or flattened).
const SIZE_GUARD: (f32, f32) = (1.0 / 1.5, 1.5);

/// A clip loops when its last row is within this fraction of the bounds diagonal of its first.
const LOOP_TOLERANCE: f32 = 0.01;

/// Most texels a bake may have (width × height, about points × rows): 2^27, the
/// 1 GiB of RGBA16 texels `vat-ktx2` writes and every reader would have to
/// allocate (the bake itself streams them a few MiB at a time). See docs/CLI.md.
pub const MAX_TEXELS: u64 = vat_ktx2::MAX_IMAGE_BYTES / 8;

/// How long each stage took, in milliseconds.
#[derive(Clone, Debug, Default, Serialize)]
pub struct Timings {
    /// Reading the file, parsing and validating the glTF, decoding its buffers.
    pub load: f64,
    /// Clustering to the point budget; 0 when every point is baked.
    pub decimate: f64,
    /// The rest pose, the size guard, and sampling every joint's matrix on every row.
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
    #[serde(serialize_with = "crate::error::findings_json")]
    pub notes: Vec<Finding>,
    /// How long each stage took, in milliseconds.
    pub timings_ms: Timings,
    /// What the user may want to act on: one per kind, each with a stable code.
    #[serde(serialize_with = "crate::error::findings_json")]
    pub warnings: Vec<Finding>,
    /// The description as written; not part of the JSON summary.
    #[serde(skip)]
    pub description: Description,
}

/// The clips `--clips` picks (all by default) and the slot each fills: the opening both
/// bakes (points and bones) share.
pub(crate) fn clips_and_slots<'a>(
    model: &'a Model,
    settings: &BakeSettings,
    warnings: &mut Vec<Finding>,
) -> Result<(Vec<&'a Clip>, Vec<Option<String>>)> {
    let clips = pick_clips(model, &settings.clips, &settings.input)?;
    let slots =
        slots::assign(&clips, &settings.aliases, settings.clips.is_some(), settings.strict, &settings.input, warnings)?;
    Ok((clips, slots))
}

pub(crate) fn pick_clips<'a>(model: &'a Model, wanted: &Option<Vec<String>>, file: &Path) -> Result<Vec<&'a Clip>> {
    let Some(names) = wanted else { return Ok(model.clips.iter().collect()) };
    let mut picked = Vec::new();
    for name in names {
        match model.clips.iter().find(|c| &c.display_name() == name) {
            Some(c) => picked.push(c),
            None => {
                let available: Vec<String> = model.clips.iter().map(|c| format!("\"{}\"", c.display_name())).collect();
                return Err(Error::usage(format!(
                    "{}: has no clip named \"{name}\"; its clips are {}",
                    file.display(),
                    available.join(", ")
                ))
                .into());
            }
        }
    }
    Ok(picked)
}

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
fn enter(watch: &dyn Watch, stage: &'static str) -> Result<(), Error> {
    if watch.cancelled() {
        return Err(Error::cancelled());
    }
    watch.stage(stage);
    Ok(())
}

/// Nobody watching.
pub struct Unwatched;

impl Watch for Unwatched {}

/// The error a bake ends with: cancelled when the watch asked it to stop.
pub(crate) fn outcome(result: Result<BakeReport>, watch: &dyn Watch) -> Result<BakeReport, Error> {
    result.map_err(|e| if watch.cancelled() { Error::cancelled() } else { Error::from(e) })
}

/// The bake: one call per stage, in order. Each stage is entered through the
/// clock (the watch is told, or stops the bake) and timed into the report.
pub(crate) fn run(settings: &BakeSettings, watch: &dyn Watch) -> Result<BakeReport> {
    let started = Instant::now();
    let mut clock = Clock { watch, timings: Timings::default() };
    let mut found = Found::default();

    let source = clock.stage("load", || load(settings, &mut found))?;
    let (clips, slots) = clips_and_slots(&source.model, settings, &mut found.warnings)?;
    // Decimate once, on the bind pose, before anything is evaluated: every row is
    // evaluated on the budgeted points. The source model stays, for the error.
    let decimation = clock.stage("decimate", || decimate(&source.model, settings, &mut found.warnings))?;
    found.notes.extend(decimation.iter().flat_map(|d| d.notes.iter().cloned()));
    let model: &Model = decimation.as_ref().filter(|d| d.decimated).map_or(&source.model, |d| &d.model);
    let (clip_rows, mut layout) = texture_layout(model, &clips, settings)?;
    format_fits(&layout, settings)?;
    let mut posed = clock.stage("evaluate", || evaluate(model, &clips, slots, &clip_rows, settings))?;
    let mut sockets =
        playback::sockets(model, &clips, &clip_rows, &posed.corrections, &settings.sockets, &settings.input)?;
    let bounds = clock.stage("bounds", || bounds_and_loops(&posed.rig, &posed.poses, &mut posed.entries, settings))?;
    if let Some(first_set) = &source.first_influence_set {
        report_first_set(&source.model, first_set, &clips, &clip_rows, &bounds, settings, &mut found);
    }
    let decimation = clock.stage("measure", || {
        Ok(decimation
            .as_ref()
            .filter(|d| d.decimated)
            .map(|d| measure(&source.model, d, &posed, &clips, &clip_rows, &bounds)))
    })?;
    if settings.loop_rows {
        layout = add_loop_rows(&mut posed, &mut sockets, settings);
        format_fits(&layout, settings)?;
    }
    let quantizing = Quantizing { bounds, grid: settings.precision.grid(&bounds) };
    let mut staged = Staged::new(&settings.out_dir).durable(settings.durable);
    let mut texture =
        clock.stage("pack", || pack(&posed, &layout, &quantizing, settings, watch, &mut staged, &mut found))?;
    (clock.timings.pack_evaluate, clock.timings.pack_compress, clock.timings.pack_write) = texture.parts_ms;
    let plain = texture.plain.take();
    drop(posed.poses);
    let encoded = clock.stage("encode", || {
        encode(
            &source,
            model,
            &posed.rest,
            &posed.columns,
            posed.entries,
            &layout,
            &quantizing,
            &texture,
            decimation.clone(),
            plain.as_deref(),
            sockets,
            settings,
        )
    })?;
    let Encoded { glb, exports, description, description_json } = encoded;
    let (mesh_file, description_file) = (settings.mesh_file(), settings.description_file());
    let mut files: Vec<(&str, &[u8])> = vec![(&mesh_file, &glb)];
    files.extend(exports.iter().map(|(name, bytes)| (name.as_str(), bytes.as_slice())));
    files.push((&description_file, &description_json));
    let files = clock.stage("write", || commit(staged, &files))?;
    let outcome = Outcome {
        texture_bytes: texture.bytes,
        mesh_bytes: glb.len() as u64,
        raw_texel_bytes: (layout.width * layout.height * 8) as u64,
        size_ratio: posed.size_ratio,
        decimation,
    };
    Ok(BakeReport::new(description, files, outcome, found, clock.timings, started, settings))
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

/// A fresh evaluation of a bake's source, for `verify`: the bake's own load,
/// clip choice, decimation and evaluation with `settings`, nothing written.
pub(crate) struct Fresh<'m> {
    /// The rig of the baked points (decimated, when the settings decimate).
    pub rig: Rig<'m>,
    /// The pose of every global row, the clips stacked in order.
    pub poses: Vec<RowPose>,
    /// The clips with their rows, rates and durations (slots and loops not set).
    pub entries: Vec<ClipEntry>,
    /// The texture layout the bake makes.
    pub layout: Layout,
    /// Which point each column holds, as the bake orders them.
    pub columns: Columns,
    /// SHA-256 of the source file, lowercase hex.
    pub source_sha256: String,
}

impl Fresh<'_> {
    /// Positions and normals of every point on global row `row`.
    pub fn evaluate_row(&self, row: usize, positions: &mut [glam::Vec3A], normals: &mut [glam::Vec3A]) {
        self.rig.evaluate(&self.poses[row], 0..self.layout.points, positions, normals);
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
    let model: &Model = decimation.as_ref().filter(|d| d.decimated).map_or(&source.model, |d| &d.model);
    let (clip_rows, mut layout) = texture_layout(model, &clips, settings)?;
    let mut posed = evaluate(model, &clips, vec![None; clips.len()], &clip_rows, settings)?;
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
    })
}

/// Each stage entered through the watch and timed.
pub(crate) struct Clock<'w> {
    pub(crate) watch: &'w dyn Watch,
    pub(crate) timings: Timings,
}

impl Clock<'_> {
    /// Runs `work` as the stage `name`, its time in the field of that name.
    pub(crate) fn stage<T>(&mut self, name: &'static str, work: impl FnOnce() -> Result<T>) -> Result<T> {
        enter(self.watch, name)?;
        let at = Instant::now();
        let out = work();
        let t = &mut self.timings;
        let field = match name {
            "load" => &mut t.load,
            "decimate" => &mut t.decimate,
            "evaluate" => &mut t.evaluate,
            "bounds" => &mut t.bounds,
            "measure" => &mut t.measure,
            "pack" => &mut t.pack,
            "encode" => &mut t.encode,
            "write" => &mut t.write,
            other => unreachable!("the bake has no stage named {other}"),
        };
        *field = ms(at);
        out
    }
}

/// What the stages found: to act on, and for the record.
#[derive(Default)]
pub(crate) struct Found {
    pub(crate) warnings: Vec<Finding>,
    pub(crate) notes: Vec<Finding>,
}

/// The loaded source: the model (takes merged), what the loader knows of its
/// influences, and the file's hash and size (its bytes are not kept).
pub(crate) struct Source {
    pub(crate) model: Model,
    first_influence_set: Option<Vec<([u16; 4], [f32; 4])>>,
    pub(crate) sha256: String,
    pub(crate) bytes: u64,
}

/// Load: read, parse and validate the model; merge takes split per node.
pub(crate) fn load(settings: &BakeSettings, found: &mut Found) -> Result<Source> {
    let file = settings.input.as_path();
    let source_bytes = vat_gltf::read_file(file)?;
    let options = vat_gltf::Options { scene: settings.scene, max_influences: settings.max_influences };
    let loaded = vat_gltf::load(file, &source_bytes, &options)?;
    let mut model = loaded.model;
    found.warnings.extend(loaded.warnings);
    // One take split into one animation per node becomes one clip again (vat_gltf::takes).
    let merged_notes;
    (model.clips, merged_notes) = vat_gltf::merge_clips(std::mem::take(&mut model.clips), settings.merge_clips);
    found.notes.extend(merged_notes);
    if model.clips.is_empty() {
        return Err(Error::input(format!(
            "{}: the model has no animation clips, so there is nothing to bake; \
             a vertex animation texture stores motion: export the model with its animations",
            file.display()
        ))
        .into());
    }
    Ok(Source {
        model,
        first_influence_set: loaded.first_influence_set,
        sha256: description::sha256_hex(&source_bytes),
        bytes: source_bytes.len() as u64,
    })
}

/// Each clip's rows and the texture's layout, known before anything is evaluated:
/// a texture past the cap is refused here.
fn texture_layout(model: &Model, clips: &[&Clip], settings: &BakeSettings) -> Result<(Vec<ClipRows>, Layout)> {
    let clip_rows: Vec<ClipRows> =
        clips.iter().map(|c| ClipRows::new(c.duration(), settings.fps, settings.max_frames)).collect();
    let total_rows: u64 = clip_rows.iter().map(|r| u64::from(r.rows)).sum();
    let layout = Layout::new(model.points.len(), total_rows as usize, settings.max_width as usize);
    let texels = layout.width as u128 * layout.height as u128;
    if texels > u128::from(MAX_TEXELS) {
        return Err(Error::input(format!(
            "{}: the texture would have {texels} texels ({} points × {total_rows} rows), \
             more than the limit of {MAX_TEXELS} (1 GiB of RGBA16 texels); \
             lower --points, --max-frames or --fps, or bake fewer --clips",
            settings.input.display(),
            model.points.len(),
        ))
        .into());
    }
    Ok((clip_rows, layout))
}

/// Another tool's format (`--format`) or an engine's target (`--target`) is made from
/// the plain texels, which pack then keeps.
fn keep_plain(settings: &BakeSettings) -> bool {
    settings.format != crate::settings::OutputFormat::Vatbake || settings.target != crate::settings::Target::Three
}

/// `--format vat3`'s images past the importers' cap are refused from the layout, before
/// anything is evaluated and before the output folder is made.
fn format_fits(layout: &Layout, settings: &BakeSettings) -> Result<()> {
    if settings.format == crate::settings::OutputFormat::Vat3 {
        vat_export::vat3_size(layout.points, layout.width, layout.bands, layout.rows)
            .map_err(|e| Error::usage(e.to_string()))?;
    }
    Ok(())
}

/// The evaluated model: its rig, rest pose, every row's pose and the clip entries.
pub(crate) struct Posed<'m> {
    /// Per row: the transform that took the root motion out (identity where kept).
    corrections: Vec<glam::Mat4>,
    pub(crate) rig: Rig<'m>,
    /// Which point each texture column holds.
    columns: Columns,
    rest: (Vec<Vec3>, Vec<Vec3>),
    pub(crate) size_ratio: f32,
    pub(crate) poses: Vec<RowPose>,
    pub(crate) entries: Vec<ClipEntry>,
}

/// Evaluate: the rest pose (and the size guard on it), and the pose of every row of every clip.
pub(crate) fn evaluate<'m>(
    model: &'m Model,
    clips: &[&Clip],
    slots: Vec<Option<String>>,
    clip_rows: &[ClipRows],
    settings: &BakeSettings,
) -> Result<Posed<'m>> {
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
    for ((clip, slot), rows) in clips.iter().zip(slots).zip(clip_rows) {
        entries.push(ClipEntry {
            name: clip.display_name(),
            source_index: clip.source_index as u32,
            merged_from: clip.merged_from.iter().map(|&i| i as u32).collect(),
            slot,
            row,
            rows: rows.rows,
            duration: rows.duration,
            rate: rows.rate,
            looping: false,
            loop_row: false,
            root_motion: None,
        });
        row += rows.rows;
    }
    let corrections = playback::take_root_motion(
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
fn add_loop_rows(posed: &mut Posed, sockets: &mut [description::Socket], settings: &BakeSettings) -> Layout {
    let wanted = playback::loop_rows(&posed.rig, &posed.poses, &posed.entries);
    let map = playback::append_loop_rows(&mut posed.entries, &wanted);
    posed.poses = map.iter().map(|&old| posed.poses[old].clone()).collect();
    posed.corrections = map.iter().map(|&old| posed.corrections[old]).collect();
    for socket in sockets {
        socket.rows = map.iter().map(|&old| socket.rows[old]).collect();
    }
    Layout::new(posed.rig.model().points.len(), map.len(), settings.max_width as usize)
}

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
fn report_first_set(
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

/// Measure: the decimation's error against the full model, on a sample of the rows.
#[allow(clippy::too_many_arguments)]
fn measure(
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

/// Milliseconds spent evaluating, compressing and writing a texture.
pub(crate) type PartsMs = (f64, f64, f64);

/// The staged texture: its file name, size and how it is stored.
struct PackedTexture {
    name: String,
    bytes: u64,
    container: &'static str,
    supercompression: &'static str,
    parts_ms: PartsMs,
    /// SHA-256 of the texture file, hex.
    sha256: String,
    /// The largest position error measured on a coarser grid (0 at full precision).
    max_error: f32,
    /// The plain texels (no deltas, normals packed in alpha), kept as they were packed
    /// when another tool's format or an engine's target is made from them.
    plain: Option<Vec<u16>>,
}

/// A file writer that counts the time spent in its writes and seeks (in
/// nanoseconds, into `spent`): the texture's write time, apart from compression.
struct TimedFile<'a> {
    file: &'a mut std::fs::File,
    spent: &'a std::sync::atomic::AtomicU64,
}

impl TimedFile<'_> {
    fn timed<T>(&mut self, work: impl FnOnce(&mut std::fs::File) -> T) -> T {
        let at = Instant::now();
        let out = work(self.file);
        self.spent.fetch_add(at.elapsed().as_nanos() as u64, std::sync::atomic::Ordering::Relaxed);
        out
    }
}

impl std::io::Write for TimedFile<'_> {
    fn write(&mut self, bytes: &[u8]) -> std::io::Result<usize> {
        self.timed(|f| f.write(bytes))
    }
    fn flush(&mut self) -> std::io::Result<()> {
        self.timed(|f| f.flush())
    }
}

impl std::io::Seek for TimedFile<'_> {
    fn seek(&mut self, to: std::io::SeekFrom) -> std::io::Result<u64> {
        self.timed(|f| f.seek(to))
    }
}

/// Nanoseconds to milliseconds, to the microsecond, as every reported time.
fn nanos_ms(nanos: u64) -> f64 {
    (nanos as f64 / 1e3).round() / 1e3
}

/// Pack: every row evaluated again, in full, straight into texels, compressed into
/// the staged texture file as they come.
fn pack(
    posed: &Posed,
    layout: &Layout,
    quantizing: &Quantizing,
    settings: &BakeSettings,
    watch: &dyn Watch,
    staged: &mut Staged,
    found: &mut Found,
) -> Result<PackedTexture> {
    let model = posed.rig.model();
    if layout.bands > 1 {
        found.notes.push(Finding::new(
            "bands",
            format!(
                "{} points exceed --max-width {}: the columns wrap into {} bands of {} (the description's texture.bands)",
                model.points.len(),
                settings.max_width,
                layout.bands,
                layout.width
            ),
        ));
    }
    let output = |e: anyhow::Error| Error::output(format!("{e:#}"));
    let name = settings.texture_file();
    let container = settings.texture_format.container();
    match settings.texture_format {
        TextureFormat::Ktx2 => {
            let options = vat_ktx2::Ktx2Options {
                zstd_level: settings.zstd_level,
                writer: GENERATOR.to_string(),
                workers: zstd_workers(),
                long_window: settings.zstd_long,
            };
            let width = layout.width as u32;
            let layers = playback::Layers::of(layout, settings.max_height);
            let (writing, in_writer) = (std::sync::atomic::AtomicU64::new(0), std::sync::atomic::AtomicU64::new(0));
            let (mut evaluating, mut max_error) = (std::time::Duration::ZERO, 0f32);
            let mut kept = keep_plain(settings).then(|| Vec::with_capacity(layout.texels() * 4));
            let bytes = staged
                .write_with(&name, |file| {
                    let file = TimedFile { file, spent: &writing };
                    let timed = |work: &mut dyn FnMut() -> Result<(), vat_ktx2::Ktx2Error>| {
                        let at = Instant::now();
                        let out = work();
                        in_writer.fetch_add(at.elapsed().as_nanos() as u64, std::sync::atomic::Ordering::Relaxed);
                        out
                    };
                    let separate = settings.normals == playback::NormalsMode::Separate;
                    let mut writer = vat_ktx2::Ktx2Writer::with_layers(
                        std::io::BufWriter::new(file),
                        width,
                        layers.height,
                        layers.count * if separate { 2 } else { 1 },
                        &options,
                    )?;
                    let (mut done, row_len) = (0, layout.width * 4);
                    let total_rows = layout.height * if separate { 2 } else { 1 };
                    let first = || crate::delta::clip_starts(posed.entries.iter().map(|c| c.row as usize), layout.rows);
                    let mut stored = Vec::new();
                    // Positions, then (separate normals) the normals: each its own
                    // logical image, delta-encoded alike, padded to whole layers.
                    for normal_layers in [false, true].into_iter().take(if separate { 2 } else { 1 }) {
                        let mut delta = crate::delta::Encoder::new(settings.delta, row_len, first());
                        let no_alpha = !normal_layers && settings.normals != playback::NormalsMode::Packed;
                        watch.rows(done, total_rows);
                        let sink = |rows: &[u16]| {
                            if let Some(kept) = kept.as_mut().filter(|_| !normal_layers) {
                                kept.extend_from_slice(rows);
                            }
                            let rows = if settings.delta == crate::delta::Delta::None && !no_alpha {
                                rows
                            } else {
                                stored.clear();
                                stored.extend_from_slice(rows);
                                if no_alpha {
                                    stored.chunks_exact_mut(4).for_each(|texel| texel[3] = 0);
                                }
                                delta.encode(&mut stored);
                                &stored[..]
                            };
                            timed(&mut || writer.write_rows(rows))?;
                            done += rows.len() / row_len;
                            watch.rows(done, total_rows);
                            if watch.cancelled() {
                                let stop = std::io::Error::new(std::io::ErrorKind::Interrupted, "cancelled");
                                return Err(vat_ktx2::Ktx2Error::Io(stop));
                            }
                            Ok::<(), vat_ktx2::Ktx2Error>(())
                        };
                        let (rig, poses, columns) = (&posed.rig, &posed.poses, &posed.columns);
                        evaluating += if normal_layers {
                            texels::stream_normal_texels(rig, poses, layout, columns, quantizing, sink)?
                        } else {
                            let streamed = texels::stream_texels(rig, poses, layout, columns, quantizing, sink)?;
                            max_error = streamed.max_error;
                            streamed.evaluating
                        };
                        // The last layer's rows past the texture: zero.
                        let padding = vec![0u16; row_len];
                        for _ in layout.height..layers.rows() {
                            timed(&mut || writer.write_rows(&padding))?;
                        }
                    }
                    let mut writer = Some(writer);
                    timed(&mut || writer.take().map_or(Ok(()), |w| w.finish().map(drop)))?;
                    Ok(())
                })
                .map_err(output)?;
            let (writing, in_writer) = (writing.into_inner(), in_writer.into_inner());
            let parts_ms = (
                nanos_ms(evaluating.as_nanos() as u64),
                nanos_ms(in_writer.saturating_sub(writing)),
                nanos_ms(writing),
            );
            let sha256 = staged.sha256(&name).map_err(output)?;
            Ok(PackedTexture {
                name,
                bytes,
                container,
                supercompression: "zstd",
                parts_ms,
                sha256,
                max_error,
                plain: kept,
            })
        }
        TextureFormat::Png if playback::Layers::of(layout, settings.max_height).count > 1 => {
            Err(Error::usage(format!(
            "{}: the texture is {} rows tall, more than --max-size allows ({}), and a PNG cannot hold array layers; \
             bake a KTX2, or lower --fps, --max-frames or the clips",
            settings.input.display(),
            layout.height,
            settings.max_height.unwrap_or_default()
        ))
            .into())
        }
        TextureFormat::Png => {
            found.warnings.push(
                Finding::new(
                    "png-texture",
                    "--texture-format png: browsers' image decoders reduce a 16-bit PNG to 8 bits",
                )
                .advice("ship the KTX2 unless a tool can read nothing else"),
            );
            let ((max_error, plain), png, parts_ms) = stage_in_memory(
                staged,
                &name,
                || texels::texels(&posed.rig, &posed.poses, layout, &posed.columns, quantizing),
                |(texels, max_error)| {
                    let plain = keep_plain(settings).then(|| texels.clone());
                    let image =
                        vat_ktx2::Rgba16Image { width: layout.width as u32, height: layout.height as u32, texels };
                    Ok((vat_ktx2::encode_png16(&image).context("cannot encode the texture")?, (max_error, plain)))
                },
            )?;
            let sha256 = description::sha256_hex(&png);
            let bytes = png.len() as u64;
            Ok(PackedTexture { name, bytes, container, supercompression: "none", parts_ms, sha256, max_error, plain })
        }
    }
}

/// The rest mesh and the description, encoded.
struct Encoded {
    glb: Vec<u8>,
    /// Another tool's files (`--format`), as (name, bytes).
    exports: Vec<(String, Vec<u8>)>,
    description: Description,
    description_json: Vec<u8>,
}

/// Encode: the rest mesh (its bounds cover every row) and the description.
#[allow(clippy::too_many_arguments)]
fn encode(
    source: &Source,
    model: &Model,
    rest: &(Vec<Vec3>, Vec<Vec3>),
    columns: &Columns,
    entries: Vec<ClipEntry>,
    layout: &Layout,
    quantizing: &Quantizing,
    texture: &PackedTexture,
    decimation: Option<description::Decimation>,
    plain: Option<&[u16]>,
    sockets: Vec<description::Socket>,
    settings: &BakeSettings,
) -> Result<Encoded> {
    let (bounds, grid) = (&quantizing.bounds, &quantizing.grid);
    let (rest_positions, rest_normals) = rest;
    let rest_bounds = Bounds::from_points(rest_positions.iter().copied());
    let glb = rest_mesh::write_glb(&RestMesh {
        name: &settings.name,
        generator: GENERATOR,
        model,
        positions: rest_positions,
        normals: rest_normals,
        layout,
        columns,
        bounds_min: bounds.min().min(rest_bounds.min()),
        bounds_max: bounds.max().max(rest_bounds.max()),
        uv1: None,
        merge_materials: false,
    })
    .context("cannot encode the rest mesh")?;
    let mut description = Description {
        format: description::FORMAT.into(),
        format_version: description::FORMAT_VERSION,
        generator: GENERATOR.into(),
        source: recorded_source(source, settings),
        settings: settings.recorded(),
        axes: gltf_axes(),
        target: None,
        exports: Vec::new(),
        points: layout.points as u32,
        rows: layout.rows as u32,
        texture: Texture {
            file: texture.name.clone(),
            container: texture.container.into(),
            vk_format: vat_ktx2::VK_FORMAT_R16G16B16A16_UNORM,
            format: "R16G16B16A16_UNORM".into(),
            supercompression: texture.supercompression.into(),
            width: layout.width as u32,
            height: layout.height as u32,
            bands: layout.bands as u32,
            column_order: settings.column_order.as_str().into(),
            delta: (settings.delta != crate::delta::Delta::None).then(|| description::TextureDelta {
                mode: settings.delta.as_str().into(),
                order: settings.delta.order() as u32,
                decode: description::DELTA_DECODE.into(),
            }),
            layers: layers_of(layout, settings).map(|l| l.count),
            layer_height: layers_of(layout, settings).map(|l| l.height),
            bytes: texture.bytes,
            sha256: Some(texture.sha256.clone()),
        },
        positions: Positions {
            channels: "rgb".into(),
            encoding: "unorm16".into(),
            center: bounds.center.to_array(),
            half_extent: bounds.half_extent.to_array(),
            precision: bounds.precision_on(grid),
            grid: (!grid.is_full()).then_some(grid.0),
            max_error: (!grid.is_full()).then_some(texture.max_error),
        },
        normals: playback::normals_entry(settings.normals, layers_of(layout, settings).map_or(1, |l| l.count)),
        mesh: Mesh {
            file: settings.mesh_file(),
            points: model.points.len() as u32,
            triangles: model.triangles.len() as u32,
            sha256: Some(description::sha256_hex(&glb)),
        },
        decimation,
        bones: None,
        clips: entries,
        sockets,
    };
    let mut exports = Vec::new();
    if let Some(texels) = plain {
        let finished = crate::export::Finished {
            model,
            texels,
            layout,
            columns,
            rest,
            center: bounds.center,
            half_extent: bounds.half_extent,
            entries: &description.clips,
            bounds_min: bounds.min().min(rest_bounds.min()),
            bounds_max: bounds.max().max(rest_bounds.max()),
            generator: GENERATOR,
        };
        exports = crate::export::files(&finished, settings)?;
        description.exports = exports.iter().map(|(name, bytes)| description::ExportFile::of(name, bytes)).collect();
        let (file, space) = crate::export::target(&finished, settings);
        exports.extend(file);
        description.target = space;
    }
    let mut description_json = serde_json::to_vec_pretty(&description).context("cannot serialize the description")?;
    description_json.push(b'\n');
    Ok(Encoded { glb, exports, description, description_json })
}

/// The array layers of a layered texture; `None` for a plain one.
fn layers_of(layout: &Layout, settings: &BakeSettings) -> Option<playback::Layers> {
    Some(playback::Layers::of(layout, settings.max_height)).filter(|l| l.count > 1)
}

/// The GPU memory a bake's texture takes (raw texel bytes of every layer it
/// uploads), with a `gpu-budget` warning past `--gpu-budget`.
pub(crate) fn gpu_budget(description: &Description, settings: &BakeSettings, found: &mut Found) -> u64 {
    let gpu_bytes = playback::gpu_bytes(description);
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

/// The source as a description records it: its file name, SHA-256 and size.
pub(crate) fn recorded_source(source: &Source, settings: &BakeSettings) -> description::Source {
    description::Source {
        file: settings.input.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default(),
        sha256: source.sha256.clone(),
        bytes: source.bytes,
    }
}

/// glTF's axes, which every bake's positions are in: +Y up, +Z forward, right-handed, metres.
pub(crate) fn gltf_axes() -> Axes {
    Axes { up: "+y".into(), forward: "+z".into(), handedness: "right".into(), units: "metres".into() }
}

/// Write: `files` staged beside the texture in order (the rest mesh, other files, the
/// description), then all renamed into place together.
pub(crate) fn commit(mut staged: Staged, files: &[(&str, &[u8])]) -> Result<Vec<PathBuf>> {
    let output = |e: anyhow::Error| Error::output(format!("{e:#}"));
    for &(name, bytes) in files {
        staged.write(name, bytes).map_err(output)?;
    }
    Ok(staged.commit().map_err(output)?)
}

/// A texture made whole in memory (the 16-bit PNG, a bone bake's float KTX2) and staged
/// as `name`: `evaluate` makes its content, `encode` the file's bytes from it and what
/// the caller keeps of it. Returns that, the file, and the milliseconds spent evaluating,
/// encoding and writing.
pub(crate) fn stage_in_memory<T, K>(
    staged: &mut Staged,
    name: &str,
    evaluate: impl FnOnce() -> T,
    encode: impl FnOnce(T) -> Result<(Vec<u8>, K)>,
) -> Result<(K, Vec<u8>, PartsMs)> {
    let at = Instant::now();
    let content = evaluate();
    let evaluated = ms(at);
    let at = Instant::now();
    let (file, kept) = encode(content)?;
    let encoded = ms(at);
    let at = Instant::now();
    staged.write(name, &file).map_err(|e| Error::output(format!("{e:#}")))?;
    Ok((kept, file, (evaluated, encoded, ms(at))))
}

/// Zstandard worker threads for one texture: the pool's threads (at most 8) when
/// the bake has the machine to itself, one when it runs on a pool thread itself,
/// as a roster's units do (they already fill the cores, and a worker each per
/// thread per unit would multiply the threads). The bytes are the same for any count.
fn zstd_workers() -> u32 {
    if rayon::current_thread_index().is_some() {
        1
    } else {
        rayon::current_num_threads().clamp(1, 8) as u32
    }
}

/// The decimation the point budget asks for, in the bind pose; `None` for `--points all`.
/// The default budget rises to the fewest points that keep every uv island (a
/// finding says so); a budget given with `--points` that cannot is refused.
fn decimate(
    model: &Model,
    settings: &BakeSettings,
    warnings: &mut Vec<Finding>,
) -> Result<Option<vat_decimate::Decimation>> {
    let file = settings.input.as_path();
    let PointBudget::Count(n) = settings.points else { return Ok(None) };
    let bind_pose = vat_skin::bind_pose_positions(model);
    let result = match vat_decimate::decimate_in(model, &bind_pose, n as usize) {
        Err(vat_decimate::DecimateError::TooSmall { smallest, .. }) if !settings.points_given => {
            warnings.push(
                Finding::new(
                    "budget-raised",
                    format!("kept {smallest} points, not the default {n}: fewer would leave a uv island with a hole"),
                )
                .advice("--points N chooses the budget (more keeps more detail), --points all keeps every point"),
            );
            vat_decimate::decimate_in(model, &bind_pose, smallest)
        }
        other => other,
    };
    match result {
        Ok(decimation) => Ok(Some(decimation)),
        Err(e @ vat_decimate::DecimateError::NoTriangles { .. }) => {
            Err(Error::input(format!("{}: {e} (--points all)", file.display())).into())
        }
        Err(e) => Err(Error::usage(format!("{}: --points {n}: {e}", file.display())).into()),
    }
}

/// How far the bake's points would move if skinned with each point's first
/// influence set alone (JOINTS_0/WEIGHTS_0, renormalized), as a runtime that
/// reads only that set does: the largest distance over the rest pose and the
/// rows `vat_decimate::measured_rows` picks, on the full model.
fn first_set_departure(
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

/// The distance from the full-resolution model to the baked surface, over the
/// rows `vat_decimate::measured_rows` picks (the full model is evaluated on
/// those rows only), and how many rows that was. Rows are measured in parallel
/// and combined in order, so the figures do not depend on the thread count.
fn decimation_error(
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

/// Refuses a bake whose evaluated mesh is far from the size its skeleton gives it
/// in the bind pose (when `enabled`): the tell of a skinning or dequantization bug, which must be an
/// error, not a silently wrong texture. A size that is not a finite number (a
/// transform that overflows) is refused even with the guard off: the rest mesh
/// could not record it.
fn size_guard(ratio: f32, rest_positions: &[Vec3], enabled: bool, file: &Path) -> Result<()> {
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::settings::BakeOptions;
    use std::sync::Mutex;

    /// The entry point's vertex bake, as `vatbake::bake_watched` runs it.
    fn bake_watched(settings: &BakeSettings, watch: &dyn Watch) -> Result<BakeReport, Error> {
        outcome(run(settings, watch), watch)
    }

    /// Everything a watch is told, in order.
    #[derive(Default)]
    struct Recorder(Mutex<Vec<String>>);

    impl Watch for Recorder {
        fn stage(&self, name: &'static str) {
            self.0.lock().unwrap().push(name.to_string());
        }
        fn rows(&self, done: usize, total: usize) {
            self.0.lock().unwrap().push(format!("{done}/{total}"));
        }
    }

    fn settings(out: &Path, options: BakeOptions) -> BakeSettings {
        let fox = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../fixtures/Fox/Fox.glb");
        options.settings(fox, out.to_path_buf()).unwrap()
    }

    fn every_point() -> BakeOptions {
        BakeOptions { points: Some(PointBudget::All), ..Default::default() }
    }

    /// Asks to stop once the texture has its first chunk of rows.
    #[derive(Default)]
    struct StopInPack(std::sync::atomic::AtomicBool);

    impl Watch for StopInPack {
        fn rows(&self, done: usize, _total: usize) {
            if done > 0 {
                self.0.store(true, std::sync::atomic::Ordering::SeqCst);
            }
        }
        fn cancelled(&self) -> bool {
            self.0.load(std::sync::atomic::Ordering::SeqCst)
        }
    }

    #[test]
    fn a_watch_stops_a_bake_mid_texture_and_nothing_is_left() {
        let out = tempfile::tempdir().unwrap();
        // 1000 rows per second: 5,286 rows, many chunks, so the stop comes mid-texture.
        let settings = settings(out.path(), BakeOptions { fps: Some(1000.0), ..every_point() });
        let error = bake_watched(&settings, &StopInPack::default()).unwrap_err();
        assert_eq!(error, Error::cancelled());
        assert_eq!(std::fs::read_dir(out.path()).unwrap().count(), 0, "temporary files removed, nothing written");
    }

    #[test]
    fn the_default_budget_rises_to_keep_every_uv_island_and_a_given_one_does_not() {
        // No fixture needs more than the default 4000 points for its islands, so the
        // default is stood in for by 10 points of the Fox (whose islands need 67).
        let out = tempfile::tempdir().unwrap();
        let mut defaulted = settings(out.path(), BakeOptions::default());
        defaulted.points = PointBudget::Count(10);
        let model = vat_gltf::load(&defaulted.input, &std::fs::read(&defaulted.input).unwrap(), &Default::default())
            .unwrap()
            .model;
        let mut warnings = Vec::new();
        let decimation = decimate(&model, &defaulted, &mut warnings).unwrap().unwrap();
        assert_eq!(decimation.model.points.len(), 67);
        assert_eq!(warnings.len(), 1);
        assert_eq!(warnings[0].code, "budget-raised");
        assert_eq!(
            warnings[0].message,
            "kept 67 points, not the default 10: fewer would leave a uv island with a hole"
        );

        let given = settings(out.path(), BakeOptions { points: Some(PointBudget::Count(10)), ..Default::default() });
        let error = decimate(&model, &given, &mut warnings).unwrap_err();
        assert!(error.to_string().ends_with("the smallest budget that keeps them all is 67"), "{error}");
    }

    #[test]
    fn a_watch_hears_every_stage_and_the_rows_as_they_are_packed() {
        let out = tempfile::tempdir().unwrap();
        let recorder = Recorder::default();
        // 1728 points at 500 columns: 4 bands of 432, 648 image rows; 4 MiB chunks hold them all.
        let report =
            bake_watched(&settings(out.path(), BakeOptions { max_width: Some(500), ..every_point() }), &recorder)
                .unwrap();
        assert_eq!((report.width, report.height), (432, 648));
        let heard = recorder.0.into_inner().unwrap();
        assert_eq!(
            heard,
            ["load", "decimate", "evaluate", "bounds", "measure", "pack", "0/648", "648/648", "encode", "write"]
        );
    }

    #[test]
    fn rows_are_reported_chunk_by_chunk_and_end_at_the_height() {
        let out = tempfile::tempdir().unwrap();
        let recorder = Recorder::default();
        // 1728 points: one band of 1728 columns (13.5 KiB a row),
        // so a 4 MiB chunk is 303 rows; 1000 fps gives the 3 clips 5,286 rows.
        let settings = settings(out.path(), BakeOptions { fps: Some(1000.0), ..every_point() });
        let report = bake_watched(&settings, &recorder).unwrap();
        let rows: Vec<String> = recorder.0.into_inner().unwrap().into_iter().filter(|h| h.contains('/')).collect();
        let height = report.height as usize;
        assert!(height > 303 * 2, "height {height}");
        let expected: Vec<String> = std::iter::once(0)
            .chain((1..=height.div_ceil(303)).map(|chunk| (chunk * 303).min(height)))
            .map(|done| format!("{done}/{height}"))
            .collect();
        assert_eq!(rows, expected);
    }
}
