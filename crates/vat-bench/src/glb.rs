//! Writing the generated model as a GLB: glTF JSON built with `serde_json`, one
//! binary buffer packed by hand.

use std::collections::HashMap;

use anyhow::{bail, Context, Result};
use glam::{Mat4, Vec3};
use serde_json::{json, Map, Value};
use vat_model::{Clip, Interpolation, Local, Model, Property};

use crate::mesh::Primitive;

const GLB_MAGIC: u32 = 0x4654_6C67;
const CHUNK_JSON: u32 = 0x4E4F_534A;
const CHUNK_BIN: u32 = 0x004E_4942;
const FLOAT: u32 = 5126;
const UNSIGNED_SHORT: u32 = 5123;
const UNSIGNED_INT: u32 = 5125;
const ARRAY_BUFFER: u32 = 34962;
const ELEMENT_ARRAY_BUFFER: u32 = 34963;

/// The glTF JSON of a `.glb` or `.gltf` file.
pub fn source_json(bytes: &[u8]) -> Result<Value> {
    let json = if bytes.len() >= 20 && u32::from_le_bytes([bytes[0], bytes[1], bytes[2], bytes[3]]) == GLB_MAGIC {
        let length = u32::from_le_bytes([bytes[12], bytes[13], bytes[14], bytes[15]]) as usize;
        bytes.get(20..20 + length).context("the GLB's JSON chunk runs past the end of the file")?
    } else {
        bytes
    };
    Ok(serde_json::from_slice(json)?)
}

/// Everything [`write_glb`] needs.
pub struct GlbInput<'a> {
    /// The loaded source: nodes, scene roots, skins and materials are copied from it.
    pub model: &'a Model,
    pub primitives: &'a [Primitive],
    pub clips: &'a [Clip],
    pub keep_images: bool,
    pub copyright: Option<&'a str>,
    pub source_name: &'a str,
}

/// Buffer views and accessors over one growing binary chunk.
#[derive(Default)]
struct Bin {
    bytes: Vec<u8>,
    views: Vec<Value>,
    accessors: Vec<Value>,
}

impl Bin {
    fn view(&mut self, data: &[u8], target: Option<u32>) -> usize {
        self.bytes.resize(self.bytes.len().next_multiple_of(4), 0);
        let mut view = json!({ "buffer": 0, "byteOffset": self.bytes.len(), "byteLength": data.len() });
        if let Some(target) = target {
            view["target"] = json!(target);
        }
        self.bytes.extend_from_slice(data);
        self.views.push(view);
        self.views.len() - 1
    }

    fn accessor(&mut self, data: &[u8], target: Option<u32>, component: u32, count: usize, kind: &str) -> usize {
        let view = self.view(data, target);
        self.accessors.push(json!({ "bufferView": view, "componentType": component, "count": count, "type": kind }));
        self.accessors.len() - 1
    }

    fn floats(&mut self, values: &[f32], target: Option<u32>, kind: &str, width: usize) -> usize {
        self.accessor(&f32_bytes(values), target, FLOAT, values.len() / width, kind)
    }

    /// A float VEC3 accessor with the `min`/`max` glTF requires for POSITION.
    fn vec3_bounded(&mut self, values: &[Vec3]) -> usize {
        let flat: Vec<f32> = values.iter().flat_map(|v| v.to_array()).collect();
        let index = self.floats(&flat, Some(ARRAY_BUFFER), "VEC3", 3);
        let min = values.iter().copied().fold(Vec3::splat(f32::INFINITY), Vec3::min);
        let max = values.iter().copied().fold(Vec3::splat(f32::NEG_INFINITY), Vec3::max);
        self.accessors[index]["min"] = json!(min.to_array());
        self.accessors[index]["max"] = json!(max.to_array());
        index
    }
}

fn f32_bytes(values: &[f32]) -> Vec<u8> {
    values.iter().flat_map(|v| v.to_le_bytes()).collect()
}

