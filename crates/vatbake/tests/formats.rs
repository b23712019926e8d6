//! `--format`: another tool's files beside the bake. The default (`vatbake`) writes the
//! same bytes as no flag; each format writes the files its players expect, named as
//! they expect them; a wrong name is a usage error (exit 2) that lists the choices
//! (in a roster, that unit fails with the same message). Decoding each format in its players is
//! in tests/browser/players.test.mjs (PlayCanvas), tests/browser/three-vat.test.mjs (VAT 3),
//! tests/js/openvat.test.mjs and tests/js/vat3.test.mjs.

mod common;

use common::{bake, fixture, stderr, vatbake};
use strum::IntoEnumIterator;
use vatbake::settings::{OutputFormat, Target};

fn files(dir: &std::path::Path) -> Vec<String> {
    let mut names: Vec<String> =
        std::fs::read_dir(dir).unwrap().map(|e| e.unwrap().file_name().to_string_lossy().into_owned()).collect();
    names.sort();
    names
}

#[test]
fn format_vatbake_is_the_default_byte_for_byte() {
    let model = fixture("RiggedSimple/rigged-simple.gltf");
    let (plain, description) = bake(&model, &["--points", "all"]);
    let (flagged, _) = bake(&model, &["--points", "all", "--format", "vatbake"]);
    assert!(description["settings"].get("format").is_none(), "no format field by default");
    assert!(description.get("exports").is_none(), "no exports field by default");
    for name in files(plain.path()) {
        let (a, b) =
            (std::fs::read(plain.path().join(&name)).unwrap(), std::fs::read(flagged.path().join(&name)).unwrap());
        assert_eq!(a, b, "{name} differs with --format vatbake");
    }
    assert_eq!(files(plain.path()), ["rigged-simple.rest.glb", "rigged-simple.vat.json", "rigged-simple.vat.ktx2"]);
}

/// Every `--format` of the registry, baked: its players' files beside the bake's own, each
/// recorded in the description (the names each writer gives are vat-export's cases).
#[test]
fn each_format_writes_its_players_files_beside_the_bake() {
    let model = fixture("RiggedSimple/rigged-simple.gltf");
    let own = ["rigged-simple.rest.glb", "rigged-simple.vat.json", "rigged-simple.vat.ktx2"];
    for format in OutputFormat::iter() {
        let (dir, description) = bake(&model, &["--points", "all", "--format", format.as_str()]);
        let recorded = &description["settings"]["format"];
        if format == OutputFormat::Vatbake {
            assert!(
                recorded.is_null() && description.get("exports").is_none(),
                "{format}: the default records neither"
            );
        } else {
            assert_eq!(recorded, format.as_str());
        }
        assert_eq!(description["bones"].is_object(), format.needs_bones(), "{format}: a bone bake or not");
        // The description records each of them as written: name, size and SHA-256.
        let exports = description["exports"].as_array().cloned().unwrap_or_default();
        assert_eq!(exports.is_empty(), format == OutputFormat::Vatbake, "{format}: {exports:?}");
        let mut want: Vec<String> = own.iter().map(|s| s.to_string()).collect();
        want.extend(exports.iter().map(|e| e["file"].as_str().unwrap().to_string()));
        want.sort();
        assert_eq!(files(dir.path()), want, "{format}");
        for e in &exports {
            let bytes = std::fs::read(dir.path().join(e["file"].as_str().unwrap())).unwrap();
            assert_eq!(e["bytes"], bytes.len(), "{format}: {e}");
            assert_eq!(e["sha256"], vatbake::description::sha256_hex(&bytes), "{format}: {e}");
        }
    }
    let (dir, _) = bake(&model, &["--points", "all", "--format", "playcanvas"]);
    let vat = std::fs::read(dir.path().join("rigged-simple.vat")).unwrap();
    assert_eq!(&vat[..8], b"PVAT\x01\0\0\0");
    assert_eq!(u32::from_le_bytes(vat[8..12].try_into().unwrap()) as usize, vat.len());
}

