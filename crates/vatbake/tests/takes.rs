//! One take split into one animation per node (as some FBX converters write it) is
//! baked as one clip, the audit sees the same clips, and a node property animated
//! twice in one animation is taken from its last channel, with one warning.

mod common;

use std::path::{Path, PathBuf};

use base64::Engine;
use common::{read_ktx2, stderr, vatbake};
use glam::Vec3;
use serde_json::{json, Value};

/// A document under construction: one buffer, one view per accessor.
#[derive(Default)]
struct Doc {
    bin: Vec<u8>,
    views: Vec<Value>,
    accessors: Vec<Value>,
}

impl Doc {
    fn floats(&mut self, values: &[f32], kind: &str, min_max: bool) -> usize {
        let offset = self.bin.len();
        self.bin.extend(values.iter().flat_map(|v| v.to_le_bytes()));
        self.views.push(json!({ "buffer": 0, "byteOffset": offset, "byteLength": values.len() * 4 }));
        let width = match kind {
            "VEC3" => 3,
            _ => 1,
        };
        let mut accessor = json!({
            "bufferView": self.views.len() - 1, "componentType": 5126,
            "count": values.len() / width, "type": kind
        });
        if min_max {
            let column = |c: usize| values.iter().skip(c).step_by(width).copied();
            let min: Vec<f32> = (0..width).map(|c| column(c).fold(f32::INFINITY, f32::min)).collect();
            let max: Vec<f32> = (0..width).map(|c| column(c).fold(f32::NEG_INFINITY, f32::max)).collect();
            accessor["min"] = json!(min);
            accessor["max"] = json!(max);
        }
        self.accessors.push(accessor);
        self.accessors.len() - 1
    }
}

/// Two triangles on nodes A and B. Animations 0 and 1 are one take split per node
/// ("A|Take 001|BaseLayer" lifts A by 2, "B|Take 001|BaseLayer" lifts B by 3, both
/// over 0–1 s); animation 2, "Wave", moves A's translation twice: first to z = 5,
/// then (the channel that counts) to z = 1.
fn split_take(dir: &Path) -> PathBuf {
    let mut doc = Doc::default();
    let positions = doc.floats(&[0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 1.0, 0.0], "VEC3", true);
    let times = doc.floats(&[0.0, 1.0], "SCALAR", true);
    let lift_a = doc.floats(&[0.0, 0.0, 0.0, 0.0, 2.0, 0.0], "VEC3", false);
    let lift_b = doc.floats(&[10.0, 0.0, 0.0, 10.0, 3.0, 0.0], "VEC3", false);
    let push_far = doc.floats(&[0.0, 0.0, 0.0, 0.0, 0.0, 5.0], "VEC3", false);
    let push_near = doc.floats(&[0.0, 0.0, 0.0, 0.0, 0.0, 1.0], "VEC3", false);
    let translate =
        |node: usize, sampler: usize| json!({ "sampler": sampler, "target": { "node": node, "path": "translation" } });
    let sampler = |output: usize| json!({ "input": times, "output": output, "interpolation": "LINEAR" });
    let document = json!({
        "asset": { "version": "2.0" },
        "scene": 0,
        "scenes": [{ "nodes": [0] }],
        "nodes": [
            { "name": "Root", "children": [1, 2] },
            { "name": "A", "mesh": 0 },
            { "name": "B", "mesh": 0, "translation": [10.0, 0.0, 0.0] }
        ],
        "meshes": [{ "primitives": [{ "attributes": { "POSITION": positions } }] }],
        "animations": [
            { "name": "A|Take 001|BaseLayer", "channels": [translate(1, 0)], "samplers": [sampler(lift_a)] },
            { "name": "B|Take 001|BaseLayer", "channels": [translate(2, 0)], "samplers": [sampler(lift_b)] },
            {
                "name": "Wave",
                "channels": [translate(1, 0), translate(1, 1)],
                "samplers": [sampler(push_far), sampler(push_near)]
            }
        ],
        "accessors": doc.accessors,
        "bufferViews": doc.views,
        "buffers": [{
            "byteLength": doc.bin.len(),
            "uri": format!(
                "data:application/octet-stream;base64,{}",
                base64::engine::general_purpose::STANDARD.encode(&doc.bin)
            )
        }]
    });
    let path = dir.join("split.gltf");
    std::fs::write(&path, serde_json::to_vec_pretty(&document).unwrap()).unwrap();
    path
}

/// Bakes with `--json`; returns the summary and the description.
fn bake(model: &Path, out: &Path, extra: &[&str]) -> (Value, Value, String) {
    let mut args = vec!["bake", model.to_str().unwrap(), "-o", out.to_str().unwrap(), "--points", "all", "--json"];
    args.extend_from_slice(extra);
    let o = vatbake(&args);
    assert!(o.status.success(), "{}", stderr(&o));
    let summary: Value = serde_json::from_slice(&o.stdout).unwrap();
    let description = serde_json::from_slice(&std::fs::read(out.join("split.vat.json")).unwrap()).unwrap();
    (summary, description, stderr(&o))
}

