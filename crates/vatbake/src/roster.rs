//! `vatbake roster`: rebake a whole unit roster in parallel, skipping units whose
//! source, settings and tool version have not changed, and letting a broken unit
//! fail alone.
//!
//! A roster's settings are the bake's settings, named like its flags (`max_frames = 64`
//! is `--max-frames 64`), read into [`BakeOptions`] and checked once, with the same
//! defaults and checks as `vatbake bake`.

use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Instant;

use anyhow::Result;
use rayon::prelude::*;
use serde::Serialize;

use vat_audit::{Finding, Kind};

use crate::audit::{self, AuditReport, AuditSettings, UnitReport};
use crate::bake::{BakeReport, GENERATOR};
use crate::description::{self, check_file_name, Description};
use crate::error::Error;
use crate::settings::BakeOptions;
use crate::settings::BakeSettings;
use crate::slots::Aliases;
use crate::staging;

/// Keys of a unit that are not bake settings.
const UNIT_KEYS: &[&str] = &["name", "source", "impostor"];
/// Bake flags a roster decides itself.
const RESERVED: &[&str] = &["out", "o", "json", "quiet", "q", "verbose", "v", "threads", "no_warn", "dry_run"];
/// Settings whose values are paths, resolved against the roster's folder.
const PATH_KEYS: &[&str] = &["aliases", "animations", "animation_names"];

/// One unit to bake: its name, its source and its bake settings.
#[derive(Clone, Debug)]
pub struct Unit {
    /// The unit's name: a plain file name, used for its output folder and the stem of its files.
    pub name: String,
    /// The source model, resolved against the roster file's folder.
    pub source: PathBuf,
    /// Bake settings from the roster's defaults and the unit's own keys, or why they
    /// cannot be read (an unknown key, a value of the wrong type): that unit fails alone.
    pub options: Result<BakeOptions, Error>,
    /// The `impostor` key (the unit's, else the defaults'): `true` or a table of
    /// [`crate::impostor::ImpostorOptions`] makes the unit's impostor after its bake;
    /// absent or `false`: none. An unreadable table fails the unit alone.
    pub impostor: Option<Result<crate::impostor::ImpostorOptions, Error>>,
}

/// A parsed roster file.
#[derive(Clone, Debug)]
pub struct Roster {
    /// The roster file itself.
    pub file: PathBuf,
    /// The folder the units are baked into, each into `<folder>/<name>/` (the roster's
    /// `output` key, or `-o`).
    pub folder: PathBuf,
    /// Every unit of the roster, each glob expanded to one unit per match.
    pub units: Vec<Unit>,
}

fn roster_error(file: &Path, message: impl std::fmt::Display) -> anyhow::Error {
    Error::usage(format!("{}: {message}", file.display())).into()
}

/// Reads settings tables (defaults first, then the unit's) into bake options.
fn options(file: &Path, dir: &Path, tables: &[&toml::Table], unit: &str) -> Result<Result<BakeOptions, Error>> {
    let mut merged = toml::Table::new();
    for table in tables {
        for (key, value) in table.iter() {
            if UNIT_KEYS.contains(&key.as_str()) {
                continue;
            }
            if RESERVED.contains(&key.as_str()) {
                return Err(roster_error(
                    file,
                    format!("unit \"{unit}\": \"{key}\" is decided by the roster, not per unit"),
                ));
            }
            let resolve = |s: &str| toml::Value::String(tidy(&dir.join(s)).to_string_lossy().into_owned());
            let value = match (value, PATH_KEYS.contains(&key.as_str())) {
                (toml::Value::String(s), true) => resolve(s),
                (toml::Value::Array(items), true) => toml::Value::Array(
                    items.iter().map(|item| item.as_str().map_or_else(|| item.clone(), resolve)).collect(),
                ),
                (other, _) => other.clone(),
            };
            merged.insert(key.clone(), value);
        }
    }
    Ok(toml::Value::Table(merged)
        .try_into::<BakeOptions>()
        .map_err(|e| Error::usage(format!("{}: unit \"{unit}\": {}", file.display(), key_message(e.message().trim())))))
}

