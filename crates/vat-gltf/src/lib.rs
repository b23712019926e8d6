//! glTF 2.0 (`.gltf` with external buffers or data URIs, and `.glb`) to a
//! [`vat_model::Model`]: one point set for every mesh of the scene, the node
//! hierarchy, skins, morph targets and animation clips, all as floats.
//!
//! What it does: parses the container and the JSON, resolves buffers (external
//! files must stay inside the model's folder), checks every accessor against the
//! bytes that are really there before allocating, converts quantized integers to
//! floats before anything else touches them, and validates references, indices and
//! keyframes. Textures are never decoded; their bytes ride along in
//! [`vat_model::MaterialSet`] for the rest mesh.
//!
//! What it does not: evaluate animation (that is `vat-skin`) or write files. It only
//! reads the model and the buffers it names; [`write`](mod@write) builds GLB bytes
//! that the caller saves.
//!
//! Dependencies: of this workspace, only `vat-model`. It must not depend on the
//! other stage crates (`vat-skin`, `vat-bounds`, `vat-ktx2`, `vat-decimate`,
//! `vat-audit`), on `vat-bench` or on `vatbake`: the loader knows nothing of the
//! stages after it.
//!
//! ```no_run
//! let path = std::path::Path::new("fixtures/Fox/Fox.glb");
//! let bytes = vat_gltf::read_file(path)?;
//! let loaded = vat_gltf::load(path, &bytes, &vat_gltf::Options::default())?;
//! println!("{} points, {} clips", loaded.model.points.len(), loaded.model.clips.len());
//! # Ok::<(), vat_gltf::LoadError>(())
//! ```

#![warn(missing_docs)]

mod accessor;
mod container;
mod document;
mod draco;
mod error;
mod influences;
mod limits;
mod materials;
mod meshopt;
pub mod retarget;
pub mod summary;
pub mod takes;
pub mod write;

use std::borrow::Cow;
use std::path::Path;

use glam::{Mat4, Quat, Vec2, Vec3};
use gltf::json::animation::Interpolation as JsonInterpolation;
use gltf::json::mesh::{Mode, Semantic};
use gltf::json::validation::Checked;
use gltf::json::Root;
use vat_model::{
    Channel, Clip, Finding, Interpolation, Local, Model, MorphTarget, Node, Part, Property, Skin, Trs,
    DEGENERATE_NORMAL, MAX_INFLUENCES,
};

pub use error::{ErrorKind, LoadError};
pub use limits::MAX_POINTS;
pub use summary::{AnimationSummary, ClipSummary, Summary};
pub use takes::{merge_clips, unique_names, MergeClips};

use accessor::Reader;
use document::{check_version, node_property};

/// Extensions whose presence changes nothing this loader reads, or that it reads.
const UNDERSTOOD_EXTENSIONS: &[&str] = &[
    "KHR_mesh_quantization",
    "EXT_meshopt_compression",
    "KHR_draco_mesh_compression",
    "KHR_texture_transform",
    "KHR_texture_basisu",
    "EXT_texture_webp",
    "EXT_texture_avif",
    "KHR_materials_unlit",
    "KHR_materials_emissive_strength",
    "KHR_materials_ior",
    "KHR_materials_specular",
    "KHR_materials_transmission",
    "KHR_materials_volume",
    "KHR_materials_clearcoat",
    "KHR_materials_sheen",
    "KHR_materials_iridescence",
    "KHR_materials_anisotropy",
    "KHR_materials_dispersion",
    "KHR_materials_pbrSpecularGlossiness",
];

/// Load settings.
#[derive(Clone, Debug, Default)]
pub struct Options {
    /// Scene to bake; `None` means the document's default scene, else scene 0.
    pub scene: Option<usize>,
    /// Joint influences kept per point, the strongest first (1 to 8); `None` keeps
    /// every one the file has, up to 8.
    pub max_influences: Option<usize>,
}

/// A loaded model and what the loader noticed but could work around.
#[derive(Clone, Debug)]
pub struct Loaded {
    /// The model, as floats.
    pub model: Model,
    /// What the loader worked around: one finding per occurrence, and the joint
    /// influences' once for the whole model.
    pub warnings: Vec<Finding>,
    /// Where some point has weight past its first set (JOINTS_1/WEIGHTS_1 and on):
    /// each point's first set alone, renormalized, as a runtime that reads only
    /// JOINTS_0/WEIGHTS_0 skins it (three.js's SkinnedMesh). Unskinned points
    /// have weight 1 on joint 0 here, which nothing reads.
    pub first_influence_set: Option<Vec<([u16; 4], [f32; 4])>>,
}

