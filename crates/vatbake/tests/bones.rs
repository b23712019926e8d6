//! `--mode bones` and `--format babylon` through the binary: what is written, what is
//! refused (exit 2, naming what to do, nothing written), and the same bytes at any thread
//! count. The matrices themselves are checked against three.js in tests/js/bones.test.mjs.

mod common;

use common::{bake, fixture, stderr, vatbake};

#[test]
fn a_bone_bake_writes_a_float_texture_of_joint_matrices_and_the_babylon_json() {
    let (dir, d) = bake(&fixture("Fox/Fox.glb"), &["--mode", "bones", "--format", "babylon"]);
    assert_eq!(d["settings"]["mode"], "bones");
    assert_eq!(d["settings"]["points"], "all");
    assert_eq!(d["bones"]["joints"], 24);
    assert_eq!(d["bones"]["influences"], 4);
    assert_eq!((d["texture"]["width"].as_u64(), d["texture"]["height"].as_u64()), (Some(96), Some(162)));
    assert_eq!(d["texture"]["vk_format"], 109);
    // Read with other people's code (the ktx2 crate, zstd), not vat-ktx2.
    let bytes = std::fs::read(dir.path().join("Fox.vat.ktx2")).unwrap();
    let reader = ktx2::Reader::new(&bytes[..]).expect("the ktx2 crate accepts the file");
    assert_eq!(reader.header().format, Some(ktx2::Format::R32G32B32A32_SFLOAT));
    let raw = zstd::decode_all(reader.levels().next().expect("one level").data).unwrap();
    let texels: Vec<f32> = raw.chunks_exact(4).map(|b| f32::from_le_bytes([b[0], b[1], b[2], b[3]])).collect();
    assert_eq!(texels.len(), 96 * 162 * 4);
    // Every matrix is affine: its fourth row is (0, 0, 0, 1).
    for matrix in texels.chunks_exact(16) {
        assert_eq!([matrix[3], matrix[7], matrix[11], matrix[15]], [0.0, 0.0, 0.0, 1.0]);
    }
    let babylon: serde_json::Value =
        serde_json::from_slice(&std::fs::read(dir.path().join("Fox.babylon.json")).unwrap()).unwrap();
    assert_eq!((babylon["width"].as_u64(), babylon["height"].as_u64()), (Some(100), Some(162)));
    assert_eq!(babylon["clips"][2]["name"], "Run");
    assert_eq!((babylon["clips"][2]["from"].as_u64(), babylon["clips"][2]["to"].as_u64()), (Some(126), Some(161)));
    assert_eq!(d["bones"]["babylon_file"], "Fox.babylon.json");
}

#[test]
fn a_bone_bake_is_the_same_bytes_at_any_thread_count() {
    let model = fixture("Kenney-MiniCharacters/character-female-a.glb");
    let files = |threads: &str| {
        let (dir, _) = bake(&model, &["--mode", "bones", "--format", "babylon", "--threads", threads]);
        ["character-female-a.vat.ktx2", "character-female-a.rest.glb", "character-female-a.babylon.json"]
            .map(|f| std::fs::read(dir.path().join(f)).unwrap())
    };
    assert!(files("1") == files("3"), "the files differ between 1 and 3 threads");
}

