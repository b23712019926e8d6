//! The regression corpus: every file in tests/corpus/ (inputs the fuzz targets in
//! fuzz/ found, and hostile models found by reading the loader, written by
//! tests/corpus/crafted.py; all small) plus a few
//! broken files crafted here, through the real binary. Each must end with its listed
//! exit code and message: one `error:` line, never a panic, nothing in OUTDIR.
//! How the files were found and what they broke: fuzz/README.md.

mod common;

use std::path::{Path, PathBuf};

use base64::Engine;
use common::{repo, stderr, vatbake};
use serde_json::{json, Value};

/// Every model in tests/corpus/: (file, exit code, fragment of the message).
/// Exit 0 would mean the file bakes; its fragment is then matched against nothing.
const EXPECTED: &[(&str, i32, &str)] = &[
    // round(1e30 s × 30 fps) + 1 rows overflowed in `clip_rows` (a panic in debug builds,
    // a 1-row clip in release); now saturated, and refused by the texel cap.
    ("key-time-1e30-row-overflow.gltf", 3, "the texture would have 12884901885 texels (3 points × 4294967295 rows)"),
    // 500,000 zero-filled points instanced on 9 nodes: 4.5M points from a 1 KB file.
    ("instanced-mesh-4m-points.gltf", 3, "the scene has more than 4194304 points (4000000 so far"),
    // One 4M-key sampler (no bufferView) named by 64 channels: 3 GiB of keyframes from 5 KB.
    (
        "channels-share-one-huge-sampler.gltf",
        3,
        "channel 8 key values: the model's accessor reads add up to more than 134217728 values",
    ),
    // 2000 morph targets with only TANGENT on 1M points: 24 GB of zero deltas from 29 KB.
    (
        "morph-targets-without-position.gltf",
        3,
        "target 43: the model's accessor reads add up to more than 134217728 values",
    ),
    // More sparse substitutions than elements: work the read budget did not count.
    (
        "sparse-count-past-accessor-count.gltf",
        3,
        "accessor 0 (mesh 0 primitive 0 POSITION): 4 sparse values for 3 elements",
    ),
    // SimpleSkin with every point's weights summing to 0.8 (the validator's
    // ACCESSOR_WEIGHTS_NON_NORMALIZED error): baked, each point's weights renormalized.
    ("weights-sum-not-one.gltf", 0, ""),
];

/// KTX2 files in tests/corpus/, through `vat_ktx2` (no command takes a KTX2 as input):
/// (file, whether `decode_ktx2` accepts it, fragment of `read_header`'s error or "" if it reads).
const EXPECTED_KTX2: &[(&str, bool, &str)] = &[
    // Found by the ktx2_decode target: the texels decode (decoding ignores key/value
    // data), but the key/value data is malformed, which `read_header` reports.
    ("ktx2-decodes-but-kvd-entry-runs-past-its-section.ktx2", true, "entry runs past kvdByteLength"),
];

const B64: base64::engine::GeneralPurpose = base64::engine::general_purpose::STANDARD;

/// Bakes `model` into a fresh OUTDIR; returns (exit code, stderr), having checked what
/// holds for every outcome: no panic, and on failure one `error:` line and an empty OUTDIR.
fn run(model: &Path, extra: &[&str]) -> (i32, String) {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("out");
    let mut args = vec!["bake", model.to_str().unwrap(), "-o", out.to_str().unwrap(), "-q"];
    args.extend_from_slice(extra);
    let o = vatbake(&args);
    let message = stderr(&o);
    let code = o.status.code().unwrap_or_else(|| panic!("{}: killed by a signal: {message}", model.display()));
    assert!(!message.contains("panicked"), "{}: {message}", model.display());
    if code != 0 {
        assert!(o.stdout.is_empty(), "{}: nothing on stdout for a failure", model.display());
        assert_eq!(message.lines().count(), 1, "{}: one line: {message}", model.display());
        assert!(message.starts_with("error: "), "{}: {message}", model.display());
        assert!(
            !out.exists() || std::fs::read_dir(&out).unwrap().next().is_none(),
            "{}: nothing left in OUTDIR",
            model.display()
        );
    }
    (code, message)
}

fn expect(model: &Path, extra: &[&str], code: i32, fragment: &str) {
    let (got, message) = run(model, extra);
    assert_eq!(got, code, "{}: {message}", model.display());
    if code != 0 {
        assert!(message.contains(fragment), "{}: expected {fragment:?} in: {message}", model.display());
    }
}

fn corpus_files(extensions: &[&str]) -> Vec<String> {
    let mut names: Vec<String> = std::fs::read_dir(repo().join("tests/corpus"))
        .unwrap()
        .map(|e| e.unwrap().file_name().into_string().unwrap())
        .filter(|n| extensions.iter().any(|ext| n.ends_with(ext)))
        .collect();
    names.sort();
    names
}

