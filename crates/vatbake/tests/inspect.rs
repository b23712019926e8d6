//! `vatbake inspect`: a readable summary of a description, a texture (header only)
//! or a rest mesh, `--json` too; a file that is not what it claims is exit 2.

mod common;

use common::{bake, fixture, stderr, vatbake};
use serde_json::Value;

fn inspect(path: &std::path::Path, json: bool) -> (i32, String, String) {
    let mut args = vec!["inspect", path.to_str().unwrap()];
    if json {
        args.push("--json");
    }
    let output = vatbake(&args);
    (output.status.code().unwrap(), String::from_utf8(output.stdout.clone()).unwrap(), stderr(&output))
}

#[test]
fn a_description_is_summarized_with_its_clips_bounds_and_ratio() {
    let (out, description) = bake(&fixture("Fox/Fox.glb"), &[]);
    let path = out.path().join("Fox.vat.json");
    let (code, text, err) = inspect(&path, false);
    assert_eq!(code, 0, "{err}");
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(lines.len(), 10, "{text}");
    assert!(lines[0].ends_with("Fox.vat.json: vatbake 0.1.0"), "{}", lines[0]);
    assert!(lines[2].contains("Fox.vat.ktx2 1728×162 R16G16B16A16_UNORM ktx2+zstd"), "{}", lines[2]);
    // 45.1% of raw in source column order, 31.2% in the spatial order, 18.5% with the
    // second-order delta at level 5, 15.1% with its bytes in planes, 14.2% with each column
    // from its reference (the defaults).
    assert!(lines[2].contains("(raw 2.2 MB, 14.2%)"), "{}", lines[2]);
    assert_eq!(lines[3], "  points    1728 × 162 rows; rest mesh Fox.rest.glb (576 triangles)");
    assert!(lines[4].contains("diagonal 200.5053; precision 1.530e-3"), "{}", lines[4]);
    assert_eq!(lines[5], "  decimation none (every source point baked)");
    assert!(lines[8].starts_with("  clip \"Walk\"") && lines[8].contains("walk       rows  104..126"), "{}", lines[8]);

    let (code, text, _) = inspect(&path, true);
    assert_eq!(code, 0);
    let json: Value = serde_json::from_str(&text).unwrap();
    assert_eq!(json["kind"], "description");
    assert_eq!(json["clips"], description["clips"]);
    assert_eq!(json["texture"], description["texture"]);
    assert_eq!(json["raw_bytes"], 1728 * 162 * 8);
    let bytes = description["texture"]["bytes"].as_u64().unwrap();
    assert_eq!(json["texture_on_disk"], bytes);
    assert!((json["ratio_to_raw"].as_f64().unwrap() - bytes as f64 / (1728.0 * 162.0 * 8.0)).abs() < 1e-12);
    let (c, h) = (&description["positions"]["center"], &description["positions"]["half_extent"]);
    for axis in 0..3 {
        let (c, h) = (c[axis].as_f64().unwrap(), h[axis].as_f64().unwrap());
        assert!((json["bounds_min"][axis].as_f64().unwrap() - (c - h)).abs() < 1e-4);
        assert!((json["bounds_max"][axis].as_f64().unwrap() - (c + h)).abs() < 1e-4);
    }
}

#[test]
fn a_texture_is_read_from_its_header_alone() {
    let (out, description) = bake(&fixture("Fox/Fox.glb"), &[]);
    let path = out.path().join("Fox.vat.ktx2");
    let (code, text, err) = inspect(&path, true);
    assert_eq!(code, 0, "{err}");
    let json: Value = serde_json::from_str(&text).unwrap();
    assert_eq!(json["kind"], "texture");
    assert_eq!((&json["width"], &json["height"], &json["vk_format"]), (&1728.into(), &162.into(), &91.into()));
    assert_eq!((&json["supercompression"], &json["levels"]), (&"zstd".into(), &1.into()));
    assert_eq!(json["key_values"], serde_json::json!({"KTXorientation": "rd", "KTXwriter": "vatbake 0.1.0"}));
    assert_eq!(json["bytes"], description["texture"]["bytes"]);

    // The image cut off after the header and key/value data: inspect never reads it.
    let bytes = std::fs::read(&path).unwrap();
    let cut = out.path().join("cut.vat.ktx2");
    std::fs::write(&cut, &bytes[..256]).unwrap();
    assert!(vat_ktx2::decode_ktx2(&bytes[..256]).is_err(), "the image is gone");
    let (code, text, err) = inspect(&cut, false);
    assert_eq!(code, 0, "{err}");
    assert!(
        text.starts_with(&format!(
            "{}: KTX2 1728×162, R16G16B16A16_UNORM, 1 level, supercompression zstd",
            cut.display()
        )),
        "{text}"
    );
    assert!(text.contains("  KTXwriter = vatbake 0.1.0"), "{text}");
}

