//! The rest-pose mesh: a GLB of the baked points in the texture's space, with
//! TEXCOORD_1 pointing each point at its texture column, and the source's
//! materials and textures carried over.

use glam::{Vec2, Vec3};
use serde_json::json;
use vat_description::RestMeshEncoding;
use vat_gltf::write::{
    GlbBuffer, MeshoptMode, ARRAY_BUFFER, ELEMENT_ARRAY_BUFFER, FLOAT, SHORT, UNSIGNED_INT, UNSIGNED_SHORT,
};
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
    /// How the vertices and triangles are stored (`--rest-mesh`).
    pub encoding: RestMeshEncoding,
}

/// Serializes the rest mesh as GLB bytes. Deterministic: same input, same bytes.
pub fn write_glb(mesh: &RestMesh) -> std::io::Result<Vec<u8>> {
    let model = mesh.model;
    let points = model.points.len();
    let vertex_count = points + 2;
    let mut buffer = GlbBuffer::default();
    let meshopt = mesh.encoding == RestMeshEncoding::Meshopt;
    let corners = [mesh.bounds_min, mesh.bounds_max];
    let positions: Vec<f32> = mesh.positions.iter().chain(&corners).flat_map(|p| p.to_array()).collect();
    let normals: Vec<f32> = mesh.normals.iter().chain(&[Vec3::Y, Vec3::Y]).flat_map(|n| n.to_array()).collect();
    let uv0s: Vec<f32> = model.points.uv0.iter().chain(&[Vec2::ZERO, Vec2::ZERO]).flat_map(|v| v.to_array()).collect();
    let (position, normal, uv0) = if meshopt {
        let position = meshopt_floats(&mut buffer, &positions, "VEC3", 3);
        let (min, max) = bounds_of(&positions);
        buffer.set_bounds(position, &min, &max);
        (position, meshopt_normals(&mut buffer, &normals), meshopt_uv0(&mut buffer, &uv0s))
    } else {
        let mut attribute = |values: &[f32], kind: &str, width: usize, bounds: bool| {
            debug_assert_eq!(values.len(), vertex_count * width);
            buffer.floats(values, Some(ARRAY_BUFFER), kind, width, bounds)
        };
        (
            attribute(&positions, "VEC3", 3, true),
            attribute(&normals, "VEC3", 3, false),
            attribute(&uv0s, "VEC2", 2, false),
        )
    };
    let column_uv = |p: usize| match mesh.uv1 {
        Some(uv1) => uv1[p].to_array(),
        None => mesh.layout.column_uv(mesh.columns.column(p)),
    };
    let corner_uv = match (mesh.corner_uv, mesh.uv1) {
        (Some(uv), _) => uv,
        (None, Some(uv1)) => uv1.first().map_or([0.0; 2], |uv| uv.to_array()),
        (None, None) => mesh.layout.column_uv(0),
    };
    let uv1s: Vec<f32> = (0..points).map(column_uv).chain([corner_uv, corner_uv]).flatten().collect();
    // The column uv stays float: quantized, a column's centre moves by up to half a
    // step of the integer grid, which on a wide texture is more than half a texel.
    let uv1 = if meshopt {
        meshopt_floats(&mut buffer, &uv1s, "VEC2", 2)
    } else {
        buffer.floats(&uv1s, Some(ARRAY_BUFFER), "VEC2", 2, false)
    };

    let attributes = json!({ "POSITION": position, "NORMAL": normal, "TEXCOORD_0": uv0, "TEXCOORD_1": uv1 });
    let primitives = if mesh.merge_materials {
        primitives_by_material(&mut buffer, model, vertex_count, &attributes, mesh.encoding)
    } else {
        primitives_encoded(&mut buffer, model, vertex_count, &attributes, mesh.encoding)
    };

    let mut root = json!({
        "asset": { "version": "2.0", "generator": mesh.generator },
        "scene": 0,
        "scenes": [{ "nodes": [0] }],
        "nodes": [{ "name": mesh.name, "mesh": 0 }],
        "meshes": [{ "name": mesh.name, "primitives": primitives }],
    });
    buffer.carry_materials(&mut root, &model.materials);
    if meshopt {
        declare_extensions(&mut root);
    }
    buffer.into_glb(root)
}

