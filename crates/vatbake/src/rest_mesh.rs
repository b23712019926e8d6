//! The rest-pose mesh: a GLB of the baked points in the texture's space, with
//! TEXCOORD_1 pointing each point at its texture column, and the source's
//! materials and textures carried over.

use glam::{Vec2, Vec3};
use serde_json::{json, Value};
use vat_model::{Layout, MaterialSet, Model};

const ARRAY_BUFFER: u32 = 34962;
const ELEMENT_ARRAY_BUFFER: u32 = 34963;
const FLOAT: u32 = 5126;
const UNSIGNED_SHORT: u32 = 5123;
const UNSIGNED_INT: u32 = 5125;

/// Everything the GLB holds, as plain data.
pub struct RestMesh<'a> {
    pub name: &'a str,
    pub generator: &'a str,
    pub model: &'a Model,
    /// Rest-pose positions and normals of every point, in texture space.
    pub positions: &'a [Vec3],
    pub normals: &'a [Vec3],
    pub layout: &'a Layout,
    /// Corners of the animation bounds; written as two extra, unreferenced vertices
    /// so POSITION min/max (and any engine's bounding volume) cover every frame.
    pub bounds_min: Vec3,
    pub bounds_max: Vec3,
}

#[derive(Default)]
struct Bin {
    bytes: Vec<u8>,
    views: Vec<Value>,
}

impl Bin {
    fn push(&mut self, data: &[u8], target: Option<u32>, stride: Option<usize>) -> usize {
        while !self.bytes.len().is_multiple_of(4) {
            self.bytes.push(0);
        }
        let mut view = json!({ "buffer": 0, "byteOffset": self.bytes.len(), "byteLength": data.len() });
        if let Some(t) = target {
            view["target"] = json!(t);
        }
        if let Some(s) = stride {
            view["byteStride"] = json!(s);
        }
        self.bytes.extend_from_slice(data);
        self.views.push(view);
        self.views.len() - 1
    }
}

fn floats<const N: usize>(values: impl Iterator<Item = [f32; N]>) -> (Vec<u8>, [f32; N], [f32; N]) {
    let mut bytes = Vec::new();
    let mut min = [f32::INFINITY; N];
    let mut max = [f32::NEG_INFINITY; N];
    for v in values {
        for c in 0..N {
            min[c] = min[c].min(v[c]);
            max[c] = max[c].max(v[c]);
            bytes.extend_from_slice(&v[c].to_le_bytes());
        }
    }
    (bytes, min, max)
}

fn accessor_type(n: usize) -> &'static str {
    match n {
        2 => "VEC2",
        3 => "VEC3",
        _ => "VEC4",
    }
}

