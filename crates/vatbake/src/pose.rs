//! `vatbake pose`: one pose frozen into a static GLB, for a ragdoll's hand-off and
//! for hand-made distant versions of a unit.
//!
//! From a model: a clip at a time (or the rest pose), evaluated by `vat-skin`'s
//! [`Rig`] as a bake evaluates a row: morph targets, skinning or the part's node
//! transform, normals through the inverse transpose of the same matrix and
//! renormalised; quantized, meshopt and Draco inputs are floats once `vat-gltf` has
//! read them. From a finished bake: one row of its texture decoded onto its rest mesh.
//! Either way the points no triangle uses are dropped, and the mesh is written with the
//! rest mesh's writer (positions, normals, uv0, the source's materials).
//!
//! The guard (the bone-scale and quantization traps turn a body into the wrong size
//! or a smear, never an error): the written bytes are read back by another reader
//! (the `gltf` crate's document, the floats read from its views, node transforms
//! applied) and their bounding box's height compared with the evaluated pose's; more
//! than 2% apart, nothing is written and the error names both figures.
//!
//! ```no_run
//! use vatbake::pose::{pose, PoseOf, PoseSettings};
//! let settings = PoseSettings {
//!     input: "fixtures/Fox/Fox.glb".into(),
//!     of: PoseOf::Clip { name: "Run".into(), time: 0.25 },
//!     out: "Fox.run.glb".into(),
//! };
//! let report = pose(&settings)?;
//! println!("{} vertices, {} high", report.vertices, report.height);
//! # Ok::<(), vatbake::Error>(())
//! ```

use std::path::{Path, PathBuf};
use std::time::Instant;

use glam::{Mat4, Vec3};
use serde::Serialize;
use vat_model::{Finding, Model, Part, Points};
use vat_skin::Rig;

use crate::error::Error;
use crate::shipped::{self, Shipped};
use crate::staging::Staged;

/// How far apart the written and the evaluated heights may be: 2%.
pub const HEIGHT_TOLERANCE: f32 = 0.02;

/// Which pose to freeze.
#[derive(Clone, Debug, PartialEq)]
pub enum PoseOf {
    /// The model as it stands without animation (every node at its rest transform).
    Rest,
    /// Clip `name` at `time` seconds (from 0 to the clip's duration).
    Clip {
        /// The clip's name, as `vatbake inspect MODEL` lists it.
        name: String,
        /// Seconds on the clip's own timeline.
        time: f32,
    },
    /// Global row `row` of a finished bake's texture (the input is its description).
    Row(usize),
}

/// What to pose and where to write it.
#[derive(Clone, Debug)]
pub struct PoseSettings {
    /// The model (.glb, .gltf), or a bake's description (`*.vat.json`) with [`PoseOf::Row`].
    pub input: PathBuf,
    /// Which pose.
    pub of: PoseOf,
    /// The GLB to write (replaced whole, or left as it was).
    pub out: PathBuf,
}

/// What `pose` wrote.
#[derive(Clone, Debug, Serialize)]
pub struct PoseReport {
    /// The model or description read.
    pub input: PathBuf,
    /// The GLB written.
    pub file: PathBuf,
    /// The clip posed (`None`: the rest pose).
    pub clip: Option<String>,
    /// Seconds on the clip's timeline (from a bake: the row's time).
    pub time: Option<f32>,
    /// The clip's duration in seconds.
    pub duration: Option<f32>,
    /// The bake's row, when posed from a bake.
    pub row: Option<usize>,
    /// The source file's animations the clip plays (several for a take merged from one per node).
    pub source_animations: Vec<u32>,
    /// Vertices written (the points some triangle uses).
    pub vertices: usize,
    /// Triangles written.
    pub triangles: usize,
    /// Primitives written (one per part with triangles).
    pub primitives: usize,
    /// Materials carried over.
    pub materials: usize,
    /// Bytes of the GLB.
    pub bytes: u64,
    /// The evaluated pose's bounding box, in the model's units.
    pub min: [f32; 3],
    /// See `min`.
    pub max: [f32; 3],
    /// The evaluated pose's bounding-box height (y extent).
    pub height: f32,
    /// The height of the mesh read back from the written bytes.
    pub written_height: f32,
    /// Every clip of the model (or the bake) with its duration: the names `--clip` takes.
    pub clips: Vec<ClipDuration>,
    /// What the loader noticed and worked around.
    #[serde(serialize_with = "crate::findings::findings_json")]
    pub warnings: Vec<Finding>,
    /// Time taken, in milliseconds.
    pub elapsed_ms: f64,
}