#[test]
fn every_corpus_model_has_its_listed_outcome() {
    let mut listed: Vec<String> = EXPECTED.iter().map(|e| e.0.to_string()).collect();
    listed.sort();
    assert_eq!(corpus_files(&[".glb", ".gltf"]), listed, "every model in tests/corpus/ needs an entry in EXPECTED");
    for &(name, code, fragment) in EXPECTED {
        expect(&repo().join("tests/corpus").join(name), &[], code, fragment);
    }
}

#[test]
fn every_corpus_ktx2_has_its_listed_outcome() {
    let mut listed: Vec<String> = EXPECTED_KTX2.iter().map(|e| e.0.to_string()).collect();
    listed.sort();
    assert_eq!(corpus_files(&[".ktx2"]), listed, "every KTX2 in tests/corpus/ needs an entry in EXPECTED_KTX2");
    for &(name, decodes, header_error) in EXPECTED_KTX2 {
        let bytes = std::fs::read(repo().join("tests/corpus").join(name)).unwrap();
        assert_eq!(vat_ktx2::decode_ktx2(&bytes).is_ok(), decodes, "{name}");
        match vat_ktx2::read_header(&bytes) {
            Ok(_) => assert!(header_error.is_empty(), "{name}: read_header accepts it"),
            Err(e) => assert!(e.to_string().contains(header_error), "{name}: {e}"),
        }
    }
}

/// A valid animated model: one triangle on node 0 that a clip translates, its buffer
/// a data URI (key times `times`, all translations zero).
fn triangle(times: &[f32]) -> Value {
    let mut buffer: Vec<u8> =
        [0.0f32, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 1.0, 0.0].iter().flat_map(|v| v.to_le_bytes()).collect();
    buffer.extend(times.iter().flat_map(|t| t.to_le_bytes()));
    buffer.resize(buffer.len() + 12 * times.len(), 0);
    let n = times.len();
    json!({
        "asset": { "version": "2.0" },
        "scene": 0,
        "scenes": [{ "nodes": [0] }],
        "nodes": [{ "mesh": 0 }],
        "meshes": [{ "primitives": [{ "attributes": { "POSITION": 0 } }] }],
        "buffers": [{ "byteLength": buffer.len(), "uri": format!("data:application/octet-stream;base64,{}", B64.encode(&buffer)) }],
        "bufferViews": [
            { "buffer": 0, "byteLength": 36 },
            { "buffer": 0, "byteOffset": 36, "byteLength": 4 * n },
            { "buffer": 0, "byteOffset": 36 + 4 * n, "byteLength": 12 * n },
        ],
        "accessors": [
            { "bufferView": 0, "componentType": 5126, "type": "VEC3", "count": 3 },
            { "bufferView": 1, "componentType": 5126, "type": "SCALAR", "count": n },
            { "bufferView": 2, "componentType": 5126, "type": "VEC3", "count": n },
        ],
        "animations": [{
            "name": "move",
            "samplers": [{ "input": 1, "output": 2 }],
            "channels": [{ "sampler": 0, "target": { "node": 0, "path": "translation" } }],
        }],
    })
}

fn write(dir: &Path, name: &str, bytes: &[u8]) -> PathBuf {
    let path = dir.join(name);
    std::fs::write(&path, bytes).unwrap();
    path
}

fn write_json(dir: &Path, name: &str, json: &Value) -> PathBuf {
    write(dir, name, &serde_json::to_vec(json).unwrap())
}

/// A GLB of `json` and nothing else, its header length `declared`, its JSON chunk length `chunk`.
fn glb(json: &[u8], declared: u32, chunk: u32) -> Vec<u8> {
    let mut out = b"glTF".to_vec();
    out.extend_from_slice(&2u32.to_le_bytes());
    out.extend_from_slice(&declared.to_le_bytes());
    out.extend_from_slice(&chunk.to_le_bytes());
    out.extend_from_slice(b"JSON");
    out.extend_from_slice(json);
    out
}

#[test]
fn the_crafted_base_model_bakes() {
    let dir = tempfile::tempdir().unwrap();
    let model = write_json(dir.path(), "triangle.gltf", &triangle(&[0.0, 1.0]));
    expect(&model, &[], 0, "");
}

#[test]
fn broken_containers() {
    let dir = tempfile::tempdir().unwrap();
    let json = serde_json::to_vec(&triangle(&[0.0, 1.0])).unwrap();
    let len = json.len() as u32;
    for (name, bytes, fragment) in [
        ("empty.gltf", Vec::new(), "an empty file, not a glTF model; export or copy the model again"),
        ("empty.glb", Vec::new(), "an empty file, not a glTF model; export or copy the model again"),
        (
            "header-only.glb",
            glb(b"", 12, 0)[..12].to_vec(),
            "GLB file is truncated: 12 bytes, shorter than its 12-byte header",
        ),
        (
            "chunk-past-eof.glb",
            glb(&json, 20 + len, len + 1000),
            &*format!("GLB chunk at byte 12 declares {} bytes, past the end of the file", len + 1000),
        ),
        (
            "chunk-length-u32-max.glb",
            glb(&json, 20 + len, u32::MAX),
            "GLB chunk at byte 12 declares 4294967295 bytes, past the end",
        ),
        (
            "declared-past-eof.glb",
            glb(&json, u32::MAX, len),
            "GLB file is truncated: its header declares 4294967295 bytes",
        ),
    ] {
        expect(&write(dir.path(), name, &bytes), &[], 3, fragment);
    }
}