#[test]
fn a_rest_mesh_is_summarized() {
    let (out, _) = bake(&fixture("Fox/Fox.glb"), &["--max-width", "500"]);
    let (code, text, err) = inspect(&out.path().join("Fox.rest.glb"), true);
    assert_eq!(code, 0, "{err}");
    let json: Value = serde_json::from_str(&text).unwrap();
    assert_eq!(json["kind"], "rest_mesh");
    // 4 bands of 432 columns: every one of the 1728 points has its own column.
    assert_eq!((&json["vertices"], &json["columns"], &json["triangles"]), (&1730.into(), &1728.into(), &576.into()));
    let mesh = vatbake::shipped::read_rest_mesh(&out.path().join("Fox.rest.glb")).unwrap();
    // A column each, in the spatial order: sorted, they are every column once.
    let mut columns = mesh.columns[..1728].to_vec();
    assert_ne!(columns, (0..1728).collect::<Vec<u32>>());
    columns.sort_unstable();
    assert_eq!(columns, (0..1728).collect::<Vec<u32>>());
}

#[test]
fn an_unknown_word_in_a_closed_field_names_the_file_and_the_field() {
    let dir = tempfile::tempdir().unwrap();
    let fox = common::repo().join("crates/vat-description/tests/Fox.vat.json");
    let good: Value = serde_json::from_str(&std::fs::read_to_string(fox).unwrap()).unwrap();
    let cases = [
        ("/texture/container", "webp", "texture.container: unknown variant `webp`, expected `ktx2` or `png`"),
        ("/normals/mode", "flat", "normals.mode: unknown variant `flat`, expected one of `packed`, `separate`, `none`"),
        ("/settings/merge_clips", "sometimes", "settings.merge_clips: unknown variant `sometimes`"),
        ("/axes/up", "up", "axes.up: unknown variant `up`"),
    ];
    for (at, word, expected) in cases {
        let mut description = good.clone();
        // The field may be one the file leaves out at its default (normals.mode "packed").
        let (parent, field) = at.rsplit_once('/').unwrap();
        description.pointer_mut(parent).unwrap()[field] = word.into();
        let path = dir.path().join("Fox.vat.json");
        std::fs::write(&path, serde_json::to_vec_pretty(&description).unwrap()).unwrap();
        let error = vatbake::shipped::read_description(&path).unwrap_err().message;
        assert!(error.starts_with(&format!("{}: not a vatbake description (", path.display())), "{error}");
        assert!(error.contains(expected), "{at}: {error}");
        let (code, _, err) = inspect(&path, false);
        assert_eq!(code, 2, "{err}");
        assert!(err.contains("Fox.vat.json: not a vatbake description") && err.contains(expected), "{err}");
    }
}