/// Reads a model file, with an error that names it. Only a regular file (after
/// following links) is read: a FIFO would hang the reader and a device such as
/// `/dev/zero` never ends, so either is refused before it is opened.
pub fn read_file(path: &Path) -> Result<Vec<u8>, LoadError> {
    container::read_regular(path).map_err(|e| {
        let hint = match e.kind() {
            std::io::ErrorKind::NotFound => "check the path",
            std::io::ErrorKind::InvalidInput => "pass the model file itself (.glb or .gltf)",
            _ => "check the file's permissions",
        };
        LoadError::new(path, ErrorKind::Io, format!("cannot read the model: {e}")).with_hint(hint)
    })
}

/// Parses the document's JSON (GLB or .gltf) without touching any buffer.
pub fn parse_document(file: &Path, bytes: &[u8]) -> Result<(Root, serde_json::Value), LoadError> {
    let container = container::split(file, bytes)?;
    parse_json(file, container.json)
}

/// The document's JSON text (a GLB's JSON chunk, or the whole .gltf), with the container
/// checked but nothing parsed: for callers that deserialize only the part they need
/// (the [`summary`] of clip names and key times reads hundreds of files in a blink).
pub fn document_json<'a>(file: &Path, bytes: &'a [u8]) -> Result<&'a [u8], LoadError> {
    Ok(container::split(file, bytes)?.json)
}

fn parse_json(file: &Path, json: &[u8]) -> Result<(Root, serde_json::Value), LoadError> {
    let not_gltf =
        |e: serde_json::Error| LoadError::new(file, ErrorKind::NotGltf, format!("not a glTF 2.0 document: {e}"));
    let mut value: serde_json::Value = serde_json::from_slice(json).map_err(not_gltf)?;
    check_version(file, value.pointer("/asset/version").and_then(|v| v.as_str()))?;
    fill_optional(&mut value);
    // Deserialized from the Value by reference: no copy of the tree (nor of its data URIs).
    let root = serde::Deserialize::deserialize(&value).map_err(not_gltf)?;
    Ok((root, value))
}

/// What glTF 2.0 leaves optional and the `gltf` crate's types require, filled in with
/// the spec's meaning: a scene without `nodes` is an empty scene (Blender writes one
/// for an unused scene; the Khronos validator and three.js accept it).
fn fill_optional(value: &mut serde_json::Value) {
    let scenes = value.get_mut("scenes").and_then(serde_json::Value::as_array_mut);
    for scene in scenes.into_iter().flatten().filter_map(serde_json::Value::as_object_mut) {
        scene.entry("nodes").or_insert_with(|| serde_json::Value::Array(Vec::new()));
    }
}

/// An animation file read for its clips alone (`--animations`): its nodes (names and
/// hierarchy, for binding by name) and its clips, with no mesh needed. A library of
/// clips (Mixamo, KayKit, Quaternius) often has none, or a throwaway one.
pub struct Library {
    /// Every node of the file, as [`load`] reads them.
    pub nodes: Vec<Node>,
    /// Every animation, as [`load`] reads them; their channels name this file's nodes.
    pub clips: Vec<Clip>,
    /// What the loader worked around.
    pub warnings: Vec<Finding>,
}

/// Reads the nodes and clips of an animation file (`.glb` or `.gltf`), checked as
/// [`load`] checks them; its meshes are not read.
pub fn load_library(file: &Path, bytes: &[u8]) -> Result<Library, LoadError> {
    let container = container::split(file, bytes)?;
    let (root, _) = parse_json(file, container.json)?;
    check_extensions(file, &root)?;
    let buffers = load_buffers(file, &root, container.bin)?;
    let decoded = meshopt::decode_views(file, &root, &buffers)?;
    let reader = Reader { file, root: &root, buffers, decoded, values_read: Default::default() };
    let nodes = load_nodes(&reader)?;
    let model = Model { nodes, ..Model::default() };
    let mut warnings = Vec::new();
    let clips = load_clips(&reader, &model, &mut warnings)?;
    if clips.is_empty() {
        return Err(LoadError::new(file, ErrorKind::Invalid, "the file has no animations to play on the character")
            .with_hint("pass a file that holds animation clips with --animations"));
    }
    Ok(Library { nodes: model.nodes, clips, warnings })
}

