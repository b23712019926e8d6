//! `vatbake audit`: reads shipped description files, their source models (the glTF
//! JSON only: clip names and key-time maxima, never the buffers) and their texture
//! headers, runs vat-audit's checks on them, and prints the findings.
//!
//! Cheap by construction: per unit one small JSON file, one SHA-256 and one JSON parse
//! of the source's clips, and the texture's header and key/value data; units run in parallel and a
//! source shared by several descriptions is read once.

use std::collections::{BTreeSet, HashMap};
use std::io::Read;
use std::path::{Path, PathBuf};
use std::time::Instant;

use anyhow::Result;
use rayon::prelude::*;
use serde::{Deserialize, Serialize};
use vat_audit::{Baked, BakedClip, BakedTexture, Finding, Kind, SourceClip, SourceClips, TextureFacts};

use crate::description::{self, Description};
use crate::error::Error;
use crate::output::check_file_name;
use crate::slots::Aliases;

/// What an audit runs on.
#[derive(Clone, Debug)]
pub struct AuditSettings {
    /// Description files, or folders searched recursively for `*.vat.json`.
    pub paths: Vec<PathBuf>,
    /// Folder searched recursively for sources by file name; `None`: beside each description, then one up.
    pub sources: Option<PathBuf>,
    /// The alias table the slots are checked against.
    pub aliases: Aliases,
    /// Sources known for particular description files (a roster knows each unit's);
    /// these win over the search by file name.
    pub known_sources: HashMap<PathBuf, PathBuf>,
}

/// A PNG's signature and IHDR chunk: its first 33 bytes. A KTX2's header and key/value
/// data are read by `vat_ktx2::read_header_from`, whatever their length.
const PNG_PREFIX: u64 = 33;

/// One description's findings.
#[derive(Clone, Debug, Serialize)]
pub struct UnitReport {
    /// The description file, as found under the audited paths.
    pub description: PathBuf,
    /// The source model the checks used, if one was found.
    pub source: Option<PathBuf>,
    /// What the checks found wrong with this unit; empty when it is clean.
    pub findings: Vec<Finding>,
}

/// The whole audit, as `--format json` prints it (docs/AUDIT.md).
#[derive(Clone, Debug, Serialize)]
pub struct AuditReport {
    /// "built-in", or the path of the --aliases table.
    pub aliases: String,
    /// Description files audited.
    pub units: usize,
    /// Units with at least one finding.
    pub units_with_findings: usize,
    /// Findings over all units.
    pub findings: usize,
    /// Wall time of the audit inside the process, in milliseconds.
    pub elapsed_ms: f64,
    /// Every unit, in path order; a clean unit has no findings.
    pub results: Vec<UnitReport>,
}

/// A description, read and parsed (or the finding that says why not).
struct Entry {
    path: PathBuf,
    description: Result<Description, Finding>,
}

/// Runs every check on every description under `settings.paths`.
pub fn audit(settings: &AuditSettings) -> Result<AuditReport> {
    let started = Instant::now();
    let files = find_descriptions(&settings.paths)?;
    let by_name = settings.sources.as_deref().map(index_sources).transpose()?;

    let read: Vec<Entry> =
        files.into_par_iter().map(|path| Entry { description: read_description(&path), path }).collect();

    // Each unit's candidate sources, then every distinct candidate read once.
    let candidates: Vec<Result<Vec<PathBuf>, Finding>> = read
        .iter()
        .map(|r| match (&r.description, settings.known_sources.get(&r.path)) {
            (Err(_), _) => Ok(Vec::new()),
            (Ok(_), Some(known)) => Ok(vec![known.clone()]),
            (Ok(d), None) => source_candidates(&r.path, &d.source.file, settings.sources.as_deref(), by_name.as_ref()),
        })
        .collect();
    let distinct: BTreeSet<&PathBuf> = candidates.iter().flatten().flatten().collect();
    let sources: HashMap<&PathBuf, Result<SourceDocument, String>> =
        distinct.into_par_iter().map(|path| (path, read_source(path))).collect();

    let results: Vec<UnitReport> = read
        .par_iter()
        .zip(candidates.par_iter())
        .map(|(r, candidates)| audit_unit(r, candidates, &sources, &settings.aliases.table))
        .collect();

    Ok(AuditReport::new(settings.aliases.label(), results, started))
}