#[test]
fn node_hierarchies() {
    let dir = tempfile::tempdir().unwrap();
    // 100,000 nodes, each the only child of the one before; the mesh on the deepest.
    // Loads without recursion, in linear time: 0.4 s of CPU (the cycle check was
    // quadratic: 3.7 s of CPU at 50,000 nodes, four times that here).
    let mut deep = triangle(&[0.0, 1.0]);
    let depth = 100_000;
    let mut nodes: Vec<Value> = (1..depth).map(|child| json!({ "children": [child] })).collect();
    nodes.push(json!({ "mesh": 0 }));
    deep["nodes"] = nodes.into();
    expect(&write_json(dir.path(), "deep.gltf", &deep), &[], 0, "");

    let mut cycle = triangle(&[0.0, 1.0]);
    cycle["nodes"] = json!([{ "mesh": 0, "children": [1] }, { "children": [2] }, { "children": [1] }]);
    expect(
        &write_json(dir.path(), "cycle.gltf", &cycle),
        &[],
        3,
        "node 1 has more than one parent or is its own child",
    );
    cycle["nodes"] = json!([{ "mesh": 0, "children": [1] }, { "children": [0] }]);
    expect(&write_json(dir.path(), "cycle2.gltf", &cycle), &[], 3, "the node hierarchy has a cycle through node 0");
}

#[test]
fn uris_that_leave_the_model_folder() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::create_dir(dir.path().join("models")).unwrap();
    std::fs::write(dir.path().join("secret.bin"), [0u8; 64]).unwrap();
    for (uri, fragment) in [
        ("http://example.invalid/triangle.bin", "names a network or other non-file location"),
        ("file:///etc/passwd", "names a network or other non-file location"),
        ("/etc/passwd", "is an absolute path"),
        ("..%2Fsecret.bin", "escapes the model's folder"),
        ("%2E%2E/secret.bin", "escapes the model's folder"),
        ("sub/../../secret.bin", "escapes the model's folder"),
    ] {
        let mut model = triangle(&[0.0, 1.0]);
        model["buffers"][0]["uri"] = uri.into();
        let path = write_json(&dir.path().join("models"), "m.gltf", &model);
        expect(&path, &[], 3, &format!("the URI \"{uri}\" {fragment}"));
    }
}

#[test]
fn joint_indices_past_u16() {
    // A skin of 65,537 joints and a JOINTS_0 (u32) naming joint 65,536: points store
    // joints as u16, so it was silently joint 0; now refused.
    let dir = tempfile::tempdir().unwrap();
    let mut model = triangle(&[0.0, 1.0]);
    let joints: Vec<u8> = [65_536u32, 0, 0, 0].iter().cycle().take(12).flat_map(|j| j.to_le_bytes()).collect();
    let weights: Vec<u8> = [1.0f32, 0.0, 0.0, 0.0].iter().cycle().take(12).flat_map(|w| w.to_le_bytes()).collect();
    let data = [joints, weights].concat();
    model["buffers"].as_array_mut().unwrap().push(json!({
        "byteLength": data.len(), "uri": format!("data:application/octet-stream;base64,{}", B64.encode(&data)),
    }));
    for (offset, component) in [(0, 5125), (48, 5126)] {
        model["bufferViews"]
            .as_array_mut()
            .unwrap()
            .push(json!({ "buffer": 1, "byteOffset": offset, "byteLength": 48 }));
        let view = model["bufferViews"].as_array().unwrap().len() - 1;
        model["accessors"]
            .as_array_mut()
            .unwrap()
            .push(json!({ "bufferView": view, "componentType": component, "type": "VEC4", "count": 3 }));
    }
    model["meshes"][0]["primitives"][0]["attributes"]["JOINTS_0"] = 3.into();
    model["meshes"][0]["primitives"][0]["attributes"]["WEIGHTS_0"] = 4.into();
    model["nodes"][0]["skin"] = 0.into();
    model["skins"] = json!([{ "joints": vec![0; 65_537] }]);
    expect(
        &write_json(dir.path(), "wide-joints.gltf", &model),
        &[],
        3,
        "JOINTS_0 names joint 65536 at point 0, but the skin has 65537 joints (and at most 65536 are supported)",
    );
}

#[test]
fn the_texel_cap() {
    // 3 points × (5,000,000 s × 30 fps + 1) rows = 450,000,003 texels: past 2^27.
    let dir = tempfile::tempdir().unwrap();
    let model = write_json(dir.path(), "long.gltf", &triangle(&[0.0, 5.0e6]));
    expect(
        &model,
        &[],
        3,
        "the texture would have 450000003 texels (3 points × 150000001 rows), more than the limit of 134217728 \
         (1 GiB of RGBA16 texels); lower --points, --max-frames or --fps, or bake fewer --clips",
    );
    // What the message advises works.
    expect(&model, &["--max-frames", "100"], 0, "");
}