#[test]
fn what_a_bone_bake_cannot_take_is_refused_with_exit_2_and_nothing_written() {
    let out = tempfile::tempdir().unwrap();
    let o = out.path().to_str().unwrap();
    let cube = fixture("AnimatedMorphCube/AnimatedMorphCube.gltf");
    let fox = fixture("Fox/Fox.glb");
    let cases: [(&[&str], &str); 4] = [
        (
            &["bake", cube.to_str().unwrap(), "-o", o, "--mode", "bones"],
            "AnimatedMorphCube.gltf: clip \"Square\" animates the morph targets of node 0 \"AnimatedMorphCube\", which a bone bake cannot carry",
        ),
        (&["bake", fox.to_str().unwrap(), "-o", o, "--mode", "bones", "--points", "100"], "--points 100 with --mode bones"),
        (&["bake", fox.to_str().unwrap(), "-o", o, "--format", "babylon", "--mode", "vertices"], "--format babylon with --mode vertices"),
        (&["bake", fox.to_str().unwrap(), "-o", o, "--mode", "bones", "--texture-format", "png"], "--texture-format png with --mode bones"),
    ];
    for (args, message) in cases {
        let output = vatbake(args);
        assert_eq!(output.status.code(), Some(2), "{args:?}");
        assert!(stderr(&output).contains(message), "{args:?}: {}", stderr(&output));
    }
    assert!(stderr(&vatbake(cases[0].0)).contains("bake this model with --mode vertices"));
    assert_eq!(std::fs::read_dir(out.path()).unwrap().count(), 0, "nothing written");
}

#[test]
fn preview_refuses_a_bone_bake_with_exit_2() {
    let (dir, _) = bake(&fixture("Fox/Fox.glb"), &["--mode", "bones"]);
    let description = dir.path().join("Fox.vat.json");
    let sheet = dir.path().join("sheet.png");
    let output = vatbake(&["preview", description.to_str().unwrap(), "-o", sheet.to_str().unwrap()]);
    assert_eq!(output.status.code(), Some(2));
    assert!(
        stderr(&output).contains(
            "a bone bake (--mode bones): its texture holds joint matrices, not points, which this command does not \
             read; `vatbake inspect` and `vatbake verify` read it, and a bake with --mode vertices can be previewed\n"
        ),
        "{}",
        stderr(&output)
    );
    assert!(!sheet.exists());
}

/// `verify` of a bone bake: the float32 texture gives the source's poses back exactly,
/// the quat16 one within the 1e-4 tolerance (its error above 0, at the bake's own
/// measure); a matrix changed in the file is found and named (exit 1).
#[test]
fn verify_decodes_a_bone_bake_of_either_encoding_against_its_source() {
    let source = fixture("CesiumMan/glTF-Binary/CesiumMan.glb");
    let report = |description: &std::path::Path| {
        let output =
            vatbake(&["verify", description.to_str().unwrap(), "--source", source.to_str().unwrap(), "--json"]);
        let json: serde_json::Value = serde_json::from_slice(&output.stdout).unwrap();
        (output.status.code(), json)
    };
    let (float_dir, _) = bake(&source, &["--mode", "bones"]);
    let (code, r) = report(&float_dir.path().join("CesiumMan.vat.json"));
    assert_eq!((code, r["passed"].as_bool()), (Some(0), Some(true)), "{r}");
    assert_eq!(r["clips"][0]["max_error"], 0.0);
    assert_eq!(r["clips"][0]["rows_compared"], 61);
    let (dir, d) = bake(&source, &["--mode", "bones", "--bone-encoding", "quat16"]);
    let description = dir.path().join("CesiumMan.vat.json");
    let (code, r) = report(&description);
    assert_eq!((code, r["passed"].as_bool()), (Some(0), Some(true)), "{r}");
    let fraction = r["clips"][0]["max_error_fraction"].as_f64().unwrap();
    assert!(fraction > 1e-6 && fraction < 1e-4, "{fraction}");
    assert_eq!(r["clips"][0]["max_error"], d["bones"]["max_error"], "verify measures what the bake measured");
    assert!((r["tolerance"].as_f64().unwrap() / r["diagonal"].as_f64().unwrap() - 1e-4).abs() < 1e-9);
    // Between rows, what 30 rows per second leave: CesiumMan's one clip, 3.4e-3 of the diagonal.
    let between = r["clips"][0]["off_row_max_error_fraction"].as_f64().unwrap();
    assert!(r["clips"][0]["off_row_times"].as_u64().unwrap() > 0 && (3.3e-3..3.4e-3).contains(&between), "{between}");
    // The text says what was compared: a bone bake stores no normals, so its clip line
    // names the rows and the times between them, not normals.
    let text = vatbake(&["verify", description.to_str().unwrap(), "--source", source.to_str().unwrap()]);
    let line = String::from_utf8_lossy(&text.stdout).lines().nth(1).unwrap_or_default().to_string();
    assert!(line.contains("max ") && !line.contains("normals") && line.contains("between rows"), "{line}");

    // Joint 3's quaternion on row 10 turned: the KTX2 written again, the description told its new hash.
    let path = dir.path().join("CesiumMan.vat.ktx2");
    let bytes = std::fs::read(&path).unwrap();
    let reader = ktx2::Reader::new(&bytes[..]).unwrap();
    let mut texels: Vec<u16> = zstd::decode_all(reader.levels().next().unwrap().data)
        .unwrap()
        .chunks_exact(2)
        .map(|b| u16::from_le_bytes([b[0], b[1]]))
        .collect();
    let at = (10 * 38 + 3 * 2 + 1) * 4;
    texels.swap(at, at + 1);
    let image = vat_ktx2::Rgba16Image { width: 38, height: 61, texels };
    let edited = vat_ktx2::encode_ktx2(&image, &Default::default()).unwrap();
    std::fs::write(&path, &edited).unwrap();
    let mut d = d;
    d["texture"]["bytes"] = serde_json::json!(edited.len());
    d["texture"]["sha256"] = serde_json::json!(vat_description::sha256_hex(&edited));
    std::fs::write(&description, serde_json::to_vec_pretty(&d).unwrap()).unwrap();
    let (code, r) = report(&description);
    assert_eq!(code, Some(1), "{r}");
    assert_eq!(r["findings"][0]["code"], "over-tolerance", "{r}");
    let message = r["findings"][0]["message"].as_str().unwrap();
    assert!(message.contains("clip \"animation_0\": point ") && message.contains(" on row 10 is "), "{message}");
}