#[test]
fn a_wrong_format_is_refused_with_the_choices_and_exit_2() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("out");
    let model = fixture("RiggedSimple/rigged-simple.gltf");
    let o = vatbake(&["bake", model.to_str().unwrap(), "-o", out.to_str().unwrap(), "--format", "fbx"]);
    let message = stderr(&o);
    assert_eq!(o.status.code(), Some(2), "{message}");
    assert!(
        message.contains("\"fbx\" is not an output format: give one of vatbake, openvat, vat3, playcanvas"),
        "{message}"
    );
    assert!(!out.exists(), "nothing written");

    std::fs::copy(&model, dir.path().join("rigged-simple.gltf")).unwrap();
    let roster = dir.path().join("roster.toml");
    std::fs::write(
        &roster,
        "output = \"out\"\n[[unit]]\nname = \"a\"\nsource = \"rigged-simple.gltf\"\nformat = \"gltf\"\n",
    )
    .unwrap();
    // A roster isolates the unit: it fails with the same message, the roster exits 1 (docs/CLI.md).
    let o = vatbake(&["roster", roster.to_str().unwrap()]);
    let message = stderr(&o);
    assert_eq!(o.status.code(), Some(1), "{message}");
    assert!(
        message.contains("\"gltf\" is not an output format: give one of vatbake, openvat, vat3, playcanvas"),
        "{message}"
    );
}

#[test]
fn a_wrong_target_and_vat3_of_a_bone_bake_are_refused_with_exit_2_and_nothing_written() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("out");
    let model = fixture("RiggedSimple/rigged-simple.gltf");
    let run = |extra: &[&str]| {
        let mut args = vec!["bake", model.to_str().unwrap(), "-o", out.to_str().unwrap()];
        args.extend_from_slice(extra);
        let o = vatbake(&args);
        (o.status.code(), stderr(&o))
    };
    let (code, message) = run(&["--target", "maya"]);
    assert_eq!(code, Some(2), "{message}");
    assert!(
        message.contains("\"maya\" is not a target: give one of three, babylon, playcanvas, godot, unity, unreal"),
        "{message}"
    );
    let (code, message) = run(&["--format", "vat3", "--mode", "bones"]);
    assert_eq!(code, Some(2), "{message}");
    assert!(
        message.contains("--format vat3 with --mode bones: that format holds vertex positions; give --mode vertices"),
        "{message}"
    );
    assert!(!out.exists(), "nothing written");
}

#[test]
fn target_three_is_the_default_byte_for_byte() {
    let model = fixture("RiggedSimple/rigged-simple.gltf");
    let (plain, description) = bake(&model, &["--points", "all"]);
    let (flagged, _) = bake(&model, &["--points", "all", "--target", "three"]);
    assert!(description.get("target").is_none(), "no target record by default");
    assert_eq!(files(plain.path()), files(flagged.path()));
    for name in files(plain.path()) {
        let (a, b) =
            (std::fs::read(plain.path().join(&name)).unwrap(), std::fs::read(flagged.path().join(&name)).unwrap());
        assert_eq!(a, b, "{name} differs with --target three");
    }
}

/// Every texel of a ZIP-compressed scanline OpenEXR with float channels A, B, G, R, as
/// RGBA rows top first: the header skipped attribute by attribute, each chunk found through
/// the offset table, inflated with flate2 and its byte predictor and split undone as the
/// OpenEXR layout describes them (written here apart from vat-export's writer).
fn read_exr(exr: &[u8], width: usize, height: usize) -> Vec<[f32; 4]> {
    let mut at = 8;
    let text_end = |from: usize| from + exr[from..].iter().position(|&b| b == 0).unwrap();
    while exr[at] != 0 {
        let kind = text_end(at) + 1;
        let size_at = text_end(kind) + 1;
        at = size_at + 4 + i32::from_le_bytes(exr[size_at..size_at + 4].try_into().unwrap()) as usize;
    }
    let table = at + 1;
    let mut pixels = vec![[0f32; 4]; width * height];
    for block in 0..height.div_ceil(16) {
        let chunk = u64::from_le_bytes(exr[table + 8 * block..table + 8 * block + 8].try_into().unwrap()) as usize;
        let first = i32::from_le_bytes(exr[chunk..chunk + 4].try_into().unwrap()) as usize;
        assert_eq!(first, block * 16);
        let size = i32::from_le_bytes(exr[chunk + 4..chunk + 8].try_into().unwrap()) as usize;
        let lines = 16.min(height - first);
        let data = &exr[chunk + 8..chunk + 8 + size];
        let raw = if size < lines * width * 16 {
            let mut t = Vec::new();
            std::io::Read::read_to_end(&mut flate2::read::ZlibDecoder::new(data), &mut t).unwrap();
            for i in 1..t.len() {
                t[i] = (t[i] as i32 + t[i - 1] as i32 - 128) as u8;
            }
            let (even, odd) = t.split_at(t.len().div_ceil(2));
            (0..t.len()).map(|i| if i % 2 == 0 { even[i / 2] } else { odd[i / 2] }).collect()
        } else {
            data.to_vec()
        };
        for line in 0..lines {
            for (k, channel) in [3, 2, 1, 0].into_iter().enumerate() {
                for x in 0..width {
                    let i = 4 * ((line * 4 + k) * width + x);
                    pixels[(first + line) * width + x][channel] = f32::from_le_bytes(raw[i..i + 4].try_into().unwrap());
                }
            }
        }
    }
    pixels
}

