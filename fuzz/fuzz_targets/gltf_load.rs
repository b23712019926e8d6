//! Any bytes as a model file: the GLB container, the JSON, buffers and data URIs,
//! accessors, meshopt views, materials, through `vat_gltf::load`.
#![no_main]

#[path = "common.rs"]
mod common;

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let path = common::model_path("glb");
    let _ = vat_gltf::parse_document(path, data);
    let _ = vat_gltf::load(path, data, &vat_gltf::Options::default());
    // A scene index from the file's last byte: scene selection and its checks.
    if let Some(&last) = data.last() {
        let _ =
            vat_gltf::load(path, data, &vat_gltf::Options { scene: Some(usize::from(last % 4)), ..Default::default() });
    }
});