/// A GLB's JSON and binary chunk.
fn read_glb(path: &std::path::Path) -> (serde_json::Value, Vec<u8>) {
    let bytes = std::fs::read(path).unwrap();
    let json_len = u32::from_le_bytes(bytes[12..16].try_into().unwrap()) as usize;
    let json = serde_json::from_slice(&bytes[20..20 + json_len]).unwrap();
    let bin_len = u32::from_le_bytes(bytes[20 + json_len..24 + json_len].try_into().unwrap()) as usize;
    (json, bytes[28 + json_len..28 + json_len + bin_len].to_vec())
}

fn write_glb(path: &std::path::Path, json: &serde_json::Value, bin: &[u8]) {
    let mut text = serde_json::to_vec(json).unwrap();
    while !text.len().is_multiple_of(4) {
        text.push(b' ');
    }
    let total = 12 + 8 + text.len() + 8 + bin.len();
    let mut out = Vec::with_capacity(total);
    out.extend_from_slice(b"glTF");
    out.extend_from_slice(&2u32.to_le_bytes());
    out.extend_from_slice(&(total as u32).to_le_bytes());
    out.extend_from_slice(&(text.len() as u32).to_le_bytes());
    out.extend_from_slice(b"JSON");
    out.extend_from_slice(&text);
    out.extend_from_slice(&(bin.len() as u32).to_le_bytes());
    out.extend_from_slice(b"BIN\0");
    out.extend_from_slice(bin);
    std::fs::write(path, out).unwrap();
}