#[test]
fn each_target_writes_the_engines_space_and_decodes_back_onto_three() {
    let model = fixture("RiggedSimple/rigged-simple.gltf");
    let (three, reference) = bake(&model, &["--points", "all"]);
    let ktx2 = std::fs::read(three.path().join("rigged-simple.vat.ktx2")).unwrap();
    let texels = common::undo_delta(common::read_ktx2(&three.path().join("rigged-simple.vat.ktx2")).1, &reference);
    let (width, height) = (
        reference["texture"]["width"].as_u64().unwrap() as usize,
        reference["texture"]["height"].as_u64().unwrap() as usize,
    );
    let number = |v: &serde_json::Value, i: usize| v[i].as_f64().unwrap();
    // Every engine of the registry but three (the bake's own space); each one's axes and
    // scale are checked against its importer in vat-export's cases.
    for target in Target::iter().filter(|t| t.has_record()) {
        let convention = target.convention();
        let (axes, scale, exr) = (convention.axis_words(), convention.scale as f64, target.has_file());
        let target = target.as_str();
        let (dir, description) = bake(&model, &["--points", "all", "--target", target]);
        let record = &description["target"];
        assert_eq!(record["name"], target);
        assert_eq!(record["axes_from_gltf"], serde_json::json!(axes), "{target}");
        assert_eq!(record["scale"].as_f64().unwrap(), scale, "{target}");
        assert_eq!(std::fs::read(dir.path().join("rigged-simple.vat.ktx2")).unwrap(), ktx2, "{target}: own KTX2");
        let mut want = vec!["rigged-simple.rest.glb", "rigged-simple.vat.json", "rigged-simple.vat.ktx2"];
        let exr_name = format!("rigged-simple-{target}.exr");
        if exr {
            want.insert(0, &exr_name);
        }
        assert_eq!(files(dir.path()), want, "{target}");
        // Every texel: the engine's channel i decodes to ±scale × glTF axis axes[i]; alpha is the
        // octahedral code, as a float t / 65535.
        let image = exr.then(|| read_exr(&std::fs::read(dir.path().join(&exr_name)).unwrap(), width, height));
        let (mut worst, mut worst_box) = (0f64, 0f64);
        for y in 0..height {
            for x in 0..width {
                for (i, word) in axes.iter().map(|a| a.as_str()).enumerate() {
                    let axis = "xyz".find(&word[1..]).unwrap();
                    let sign = if word.starts_with('-') { -1.0 } else { 1.0 };
                    let t = texels[(y * width + x) * 4 + axis] as f64 / 65535.0;
                    let gltf = (t * 2.0 - 1.0) * number(&reference["positions"]["half_extent"], axis)
                        + number(&reference["positions"]["center"], axis);
                    let stored = match &image {
                        Some(image) => image[y * width + x][i] as f64,
                        None => texels[(y * width + x) * 4 + i] as f64 / 65535.0,
                    };
                    let engine =
                        (stored * 2.0 - 1.0) * number(&record["half_extent"], i) + number(&record["center"], i);
                    let step = 2.0 * number(&reference["positions"]["half_extent"], axis) / 65535.0;
                    worst = worst.max(((engine * sign / scale - gltf).abs() - 0.5 * step) / step.max(1e-30));
                    let (lo, hi) = (number(&record["bounds_min"], i), number(&record["bounds_max"], i));
                    worst_box = worst_box.max((lo - engine).max(engine - hi) / scale);
                }
            }
        }
        assert!(worst <= 1e-3, "{target}: a texel lands {worst} steps beyond half a 16-bit step");
        assert!(worst_box <= 1e-5, "{target}: a position lies {worst_box} m outside target.bounds");
    }
}