/// Loads a model from the bytes of `file` (the path is used for messages and to
/// resolve external buffers).
///
/// ```
/// let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../fixtures/Fox/Fox.glb");
/// let bytes = vat_gltf::read_file(&path)?;
/// let loaded = vat_gltf::load(&path, &bytes, &vat_gltf::Options::default())?;
/// assert_eq!((loaded.model.points.len(), loaded.model.clips.len()), (1728, 3));
/// # Ok::<(), vat_gltf::LoadError>(())
/// ```
pub fn load(file: &Path, bytes: &[u8], options: &Options) -> Result<Loaded, LoadError> {
    let container = container::split(file, bytes)?;
    let (root, json) = parse_json(file, container.json)?;
    check_extensions(file, &root)?;
    let buffers = load_buffers(file, &root, container.bin)?;
    let decoded = meshopt::decode_views(file, &root, &buffers)?;
    let reader = Reader { file, root: &root, buffers, decoded, values_read: Default::default() };
    let mut warnings = Vec::new();
    let mut tally = influences::Tally::default();
    let mut first_set = Vec::new();

    let nodes = load_nodes(&reader)?;
    let scene_roots = scene_roots(&reader, &nodes, options.scene)?;
    let skins = load_skins(&reader)?;
    let mut model = Model { nodes, scene_roots, skins, ..Model::default() };
    let mut influences = Influences { keep: options.max_influences, tally: &mut tally, first_set: &mut first_set };
    load_parts(&reader, &mut model, &mut influences, &mut warnings)?;
    model.clips = load_clips(&reader, &model, &mut warnings)?;
    model.materials = materials::carry(file, &json, container.bin, &reader.buffers, &mut warnings);
    let first_influence_set = (tally.beyond_first_set > 0).then_some(first_set);
    warnings.extend(tally.findings(options.max_influences.is_none()));
    Ok(Loaded { model, warnings, first_influence_set })
}

/// The influence settings and what they came to, through the parts.
struct Influences<'a> {
    keep: Option<usize>,
    tally: &'a mut influences::Tally,
    /// Each point's first set, in point order.
    first_set: &'a mut Vec<([u16; 4], [f32; 4])>,
}

fn check_extensions(file: &Path, root: &Root) -> Result<(), LoadError> {
    for ext in &root.extensions_required {
        if UNDERSTOOD_EXTENSIONS.contains(&ext.as_str()) {
            continue;
        }
        return Err(LoadError::new(file, ErrorKind::Unsupported, format!("the model requires the extension {ext}"))
            .with_hint("re-export the model without this extension"));
    }
    Ok(())
}

/// Every buffer's bytes. The GLB binary chunk is borrowed from the file's bytes, not
/// copied: the model's bytes are held once. Data URIs and external files are owned.
fn load_buffers<'a>(file: &Path, root: &Root, bin: Option<&'a [u8]>) -> Result<Vec<Cow<'a, [u8]>>, LoadError> {
    root.buffers
        .iter()
        .enumerate()
        .map(|(index, buffer)| {
            let declared = buffer.byte_length.0 as usize;
            let data = match buffer.uri.as_deref() {
                None => match (index, bin) {
                    (0, Some(bin)) => Cow::Borrowed(bin),
                    // Its views are all decoded from compressed data elsewhere.
                    _ if meshopt::is_fallback(root, index) => return Ok(Cow::Borrowed(&[][..])),
                    _ => {
                        return Err(LoadError::new(
                            file,
                            ErrorKind::Invalid,
                            format!("buffer {index} has no uri and is not the GLB binary chunk"),
                        ))
                    }
                },
                Some(uri) => Cow::Owned(match container::decode_data_uri(file, uri) {
                    Some(decoded) => decoded?,
                    None => container::read_external(file, uri, &format!("buffer {index}"))?,
                }),
            };
            if data.len() < declared {
                return Err(LoadError::new(
                    file,
                    ErrorKind::Invalid,
                    format!("buffer {index} declares {declared} bytes but holds only {}", data.len()),
                )
                .with_hint("the buffer file is truncated or stale; export the model again"));
            }
            Ok(data)
        })
        .collect()
}

fn finite(values: &[f32]) -> bool {
    values.iter().all(|v| v.is_finite())
}

