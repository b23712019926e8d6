//! The rest mesh of a bone bake: the points in bind space with JOINTS_0/WEIGHTS_0
//! (and JOINTS_1/WEIGHTS_1 with eight influences) indexing the texture's
//! matrices, and a skin whose joints stand for those matrices: one node each, all
//! at the identity, so any glTF loader builds a skeleton with one bone per matrix
//! in texture order (Babylon.js's loader numbers bones by `skin.joints`), and the
//! mesh shows its bind pose until a player puts the texture's matrices in.

use glam::{Vec2, Vec3};
use serde_json::json;
use vat_gltf::write::{GlbBuffer, ARRAY_BUFFER, UNSIGNED_SHORT};
use vat_model::{Model, MAX_INFLUENCES};

/// Everything the GLB holds, as plain data.
pub struct BoneMesh<'a> {
    pub name: &'a str,
    pub generator: &'a str,
    pub model: &'a Model,
    /// Bind-space positions and normals of every point.
    pub positions: &'a [Vec3],
    pub normals: &'a [Vec3],
    /// Per point: matrix indices and weights, strongest first.
    pub joints: &'a [[u16; MAX_INFLUENCES]],
    pub weights: &'a [[f32; MAX_INFLUENCES]],
    /// 4 or 8.
    pub influences: usize,
    /// The name of each matrix's node (in texture order).
    pub joint_names: Vec<Option<String>>,
}

/// Serializes the rest mesh as GLB bytes. Deterministic: same input, same bytes.
pub fn write_glb(mesh: &BoneMesh) -> std::io::Result<Vec<u8>> {
    let model = mesh.model;
    let vertex_count = model.points.len();
    let mut buffer = GlbBuffer::default();
    let position = buffer.floats(
        &mesh.positions.iter().flat_map(|p| p.to_array()).collect::<Vec<f32>>(),
        Some(ARRAY_BUFFER),
        "VEC3",
        3,
        true,
    );
    let normal = buffer.floats(
        &mesh.normals.iter().flat_map(|n| n.to_array()).collect::<Vec<f32>>(),
        Some(ARRAY_BUFFER),
        "VEC3",
        3,
        false,
    );
    let uv0 = buffer.floats(
        &model.points.uv0.iter().flat_map(|v: &Vec2| v.to_array()).collect::<Vec<f32>>(),
        Some(ARRAY_BUFFER),
        "VEC2",
        2,
        false,
    );
    let mut sets = Vec::new();
    for set in 0..mesh.influences / 4 {
        let slots = set * 4..set * 4 + 4;
        let joints: Vec<u8> =
            mesh.joints.iter().flat_map(|j| j[slots.clone()].iter().flat_map(|&i| i.to_le_bytes())).collect();
        let joints = buffer.accessor(&joints, Some(ARRAY_BUFFER), UNSIGNED_SHORT, vertex_count, "VEC4");
        let weights: Vec<f32> = mesh.weights.iter().flat_map(|w| w[slots.clone()].to_vec()).collect();
        let weights = buffer.floats(&weights, Some(ARRAY_BUFFER), "VEC4", 4, false);
        sets.push((joints, weights));
    }

    let mut attributes = json!({ "POSITION": position, "NORMAL": normal, "TEXCOORD_0": uv0 });
    for (set, (joints, weights)) in sets.iter().enumerate() {
        attributes[format!("JOINTS_{set}")] = json!(joints);
        attributes[format!("WEIGHTS_{set}")] = json!(weights);
    }
    let primitives = crate::pipeline::rest_mesh::primitives(&mut buffer, model, vertex_count, &attributes);

    // Node 0 holds the mesh; node 1 is the first matrix's joint and the parent of the
    // others, so the skin has one common root that is itself a joint.
    let count = mesh.joint_names.len();
    let mut nodes = vec![json!({ "name": mesh.name, "mesh": 0, "skin": 0 })];
    for (index, name) in mesh.joint_names.iter().enumerate() {
        let mut node = json!({ "name": name.clone().unwrap_or_else(|| format!("matrix_{index}")) });
        if index == 0 && count > 1 {
            node["children"] = json!((2..count + 1).collect::<Vec<usize>>());
        }
        nodes.push(node);
    }
    let mut root = json!({
        "asset": { "version": "2.0", "generator": mesh.generator },
        "scene": 0,
        "scenes": [{ "nodes": [0, 1] }],
        "nodes": nodes,
        "meshes": [{ "name": mesh.name, "primitives": primitives }],
        "skins": [{ "name": mesh.name, "joints": (1..count + 1).collect::<Vec<usize>>(), "skeleton": 1 }],
    });
    buffer.carry_materials(&mut root, &model.materials);
    buffer.into_glb(root)
}