#[test]
fn a_file_that_is_not_what_it_claims_is_a_usage_error() {
    let dir = tempfile::tempdir().unwrap();
    let cases: [(&str, &[u8], &str); 5] = [
        ("a.vat.json", b"not json at all", "a.vat.json: named like a description (JSON) but its first bytes are not"),
        ("b.vat.json", b"{\"format\": 3}", "b.vat.json: not a vatbake description (its format is None"),
        (
            "c.vat.ktx2",
            b"\x89PNG\r\n\x1a\n0000000000000000000000000",
            "c.vat.ktx2: named like a KTX2 texture but its bytes are a PNG texture",
        ),
        ("d.vat.ktx2", b"\xABKTX 20\xBB\r\n\x1A\n", "d.vat.ktx2: not a readable KTX2 texture"),
        ("e.txt", b"hello", "e.txt: not a vatbake output; give a .vat.json, .vat.ktx2 or .rest.glb file"),
    ];
    for (name, bytes, expected) in cases {
        let path = dir.path().join(name);
        std::fs::write(&path, bytes).unwrap();
        let (code, text, err) = inspect(&path, false);
        assert_eq!(code, 2, "{name}: {err}");
        assert!(text.is_empty());
        assert!(err.starts_with("error: ") && err.contains(expected), "{name}: {err}");
    }
    // A missing file is an input error, exit 3 as in every command.
    let (code, _, err) = inspect(&dir.path().join("missing.vat.json"), false);
    assert_eq!(code, 3);
    assert!(
        err.contains("missing.vat.json: cannot read it: No such file or directory (os error 2); check the path"),
        "{err}"
    );
}

/// A source model, before any bake: its clips, their durations and the slot each
/// would fill, so a user can list them without provoking a `--clips` error.
#[test]
fn a_source_model_lists_its_clips_and_their_slots() {
    let (code, text, err) = inspect(&fixture("Kenney-PlatformerCharacter/character.glb"), true);
    assert_eq!(code, 0, "{err}");
    let report: Value = serde_json::from_str(&text).unwrap();
    assert_eq!(report["kind"], "source");
    assert_eq!((report["points"].as_u64(), report["triangles"].as_u64()), (Some(1038), Some(550)));
    let clips: Vec<(String, Value)> = report["clips"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| (c["name"].as_str().unwrap().to_string(), c["slot"].clone()))
        .collect();
    assert_eq!(
        clips[..4],
        [
            ("static".to_string(), Value::Null),
            ("idle".to_string(), Value::from("idle")),
            ("walk".to_string(), Value::from("walk")),
            ("jump".to_string(), Value::from("jump")),
        ]
    );
    let (code, text, _) = inspect(&fixture("SimpleSkin/SimpleSkin.gltf"), false);
    assert_eq!(code, 0);
    assert_eq!(
        text,
        format!(
            "{}: a source model, 3.0 KB\n  1 scene, 1 mesh\n  10 points, 8 triangles, 3 nodes; 1 skin with 2 joints\n  \
             extensions: none\n  1 clip\n  clip \"animation_0\"            → idle          5.500 s\n  a bake with no \
             flags: 10 points × 166 rows in 1 clip, texture 10×166 1.6 KB (GPU 13.3 KB), rest mesh 1.6 KB\n    \
             warning: clip \"animation_0\" has no name; as the only clip it fills the fallback slot idle\n",
            fixture("SimpleSkin/SimpleSkin.gltf").display()
        )
    );
}