fn load_nodes(reader: &Reader) -> Result<Vec<Node>, LoadError> {
    let root = reader.root;
    let count = root.nodes.len();
    let mut nodes: Vec<Node> = Vec::with_capacity(count);
    for (index, node) in root.nodes.iter().enumerate() {
        let invalid = |m: String| LoadError::new(reader.file, ErrorKind::Invalid, format!("node {index}: {m}"));
        let rest = match node.matrix {
            Some(m) if node.translation.is_none() && node.rotation.is_none() && node.scale.is_none() => {
                if !finite(&m) {
                    return Err(invalid("its matrix has a NaN or infinite value".into()));
                }
                Local::Matrix(Mat4::from_cols_array(&m))
            }
            _ => {
                let t = node.translation.unwrap_or([0.0; 3]);
                let r = node.rotation.map_or([0.0, 0.0, 0.0, 1.0], |q| q.0);
                let s = node.scale.unwrap_or([1.0; 3]);
                if !finite(&t) || !finite(&r) || !finite(&s) {
                    return Err(invalid("its transform has a NaN or infinite value".into()));
                }
                let rotation = Quat::from_array(r);
                let rotation = if rotation.length_squared() > 0.0 { rotation.normalize() } else { Quat::IDENTITY };
                Local::Trs(Trs { translation: Vec3::from(t), rotation, scale: Vec3::from(s) })
            }
        };
        let children = node.children.as_deref().unwrap_or_default().iter().map(|c| c.value()).collect::<Vec<_>>();
        if let Some(&bad) = children.iter().find(|&&c| c >= count) {
            return Err(invalid(format!("child {bad} does not exist (the file has {count} nodes)")));
        }
        let mesh_weights = node.mesh.and_then(|m| root.meshes.get(m.value())).and_then(|m| m.weights.clone());
        let morph_weights = node.weights.clone().or(mesh_weights).unwrap_or_default();
        nodes.push(Node { name: node.name.clone(), parent: None, children, rest, morph_weights });
    }
    for index in 0..count {
        for child in nodes[index].children.clone() {
            if child == index || nodes[child].parent.is_some() {
                return Err(LoadError::new(
                    reader.file,
                    ErrorKind::Invalid,
                    format!("node {child} has more than one parent or is its own child"),
                ));
            }
            nodes[child].parent = Some(index);
        }
    }
    // A parent chain that loops never reaches a root. Walk every chain up to a node
    // already known to reach one: linear in the node count, even for a deep chain.
    let mut reaches_root = vec![false; count];
    let mut on_walk = vec![false; count];
    let mut walk = Vec::new();
    for start in 0..count {
        let mut at = Some(start);
        while let Some(node) = at.filter(|&n| !reaches_root[n]) {
            if std::mem::replace(&mut on_walk[node], true) {
                return Err(LoadError::new(
                    reader.file,
                    ErrorKind::Invalid,
                    format!("the node hierarchy has a cycle through node {start}"),
                ));
            }
            walk.push(node);
            at = nodes[node].parent;
        }
        for node in walk.drain(..) {
            reaches_root[node] = true;
        }
    }
    Ok(nodes)
}

fn scene_roots(reader: &Reader, nodes: &[Node], wanted: Option<usize>) -> Result<Vec<usize>, LoadError> {
    let root = reader.root;
    let scene = wanted.or(root.scene.map(|s| s.value()));
    let roots: Vec<usize> = match scene {
        Some(s) => {
            let scene = root.scenes.get(s).ok_or_else(|| {
                LoadError::new(
                    reader.file,
                    ErrorKind::Invalid,
                    format!("scene {s} does not exist (the file has {} scenes)", root.scenes.len()),
                )
                .with_hint("pick an existing scene with --scene")
            })?;
            scene.nodes.iter().map(|n| n.value()).collect()
        }
        None if !root.scenes.is_empty() => root.scenes[0].nodes.iter().map(|n| n.value()).collect(),
        None => (0..nodes.len()).filter(|&n| nodes[n].parent.is_none()).collect(),
    };
    if let Some(&bad) = roots.iter().find(|&&n| n >= nodes.len()) {
        return Err(LoadError::new(
            reader.file,
            ErrorKind::Invalid,
            format!("the scene names node {bad}, which does not exist"),
        ));
    }
    Ok(roots)
}

fn load_skins(reader: &Reader) -> Result<Vec<Skin>, LoadError> {
    let node_count = reader.root.nodes.len();
    reader
        .root
        .skins
        .iter()
        .enumerate()
        .map(|(index, skin)| {
            let joints: Vec<usize> = skin.joints.iter().map(|j| j.value()).collect();
            if let Some(&bad) = joints.iter().find(|&&j| j >= node_count) {
                return Err(LoadError::new(
                    reader.file,
                    ErrorKind::Invalid,
                    format!("skin {index} names joint node {bad}, which does not exist"),
                ));
            }
            let inverse_bind = match skin.inverse_bind_matrices {
                None => vec![Mat4::IDENTITY; joints.len()],
                Some(accessor) => {
                    let what = format!("skin {index} inverse bind matrices");
                    let (values, comps) = reader.read_f32(accessor.value(), &what)?;
                    if comps != 16 || values.len() / 16 < joints.len() {
                        return Err(LoadError::new(
                            reader.file,
                            ErrorKind::Invalid,
                            format!("{what}: {} MAT4 values for {} joints", values.len() / 16.max(comps), joints.len()),
                        ));
                    }
                    if !finite(&values) {
                        return Err(LoadError::new(
                            reader.file,
                            ErrorKind::Invalid,
                            format!("{what} contain NaN or infinite values"),
                        ));
                    }
                    values.chunks_exact(16).take(joints.len()).map(Mat4::from_cols_slice).collect()
                }
            };
            let skeleton = skin.skeleton.map(|n| n.value()).filter(|&n| n < node_count);
            Ok(Skin { name: skin.name.clone(), joints, inverse_bind, skeleton })
        })
        .collect()
}

