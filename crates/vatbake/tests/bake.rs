//! `vatbake bake` on real fixtures: what it writes, checked with readers that are not ours.

mod common;

use std::path::Path;

use common::{bake, fixture, read_ktx2, stderr, vatbake};
use glam::Vec3;
use serde_json::Value;

/// Every fixture with skins, morph targets or node animation.
const ANIMATED: &[&str] = &[
    "Fox/Fox.glb",
    "SimpleSkin/SimpleSkin.gltf",
    "RiggedSimple/rigged-simple.gltf",
    "CesiumMan/glTF-Binary/CesiumMan.glb",
    "MorphStressTest/MorphStressTest.gltf",
    "AnimatedMorphCube/AnimatedMorphCube.gltf",
    "Kenney-MiniCharacters/character-female-a.glb",
    "Kenney-PlatformerCharacter/character.glb",
];

/// A normal from its alpha code, written out from docs/FORMAT.md.
fn octahedral(alpha: u16) -> Vec3 {
    let (ox, oy) = ((alpha >> 8) as f32 / 255.0 * 2.0 - 1.0, (alpha & 255) as f32 / 255.0 * 2.0 - 1.0);
    let mut n = Vec3::new(ox, oy, 1.0 - ox.abs() - oy.abs());
    if n.z < 0.0 {
        let sign = |v: f32| if v >= 0.0 { 1.0 } else { -1.0 };
        n.x = (1.0 - oy.abs()) * sign(ox);
        n.y = (1.0 - ox.abs()) * sign(oy);
    }
    n.normalize()
}

fn f32s(value: &Value) -> Vec<f32> {
    value.as_array().unwrap().iter().map(|v| v.as_f64().unwrap() as f32).collect()
}

#[test]
fn texture_round_trips_to_the_evaluated_positions() {
    for model_path in ANIMATED {
        let path = fixture(model_path);
        let (out, desc) = bake(&path, &["--points", "all"]);
        let (header, stored) = read_ktx2(&out.path().join(desc["texture"]["file"].as_str().unwrap()));
        assert_eq!(desc["texture"]["delta"]["order"], 2, "{model_path}: second-order deltas by default");
        let texels = common::undo_delta(stored, &desc);
        let width = desc["texture"]["width"].as_u64().unwrap() as usize;
        let rows = desc["rows"].as_u64().unwrap() as usize;
        assert_eq!(header.format, Some(ktx2::Format::R16G16B16A16_UNORM), "{model_path}");
        assert_eq!(header.supercompression_scheme, Some(ktx2::SupercompressionScheme::Zstandard));
        assert_eq!((header.pixel_width as usize, header.pixel_height as usize), (width, rows));
        assert_eq!(texels.len(), width * rows * 4);

        let center = Vec3::from_slice(&f32s(&desc["positions"]["center"]));
        let half_extent = Vec3::from_slice(&f32s(&desc["positions"]["half_extent"]));
        let bounds = vat_bounds::Bounds { center, half_extent };
        // Half a step per axis, plus the f32 rounding of the decode formula itself.
        let tolerance = bounds.step() * 0.5 + (center.abs() + half_extent) * 4.0 * f32::EPSILON;

        // Point p's column, from its TEXCOORD_1 (one band here).
        let glb = std::fs::read(out.path().join(desc["mesh"]["file"].as_str().unwrap())).unwrap();
        let (json, _) = glb_accessor(&glb, 0);
        let uv1_index = json["meshes"][0]["primitives"][0]["attributes"]["TEXCOORD_1"].as_u64().unwrap() as usize;
        let (_, uv1) = glb_accessor(&glb, uv1_index);
        let column: Vec<usize> = uv1.chunks_exact(2).map(|uv| (uv[0] * width as f32) as usize).collect();
        let bytes = std::fs::read(&path).unwrap();
        let mut model = vat_gltf::load(&path, &bytes, &vat_gltf::Options::default()).unwrap().model;
        // The clips as the bake makes them: takes split per node merged (CesiumMan's 19).
        model.clips = vat_gltf::merge_clips(std::mem::take(&mut model.clips), vat_gltf::MergeClips::Auto).0;
        for clip_desc in desc["clips"].as_array().unwrap() {
            let index = clip_desc["source_index"].as_u64().unwrap() as usize;
            let clip = model.clips.iter().find(|c| c.source_index == index).unwrap();
            let clip_rows = clip_desc["rows"].as_u64().unwrap() as usize;
            let first_row = clip_desc["row"].as_u64().unwrap() as usize;
            let duration = clip_desc["duration"].as_f64().unwrap();
            let rate = clip_desc["rate"].as_f64().unwrap();
            assert!(duration > 0.0 && rate > 0.0, "{model_path}: duration and rate must be positive");
            // Row k is at k / rate; the bake spaces rows evenly from 0 to the clip's last key.
            let times: Vec<f32> = (0..clip_rows)
                .map(|k| {
                    if clip_rows == 1 {
                        0.0
                    } else {
                        (clip.duration() as f64 * k as f64 / (clip_rows - 1) as f64) as f32
                    }
                })
                .collect();
            assert!(((clip_rows - 1) as f64 / rate - times[clip_rows - 1] as f64).abs() < 1e-4);
            let frames = vat_skin::evaluate_clip(&model, Some(clip), &times);
            for k in 0..clip_rows {
                // Alpha: the octahedral decode as docs/FORMAT.md writes it, within the recorded bound.
                for (p, &expected) in frames.row_normals(k).iter().enumerate() {
                    let alpha = texels[((first_row + k) * width + column[p]) * 4 + 3];
                    let angle = octahedral(alpha).angle_between(expected).to_degrees();
                    assert!(angle <= 0.96 + 1e-3, "{model_path} row {k} point {p}: normal off by {angle}°");
                }
                for (p, &expected) in frames.row_positions(k).iter().enumerate() {
                    let at = ((first_row + k) * width + column[p]) * 4;
                    let stored = [texels[at], texels[at + 1], texels[at + 2]];
                    assert_eq!(
                        stored,
                        vat_bounds::encode_position(expected, &bounds),
                        "{model_path} row {k} point {p}"
                    );
                    let decoded = Vec3::from_array(stored.map(|t| t as f32 / 65535.0)) * 2.0 - Vec3::ONE;
                    let decoded = decoded * half_extent + center;
                    assert!((decoded - expected).abs().cmple(tolerance).all(), "{model_path} row {k} point {p}");
                }
            }
        }
    }
}