/// A unit's `impostor` value: `true` (the defaults), `false` (none) or a table of
/// [`crate::impostor::ImpostorOptions`].
fn impostor_key(
    file: &Path,
    value: Option<&toml::Value>,
    unit: &str,
) -> Option<Result<crate::impostor::ImpostorOptions, Error>> {
    let parsed = match value? {
        toml::Value::Boolean(false) => return None,
        toml::Value::Boolean(true) => Ok(crate::impostor::ImpostorOptions::default()),
        table @ toml::Value::Table(_) => table.clone().try_into::<crate::impostor::ImpostorOptions>().map_err(|e| {
            format!(
                "impostor: {}; its keys are views, elevations, fps, motion and cell",
                key_message(e.message().trim())
            )
        }),
        other => {
            Err(format!("impostor = {other}: give true, false or a table like {{ views = 16, elevations = [45] }}"))
        }
    };
    Some(
        parsed
            .and_then(|o| o.check().map(|()| o).map_err(|e| format!("impostor: {}", e.message)))
            .map_err(|why| Error::usage(format!("{}: unit \"{unit}\": {why}", file.display()))),
    )
}

/// serde's words for a key it does not know (`unknown field `fsp`, expected one of
/// `fps`, …` and some thirty more) as the one nearest key: `unknown key "fsp": did you
/// mean "fps"?`. Any other message is kept as it is.
fn key_message(message: &str) -> String {
    let Some(rest) = message.strip_prefix("unknown field `") else { return message.to_string() };
    let Some((key, expected)) = rest.split_once("`, expected one of ") else { return message.to_string() };
    let keys: Vec<&str> = expected.split('`').skip(1).step_by(2).collect();
    let nearest = crate::pipeline::sockets::nearest_names(key, keys.iter().copied(), 1);
    match nearest.first() {
        Some(near) if crate::pipeline::sockets::edit_distance(&key.to_lowercase(), near) <= key.len().div_ceil(2) => {
            format!("unknown key \"{key}\": did you mean \"{near}\"? (docs/ROSTER.md lists every key)")
        }
        _ => format!("unknown key \"{key}\"; docs/ROSTER.md lists every key a unit takes"),
    }
}

/// `a/b/../c` → `a/c`, without touching the file system, so messages name paths plainly.
fn tidy(path: &Path) -> PathBuf {
    let mut out = PathBuf::new();
    for part in path.components() {
        match part {
            std::path::Component::CurDir => {}
            std::path::Component::ParentDir
                if matches!(out.components().next_back(), Some(std::path::Component::Normal(_))) =>
            {
                out.pop();
            }
            other => out.push(other),
        }
    }
    out
}

fn has_glob(pattern: &str) -> bool {
    pattern.contains(['*', '?', '['])
}

/// Reads a roster file. Paths in it are relative to its folder.
pub fn read(file: &Path, folder_override: Option<&Path>) -> Result<Roster> {
    let text = std::fs::read_to_string(file).map_err(|e| Error::unreadable(file, "the roster", &e))?;
    let root: toml::Table =
        toml::from_str(&text).map_err(|e| roster_error(file, format!("not a valid roster: {e}")))?;
    let dir = file.parent().filter(|d| !d.as_os_str().is_empty()).unwrap_or(Path::new(".")).to_path_buf();
    for key in root.keys() {
        if !["output", "defaults", "unit"].contains(&key.as_str()) {
            return Err(roster_error(
                file,
                format!("unknown key \"{key}\": a roster has output, [defaults] and [[unit]]"),
            ));
        }
    }
    let folder = match (folder_override, root.get("output").and_then(toml::Value::as_str)) {
        (Some(o), _) => o.to_path_buf(),
        (None, Some(o)) => tidy(&dir.join(o)),
        (None, None) => {
            return Err(roster_error(file, "no output folder: set output = \"…\" in the roster or pass -o DIR"))
        }
    };
    let empty = toml::Table::new();
    let defaults = match root.get("defaults") {
        None => &empty,
        Some(toml::Value::Table(t)) => t,
        Some(_) => return Err(roster_error(file, "[defaults] must be a table")),
    };
    let Some(toml::Value::Array(unit_values)) = root.get("unit") else {
        return Err(roster_error(file, "no units: add [[unit]] entries with a name and a source"));
    };
    let mut units = Vec::new();
    for (index, value) in unit_values.iter().enumerate() {
        let toml::Value::Table(table) = value else {
            return Err(roster_error(file, format!("unit {} is not a table", index + 1)));
        };
        let Some(source) = table.get("source").and_then(toml::Value::as_str) else {
            return Err(roster_error(file, format!("unit {} has no source", index + 1)));
        };
        let name = table.get("name").and_then(toml::Value::as_str);
        let sources: Vec<PathBuf> = if has_glob(source) {
            let pattern = tidy(&dir.join(source)).to_string_lossy().into_owned();
            let mut matches: Vec<PathBuf> = glob::glob(&pattern)
                .map_err(|e| roster_error(file, format!("unit {}: bad glob \"{source}\": {e}", index + 1)))?
                .filter_map(Result::ok)
                .collect();
            matches.sort();
            if matches.is_empty() {
                return Err(roster_error(file, format!("unit {}: no file matches \"{source}\"", index + 1)));
            }
            matches
        } else {
            vec![tidy(&dir.join(source))]
        };
        for source in sources {
            let stem = source.file_stem().map(|s| s.to_string_lossy().into_owned()).unwrap_or_default();
            let name = match name {
                Some(n) => n.replace("{stem}", &stem),
                None => stem,
            };
            check_file_name(&name).map_err(|e| roster_error(file, format!("unit name: {e}")))?;
            let options = options(file, &dir, &[defaults, table], &name)?;
            let impostor = impostor_key(file, table.get("impostor").or(defaults.get("impostor")), &name);
            units.push(Unit { name, source, options, impostor });
        }
    }
    let mut seen = BTreeSet::new();
    for unit in &units {
        if !seen.insert(unit.name.as_str()) {
            return Err(roster_error(
                file,
                format!(
                    "two units are named \"{}\"; names must be unique (use name = \"prefix_{{stem}}\" with globs)",
                    unit.name
                ),
            ));
        }
    }
    Ok(Roster { file: file.to_path_buf(), folder, units })
}