/// Runs `vatbake roster` (exit 0) on RiggedSimple copied into a fresh folder, with
/// `output = "out"`, `points = "all"` in `[defaults]` and `rest` after that line; gives
/// the folder (kept alive) and its `out`.
fn rigged_simple_roster(rest: &str) -> (tempfile::TempDir, std::path::PathBuf) {
    let dir = tempfile::tempdir().unwrap();
    for file in ["rigged-simple.gltf", "rigged-simple.bin"] {
        std::fs::copy(fixture(&format!("RiggedSimple/{file}")), dir.path().join(file)).unwrap();
    }
    let roster = dir.path().join("roster.toml");
    std::fs::write(&roster, format!("output = \"out\"\n[defaults]\npoints = \"all\"\n{rest}")).unwrap();
    let o = vatbake(&["roster", roster.to_str().unwrap(), "-q"]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let out = dir.path().join("out");
    (dir, out)
}

#[test]
fn a_roster_sets_the_target_per_unit() {
    let (_dir, out) = rigged_simple_roster(
        "target = \"unreal\"\n\n\
         [[unit]]\nname = \"ue\"\nsource = \"rigged-simple.gltf\"\n\n\
         [[unit]]\nname = \"u\"\nsource = \"rigged-simple.gltf\"\ntarget = \"unity\"\n",
    );
    assert!(files(&out.join("ue")).contains(&"ue-unreal.exr".to_string()));
    assert!(files(&out.join("u")).contains(&"u-unity.exr".to_string()));
    let unit: serde_json::Value =
        serde_json::from_slice(&std::fs::read(out.join("u").join("u.vat.json")).unwrap()).unwrap();
    assert_eq!(unit["target"]["name"], "unity");
}

#[test]
fn openvat_refuses_the_source_models_own_folder() {
    let dir = tempfile::tempdir().unwrap();
    let model = dir.path().join("rigged-simple.gltf");
    std::fs::copy(fixture("RiggedSimple/rigged-simple.gltf"), &model).unwrap();
    let o = vatbake(&["bake", model.to_str().unwrap(), "-o", dir.path().to_str().unwrap(), "--format", "openvat"]);
    let message = stderr(&o);
    assert_eq!(o.status.code(), Some(2), "{message}");
    assert!(
        message.contains("the folder of the model") && message.contains("give -o a folder of its own"),
        "{message}"
    );
    assert_eq!(files(dir.path()), ["rigged-simple.gltf"], "nothing written");
}

#[test]
fn a_roster_sets_the_format_per_unit() {
    let (_dir, out) = rigged_simple_roster(
        "\n\
         [[unit]]\nname = \"web\"\nsource = \"rigged-simple.gltf\"\nformat = \"playcanvas\"\n\n\
         [[unit]]\nname = \"plain\"\nsource = \"rigged-simple.gltf\"\n",
    );
    assert_eq!(files(&out), ["plain", "web"], "one folder per unit");
    let (web, plain) = (files(&out.join("web")), files(&out.join("plain")));
    assert!(web.contains(&"web.vat".to_string()), "{web:?}");
    assert_eq!(plain, ["plain.rest.glb", "plain.vat.json", "plain.vat.ktx2"]);
    let web: serde_json::Value =
        serde_json::from_slice(&std::fs::read(out.join("web").join("web.vat.json")).unwrap()).unwrap();
    assert_eq!(web["settings"]["format"], "playcanvas");
}

#[test]
fn vat3_holds_every_offset_frame_major_and_unit_quaternions() {
    // --max-width 64 wraps the points into bands: frame f is EXR lines f·bands .. (f + 1)·bands.
    let model = fixture("RiggedSimple/rigged-simple.gltf");
    let (dir, description) = bake(&model, &["--points", "all", "--format", "vat3", "--max-width", "64"]);
    let texels = common::undo_delta(common::read_ktx2(&dir.path().join("rigged-simple.vat.ktx2")).1, &description);
    let count = |key: &str| description[key].as_u64().unwrap() as usize;
    let (points, rows) = (count("points"), count("rows"));
    let (width, bands) = (
        description["texture"]["width"].as_u64().unwrap() as usize,
        description["texture"]["bands"].as_u64().unwrap() as usize,
    );
    assert!(bands > 1, "the test wraps into bands");
    let data: serde_json::Value =
        serde_json::from_slice(&std::fs::read(dir.path().join("rigged-simple_data.json")).unwrap()).unwrap();
    assert_eq!(data[0]["Frame Count"].as_u64().unwrap() as usize, rows);
    assert_eq!(data[0]["Vertex Count"].as_u64().unwrap() as usize, points);
    let height = rows * bands;
    let pos = read_exr(&std::fs::read(dir.path().join("rigged-simple_pos.exr")).unwrap(), width, height);
    let rot = read_exr(&std::fs::read(dir.path().join("rigged-simple_rot.exr")).unwrap(), width, height);
    let number = |v: &serde_json::Value, i: usize| v[i].as_f64().unwrap();
    let decode = |column: usize, row: usize, axis: usize| {
        let (x, band) = (column % width, column / width);
        let t = texels[((band * rows + row) * width + x) * 4 + axis] as f64 / 65535.0;
        (t * 2.0 - 1.0) * number(&description["positions"]["half_extent"], axis)
            + number(&description["positions"]["center"], axis)
    };
    // The rest position cancels out of a difference between frames.
    let mut worst = 0f64;
    for column in 0..points {
        let (x, band) = (column % width, column / width);
        let at = |frame: usize| (frame * bands + band) * width + x;
        for frame in 0..rows {
            for (axis, (now, first)) in pos[at(frame)].iter().zip(pos[at(0)]).take(3).enumerate() {
                let stored = *now as f64 - first as f64;
                worst = worst.max((stored - (decode(column, frame, axis) - decode(column, 0, axis))).abs());
            }
            let q = rot[at(frame)];
            assert!((q.iter().map(|c| c * c).sum::<f32>() - 1.0).abs() < 1e-5, "a unit quaternion");
        }
    }
    assert!(worst < 1e-5, "a stored offset is {worst} from the bake's");
}

#[test]
fn vat3_past_16384_lines_is_refused_with_what_to_change_and_nothing_written() {
    // Fox in bands of 8 columns: 216 bands × 162 frames = 34992 lines.
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("fox");
    let model = fixture("Fox/Fox.glb");
    let o = vatbake(&[
        "bake",
        model.to_str().unwrap(),
        "-o",
        out.to_str().unwrap(),
        "--format",
        "vat3",
        "--max-width",
        "8",
    ]);
    let message = stderr(&o);
    assert_eq!(o.status.code(), Some(2), "{message}");
    assert!(
        message.contains("--format vat3: 1728 points in 216 band(s) of 8 columns × 162 frames need a 8×34992 texture")
            && message.ends_with(
                "importers take: raise --max-width (up to 16384) for fewer bands, or lower --fps, --max-frames or --points\n"
            ),
        "{message}"
    );
    assert!(!out.exists(), "no output folder: {:?}", files(&out));
}

#[test]
fn root_motion_extract_is_refused_for_another_tools_format_with_nothing_written() {
    let dir = tempfile::tempdir().unwrap();
    let model = fixture("Fox/Fox.glb");
    for (format, motion) in [("vat3", "extract"), ("openvat", "keep,Walk=extract"), ("playcanvas", "extract")] {
        let out = dir.path().join(format);
        let o = vatbake(&[
            "bake",
            model.to_str().unwrap(),
            "-o",
            out.to_str().unwrap(),
            "--format",
            format,
            "--root-motion",
            motion,
        ]);
        let message = stderr(&o);
        assert_eq!(o.status.code(), Some(2), "{format}: {message}");
        assert!(
            message.contains(&format!("--root-motion extract with --format {format}: the motion"))
                && message.contains("give --root-motion zero to play in place"),
            "{message}"
        );
        assert!(!out.exists(), "{format}: no output folder");
    }
}
