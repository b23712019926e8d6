//! `EXT_meshopt_compression` views built from the input, decoded by meshoptimizer's
//! C decoders through `vat_gltf::load`.
//!
//! Input: an 8-byte header, then the compressed bytes.
//! - byte 0: mode (0 ATTRIBUTES, 1 TRIANGLES, 2 INDICES, else an unknown mode)
//! - byte 1: filter (0 NONE, 1 OCTAHEDRAL, 2 QUATERNION, 3 EXPONENTIAL, 4 COLOR, else unknown)
//! - byte 2: byteStride
//! - bytes 3..5: count (u16, little-endian)
//! - byte 5: the POSITION accessor's component type, for ATTRIBUTES
//! - byte 6: bit 0: the view declares one byte more than count × stride;
//!   bit 1: the extension's byteOffset is 1 (the data shifted by one byte)
//! - byte 7: reserved
#![no_main]

#[path = "common.rs"]
mod common;

use libfuzzer_sys::fuzz_target;
use serde_json::json;

const MODES: [&str; 4] = ["ATTRIBUTES", "TRIANGLES", "INDICES", "VERTICES"];
const FILTERS: [&str; 6] = ["NONE", "OCTAHEDRAL", "QUATERNION", "EXPONENTIAL", "COLOR", "ROTATE"];
/// (componentType, normalized) for POSITION.
const POSITION_FORMATS: [(u32, bool); 6] =
    [(5126, false), (5123, true), (5122, false), (5121, false), (5120, true), (5125, false)];

fuzz_target!(|data: &[u8]| {
    let Some((header, compressed)) = data.split_first_chunk::<8>() else { return };
    let mode = MODES[usize::from(header[0]).min(3)];
    let filter = FILTERS[usize::from(header[1]).min(5)];
    let stride = u32::from(header[2]);
    let count = u32::from(u16::from_le_bytes([header[3], header[4]]));
    let (component, normalized) = POSITION_FORMATS[usize::from(header[5]) % POSITION_FORMATS.len()];
    let declared = count * stride + u32::from(header[6] & 1);
    let shift = u32::from(header[6] >> 1 & 1);

    let mut bin = vec![0u8; shift as usize];
    bin.extend_from_slice(compressed);
    let mut view = json!({
        "buffer": 1, "byteLength": declared,
        "extensions": { "EXT_meshopt_compression": {
            "buffer": 0, "byteOffset": shift, "byteLength": compressed.len(),
            "byteStride": stride, "count": count, "mode": mode, "filter": filter,
        }},
    });
    let primitive = if mode == "ATTRIBUTES" {
        view["byteStride"] = json!(stride);
        json!({ "attributes": { "POSITION": 0 } })
    } else {
        json!({ "attributes": { "POSITION": 1 }, "indices": 0 })
    };
    let doc = json!({
        "asset": { "version": "2.0" },
        "extensionsUsed": ["EXT_meshopt_compression"],
        "extensionsRequired": ["EXT_meshopt_compression"],
        "scenes": [{ "nodes": [0] }],
        "nodes": [{ "mesh": 0 }],
        "meshes": [{ "primitives": [primitive] }],
        "buffers": [
            { "byteLength": bin.len() },
            { "byteLength": declared, "extensions": { "EXT_meshopt_compression": { "fallback": true } } },
        ],
        "bufferViews": [view],
        "accessors": [
            if mode == "ATTRIBUTES" {
                json!({ "bufferView": 0, "componentType": component, "normalized": normalized,
                        "type": "VEC3", "count": count })
            } else {
                json!({ "bufferView": 0, "componentType": if stride == 2 { 5123 } else { 5125 },
                        "type": "SCALAR", "count": count })
            },
            json!({ "componentType": 5126, "type": "VEC3", "count": 65536 }),
        ],
    });
    let json = serde_json::to_vec(&doc).expect("serializes");
    let _ = vat_gltf::load(common::model_path("glb"), &common::glb(&json, &bin), &vat_gltf::Options::default());
});
