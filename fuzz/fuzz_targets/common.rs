//! Shared by the targets: where a fuzzed model "lives", and the GLB wrapper.
#![allow(dead_code)]

use std::path::Path;

/// A model path inside a folder that does not exist: any external URI the input
/// names resolves below it and fails to read, so no input reaches the real disk
/// (and `resolve_uri` refuses anything absolute, escaping or networked first).
pub fn model_path(name: &str) -> &'static Path {
    match name {
        "glb" => Path::new("/nonexistent-vatbake-fuzz/model.glb"),
        _ => Path::new("/nonexistent-vatbake-fuzz/model.gltf"),
    }
}

/// JSON + binary chunk as a GLB, both padded to 4 bytes as writers do.
pub fn glb(json: &[u8], bin: &[u8]) -> Vec<u8> {
    let pad = |n: usize| n.next_multiple_of(4);
    let total = 12 + 8 + pad(json.len()) + if bin.is_empty() { 0 } else { 8 + pad(bin.len()) };
    let mut out = Vec::with_capacity(total);
    out.extend_from_slice(b"glTF");
    out.extend_from_slice(&2u32.to_le_bytes());
    out.extend_from_slice(&(total as u32).to_le_bytes());
    out.extend_from_slice(&(pad(json.len()) as u32).to_le_bytes());
    out.extend_from_slice(b"JSON");
    out.extend_from_slice(json);
    out.resize(20 + pad(json.len()), b' ');
    if !bin.is_empty() {
        out.extend_from_slice(&(pad(bin.len()) as u32).to_le_bytes());
        out.extend_from_slice(b"BIN\0");
        out.extend_from_slice(bin);
        out.resize(total, 0);
    }
    out
}