/// A clip's name and duration, as the report lists them.
#[derive(Clone, Debug, Serialize)]
pub struct ClipDuration {
    /// The name `--clip` takes.
    pub name: String,
    /// Seconds: the last key's time.
    pub duration: f32,
}

/// Evaluates the pose `settings` asks for, checks it, and writes it: all or nothing.
pub fn pose(settings: &PoseSettings) -> Result<PoseReport, Error> {
    pose_scaled(settings, 1.0)
}

/// [`pose`] with the positions handed to the writer scaled by `scale`: how the tests
/// make the guard see a mesh written the wrong size. Not for use.
#[doc(hidden)]
pub fn pose_scaled(settings: &PoseSettings, scale: f32) -> Result<PoseReport, Error> {
    let started = Instant::now();
    check_out(&settings.out)?;
    let mut frozen = match &settings.of {
        PoseOf::Row(row) => from_bake(&settings.input, *row)?,
        of => from_model(&settings.input, of)?,
    };
    let model = &mut frozen.model;
    drop_other_uv_sets(&settings.input, &mut model.materials, &mut frozen.warnings);
    if model.triangles.is_empty() {
        return Err(Error::input(format!(
            "{}: the model has no triangles (points or lines only), so there is no mesh to write; \
             pose a model with a triangle mesh",
            settings.input.display()
        )));
    }
    let (min, max) = bounds(&model.points.positions);
    let height = max.y - min.y;
    for p in &mut model.points.positions {
        *p *= scale;
    }
    let name = settings.out.file_stem().map_or_else(|| "pose".to_string(), |s| s.to_string_lossy().into_owned());
    let bytes = crate::pipeline::rest_mesh::write_static_glb(&name, crate::GENERATOR, model)
        .map_err(|e| Error::output(format!("{}: cannot write it: {e}", settings.out.display())))?;
    let written_height = written_height(&bytes).map_err(|why| {
        Error::input(format!(
            "{}: not written: the mesh could not be read back ({why}); this is a vatbake bug, please report it \
             with the model",
            settings.out.display()
        ))
    })?;
    check_height(&settings.out, height, written_height, (max - min).length())?;
    let folder = match settings.out.parent() {
        Some(p) if !p.as_os_str().is_empty() => p,
        _ => Path::new("."),
    };
    let file_name = settings.out.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
    let mut staged = Staged::new(folder);
    staged.write(&file_name, &bytes).map_err(Error::from)?;
    staged.commit().map_err(Error::from)?;
    let primitives = model.parts.iter().filter(|p| p.triangle_count > 0).count();
    Ok(PoseReport {
        input: settings.input.clone(),
        file: settings.out.clone(),
        clip: frozen.clip,
        time: frozen.time,
        duration: frozen.duration,
        row: frozen.row,
        source_animations: frozen.source_animations,
        vertices: model.points.len(),
        triangles: model.triangles.len(),
        primitives,
        materials: model.materials.materials.len(),
        bytes: bytes.len() as u64,
        min: min.to_array(),
        max: max.to_array(),
        height,
        written_height,
        clips: frozen.clips,
        warnings: frozen.warnings,
        elapsed_ms: started.elapsed().as_secs_f64() * 1000.0,
    })
}

/// The posed, static model and what it was posed from.
struct Frozen {
    model: Model,
    clip: Option<String>,
    time: Option<f32>,
    duration: Option<f32>,
    row: Option<usize>,
    source_animations: Vec<u32>,
    clips: Vec<ClipDuration>,
    warnings: Vec<Finding>,
}

