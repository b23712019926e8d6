//! Structured models: a glTF whose accessors, buffer views and sparse blocks are
//! chosen by the input (counts, offsets, strides, types, sparse indices) and wired
//! into every role the loader reads (attributes, indices, joints and weights,
//! inverse bind matrices, keyframes, morph targets), packed as a GLB around a
//! binary chunk from the input. Reaches the accessor checks far more often than
//! byte-level mutation of JSON text does.
#![no_main]

#[path = "common.rs"]
mod common;

use std::f32::consts::FRAC_1_SQRT_2;

use arbitrary::Arbitrary;
use libfuzzer_sys::fuzz_target;
use serde_json::{json, Map, Value};

#[derive(Arbitrary, Debug)]
struct View {
    buffer: u8,
    offset: u16,
    length: u16,
    stride: Option<u8>,
    /// Offset and length from the full u32 range instead (overflow checks).
    wide: Option<(u32, u32)>,
}

#[derive(Arbitrary, Debug)]
struct Sparse {
    count: u16,
    indices_view: u8,
    indices_offset: u16,
    indices_type: u8,
    values_view: u8,
    values_offset: u16,
}

#[derive(Arbitrary, Debug)]
struct Accessor {
    view: Option<u8>,
    offset: u16,
    component: u8,
    ty: u8,
    count: u16,
    /// A count from the full u32 range instead.
    wide_count: Option<u32>,
    normalized: bool,
    sparse: Option<Sparse>,
}

/// Roles, in order: POSITION, NORMAL, TEXCOORD_0, indices, JOINTS_0, WEIGHTS_0,
/// inverse bind matrices, key times, key values, morph POSITION, JOINTS_1, WEIGHTS_1.
const ROLES: usize = 12;

#[derive(Arbitrary, Debug)]
struct Input {
    views: Vec<View>,
    accessors: Vec<Accessor>,
    roles: [Option<u8>; ROLES],
    mode: u8,
    interpolation: u8,
    path: u8,
    target_node: u8,
    joints: Vec<u8>,
    bin: Vec<u8>,
}

const COMPONENTS: [u32; 7] = [5120, 5121, 5122, 5123, 5125, 5126, 5124];
const TYPES: [&str; 8] = ["SCALAR", "VEC2", "VEC3", "VEC4", "MAT2", "MAT3", "MAT4", "VEC5"];
const INTERPOLATIONS: [&str; 4] = ["LINEAR", "STEP", "CUBICSPLINE", "SMOOTH"];
const SPARSE_INDEX_TYPES: [u32; 4] = [5121, 5123, 5125, 5126];
const MODES: [u32; 6] = [4, 5, 6, 0, 1, 9];
const PATHS: [&str; 5] = ["translation", "rotation", "scale", "weights", "pointer"];

fn document(input: &Input) -> Value {
    let views: Vec<Value> = input
        .views
        .iter()
        .map(|v| {
            let (offset, length) = v.wide.unwrap_or((u32::from(v.offset), u32::from(v.length)));
            let mut view = json!({ "buffer": v.buffer % 3, "byteOffset": offset, "byteLength": length });
            if let Some(stride) = v.stride {
                view["byteStride"] = json!(stride);
            }
            view
        })
        .collect();
    let accessors: Vec<Value> = input
        .accessors
        .iter()
        .map(|a| {
            let mut accessor = json!({
                "byteOffset": a.offset,
                "componentType": COMPONENTS[usize::from(a.component) % COMPONENTS.len()],
                "type": TYPES[usize::from(a.ty) % TYPES.len()],
                "count": a.wide_count.unwrap_or(u32::from(a.count)),
                "normalized": a.normalized,
            });
            if let Some(view) = a.view {
                accessor["bufferView"] = json!(view);
            }
            if let Some(s) = &a.sparse {
                accessor["sparse"] = json!({
                    "count": s.count,
                    "indices": {
                        "bufferView": s.indices_view,
                        "byteOffset": s.indices_offset,
                        "componentType": SPARSE_INDEX_TYPES[usize::from(s.indices_type) % 4],
                    },
                    "values": { "bufferView": s.values_view, "byteOffset": s.values_offset },
                });
            }
            accessor
        })
        .collect();
    let role = |r: usize| input.roles[r].map(|a| json!(a));
    let mut attributes = Map::new();
    for (r, name) in [
        (0, "POSITION"),
        (1, "NORMAL"),
        (2, "TEXCOORD_0"),
        (4, "JOINTS_0"),
        (5, "WEIGHTS_0"),
        (10, "JOINTS_1"),
        (11, "WEIGHTS_1"),
    ] {
        if let Some(a) = role(r) {
            attributes.insert(name.into(), a);
        }
    }
    let mut primitive = json!({ "attributes": attributes, "mode": MODES[usize::from(input.mode) % 6] });
    if let Some(a) = role(3) {
        primitive["indices"] = a;
    }
    if let Some(a) = role(9) {
        primitive["targets"] = json!([{ "POSITION": a }]);
    }
    let mut skin = json!({ "joints": input.joints.iter().map(|&j| j % 5).collect::<Vec<_>>() });
    if let Some(a) = role(6) {
        skin["inverseBindMatrices"] = a;
    }
    let mut doc = json!({
        "asset": { "version": "2.0" },
        "scene": 0,
        "scenes": [{ "nodes": [0, 1] }],
        "nodes": [
            { "mesh": 0, "skin": 0 },
            { "children": [2], "translation": [0.0, 1.0, 0.0] },
            { "children": [3], "rotation": [0.0, 0.0, FRAC_1_SQRT_2, FRAC_1_SQRT_2] },
            { "scale": [0.0, 2.0, 1.0] },
        ],
        "meshes": [{ "primitives": [primitive] }],
        "skins": [skin],
        "buffers": [{ "byteLength": input.bin.len() }],
        "bufferViews": views,
        "accessors": accessors,
    });
    if let (Some(times), Some(values)) = (role(7), role(8)) {
        doc["animations"] = json!([{
            "samplers": [{ "input": times, "output": values,
                           "interpolation": INTERPOLATIONS[usize::from(input.interpolation) % 4] }],
            "channels": [{ "sampler": 0, "target": { "node": input.target_node % 5,
                                                      "path": PATHS[usize::from(input.path) % 5] } }],
        }]);
    }
    doc
}

fuzz_target!(|input: Input| {
    let json = serde_json::to_vec(&document(&input)).expect("serializes");
    let file = common::glb(&json, &input.bin);
    if let Ok(loaded) = vat_gltf::load(common::model_path("glb"), &file, &vat_gltf::Options::default()) {
        let model = &loaded.model;
        // What loads is self-consistent: every part's points and triangles exist.
        for part in &model.parts {
            assert!(part.points().end <= model.points.len());
            assert!(part.triangles().end <= model.triangles.len());
        }
        assert!(model.triangles.iter().flatten().all(|&i| (i as usize) < model.points.len()));
        if model.points.len() <= 1 << 16 {
            for clip in &model.clips {
                let d = clip.duration();
                let _ = vat_skin::evaluate_clip(model, Some(clip), &[0.0, d * 0.5, d]);
            }
        }
    }
});