/// The decoded position of a point on a row.
fn position(out: &Path, _description: &Value, point: usize, row: usize) -> Vec3 {
    // Read as a player does: point `point` from the column its TEXCOORD_1 names.
    vatbake::shipped::Shipped::open(&out.join("split.vat.json")).unwrap().positions(row)[point]
}

fn names(description: &Value) -> Vec<&str> {
    description["clips"].as_array().unwrap().iter().map(|c| c["name"].as_str().unwrap()).collect()
}

fn audit_kinds(out: &Path) -> Vec<String> {
    let o = vatbake(&["audit", out.to_str().unwrap(), "--format", "json"]);
    let report: Value = serde_json::from_slice(&o.stdout).unwrap_or_else(|_| panic!("no report: {}", stderr(&o)));
    let unit = &report["results"][0];
    assert!(unit["source"].as_str().unwrap().ends_with("split.gltf"), "{report:#}");
    unit["findings"].as_array().unwrap().iter().map(|f| f["kind"].as_str().unwrap().to_string()).collect()
}

#[test]
fn a_take_split_per_node_is_baked_as_one_clip() {
    let dir = tempfile::tempdir().unwrap();
    let model = split_take(dir.path());
    let out = dir.path().join("merged");
    let (summary, description, _) = bake(&model, &out, &[]);

    assert_eq!(names(&description), ["Take 001|BaseLayer", "Wave"]);
    let take = &description["clips"][0];
    assert_eq!((take["source_index"].as_u64(), &take["merged_from"]), (Some(0), &json!([0, 1])));
    assert!(description["clips"][1].get("merged_from").is_none(), "absent for a clip of one animation");
    assert_eq!(description["settings"]["merge_clips"], "auto");
    let notes: Vec<&str> =
        summary["notes"].as_array().unwrap().iter().map(|n| n["message"].as_str().unwrap()).collect();
    assert_eq!(notes.iter().filter(|n| n.starts_with("merged ")).count(), 1, "{notes:?}");
    assert!(notes[0].starts_with("merged 2 animations (0–1) into clip \"Take 001|BaseLayer\""), "{notes:?}");

    // Both nodes move in the one clip: its last row has A lifted by 2 and B by 3.
    let last = take["rows"].as_u64().unwrap() as usize - 1;
    assert!(position(&out, &description, 0, 0).distance(Vec3::ZERO) < 1e-3);
    assert!(position(&out, &description, 0, last).distance(Vec3::new(0.0, 2.0, 0.0)) < 1e-3);
    assert!(position(&out, &description, 3, last).distance(Vec3::new(10.0, 3.0, 0.0)) < 1e-3);

    // The audit makes the same clips of the source: nothing missing, nothing unbaked.
    let kinds = audit_kinds(&out);
    for kind in ["missing_clip", "unbaked_clip", "duration_mismatch", "frozen_clip"] {
        assert!(!kinds.iter().any(|k| k == kind), "{kinds:?}");
    }
    // It follows the description's setting: told the bake merged nothing, it sees the take as missing.
    let file = out.join("split.vat.json");
    let mut edited: Value = serde_json::from_slice(&std::fs::read(&file).unwrap()).unwrap();
    edited["settings"]["merge_clips"] = json!("never");
    std::fs::write(&file, serde_json::to_vec(&edited).unwrap()).unwrap();
    let kinds = audit_kinds(&out);
    assert!(kinds.iter().any(|k| k == "missing_clip") && kinds.iter().any(|k| k == "unbaked_clip"), "{kinds:?}");
}

#[test]
fn no_merge_clips_keeps_them_apart_and_merge_clips_forces() {
    let dir = tempfile::tempdir().unwrap();
    let model = split_take(dir.path());
    let out = dir.path().join("apart");
    let (summary, description, _) = bake(&model, &out, &["--no-merge-clips"]);
    assert_eq!(names(&description), ["A|Take 001|BaseLayer", "B|Take 001|BaseLayer", "Wave"]);
    assert!(description["clips"].as_array().unwrap().iter().all(|c| c.get("merged_from").is_none()));
    assert_eq!(description["settings"]["merge_clips"], "never");
    assert!(!summary["notes"].as_array().unwrap().iter().any(|n| n.as_str().unwrap().starts_with("merged ")));
    let kinds = audit_kinds(&out);
    assert!(!kinds.iter().any(|k| k == "missing_clip" || k == "unbaked_clip"), "{kinds:?}");

    // --merge-clips: names do not matter, but Wave moves A's translation, which the take
    // already moves, so it stays apart.
    let out = dir.path().join("forced");
    let (summary, description, _) = bake(&model, &out, &["--merge-clips"]);
    assert_eq!(names(&description), ["Take 001|BaseLayer", "Wave"]);
    assert_eq!(summary["notes"][1]["code"], "clip-kept-apart");
    assert_eq!(
        summary["notes"][1]["message"],
        "animation 2 \"Wave\" has the time range of clip \"Take 001|BaseLayer\" but moves a node property \
         it moves too: kept apart"
    );
    assert_eq!(description["settings"]["merge_clips"], "always");
    let kinds = audit_kinds(&out);
    assert!(!kinds.iter().any(|k| k == "missing_clip" || k == "unbaked_clip"), "{kinds:?}");

    let o = vatbake(&["bake", model.to_str().unwrap(), "-o", "x", "--merge-clips", "--no-merge-clips"]);
    assert_eq!(o.status.code(), Some(2), "the two flags exclude each other: {}", stderr(&o));
}