/// The robot of three.js's examples carries `weights` channels whose every key is the
/// mesh's default: they move no point, and a bone bake takes the model, with the same
/// texture and rest mesh as without those channels. One weight off its default by one
/// float step is refused as before.
#[test]
fn a_bone_bake_takes_weights_channels_that_hold_the_defaults() {
    let dir = tempfile::tempdir().unwrap();
    let (json, bin) = read_glb(&fixture("variants/skinned-morph.glb"));
    let defaults: Vec<f32> =
        json["meshes"][0]["weights"].as_array().unwrap().iter().map(|w| w.as_f64().unwrap() as f32).collect();
    assert_eq!(defaults, [0.3, 0.0], "the variant's default weights (fixtures/variants/README.md)");
    // The still copy: every weights key set to the defaults.
    let still = |nudge: bool| {
        let mut bin = bin.clone();
        let mut written = 0;
        for animation in json["animations"].as_array().unwrap() {
            for channel in animation["channels"].as_array().unwrap() {
                if channel["target"]["path"] != "weights" {
                    continue;
                }
                let sampler = &animation["samplers"][channel["sampler"].as_u64().unwrap() as usize];
                assert_eq!(sampler["interpolation"], "LINEAR");
                let accessor = &json["accessors"][sampler["output"].as_u64().unwrap() as usize];
                let view = &json["bufferViews"][accessor["bufferView"].as_u64().unwrap() as usize];
                let start = view["byteOffset"].as_u64().unwrap_or(0) + accessor["byteOffset"].as_u64().unwrap_or(0);
                for i in 0..accessor["count"].as_u64().unwrap() as usize {
                    let value = defaults[i % 2];
                    let value =
                        if nudge && written == 0 && i == 0 { f32::from_bits(value.to_bits() + 1) } else { value };
                    let at = start as usize + 4 * i;
                    bin[at..at + 4].copy_from_slice(&value.to_le_bytes());
                }
                written += 1;
            }
        }
        assert_eq!(written, 2, "idle's and walk's weights channels");
        bin
    };
    let still_path = dir.path().join("still.glb");
    write_glb(&still_path, &json, &still(false));
    // The same model without the channels.
    let mut bare = json.clone();
    for animation in bare["animations"].as_array_mut().unwrap() {
        animation["channels"].as_array_mut().unwrap().retain(|c| c["target"]["path"] != "weights");
    }
    let bare_path = dir.path().join("bare.glb");
    write_glb(&bare_path, &bare, &bin);

    let files = |path: &std::path::Path, stem: &str| {
        let (out, d) = bake(path, &["--mode", "bones", "--name", "unit"]);
        assert!(d["bones"].is_object(), "{stem}: a bone bake");
        ["unit.vat.ktx2", "unit.rest.glb"].map(|f| std::fs::read(out.path().join(f)).unwrap())
    };
    assert!(files(&still_path, "still") == files(&bare_path, "bare"), "the still channels change the bake");

    let nudged = dir.path().join("nudged.glb");
    write_glb(&nudged, &json, &still(true));
    let out = tempfile::tempdir().unwrap();
    for model in [nudged, fixture("variants/skinned-morph.glb")] {
        let output = vatbake(&["bake", model.to_str().unwrap(), "-o", out.path().to_str().unwrap(), "--mode", "bones"]);
        assert_eq!(output.status.code(), Some(2), "{}", model.display());
        assert!(stderr(&output).contains("clip \"idle\" animates the morph targets of node"), "{}", stderr(&output));
    }
}