/// A GLB file name whose folder is not a file: refused before anything is evaluated.
fn check_out(out: &Path) -> Result<(), Error> {
    if out.is_dir() {
        return Err(Error::usage(format!(
            "-o {}: is a folder; give the file to write, e.g. {}",
            out.display(),
            out.join("pose.glb").display()
        )));
    }
    let glb = out.extension().is_some_and(|e| e.eq_ignore_ascii_case("glb"));
    if !glb {
        return Err(Error::usage(format!(
            "-o {}: pose writes a binary glTF; name the file with .glb (e.g. {})",
            out.display(),
            out.with_extension("glb").display()
        )));
    }
    Ok(())
}

/// A clip at a time, or the rest pose, of the model at `file`.
fn from_model(file: &Path, of: &PoseOf) -> Result<Frozen, Error> {
    if is_description(file) {
        return Err(Error::usage(format!(
            "{}: is a bake's description; pose one of its rows with --row N, or give the source model to \
             pose a clip with --clip and --time",
            file.display()
        )));
    }
    let bytes = vat_gltf::read_file(file)?;
    let loaded = vat_gltf::load(file, &bytes, &vat_gltf::Options::default())?;
    let mut model = loaded.model;
    let mut warnings = loaded.warnings;
    // The clips as a bake names them: takes split per node merged, names made unique.
    let (clips, _) = vat_gltf::merge_clips(std::mem::take(&mut model.clips), vat_gltf::MergeClips::Auto);
    model.clips = clips;
    vat_gltf::unique_names(model.clips.iter_mut().map(|c| &mut c.name));
    let rig = Rig::new(&model);
    let (row_pose, clip, time, duration, source_animations) = match of {
        PoseOf::Clip { name, time } => {
            let clip = find_clip(file, &model, name)?;
            let duration = clip.duration();
            check_time(file, &clip.display_name(), *time, duration)?;
            let sources: Vec<u32> = if clip.merged_from.is_empty() {
                vec![clip.source_index as u32]
            } else {
                clip.merged_from.iter().map(|&i| i as u32).collect()
            };
            (rig.pose(Some(clip), *time), Some(clip.display_name()), Some(*time), Some(duration), sources)
        }
        _ => (rig.pose(None, 0.0), None, None, None, Vec::new()),
    };
    let count = model.points.len();
    let (mut positions, mut normals) = (vec![Vec3::ZERO; count], vec![Vec3::ZERO; count]);
    rig.evaluate_normalized(&row_pose, &mut positions, &mut normals);
    if model.skins.is_empty() && model.clips.is_empty() {
        warnings.push(Finding::new(
            "static-model",
            format!("{}: the model has no skin and no animation: its rest pose is written", file.display()),
        ));
    }
    let clips = model.clips.iter().map(|c| ClipDuration { name: c.display_name(), duration: c.duration() }).collect();
    let model = frozen(&model, &positions, &normals);
    Ok(Frozen { model, clip, time, duration, row: None, source_animations, clips, warnings })
}

/// Whether `file` is named as a bake's description is.
fn is_description(file: &Path) -> bool {
    file.file_name().is_some_and(|n| n.to_string_lossy().to_lowercase().ends_with(".vat.json"))
}

/// The clip named `name`, or an error listing the clips, the nearest first.
fn find_clip<'m>(file: &Path, model: &'m Model, name: &str) -> Result<&'m vat_model::Clip, Error> {
    if model.clips.is_empty() {
        return Err(Error::usage(format!(
            "{}: the model has no animation clips, so there is no clip \"{name}\" to pose; leave out --clip \
             and --time to write its rest pose",
            file.display()
        )));
    }
    if let Some(clip) = model.clips.iter().find(|c| c.display_name() == name) {
        return Ok(clip);
    }
    let names: Vec<String> = model.clips.iter().map(|c| c.display_name()).collect();
    let nearest = crate::pipeline::sockets::nearest_names(name, names.iter().map(String::as_str), 1);
    let quoted: Vec<String> = names.iter().map(|n| format!("\"{n}\"")).collect();
    Err(Error::usage(format!(
        "{}: has no clip named \"{name}\"{}; its clips are {} (names are matched exactly, as a bake names them)",
        file.display(),
        nearest.first().map_or(String::new(), |n| format!(" (did you mean \"{n}\"?)")),
        quoted.join(", ")
    )))
}