impl AuditReport {
    /// The report of these results, with their totals.
    pub fn new(aliases: String, results: Vec<UnitReport>, started: Instant) -> Self {
        AuditReport {
            aliases,
            units: results.len(),
            units_with_findings: results.iter().filter(|u| !u.findings.is_empty()).count(),
            findings: results.iter().map(|u| u.findings.len()).sum(),
            elapsed_ms: crate::error::ms(started),
            results,
        }
    }
}

fn audit_unit(
    read: &Entry,
    candidates: &Result<Vec<PathBuf>, Finding>,
    sources: &HashMap<&PathBuf, Result<SourceDocument, String>>,
    table: &vat_audit::AliasTable,
) -> UnitReport {
    let description = match &read.description {
        Ok(d) => d,
        Err(finding) => {
            return UnitReport { description: read.path.clone(), source: None, findings: vec![finding.clone()] };
        }
    };
    let baked = baked(description);
    let folder = read.path.parent().unwrap_or(Path::new("."));
    let mut findings = Vec::new();

    // Pick the source: the candidate whose bytes are the baked ones, else the only or first one.
    let found: Vec<(&PathBuf, &Result<SourceDocument, String>)> = match candidates {
        Ok(c) => c.iter().map(|p| (p, &sources[p])).collect(),
        Err(_) => Vec::new(),
    };
    let exact = found.iter().find(|(_, s)| s.as_ref().is_ok_and(|s| s.sha256 == baked.source_sha256));
    let chosen = exact.or(found.first()).copied();
    match (candidates, chosen) {
        (Err(finding), _) => findings.push(finding.clone()),
        (Ok(_), None) => {}
        (Ok(_), Some((path, Err(why)))) => findings.push(Finding::new(
            Kind::SourceUnreadable,
            format!("the source {} cannot be read: {why}", path.display()),
            "fix or re-export the source model",
        )),
        (Ok(_), Some((_, Ok(source)))) => {
            if found.len() > 1 && exact.is_none() {
                findings.push(Finding::new(
                    Kind::SourceNotFound,
                    format!(
                        "{} files are named {}, none with the baked bytes; checked against {}",
                        found.len(),
                        description.source.file,
                        found[0].0.display()
                    ),
                    "give each unit's source a unique file name, or point --sources at the right folder",
                ));
            }
            let merge = merge_mode(&description.settings.merge_clips);
            findings.extend(vat_audit::check_source(&baked, &source.clips(merge), table));
        }
    }
    if chosen.is_none_or(|(_, s)| s.is_err()) {
        findings.extend(vat_audit::check_without_source(&baked));
    }
    findings.extend(vat_audit::check_description(&baked));
    findings.extend(vat_audit::check_texture(&baked, &texture_facts(folder, &baked.texture.file)));
    if check_file_name(&description.mesh.file).is_err() || !folder.join(&description.mesh.file).is_file() {
        findings.push(Finding::new(
            Kind::MeshMissing,
            format!("the rest-pose mesh {} is not beside the description", description.mesh.file),
            "ship the mesh with its description, or re-bake the unit",
        ));
    }
    UnitReport { description: read.path.clone(), source: chosen.map(|(p, _)| p.clone()), findings }
}

/// The description files under `paths`: files as given, folders searched recursively
/// for `*.vat.json` (hidden entries skipped, symbolic links to folders not followed).
fn find_descriptions(paths: &[PathBuf]) -> Result<Vec<PathBuf>, Error> {
    let mut found = BTreeSet::new();
    for path in paths {
        let meta = std::fs::metadata(path).map_err(|e| {
            Error::usage(format!(
                "{}: cannot audit it: {e}; give description files (*.vat.json) or folders",
                path.display()
            ))
        })?;
        if meta.is_dir() {
            walk(path, &mut |file| {
                if file.file_name().is_some_and(|n| n.to_string_lossy().ends_with(".vat.json")) {
                    found.insert(file.to_path_buf());
                }
            })
            .map_err(|e| Error::usage(format!("{}: cannot search the folder: {e}", path.display())))?;
        } else {
            found.insert(path.clone());
        }
    }
    if found.is_empty() {
        let list: Vec<String> = paths.iter().map(|p| p.display().to_string()).collect();
        return Err(Error::usage(format!(
            "no description files (*.vat.json) under {}; give the folder the bakes were written to",
            list.join(", ")
        )));
    }
    Ok(found.into_iter().collect())
}