#[test]
fn a_repeated_channel_warns_once_and_the_last_one_wins() {
    let dir = tempfile::tempdir().unwrap();
    let model = split_take(dir.path());
    let out = dir.path().join("out");
    let (summary, description, text) = bake(&model, &out, &[]);
    let warnings: Vec<&str> =
        summary["warnings"].as_array().unwrap().iter().map(|w| w["message"].as_str().unwrap()).collect();
    let repeated: Vec<&&str> = warnings.iter().filter(|w| w.contains("repeat")).collect();
    assert_eq!(
        repeated,
        [&"animation 2 \"Wave\": 1 channel repeats a node's property (the spec forbids it); the last of each is used"],
        "{warnings:?}"
    );
    assert_eq!(text.matches("repeats a node's property").count(), 1, "{text}");
    // Wave's last row: A pushed to z = 1 by the last channel, not to 5 by the first.
    let wave = &description["clips"][1];
    let last = (wave["row"].as_u64().unwrap() + wave["rows"].as_u64().unwrap() - 1) as usize;
    let p = position(&out, &description, 0, last);
    assert!(p.distance(Vec3::new(0.0, 0.0, 1.0)) < 1e-3, "{p}");
}

#[test]
fn the_split_take_variant_bakes_like_its_base_walk() {
    // fixtures/variants/split-take.glb: the Kenney character's walk as one animation per joint node.
    let variant = common::fixture("variants/split-take.glb");
    if !variant.is_file() {
        eprintln!("skipped: {} is not generated", variant.display());
        return;
    }
    let (split, split_desc) = common::bake(&variant, &["--points", "all"]);
    let base = common::fixture("Kenney-MiniCharacters/character-female-a.glb");
    let (walk, walk_desc) = common::bake(&base, &["--points", "all", "--clips", "walk"]);
    let clips = split_desc["clips"].as_array().unwrap();
    assert_eq!(clips.len(), 1, "{clips:?}");
    assert_eq!(clips[0]["name"], "Take 001|BaseLayer");
    assert_eq!(clips[0]["merged_from"], json!([0, 1, 2, 3, 4, 5, 6]));
    for key in ["rows", "duration", "rate", "loop"] {
        assert_eq!(clips[0][key], walk_desc["clips"][0][key], "{key}");
    }
    assert_eq!(split_desc["positions"], walk_desc["positions"]);
    let (_, a) = read_ktx2(&split.path().join("split-take.vat.ktx2"));
    let (_, b) = read_ktx2(&walk.path().join("character-female-a.vat.ktx2"));
    assert_eq!(a.len(), b.len());
    // The same motion: every texel (positions and normals) within one step.
    let worst = a.iter().zip(&b).map(|(x, y)| x.abs_diff(*y)).max();
    assert!(worst.unwrap() <= 1, "texels differ by {worst:?} steps");
}

/// Clips that share a name (three animations all named "Walk") get unique names, one
/// warning, and an audit that agrees; `--clips` picks a renamed clip by its new name.
#[test]
fn clips_that_share_a_name_are_renamed_once_and_addressable() {
    let dir = tempfile::tempdir().unwrap();
    let model = split_take(dir.path());
    let mut document: Value = serde_json::from_slice(&std::fs::read(&model).unwrap()).unwrap();
    for animation in document["animations"].as_array_mut().unwrap() {
        animation["name"] = json!("Walk");
    }
    std::fs::write(&model, serde_json::to_vec(&document).unwrap()).unwrap();
    let out = dir.path().join("out");
    let (_, description, warnings) = bake(&model, &out, &[]);
    assert_eq!(names(&description), ["Walk", "Walk (2)", "Walk (3)"]);
    assert_eq!(warnings.matches("more than one clip is named \"Walk\"").count(), 1, "{warnings}");
    assert_eq!(audit_kinds(&out), Vec::<String>::new());
    let picked = dir.path().join("picked");
    let (_, description, _) = bake(&model, &picked, &["--clips", "Walk (3)"]);
    assert_eq!(names(&description), ["Walk (3)"]);
}