/// `time` inside the clip: from 0 to its duration. A time past the end is refused, not
/// clamped: a pose nobody asked for is worse than an error that says the duration.
fn check_time(file: &Path, clip: &str, time: f32, duration: f32) -> Result<(), Error> {
    // The duration as printed (3 decimals) is accepted, though it rounds past the last key.
    let slack = 0.0005_f32.max(duration * 1e-6);
    if time.is_finite() && time >= 0.0 && time <= duration + slack {
        return Ok(());
    }
    Err(Error::usage(format!(
        "--time {time}: clip \"{clip}\" of {} lasts {duration:.3} s; give a time in seconds from 0 to {duration:.3} \
         (the clip's end is its last pose)",
        file.display()
    )))
}

/// Global row `row` of the bake whose description is `file`, on its rest mesh.
fn from_bake(file: &Path, row: usize) -> Result<Frozen, Error> {
    let source = file.extension().is_some_and(|e| e.eq_ignore_ascii_case("glb") || e.eq_ignore_ascii_case("gltf"));
    if source {
        return Err(Error::usage(format!(
            "{}: --row N reads a finished bake: give its description (NAME.vat.json); to pose the model \
             itself, give --clip NAME --time SECONDS",
            file.display()
        )));
    }
    let files = shipped::ShippedFiles::read(file)?;
    if files.description.bones.is_some() {
        return Err(Error::usage(format!(
            "{}: a bone bake (--mode bones): its rows are joint matrices, not points; pose its source model with \
             --clip NAME --time SECONDS (a clip's row k is at k / its rate), or pose a bake made with --mode vertices",
            file.display()
        )));
    }
    let shipped = Shipped::from_files(files).map_err(Error::input)?;
    let description = &shipped.description;
    if row >= shipped.rows() {
        let clips: Vec<String> =
            description.clips.iter().map(|c| format!("\"{}\" {}..{}", c.name, c.row, c.row + c.rows - 1)).collect();
        return Err(Error::usage(format!(
            "--row {row}: {} has {} rows, 0 to {}; its clips' rows are {}",
            file.display(),
            shipped.rows(),
            shipped.rows().saturating_sub(1),
            clips.join(", ")
        )));
    }
    let entry = description.clips.iter().find(|c| (c.row as usize..(c.row + c.rows) as usize).contains(&row));
    let points = shipped.points();
    let (mut columns_positions, mut columns_normals) = (vec![Vec3::ZERO; points], vec![Vec3::ZERO; points]);
    shipped.decode_columns(row, &mut columns_positions, &mut columns_normals);

    // The rest mesh read twice: as a bake's (its column per vertex) and as any glTF (its
    // primitives, uv0 and materials, each primitive with every vertex of the shared set).
    let mesh_path = &shipped.files.mesh;
    let bytes = shipped::read::read_regular(
        mesh_path,
        Some(shipped.files.folder()),
        shipped::read::REST_MESH_MAX_BYTES,
        "bytes a rest mesh may have",
    )
    .map_err(|e| Error::input(format!("{e}; give the .rest.glb file a bake wrote")))?;
    let rest = shipped.rest_mesh()?;
    let loaded = vat_gltf::load(mesh_path, &bytes, &vat_gltf::Options::default())?;
    let mut model = loaded.model;
    let vertices = rest.columns.len();
    let (mut positions, mut normals) = (model.points.positions.clone(), model.points.normals.clone());
    for part in &model.parts {
        if part.point_count != vertices {
            return Err(Error::usage(format!(
                "{}: a primitive has {} vertices where the rest mesh has {vertices}: not a vatbake rest mesh as \
                 written; give the .rest.glb file a bake wrote, as it wrote it",
                mesh_path.display(),
                part.point_count
            )));
        }
        for (vertex, &column) in rest.columns.iter().enumerate() {
            let column = (column as usize).min(points.saturating_sub(1));
            positions[part.first_point + vertex] = columns_positions[column];
            normals[part.first_point + vertex] = columns_normals[column];
        }
    }
    // A bake without normals (`--normals none`): the posed triangles' own, area-weighted.
    if description.normals.mode == crate::description::NormalsMode::None {
        normals = area_weighted_normals(&positions, &model.triangles);
    }
    model.clips.clear();
    let model = frozen(&model, &positions, &normals);
    Ok(Frozen {
        model,
        clip: entry.map(|c| c.name.clone()),
        // The time the bake sampled the row at (vat_model::ClipRows::time).
        time: entry.map(|c| {
            vat_model::ClipRows { rows: c.rows, rate: c.rate, duration: c.duration }.time((row - c.row as usize) as u32)
        }),
        duration: entry.map(|c| c.duration),
        row: Some(row),
        source_animations: entry.map_or_else(Vec::new, |c| {
            if c.merged_from.is_empty() {
                vec![c.source_index]
            } else {
                c.merged_from.clone()
            }
        }),
        clips: description.clips.iter().map(|c| ClipDuration { name: c.name.clone(), duration: c.duration }).collect(),
        warnings: loaded.warnings,
    })
}