/// Scene nodes in pre-order: a node, then its children in order.
fn scene_order(model: &Model) -> Vec<usize> {
    let mut order = Vec::new();
    let mut stack: Vec<usize> = model.scene_roots.iter().rev().copied().collect();
    let mut seen = vec![false; model.nodes.len()];
    while let Some(n) = stack.pop() {
        if std::mem::replace(&mut seen[n], true) {
            continue; // a root listed twice is baked once
        }
        order.push(n);
        stack.extend(model.nodes[n].children.iter().rev());
    }
    order
}

fn load_parts(
    reader: &Reader,
    model: &mut Model,
    influences: &mut Influences,
    warnings: &mut Vec<Finding>,
) -> Result<(), LoadError> {
    let root = reader.root;
    for node_index in scene_order(model) {
        let json_node = &root.nodes[node_index];
        let Some(mesh_index) = json_node.mesh.map(|m| m.value()) else { continue };
        let mesh = root.meshes.get(mesh_index).ok_or_else(|| {
            LoadError::new(
                reader.file,
                ErrorKind::Invalid,
                format!("node {node_index} names mesh {mesh_index}, which does not exist"),
            )
        })?;
        let skin = match json_node.skin.map(|s| s.value()) {
            Some(s) if s >= model.skins.len() => {
                return Err(LoadError::new(
                    reader.file,
                    ErrorKind::Invalid,
                    format!("node {node_index} names skin {s}, which does not exist"),
                ))
            }
            other => other,
        };
        for (primitive_index, primitive) in mesh.primitives.iter().enumerate() {
            let context = format!("mesh {mesh_index} primitive {primitive_index}");
            load_primitive(
                reader,
                model,
                node_index,
                mesh_index,
                primitive_index,
                primitive,
                skin,
                &context,
                influences,
                warnings,
            )?;
        }
    }
    if model.points.is_empty() {
        // Another scene with a mesh (a file whose default scene is an empty one).
        let root = reader.root;
        fn has_mesh(root: &Root, n: usize, depth: usize) -> bool {
            let Some(node) = root.nodes.get(n) else { return false };
            node.mesh.is_some()
                || depth < 64 && node.children.iter().flatten().any(|c| has_mesh(root, c.value(), depth + 1))
        }
        let other = (0..root.scenes.len()).find(|&s| root.scenes[s].nodes.iter().any(|n| has_mesh(root, n.value(), 0)));
        let hint = match other {
            Some(s) => format!("scene {s} has a mesh: pass --scene {s}"),
            None if !root.animations.is_empty() => "bake a model whose scene contains at least one mesh; \
                 a file of clips alone (an animation library) goes with --animations after the character it is for"
                .to_string(),
            None => "bake a model whose scene contains at least one mesh".to_string(),
        };
        return Err(
            LoadError::new(reader.file, ErrorKind::Invalid, "the scene has no mesh with points").with_hint(hint)
        );
    }
    Ok(())
}