/// Writes the generated model as a GLB.
pub fn write_glb(input: &GlbInput) -> Result<Vec<u8>> {
    let model = input.model;
    let mut bin = Bin::default();

    // Meshes: one per node that holds primitives, in order of first appearance.
    let mut mesh_of_node: HashMap<usize, usize> = HashMap::new();
    let mut meshes: Vec<Vec<Value>> = Vec::new();
    let mut skin_of_node: HashMap<usize, usize> = HashMap::new();
    for p in input.primitives {
        let mesh = *mesh_of_node.entry(p.node).or_insert_with(|| {
            meshes.push(Vec::new());
            meshes.len() - 1
        });
        if let Some(skin) = p.skin {
            skin_of_node.insert(p.node, skin);
        }
        meshes[mesh].push(primitive_json(&mut bin, p, input.keep_images));
    }

    let skins: Vec<Value> = model
        .skins
        .iter()
        .map(|skin| {
            let matrices: Vec<f32> = skin.inverse_bind.iter().flat_map(Mat4::to_cols_array).collect();
            let ibm = bin.floats(&matrices, None, "MAT4", 16);
            let mut s = json!({ "joints": skin.joints, "inverseBindMatrices": ibm });
            if let Some(name) = &skin.name {
                s["name"] = json!(name);
            }
            s
        })
        .collect();

    let mut nodes: Vec<Value> = Vec::with_capacity(model.nodes.len());
    for (index, node) in model.nodes.iter().enumerate() {
        let mut n = Map::new();
        if let Some(name) = &node.name {
            n.insert("name".into(), json!(name));
        }
        if !node.children.is_empty() {
            n.insert("children".into(), json!(node.children));
        }
        match node.rest {
            Local::Matrix(m) => {
                n.insert("matrix".into(), json!(m.to_cols_array()));
            }
            Local::Trs(trs) => {
                if trs.translation != Vec3::ZERO {
                    n.insert("translation".into(), json!(trs.translation.to_array()));
                }
                if trs.rotation != glam::Quat::IDENTITY {
                    n.insert("rotation".into(), json!(trs.rotation.to_array()));
                }
                if trs.scale != Vec3::ONE {
                    n.insert("scale".into(), json!(trs.scale.to_array()));
                }
            }
        }
        if let Some(&mesh) = mesh_of_node.get(&index) {
            n.insert("mesh".into(), json!(mesh));
            let targets = input.primitives.iter().find(|p| p.node == index).map_or(0, |p| p.morph_positions.len());
            if targets > 0 && node.morph_weights.len() == targets {
                n.insert("weights".into(), json!(node.morph_weights));
            }
        }
        if let Some(&skin) = skin_of_node.get(&index) {
            n.insert("skin".into(), json!(skin));
        }
        nodes.push(Value::Object(n));
    }

    let mut times_accessor: HashMap<Vec<u32>, usize> = HashMap::new();
    let mut animations = Vec::with_capacity(input.clips.len());
    for clip in input.clips {
        let mut channels = Vec::new();
        let mut samplers = Vec::new();
        for channel in &clip.channels {
            let key: Vec<u32> = channel.times.iter().map(|t| t.to_bits()).collect();
            let input_accessor = *times_accessor.entry(key).or_insert_with(|| {
                let index = bin.floats(&channel.times, None, "SCALAR", 1);
                let (first, last) = (channel.times[0], channel.times[channel.times.len() - 1]);
                bin.accessors[index]["min"] = json!([first]);
                bin.accessors[index]["max"] = json!([last]);
                index
            });
            let (path, kind, width) = match channel.property {
                Property::Translation => ("translation", "VEC3", 3),
                Property::Rotation => ("rotation", "VEC4", 4),
                Property::Scale => ("scale", "VEC3", 3),
                Property::Weights => ("weights", "SCALAR", 1),
            };
            let output = bin.floats(&channel.values, None, kind, width);
            let interpolation = match channel.interpolation {
                Interpolation::Step => "STEP",
                Interpolation::Linear => "LINEAR",
                Interpolation::CubicSpline => "CUBICSPLINE",
            };
            samplers.push(json!({ "input": input_accessor, "output": output, "interpolation": interpolation }));
            channels.push(json!({ "sampler": samplers.len() - 1, "target": { "node": channel.node, "path": path } }));
        }
        animations.push(json!({ "name": clip.display_name(), "channels": channels, "samplers": samplers }));
    }

    let mut asset = json!({
        "version": "2.0",
        "generator": concat!("vat-bench gen-big-model ", env!("CARGO_PKG_VERSION")),
        "extras": { "source": input.source_name, "note": "subdivided for benchmarks; not for shipping" },
    });
    if let Some(copyright) = input.copyright {
        asset["copyright"] = json!(copyright);
    }
    let mut root = json!({
        "asset": asset,
        "scene": 0,
        "scenes": [{ "nodes": model.scene_roots }],
        "nodes": nodes,
        "meshes": meshes.into_iter().map(|primitives| json!({ "primitives": primitives })).collect::<Vec<_>>(),
    });
    if !skins.is_empty() {
        root["skins"] = json!(skins);
    }
    if !animations.is_empty() {
        root["animations"] = json!(animations);
    }
    if input.keep_images {
        add_materials(&mut root, &mut bin, model)?;
    }
    root["accessors"] = json!(bin.accessors);
    root["bufferViews"] = json!(bin.views);
    root["buffers"] = json!([{ "byteLength": bin.bytes.len() }]);
    pack_glb(&serde_json::to_vec(&root)?, bin.bytes)
}

