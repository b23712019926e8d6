//! `vatbake audit`: reads shipped description files, their source models (the glTF
//! JSON only, `vat_gltf::Summary`: clip names and key-time maxima, never the buffers)
//! and their texture headers (`vat_ktx2::read_texture_header`), and runs vat-audit's
//! checks on them.
//!
//! Cheap by construction: per unit one small JSON file, one SHA-256 and one JSON parse
//! of the source's clips, and the texture's header and key/value data; units run in parallel and a
//! source shared by several descriptions is read once.

use std::collections::{BTreeSet, HashMap};
use std::path::{Path, PathBuf};
use std::time::Instant;

use anyhow::Result;
use rayon::prelude::*;
use serde::Serialize;
use vat_audit::{Finding, Kind, SourceClip, SourceClips, TextureFacts};

use crate::description::{self, check_file_name, Description};
use crate::error::Error;
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
            (Ok(d), None) => source_candidates(&r.path, &d.source, settings.sources.as_deref(), by_name.as_ref()),
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
            elapsed_ms: crate::pipeline::ms(started),
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
    let folder = read.path.parent().unwrap_or(Path::new("."));
    let mut findings = Vec::new();

    // Pick the source: the candidate whose bytes are the baked ones, else the only or first one.
    let found: Vec<(&PathBuf, &Result<SourceDocument, String>)> = match candidates {
        Ok(c) => c.iter().map(|p| (p, &sources[p])).collect(),
        Err(_) => Vec::new(),
    };
    let exact = found.iter().find(|(_, s)| s.as_ref().is_ok_and(|s| s.sha256 == description.source.sha256));
    let chosen = exact.or(found.first()).copied();
    match (candidates, chosen) {
        (Err(finding), _) => findings.push(finding.clone()),
        (Ok(_), None) => {}
        (Ok(_), Some((path, Err(why)))) => findings.push(Finding::new(
            Kind::SourceUnreadable,
            format!("the source {} cannot be read: {why}", path.display()),
            "fix or re-export the source model",
        )),
        (Ok(_), Some((path, Ok(source)))) => {
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
            let merge = description.settings.merge_clips;
            let mut clips = source.takes(merge);
            let whole = add_animation_files(description, folder, path, &mut clips, &mut findings);
            vat_gltf::unique_names(clips.clips.iter_mut().map(|c| &mut c.name));
            if whole {
                findings.extend(vat_audit::check_source(description, &clips, table));
            } else {
                findings.extend(vat_audit::check_without_source(description));
            }
        }
    }
    if chosen.is_none_or(|(_, s)| s.is_err()) {
        findings.extend(vat_audit::check_without_source(description));
    }
    findings.extend(vat_audit::check_description(description));
    let texture = texture_facts(folder, &description.texture.file);
    let texture_findings = vat_audit::check_texture(description, &texture);
    // Hashed only where the description records a hash and the file is there (the
    // whole file is read: the one part of the audit that grows with the texture), and
    // the texture only when its header and size agree (else that is the finding).
    let hash = |recorded: &Option<String>, file: &str| {
        recorded.as_ref()?;
        check_file_name(file).ok()?;
        // A regular file in the folder, read no further than a file of its kind may be long.
        let limit = if file == description.texture.file.as_str() {
            crate::shipped::read::texture_limit(description)
        } else {
            crate::shipped::read::REST_MESH_MAX_BYTES
        };
        crate::shipped::read::sha256_regular(&folder.join(file), Some(folder), limit).ok()
    };
    let texture_sha256 = if matches!(texture, TextureFacts::Read(_)) && texture_findings.is_empty() {
        hash(&description.texture.sha256, &description.texture.file)
    } else {
        None
    };
    findings.extend(texture_findings);
    let mesh_sha256 = hash(&description.mesh.sha256, &description.mesh.file);
    findings.extend(vat_audit::check_hashes(description, texture_sha256.as_deref(), mesh_sha256.as_deref()));
    let mesh = folder.join(&description.mesh.file);
    let mesh_missing =
        |why: String| Finding::new(Kind::MeshMissing, why, "ship the mesh with its description, or re-bake the unit");
    if check_file_name(&description.mesh.file).is_err() || std::fs::symlink_metadata(&mesh).is_err() {
        findings
            .push(mesh_missing(format!("the rest-pose mesh {} is not beside the description", description.mesh.file)));
    } else if let Err(why) = crate::shipped::read::open_regular(&mesh, Some(folder)) {
        // There, but a FIFO, a device, a folder or a link out of the folder: say which.
        findings.push(mesh_missing(format!("the rest-pose mesh {} cannot be read: {why}", description.mesh.file)));
    }
    // The other format's files (`--format`), as `verify` checks them: there, regular
    // files in the folder, with the recorded size and SHA-256.
    for record in &description.exports {
        if let Some((_, message)) = crate::shipped::exports::problem(folder, record) {
            findings.push(Finding::new(
                Kind::ExportMismatch,
                message,
                "ship the export files with their description, or re-bake the unit",
            ));
        }
    }
    // The levels of detail (`--lods`): each there, with the bytes it was baked with.
    for lod in &description.lods {
        let path = folder.join(&lod.file);
        let read = check_file_name(&lod.file).map_err(|e| e.to_string()).and_then(|()| {
            crate::shipped::read::sha256_regular(&path, Some(folder), crate::shipped::read::REST_MESH_MAX_BYTES)
        });
        if let Err(why) = &read {
            // Missing, or a FIFO, a device, a folder or a link out of the folder.
            findings.push(Finding::new(
                Kind::MeshMissing,
                format!("the level of detail {} cannot be read beside the description: {why}", lod.file),
                "ship every level with its description, or re-bake the unit",
            ));
        } else if let Ok(found) = read {
            if !found.eq_ignore_ascii_case(&lod.sha256) {
                findings.push(Finding::new(
                    Kind::MeshMismatch,
                    format!(
                        "the level of detail {} is not the one this description was baked with (sha256 {}… \
                         recorded, {}… found)",
                        lod.file,
                        lod.sha256.get(..12).unwrap_or(&lod.sha256),
                        found.get(..12).unwrap_or(&found)
                    ),
                    "the file was edited or belongs to another bake: re-bake the unit",
                ));
            }
        }
    }
    for stale in crate::shipped::unrecorded_files(&read.path, description) {
        findings.push(Finding::new(
            Kind::UnrecordedFile,
            format!(
                "{} is a file a bake of this name writes, but the description does not record it: an earlier \
                 bake's, out of step with this one",
                stale.file_name().unwrap_or_default().to_string_lossy()
            ),
            "delete it, or re-bake the unit (a bake removes such files)",
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
                if file.file_name().is_some_and(|n| n.to_string_lossy().ends_with(description::DESCRIPTION_SUFFIX)) {
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
    // A regular file under the description cap, its lists under theirs (shipped::read).
    let bytes = crate::shipped::read::read_regular(
        path,
        None,
        crate::shipped::read::DESCRIPTION_MAX_BYTES,
        "bytes a description may have",
    )
    .map_err(unreadable)?;
    crate::shipped::read::parse_description(&bytes).map_err(|fault| match fault {
        crate::shipped::read::DescriptionFault::NotOurs(why) => unreadable(why),
        crate::shipped::read::DescriptionFault::TooMany(field, cap) => {
            unreadable(format!("{field}: more than {cap} entries, the most a description may have"))
        }
    })
}

/// Where the source named `file` may be: under `--sources` by file name, else where
/// the description records it was, beside the description and one folder up. None
/// existing is a finding.
fn source_candidates(
    description: &Path,
    source: &description::Source,
    sources: Option<&Path>,
    by_name: Option<&HashMap<String, Vec<PathBuf>>>,
) -> Result<Vec<PathBuf>, Finding> {
    let file = source.file.as_str();
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
            let mut found: Vec<PathBuf> = Vec::new();
            let recorded = source.recorded_path(folder);
            for path in recorded.into_iter().chain([folder.join(file), folder.join("..").join(file)]) {
                if path.is_file() && !found.iter().any(|f| crate::verify::same_file(f, &path)) {
                    found.push(path);
                }
            }
            found
        }
    };
    if found.is_empty() {
        let (where_, advice) = match sources {
            Some(dir) => {
                (format!("under {}", dir.display()), "point --sources at the folder that holds the source models")
            }
            None => (
                match &source.path {
                    Some(p) => format!("at {p} (where the bake recorded it), beside the description or one folder up"),
                    None => "beside the description or one folder up".to_string(),
                },
                "pass --sources DIR with the folder that holds the source models",
            ),
        };
        return Err(Finding::new(Kind::SourceNotFound, format!("the source {file} is not {where_}"), advice));
    }
    Ok(found)
}

/// The clips of the files a bake played on the source's skeleton (the description's
/// `animations`), appended to `clips` with their file's index, and a finding for each
/// such file or name map that is missing, unreadable or changed since the bake. Returns
/// whether every file was read (else the clips cannot be checked against them).
fn add_animation_files(
    description: &Description,
    folder: &Path,
    source: &Path,
    clips: &mut SourceClips,
    findings: &mut Vec<Finding>,
) -> bool {
    let source_folder = source.parent().unwrap_or(Path::new(""));
    let merge = description.settings.merge_clips;
    let mut whole = true;
    let files = description.animations.iter().enumerate().map(|(i, r)| (Some(i as u32), r));
    let names = description.animation_names.iter().map(|n| (None, n));
    for (index, recorded) in files.chain(names) {
        let what = if index.is_some() { "animation file" } else { "name map" };
        let Some(path) = crate::shipped::locate_input(recorded, folder, source_folder) else {
            findings.push(Finding::new(
                Kind::SourceNotFound,
                format!("the description names its {what} {:?}, which is not a plain file name", recorded.file),
                REBAKE_ADVICE,
            ));
            whole = false;
            continue;
        };
        // An animation file is read as the source is (hash and clips, `read_source`);
        // the name map for its hash alone.
        let read = match index {
            Some(_) => read_source(&path).map(|doc| (doc.sha256, Some(doc.summary))),
            None => {
                std::fs::read(&path).map(|bytes| (description::sha256_hex(&bytes), None)).map_err(|e| e.to_string())
            }
        };
        let (sha256, summary) = match read {
            Ok(read) => read,
            Err(why) => {
                findings.push(unreadable(what, &path, &why));
                whole &= index.is_none();
                continue;
            }
        };
        if !sha256.eq_ignore_ascii_case(&recorded.sha256) {
            let what = format!("{what} {}", path.display());
            findings.push(vat_audit::changed_since_bake(&what, &recorded.sha256, &sha256, REBAKE_ADVICE));
        }
        if let (Some(index), Some(summary)) = (index, summary) {
            clips.clips.extend(summary.takes(merge).into_iter().map(|c| SourceClip {
                name: c.name,
                source_index: c.source_index,
                file: Some(index),
                duration: c.duration,
            }));
        }
    }
    whole
}

/// What `audit` advises for a file the bake read that is no longer what it was.
const REBAKE_ADVICE: &str = "re-bake the unit with the files it is made of";

fn unreadable(what: &str, path: &Path, why: &str) -> Finding {
    Finding::new(
        Kind::SourceUnreadable,
        format!("the {what} {} cannot be read: {why}", path.display()),
        "ship the files the unit was baked from beside its source, or re-bake the unit",
    )
}

/// A source's hash and the summary of its JSON.
struct SourceDocument {
    sha256: String,
    summary: vat_gltf::Summary,
}

impl SourceDocument {
    /// The clips a bake with this merge mode makes of the source's animations: the
    /// same grouping as the bake's, from the JSON alone, under the file's names (made
    /// unique by the caller once the `--animations` files' clips are in, as the bake does).
    fn takes(&self, merge: vat_gltf::MergeClips) -> SourceClips {
        let clips = self
            .summary
            .takes(merge)
            .into_iter()
            .map(|c| SourceClip { name: c.name, source_index: c.source_index, file: None, duration: c.duration })
            .collect();
        SourceClips { sha256: self.sha256.clone(), clips }
    }
}

/// A source's hash and the summary of its animations, from its JSON alone (only what
/// the checks need is deserialized: docs/AUDIT.md, "Speed").
fn read_source(path: &Path) -> Result<SourceDocument, String> {
    let bytes = std::fs::read(path).map_err(|e| e.to_string())?;
    let sha256 = description::sha256_hex(&bytes);
    let summary = vat_gltf::Summary::read(path, &bytes).map_err(|e| format!("{}; {}", e.message, e.hint))?;
    Ok(SourceDocument { sha256, summary })
}

/// The texture's header facts, reading only its first bytes.
fn texture_facts(folder: &Path, file: &str) -> TextureFacts {
    if let Err(e) = check_file_name(file) {
        return TextureFacts::Unreadable(e.to_string());
    }
    let path = folder.join(file);
    if std::fs::symlink_metadata(&path).is_err_and(|e| e.kind() == std::io::ErrorKind::NotFound) {
        return TextureFacts::Missing;
    }
    // A regular file in the folder only: a FIFO, a device or a link out is unreadable.
    match crate::shipped::read::open_regular(&path, Some(folder)) {
        Ok((handle, _)) => match vat_ktx2::read_texture_header(handle) {
            Ok(found) => TextureFacts::Read(found),
            Err(e) => TextureFacts::Unreadable(e.to_string()),
        },
        Err(e) => TextureFacts::Unreadable(e),
    }
}