#[allow(clippy::too_many_arguments)]
fn load_primitive(
    reader: &Reader,
    model: &mut Model,
    node: usize,
    mesh: usize,
    primitive_index: usize,
    primitive: &gltf::json::mesh::Primitive,
    skin: Option<usize>,
    context: &str,
    influences: &mut Influences,
    warnings: &mut Vec<Finding>,
) -> Result<(), LoadError> {
    let invalid = |m: String| LoadError::new(reader.file, ErrorKind::Invalid, format!("{context}: {m}"));
    let attribute = |semantic: Semantic| primitive.attributes.get(&Checked::Valid(semantic)).map(|a| a.value());
    // KHR_draco_mesh_compression: the attributes it names, and the indices, come
    // from the decoded stream; the rest (and morph targets) from their accessors.
    let draco = draco::decode(reader, primitive, context)?;
    warnings.extend(draco.as_ref().and_then(|d| d.count_note()));
    let read_f32 = |accessor: usize, semantic: Semantic, what: &str| {
        let decoded = draco.as_ref().and_then(|d| d.read_f32(reader, accessor, &semantic, what));
        decoded.unwrap_or_else(|| reader.read_f32(accessor, what))
    };
    let read_u32 = |accessor: usize, semantic: Semantic, what: &str| {
        let decoded = draco.as_ref().and_then(|d| d.read_u32(reader, accessor, &semantic, what));
        decoded.unwrap_or_else(|| reader.read_u32(accessor, what))
    };
    let position_accessor =
        attribute(Semantic::Positions).ok_or_else(|| invalid("it has no POSITION attribute".into()))?;
    let (positions, comps) = read_f32(position_accessor, Semantic::Positions, &format!("{context} POSITION"))?;
    if comps != 3 {
        return Err(invalid("POSITION is not VEC3".into()));
    }
    if !finite(&positions) {
        return Err(invalid("POSITION has NaN or infinite values".into()));
    }
    let count = positions.len() / 3;
    if model.points.len() + count > MAX_POINTS {
        return Err(LoadError::new(
            reader.file,
            ErrorKind::Unsupported,
            format!(
                "{context}: the scene has more than {MAX_POINTS} points ({} so far, this primitive adds {count})",
                model.points.len()
            ),
        )
        .with_hint("bake a smaller scene (--scene), or split the model"));
    }
    let read_vec = |semantic: Semantic, name: &str, want: usize| -> Result<Option<Vec<f32>>, LoadError> {
        let Some(a) = attribute(semantic.clone()) else { return Ok(None) };
        let (values, comps) = read_f32(a, semantic, &format!("{context} {name}"))?;
        if comps != want {
            return Err(invalid(format!("{name} has {comps} components, expected {want}")));
        }
        if values.len() != count * want {
            return Err(invalid(format!("{name} has {} elements but POSITION has {count}", values.len() / want)));
        }
        if !finite(&values) {
            return Err(invalid(format!("{name} has NaN or infinite values")));
        }
        Ok(Some(values))
    };
    let normals = read_vec(Semantic::Normals, "NORMAL", 3)?;
    let uvs = read_vec(Semantic::TexCoords(0), "TEXCOORD_0", 2)?;

    // Triangles, as indices local to this primitive.
    let mode = match primitive.mode {
        Checked::Valid(m) => m,
        Checked::Invalid => return Err(invalid("unknown primitive mode".into())),
    };
    let indices: Vec<u32> = match (&draco, primitive.indices) {
        (Some(d), _) => {
            let values = d.indices(reader)?;
            if let Some(&bad) = values.iter().find(|&&i| i as usize >= count) {
                return Err(invalid(format!("Draco index {bad} is out of range: the primitive has {count} points")));
            }
            values
        }
        (None, Some(a)) => {
            let (values, comps) = reader.read_u32(a.value(), &format!("{context} indices"))?;
            if comps != 1 {
                return Err(invalid("indices are not SCALAR".into()));
            }
            if let Some(&bad) = values.iter().find(|&&i| i as usize >= count) {
                return Err(invalid(format!("index {bad} is out of range: the primitive has {count} points")));
            }
            values
        }
        (None, None) => (0..count as u32).collect(),
    };
    let local_triangles: Vec<[u32; 3]> = match mode {
        Mode::Triangles => indices.chunks_exact(3).map(|t| [t[0], t[1], t[2]]).collect(),
        Mode::TriangleStrip => (2..indices.len())
            .map(|i| {
                if i % 2 == 0 {
                    [indices[i - 2], indices[i - 1], indices[i]]
                } else {
                    [indices[i - 1], indices[i - 2], indices[i]]
                }
            })
            .collect(),
        Mode::TriangleFan => (2..indices.len()).map(|i| [indices[0], indices[i - 1], indices[i]]).collect(),
        _ => {
            warnings.push(Finding::new(
                "points-or-lines",
                format!(
                    "{context} draws points or lines: its points are baked, the rest mesh has no triangles for them"
                ),
            ));
            Vec::new()
        }
    };

    // Joint influences: JOINTS_n/WEIGHTS_n sets, strongest kept, renormalized.
    let part_skin =
        skin.filter(|_| attribute(Semantic::Joints(0)).is_some() && attribute(Semantic::Weights(0)).is_some());
    if skin.is_some() && part_skin.is_none() {
        warnings.push(Finding::new(
            "no-joint-weights",
            format!("{context} is on a skinned node but has no JOINTS_0/WEIGHTS_0; it moves rigidly with its node"),
        ));
    }
    let mut joints = vec![[0u16; MAX_INFLUENCES]; count];
    let mut weights = vec![[0f32; MAX_INFLUENCES]; count];
    if let Some(skin_index) = part_skin {
        let joint_count = model.skins[skin_index].joints.len();
        // Every JOINTS_n/WEIGHTS_n set, checked; then each point's influences from all of them.
        let mut sets: Vec<(Vec<u32>, Vec<f32>)> = Vec::new();
        let mut set = 0;
        while let (Some(j), Some(w)) = (attribute(Semantic::Joints(set)), attribute(Semantic::Weights(set))) {
            let (jv, jc) = read_u32(j, Semantic::Joints(set), &format!("{context} JOINTS_{set}"))?;
            let (wv, wc) = read_f32(w, Semantic::Weights(set), &format!("{context} WEIGHTS_{set}"))?;
            if jc != 4 || wc != 4 || jv.len() != count * 4 || wv.len() != count * 4 {
                return Err(invalid(format!("JOINTS_{set}/WEIGHTS_{set} are not VEC4 with one element per point")));
            }
            for p in 0..count {
                for c in 0..4 {
                    let (joint, weight) = (jv[p * 4 + c], wv[p * 4 + c]);
                    if !weight.is_finite() || weight < 0.0 {
                        return Err(invalid(format!(
                            "WEIGHTS_{set} has a negative, NaN or infinite weight at point {p}"
                        )));
                    }
                    if weight > 0.0 && (joint as usize >= joint_count || joint > u32::from(u16::MAX)) {
                        return Err(invalid(format!(
                            "JOINTS_{set} names joint {joint} at point {p}, but the skin has {joint_count} joints \
                             (and at most 65536 are supported)"
                        )));
                    }
                }
            }
            sets.push((jv, wv));
            set += 1;
        }
        let combined = influences::combine(&sets, count, influences.keep.unwrap_or(MAX_INFLUENCES), influences.tally);
        if combined.unweighted > 0 {
            warnings.push(Finding::new(
                "unweighted-points",
                format!(
                    "{context}: {} points have no joint weight; they follow the skin's first joint",
                    combined.unweighted
                ),
            ));
        }
        joints = combined.joints;
        weights = combined.weights;
        influences.first_set.extend(combined.first_set);
    } else {
        influences.first_set.extend(std::iter::repeat_n(([0; 4], [1.0, 0.0, 0.0, 0.0]), count));
    }

    // Morph targets.
    let mut morph_targets = Vec::new();
    for (t, target) in primitive.targets.as_deref().unwrap_or_default().iter().enumerate() {
        let read_delta =
            |accessor: Option<gltf::json::Index<gltf::json::Accessor>>, name: &str| -> Result<Vec<Vec3>, LoadError> {
                let Some(a) = accessor else { return Ok(Vec::new()) };
                let (values, comps) = reader.read_f32(a.value(), &format!("{context} target {t} {name}"))?;
                if comps != 3 || values.len() != count * 3 {
                    return Err(invalid(format!("morph target {t} {name} does not have one VEC3 per point")));
                }
                if !finite(&values) {
                    return Err(invalid(format!("morph target {t} {name} has NaN or infinite values")));
                }
                Ok(values.chunks_exact(3).map(Vec3::from_slice).collect())
            };
        let mut positions = read_delta(target.positions, "POSITION")?;
        if positions.is_empty() {
            reader.charge(count * 3, &format!("{context} target {t}"))?;
            positions = vec![Vec3::ZERO; count];
        }
        morph_targets.push(MorphTarget { positions, normals: read_delta(target.normals, "NORMAL")? });
    }
    let node_weights = &mut model.nodes[node].morph_weights;
    if node_weights.len() < morph_targets.len() {
        node_weights.resize(morph_targets.len(), 0.0);
    }

    // Append to the model.
    let first_point = model.points.len();
    let first_triangle = model.triangles.len();
    let points = &mut model.points;
    points.positions.extend(positions.chunks_exact(3).map(Vec3::from_slice));
    match normals {
        Some(n) => {
            points.normals.extend(n.chunks_exact(3).map(|v| Vec3::from_slice(v).normalize_or(DEGENERATE_NORMAL)))
        }
        None => {
            let computed = vertex_normals(&points.positions[first_point..], &local_triangles);
            points.normals.extend(computed);
        }
    }
    match uvs {
        Some(uv) => points.uv0.extend(uv.chunks_exact(2).map(Vec2::from_slice)),
        None => points.uv0.extend(std::iter::repeat_n(Vec2::ZERO, count)),
    }
    points.joints.extend(joints);
    points.weights.extend(weights);
    let base = first_point as u32;
    model.triangles.extend(
        local_triangles
            .iter()
            .filter(|t| t[0] != t[1] && t[1] != t[2] && t[0] != t[2])
            .map(|t| [t[0] + base, t[1] + base, t[2] + base]),
    );
    let material = primitive.material.map(|m| m.value());
    model.parts.push(Part {
        node,
        mesh,
        primitive: primitive_index,
        material,
        skin: part_skin,
        first_point,
        point_count: count,
        first_triangle,
        triangle_count: model.triangles.len() - first_triangle,
        morph_targets,
    });
    Ok(())
}

