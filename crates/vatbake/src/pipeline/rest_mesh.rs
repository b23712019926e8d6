//! The rest-pose mesh: a GLB of the baked points in the texture's space, with
//! TEXCOORD_1 pointing each point at its texture column, and the source's
//! materials and textures carried over.

use glam::{Vec2, Vec3};
use serde_json::json;
use vat_gltf::write::{GlbBuffer, ARRAY_BUFFER, ELEMENT_ARRAY_BUFFER, UNSIGNED_INT, UNSIGNED_SHORT};
use vat_model::{Columns, Layout, Model};

/// Everything the GLB holds, as plain data.
pub struct RestMesh<'a> {
    pub name: &'a str,
    pub generator: &'a str,
    pub model: &'a Model,
    /// Rest-pose positions and normals of every point, in texture space.
    pub positions: &'a [Vec3],
    pub normals: &'a [Vec3],
    pub layout: &'a Layout,
    /// The column of each point.
    pub columns: &'a Columns,
    /// Corners of the box around the animation bounds and the rest pose; written as
    /// two extra, unreferenced vertices
    /// so POSITION min/max (and any engine's bounding volume) cover every frame.
    pub bounds_min: Vec3,
    pub bounds_max: Vec3,
    /// TEXCOORD_1 of every point when another format addresses the texture its own
    /// way (`--format`); `None`: the column uv of docs/FORMAT.md.
    pub uv1: Option<&'a [Vec2]>,
    /// TEXCOORD_1 of the two bounds corners; `None`: column 0's uv, or the first
    /// point's with `uv1`. A level of detail (`--lods`) gives column 0's, which it may
    /// not keep, so a reader finds the texture's width from the smallest u as in the rest mesh.
    pub corner_uv: Option<[f32; 2]>,
    /// One primitive per material, the parts sharing it merged (`--format vat3`: three-vat
    /// plays the first mesh it finds); `false`: one primitive per part.
    pub merge_materials: bool,
}

/// Serializes the rest mesh as GLB bytes. Deterministic: same input, same bytes.
pub fn write_glb(mesh: &RestMesh) -> std::io::Result<Vec<u8>> {
    let model = mesh.model;
    let points = model.points.len();
    let vertex_count = points + 2;
    let mut buffer = GlbBuffer::default();
    let mut attribute = |values: Vec<f32>, kind: &str, width: usize, bounds: bool| {
        debug_assert_eq!(values.len(), vertex_count * width);
        buffer.floats(&values, Some(ARRAY_BUFFER), kind, width, bounds)
    };
    let corners = [mesh.bounds_min, mesh.bounds_max];
    let position =
        attribute(mesh.positions.iter().chain(&corners).flat_map(|p| p.to_array()).collect(), "VEC3", 3, true);
    let normal = attribute(
        mesh.normals.iter().chain(&[Vec3::Y, Vec3::Y]).flat_map(|n| n.to_array()).collect(),
        "VEC3",
        3,
        false,
    );
    let uv0 = attribute(
        model.points.uv0.iter().chain(&[Vec2::ZERO, Vec2::ZERO]).flat_map(|v| v.to_array()).collect(),
        "VEC2",
        2,
        false,
    );
    let column_uv = |p: usize| match mesh.uv1 {
        Some(uv1) => uv1[p].to_array(),
        None => mesh.layout.column_uv(mesh.columns.column(p)),
    };
    let corner_uv = match (mesh.corner_uv, mesh.uv1) {
        (Some(uv), _) => uv,
        (None, Some(uv1)) => uv1.first().map_or([0.0; 2], |uv| uv.to_array()),
        (None, None) => mesh.layout.column_uv(0),
    };
    let uv1 = attribute((0..points).map(column_uv).chain([corner_uv, corner_uv]).flatten().collect(), "VEC2", 2, false);

    let attributes = json!({ "POSITION": position, "NORMAL": normal, "TEXCOORD_0": uv0, "TEXCOORD_1": uv1 });
    let primitives = if mesh.merge_materials {
        primitives_by_material(&mut buffer, model, vertex_count, &attributes)
    } else {
        primitives(&mut buffer, model, vertex_count, &attributes)
    };

    let mut root = json!({
        "asset": { "version": "2.0", "generator": mesh.generator },
        "scene": 0,
        "scenes": [{ "nodes": [0] }],
        "nodes": [{ "name": mesh.name, "mesh": 0 }],
        "meshes": [{ "name": mesh.name, "primitives": primitives }],
    });
    buffer.carry_materials(&mut root, &model.materials);
    buffer.into_glb(root)
}

/// One primitive per part with triangles, each with `attributes`, its own indices
/// (16-bit when the vertices allow) and its material: the rest meshes' shared shape.
pub(crate) fn primitives(
    buffer: &mut GlbBuffer,
    model: &Model,
    vertex_count: usize,
    attributes: &serde_json::Value,
) -> Vec<serde_json::Value> {
    let groups = model.parts.iter().filter(|p| p.triangle_count > 0).map(|part| (part.material, vec![part]));
    groups.map(|(material, parts)| primitive(buffer, model, &parts, material, vertex_count, attributes)).collect()
}

/// One primitive per material (and one for the parts without), in the order the
/// materials first appear: the parts' triangles in part order.
fn primitives_by_material(
    buffer: &mut GlbBuffer,
    model: &Model,
    vertex_count: usize,
    attributes: &serde_json::Value,
) -> Vec<serde_json::Value> {
    let mut groups: Vec<(Option<usize>, Vec<&vat_model::Part>)> = Vec::new();
    for part in model.parts.iter().filter(|p| p.triangle_count > 0) {
        match groups.iter_mut().find(|(material, _)| *material == part.material) {
            Some((_, parts)) => parts.push(part),
            None => groups.push((part.material, vec![part])),
        }
    }
    groups
        .iter()
        .map(|(material, parts)| primitive(buffer, model, parts, *material, vertex_count, attributes))
        .collect()
}

/// A primitive of `parts`' triangles with `attributes`, its indices (16-bit when the
/// vertices allow) and `material`.
fn primitive(
    buffer: &mut GlbBuffer,
    model: &Model,
    parts: &[&vat_model::Part],
    material: Option<usize>,
    vertex_count: usize,
    attributes: &serde_json::Value,
) -> serde_json::Value {
    let triangles = parts.iter().flat_map(|part| &model.triangles[part.triangles()]);
    let count = parts.iter().map(|part| part.triangle_count).sum::<usize>();
    let (data, component) = if vertex_count <= u16::MAX as usize {
        (triangles.flatten().flat_map(|&i| (i as u16).to_le_bytes()).collect::<Vec<u8>>(), UNSIGNED_SHORT)
    } else {
        (triangles.flatten().flat_map(|&i| i.to_le_bytes()).collect::<Vec<u8>>(), UNSIGNED_INT)
    };
    let indices = buffer.accessor(&data, Some(ELEMENT_ARRAY_BUFFER), component, count * 3, "SCALAR");
    let mut primitive = json!({ "attributes": attributes, "indices": indices });
    if let Some(material) = material.filter(|&m| m < model.materials.materials.len()) {
        primitive["material"] = json!(material);
    }
    primitive
}