/// Unit vertex normals from the triangles around each vertex, weighted by their area.
fn area_weighted_normals(positions: &[Vec3], triangles: &[[u32; 3]]) -> Vec<Vec3> {
    let mut sums = vec![Vec3::ZERO; positions.len()];
    for t in triangles {
        let [a, b, c] = t.map(|i| i as usize);
        let face = (positions[b] - positions[a]).cross(positions[c] - positions[a]);
        for i in [a, b, c] {
            sums[i] += face;
        }
    }
    sums.into_iter().map(|n| n.normalize_or(vat_model::DEGENERATE_NORMAL)).collect()
}

/// `model` as a static mesh at `positions` and `normals`: the points some triangle
/// uses, in their order, each part's triangles renumbered; no nodes, skins or clips.
fn frozen(model: &Model, positions: &[Vec3], normals: &[Vec3]) -> Model {
    let count = model.points.len();
    let mut used = vec![false; count];
    for part in model.parts.iter().filter(|p| p.triangle_count > 0) {
        for &i in model.triangles[part.triangles()].iter().flatten() {
            if let Some(u) = used.get_mut(i as usize) {
                *u = true;
            }
        }
    }
    let mut index = vec![u32::MAX; count];
    let mut points = Points::default();
    for i in (0..count).filter(|&i| used[i]) {
        index[i] = points.positions.len() as u32;
        points.positions.push(positions[i]);
        points.normals.push(normals[i]);
        points.uv0.push(model.points.uv0.get(i).copied().unwrap_or_default());
    }
    let mut parts = Vec::new();
    let mut triangles = Vec::new();
    for part in model.parts.iter().filter(|p| p.triangle_count > 0) {
        let kept = part.points().filter(|&i| used.get(i) == Some(&true));
        let first_point = kept.clone().next().map_or(0, |i| index[i] as usize);
        let point_count = kept.count();
        let first_triangle = triangles.len();
        triangles.extend(model.triangles[part.triangles()].iter().map(|t| t.map(|i| index[i as usize])));
        parts.push(Part {
            node: 0,
            mesh: 0,
            primitive: parts.len(),
            material: part.material,
            skin: None,
            first_point,
            point_count,
            first_triangle,
            triangle_count: part.triangle_count,
            morph_targets: Vec::new(),
        });
    }
    Model { parts, triangles, points, materials: model.materials.clone(), ..Model::default() }
}