impl Unit {
    /// The unit's bake settings, baking into `<folder>/<name>/`, with every check
    /// `vatbake bake` applies.
    pub fn settings(&self, folder: &Path) -> Result<BakeSettings> {
        let mut options = self.options.clone()?;
        options.name = Some(self.name.clone());
        options
            .settings(self.source.clone(), folder.join(&self.name))
            .map_err(|e| Error::usage(format!("unit \"{}\": {}", self.name, e.message)).into())
    }
}

/// The unit's last description, if that bake used these exact bytes, settings and
/// tool version and its files are still there: the size the description records, and
/// the SHA-256 where it records one (a texture or mesh from another bake, left by one
/// killed between its renames, is not up to date), every `--format` file it records
/// with its size and SHA-256, and every level of detail (`--lods`) with its SHA-256.
fn up_to_date(settings: &BakeSettings, source_sha256: &str) -> Option<Description> {
    use crate::shipped::read;
    let dir = &settings.out_dir;
    let text =
        read::read_regular(&dir.join(settings.description_file()), Some(dir), read::DESCRIPTION_MAX_BYTES, "").ok()?;
    let description = read::parse_description(&text).ok()?;
    // Regular files in the folder only (a FIFO or a device is not up to date, nor read),
    // hashed no further than their recorded size.
    let file_ok = |name: &str, bytes: Option<u64>, sha256: &Option<String>| {
        check_file_name(name).is_ok()
            && read::open_regular(&dir.join(name), Some(dir)).is_ok_and(|(_, len)| bytes.is_none_or(|b| len == b))
            && sha256.as_ref().is_none_or(|recorded| {
                let limit = bytes.unwrap_or(read::REST_MESH_MAX_BYTES);
                read::sha256_regular(&dir.join(name), Some(dir), limit).is_ok_and(|found| found == *recorded)
            })
    };
    let fresh = description.generator == GENERATOR
        && description.source.sha256 == source_sha256
        && description.settings == settings.recorded()
        && description.texture.container == settings.texture_format
        && file_ok(&description.texture.file, Some(description.texture.bytes), &description.texture.sha256)
        && file_ok(&description.mesh.file, None, &description.mesh.sha256)
        && target_ok(&description, settings, file_ok)
        && description.exports.iter().all(|e| crate::shipped::exports::problem(&settings.out_dir, e).is_none())
        // The clips of `--animations` files: the same files, with the same bytes.
        && description.animations.len() == settings.animations.len()
        && description.animations.iter().zip(&settings.animations).all(|(recorded, file)| {
            staging::sha256_file(file).is_ok_and(|found| found == recorded.sha256)
        })
        // And the name map they were bound with (read with the settings).
        && description.animation_names.as_ref().map(|r| r.sha256.as_str())
            == settings.animation_names.file.as_ref().map(|_| settings.animation_names.sha256.as_str())
        && description.lods.iter().all(|l| file_ok(&l.file, None, &Some(l.sha256.clone())));
    fresh.then_some(description)
}

/// The last bake was for the same `--target`, and its converted texture is still there.
fn target_ok(
    description: &Description,
    settings: &BakeSettings,
    file_ok: impl Fn(&str, Option<u64>, &Option<String>) -> bool,
) -> bool {
    match &description.target {
        None => !settings.target.has_record(),
        Some(target) => {
            target.name == settings.target.as_str()
                && (target.sha256.is_none() || file_ok(&target.texture, None, &target.sha256))
        }
    }
}