fn walk(dir: &Path, visit: &mut dyn FnMut(&Path)) -> std::io::Result<()> {
    for entry in std::fs::read_dir(dir)? {
        let entry = entry?;
        if entry.file_name().to_string_lossy().starts_with('.') {
            continue;
        }
        let kind = entry.file_type()?;
        if kind.is_dir() {
            walk(&entry.path(), visit)?;
        } else if kind.is_file() || (kind.is_symlink() && entry.path().is_file()) {
            visit(&entry.path());
        }
    }
    Ok(())
}

/// Every file under `dir` by file name, for `--sources`.
fn index_sources(dir: &Path) -> Result<HashMap<String, Vec<PathBuf>>, Error> {
    let mut index: HashMap<String, Vec<PathBuf>> = HashMap::new();
    walk(dir, &mut |file| {
        if let Some(name) = file.file_name() {
            index.entry(name.to_string_lossy().into_owned()).or_default().push(file.to_path_buf());
        }
    })
    .map_err(|e| Error::usage(format!("--sources {}: cannot search the folder: {e}", dir.display())))?;
    for paths in index.values_mut() {
        paths.sort();
    }
    Ok(index)
}

fn read_description(path: &Path) -> Result<Description, Finding> {
    let unreadable = |why: String| {
        Finding::new(
            Kind::UnreadableDescription,
            format!("cannot be read as a vatbake description: {why}"),
            "re-bake the unit with this vatbake, or audit it with the vatbake that wrote it",
        )
    };
    let bytes = std::fs::read(path).map_err(|e| unreadable(e.to_string()))?;
    let value: serde_json::Value = serde_json::from_slice(&bytes).map_err(|e| unreadable(e.to_string()))?;
    let format = value.get("format").and_then(|f| f.as_str());
    if format != Some(description::FORMAT) {
        return Err(unreadable(format!("its format is {format:?}, not \"{}\"", description::FORMAT)));
    }
    let version = value.get("format_version").and_then(|v| v.as_u64());
    if version != Some(description::FORMAT_VERSION as u64) {
        return Err(unreadable(format!(
            "format_version {version:?}; this vatbake reads version {}",
            description::FORMAT_VERSION
        )));
    }
    serde_json::from_value(value).map_err(|e| unreadable(e.to_string()))
}

/// Where the source named `file` may be: under `--sources` by file name, else beside
/// the description and one folder up. None existing is a finding.
fn source_candidates(
    description: &Path,
    file: &str,
    sources: Option<&Path>,
    by_name: Option<&HashMap<String, Vec<PathBuf>>>,
) -> Result<Vec<PathBuf>, Finding> {
    if check_file_name(file).is_err() {
        return Err(Finding::new(
            Kind::SourceNotFound,
            format!("the description names its source {file:?}, which is not a plain file name"),
            "re-bake the unit",
        ));
    }
    let found = match (sources, by_name) {
        (Some(_), Some(index)) => index.get(file).cloned().unwrap_or_default(),
        _ => {
            let folder = description.parent().unwrap_or(Path::new("."));
            [folder.join(file), folder.join("..").join(file)].into_iter().filter(|p| p.is_file()).collect()
        }
    };
    if found.is_empty() {
        let (where_, advice) = match sources {
            Some(dir) => {
                (format!("under {}", dir.display()), "point --sources at the folder that holds the source models")
            }
            None => (
                "beside the description or one folder up".to_string(),
                "pass --sources DIR with the folder that holds the source models",
            ),
        };
        return Err(Finding::new(Kind::SourceNotFound, format!("the source {file} is not {where_}"), advice));
    }
    Ok(found)
}

