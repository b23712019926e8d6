//! `vatbake verify`: a shipped texture decoded and compared with a fresh
//! evaluation of its source, run by the bake's own stages with the settings the
//! description records.
//!
//! Per clip: the largest and mean distance between each decoded point and the
//! same point evaluated now, in model units and as a share of the bounds
//! diagonal, and the largest angle between the normals. A clip fails when a
//! distance passes the tolerance: the 16-bit precision of the bounds the source
//! gives (half a step on every axis), plus the recorded decimation error, plus a
//! few float roundings; or a normal is past the octahedral encoding's bound.
//! Around that, the checks that name a cause: a source that changed since the
//! bake, a texture of another size or with other bytes than recorded, one that
//! cannot be decoded, a description whose bounds or clip rows, rates and
//! offsets are not the bake's, clips frozen on one pose, a texture that holds the
//! rest pose in every row, a rest mesh whose columns are wrong.

use std::path::{Path, PathBuf};
use std::time::Instant;

use glam::{Vec3, Vec3A};
use rayon::prelude::*;
use serde::Serialize;
use vat_bounds::Bounds;

use crate::bake::fresh::{evaluate_fresh, Fresh};
use crate::description::{self, ClipEntry};
use crate::error::Error;
use crate::settings::{BakeOptions, BakeSettings};
use crate::shipped::{self, RestMesh, Shipped, ShippedFiles};

#[path = "verify_bones.rs"]
mod bones;

/// What to verify.
#[derive(Clone, Debug)]
pub struct VerifySettings {
    /// The description file (`*.vat.json`).
    pub description: PathBuf,
    /// The source model; `None`: the file the description names, beside it or one folder up.
    pub source: Option<PathBuf>,
}

/// One thing verify found wrong.
#[derive(Clone, Debug, Serialize, PartialEq)]
pub struct VerifyFinding {
    /// A stable code: `source-changed`, `texture-bytes`, `texture-sha256`,
    /// `mesh-sha256`, `texture-unreadable`, `texture-shape`, `points`, `clips`,
    /// `bounds`, `over-tolerance`, `off-row`, `normals`, `frozen-clip`, `rest-pose`, `rest-mesh`,
    /// `export-missing`, `export-bytes`, `export-sha256`, `lod-missing`, `lod-sha256`, `lod`.
    pub code: &'static str,
    /// What is wrong, naming the file, clip and row.
    pub message: String,
}

/// One clip's comparison.
#[derive(Clone, Debug, Serialize, PartialEq)]
pub struct ClipCheck {
    /// The clip's name.
    pub name: String,
    /// Its first row in the texture, as the description says.
    pub row: u32,
    /// Rows compared.
    pub rows_compared: u32,
    /// Largest distance between a decoded point and the fresh one, in model units.
    pub max_error: f32,
    /// Mean of those distances.
    pub mean_error: f32,
    /// `max_error` over the bounds diagonal.
    pub max_error_fraction: f32,
    /// `mean_error` over the bounds diagonal.
    pub mean_error_fraction: f32,
    /// The texture row (global) of the largest distance.
    pub worst_row: u32,
    /// The point (column) of the largest distance.
    pub worst_point: u32,
    /// Largest angle between a decoded normal and the fresh one, in degrees.
    pub max_normal_error_degrees: f32,
    /// Times between rows compared: every 1/60 s of the clip that is not a row's time.
    pub off_row_times: u32,
    /// Largest distance, at those times, between the decoded rows interpolated as a
    /// player does (linearly) and the fresh pose, in model units: what a fixed rate
    /// or `--fps auto` (`clips[i].auto_rate`) leaves between rows.
    pub off_row_max_error: f32,
    /// `off_row_max_error` over the bounds diagonal.
    pub off_row_max_error_fraction: f32,
    /// Whether the clip is within the tolerances.
    pub passed: bool,
}

/// One level of detail's comparison: every vertex decoded through its own TEXCOORD_1
/// on every row, against the fresh evaluation of the point its column holds.
#[derive(Clone, Debug, Serialize, PartialEq)]
pub struct LodCheck {
    /// The level's file.
    pub file: String,
    /// Its vertices that read the texture (the bounds corners left out).
    pub points: u32,
    /// Rows compared.
    pub rows_compared: u32,
    /// Largest distance between a decoded vertex and the fresh point, in model units.
    pub max_error: f32,
    /// `max_error` over the bounds diagonal.
    pub max_error_fraction: f32,
    /// Whether the level is within the tolerance.
    pub passed: bool,
}

/// A level of detail read back: its record and each vertex's column.
struct LodRead {
    file: String,
    columns: Vec<usize>,
}

/// The outcome of `verify`, as `--json` prints it.
#[derive(Clone, Debug, Serialize)]
pub struct VerifyReport {
    /// The description verified.
    pub description: PathBuf,
    /// The source model it was compared with.
    pub source: PathBuf,
    /// True when nothing was found.
    pub passed: bool,
    /// Diagonal of the bounds of the fresh evaluation, in model units.
    pub diagonal: f32,
    /// The 16-bit precision those bounds give (on the recorded grid, with --tolerance or --bits), in model units.
    pub precision: f32,
    /// The recorded decimation error (0 without decimation), in model units.
    pub decimation_error: f32,
    /// The largest distance a clip may have: precision + decimation error + float rounding.
    pub tolerance: f32,
    /// The largest angle a normal may have, in degrees.
    pub normal_tolerance_degrees: f32,
    /// Every clip compared, in the description's order.
    pub clips: Vec<ClipCheck>,
    /// Every level of detail (`--lods`) decoded through its own columns; absent: none.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub lods: Vec<LodCheck>,
    /// Everything found wrong; empty when the bake is what its source gives.
    pub findings: Vec<VerifyFinding>,
    /// Wall time, in milliseconds.
    pub elapsed_ms: f64,
}

/// Slack on the normal bound: float roundings of the evaluation and the decode.
const NORMAL_SLACK_DEGREES: f32 = 0.02;