/// Serializes the rest mesh as GLB bytes. Deterministic: same input, same bytes.
pub fn write_glb(mesh: &RestMesh) -> Vec<u8> {
    let model = mesh.model;
    let points = model.points.len();
    let vertex_count = points + 2;
    let mut bin = Bin::default();
    let mut accessors: Vec<Value> = Vec::new();
    let mut attribute = |bin: &mut Bin, data: (Vec<u8>, Vec<f32>, Vec<f32>), n: usize, with_bounds: bool| {
        let view = bin.push(&data.0, Some(ARRAY_BUFFER), None);
        let mut a =
            json!({ "bufferView": view, "componentType": FLOAT, "count": vertex_count, "type": accessor_type(n) });
        if with_bounds {
            a["min"] = json!(data.1);
            a["max"] = json!(data.2);
        }
        accessors.push(a);
        accessors.len() - 1
    };
    let widen = |(b, lo, hi): (Vec<u8>, [f32; 3], [f32; 3])| (b, lo.to_vec(), hi.to_vec());
    let widen2 = |(b, lo, hi): (Vec<u8>, [f32; 2], [f32; 2])| (b, lo.to_vec(), hi.to_vec());

    let corners = [mesh.bounds_min, mesh.bounds_max];
    let position =
        attribute(&mut bin, widen(floats(mesh.positions.iter().chain(corners.iter()).map(|p| p.to_array()))), 3, true);
    let normal = attribute(
        &mut bin,
        widen(floats(mesh.normals.iter().copied().chain([Vec3::Y, Vec3::Y]).map(|n| n.to_array()))),
        3,
        false,
    );
    let uv0 = attribute(
        &mut bin,
        widen2(floats(model.points.uv0.iter().copied().chain([Vec2::ZERO, Vec2::ZERO]).map(|v| v.to_array()))),
        2,
        false,
    );
    let corner_uv = mesh.layout.column_uv(0);
    let uv1 = attribute(
        &mut bin,
        widen2(floats((0..points).map(|p| mesh.layout.column_uv(p)).chain([corner_uv, corner_uv]))),
        2,
        false,
    );

    let mut primitives = Vec::new();
    for part in model.parts.iter().filter(|p| p.triangle_count > 0) {
        let triangles = &model.triangles[part.triangles()];
        let (data, component) = if vertex_count <= u16::MAX as usize {
            (triangles.iter().flatten().flat_map(|&i| (i as u16).to_le_bytes()).collect::<Vec<u8>>(), UNSIGNED_SHORT)
        } else {
            (triangles.iter().flatten().flat_map(|&i| i.to_le_bytes()).collect::<Vec<u8>>(), UNSIGNED_INT)
        };
        let view = bin.push(&data, Some(ELEMENT_ARRAY_BUFFER), None);
        accessors.push(
            json!({ "bufferView": view, "componentType": component, "count": triangles.len() * 3, "type": "SCALAR" }),
        );
        let mut primitive = json!({
            "attributes": { "POSITION": position, "NORMAL": normal, "TEXCOORD_0": uv0, "TEXCOORD_1": uv1 },
            "indices": accessors.len() - 1,
        });
        if let Some(material) = part.material.filter(|&m| m < model.materials.materials.len()) {
            primitive["material"] = json!(material);
        }
        primitives.push(primitive);
    }

    let mut root = json!({
        "asset": { "version": "2.0", "generator": mesh.generator },
        "scene": 0,
        "scenes": [{ "nodes": [0] }],
        "nodes": [{ "name": mesh.name, "mesh": 0 }],
        "meshes": [{ "name": mesh.name, "primitives": primitives }],
    });
    carry_materials(&mut root, &model.materials, &mut bin);
    root["accessors"] = Value::Array(accessors);
    root["bufferViews"] = Value::Array(std::mem::take(&mut bin.views));
    root["buffers"] = json!([{ "byteLength": bin.bytes.len() }]);
    glb(&root, bin.bytes)
}

fn carry_materials(root: &mut Value, set: &MaterialSet, bin: &mut Bin) {
    if set.materials.is_empty() {
        return;
    }
    root["materials"] = Value::Array(set.materials.clone());
    if !set.textures.is_empty() {
        root["textures"] = Value::Array(set.textures.clone());
    }
    if !set.samplers.is_empty() {
        root["samplers"] = Value::Array(set.samplers.clone());
    }
    if !set.images.is_empty() {
        let images = set
            .images
            .iter()
            .zip(&set.image_data)
            .map(|(image, data)| {
                let mut image = image.clone();
                image["bufferView"] = json!(bin.push(&data.bytes, None, None));
                image
            })
            .collect();
        root["images"] = Value::Array(images);
    }
    if !set.extensions_used.is_empty() {
        root["extensionsUsed"] = json!(set.extensions_used);
    }
    if !set.extensions_required.is_empty() {
        root["extensionsRequired"] = json!(set.extensions_required);
    }
}

/// Packs JSON and binary chunks into a GLB container.
fn glb(root: &Value, mut bin: Vec<u8>) -> Vec<u8> {
    let mut json = serde_json::to_vec(root).expect("JSON values always serialize");
    while !json.len().is_multiple_of(4) {
        json.push(b' ');
    }
    while !bin.len().is_multiple_of(4) {
        bin.push(0);
    }
    let total = 12 + 8 + json.len() + 8 + bin.len();
    let mut out = Vec::with_capacity(total);
    out.extend_from_slice(b"glTF");
    out.extend_from_slice(&2u32.to_le_bytes());
    out.extend_from_slice(&(total as u32).to_le_bytes());
    out.extend_from_slice(&(json.len() as u32).to_le_bytes());
    out.extend_from_slice(b"JSON");
    out.extend_from_slice(&json);
    out.extend_from_slice(&(bin.len() as u32).to_le_bytes());
    out.extend_from_slice(b"BIN\0");
    out.extend_from_slice(&bin);
    out
}