/// What happened to one unit.
#[derive(Clone, Debug, Serialize)]
pub struct UnitResult {
    /// The unit's name.
    pub name: String,
    /// The unit's source model.
    pub source: PathBuf,
    /// "baked", "skipped" (unchanged) or "failed".
    pub status: &'static str,
    /// Points baked; null when the unit failed.
    pub points: Option<u32>,
    /// Rows of all its clips stacked; null when the unit failed.
    pub rows: Option<u32>,
    /// Size of the texture file in bytes; null when the unit failed.
    pub texture_bytes: Option<u64>,
    /// Size of the rest-pose mesh (GLB) in bytes; null when the unit failed.
    pub mesh_bytes: Option<u64>,
    /// GPU memory its texture takes (raw texel bytes of every layer); null when the unit failed.
    pub gpu_bytes: Option<u64>,
    /// Wall time spent on the unit (baking it, or finding it up to date), in milliseconds.
    pub ms: f64,
    /// Why the unit failed; null unless the status is "failed".
    pub error: Option<String>,
    /// The bake's warnings; empty for a skipped or failed unit.
    #[serde(serialize_with = "crate::findings::findings_json")]
    pub warnings: Vec<vat_model::Finding>,
    /// GPU bytes of its impostor's atlases (the `impostor` key), absent without one.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub impostor_gpu_bytes: Option<u64>,
}

/// The roster's outcome, for the summary and `--json`.
#[derive(Clone, Debug, Serialize)]
pub struct RosterReport {
    /// The roster file.
    pub roster: PathBuf,
    /// The folder the units were baked into (`output` in JSON).
    #[serde(rename = "output")]
    pub folder: PathBuf,
    /// What happened to each unit of this run (only the shard's, with a shard), sorted by name.
    pub units: Vec<UnitResult>,
    /// Units baked in this run.
    pub baked: usize,
    /// Units skipped because their last bake was up to date.
    pub skipped: usize,
    /// Units that failed.
    pub failed: usize,
    /// Texture and mesh bytes of every unit in this run (baked or skipped): the roster's weight.
    pub total_texture_bytes: u64,
    /// Rest-pose mesh bytes of every unit in this run (baked or skipped).
    pub total_mesh_bytes: u64,
    /// GPU memory the textures of every unit in this run take together (baked or
    /// skipped; raw texel bytes of every layer): what a game that holds the whole
    /// roster at once holds, where `total_texture_bytes` is what it downloads.
    pub total_gpu_bytes: u64,
    /// The budget `total_gpu_bytes` was held to (`--gpu-budget`); null without one.
    pub gpu_budget: Option<u64>,
    /// Folders in the roster's folder that hold a bake of a unit no longer in the
    /// roster (never deleted); `stale_outputs` in JSON.
    #[serde(rename = "stale_outputs")]
    pub stale_folders: Vec<String>,
    /// Wall time of the whole run, in milliseconds.
    pub ms: f64,
}

impl RosterReport {
    /// The warning when the run's textures together take more GPU memory than its
    /// budget (`--gpu-budget`), naming the largest units; `None` within it or without one.
    pub fn over_gpu_budget(&self) -> Option<String> {
        let budget = self.gpu_budget.filter(|&b| self.total_gpu_bytes > b)?;
        let mut largest: Vec<&UnitResult> = self.units.iter().filter(|u| u.gpu_bytes.is_some()).collect();
        largest.sort_by(|a, b| b.gpu_bytes.cmp(&a.gpu_bytes).then_with(|| a.name.cmp(&b.name)));
        let mib = |b: u64| b as f64 / 1048576.0;
        let named: Vec<String> =
            largest.iter().take(3).map(|u| format!("{} {:.1} MiB", u.name, mib(u.gpu_bytes.unwrap_or(0)))).collect();
        Some(format!(
            "the {} units' textures take {:.1} MiB of GPU memory together, past --gpu-budget {:.1} MiB \
             (largest: {}); fewer points, rows or normals per unit bring it down (docs/PLAYBACK.md, \
             \"GPU memory\")",
            largest.len(),
            mib(self.total_gpu_bytes),
            mib(budget),
            named.join(", ")
        ))
    }
}