/// A static mesh as GLB bytes: `model`'s points (positions, normals, uv0, all floats),
/// its parts' triangles (one primitive per part, as [`write_glb`] writes them) and its
/// materials, under one node named `name`: `vatbake pose`'s frozen pose. Every point
/// is written, so the caller drops the ones no triangle uses. Deterministic.
pub(crate) fn write_static_glb(name: &str, generator: &str, model: &Model) -> std::io::Result<Vec<u8>> {
    let points = &model.points;
    let mut buffer = GlbBuffer::default();
    let floats3 = |values: &[Vec3]| values.iter().flat_map(|v| v.to_array()).collect::<Vec<f32>>();
    let uv0: Vec<f32> = points.uv0.iter().flat_map(|v| v.to_array()).collect();
    let position = buffer.floats(&floats3(&points.positions), Some(ARRAY_BUFFER), "VEC3", 3, true);
    let normal = buffer.floats(&floats3(&points.normals), Some(ARRAY_BUFFER), "VEC3", 3, false);
    let uv0 = buffer.floats(&uv0, Some(ARRAY_BUFFER), "VEC2", 2, false);
    let attributes = json!({ "POSITION": position, "NORMAL": normal, "TEXCOORD_0": uv0 });
    let primitives = primitives(&mut buffer, model, points.len(), &attributes);
    let mut root = json!({
        "asset": { "version": "2.0", "generator": generator },
        "scene": 0,
        "scenes": [{ "nodes": [0] }],
        "nodes": [{ "name": name, "mesh": 0 }],
        "meshes": [{ "name": name, "primitives": primitives }],
    });
    buffer.carry_materials(&mut root, &model.materials);
    buffer.into_glb(root)
}

/// Adds the meshopt rest mesh's extensions to those the materials carried, as used
/// and required (a reader without them cannot read a vertex).
fn declare_extensions(root: &mut serde_json::Value) {
    for key in ["extensionsUsed", "extensionsRequired"] {
        let mut list: Vec<serde_json::Value> = root[key].as_array().cloned().unwrap_or_default();
        for name in ["EXT_meshopt_compression", "KHR_mesh_quantization"] {
            if !list.iter().any(|v| v == name) {
                list.push(json!(name));
            }
        }
        root[key] = json!(list);
    }
}

/// Per-component minimum and maximum of VEC3 `values`.
fn bounds_of(values: &[f32]) -> ([f32; 3], [f32; 3]) {
    let mut min = [f32::INFINITY; 3];
    let mut max = [f32::NEG_INFINITY; 3];
    for element in values.chunks_exact(3) {
        for c in 0..3 {
            min[c] = min[c].min(element[c]);
            max[c] = max[c].max(element[c]);
        }
    }
    (min, max)
}

/// meshoptimizer's vertex codec, format version 0: the one `EXT_meshopt_compression`
/// specifies and every decoder reads.
fn encode_vertices<T>(elements: &[T]) -> Vec<u8> {
    // The encoder fails only on a stride it does not take (not a multiple of 4, over 256).
    meshopt::encode_vertex_buffer_level(elements, 2, Some(0)).expect("vertex strides of 8 or 12 bytes")
}

/// A float attribute of `width` components under `EXT_meshopt_compression`, exact.
fn meshopt_floats(buffer: &mut GlbBuffer, values: &[f32], kind: &str, width: usize) -> usize {
    let encoded = match width {
        2 => encode_vertices(&values.chunks_exact(2).map(|c| [c[0], c[1]]).collect::<Vec<_>>()),
        _ => encode_vertices(&values.chunks_exact(3).map(|c| [c[0], c[1], c[2]]).collect::<Vec<_>>()),
    };
    let count = values.len() / width;
    let view = buffer.meshopt_view(&encoded, count, width * 4, MeshoptMode::Attributes, Some(ARRAY_BUFFER));
    buffer.accessor_on(view, FLOAT, false, count, kind)
}