/// The decoded matrices of a "quat16" bake's texture, by the words of
/// `bones.decode` (read with the ktx2 crate and zstd), `joints` a row.
fn quat16_matrices(dir: &std::path::Path, name: &str, d: &serde_json::Value) -> Vec<glam::Mat4> {
    let bytes = std::fs::read(dir.join(format!("{name}.vat.ktx2"))).unwrap();
    let reader = ktx2::Reader::new(&bytes[..]).expect("the ktx2 crate accepts the file");
    assert_eq!(reader.header().format, Some(ktx2::Format::R16G16B16A16_UNORM));
    let raw = zstd::decode_all(reader.levels().next().expect("one level").data).unwrap();
    let q = &d["bones"]["quantization"];
    let f = |v: &serde_json::Value| v.as_f64().unwrap() as f32;
    let (lo, hi) = (&q["translation_min"], &q["translation_max"]);
    let codes: Vec<f32> = raw.chunks_exact(2).map(|b| f32::from(u16::from_le_bytes([b[0], b[1]])) / 65535.0).collect();
    codes
        .chunks_exact(8)
        .map(|j| {
            let t = glam::Vec3::from_array(std::array::from_fn(|k| f(&lo[k]) + j[k] * (f(&hi[k]) - f(&lo[k]))));
            let s = f(&q["scale_min"]) + j[3] * (f(&q["scale_max"]) - f(&q["scale_min"]));
            let r = glam::Quat::from_xyzw(j[4] * 2.0 - 1.0, j[5] * 2.0 - 1.0, j[6] * 2.0 - 1.0, j[7] * 2.0 - 1.0);
            glam::Mat4::from_scale_rotation_translation(glam::Vec3::splat(s), r.normalize(), t)
        })
        .collect()
}

fn float_matrices(dir: &std::path::Path, name: &str) -> Vec<glam::Mat4> {
    let bytes = std::fs::read(dir.join(format!("{name}.vat.ktx2"))).unwrap();
    let reader = ktx2::Reader::new(&bytes[..]).unwrap();
    let raw = zstd::decode_all(reader.levels().next().unwrap().data).unwrap();
    let floats: Vec<f32> = raw.chunks_exact(4).map(|b| f32::from_le_bytes([b[0], b[1], b[2], b[3]])).collect();
    floats.chunks_exact(16).map(glam::Mat4::from_cols_slice).collect()
}

/// `--bone-encoding quat16`: 2 RGBA16 texels a joint (a quarter of the float bake's GPU
/// bytes), each matrix within a 16-bit step of the float bake's, the measured error
/// within 1e-4 of the diagonal; the rest mesh is the float bake's.
#[test]
fn a_quat16_bone_bake_is_a_quarter_of_the_gpu_bytes_within_the_tolerance() {
    let fox = fixture("Fox/Fox.glb");
    let (float_dir, f) = bake(&fox, &["--mode", "bones"]);
    let (dir, d) = bake(&fox, &["--mode", "bones", "--bone-encoding", "quat16"]);
    assert_eq!(d["settings"]["bone_encoding"], "quat16");
    assert!(f["settings"].get("bone_encoding").is_none(), "float32, the default, is not written");
    assert_eq!(d["bones"]["encoding"], "quat16");
    assert!(f["bones"].get("quantization").is_none());
    assert_eq!((d["texture"]["width"].as_u64(), d["texture"]["height"].as_u64()), (Some(48), Some(162)));
    assert_eq!(
        (d["texture"]["vk_format"].as_u64(), d["texture"]["format"].as_str()),
        (Some(91), Some("R16G16B16A16_UNORM"))
    );
    let diagonal = 2.0
        * d["positions"]["half_extent"]
            .as_array()
            .unwrap()
            .iter()
            .map(|v| v.as_f64().unwrap().powi(2))
            .sum::<f64>()
            .sqrt();
    let fraction = d["bones"]["max_error"].as_f64().unwrap() / diagonal;
    assert!(fraction > 1e-6 && fraction < 1e-4, "{fraction}");
    assert_eq!(
        std::fs::read(dir.path().join("Fox.rest.glb")).unwrap(),
        std::fs::read(float_dir.path().join("Fox.rest.glb")).unwrap()
    );
    let exact = float_matrices(float_dir.path(), "Fox");
    let stored = quat16_matrices(dir.path(), "Fox", &d);
    assert_eq!((exact.len(), stored.len()), (24 * 162, 24 * 162));
    let q = &d["bones"]["quantization"];
    let span = (0..3)
        .map(|k| q["translation_max"][k].as_f64().unwrap() - q["translation_min"][k].as_f64().unwrap())
        .fold(0.0, f64::max);
    for (i, (a, b)) in exact.iter().zip(&stored).enumerate() {
        let rotation = (0..3).map(|c| (a.col(c) - b.col(c)).abs().max_element()).fold(0.0, f32::max);
        let translation = (a.w_axis - b.w_axis).abs().max_element();
        assert!(rotation < 1e-4, "matrix {i}: 3×3 off by {rotation}");
        assert!(f64::from(translation) <= span / 65535.0 * 0.5 + 1e-4, "matrix {i}: translation off by {translation}");
    }
    // GPU bytes, as inspect reports them: a quarter.
    let gpu = |dir: &std::path::Path| {
        let output = vatbake(&["inspect", dir.join("Fox.vat.json").to_str().unwrap(), "--json"]);
        let v: serde_json::Value = serde_json::from_slice(&output.stdout).unwrap();
        (v["gpu_bytes"].as_u64().unwrap(), v["bones"]["encoding"].as_str().unwrap().to_string())
    };
    assert_eq!(gpu(float_dir.path()), (24 * 4 * 162 * 16, "float32".into()));
    assert_eq!(gpu(dir.path()), (24 * 2 * 162 * 8, "quat16".into()));
}