/// Options of one roster run.
pub struct RunOptions {
    /// Units baked at once (`--jobs`); `None`: one per core.
    pub jobs: Option<usize>,
    /// Rebake units even when their last bake is up to date (`--force`).
    pub force: bool,
    /// (K, N): bake the K-th of N deterministic shards, 1-based.
    pub shard: Option<(usize, usize)>,
    /// Do not sync any unit's files to the disk (`--no-durable`), whatever its
    /// `no_durable` key says: they are synced by default, as `vatbake bake`'s.
    pub no_durable: bool,
    /// Keep every unit's files of an earlier bake that its new bake does not write
    /// (`--keep-stale`), whatever its `keep_stale` key says.
    pub keep_stale: bool,
    /// GPU memory of the whole run warned past (`--gpu-budget`): see
    /// [`RosterReport::over_gpu_budget`].
    pub gpu_budget: Option<u64>,
}

/// What a roster run tells whoever watches it: each unit as it finishes (from the
/// pool's threads). The default ignores it.
pub trait RosterWatch: Sync {
    /// `result` is the `done`-th of `total` units to finish.
    fn unit_done(&self, _result: &UnitResult, _done: usize, _total: usize) {}
}

/// Nobody watching.
pub struct Unwatched;

impl RosterWatch for Unwatched {}

/// The units of a run: sorted by name, then the shard's share.
fn selected(roster: &Roster, shard: Option<(usize, usize)>) -> Vec<&Unit> {
    let mut units: Vec<&Unit> = roster.units.iter().collect();
    units.sort_by(|a, b| a.name.cmp(&b.name));
    match shard {
        Some((k, n)) => units.into_iter().enumerate().filter(|(i, _)| i % n == k - 1).map(|(_, u)| u).collect(),
        None => units,
    }
}

/// `--check`: audits every unit's bake against its own source and alias table.
/// A unit that was never baked is a finding.
pub fn check(roster: &Roster, shard: Option<(usize, usize)>) -> Result<AuditReport> {
    let started = Instant::now();
    // Units grouped by alias table: (the table, description files, description → source).
    type Group = (Aliases, Vec<PathBuf>, HashMap<PathBuf, PathBuf>);
    let mut groups: BTreeMap<Option<PathBuf>, Group> = BTreeMap::new();
    let mut results = Vec::new();
    for unit in selected(roster, shard) {
        let settings = unit.settings(&roster.folder)?;
        let description = settings.out_dir.join(settings.description_file());
        if !description.is_file() {
            let finding = Finding::new(
                Kind::UnreadableDescription,
                format!("unit \"{}\" has no bake: {} does not exist", unit.name, description.display()),
                "bake the roster (vatbake roster ROSTER.toml)",
            );
            results.push(UnitReport { description, source: Some(unit.source.clone()), findings: vec![finding] });
            continue;
        }
        let group = groups
            .entry(settings.aliases.file.clone())
            .or_insert_with(|| (settings.aliases.clone(), Vec::new(), HashMap::new()));
        group.1.push(description.clone());
        group.2.insert(description, unit.source.clone());
    }
    let mut aliases = Vec::new();
    for (_, (table, paths, known_sources)) in groups {
        aliases.push(table.label());
        let report = audit::audit(&AuditSettings { paths, sources: None, aliases: table, known_sources })?;
        results.extend(report.results);
    }
    results.sort_by(|a, b| a.description.cmp(&b.description));
    Ok(AuditReport::new(aliases.join(", "), results, started))
}

/// Parses `K/N` with 1 ≤ K ≤ N.
pub fn parse_shard(text: &str) -> Result<(usize, usize), String> {
    let parsed = text.split_once('/').and_then(|(k, n)| Some((k.trim().parse().ok()?, n.trim().parse().ok()?)));
    match parsed {
        Some((k, n)) if k >= 1 && k <= n => Ok((k, n)),
        _ => Err(format!("\"{text}\" is not a shard: give K/N with 1 ≤ K ≤ N, e.g. 2/4")),
    }
}

/// Folders of the roster's folder that hold a bake (`<name>/<name>.vat.json`) of no unit.
fn stale_folders(roster: &Roster) -> Vec<String> {
    let names: BTreeSet<&str> = roster.units.iter().map(|u| u.name.as_str()).collect();
    let Ok(entries) = std::fs::read_dir(&roster.folder) else { return Vec::new() };
    let mut stale: Vec<String> = entries
        .filter_map(Result::ok)
        .filter(|e| e.path().is_dir())
        .filter_map(|e| e.file_name().into_string().ok())
        .filter(|name| !name.starts_with('.') && !names.contains(name.as_str()))
        .filter(|name| roster.folder.join(name).join(description::description_file(name)).exists())
        .collect();
    stale.sort();
    stale
}