/// Unit normals as normalized 16-bit integers (`KHR_mesh_quantization`), eight bytes a
/// vertex (the fourth zero: attributes are 4-byte aligned): within 0.5/32767 per axis,
/// under 0.002°, where bytes would turn a normal by up to 0.4°.
fn meshopt_normals(buffer: &mut GlbBuffer, normals: &[f32]) -> usize {
    let short = |v: f32| (v.clamp(-1.0, 1.0) * 32767.0).round() as i16;
    let packed: Vec<[i16; 4]> = normals.chunks_exact(3).map(|n| [short(n[0]), short(n[1]), short(n[2]), 0]).collect();
    let view =
        buffer.meshopt_view(&encode_vertices(&packed), packed.len(), 8, MeshoptMode::Attributes, Some(ARRAY_BUFFER));
    buffer.accessor_on(view, SHORT, true, packed.len(), "VEC3")
}

/// The material's uvs: normalized 16-bit when every one is inside `[0, 1]` (within
/// 1/131070 of the float, under a texel of any texture up to 65,535 wide), else floats.
fn meshopt_uv0(buffer: &mut GlbBuffer, uvs: &[f32]) -> usize {
    if !uvs.iter().all(|v| (0.0..=1.0).contains(v)) {
        return meshopt_floats(buffer, uvs, "VEC2", 2);
    }
    let short = |v: f32| (v * 65535.0).round() as u16;
    let packed: Vec<[u16; 2]> = uvs.chunks_exact(2).map(|c| [short(c[0]), short(c[1])]).collect();
    let view =
        buffer.meshopt_view(&encode_vertices(&packed), packed.len(), 4, MeshoptMode::Attributes, Some(ARRAY_BUFFER));
    buffer.accessor_on(view, UNSIGNED_SHORT, true, packed.len(), "VEC2")
}

/// One primitive per part with triangles, each with `attributes`, its own indices
/// (16-bit when the vertices allow) and its material: the rest meshes' shared shape.
pub(crate) fn primitives(
    buffer: &mut GlbBuffer,
    model: &Model,
    vertex_count: usize,
    attributes: &serde_json::Value,
) -> Vec<serde_json::Value> {
    primitives_encoded(buffer, model, vertex_count, attributes, RestMeshEncoding::Plain)
}

/// [`primitives`] with the indices stored as `encoding` says.
fn primitives_encoded(
    buffer: &mut GlbBuffer,
    model: &Model,
    vertex_count: usize,
    attributes: &serde_json::Value,
    encoding: RestMeshEncoding,
) -> Vec<serde_json::Value> {
    let groups = model.parts.iter().filter(|p| p.triangle_count > 0).map(|part| (part.material, vec![part]));
    groups
        .map(|(material, parts)| primitive(buffer, model, &parts, material, vertex_count, attributes, encoding))
        .collect()
}

/// One primitive per material (and one for the parts without), in the order the
/// materials first appear: the parts' triangles in part order.
fn primitives_by_material(
    buffer: &mut GlbBuffer,
    model: &Model,
    vertex_count: usize,
    attributes: &serde_json::Value,
    encoding: RestMeshEncoding,
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
        .map(|(material, parts)| primitive(buffer, model, parts, *material, vertex_count, attributes, encoding))
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
    encoding: RestMeshEncoding,
) -> serde_json::Value {
    let triangles = parts.iter().flat_map(|part| &model.triangles[part.triangles()]);
    let count = parts.iter().map(|part| part.triangle_count).sum::<usize>();
    if encoding == RestMeshEncoding::Meshopt {
        let indices: Vec<u32> = triangles.flatten().copied().collect();
        let (component, size) = if vertex_count <= u16::MAX as usize { (UNSIGNED_SHORT, 2) } else { (UNSIGNED_INT, 4) };
        // The index codec takes any triangle list; it fails only on a count not a multiple of 3.
        let encoded = meshopt::encode_index_buffer(&indices, vertex_count).expect("whole triangles");
        let view =
            buffer.meshopt_view(&encoded, indices.len(), size, MeshoptMode::Triangles, Some(ELEMENT_ARRAY_BUFFER));
        let accessor = buffer.accessor_on(view, component, false, indices.len(), "SCALAR");
        let mut primitive = json!({ "attributes": attributes, "indices": accessor });
        if let Some(material) = material.filter(|&m| m < model.materials.materials.len()) {
            primitive["material"] = json!(material);
        }
        return primitive;
    }
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
