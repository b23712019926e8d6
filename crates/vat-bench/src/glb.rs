//! Writing the generated model as a GLB: glTF JSON built with `serde_json`, one
//! binary buffer packed by hand.

use std::collections::HashMap;

use anyhow::Result;
use glam::{Mat4, Vec3};
use serde_json::{json, Map, Value};
use vat_model::{Clip, Interpolation, Local, Model, Property};

use crate::mesh::Primitive;

use vat_gltf::write::{GlbBuffer, ARRAY_BUFFER, ELEMENT_ARRAY_BUFFER, UNSIGNED_INT, UNSIGNED_SHORT};

/// Everything [`write_glb`] needs.
pub struct GlbInput<'a> {
    /// The loaded source: nodes, scene roots, skins and materials are copied from it.
    pub model: &'a Model,
    /// The mesh primitives to write, one glTF mesh primitive each.
    pub primitives: &'a [Primitive],
    /// The clips to write as animations.
    pub clips: &'a [Clip],
    /// Embed the source's images; without them materials are dropped.
    pub keep_images: bool,
    /// The source's `asset.copyright`, carried over.
    pub copyright: Option<&'a str>,
    /// The source file's name, recorded in `asset.extras`.
    pub source_name: &'a str,
}

/// Writes the generated model as a GLB.
pub fn write_glb(input: &GlbInput) -> Result<Vec<u8>> {
    let model = input.model;
    let mut bin = GlbBuffer::default();

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
            let ibm = bin.floats(&matrices, None, "MAT4", 16, false);
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
            let input_accessor =
                *times_accessor.entry(key).or_insert_with(|| bin.floats(&channel.times, None, "SCALAR", 1, true));
            let (path, kind, width) = match channel.property {
                Property::Translation => ("translation", "VEC3", 3),
                Property::Rotation => ("rotation", "VEC4", 4),
                Property::Scale => ("scale", "VEC3", 3),
                Property::Weights => ("weights", "SCALAR", 1),
            };
            let output = bin.floats(&channel.values, None, kind, width, false);
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
        bin.carry_materials(&mut root, &model.materials);
    }
    Ok(bin.into_glb(root)?)
}

/// A float VEC3 vertex accessor with the `min`/`max` glTF requires for POSITION.
fn vec3_bounded(bin: &mut GlbBuffer, values: &[Vec3]) -> usize {
    let flat: Vec<f32> = values.iter().flat_map(|v| v.to_array()).collect();
    bin.floats(&flat, Some(ARRAY_BUFFER), "VEC3", 3, true)
}

fn primitive_json(bin: &mut GlbBuffer, p: &Primitive, keep_materials: bool) -> Value {
    let mut attributes = Map::new();
    attributes.insert("POSITION".into(), json!(vec3_bounded(bin, &p.positions)));
    let normals: Vec<f32> = p.normals.iter().flat_map(|n| n.to_array()).collect();
    attributes.insert("NORMAL".into(), json!(bin.floats(&normals, Some(ARRAY_BUFFER), "VEC3", 3, false)));
    if p.has_uv {
        let uvs: Vec<f32> = p.uv0.iter().flat_map(|v| v.to_array()).collect();
        attributes.insert("TEXCOORD_0".into(), json!(bin.floats(&uvs, Some(ARRAY_BUFFER), "VEC2", 2, false)));
    }
    if p.skin.is_some() {
        let joints: Vec<u8> = p.influences.iter().flat_map(|i| i.iter().flat_map(|&(j, _)| j.to_le_bytes())).collect();
        let weights: Vec<f32> = p.influences.iter().flat_map(|i| i.map(|(_, w)| w)).collect();
        let joints = bin.accessor(&joints, Some(ARRAY_BUFFER), UNSIGNED_SHORT, p.len(), "VEC4");
        attributes.insert("JOINTS_0".into(), json!(joints));
        attributes.insert("WEIGHTS_0".into(), json!(bin.floats(&weights, Some(ARRAY_BUFFER), "VEC4", 4, false)));
    }
    let targets: Vec<Value> = p
        .morph_positions
        .iter()
        .zip(&p.morph_normals)
        .map(|(positions, normals)| {
            let mut target = json!({ "POSITION": vec3_bounded(bin, positions) });
            if !normals.is_empty() {
                let flat: Vec<f32> = normals.iter().flat_map(|n| n.to_array()).collect();
                target["NORMAL"] = json!(bin.floats(&flat, Some(ARRAY_BUFFER), "VEC3", 3, false));
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