fn bake_unit(unit: &Unit, folder: &Path, options: &RunOptions) -> UnitResult {
    let started = Instant::now();
    let mut result = UnitResult {
        name: unit.name.clone(),
        source: unit.source.clone(),
        status: "failed",
        points: None,
        rows: None,
        texture_bytes: None,
        gpu_bytes: None,
        mesh_bytes: None,
        ms: 0.0,
        error: None,
        warnings: Vec::new(),
        impostor_gpu_bytes: None,
    };
    /// A unit baked now, or skipped with its last description and its folder.
    enum Done {
        Baked(Box<BakeReport>),
        Skipped(Box<Description>, PathBuf),
    }
    let outcome = (|| -> Result<Done> {
        let mut settings = unit.settings(folder)?;
        settings.durable &= !options.no_durable;
        settings.keep_stale |= options.keep_stale;
        // What a killed run left in the unit's folder goes, whether it is rebaked or not.
        staging::remove_abandoned(&settings.out_dir);
        if !options.force {
            // A FIFO or a device as a source is refused here too (the bake says so).
            if let Ok(bytes) = vat_gltf::read_file(&settings.input) {
                if let Some(description) = up_to_date(&settings, &description::sha256_hex(&bytes)) {
                    return Ok(Done::Skipped(Box::new(description), settings.out_dir));
                }
            }
        }
        Ok(Done::Baked(Box::new(crate::bake::bake(&settings)?)))
    })();
    match outcome {
        Ok(Done::Baked(report)) => {
            result.status = "baked";
            result.points = Some(report.points);
            result.rows = Some(report.rows);
            result.texture_bytes = Some(report.texture_bytes);
            result.gpu_bytes = Some(report.gpu_bytes);
            result.mesh_bytes = Some(report.mesh_bytes);
            result.warnings = report.warnings.clone();
        }
        Ok(Done::Skipped(d, out_dir)) => {
            result.status = "skipped";
            result.points = Some(d.points);
            result.rows = Some(d.rows);
            result.texture_bytes = Some(d.texture.bytes);
            result.gpu_bytes = Some(crate::features::layers::gpu_bytes(&d));
            result.mesh_bytes = std::fs::metadata(out_dir.join(&d.mesh.file)).ok().map(|m| m.len());
        }
        Err(e) => result.error = Some(Error::from(e).message),
    }
    if let (Some(options), None) = (&unit.impostor, &result.error) {
        let description = folder.join(&unit.name).join(description::description_file(&unit.name));
        match options.clone().and_then(|options| unit_impostor(&description, options, result.status == "baked")) {
            Ok(bytes) => result.impostor_gpu_bytes = Some(bytes),
            Err(e) => {
                result.status = "failed";
                result.error = Some(e.message);
            }
        }
    }
    result.ms = crate::pipeline::ms(started);
    result
}

/// Makes the impostor of the bake at `description` with `options`, unless the bake was
/// not redone (`rebaked` false) and the sidecar there was made from this description
/// with these options. Returns the GPU bytes of its atlases.
fn unit_impostor(description: &Path, options: crate::impostor::ImpostorOptions, rebaked: bool) -> Result<u64, Error> {
    let stem = description.file_name().and_then(|n| n.to_str()).and_then(|n| n.strip_suffix(".vat.json"));
    let sidecar = description.with_file_name(description::impostor::impostor_file(stem.unwrap_or_default()));
    if !rebaked {
        let current = std::fs::read(description).ok().map(|bytes| description::sha256_hex(&bytes));
        let made = std::fs::read(&sidecar)
            .ok()
            .and_then(|bytes| serde_json::from_slice::<description::impostor::Impostor>(&bytes).ok());
        if let (Some(current), Some(made)) = (current, made) {
            let same = made.description.sha256 == current
                && made.views.azimuths == options.views
                && made.views.elevations == options.elevations
                && made.fps
                    == match options.fps {
                        crate::impostor::FrameRate::Auto => None,
                        crate::impostor::FrameRate::Fixed(fps) => Some(fps),
                    }
                && made.motion == (options.fps == crate::impostor::FrameRate::Auto).then_some(options.motion)
                && made.cell == options.cell;
            if same {
                return Ok(2 * u64::from(made.width) * u64::from(made.height) * 4);
            }
        }
    }
    let settings = crate::impostor::ImpostorSettings { description: description.to_path_buf(), out: None, options };
    Ok(crate::impostor::impostor(&settings)?.gpu_bytes)
}