fn primitive_json(bin: &mut Bin, p: &Primitive, keep_materials: bool) -> Value {
    let mut attributes = Map::new();
    attributes.insert("POSITION".into(), json!(bin.vec3_bounded(&p.positions)));
    let normals: Vec<f32> = p.normals.iter().flat_map(|n| n.to_array()).collect();
    attributes.insert("NORMAL".into(), json!(bin.floats(&normals, Some(ARRAY_BUFFER), "VEC3", 3)));
    if p.has_uv {
        let uvs: Vec<f32> = p.uv0.iter().flat_map(|v| v.to_array()).collect();
        attributes.insert("TEXCOORD_0".into(), json!(bin.floats(&uvs, Some(ARRAY_BUFFER), "VEC2", 2)));
    }
    if p.skin.is_some() {
        let joints: Vec<u8> = p.influences.iter().flat_map(|i| i.iter().flat_map(|&(j, _)| j.to_le_bytes())).collect();
        let weights: Vec<f32> = p.influences.iter().flat_map(|i| i.map(|(_, w)| w)).collect();
        let joints = bin.accessor(&joints, Some(ARRAY_BUFFER), UNSIGNED_SHORT, p.len(), "VEC4");
        attributes.insert("JOINTS_0".into(), json!(joints));
        attributes.insert("WEIGHTS_0".into(), json!(bin.floats(&weights, Some(ARRAY_BUFFER), "VEC4", 4)));
    }
    let targets: Vec<Value> = p
        .morph_positions
        .iter()
        .zip(&p.morph_normals)
        .map(|(positions, normals)| {
            let mut target = json!({ "POSITION": bin.vec3_bounded(positions) });
            if !normals.is_empty() {
                let flat: Vec<f32> = normals.iter().flat_map(|n| n.to_array()).collect();
                target["NORMAL"] = json!(bin.floats(&flat, Some(ARRAY_BUFFER), "VEC3", 3));
            }
            target
        })
        .collect();
    let indices: Vec<u8> = p.triangles.iter().flatten().flat_map(|i| i.to_le_bytes()).collect();
    let indices = bin.accessor(&indices, Some(ELEMENT_ARRAY_BUFFER), UNSIGNED_INT, p.triangles.len() * 3, "SCALAR");
    let mut primitive = json!({ "attributes": attributes, "indices": indices, "mode": 4 });
    if !targets.is_empty() {
        primitive["targets"] = json!(targets);
    }
    if let (true, Some(material)) = (keep_materials, p.material) {
        primitive["material"] = json!(material);
    }
    primitive
}

/// Materials, textures, samplers and images as the loader carried them, the
/// image bytes stored in the binary chunk.
fn add_materials(root: &mut Value, bin: &mut Bin, model: &Model) -> Result<()> {
    let set = &model.materials;
    if set.materials.is_empty() {
        return Ok(());
    }
    if set.images.len() != set.image_data.len() {
        bail!("the source has {} images but {} image payloads", set.images.len(), set.image_data.len());
    }
    let images: Vec<Value> = set
        .images
        .iter()
        .zip(&set.image_data)
        .map(|(image, data)| {
            let mut image = image.clone();
            image["bufferView"] = json!(bin.view(&data.bytes, None));
            image["mimeType"] = json!(data.mime_type);
            image
        })
        .collect();
    root["materials"] = json!(set.materials);
    for (key, list) in [("textures", &set.textures), ("samplers", &set.samplers)] {
        if !list.is_empty() {
            root[key] = json!(list);
        }
    }
    if !images.is_empty() {
        root["images"] = json!(images);
    }
    if !set.extensions_used.is_empty() {
        root["extensionsUsed"] = json!(set.extensions_used);
    }
    if !set.extensions_required.is_empty() {
        root["extensionsRequired"] = json!(set.extensions_required);
    }
    Ok(())
}

/// A GLB container: 12-byte header, JSON chunk padded with spaces, BIN chunk
/// padded with zeros, both to four bytes.
fn pack_glb(json: &[u8], mut bin: Vec<u8>) -> Result<Vec<u8>> {
    let mut json = json.to_vec();
    json.resize(json.len().next_multiple_of(4), b' ');
    bin.resize(bin.len().next_multiple_of(4), 0);
    let total = 12 + 8 + json.len() + 8 + bin.len();
    let total = u32::try_from(total).context("the model is over 4 GiB, too large for a GLB")?;
    let mut out = Vec::with_capacity(total as usize);
    for word in [GLB_MAGIC, 2, total, json.len() as u32, CHUNK_JSON] {
        out.extend_from_slice(&word.to_le_bytes());
    }
    out.extend_from_slice(&json);
    out.extend_from_slice(&(bin.len() as u32).to_le_bytes());
    out.extend_from_slice(&CHUNK_BIN.to_le_bytes());
    out.extend_from_slice(&bin);
    Ok(out)
}