/// A joint with a non-uniform scale (squash) is no rotation times a uniform scale: the
/// bake says so and stores floats, the texture then the float bake's own bytes. A
/// vertex bake refuses the flag.
#[test]
fn a_rig_the_quat16_form_cannot_hold_is_baked_in_floats_with_a_warning() {
    let dir = tempfile::tempdir().unwrap();
    let (mut json, bin) = read_glb(&fixture("Fox/Fox.glb"));
    // b_Spine01_02, which no clip scales.
    assert_eq!(json["nodes"][5]["name"], "b_Spine01_02");
    json["nodes"][5]["scale"] = serde_json::json!([1.0, 1.6, 1.0]);
    let squashed = dir.path().join("squashed.glb");
    write_glb(&squashed, &json, &bin);
    let out = tempfile::tempdir().unwrap();
    let o = out.path().to_str().unwrap();
    let args = |encoding: &'static str| {
        [
            "bake",
            squashed.to_str().unwrap(),
            "-o",
            o,
            "--mode",
            "bones",
            "--bone-encoding",
            encoding,
            "--name",
            encoding,
        ]
    };
    let output = vatbake(&args("quat16"));
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    let warning = stderr(&output);
    assert!(warning.contains("warning: --bone-encoding quat16 would put points"), "{warning}");
    // The worst matrix is a child's: the parent's squash shears its rotating children.
    assert!(warning.contains("is not a rotation times a uniform scale (off by"), "{warning}");
    assert!(warning.contains("the matrices are stored as 32-bit floats (bones.encoding float32)"), "{warning}");
    let d: serde_json::Value =
        serde_json::from_slice(&std::fs::read(out.path().join("quat16.vat.json")).unwrap()).unwrap();
    assert_eq!(
        (d["settings"]["bone_encoding"].as_str(), d["bones"]["encoding"].as_str()),
        (Some("quat16"), Some("float32"))
    );
    assert_eq!(d["texture"]["vk_format"], 109);
    assert_eq!(d["bones"]["max_error"], 0.0);
    assert_eq!(vatbake(&args("float32")).status.code(), Some(0));
    assert_eq!(
        std::fs::read(out.path().join("quat16.vat.ktx2")).unwrap(),
        std::fs::read(out.path().join("float32.vat.ktx2")).unwrap()
    );
    let fox = fixture("Fox/Fox.glb");
    let output = vatbake(&["bake", fox.to_str().unwrap(), "-o", o, "--bone-encoding", "quat16", "--name", "vertices"]);
    assert_eq!(output.status.code(), Some(2));
    assert!(
        stderr(&output).contains("--bone-encoding quat16 with --mode vertices: it says how a bone bake stores"),
        "{}",
        stderr(&output)
    );
    assert!(!out.path().join("vertices.vat.json").exists());
}