#[test]
fn rows_duration_and_rate_follow_the_clip() {
    let (_out, desc) = bake(&fixture("Fox/Fox.glb"), &["--points", "all"]);
    let clips = desc["clips"].as_array().unwrap();
    let summary: Vec<(&str, u64, u64)> = clips
        .iter()
        .map(|c| (c["name"].as_str().unwrap(), c["row"].as_u64().unwrap(), c["rows"].as_u64().unwrap()))
        .collect();
    // Survey lasts 3.4167 s: round(102.5) + 1 rows; Walk 0.7083 s: 22; Run 1.1583 s: 36.
    assert_eq!(summary, vec![("Survey", 0, 104), ("Walk", 104, 22), ("Run", 126, 36)]);
    assert_eq!(desc["rows"], 162);
    let survey = &clips[0];
    assert!((survey["duration"].as_f64().unwrap() - 3.4166667).abs() < 1e-5);
    assert!((survey["rate"].as_f64().unwrap() - 103.0 / 3.4166667).abs() < 1e-3);

    // Capped: 20 rows spread over the same 3.4167 s, so the rate drops and the duration stays.
    let (_out, capped) = bake(&fixture("Fox/Fox.glb"), &["--points", "all", "--max-frames", "20"]);
    let survey = &capped["clips"][0];
    assert_eq!(survey["rows"], 20);
    assert!((survey["duration"].as_f64().unwrap() - 3.4166667).abs() < 1e-5);
    assert!((survey["rate"].as_f64().unwrap() - 19.0 / 3.4166667).abs() < 1e-4);
    assert_eq!(capped["rows"], 20 + 20 + 20);
}

#[test]
fn description_records_what_a_runtime_needs() {
    let (out, desc) = bake(&fixture("Fox/Fox.glb"), &["--points", "all", "--clips", "Run,Walk"]);
    assert_eq!(desc["format"], "vatbake.vat");
    assert_eq!(desc["format_version"], 1);
    assert_eq!(desc["source"]["file"], "Fox.glb");
    assert_eq!(desc["source"]["bytes"], 162852);
    assert_eq!(desc["source"]["sha256"], "d97044e701822bac5a62696459b27d7b375aada5de8574ed4362edbba94771f7");
    assert_eq!(desc["axes"]["up"], "+y");
    assert_eq!(desc["texture"]["vk_format"], 91);
    assert_eq!(desc["points"], 1728);
    let names: Vec<&str> = desc["clips"].as_array().unwrap().iter().map(|c| c["name"].as_str().unwrap()).collect();
    assert_eq!(names, ["Run", "Walk"]);
    assert_eq!(desc["clips"][0]["source_index"], 2);
    assert_eq!(desc["clips"][0]["loop"], true);
    let bytes = std::fs::metadata(out.path().join("Fox.vat.ktx2")).unwrap().len();
    assert_eq!(desc["texture"]["bytes"], bytes);
    let precision = desc["positions"]["precision"].as_f64().unwrap();
    let half = f32s(&desc["positions"]["half_extent"]);
    let half_step = Vec3::from_slice(&half).length() as f64 / 65535.0;
    assert!(precision > 0.0 && precision <= half_step * 1.01, "precision {precision} vs {half_step}");
    // Exactly three files, nothing temporary left behind.
    let mut names: Vec<String> =
        std::fs::read_dir(out.path()).unwrap().map(|e| e.unwrap().file_name().into_string().unwrap()).collect();
    names.sort();
    assert_eq!(names, ["Fox.rest.glb", "Fox.vat.json", "Fox.vat.ktx2"]);
}