/// Removes every texture binding that reads a uv set past TEXCOORD_0 (a pose keeps
/// uv0 alone: a rest mesh's TEXCOORD_1 is its texture column), with a warning naming them.
fn drop_other_uv_sets(file: &Path, materials: &mut vat_model::MaterialSet, warnings: &mut Vec<Finding>) {
    for (index, material) in materials.materials.iter_mut().enumerate() {
        let mut dropped = Vec::new();
        drop_bindings(material, "", &mut dropped);
        if dropped.is_empty() {
            continue;
        }
        let name =
            material.get("name").and_then(serde_json::Value::as_str).map_or(String::new(), |n| format!(" \"{n}\""));
        warnings.push(
            Finding::new(
                "other-uv-sets",
                format!(
                    "{}: material {index}{name}: {} read a uv set past TEXCOORD_0, which a pose does not keep: \
                     left out of the posed mesh",
                    file.display(),
                    dropped.join(", ")
                ),
            )
            .advice("move the texture onto TEXCOORD_0 in the source if the frozen mesh needs it"),
        );
    }
}

/// [`drop_other_uv_sets`] of one JSON value: every `...Texture` object whose uv set
/// (`texCoord`, or `KHR_texture_transform`'s override) is past 0, named by its path.
fn drop_bindings(value: &mut serde_json::Value, path: &str, dropped: &mut Vec<String>) {
    let Some(map) = value.as_object_mut() else { return };
    let keys: Vec<String> = map.keys().cloned().collect();
    for key in keys {
        let at = if path.is_empty() { key.clone() } else { format!("{path}.{key}") };
        let binding = &map[&key];
        let transform = &binding["extensions"]["KHR_texture_transform"]["texCoord"];
        let set = transform.as_u64().or_else(|| binding["texCoord"].as_u64()).unwrap_or(0);
        if key.ends_with("Texture") && binding.is_object() && set > 0 {
            // Order kept (the workspace's serde_json preserves it): the same source, the same bytes.
            map.shift_remove(&key);
            dropped.push(at);
        } else if let Some(inner) = map.get_mut(&key) {
            drop_bindings(inner, &at, dropped);
        }
    }
}

/// The smallest box around `positions`.
fn bounds(positions: &[Vec3]) -> (Vec3, Vec3) {
    let min = positions.iter().fold(Vec3::INFINITY, |a, &p| a.min(p));
    let max = positions.iter().fold(Vec3::NEG_INFINITY, |a, &p| a.max(p));
    (min, max)
}

/// Refuses a written height more than [`HEIGHT_TOLERANCE`] off the evaluated one
/// (against the diagonal when the pose is flat in y), naming both.
fn check_height(out: &Path, evaluated: f32, written: f32, diagonal: f32) -> Result<(), Error> {
    let scale = evaluated.max(diagonal * 1e-3);
    if (written - evaluated).abs() <= HEIGHT_TOLERANCE * scale {
        return Ok(());
    }
    Err(Error::input(format!(
        "{}: not written: the mesh as written is {written} high, the evaluated pose {evaluated} ({}): a transform \
         was applied twice or lost (bone scale, quantized positions), the trap this check is for; this is a \
         vatbake bug: please report it with the model",
        out.display(),
        if evaluated > 0.0 {
            format!("ratio {:.4}, more than 2% off", written / evaluated)
        } else {
            "flat".to_string()
        }
    )))
}