/// Area-weighted vertex normals, for primitives that ship none.
fn vertex_normals(positions: &[Vec3], triangles: &[[u32; 3]]) -> Vec<Vec3> {
    let mut normals = vec![Vec3::ZERO; positions.len()];
    for t in triangles {
        let [a, b, c] = t.map(|i| positions[i as usize]);
        let face = (b - a).cross(c - a);
        for &i in t {
            normals[i as usize] += face;
        }
    }
    normals.into_iter().map(|n| n.normalize_or(DEGENERATE_NORMAL)).collect()
}

/// Every animation as a clip. A node's property animated twice in one animation
/// (the spec forbids it; some FBX converters write it): the last channel wins,
/// with one warning per file.
fn load_clips(reader: &Reader, model: &Model, warnings: &mut Vec<Finding>) -> Result<Vec<Clip>, LoadError> {
    let root = reader.root;
    let mut repeats: Vec<String> = Vec::new();
    let mut clips = Vec::with_capacity(root.animations.len());
    for (index, animation) in root.animations.iter().enumerate() {
        let label = match &animation.name {
            Some(n) => format!("animation {index} \"{n}\""),
            None => format!("animation {index}"),
        };
        let invalid = |m: String| LoadError::new(reader.file, ErrorKind::Invalid, format!("{label}: {m}"));
        let mut channels = Vec::with_capacity(animation.channels.len());
        for (c, channel) in animation.channels.iter().enumerate() {
            let node = channel.target.node.value();
            if node >= model.nodes.len() {
                return Err(invalid(format!("channel {c} targets node {node}, which does not exist")));
            }
            let Some(property) = node_property(&channel.target.path) else { continue };
            let sampler = animation.samplers.get(channel.sampler.value()).ok_or_else(|| {
                invalid(format!("channel {c} uses sampler {}, which does not exist", channel.sampler.value()))
            })?;
            let interpolation = match sampler.interpolation {
                Checked::Valid(JsonInterpolation::Step) => Interpolation::Step,
                Checked::Valid(JsonInterpolation::Linear) => Interpolation::Linear,
                Checked::Valid(JsonInterpolation::CubicSpline) => Interpolation::CubicSpline,
                Checked::Invalid => return Err(invalid(format!("channel {c} has an unknown interpolation"))),
            };
            let (times, comps) = reader.read_f32(sampler.input.value(), &format!("{label} channel {c} key times"))?;
            if comps != 1 || times.is_empty() {
                return Err(invalid(format!("channel {c} key times are empty or not SCALAR")));
            }
            if !finite(&times) {
                return Err(invalid(format!("channel {c} has NaN or infinite key times"))
                    .with_hint("the exporter wrote broken keyframes; re-export the animation"));
            }
            if times[0] < 0.0 || times.windows(2).any(|w| w[1] < w[0]) {
                return Err(invalid(format!("channel {c} key times are negative or not increasing")));
            }
            let (values, _) = reader.read_f32(sampler.output.value(), &format!("{label} channel {c} key values"))?;
            if !finite(&values) {
                return Err(invalid(format!("channel {c} has NaN or infinite key values"))
                    .with_hint("the exporter wrote broken keyframes; re-export the animation"));
            }
            let per_key = if interpolation == Interpolation::CubicSpline { 3 * times.len() } else { times.len() };
            let width = match property {
                Property::Translation | Property::Scale => 3,
                Property::Rotation => 4,
                Property::Weights => values.len() / per_key.max(1),
            };
            if width == 0 || values.len() != per_key * width {
                return Err(invalid(format!(
                    "channel {c} has {} key values for {} keys of width {width}",
                    values.len(),
                    times.len()
                )));
            }
            if property != Property::Weights && matches!(model.nodes[node].rest, Local::Matrix(_)) {
                return Err(invalid(format!(
                    "channel {c} animates node {node}, whose transform is a matrix (not allowed by glTF)"
                )));
            }
            channels.push(Channel { node, property, interpolation, times, values });
        }
        let before = channels.len();
        let mut seen = std::collections::HashSet::new();
        channels.reverse();
        channels.retain(|c| seen.insert((c.node, c.property)));
        channels.reverse();
        if channels.len() < before {
            let repeated = before - channels.len();
            let s = if repeated == 1 { " repeats" } else { "s repeat" };
            repeats.push(format!("{label}: {repeated} channel{s} a node's property"));
        }
        clips.push(Clip {
            name: animation.name.clone(),
            source_index: index,
            merged_from: Vec::new(),
            file: None,
            channels,
        });
    }
    if !repeats.is_empty() {
        let more =
            if repeats.len() > 3 { format!(" and {} more animations", repeats.len() - 3) } else { String::new() };
        warnings.push(Finding::new(
            "repeated-channels",
            format!(
                "{}{more} (the spec forbids it); the last of each is used",
                repeats[..repeats.len().min(3)].join("; ")
            ),
        ));
    }
    Ok(clips)
}

#[cfg(test)]
mod tests;