/// Verifies one shipped bake against its source. A description that cannot be read
/// is a usage error, a source that cannot be found or loaded an input error;
/// everything wrong with the bake itself is a finding in the report.
///
/// ```no_run
/// let settings = vatbake::verify::VerifySettings { description: "out/Fox.vat.json".into(), source: None };
/// let report = vatbake::verify::verify(&settings)?;
/// for clip in &report.clips {
///     println!("{}: max {:.3e} ({:.4}% of the diagonal)", clip.name, clip.max_error, 100.0 * clip.max_error_fraction);
/// }
/// assert!(report.passed, "{:?}", report.findings);
/// # Ok::<(), vatbake::Error>(())
/// ```
pub fn verify(settings: &VerifySettings) -> Result<VerifyReport, Error> {
    let started = Instant::now();
    let files = ShippedFiles::read(&settings.description)?;
    if files.description.bones.is_some() {
        return bones::verify_bones(settings, files, started);
    }
    let source = match &settings.source {
        Some(path) => path.clone(),
        None => find_source(&files.path, &files.description.source)?,
    };
    let mut findings = Vec::new();
    let mut note = |code: &'static str, message: String| findings.push(VerifyFinding { code, message });
    let d = &files.description;
    folder_findings(&files, &mut note);

    let image = read_texture(&files, &mut note);
    let layout = match shipped::layout_of(d) {
        Ok(layout) => Some(layout),
        Err(why) => {
            note("texture-shape", format!("{}: {why}", files.path.display()));
            None
        }
    };
    let rest = read_rest(&files, &mut note);

    // The levels of detail (`--lods`): each there with its recorded SHA-256, its vertices
    // each reading a column of the bake at that point's rest position.
    let lods: Vec<LodRead> = match &layout {
        Some(layout) => d
            .lods
            .iter()
            .filter_map(|record| {
                read_lod(files.folder(), record, layout, rest.as_ref().map(|(mesh, _)| mesh), &mut note)
            })
            .collect(),
        None => Vec::new(),
    };

    // The texture is read through the rest mesh's columns: without them, nothing is compared.
    let (rest, columns) = rest.map_or((None, None), |(mesh, columns)| (Some(mesh), Some(columns)));
    let shipped = match (image, layout, columns) {
        (Some((image, normal_texels)), Some(layout), Some(columns)) => Some(Shipped {
            normal_texels,
            description: d.clone(),
            bounds: shipped::bounds_of(d),
            layout,
            image,
            columns,
            files: files.clone(),
        }),
        _ => None,
    };

    let bake_settings = recorded_settings(&files, source.clone())?;
    let report = evaluate_fresh(&bake_settings, |fresh| {
        Ok(compare(&files, &source, shipped.as_ref(), rest.as_ref(), &lods, fresh, &mut findings))
    })
    .map_err(Error::from)?;
    Ok(report.finished(&files, source, findings, started))
}

impl VerifyReport {
    /// The comparison's report with what every verify ends with: the files compared,
    /// the findings (passed when there are none) and the time since `started`.
    pub(super) fn finished(
        mut self,
        files: &ShippedFiles,
        source: PathBuf,
        findings: Vec<VerifyFinding>,
        started: Instant,
    ) -> Self {
        self.description = files.path.clone();
        self.source = source;
        self.passed = findings.is_empty();
        self.findings = findings;
        self.elapsed_ms = crate::pipeline::ms(started);
        self
    }
}