/// The part of a glTF document the audit reads: clip names and key-time maxima.
/// Deserializing only this, serde skips everything else unparsed, which is ten times
/// faster than building the whole document (docs/AUDIT.md, "Speed").
#[derive(Deserialize)]
struct ClipsOfDocument {
    asset: AssetVersion,
    #[serde(default)]
    animations: Vec<AnimationTimes>,
    #[serde(default)]
    accessors: Vec<AccessorMax>,
}

#[derive(Deserialize)]
struct AssetVersion {
    version: String,
}

#[derive(Deserialize)]
struct AnimationTimes {
    name: Option<String>,
    #[serde(default)]
    channels: Vec<ChannelSampler>,
    #[serde(default)]
    samplers: Vec<SamplerInput>,
}

#[derive(Deserialize)]
struct ChannelSampler {
    sampler: usize,
    target: ChannelPath,
}

#[derive(Deserialize)]
struct ChannelPath {
    node: Option<usize>,
    path: String,
}

#[derive(Deserialize)]
struct SamplerInput {
    input: usize,
}

#[derive(Deserialize)]
struct AccessorMax {
    min: Option<Vec<f64>>,
    max: Option<Vec<f64>>,
}

/// A source's hash and animations, from its JSON alone.
struct SourceDocument {
    sha256: String,
    animations: Vec<SourceAnimation>,
}

/// One animation: its name, duration, key-time range and targets.
struct SourceAnimation {
    name: Option<String>,
    /// The largest `max` of its channels' key-time accessors (glTF requires `min`
    /// and `max` on animation inputs), or `None` when one has none.
    duration: Option<f64>,
    /// The smallest `min` and largest `max` of those accessors, for the merging of takes.
    range: Option<(f64, f64)>,
    targets: Vec<(usize, vat_model::Property)>,
}

/// The description's `merge_clips` setting as a mode; an unknown value merges nothing.
fn merge_mode(recorded: &str) -> vat_gltf::MergeClips {
    match recorded {
        "auto" => vat_gltf::MergeClips::Auto,
        "always" => vat_gltf::MergeClips::Always,
        _ => vat_gltf::MergeClips::Never,
    }
}

impl SourceDocument {
    /// The clips a bake with this merge mode makes of the source's animations: the
    /// same grouping as the bake's (`vat_gltf::takes`), from the JSON alone.
    fn clips(&self, merge: vat_gltf::MergeClips) -> SourceClips {
        let summaries: Vec<vat_gltf::takes::Animation> = self
            .animations
            .iter()
            .map(|a| vat_gltf::takes::Animation { name: a.name.as_deref(), range: a.range, targets: a.targets.clone() })
            .collect();
        let clips = vat_gltf::takes::group(&summaries, merge)
            .into_iter()
            .map(|take| {
                let first = &self.animations[take.members[0]];
                let mut durations = take.members.iter().map(|&i| self.animations[i].duration);
                SourceClip {
                    name: take.name.or_else(|| first.name.clone()),
                    source_index: take.members[0],
                    duration: durations.try_fold(0.0f64, |d, m| m.map(|m| d.max(m))),
                }
            })
            .collect();
        SourceClips { sha256: self.sha256.clone(), clips }
    }
}