/// The y extent of every triangle mesh in a GLB's default scene, node transforms
/// applied, read by the `gltf` crate (not by the writer's own types): what any viewer
/// of the file would measure.
fn written_height(bytes: &[u8]) -> Result<f32, String> {
    let gltf = gltf::Gltf::from_slice_without_validation(bytes).map_err(|e| e.to_string())?;
    let blob = gltf.blob.as_deref().ok_or("no binary chunk")?;
    let scene = gltf.default_scene().or_else(|| gltf.scenes().next()).ok_or("no scene")?;
    let (mut low, mut high) = (f32::INFINITY, f32::NEG_INFINITY);
    let mut stack: Vec<(gltf::Node, Mat4)> = scene.nodes().map(|n| (n, Mat4::IDENTITY)).collect();
    while let Some((node, parent)) = stack.pop() {
        let world = parent * Mat4::from_cols_array_2d(&node.transform().matrix());
        for primitive in node.mesh().iter().flat_map(|m| m.primitives()) {
            let accessor = primitive.get(&gltf::Semantic::Positions).ok_or("a primitive without POSITION")?;
            let floats = accessor.data_type() == gltf::accessor::DataType::F32;
            if !floats || accessor.dimensions() != gltf::accessor::Dimensions::Vec3 {
                return Err("POSITION is not float VEC3".into());
            }
            let view = accessor.view().ok_or("POSITION without a buffer view")?;
            let stride = view.stride().unwrap_or(12);
            let start = view.offset() + accessor.offset();
            for k in 0..accessor.count() {
                let at = start + k * stride;
                let xyz = blob.get(at..at + 12).ok_or("POSITION past the binary chunk")?;
                let f = |c: usize| f32::from_le_bytes([xyz[c], xyz[c + 1], xyz[c + 2], xyz[c + 3]]);
                let y = world.transform_point3(Vec3::new(f(0), f(4), f(8))).y;
                (low, high) = (low.min(y), high.max(y));
            }
        }
        stack.extend(node.children().map(|c| (c, world)));
    }
    if low > high {
        return Err("no positions".into());
    }
    Ok(high - low)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_height_two_percent_off_passes_and_more_is_refused() {
        let out = Path::new("x.glb");
        assert!(check_height(out, 1.0, 1.0199, 2.0).is_ok());
        assert!(check_height(out, 1.0, 0.9801, 2.0).is_ok());
        let error = check_height(out, 1.0, 1.5, 2.0).unwrap_err();
        assert_eq!(error.kind, crate::ErrorKind::Input);
        assert!(error.message.contains("1.5 high, the evaluated pose 1 (ratio 1.5000"), "{}", error.message);
        // Flat in y: measured against a thousandth of the diagonal.
        assert!(check_height(out, 0.0, 0.00001, 1.0).is_ok());
        assert!(check_height(out, 0.0, 0.1, 1.0).is_err());
    }

    #[test]
    fn bindings_of_other_uv_sets_are_left_out_and_named() {
        let mut set = vat_model::MaterialSet::default();
        set.materials.push(serde_json::json!({
            "name": "skin",
            "pbrMetallicRoughness": { "baseColorTexture": { "index": 0 } },
            "occlusionTexture": { "index": 1, "texCoord": 1 },
            "normalTexture": { "index": 2, "extensions": { "KHR_texture_transform": { "texCoord": 2 } } },
            "emissiveTexture": { "index": 3, "texCoord": 1, "extensions": { "KHR_texture_transform": { "texCoord": 0 } } },
        }));
        let mut warnings = Vec::new();
        drop_other_uv_sets(Path::new("m.glb"), &mut set, &mut warnings);
        let kept: Vec<&String> = set.materials[0].as_object().unwrap().keys().collect();
        assert_eq!(kept, ["name", "pbrMetallicRoughness", "emissiveTexture"]);
        assert_eq!(
            warnings[0].message,
            "m.glb: material 0 \"skin\": occlusionTexture, normalTexture read a uv set past TEXCOORD_0, which a pose \
             does not keep: left out of the posed mesh"
        );
    }

    #[test]
    fn a_time_past_the_clip_is_refused_with_its_duration() {
        let file = Path::new("m.glb");
        assert!(check_time(file, "Run", 0.0, 1.25).is_ok());
        assert!(check_time(file, "Run", 1.2504, 1.25).is_ok());
        let error = check_time(file, "Run", 1.3, 1.25).unwrap_err();
        assert_eq!(error.kind, crate::ErrorKind::Usage);
        assert!(error.message.contains("clip \"Run\" of m.glb lasts 1.250 s"), "{}", error.message);
        assert!(check_time(file, "Run", -0.1, 1.25).is_err());
        assert!(check_time(file, "Run", f32::NAN, 1.25).is_err());
    }
}