/// Bakes every unit (of the shard), in parallel.
pub fn run(roster: &Roster, options: &RunOptions, watch: &dyn RosterWatch) -> Result<RosterReport> {
    let started = Instant::now();
    let units = selected(roster, options.shard);
    let done = AtomicUsize::new(0);
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(options.jobs.unwrap_or(0))
        .build()
        .map_err(|e| Error::usage(format!("cannot start {} worker threads: {e}", options.jobs.unwrap_or(0))))?;
    let results: Vec<UnitResult> = pool.install(|| {
        units
            .par_iter()
            .map(|unit| {
                let result = bake_unit(unit, &roster.folder, options);
                watch.unit_done(&result, done.fetch_add(1, Ordering::Relaxed) + 1, units.len());
                result
            })
            .collect()
    });
    let count = |status| results.iter().filter(|r| r.status == status).count();
    Ok(RosterReport {
        roster: roster.file.clone(),
        folder: roster.folder.clone(),
        baked: count("baked"),
        skipped: count("skipped"),
        failed: count("failed"),
        total_texture_bytes: results.iter().filter_map(|r| r.texture_bytes).sum(),
        total_mesh_bytes: results.iter().filter_map(|r| r.mesh_bytes).sum(),
        total_gpu_bytes: results.iter().filter_map(|r| r.gpu_bytes).sum(),
        gpu_budget: options.gpu_budget,
        stale_folders: stale_folders(roster),
        units: results,
        ms: crate::pipeline::ms(started),
    })
}

/// One unit of `roster --verify`.
#[derive(Clone, Debug, Serialize)]
pub struct UnitVerified {
    /// The unit's name.
    pub name: String,
    /// Its description file.
    pub description: PathBuf,
    /// "passed", "failed" (findings) or "error" (could not be verified: no bake, no source).
    pub status: &'static str,
    /// Wall time spent on the unit, in milliseconds.
    pub ms: f64,
    /// The verification; null when it could not run.
    pub report: Option<crate::verify::VerifyReport>,
    /// Why it could not run; null otherwise.
    pub error: Option<String>,
}

/// The outcome of `roster --verify`.
#[derive(Clone, Debug, Serialize)]
pub struct RosterVerifyReport {
    /// The roster file.
    pub roster: PathBuf,
    /// The folder the units were baked into (`output` in JSON).
    #[serde(rename = "output")]
    pub folder: PathBuf,
    /// Every unit (of the shard), sorted by name.
    pub units: Vec<UnitVerified>,
    /// Units that passed.
    pub passed: usize,
    /// Units with findings.
    pub failed: usize,
    /// Units that could not be verified.
    pub errors: usize,
    /// Wall time of the whole run, in milliseconds.
    pub ms: f64,
}

/// `--verify`: every unit's bake decoded and compared with its own source
/// ([`crate::verify`]), `jobs` units at a time (`None`: one per core). A unit that
/// fails, or cannot be verified, fails alone.
pub fn verify(roster: &Roster, jobs: Option<usize>, shard: Option<(usize, usize)>) -> Result<RosterVerifyReport> {
    let started = Instant::now();
    let units = selected(roster, shard);
    let pool = worker_pool(jobs)?;
    let units: Vec<UnitVerified> = pool.install(|| {
        units
            .par_iter()
            .map(|unit| {
                let at = Instant::now();
                let outcome = last_bake(roster, unit).and_then(|(_, description)| {
                    let settings = crate::verify::VerifySettings { description, source: Some(unit.source.clone()) };
                    crate::verify::verify(&settings)
                });
                let (status, report, error) = match outcome {
                    Ok(r) if r.passed => ("passed", Some(r), None),
                    Ok(r) => ("failed", Some(r), None),
                    Err(e) => ("error", None, Some(e.message)),
                };
                let description = report.as_ref().map_or_else(
                    || roster.folder.join(&unit.name).join(crate::description::description_file(&unit.name)),
                    |r| r.description.clone(),
                );
                UnitVerified {
                    name: unit.name.clone(),
                    description,
                    status,
                    ms: crate::pipeline::ms(at),
                    report,
                    error,
                }
            })
            .collect()
    });
    let count = |status| units.iter().filter(|u| u.status == status).count();
    Ok(RosterVerifyReport {
        roster: roster.file.clone(),
        folder: roster.folder.clone(),
        passed: count("passed"),
        failed: count("failed"),
        errors: count("error"),
        units,
        ms: crate::pipeline::ms(started),
    })
}

/// One unit of `roster --preview`.
#[derive(Clone, Debug, Serialize)]
pub struct UnitPreviewed {
    /// The unit's name.
    pub name: String,
    /// The sheet written; null when the unit could not be drawn.
    pub sheet: Option<PathBuf>,
    /// Wall time spent on the unit, in milliseconds.
    pub ms: f64,
    /// Why it could not be drawn; null otherwise.
    pub error: Option<String>,
}