/// What the folder holds beside the description: files a bake of this name writes that
/// it does not record (an earlier bake's), and the other format's files (`--format`),
/// each there with its recorded size and SHA-256. For vertex and bone bakes alike.
pub(super) fn folder_findings(files: &ShippedFiles, note: &mut impl FnMut(&'static str, String)) {
    for stale in files.unrecorded_files() {
        note(
            "unrecorded-file",
            format!(
                "{}: a file a bake of this name writes, but {} does not record it: left by an earlier bake, out of \
                 step with this one; delete it or re-bake",
                stale.display(),
                files.path.display()
            ),
        );
    }
    for record in &files.description.exports {
        if let Some((code, message)) = crate::shipped::exports::problem(files.folder(), record) {
            note(code, message);
        }
    }
}

/// The texture's bytes against the description's record: their count, then (when the
/// count is right) their SHA-256.
pub(super) fn texture_bytes_findings(files: &ShippedFiles, bytes: &[u8], note: &mut impl FnMut(&'static str, String)) {
    let d = &files.description;
    if bytes.len() as u64 != d.texture.bytes {
        note(
            "texture-bytes",
            format!(
                "{}: the texture is {} bytes, the description says {}: truncated, or written by another bake",
                files.texture.display(),
                bytes.len(),
                d.texture.bytes
            ),
        );
    } else if files.hashes.texture.as_ref().is_some_and(|recorded| *recorded != description::sha256_hex(bytes)) {
        // A wrong size says it already; a right size with other bytes is this.
        note(
            "texture-sha256",
            format!(
                "{}: the texture's SHA-256 is not the one its description records: the files are from different bakes",
                files.texture.display()
            ),
        );
    }
}

/// The rest mesh's SHA-256 against the record, hashed as read (a regular file in the
/// folder, capped: it may have been swapped since it was parsed). `generator` is the
/// file's `asset.generator` when it was parsed: a tool other than vatbake is named as
/// the one that rewrote it (an optimizer, most likely).
pub(super) fn mesh_hash_finding(
    files: &ShippedFiles,
    generator: Option<&str>,
    note: &mut impl FnMut(&'static str, String),
) {
    let Some(recorded) = &files.hashes.mesh else { return };
    let found = shipped::read::sha256_regular(&files.mesh, Some(files.folder()), shipped::read::REST_MESH_MAX_BYTES)
        .unwrap_or_default();
    if *recorded == found {
        return;
    }
    let why = match generator.filter(|g| !g.starts_with("vatbake")) {
        Some(tool) => format!(
            "{tool} rewrote it after the bake (an optimizer: docs/PLAYBACK.md, \"Optimizers\", says which options \
             keep the column uv); ship the .rest.glb the bake wrote"
        ),
        None => "the files are from different bakes".into(),
    };
    note(
        "mesh-sha256",
        format!("{}: the rest mesh's SHA-256 is not the one its description records: {why}", files.mesh.display()),
    );
}

/// The texture: its bytes against the record, then decoded and its shape checked;
/// `None` (with a finding) when it cannot be compared.
fn read_texture(
    files: &ShippedFiles,
    note: &mut impl FnMut(&'static str, String),
) -> Option<(vat_ktx2::Rgba16Image, Option<Vec<u16>>)> {
    match files.read_texture() {
        Err(e) => {
            // A regular file too large for its declared shape is its size's finding;
            // anything else (missing, a FIFO, a device, a link out of the folder) is unreadable.
            let regular = shipped::read::open_regular(&files.texture, Some(files.folder())).is_ok();
            note(if regular { "texture-bytes" } else { "texture-unreadable" }, e);
            None
        }
        Ok(bytes) => {
            texture_bytes_findings(files, &bytes, note);
            // The header's shape first: a texture of another shape is not inflated.
            match files.check_header(&bytes) {
                Err((code, why)) => {
                    note(code, why);
                    None
                }
                Ok(()) => match files.decode_texture_parts(&bytes) {
                    Ok(image) => match files.check_shape(&image.0) {
                        Ok(()) => Some(image),
                        Err(why) => {
                            note("texture-shape", why);
                            None
                        }
                    },
                    Err(why) => {
                        note("texture-unreadable", why);
                        None
                    }
                },
            }
        }
    }
}

/// The rest mesh: its hash, then each vertex's column; `None` (with a finding) when the
/// texture cannot be read through it.
fn read_rest(
    files: &ShippedFiles,
    note: &mut impl FnMut(&'static str, String),
) -> Option<(RestMesh, vat_model::Columns)> {
    let d = &files.description;
    match shipped::read_rest_mesh_in(&files.mesh, Some(files.folder())) {
        Err(e) => {
            note("rest-mesh", e.message);
            None
        }
        Ok(mesh) => {
            mesh_hash_finding(files, mesh.generator.as_deref(), note);
            let points = d.points as usize;
            let columns = shipped::columns_of(&mesh, points).and_then(|columns| {
                if d.texture.column_order == description::ColumnOrder::Source && !columns.is_identity() {
                    let i = (0..points).find(|&i| columns.column(i) != i).unwrap_or(0);
                    Err(format!(
                        "vertex {i} reads texture column {}, not its own ({i}) as column_order \"source\" has it: \
                         its TEXCOORD_1 is wrong",
                        columns.column(i)
                    ))
                } else {
                    Ok(columns)
                }
            });
            if mesh.positions.len() != points + 2 {
                note(
                    "rest-mesh",
                    format!(
                        "{}: {} vertices, where {} points and the 2 bounds corners make {}{}",
                        files.mesh.display(),
                        mesh.positions.len(),
                        points,
                        points + 2,
                        if mesh.positions.len() < points + 2 {
                            " (an optimizer's weld, simplify or prune drops vertices: docs/PLAYBACK.md, \"Optimizers\")"
                        } else {
                            ""
                        }
                    ),
                );
                None
            } else {
                match columns {
                    Err(why) => {
                        note("rest-mesh", format!("{}: {why}", files.mesh.display()));
                        None
                    }
                    Ok(columns) => Some((mesh, columns)),
                }
            }
        }
    }
}

/// A level of detail the description records, read back and checked: there, with its
/// recorded SHA-256 and counts, each vertex reading its own column of the bake (from its
/// TEXCOORD_1 and the texture's shape), at the rest position of the point that column
/// holds in the rest mesh `rest`. `None`, with a finding, when it cannot be compared.
fn read_lod(
    folder: &Path,
    record: &description::Lod,
    layout: &vat_model::Layout,
    rest: Option<&RestMesh>,
    note: &mut impl FnMut(&'static str, String),
) -> Option<LodRead> {
    if description::check_file_name(&record.file).is_err() {
        note("lod", format!("{}: not a plain file name; the description was edited", record.file));
        return None;
    }
    let path = folder.join(&record.file);
    // As every reader of a bake opens its files: a regular file in the folder, capped.
    let Ok(bytes) =
        shipped::read::read_regular(&path, Some(folder), shipped::read::REST_MESH_MAX_BYTES, "bytes a mesh may have")
    else {
        note(
            "lod-missing",
            format!(
                "{}: the level of detail the description records is missing; ship it with the bake, or re-bake",
                path.display()
            ),
        );
        return None;
    };
    if description::sha256_hex(&bytes) != record.sha256 {
        note(
            "lod-sha256",
            format!(
                "{}: the level of detail's SHA-256 is not the one its description records: it was edited or is \
                 from another bake; re-bake the unit",
                path.display()
            ),
        );
    }
    let mesh = match shipped::rest_mesh_from_bytes(&bytes) {
        Ok(mesh) => mesh,
        Err(why) => {
            note("lod", format!("{}: {why}", path.display()));
            return None;
        }
    };
    let kept = record.points as usize;
    if mesh.positions.len() != kept + 2 || mesh.triangles.len() != record.triangles as usize {
        note(
            "lod",
            format!(
                "{}: {} vertices and {} triangles, where the description records {} points (and 2 bounds corners) \
                 and {} triangles",
                path.display(),
                mesh.positions.len(),
                mesh.triangles.len(),
                kept,
                record.triangles
            ),
        );
        return None;
    }
    let (width, bands) = (layout.width as f64, layout.bands as f64);
    let columns: Vec<usize> =
        mesh.uv1[..kept].iter().map(|&[u, v]| ((v * bands).round() * width + (u * width).floor()) as usize).collect();
    let at_column: Option<Vec<u32>> = rest.map(|rest| {
        let mut vertex = vec![u32::MAX; layout.points];
        for (v, &c) in rest.columns.iter().take(layout.points).enumerate() {
            if let Some(slot) = vertex.get_mut(c as usize) {
                *slot = v as u32;
            }
        }
        vertex
    });
    let mut seen = vec![false; layout.points];
    for (v, &column) in columns.iter().enumerate() {
        if column >= layout.points || std::mem::replace(&mut seen[column], true) {
            note(
                "lod",
                format!(
                    "{}: vertex {v} reads texture column {column}, past the {} points or read by another vertex: \
                     its TEXCOORD_1 is wrong; re-bake the unit",
                    path.display(),
                    layout.points
                ),
            );
            return None;
        }
        let twin = at_column.as_ref().map(|at| at[column] as usize).filter(|&t| t != u32::MAX as usize);
        if let (Some(rest), Some(twin)) = (rest, twin) {
            if rest.positions[twin] != mesh.positions[v] {
                note(
                    "lod",
                    format!(
                        "{}: vertex {v} reads texture column {column}, whose point rests at {:?} in the rest mesh, \
                         not at the vertex's {:?}: its TEXCOORD_1 or its positions are wrong; re-bake the unit",
                        path.display(),
                        rest.positions[twin].to_array(),
                        mesh.positions[v].to_array()
                    ),
                );
                return None;
            }
        }
    }
    Some(LodRead { file: record.file.clone(), columns })
}

/// Every level of detail judged on the compared rows (`compare_rows` measured each
/// level's vertices, decoded through their own columns, against the fresh evaluation of
/// the point each column holds, in the same pass as the points): a finding past `tolerance`.
fn judge_lods(
    compared: &Compared,
    lods: &[LodRead],
    tolerance: f32,
    diagonal: f32,
    note: &mut impl FnMut(&'static str, String),
) -> Vec<LodCheck> {
    let rows: Vec<(usize, &RowResult)> = compared
        .pairs
        .iter()
        .zip(&compared.per_clip)
        .flat_map(|((_, pairs), results)| pairs.iter().map(|&(decoded, _)| decoded).zip(results))
        .collect();
    lods.iter()
        .enumerate()
        .map(|(level, lod)| {
            let (max, vertex, row) = rows
                .iter()
                .map(|&(row, r)| (r.lods[level].0, r.lods[level].1, row))
                .fold((0.0f32, 0, 0), |a, b| if b.0 > a.0 { b } else { a });
            let passed = max <= tolerance;
            if !passed {
                note(
                    "lod",
                    format!(
                        "{}: vertex {vertex} decodes {max:.3e} from the source on row {row}, past the tolerance of \
                         {tolerance:.3e}: its TEXCOORD_1 reads the wrong column; re-bake the unit",
                        lod.file
                    ),
                );
            }
            LodCheck {
                file: lod.file.clone(),
                points: lod.columns.len() as u32,
                rows_compared: rows.len() as u32,
                max_error: max,
                max_error_fraction: if diagonal > 0.0 { max / diagonal } else { 0.0 },
                passed,
            }
        })
        .collect()
}

/// The source a description names: where it records it was (relative to it), then
/// beside it, then one folder up; of several, the first with the baked bytes.
fn find_source(description: &Path, source: &description::Source) -> Result<PathBuf, Error> {
    let folder = description.parent().filter(|p| !p.as_os_str().is_empty()).unwrap_or(Path::new("."));
    if crate::description::check_file_name(&source.file).is_err() {
        return Err(Error::usage(format!(
            "{}: names its source {:?}, not a plain file name; pass --source MODEL",
            description.display(),
            source.file
        )));
    }
    let mut found: Vec<PathBuf> = Vec::new();
    for path in source
        .recorded_path(folder)
        .into_iter()
        .chain([folder.join(&source.file), folder.join("..").join(&source.file)])
    {
        if path.is_file() && !found.iter().any(|f| same_file(f, &path)) {
            found.push(path);
        }
    }
    let same = |p: &PathBuf| std::fs::read(p).is_ok_and(|b| description::sha256_hex(&b) == source.sha256);
    match found.as_slice() {
        [] => Err(Error::input(format!(
            "{}: its source {} is not {}beside it or one folder up; pass --source MODEL",
            description.display(),
            source.file,
            source.path.as_deref().map_or(String::new(), |p| format!("at {p} (where the bake recorded it), "))
        ))),
        [one] => Ok(one.clone()),
        many => Ok(many.iter().find(|p| same(p)).unwrap_or(&many[0]).clone()),
    }
}

/// Whether two existing paths are one file (`out/../Fox.glb` and `Fox.glb`).
pub(crate) fn same_file(a: &Path, b: &Path) -> bool {
    a == b || matches!((crate::host::canonicalize(a), crate::host::canonicalize(b)), (Ok(a), Ok(b)) if a == b)
}

/// The bake settings a description records, for a bake of `source` (nothing is written).
fn recorded_settings(files: &ShippedFiles, source: PathBuf) -> Result<BakeSettings, Error> {
    let recorded = |e: Error| {
        Error::usage(format!(
            "{}: its recorded settings cannot be baked again: {}; re-bake the unit",
            files.path.display(),
            e.message
        ))
    };
    let mut options = BakeOptions::from_description(&files.description).map_err(recorded)?;
    // The `--animations` files and the name map: where the description records them,
    // else beside the source.
    let folder = files.path.parent().unwrap_or(Path::new(""));
    let source_folder = source.parent().unwrap_or(Path::new(""));
    let locate = |recorded: &description::Source| {
        crate::shipped::locate_input(recorded, folder, source_folder).ok_or_else(|| {
            Error::input(format!(
                "{}: it names a file its clips were made with, {:?}, which is not a plain file name; re-bake the unit",
                files.path.display(),
                recorded.file
            ))
        })
    };
    let animations = &files.description.animations;
    if !animations.is_empty() {
        options.animations = Some(animations.iter().map(locate).collect::<Result<_, _>>()?);
    }
    options.animation_names = files.description.animation_names.as_ref().map(locate).transpose()?;
    options.name = Some("verify".into());
    // The size guard decides whether to bake, not what: a bake that passed it (or was
    // told to skip it) evaluates the same either way.
    options.no_size_guard = true;
    let mut settings = options.settings(source, PathBuf::new()).map_err(recorded)?;
    // As the bake had it: a default budget rises to keep every uv island, a given
    // one that could not was refused, so rising reproduces both.
    settings.points_given = false;
    Ok(settings)
}

/// What one row's comparison found.
#[derive(Clone)]
struct RowResult {
    max: f32,
    point: usize,
    sum: f64,
    normal_degrees: f32,
    /// Largest distance of a decoded point from the same point on the clip's first decoded row.
    decoded_spread: f32,
    /// The same for the fresh evaluation.
    fresh_spread: f32,
    /// Largest distance of a decoded point from the rest mesh's.
    from_rest: f32,
    min: Vec3A,
    max_corner: Vec3A,
    /// Each level of detail's (largest distance, vertex) on the row: its vertices decoded
    /// through their own columns against the fresh point of that column.
    lods: Vec<(f32, usize)>,
}

/// The clips' comparisons and the structural checks, with the fresh evaluation.
fn compare(
    files: &ShippedFiles,
    source: &Path,
    shipped: Option<&Shipped>,
    rest: Option<&RestMesh>,
    lods: &[LodRead],
    fresh: &Fresh,
    findings: &mut Vec<VerifyFinding>,
) -> VerifyReport {
    let d = &files.description;
    let mut note = |code: &'static str, message: String| findings.push(VerifyFinding { code, message });
    check_structure(files, source, fresh, &mut note);
    let layout = fresh.layout;
    let recorded_bounds = shipped::bounds_of(d);
    let decimation_error = d.decimation.as_ref().map_or(0.0, |dec| dec.max_error);
    // Positions snapped to a coarser grid (--tolerance, --bits) may be half a cell off.
    let grid = vat_bounds::Grid(d.positions.grid.unwrap_or(vat_bounds::Grid::FULL.0));
    // Before the comparison gives the fresh bounds: the recorded ones.
    let mut report = VerifyReport {
        description: PathBuf::new(),
        source: PathBuf::new(),
        passed: false,
        diagonal: recorded_bounds.diagonal(),
        precision: recorded_bounds.precision_on(&grid),
        decimation_error,
        tolerance: tolerance_on(&recorded_bounds, &grid, decimation_error),
        normal_tolerance_degrees: vat_bounds::NORMAL_MAX_ERROR_DEGREES + NORMAL_SLACK_DEGREES,
        clips: Vec::new(),
        lods: Vec::new(),
        findings: Vec::new(),
        elapsed_ms: 0.0,
    };
    let Some(shipped) = shipped.filter(|_| layout.points == d.points as usize) else { return report };
    if shipped.columns != fresh.columns {
        let i = (0..layout.points).find(|&i| shipped.columns.column(i) != fresh.columns.column(i)).unwrap_or(0);
        note(
            "rest-mesh",
            format!(
                "{}: vertex {i} reads texture column {}, where the bake's column order ({}) puts it in column {}: \
                 its vertices were re-ordered or its column uv (TEXCOORD_1) rewritten since the bake (an optimizer's \
                 reorder or weld: docs/PLAYBACK.md, \"Optimizers\")",
                files.mesh.display(),
                shipped.columns.column(i),
                d.texture.column_order,
                fresh.columns.column(i)
            ),
        );
        return report;
    }
    let compared = compare_rows(d, shipped, rest, lods, fresh);
    check_bounds(files, &compared, layout.rows, &grid, &mut report, &mut note);
    judge_clips(files, &compared, rest.is_some(), &mut report, &mut note);
    judge_off_rows(files, shipped, fresh, &mut report, &mut note);
    report.lods = judge_lods(&compared, lods, report.tolerance, report.diagonal, &mut note);
    report
}

/// The source against the hash the description records: another file (changed since
/// the bake) is said once, with what to do.
pub(super) fn source_finding(
    files: &ShippedFiles,
    source: &Path,
    sha256: &str,
    note: &mut impl FnMut(&'static str, String),
) {
    let d = &files.description;
    if sha256 != d.source.sha256 {
        note(
            "source-changed",
            format!(
                "{}: the source {} is not the file that was baked (its SHA-256 differs from the recorded one of \
                 {}): it changed since the bake; re-bake the unit, or pass --source with the baked file",
                files.path.display(),
                source.display(),
                d.source.file
            ),
        );
    }
}

/// What the files record against what the source gives: the source's hash, the point
/// count, the texture's shape and the clips.
fn check_structure(files: &ShippedFiles, source: &Path, fresh: &Fresh, note: &mut impl FnMut(&'static str, String)) {
    let d = &files.description;
    let path = files.path.display();
    source_finding(files, source, &fresh.source_sha256, note);
    let layout = fresh.layout;
    if layout.points != d.points as usize {
        note("points", format!("{path}: records {} points, the source gives {}", d.points, layout.points));
    }
    let t = &d.texture;
    if (layout.width, layout.height, layout.bands) != (t.width as usize, t.height as usize, t.bands as usize) {
        note(
            "texture-shape",
            format!(
                "{path}: records a {}×{} texture in {} bands, the source gives {}×{} in {}",
                t.width, t.height, t.bands, layout.width, layout.height, layout.bands
            ),
        );
    }
    check_clips(&path.to_string(), &d.clips, &fresh.entries, note);
}

/// The tolerance of a comparison against bounds `b`: half a cell of the grid, the
/// decimation's error and the float rounding of positions that far from the origin.
fn tolerance_on(b: &Bounds, grid: &vat_bounds::Grid, decimation_error: f32) -> f32 {
    b.precision_on(grid) * 1.001 + decimation_error + 2.0 * f32::EPSILON * (b.center.abs() + b.half_extent).length()
}

/// Every clip's rows compared: for each clip, its (decoded, fresh) row pairs and one
/// result per pair.
struct Compared {
    pairs: Vec<(usize, Vec<(usize, usize)>)>,
    per_clip: Vec<Vec<RowResult>>,
    points: usize,
}

/// Every clip's rows, decoded where the description says, fresh where the bake puts
/// them, compared point by point (rows in parallel), and each level of detail's vertices
/// in the same pass: with the rest mesh's columns the bake's, point `i` is decoded at its
/// own column, so a level's column `c` is point `fresh.columns.point(c)`'s distance.
fn compare_rows(
    d: &description::Description,
    shipped: &Shipped,
    rest: Option<&RestMesh>,
    lods: &[LodRead],
    fresh: &Fresh,
) -> Compared {
    let layout = fresh.layout;
    let pairs: Vec<(usize, Vec<(usize, usize)>)> = d
        .clips
        .iter()
        .zip(&fresh.entries)
        .enumerate()
        .map(|(i, (shipped_clip, fresh_clip))| {
            let rows = shipped_clip.rows.min(fresh_clip.rows) as usize;
            let rows: Vec<(usize, usize)> = (0..rows)
                .map(|k| (shipped_clip.row as usize + k, fresh_clip.row as usize + k))
                .filter(|&(decoded, _)| decoded < shipped.rows())
                .collect();
            (i, rows)
        })
        .collect();
    let points = layout.points;
    let evaluate = |fresh_row: usize| {
        let (mut p, mut n) = (vec![Vec3A::ZERO; points], vec![Vec3A::ZERO; points]);
        fresh.evaluate_row(fresh_row, &mut p, &mut n);
        p
    };
    let per_clip: Vec<Vec<RowResult>> = pairs
        .iter()
        .map(|(_, rows)| {
            let Some(&(first_decoded, first_fresh)) = rows.first() else { return Vec::new() };
            let decoded_first = shipped.positions(first_decoded);
            let fresh_first = evaluate(first_fresh);
            rows.par_iter()
                .map_init(
                    || scratch(points),
                    |(fp, fnormal, dp, dn), &(decoded_row, fresh_row)| {
                        fresh.evaluate_row(fresh_row, fp, fnormal);
                        shipped.decode_row(decoded_row, dp, dn);
                        let mut r = RowResult {
                            max: -1.0,
                            point: 0,
                            sum: 0.0,
                            normal_degrees: 0.0,
                            decoded_spread: 0.0,
                            fresh_spread: 0.0,
                            from_rest: 0.0,
                            min: Vec3A::INFINITY,
                            max_corner: Vec3A::NEG_INFINITY,
                            lods: Vec::with_capacity(lods.len()),
                        };
                        for i in 0..points {
                            let (f, p) = (Vec3::from(fp[i]), dp[i]);
                            let distance = f.distance(p);
                            // NaN (a position that is not finite) counts as the worst.
                            if distance > r.max || distance.is_nan() && r.max.is_finite() {
                                (r.max, r.point) = (if distance.is_nan() { f32::INFINITY } else { distance }, i);
                            }
                            r.sum += distance as f64;
                            let normal = Vec3::from(fnormal[i]);
                            if normal.length_squared() > 1e-12 {
                                let angle = normal.angle_between(dn[i]).to_degrees();
                                r.normal_degrees = r.normal_degrees.max(angle);
                            }
                            r.decoded_spread = r.decoded_spread.max(p.distance(decoded_first[i]));
                            r.fresh_spread = r.fresh_spread.max(fp[i].distance(fresh_first[i]));
                            if let Some(rest) = rest {
                                r.from_rest = r.from_rest.max(p.distance(rest.positions[i]));
                            }
                            r.min = r.min.min(fp[i]);
                            r.max_corner = r.max_corner.max(fp[i]);
                        }
                        for lod in lods {
                            r.lods.push(lod.columns.iter().enumerate().fold((0.0f32, 0), |(max, at), (v, &column)| {
                                let point = fresh.columns.point(column);
                                let d = Vec3::from(fp[point]).distance(dp[point]);
                                if d > max || d.is_nan() {
                                    (if d.is_nan() { f32::INFINITY } else { d }, v)
                                } else {
                                    (max, at)
                                }
                            }));
                        }
                        r
                    },
                )
                .collect()
        })
        .collect();
    Compared { pairs, per_clip, points }
}

/// The fresh bounds, when every row was compared (the box the bake quantized against):
/// the report's tolerance from them, and a finding when the recorded ones differ.
fn check_bounds(
    files: &ShippedFiles,
    compared: &Compared,
    layout_rows: usize,
    grid: &vat_bounds::Grid,
    report: &mut VerifyReport,
    note: &mut impl FnMut(&'static str, String),
) {
    let d = &files.description;
    let path = files.path.display();
    let recorded_bounds = shipped::bounds_of(d);
    let rows: usize = compared.pairs.iter().map(|(_, rows)| rows.len()).sum();
    let all = compared.per_clip.iter().flatten();
    let (lo, hi) =
        all.fold((Vec3A::INFINITY, Vec3A::NEG_INFINITY), |(lo, hi), r| (lo.min(r.min), hi.max(r.max_corner)));
    let fresh_bounds = (rows == layout_rows && rows > 0 && lo.is_finite() && hi.is_finite())
        .then(|| Bounds::from_points([Vec3::from(lo), Vec3::from(hi)]));
    if let Some(b) = &fresh_bounds {
        report.diagonal = b.diagonal();
        report.precision = b.precision_on(grid);
        report.tolerance = tolerance_on(b, grid, report.decimation_error);
        let off = (b.center - recorded_bounds.center).abs().max((b.half_extent - recorded_bounds.half_extent).abs());
        if off.max_element() > b.precision() {
            note(
                "bounds",
                format!(
                    "{path}: records bounds centre {:?} and half-size {:?}, the animation's are {:?} and {:?}: \
                     the description was edited or belongs to another bake",
                    recorded_bounds.center.to_array(),
                    recorded_bounds.half_extent.to_array(),
                    b.center.to_array(),
                    b.half_extent.to_array()
                ),
            );
        }
    }
}

/// Each clip judged on its compared rows: over the tolerance, normals, a frozen clip,
/// and a texture that holds the rest pose; one `ClipCheck` each in the report.
fn judge_clips(
    files: &ShippedFiles,
    compared: &Compared,
    has_rest: bool,
    report: &mut VerifyReport,
    note: &mut impl FnMut(&'static str, String),
) {
    let d = &files.description;
    let path = files.path.display();
    let (pairs, per_clip, points) = (&compared.pairs, &compared.per_clip, compared.points);
    let rows_compared: usize = pairs.iter().map(|(_, rows)| rows.len()).sum();
    let normal_tolerance = report.normal_tolerance_degrees;
    let tolerance = report.tolerance;
    let diagonal = report.diagonal;
    let fraction = |v: f32| if diagonal > 0.0 { v / diagonal } else { 0.0 };

    let mut moving_anywhere = false;
    let mut rest_everywhere = has_rest && rows_compared > 0;
    for ((i, rows), results) in pairs.iter().zip(per_clip) {
        let clip = &d.clips[*i];
        let Some(worst) = results.iter().enumerate().max_by(|a, b| a.1.max.total_cmp(&b.1.max)) else { continue };
        let (worst_k, worst) = (worst.0, worst.1);
        let total: f64 = results.iter().map(|r| r.sum).sum();
        let mean = (total / (results.len() * points).max(1) as f64) as f32;
        let normal_degrees = results.iter().map(|r| r.normal_degrees).fold(0.0, f32::max);
        let worst_row = rows[worst_k].0 as u32;
        let passed = worst.max <= tolerance && normal_degrees <= normal_tolerance;
        if worst.max > tolerance {
            note(
                "over-tolerance",
                format!(
                    "{path}: clip \"{}\" is up to {:.4e} model units ({:.3}% of the bounds diagonal) from its source \
                     at texture row {worst_row} (row {worst_k} of the clip), point {}; the tolerance is {:.4e}",
                    clip.name,
                    worst.max,
                    100.0 * fraction(worst.max),
                    worst.point,
                    tolerance
                ),
            );
        }
        if normal_degrees > normal_tolerance {
            let k = results.iter().position(|r| r.normal_degrees == normal_degrees).unwrap_or(0);
            note(
                "normals",
                format!(
                    "{path}: clip \"{}\" has normals {normal_degrees:.2}° from its source's at texture row {} \
                     (row {k} of the clip); the encoding's bound is {:.2}°",
                    clip.name,
                    rows[k].0,
                    vat_bounds::NORMAL_MAX_ERROR_DEGREES
                ),
            );
        }
        let decoded_spread = results.iter().map(|r| r.decoded_spread).fold(0.0, f32::max);
        let fresh_spread = results.iter().map(|r| r.fresh_spread).fold(0.0, f32::max);
        let moves = fresh_spread > 2.0 * tolerance;
        moving_anywhere |= moves;
        if results.len() > 1 && moves && decoded_spread <= tolerance {
            note(
                "frozen-clip",
                format!(
                    "{path}: clip \"{}\": all its {} rows (texture rows {}..{}) hold one pose, while its source \
                     moves points up to {:.4e} model units ({:.2}% of the bounds diagonal)",
                    clip.name,
                    results.len(),
                    clip.row,
                    clip.row as usize + results.len(),
                    fresh_spread,
                    100.0 * fraction(fresh_spread)
                ),
            );
        }
        rest_everywhere &= results.iter().all(|r| r.from_rest <= tolerance);
        report.clips.push(ClipCheck {
            name: clip.name.clone(),
            row: clip.row,
            rows_compared: results.len() as u32,
            max_error: worst.max,
            mean_error: mean,
            max_error_fraction: fraction(worst.max),
            mean_error_fraction: fraction(mean),
            worst_row,
            worst_point: worst.point as u32,
            max_normal_error_degrees: normal_degrees,
            off_row_times: 0,
            off_row_max_error: 0.0,
            off_row_max_error_fraction: 0.0,
            passed,
        });
    }
    if rest_everywhere && moving_anywhere {
        note(
            "rest-pose",
            format!(
                "{path}: every row of {} is the rest pose of {}, while the source moves: \
                 the bake wrote the rest pose instead of the animation",
                files.texture.display(),
                files.mesh.display()
            ),
        );
    }
}

/// Each clip between its rows: at every 1/60 s of the clip that falls between two rows,
/// the decoded rows interpolated linearly (as `@vatbake/three` plays them) against the
/// fresh pose (the root motion the rows took out, interpolated, taken out of it too),
/// every point; [`judge_off_row_error`] records and judges it.
fn judge_off_rows(
    files: &ShippedFiles,
    shipped: &Shipped,
    fresh: &Fresh,
    report: &mut VerifyReport,
    note: &mut impl FnMut(&'static str, String),
) {
    let d = &files.description;
    let points = fresh.layout.points;
    let (tolerance, diagonal) = (report.tolerance, report.diagonal);
    for check in report.clips.iter_mut() {
        let Some(i) = d.clips.iter().position(|c| c.row == check.row && c.name == check.name) else { continue };
        let (clip, Some(entry)) = (&d.clips[i], fresh.entries.get(i)) else { continue };
        let rows = off_row_span(clip, entry.rows);
        if rows < 2 || clip.row as usize + rows > shipped.rows() || entry.row as usize + rows > fresh.layout.rows {
            continue;
        }
        let times = off_row_times(clip, rows);
        let decoded: Vec<Vec<Vec3>> =
            (0..rows).into_par_iter().map(|k| shipped.positions(clip.row as usize + k)).collect();
        let worst = worst_between_rows(&times, &decoded, points, |t, k, a, truth| {
            fresh.positions_at(i, t, entry.row as usize + k, a, truth)
        });
        judge_off_row_error(files, clip, check, times.len(), worst, (tolerance, diagonal), note);
    }
}

/// The largest distance, and its time, between the `decoded` rows of a clip (every
/// point's position on each, as a player reads them) interpolated linearly at `times`
/// ([`off_row_times`]) and `truth` at the same times (the source's pose between the two
/// rows, into the scratch it is given): the same answer at any thread count.
fn worst_between_rows(
    times: &[(f32, usize, f32)],
    decoded: &[Vec<Vec3>],
    points: usize,
    truth: impl Fn(f32, usize, f32, &mut [Vec3A]) + Sync,
) -> (f32, f32) {
    times
        .par_iter()
        .map_init(
            || vec![Vec3A::ZERO; points],
            |scratch, &(t, k, a)| {
                truth(t, k, a, scratch);
                let (p, q) = (&decoded[k], &decoded[k + 1]);
                let error =
                    (0..points).map(|j| p[j].lerp(q[j], a).distance(Vec3::from(scratch[j]))).fold(0.0, f32::max);
                (error, t)
            },
        )
        .reduce(|| (0.0, 0.0), worst_off_row)
}

/// The rows of `clip` that play between one another: the description's and the fresh
/// evaluation's (`fresh_rows`) in common, less a `--loop-rows` clip's appended row, which
/// is not between two of the source's times.
fn off_row_span(clip: &ClipEntry, fresh_rows: u32) -> usize {
    (clip.rows.min(fresh_rows) as usize).saturating_sub(usize::from(clip.loop_row))
}

/// The times a clip is compared at between its first `rows` rows: every 1/60 s
/// (`--fps auto`'s truth) that is not on a row, each with the row before it and the
/// fraction of the way to the next.
fn off_row_times(clip: &ClipEntry, rows: usize) -> Vec<(f32, usize, f32)> {
    let duration = (rows - 1) as f32 / clip.rate;
    crate::features::rates::truth_times(duration)
        .into_iter()
        .filter_map(|t| {
            let at = (f64::from(t) * f64::from(clip.rate)).clamp(0.0, (rows - 1) as f64);
            let k = (at.floor() as usize).min(rows - 2);
            let a = (at - k as f64) as f32;
            (a > 1e-3 && a < 1.0 - 1e-3).then_some((t, k, a))
        })
        .collect()
}

/// The larger of two (error, time) pairs, the earlier time on a tie: the same answer
/// at any thread count.
fn worst_off_row(x: (f32, f32), y: (f32, f32)) -> (f32, f32) {
    if y.0 > x.0 || (y.0 == x.0 && y.1 < x.1) {
        y
    } else {
        x
    }
}

/// Records a clip's largest error between rows (`worst` at time `at`, over `times`
/// times) on its check; under `--fps auto` the clip is held to the error its bake
/// recorded (`clips[i].auto_rate.max_error`, measured on the rows before quantization),
/// plus the comparison's tolerance: past it, an `off-row` finding.
fn judge_off_row_error(
    files: &ShippedFiles,
    clip: &ClipEntry,
    check: &mut ClipCheck,
    times: usize,
    (worst, at): (f32, f32),
    (tolerance, diagonal): (f32, f32),
    note: &mut impl FnMut(&'static str, String),
) {
    check.off_row_times = times as u32;
    check.off_row_max_error = worst;
    check.off_row_max_error_fraction = if diagonal > 0.0 { worst / diagonal } else { 0.0 };
    let Some(auto) = &clip.auto_rate else { return };
    let bound = auto.max_error * 1.001 + tolerance;
    if worst > bound || worst.is_nan() {
        check.passed = false;
        note(
            "off-row",
            format!(
                "{}: clip \"{}\" plays up to {worst:.4e} model units ({:.3}% of the bounds diagonal) from its \
                 source between rows, at {at:.4} s; its bake recorded {:.4e} for its {} rows/s (--fps auto), \
                 and the tolerance is {bound:.4e}: the rows or the rate are not the bake's; re-bake the unit",
                files.path.display(),
                clip.name,
                100.0 * check.off_row_max_error_fraction,
                auto.max_error,
                auto.fps
            ),
        );
    }
}

/// The description's clips against the bake's: names, rows, rates, durations, offsets.
fn check_clips(path: &str, shipped: &[ClipEntry], fresh: &[ClipEntry], note: &mut impl FnMut(&'static str, String)) {
    if shipped.len() != fresh.len() {
        note("clips", format!("{path}: records {} clips, the source gives {}", shipped.len(), fresh.len()));
    }
    let close = |a: f32, b: f32| (a - b).abs() <= 1e-5 * a.abs().max(b.abs()).max(1e-6);
    for (s, f) in shipped.iter().zip(fresh) {
        let mut differences = Vec::new();
        if s.name != f.name {
            differences.push(format!("name \"{}\" where the source has \"{}\"", s.name, f.name));
        }
        if s.row != f.row {
            differences.push(format!("first row {} where the bake puts it at {}", s.row, f.row));
        }
        if s.rows != f.rows {
            differences.push(format!("{} rows where the bake makes {}", s.rows, f.rows));
        }
        if !close(s.rate, f.rate) {
            differences.push(format!("rate {} rows/s where the bake samples at {}", s.rate, f.rate));
        }
        if !close(s.duration, f.duration) {
            differences.push(format!("duration {} s where the source's is {}", s.duration, f.duration));
        }
        if !differences.is_empty() {
            note("clips", format!("{path}: clip \"{}\" has {}", s.name, differences.join(", ")));
        }
    }
}

/// One thread's buffers for a row's comparison: fresh positions and normals, decoded
/// positions and normals, `points` each.
type Scratch = (Vec<Vec3A>, Vec<Vec3A>, Vec<Vec3>, Vec<Vec3>);

fn scratch(points: usize) -> Scratch {
    (vec![Vec3A::ZERO; points], vec![Vec3A::ZERO; points], vec![Vec3::ZERO; points], vec![Vec3::ZERO; points])
}