#[test]
fn unknown_clip_is_a_usage_error_that_lists_the_clips() {
    let out = tempfile::tempdir().unwrap();
    let fox = fixture("Fox/Fox.glb");
    let o = vatbake(&["bake", fox.to_str().unwrap(), "-o", out.path().to_str().unwrap(), "--clips", "Dance"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(
        stderr(&o).contains("has no clip named \"Dance\"; its clips are \"Survey\", \"Walk\", \"Run\""),
        "{}",
        stderr(&o)
    );
}

/// Reads the JSON chunk and one float accessor of a GLB we wrote.
fn glb_accessor(glb: &[u8], accessor: usize) -> (Value, Vec<f32>) {
    let json_len = u32::from_le_bytes(glb[12..16].try_into().unwrap()) as usize;
    let json: Value = serde_json::from_slice(&glb[20..20 + json_len]).unwrap();
    let bin = &glb[20 + json_len + 8..];
    let a = &json["accessors"][accessor];
    let view = &json["bufferViews"][a["bufferView"].as_u64().unwrap() as usize];
    let offset = view["byteOffset"].as_u64().unwrap_or(0) as usize;
    let comps = match a["type"].as_str().unwrap() {
        "VEC2" => 2,
        "VEC3" => 3,
        _ => 1,
    };
    let n = a["count"].as_u64().unwrap() as usize * comps;
    let values =
        bin[offset..offset + n * 4].chunks_exact(4).map(|b| f32::from_le_bytes(b.try_into().unwrap())).collect();
    (json, values)
}

#[test]
fn rest_mesh_addresses_columns_and_covers_the_animation() {
    // The default (spatial) order: every point a column of its own, not its index for most.
    let (out, desc) = bake(&fixture("Fox/Fox.glb"), &["--points", "all", "--max-width", "1000"]);
    assert_eq!(desc["texture"]["column_order"], "spatial");
    assert_eq!(desc["settings"]["column_order"], "spatial");
    let glb = std::fs::read(out.path().join("Fox.rest.glb")).unwrap();
    let (json, _) = glb_accessor(&glb, 0);
    let (_, uv1) =
        glb_accessor(&glb, json["meshes"][0]["primitives"][0]["attributes"]["TEXCOORD_1"].as_u64().unwrap() as usize);
    let mut seen = vec![false; 1728];
    let mut own = 0;
    for point in 0..1728 {
        let (u, v) = (uv1[point * 2], uv1[point * 2 + 1]);
        let band = (v * 324.0 / 162.0).round() as usize;
        assert_eq!(v, (band * 162) as f32 / 324.0, "v of point {point}");
        let column = band * 864 + (u * 864.0) as usize;
        assert_eq!(u, ((column % 864) as f32 + 0.5) / 864.0, "u of point {point}");
        assert!(!std::mem::replace(&mut seen[column], true), "column {column} read twice");
        own += usize::from(column == point);
    }
    assert!(own < 20, "{own} of 1728 points in their own column");
    // Source order: column i is point i.
    let (out, desc) =
        bake(&fixture("Fox/Fox.glb"), &["--points", "all", "--max-width", "1000", "--column-order", "source"]);
    assert_eq!(desc["texture"]["column_order"], "source");
    let glb = std::fs::read(out.path().join("Fox.rest.glb")).unwrap();
    let (json, _) = glb_accessor(&glb, 0);
    let attributes = &json["meshes"][0]["primitives"][0]["attributes"];
    let (_, uv1) = glb_accessor(&glb, attributes["TEXCOORD_1"].as_u64().unwrap() as usize);
    // 1728 points at --max-width 1000: two bands of 864 columns each.
    let (width, height, rows) = (864usize, 2 * 162usize, 162usize);
    assert_eq!(desc["texture"]["width"], 864);
    assert_eq!(desc["texture"]["bands"], 2);
    assert_eq!(desc["texture"]["height"], 324);
    for point in [0usize, 1, 863, 864, 1727] {
        let (u, v) = (uv1[point * 2], uv1[point * 2 + 1]);
        assert_eq!(u, ((point % width) as f32 + 0.5) / width as f32, "u of point {point}");
        assert_eq!(v, ((point / width) * rows) as f32 / height as f32, "v of point {point}");
    }
    let position = attributes["POSITION"].as_u64().unwrap() as usize;
    let min = f32s(&json["accessors"][position]["min"]);
    let max = f32s(&json["accessors"][position]["max"]);
    let center = f32s(&desc["positions"]["center"]);
    let half = f32s(&desc["positions"]["half_extent"]);
    for axis in 0..3 {
        assert!(min[axis] <= center[axis] - half[axis] + 1e-4, "min covers the animation on axis {axis}");
        assert!(max[axis] >= center[axis] + half[axis] - 1e-4, "max covers the animation on axis {axis}");
    }
    assert_eq!(json["images"].as_array().unwrap().len(), 1, "the Fox texture is carried");
    assert!(json["materials"][0]["pbrMetallicRoughness"]["baseColorTexture"].is_object());
}

#[test]
fn banded_texture_holds_the_same_texels() {
    let fox = fixture("Fox/Fox.glb");
    let (wide, wide_desc) = bake(&fox, &["--points", "all"]);
    let (banded, banded_desc) = bake(&fox, &["--points", "all", "--max-width", "1000"]);
    // Undone (the stored bytes are arranged per image width: left neighbours, planes).
    let one = common::undo_delta(read_ktx2(&wide.path().join("Fox.vat.ktx2")).1, &wide_desc);
    let two = common::undo_delta(read_ktx2(&banded.path().join("Fox.vat.ktx2")).1, &banded_desc);
    for point in [0usize, 863, 864, 1727] {
        for row in [0usize, 77, 161] {
            let a = (row * 1728 + point) * 4;
            let b = (((point / 864) * 162 + row) * 864 + point % 864) * 4;
            assert_eq!(one[a..a + 4], two[b..b + 4], "point {point} row {row}");
        }
    }
}

#[test]
fn output_is_deterministic_at_any_thread_count() {
    let fox = fixture("Kenney-MiniCharacters/character-female-a.glb");
    let run = |threads: &str, flags: &[&str]| {
        let out = tempfile::tempdir().unwrap();
        let status = std::process::Command::new(env!("CARGO_BIN_EXE_vatbake"))
            .args(["bake", fox.to_str().unwrap(), "-o", out.path().to_str().unwrap(), "-q", "--points", "all"])
            .args(flags)
            .env("RAYON_NUM_THREADS", threads)
            .status()
            .unwrap();
        assert!(status.success());
        ["vat.json", "vat.ktx2", "rest.glb"]
            .map(|ext| std::fs::read(out.path().join(format!("character-female-a.{ext}"))).unwrap())
    };
    let one = run("1", &[]);
    let two = run("2", &[]);
    let again = run("2", &[]);
    let three = run("2", &["--threads", "3"]);
    assert!(one == two && two == again && again == three, "bytes differ between runs");
}

#[test]
fn json_summary_reports_every_stage() {
    let out = tempfile::tempdir().unwrap();
    let fox = fixture("Fox/Fox.glb");
    let o = vatbake(&["bake", fox.to_str().unwrap(), "-o", out.path().to_str().unwrap(), "--json", "--points", "all"]);
    assert!(o.status.success());
    let summary: Value = serde_json::from_slice(&o.stdout).unwrap();
    for stage in ["load", "decimate", "evaluate", "bounds", "measure", "pack", "encode", "write", "total"] {
        assert!(summary["timings_ms"][stage].as_f64().unwrap() >= 0.0, "{stage}");
    }
    assert_eq!(summary["points"], 1728);
    assert_eq!(summary["rows"], 162);
    assert!((summary["size_ratio"].as_f64().unwrap() - 1.0).abs() < 1e-3);
    assert_eq!(summary["raw_texel_bytes"], 1728 * 162 * 8);
    // Not a terminal and not --json: success is silent.
    let o = vatbake(&["bake", fox.to_str().unwrap(), "-o", out.path().to_str().unwrap(), "--points", "all"]);
    assert!(o.status.success() && o.stdout.is_empty() && o.stderr.is_empty());
}

#[test]
fn schema_file_matches_the_description_types() {
    let o = vatbake(&["schema"]);
    let committed = std::fs::read_to_string(common::repo().join("docs/vat.schema.json")).unwrap();
    assert_eq!(
        String::from_utf8(o.stdout).unwrap(),
        committed,
        "regenerate with: vatbake schema > docs/vat.schema.json"
    );
}

#[test]
fn size_guard_refuses_a_mesh_scaled_against_its_skeleton() {
    // The Kenney character with every inverse bind matrix scaled 100× (fixtures/variants):
    // each point sits 100× farther from its joints than the file's bind pose puts it.
    let dir = tempfile::tempdir().unwrap();
    let model = fixture("variants/broken/ibm-scaled-100.glb");
    let out = dir.path().join("out");
    let o = vatbake(&["bake", model.to_str().unwrap(), "-o", out.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(3), "{}", stderr(&o));
    assert!(
        stderr(&o).contains("against its skeleton, the evaluated mesh is 78.17× the size it has in the bind pose"),
        "{}",
        stderr(&o)
    );
    assert!(!out.exists());
    let o = vatbake(&["bake", model.to_str().unwrap(), "-o", out.to_str().unwrap(), "--no-size-guard", "-q"]);
    assert!(o.status.success(), "{}", stderr(&o));
}

#[test]
fn size_guard_passes_scaled_skeletons_and_parents() {
    // RiggedSimple with its root joint scaled 3× in the rest pose: skeleton and mesh grow
    // together, as three.js shows them, so the bake is 3× the bind pose and not refused.
    let dir = tempfile::tempdir().unwrap();
    let source = fixture("RiggedSimple/rigged-simple.gltf");
    let mut json: Value = serde_json::from_slice(&std::fs::read(&source).unwrap()).unwrap();
    for i in [0, 5, 10] {
        let m = json["nodes"][3]["matrix"][i].as_f64().unwrap();
        json["nodes"][3]["matrix"][i] = (m * 3.0).into();
    }
    let model = dir.path().join("scaled.gltf");
    std::fs::write(&model, serde_json::to_vec(&json).unwrap()).unwrap();
    std::fs::copy(fixture("RiggedSimple/rigged-simple.bin"), dir.path().join("rigged-simple.bin")).unwrap();
    let out = dir.path().join("out");
    let o = vatbake(&["bake", model.to_str().unwrap(), "-o", out.to_str().unwrap(), "--json"]);
    assert!(o.status.success(), "{}", stderr(&o));
    let report: Value = serde_json::from_slice(&o.stdout).unwrap();
    assert!((report["size_ratio"].as_f64().unwrap() - 1.0).abs() < 1e-3, "{report}");
    // The Mixamo layout: an armature scaled 0.01 over centimetre bind data.
    let o = vatbake(&[
        "bake",
        fixture("variants/mixamo-armature-cm.glb").to_str().unwrap(),
        "-o",
        out.to_str().unwrap(),
        "--json",
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    let report: Value = serde_json::from_slice(&o.stdout).unwrap();
    assert!((report["size_ratio"].as_f64().unwrap() - 1.0).abs() < 1e-3, "{report}");
}

#[test]
fn png_fallback_holds_the_same_texels_with_a_warning() {
    let fox = fixture("Fox/Fox.glb");
    let (ktx, _) = bake(&fox, &["--points", "all"]);
    let out = tempfile::tempdir().unwrap();
    let o = vatbake(&[
        "bake",
        fox.to_str().unwrap(),
        "-o",
        out.path().to_str().unwrap(),
        "--points",
        "all",
        "--texture-format",
        "png",
    ]);
    assert!(o.status.success());
    assert!(stderr(&o).contains("warning: --texture-format png"), "{}", stderr(&o));
    let desc: Value = serde_json::from_slice(&std::fs::read(out.path().join("Fox.vat.json")).unwrap()).unwrap();
    assert_eq!(desc["texture"]["file"], "Fox.vat.png");
    assert_eq!(desc["texture"]["container"], "png");
    assert_eq!(desc["texture"]["supercompression"], "none");
    let decoder = png::Decoder::new(std::io::Cursor::new(std::fs::read(out.path().join("Fox.vat.png")).unwrap()));
    let mut reader = decoder.read_info().unwrap();
    let mut buf = vec![0; reader.output_buffer_size().unwrap()];
    let info = reader.next_frame(&mut buf).unwrap();
    assert_eq!((info.width, info.height, info.bit_depth), (1728, 162, png::BitDepth::Sixteen));
    let from_png: Vec<u16> = buf.chunks_exact(2).map(|b| u16::from_be_bytes([b[0], b[1]])).collect();
    let (_, stored) = read_ktx2(&ktx.path().join("Fox.vat.ktx2"));
    let ktx_description: serde_json::Value =
        serde_json::from_slice(&std::fs::read(ktx.path().join("Fox.vat.json")).unwrap()).unwrap();
    assert!(desc["settings"].get("delta").is_none() && desc["texture"].get("delta").is_none(), "a PNG has no delta");
    assert!(from_png == common::undo_delta(stored, &ktx_description), "PNG and KTX2 texels differ");
}

/// Every model file under `dir`, sorted; the generator's own folder (node_modules) is not a model.
fn models_under(dir: &std::path::Path, found: &mut Vec<std::path::PathBuf>) {
    let mut entries: Vec<_> = std::fs::read_dir(dir).unwrap().map(|e| e.unwrap().path()).collect();
    entries.sort();
    for path in entries {
        if path.is_dir() {
            // roster/baked: where the example roster wrote its units before they went to out/.
            if !path.ends_with("generate") && !path.ends_with("node_modules") && !path.ends_with("roster/baked") {
                models_under(&path, found);
            }
        } else if path.extension().is_some_and(|e| e == "glb" || e == "gltf") {
            found.push(path);
        }
    }
}

/// The list the issue asked for: a plain bake (no flags) of every model in fixtures/
/// succeeds, or is refused for the one reason a user must fix. A new fixture joins
/// the list by being there; a refusal must be listed here with its reason.
#[test]
fn every_fixture_bakes_with_no_flags_or_is_refused_for_its_one_reason() {
    const REFUSED: &[(&str, &str)] = &[
        (
            "variants/broken/ibm-scaled-100.glb",
            "against its skeleton, the evaluated mesh is 78.17× the size it has in the bind pose",
        ),
        // A character and its clips in two files: each alone is refused with the way to
        // bake them together (tests/animations.rs, tests/js/animations.test.mjs).
        ("variants/avatar-no-clips.glb", "or pass --animations FILE with an animation library"),
        ("variants/library-mixamo.glb", "goes with --animations after the character it is for"),
    ];
    let root = common::repo().join("fixtures");
    let mut models = Vec::new();
    models_under(&root, &mut models);
    assert!(models.len() >= 29, "{} models under fixtures/", models.len());
    let root = &root;
    let outcomes: Vec<(String, Option<i32>, String)> = std::thread::scope(|scope| {
        let jobs: Vec<_> = models
            .iter()
            .map(|model| {
                scope.spawn(move || {
                    let out = tempfile::tempdir().unwrap();
                    let o = vatbake(&["bake", model.to_str().unwrap(), "-o", out.path().to_str().unwrap()]);
                    let name = model.strip_prefix(root).unwrap().to_string_lossy().replace('\\', "/");
                    (name, o.status.code(), stderr(&o))
                })
            })
            .collect();
        jobs.into_iter().map(|j| j.join().unwrap()).collect()
    });
    for (name, code, message) in &outcomes {
        match REFUSED.iter().find(|(refused, _)| refused == name) {
            Some((_, reason)) => {
                assert_eq!(*code, Some(3), "{name}: {message}");
                assert!(message.contains(reason), "{name}: {message}");
                assert_eq!(message.lines().filter(|l| l.starts_with("error: ")).count(), 1, "{name}: {message}");
            }
            None => assert_eq!(*code, Some(0), "{name} does not bake with no flags: {message}"),
        }
    }
    for (refused, _) in REFUSED {
        assert!(outcomes.iter().any(|(name, ..)| name == refused), "{refused} is gone from fixtures/");
    }
}

/// The bake's findings as (code, message) pairs, from `--json`.
fn findings(report: &Value, kind: &str) -> Vec<(String, String)> {
    report[kind]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| (f["code"].as_str().unwrap().to_string(), f["message"].as_str().unwrap().to_string()))
        .collect()
}

#[test]
fn more_than_four_influences_are_baked_and_the_first_set_departure_reported() {
    let model = fixture("variants/two-weight-sets.glb");
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().to_str().unwrap();
    let o = vatbake(&["bake", model.to_str().unwrap(), "-o", out, "--json", "-q"]);
    assert!(o.status.success(), "{}", stderr(&o));
    let report: Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(
        findings(&report, "warnings"),
        [(
            "first-set-departure".to_string(),
            "points have more than 4 joint influences, all baked (the glTF rule); a runtime that reads only \
             JOINTS_0/WEIGHTS_0 (three.js's SkinnedMesh) puts them up to 6.636e-2 (3.703% of the bounds diagonal) \
             from this bake"
                .to_string()
        )]
    );
    // Four, the strongest: what a first-set runtime shows (the generator put the strongest
    // four in the first set, as Blender does), so the departure is nil and only noted.
    let o = vatbake(&["bake", model.to_str().unwrap(), "-o", out, "--json", "-q", "--max-influences", "4"]);
    assert!(o.status.success(), "{}", stderr(&o));
    let report: Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(findings(&report, "warnings"), []);
    let notes = findings(&report, "notes");
    assert!(notes.iter().any(|(code, m)| code == "first-set-departure" && m.contains("up to 0.000e0")), "{notes:?}");
    assert!(!notes.iter().any(|(code, _)| code == "influences-cut"), "the cut asked for is not reported: {notes:?}");
    let description: Value =
        serde_json::from_slice(&std::fs::read(dir.path().join("two-weight-sets.vat.json")).unwrap()).unwrap();
    assert_eq!(description["settings"]["max_influences"], 4);

    let o = vatbake(&["bake", model.to_str().unwrap(), "-o", out, "--max-influences", "9"]);
    assert_eq!(o.status.code(), Some(2));
    assert_eq!(stderr(&o), "error: --max-influences 9: give 1 to 8 joint influences per point\n");
}

#[test]
fn weights_that_do_not_sum_to_one_are_renormalized_and_reported_once() {
    // The Khronos CesiumMan ships 210 points whose weights do not sum to 1.
    let dir = tempfile::tempdir().unwrap();
    let model = fixture("CesiumMan/glTF-Binary/CesiumMan.glb");
    let o = vatbake(&["bake", model.to_str().unwrap(), "-o", dir.path().to_str().unwrap(), "--json", "-q"]);
    assert!(o.status.success(), "{}", stderr(&o));
    let report: Value = serde_json::from_slice(&o.stdout).unwrap();
    let renormalized: Vec<_> =
        findings(&report, "warnings").into_iter().filter(|(code, _)| code == "weights-renormalized").collect();
    assert_eq!(
        renormalized,
        [(
            "weights-renormalized".to_string(),
            "the joint weights of 210 points do not sum to 1 (worst sum 0.185); renormalized".to_string()
        )]
    );
}

/// Which clips loop is measured, not assumed: Kenney's `die`, `pick-up` and the two
/// wheelchair looks end away from where they start.
#[test]
fn only_clips_that_end_where_they_start_loop() {
    let (_out, desc) = bake(&fixture("Kenney-MiniCharacters/character-female-a.glb"), &[]);
    let clips = desc["clips"].as_array().unwrap();
    assert_eq!(clips.len(), 32);
    let looping = |name: &str| {
        let clip = clips.iter().find(|c| c["name"] == name).unwrap_or_else(|| panic!("no clip {name}"));
        clip["loop"].as_bool().unwrap_or_else(|| panic!("clip {name}: loop is not a boolean: {clip}"))
    };
    assert!(!looping("die"), "a death ends lying down");
    for name in ["idle", "walk", "sprint"] {
        assert!(looping(name), "{name}");
    }
    let one_shots: Vec<&str> =
        clips.iter().filter(|c| c["loop"] == false).map(|c| c["name"].as_str().unwrap()).collect();
    assert_eq!(one_shots, ["die", "pick-up", "wheelchair-look-left", "wheelchair-look-right"]);
}

/// Every field of the `--json` summary (docs/CLI.md), checked against the files it describes.
#[test]
fn json_summary_fields_agree_with_the_files() {
    let fox = fixture("Fox/Fox.glb");
    let summary = |dir: &std::path::Path, extra: &[&str]| -> Value {
        let mut args = vec!["bake", fox.to_str().unwrap(), "-o", dir.to_str().unwrap(), "--json"];
        args.extend_from_slice(extra);
        let o = vatbake(&args);
        assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
        assert!(o.stderr.is_empty(), "the Fox has no warnings: {}", stderr(&o));
        serde_json::from_slice(&o.stdout).unwrap()
    };
    let out = tempfile::tempdir().unwrap();
    let s = summary(out.path(), &["--points", "all"]);
    let mut keys: Vec<&str> = s.as_object().unwrap().keys().map(String::as_str).collect();
    keys.sort();
    assert_eq!(
        keys,
        [
            "bands",
            "clips",
            "decimation",
            "description_file",
            "files",
            "gpu_bytes",
            "height",
            "mesh_bytes",
            "notes",
            "points",
            "precision",
            "raw_texel_bytes",
            "rows",
            "size_ratio",
            "texture_bytes",
            "timings_ms",
            "warnings",
            "width"
        ]
    );
    let path = |name: &str| out.path().join(name).to_str().unwrap().to_string();
    assert_eq!(s["description_file"].as_str().unwrap(), path("Fox.vat.json"));
    assert_eq!(s["files"], serde_json::json!([path("Fox.vat.ktx2"), path("Fox.rest.glb"), path("Fox.vat.json")]));
    let desc: Value = serde_json::from_slice(&std::fs::read(out.path().join("Fox.vat.json")).unwrap()).unwrap();
    assert_eq!((&s["points"], &s["rows"], &s["clips"]), (&1728.into(), &162.into(), &3.into()));
    assert_eq!((&s["width"], &s["height"], &s["bands"]), (&1728.into(), &162.into(), &1.into()));
    assert_eq!(s["width"], desc["texture"]["width"]);
    assert_eq!(s["height"], desc["texture"]["height"]);
    let size = |name: &str| std::fs::metadata(out.path().join(name)).unwrap().len();
    assert_eq!(s["texture_bytes"].as_u64(), Some(size("Fox.vat.ktx2")));
    assert_eq!(s["texture_bytes"], desc["texture"]["bytes"]);
    assert_eq!(s["mesh_bytes"].as_u64(), Some(size("Fox.rest.glb")));
    assert_eq!(s["raw_texel_bytes"], 1728 * 162 * 8);
    let (_, texels) = read_ktx2(&out.path().join("Fox.vat.ktx2"));
    assert_eq!(texels.len() * 2, 1728 * 162 * 8, "the level inflates to raw_texel_bytes");
    assert_eq!(s["precision"].as_f64(), desc["positions"]["precision"].as_f64());
    assert!(s["precision"].as_f64().unwrap() > 0.0);
    assert!((s["size_ratio"].as_f64().unwrap() - 1.0).abs() < 1e-3, "{}", s["size_ratio"]);
    assert!(s["decimation"].is_null() && desc["decimation"].is_null());
    assert_eq!(s["warnings"], serde_json::json!([]));
    assert_eq!(s["notes"], serde_json::json!([]), "--points all: nothing to say about decimation");

    let stages = ["load", "decimate", "evaluate", "bounds", "measure", "pack", "encode", "write"];
    let timings = s["timings_ms"].as_object().unwrap();
    assert_eq!(timings.len(), stages.len() + 4, "{timings:?}");
    // pack's three parts: each within the stage's wall time, and they cover most of it.
    let pack = timings["pack"].as_f64().unwrap();
    let parts: Vec<f64> =
        ["pack_evaluate", "pack_compress", "pack_write"].iter().map(|p| timings[*p].as_f64().unwrap()).collect();
    assert!(parts.iter().all(|&p| p > 0.0 && p <= pack + 0.01), "{parts:?} of {pack}");
    assert!(parts.iter().sum::<f64>() >= 0.5 * pack, "{parts:?} of {pack}");
    let mut sum = 0.0;
    for stage in stages {
        let ms = timings[stage].as_f64().unwrap_or_else(|| panic!("{stage}"));
        assert!(ms >= 0.0, "{stage}: {ms}");
        sum += ms;
    }
    let total = timings["total"].as_f64().unwrap();
    // The total is measured around the stages (argument handling aside), rounded to µs.
    assert!(total + 0.01 >= sum, "total {total} ms is less than the stages' {sum} ms");
    assert!(total < sum + 1000.0, "total {total} ms, stages {sum} ms");

    // The default budget: a note, as an object with a stable code and a message.
    let out = tempfile::tempdir().unwrap();
    let s = summary(out.path(), &[]);
    assert!(s["decimation"].is_null());
    assert_eq!(s["notes"].as_array().unwrap().len(), 1, "{}", s["notes"]);
    let note = &s["notes"][0];
    assert_eq!(note["code"], "nothing-to-decimate");
    assert!(note["message"].as_str().unwrap().contains("4000"), "{note}");
    assert!(note.as_object().unwrap().keys().all(|k| ["code", "message", "advice"].contains(&k.as_str())), "{note}");

    // A decimated bake: the decimation object is the description's.
    let out = tempfile::tempdir().unwrap();
    let s = summary(out.path(), &["--points", "600"]);
    let desc: Value = serde_json::from_slice(&std::fs::read(out.path().join("Fox.vat.json")).unwrap()).unwrap();
    assert_eq!(s["decimation"], desc["decimation"]);
    assert_eq!(s["decimation"]["source_points"], 1728);
    assert_eq!(s["decimation"]["points"], s["points"]);
    assert!(s["points"].as_u64().unwrap() <= 600);
    assert_eq!(s["raw_texel_bytes"], s["width"].as_u64().unwrap() * s["height"].as_u64().unwrap() * 8);
}

/// `-q` prints nothing at all, on a model whose clip names make warnings (and `--json -q`
/// prints the summary alone).
#[test]
fn quiet_bakes_print_nothing() {
    let model = fixture("MorphStressTest/MorphStressTest.gltf");
    let out = tempfile::tempdir().unwrap();
    let dir = out.path().to_str().unwrap();
    let loud = vatbake(&["bake", model.to_str().unwrap(), "-o", dir]);
    assert!(loud.status.success());
    assert!(stderr(&loud).contains("warning: 2 clips match no slot"), "{}", stderr(&loud));
    let quiet = vatbake(&["bake", model.to_str().unwrap(), "-o", dir, "-q"]);
    assert_eq!(quiet.status.code(), Some(0));
    assert_eq!((stderr(&quiet).as_str(), String::from_utf8_lossy(&quiet.stdout).as_ref()), ("", ""));
    let quiet_json = vatbake(&["bake", model.to_str().unwrap(), "-o", dir, "-q", "--json"]);
    assert_eq!(quiet_json.status.code(), Some(0));
    assert!(quiet_json.stderr.is_empty(), "{}", stderr(&quiet_json));
    let summary: Value = serde_json::from_slice(&quiet_json.stdout).unwrap();
    assert_eq!(summary["warnings"][0]["code"], "unassigned-clips", "the findings are still in the summary");
}

/// The zstd command-line tool, the reference inflater, reads the level of a real bake.
#[test]
fn the_zstd_tool_inflates_a_real_bake() {
    use std::io::Write;
    use std::process::{Command, Stdio};
    let Ok(version) = Command::new("zstd").arg("--version").output() else {
        // tests/run.sh (the README's test command, and CI) installs the tool and sets this.
        assert!(
            std::env::var_os("VAT_REQUIRE_ZSTD").is_none(),
            "the zstd command-line tool is not installed (apt-get install zstd)"
        );
        println!("note: skipped, the zstd command-line tool is not installed (apt-get install zstd)");
        return;
    };
    println!("{}", String::from_utf8_lossy(&version.stdout).trim());
    let (out, desc) = bake(&fixture("Fox/Fox.glb"), &["--points", "all"]);
    let bytes = std::fs::read(out.path().join("Fox.vat.ktx2")).unwrap();
    let reader = ktx2::Reader::new(&bytes[..]).unwrap();
    let level = reader.levels().next().unwrap().data.to_vec();
    let mut child =
        Command::new("zstd").args(["-d", "-c", "-q"]).stdin(Stdio::piped()).stdout(Stdio::piped()).spawn().unwrap();
    let mut stdin = child.stdin.take().unwrap();
    let compressed = level.clone();
    let feeder = std::thread::spawn(move || stdin.write_all(&compressed));
    let output = child.wait_with_output().unwrap();
    feeder.join().unwrap().unwrap();
    assert!(output.status.success(), "zstd -d failed: {}", String::from_utf8_lossy(&output.stderr));
    let raw_texel_bytes = desc["texture"]["width"].as_u64().unwrap() * desc["texture"]["height"].as_u64().unwrap() * 8;
    assert_eq!(output.stdout.len() as u64, raw_texel_bytes);
    assert_eq!(raw_texel_bytes, 1728 * 162 * 8);
    assert!(output.stdout == zstd::decode_all(&level[..]).unwrap(), "the tool and the zstd crate agree");
}

/// One vocabulary: `1 clip`, not `1 clips`, in bake's and verify's lines; `-o/--out` for
/// preview's sheet as for every output; `--json` for audit as everywhere else.
#[test]
fn one_clip_is_a_clip_and_every_output_flag_is_out() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("out");
    let model = fixture("SimpleSkin/SimpleSkin.gltf");
    let o = vatbake(&["bake", model.to_str().unwrap(), "-o", out.to_str().unwrap(), "-v"]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let text = String::from_utf8_lossy(&o.stdout);
    assert!(text.contains(" rows in 1 clip; texture "), "{text}");
    let description = out.join("SimpleSkin.vat.json");
    let o = vatbake(&["verify", description.to_str().unwrap()]);
    let text = String::from_utf8_lossy(&o.stdout);
    assert!(text.contains(": 1 clip, tolerance "), "{text}");
    let sheet = dir.path().join("sheet.png");
    let o = vatbake(&["preview", description.to_str().unwrap(), "--out", sheet.to_str().unwrap(), "--frames", "2"]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert!(sheet.is_file());
    let o = vatbake(&["audit", out.to_str().unwrap(), "--json"]);
    let report: Value = serde_json::from_slice(&o.stdout).unwrap_or_else(|_| panic!("{}", stderr(&o)));
    assert_eq!(report["results"].as_array().map(Vec::len), Some(1), "{report}");
}

/// Several models in one command, without a roster: each baked into OUTDIR under its
/// own name, `--json` an array in the order given; two models that would bake to the
/// same name, or `--name` with several, are refused before anything is written.
#[test]
fn several_models_bake_in_one_command() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("out");
    let (fox, skin) = (fixture("Fox/Fox.glb"), fixture("SimpleSkin/SimpleSkin.gltf"));
    let o = vatbake(&["bake", fox.to_str().unwrap(), skin.to_str().unwrap(), "-o", out.to_str().unwrap(), "--json"]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let reports: Value = serde_json::from_slice(&o.stdout).unwrap();
    let points: Vec<u64> = reports.as_array().unwrap().iter().map(|r| r["points"].as_u64().unwrap()).collect();
    assert_eq!(points, [1728, 10]);
    assert!(out.join("Fox.vat.json").is_file() && out.join("SimpleSkin.vat.json").is_file());

    let again = dir.path().join("again");
    let o = vatbake(&["bake", fox.to_str().unwrap(), fox.to_str().unwrap(), "-o", again.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains("both would bake to Fox.vat.json in "), "{}", stderr(&o));
    let o =
        vatbake(&["bake", fox.to_str().unwrap(), skin.to_str().unwrap(), "-o", again.to_str().unwrap(), "--name", "x"]);
    assert_eq!(o.status.code(), Some(2));
    assert_eq!(
        stderr(&o),
        "error: --name names one bake; with several models each is named after its file (or use a roster)\n"
    );
    assert!(!again.exists());
}

/// `--no-warn CODES` silences those warnings alone (a character with many clips the
/// alias table does not know prints 7 slot warnings and their hints without it), and
/// `--json` still reports them.
#[test]
fn no_warn_silences_the_codes_given_and_no_other() {
    let dir = tempfile::tempdir().unwrap();
    let model = fixture("Kenney-MiniCharacters/character-female-a.glb");
    let bake = |extra: &[&str]| {
        let mut args = vec!["bake", model.to_str().unwrap(), "-o", dir.path().to_str().unwrap()];
        args.extend_from_slice(extra);
        let o = vatbake(&args);
        assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
        o
    };
    let all = stderr(&bake(&[]));
    assert_eq!(all.lines().filter(|l| l.starts_with("warning: ")).count(), 7, "{all}");
    let some = stderr(&bake(&["--no-warn", "unassigned-clips"]));
    assert_eq!(some.lines().filter(|l| l.starts_with("warning: ")).count(), 6, "{some}");
    assert!(!some.contains("match no slot"), "{some}");
    assert_eq!(stderr(&bake(&["--no-warn", "unassigned-clips,duplicate-slot"])), "");
    let o = bake(&["--no-warn", "unassigned-clips,duplicate-slot", "--json"]);
    let report: Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(report["warnings"].as_array().map(Vec::len), Some(7), "{report}");
}

/// `--dry-run` says what the bake would write, and writes nothing into OUTDIR.
#[test]
fn a_dry_run_says_what_it_would_write_and_writes_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("out");
    let fox = fixture("Fox/Fox.glb");
    let o = vatbake(&["bake", fox.to_str().unwrap(), "-o", out.to_str().unwrap(), "--dry-run"]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let text = String::from_utf8_lossy(&o.stdout);
    let expected = format!(
        "would bake {} → {}: 1728 points × 162 rows, 3 clips, KTX2+Zstd 316.9 KB (raw 2.2 MB), ",
        fox.display(),
        out.join("Fox.vat.json").display()
    );
    assert!(text.starts_with(&expected), "{text}");
    assert!(!out.exists(), "a dry run wrote {}", out.display());
    let o = vatbake(&["bake", fox.to_str().unwrap(), "-o", out.to_str().unwrap(), "--dry-run", "--json"]);
    let report: Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(report["description_file"], out.join("Fox.vat.json").to_str().unwrap());
    assert_eq!(report["files"].as_array().map(Vec::len), Some(3), "{report}");
    assert!(!out.exists());
}

/// A dry run and `inspect` of a source make their bake in memory: they work with no
/// usable temporary folder, and an earlier bake in OUTDIR keeps every byte and no
/// stranger file appears beside it (no staging, no stale-file removal).
#[test]
fn a_dry_run_and_inspect_write_nowhere() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("out");
    let fox = fixture("Fox/Fox.glb");
    let (fox_path, out_path) = (fox.to_str().unwrap(), out.to_str().unwrap());
    let o = vatbake(&["bake", fox_path, "-o", out_path, "-q", "--format", "openvat"]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let listing = |folder: &Path| -> Vec<(String, Vec<u8>)> {
        let mut files: Vec<_> = std::fs::read_dir(folder)
            .unwrap()
            .map(|e| e.unwrap().path())
            .map(|p| (p.file_name().unwrap().to_string_lossy().into_owned(), std::fs::read(&p).unwrap()))
            .collect();
        files.sort();
        files
    };
    let before = listing(&out);
    let nowhere = dir.path().join("no such folder");
    let run = |args: &[&str]| {
        let o = std::process::Command::new(env!("CARGO_BIN_EXE_vatbake"))
            .args(args)
            .env("TMPDIR", &nowhere)
            .output()
            .unwrap();
        assert_eq!(o.status.code(), Some(0), "{args:?}: {}", stderr(&o));
        String::from_utf8_lossy(&o.stdout).into_owned()
    };
    // Without --format openvat the bake would remove the earlier bake's OpenVAT files.
    let text = run(&["bake", fox_path, "-o", out_path, "--dry-run"]);
    assert!(text.starts_with("would bake "), "{text}");
    let text = run(&["inspect", fox_path]);
    assert!(text.contains("316.9 KB"), "{text}");
    assert_eq!(listing(&out), before);
    assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 1, "only the bake's folder");
    assert!(!nowhere.exists());
}