/// The outcome of `roster --preview`.
#[derive(Clone, Debug, Serialize)]
pub struct RosterPreviewReport {
    /// The roster file.
    pub roster: PathBuf,
    /// The folder the units were baked into (`output` in JSON).
    #[serde(rename = "output")]
    pub folder: PathBuf,
    /// Every unit (of the shard), sorted by name.
    pub units: Vec<UnitPreviewed>,
    /// Units drawn.
    pub drawn: usize,
    /// Units that could not be drawn (no bake, a broken texture).
    pub errors: usize,
    /// Wall time of the whole run, in milliseconds.
    pub ms: f64,
}

/// `--preview`: one contact sheet per unit, `<name>.sheet.png` beside its bake, drawn
/// with `template`'s frames, size, view and clips ([`crate::preview`]), `jobs` units
/// at a time. A unit that cannot be drawn fails alone.
pub fn preview(
    roster: &Roster,
    jobs: Option<usize>,
    shard: Option<(usize, usize)>,
    template: &crate::preview::PreviewSettings,
) -> Result<RosterPreviewReport> {
    let started = Instant::now();
    let units = selected(roster, shard);
    let pool = worker_pool(jobs)?;
    let units: Vec<UnitPreviewed> = pool.install(|| {
        units
            .par_iter()
            .map(|unit| {
                let at = Instant::now();
                let outcome = last_bake(roster, unit).and_then(|(bake, description)| {
                    let mut settings = template.clone();
                    settings.description = description;
                    settings.sheet = bake.out_dir.join(format!("{}.sheet.png", bake.name));
                    crate::preview::preview(&settings).map(|r| r.files[0].clone())
                });
                let (sheet, error) = match outcome {
                    Ok(sheet) => (Some(sheet), None),
                    Err(e) => (None, Some(e.message)),
                };
                UnitPreviewed { name: unit.name.clone(), sheet, ms: crate::pipeline::ms(at), error }
            })
            .collect()
    });
    Ok(RosterPreviewReport {
        roster: roster.file.clone(),
        folder: roster.folder.clone(),
        drawn: units.iter().filter(|u| u.sheet.is_some()).count(),
        errors: units.iter().filter(|u| u.error.is_some()).count(),
        units,
        ms: crate::pipeline::ms(started),
    })
}

/// The thread pool of `--verify` and `--preview`: `jobs` threads, `None` one per core.
fn worker_pool(jobs: Option<usize>) -> Result<rayon::ThreadPool> {
    rayon::ThreadPoolBuilder::new()
        .num_threads(jobs.unwrap_or(0))
        .build()
        .map_err(|e| Error::usage(format!("cannot start {} worker threads: {e}", jobs.unwrap_or(0))).into())
}

/// A unit's settings and the description of its last bake; an input error when the
/// unit has not been baked.
fn last_bake(roster: &Roster, unit: &Unit) -> Result<(BakeSettings, PathBuf), Error> {
    let settings = unit.settings(&roster.folder).map_err(Error::from)?;
    let description = settings.out_dir.join(settings.description_file());
    if !description.is_file() {
        return Err(Error::input(format!(
            "unit \"{}\" has no bake: {} does not exist; bake the roster first",
            unit.name,
            description.display()
        )));
    }
    Ok((settings, description))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The keys a unit's settings take: [`BakeOptions`]' fields, as serde lists them
    /// when it meets a key it does not know.
    fn option_keys() -> BTreeSet<String> {
        let error = toml::from_str::<BakeOptions>("no_such_key = 1").unwrap_err();
        let message = error.message();
        let expected = message.split("expected one of").nth(1).unwrap_or_else(|| panic!("{message}"));
        expected.split('`').skip(1).step_by(2).map(str::to_string).collect()
    }

    #[test]
    fn docs_roster_md_lists_every_key_and_no_other() {
        let doc = include_str!("../../../docs/ROSTER.md");
        let list = doc.split("Every key:").nth(1).expect("docs/ROSTER.md lists the keys after \"Every key:\"");
        let list = &list[..list.find(".\n").expect("the list ends with a full stop")];
        let documented: BTreeSet<String> = list.split('`').skip(1).step_by(2).map(str::to_string).collect();
        let keys = option_keys();
        assert!(keys.len() > 20 && keys.contains("max_frames"), "{keys:?}");
        assert_eq!(documented, keys, "docs/ROSTER.md's keys and BakeOptions' fields disagree");
    }

    #[test]
    fn a_key_decided_by_the_roster_is_no_option() {
        let keys = option_keys();
        for key in RESERVED {
            assert!(!keys.contains(*key), "\"{key}\" is reserved by the roster and a bake option too");
        }
        for key in PATH_KEYS {
            assert!(keys.contains(*key), "the path key \"{key}\" is no bake option");
        }
    }
}