/// A source model's scenes, meshes, morph targets (with their names), extensions (used
/// and required), and what a bake with no flags would write: the figures of a real bake
/// of it, or why that bake would fail.
#[test]
fn a_source_model_says_its_morphs_extensions_and_what_a_default_bake_writes() {
    let model = fixture("MorphStressTest/MorphStressTest.gltf");
    let (code, text, err) = inspect(&model, true);
    assert_eq!(code, 0, "{err}");
    let report: Value = serde_json::from_str(&text).unwrap();
    assert_eq!(
        (report["scenes"].as_u64(), report["scene"].as_u64(), report["meshes"].as_u64()),
        (Some(1), Some(0), Some(1))
    );
    let keys: Vec<String> = (1..=8).map(|k| format!("Key {k}")).collect();
    assert_eq!(
        report["morphs"],
        serde_json::json!([{ "mesh": 0, "name": "Cube.001", "targets": 8, "target_names": keys }])
    );
    assert_eq!(report["extensions_used"], serde_json::json!([]));
    // The default bake's figures are those of `vatbake bake` with no flags.
    let (out, description) = bake(&model, &[]);
    let would = &report["default_bake"];
    assert_eq!(would["points"], description["points"]);
    assert_eq!(would["rows"], description["rows"]);
    assert_eq!(
        (would["width"].clone(), would["height"].clone()),
        (description["texture"]["width"].clone(), description["texture"]["height"].clone())
    );
    assert_eq!(
        would["texture_bytes"].as_u64(),
        Some(std::fs::metadata(out.path().join("MorphStressTest.vat.ktx2")).unwrap().len())
    );
    assert_eq!(
        would["mesh_bytes"].as_u64(),
        Some(std::fs::metadata(out.path().join("MorphStressTest.rest.glb")).unwrap().len())
    );
    assert_eq!(
        would["gpu_bytes"].as_u64(),
        Some(would["width"].as_u64().unwrap() * would["height"].as_u64().unwrap() * 8)
    );
    assert_eq!(report["default_bake_error"], Value::Null);
    let (_, text, _) = inspect(&model, false);
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(lines[1], "  1 scene, 1 mesh");
    assert!(
        lines.contains(
            &"  morphs: mesh 0 \"Cube.001\": 8 targets (Key 1, Key 2, Key 3, Key 4, Key 5, Key 6, Key 7, Key 8)"
        ),
        "{text}"
    );
    assert!(lines.contains(&"  extensions: none"), "{text}");
    let bake_line = format!(
        "  a bake with no flags: {} points × {} rows in 3 clips, texture {}×{} ",
        description["points"], description["rows"], description["texture"]["width"], description["texture"]["height"]
    );
    assert!(text.contains(&bake_line), "{text}");

    // Extensions, a required one marked.
    let (code, text, err) = inspect(&fixture("draco/Fox.draco.glb"), false);
    assert_eq!(code, 0, "{err}");
    assert!(text.contains("\n  extensions: KHR_draco_mesh_compression (required)\n"), "{text}");
    // CesiumMan's 19 one-joint animations bake as one clip: the baked clips are listed.
    let (_, text, _) = inspect(&fixture("CesiumMan/glTF-Binary/CesiumMan.glb"), false);
    assert!(text.contains("  a bake with no flags: 3273 points × 61 rows in 1 clip,"), "{text}");
    assert!(text.contains("\n    baked clip \"animation_0\"      → idle          61 rows\n"), "{text}");
    // The loader's warning is said once, not again among the bake's.
    assert_eq!(text.matches("the joint weights of 210 points do not sum to 1").count(), 1, "{text}");
    // An avatar without clips: what the bake would say instead.
    let (code, text, err) = inspect(&fixture("variants/avatar-no-clips.glb"), true);
    assert_eq!(code, 0, "{err}");
    let report: Value = serde_json::from_str(&text).unwrap();
    assert_eq!(report["default_bake"], Value::Null);
    assert!(report["default_bake_error"].as_str().unwrap().contains("--animations FILE"), "{report}");
}

/// A rest mesh after gltfpack (tests/optimized/README.md): with its defaults, refused
/// with the quantized accessor named and where to read about optimizers; with
/// `-kv -noq`, read, but the dropped bounds corners are counted and warned about.
#[test]
fn an_optimized_rest_mesh_names_what_the_optimizer_did() {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/optimized");
    let packed = dir.join("Fox.default.rest.glb");
    let (code, _, err) = inspect(&packed, false);
    assert_eq!(code, 2);
    assert_eq!(
        err,
        format!(
            "error: {}: not a vatbake rest mesh (primitive 0 has no TEXCOORD_1, the column uv each vertex finds \
             its texture column by, which no material reads: an optimizer dropped it as unused (gltfpack without \
             -kv, gltf-transform with its default --prune-attributes)); give the .rest.glb file a bake wrote, as \
             it wrote it: optimizers rewrite its accessors and drop its column uv (TEXCOORD_1); see \
             docs/PLAYBACK.md, \"Optimizers\"\n",
            packed.display()
        )
    );
    let (code, text, err) = inspect(&dir.join("Fox.kv-noq.rest.glb"), false);
    assert_eq!(code, 0, "{err}");
    let lines: Vec<&str> = text.lines().collect();
    assert!(lines[1].starts_with("  1728 vertices (1728 texture columns + 0 bounds corners), 576 triangles"), "{text}");
    assert_eq!(
        lines.last().copied(),
        Some(
            "  warning: not the 2 bounds corners a bake writes (an optimizer drops unused vertices): an engine's \
             culling box is then the rest pose's; docs/PLAYBACK.md, \"Optimizers\""
        )
    );
}