/// A source's hash and animations, from its JSON alone: each animation's duration is
/// the largest `max` of its channels' key-time accessors.
fn read_source(path: &Path) -> Result<SourceDocument, String> {
    let bytes = std::fs::read(path).map_err(|e| e.to_string())?;
    let sha256 = crate::description::sha256_hex(&bytes);
    let json = vat_gltf::document_json(path, &bytes).map_err(|e| format!("{}; {}", e.message, e.hint))?;
    let document: ClipsOfDocument =
        serde_json::from_slice(json).map_err(|e| format!("not a glTF 2.0 document: {e}"))?;
    if !document.asset.version.starts_with("2.") {
        return Err(format!("glTF version {}; only 2.x is read", document.asset.version));
    }
    let animations = document
        .animations
        .iter()
        .map(|animation| {
            use vat_model::Property;
            let mut duration = Some(0.0f64);
            let mut range: Option<Option<(f64, f64)>> = None;
            let mut targets = Vec::new();
            for channel in &animation.channels {
                let property = match channel.target.path.as_str() {
                    "translation" => Property::Translation,
                    "rotation" => Property::Rotation,
                    "scale" => Property::Scale,
                    "weights" => Property::Weights,
                    _ => continue, // not node motion (e.g. KHR_animation_pointer): the bake skips it too
                };
                let input = animation.samplers.get(channel.sampler).and_then(|s| document.accessors.get(s.input));
                let first = |v: &Option<Vec<f64>>| v.as_ref().and_then(|m| m.first().copied());
                let (min, max) = (input.and_then(|a| first(&a.min)), input.and_then(|a| first(&a.max)));
                duration = duration.zip(max).map(|(d, m)| d.max(m));
                let known = range.unwrap_or(Some((f64::INFINITY, f64::NEG_INFINITY)));
                range = Some(known.zip(min.zip(max)).map(|((a, b), (lo, hi))| (a.min(lo), b.max(hi))));
                targets.extend(channel.target.node.map(|node| (node, property)));
            }
            SourceAnimation { name: animation.name.clone(), duration, range: range.flatten(), targets }
        })
        .collect();
    Ok(SourceDocument { sha256, animations })
}

/// The texture's header facts, reading only its first bytes.
fn texture_facts(folder: &Path, file: &str) -> TextureFacts {
    if let Err(e) = check_file_name(file) {
        return TextureFacts::Unreadable(e.to_string());
    }
    let path = folder.join(file);
    let mut handle = match std::fs::File::open(&path) {
        Ok(h) => h,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return TextureFacts::Missing,
        Err(e) => return TextureFacts::Unreadable(e.to_string()),
    };
    let bytes = match handle.metadata() {
        Ok(m) => m.len(),
        Err(e) => return TextureFacts::Unreadable(e.to_string()),
    };
    let mut prefix = Vec::new();
    if let Err(e) = (&mut handle).take(PNG_PREFIX).read_to_end(&mut prefix) {
        return TextureFacts::Unreadable(e.to_string());
    }
    if prefix.starts_with(b"\x89PNG\r\n\x1a\n") {
        if prefix.len() < 33 || &prefix[12..16] != b"IHDR" {
            return TextureFacts::Unreadable("a PNG without its IHDR header".into());
        }
        let be = |at: usize| u32::from_be_bytes([prefix[at], prefix[at + 1], prefix[at + 2], prefix[at + 3]]);
        return TextureFacts::Png {
            width: be(16),
            height: be(20),
            bit_depth: prefix[24],
            colour_type: prefix[25],
            bytes,
        };
    }
    // Exactly the KTX2 header and its key/value data, however long: never the image.
    match vat_ktx2::read_header_from(&mut handle) {
        Ok(h) => TextureFacts::Ktx2 {
            vk_format: h.vk_format,
            width: h.width,
            height: h.height,
            supercompression_scheme: h.supercompression_scheme,
            bytes,
        },
        Err(e) => TextureFacts::Unreadable(e.to_string()),
    }
}

/// The description's facts the checks need.
fn baked(d: &Description) -> Baked {
    Baked {
        source_sha256: d.source.sha256.clone(),
        clips_asked: d.settings.clips.clone(),
        points: d.points,
        rows: d.rows,
        texture: BakedTexture {
            file: d.texture.file.clone(),
            container: d.texture.container.clone(),
            vk_format: d.texture.vk_format,
            supercompression: d.texture.supercompression.clone(),
            width: d.texture.width,
            height: d.texture.height,
            bands: d.texture.bands,
            bytes: d.texture.bytes,
        },
        clips: d
            .clips
            .iter()
            .map(|c| BakedClip {
                name: c.name.clone(),
                source_index: c.source_index,
                slot: c.slot.clone(),
                row: c.row,
                rows: c.rows,
                duration: c.duration as f64,
                rate: c.rate as f64,
            })
            .collect(),
    }
}
