//! `vatbake pose`: a pose frozen into a static GLB. The guard (the written mesh's
//! bounding-box height against the evaluated pose's) fires on a mesh written the wrong
//! size and on no bundled fixture; a row of a bake is the clip at the row's time; bad
//! requests are refused naming the file and the fix, with nothing written.
//! three.js's evaluation of the same poses is checked in tests/js/pose.test.mjs.

mod common;

use std::path::{Path, PathBuf};

use common::{fixture, stderr, vatbake};
use vatbake::pose::{pose, pose_scaled, PoseOf, PoseSettings};

/// Every bundled model with clips: the eight characters, their Draco and gltfpack
/// (quantized, meshopt) versions, and the exporters' layouts of fixtures/variants.
fn models() -> Vec<PathBuf> {
    let mut models: Vec<PathBuf> = [
        "Fox/Fox.glb",
        "CesiumMan/glTF-Binary/CesiumMan.glb",
        "CesiumMan/glTF-Draco/CesiumMan.gltf",
        "Kenney-MiniCharacters/character-female-a.glb",
        "Kenney-PlatformerCharacter/character.glb",
        "MorphStressTest/MorphStressTest.gltf",
        "RiggedSimple/rigged-simple.gltf",
        "SimpleSkin/SimpleSkin.gltf",
        "AnimatedMorphCube/AnimatedMorphCube.gltf",
        "Fox/gltfpack/Fox.meshopt.glb",
    ]
    .iter()
    .map(|m| fixture(m))
    .collect();
    for folder in ["draco", "gltfpack", "variants"] {
        let mut files: Vec<PathBuf> = std::fs::read_dir(fixture(folder))
            .unwrap()
            .map(|e| e.unwrap().path())
            .filter(|p| p.extension().is_some_and(|e| e == "glb"))
            .filter(|p| !p.ends_with("avatar-no-clips.glb") && !p.ends_with("library-mixamo.glb"))
            .collect();
        files.sort();
        models.extend(files);
    }
    models
}

fn settings(input: &Path, of: PoseOf, out: &Path) -> PoseSettings {
    PoseSettings { input: input.to_path_buf(), of, out: out.to_path_buf() }
}

/// Y extent of a GLB's POSITION data, read with the `gltf` crate (one node, no transform).
fn height_of(path: &Path) -> f32 {
    let (document, buffers) = gltf_import(path);
    let mut ys = Vec::new();
    for mesh in document.meshes() {
        for primitive in mesh.primitives() {
            let accessor = primitive.get(&gltf::Semantic::Positions).unwrap();
            let view = accessor.view().unwrap();
            let data = &buffers[view.offset() + accessor.offset()..];
            ys.extend(
                (0..accessor.count()).map(|k| f32::from_le_bytes(data[k * 12 + 4..k * 12 + 8].try_into().unwrap())),
            );
        }
    }
    let max = ys.iter().copied().fold(f32::NEG_INFINITY, f32::max);
    max - ys.iter().copied().fold(f32::INFINITY, f32::min)
}

fn gltf_import(path: &Path) -> (gltf::Document, Vec<u8>) {
    let bytes = std::fs::read(path).unwrap();
    let glb = gltf::Gltf::from_slice_without_validation(&bytes).expect("the gltf crate reads the GLB");
    let blob = glb.blob.clone().expect("a binary chunk");
    (glb.document, blob)
}

/// POSITION and NORMAL of the first primitive (every primitive shares them).
fn vertices(path: &Path) -> (Vec<[f32; 3]>, Vec<[f32; 3]>) {
    let (document, blob) = gltf_import(path);
    let primitive = document.meshes().next().unwrap().primitives().next().unwrap();
    let read = |semantic: gltf::Semantic| {
        let accessor = primitive.get(&semantic).unwrap();
        let at = accessor.view().unwrap().offset() + accessor.offset();
        (0..accessor.count())
            .map(|k| {
                let f = |c: usize| f32::from_le_bytes(blob[at + k * 12 + c * 4..][..4].try_into().unwrap());
                [f(0), f(1), f(2)]
            })
            .collect::<Vec<_>>()
    };
    (read(gltf::Semantic::Positions), read(gltf::Semantic::Normals))
}

#[test]
fn the_guard_passes_every_bundled_fixture_at_the_start_middle_and_end_of_every_clip() {
    let out = tempfile::tempdir().unwrap();
    let file = out.path().join("pose.glb");
    let mut poses = 0;
    for model in models() {
        let rest = pose(&settings(&model, PoseOf::Rest, &file)).unwrap();
        assert!(!rest.clips.is_empty(), "{}: no clips", model.display());
        for clip in &rest.clips {
            for time in [0.0, clip.duration / 2.0, clip.duration] {
                let of = PoseOf::Clip { name: clip.name.clone(), time };
                let report = pose(&settings(&model, of, &file))
                    .unwrap_or_else(|e| panic!("{} \"{}\" at {time}: {}", model.display(), clip.name, e.message));
                assert!(report.height > 0.0 && report.written_height == report.height, "{report:?}");
                // The test's own reading of the file agrees.
                let height = height_of(&file);
                assert!((height - report.height).abs() <= 1e-6 * report.height, "{height} {report:?}");
                poses += 1;
            }
        }
    }
    assert!(poses >= 90, "{poses} poses");
}

#[test]
fn a_mesh_written_the_wrong_size_is_refused_naming_both_heights_and_nothing_is_written() {
    let out = tempfile::tempdir().unwrap();
    let file = out.path().join("fox.glb");
    let fox = fixture("Fox/Fox.glb");
    let of = PoseOf::Clip { name: "Run".into(), time: 0.5 };
    // The bone-scale trap's figure: a body 1.5 times the size the player sees.
    let error = pose_scaled(&settings(&fox, of.clone(), &file), 1.5).unwrap_err();
    assert_eq!(error.kind, vatbake::ErrorKind::Input);
    let evaluated = pose(&settings(&fox, of.clone(), &file)).unwrap().height;
    std::fs::remove_file(&file).unwrap();
    let start = format!("{}: not written: the mesh as written is 112.", file.display());
    let figures = format!("high, the evaluated pose {evaluated} (ratio 1.5000, more than 2% off)");
    assert!(error.message.starts_with(&start) && error.message.contains(&figures), "{}", error.message);
    // A collapsed smear (quantized positions written back as they were) too.
    let error = pose_scaled(&settings(&fox, of.clone(), &file), 0.01).unwrap_err();
    assert!(error.message.contains("(ratio 0.0100, more than 2% off)"), "{}", error.message);
    assert_eq!(std::fs::read_dir(out.path()).unwrap().count(), 0, "nothing written, no temporary file left");
    // An existing file is left as it was.
    std::fs::write(&file, b"before").unwrap();
    assert!(pose_scaled(&settings(&fox, of.clone(), &file), 1.021).is_err());
    assert_eq!(std::fs::read(&file).unwrap(), b"before");
    // Within 2%: written.
    let report = pose_scaled(&settings(&fox, of, &file), 1.019).unwrap();
    assert_eq!(report.written_height, report.height * 1.019);
}

#[test]
fn a_row_of_a_bake_is_its_clip_at_the_rows_time_within_the_bakes_precision() {
    let fox = fixture("Fox/Fox.glb");
    let (bake, description) = common::bake(&fox, &[]);
    let precision = description["positions"]["precision"].as_f64().unwrap() as f32;
    let (row_file, clip_file) = (bake.path().join("row.glb"), bake.path().join("clip.glb"));
    // Walk's row 10: rows 104..126 at its rate.
    let row = pose(&settings(&bake.path().join("Fox.vat.json"), PoseOf::Row(114), &row_file)).unwrap();
    assert_eq!((row.clip.as_deref(), row.row), (Some("Walk"), Some(114)));
    let time = row.time.unwrap();
    let clip = pose(&settings(&fox, PoseOf::Clip { name: "Walk".into(), time }, &clip_file)).unwrap();
    assert_eq!((row.vertices, row.triangles), (clip.vertices, clip.triangles));
    let ((a, an), (b, bn)) = (vertices(&row_file), vertices(&clip_file));
    // The bake's precision: the length of half a 16-bit step on every axis.
    let distance = |p: &[f32; 3], q: &[f32; 3]| (0..3).map(|c| (p[c] - q[c]).powi(2)).sum::<f32>().sqrt();
    let far = a.iter().zip(&b).map(|(p, q)| distance(p, q)).fold(0.0, f32::max);
    assert!(far <= precision + 1e-5, "{far} > {precision}");
    let dot = |n: &[f32; 3], m: &[f32; 3]| n[0] * m[0] + n[1] * m[1] + n[2] * m[2];
    let turned = an.iter().zip(&bn).map(|(n, m)| dot(n, m).clamp(-1.0, 1.0).acos().to_degrees()).fold(0.0, f32::max);
    let stored = description["normals"]["max_error_degrees"].as_f64().unwrap_or(1.0) as f32;
    assert!(turned <= stored + 0.01, "normals {turned}° apart, the bake says {stored}°");
}

#[test]
fn the_same_pose_gives_the_same_bytes() {
    let out = tempfile::tempdir().unwrap();
    let model = fixture("Kenney-MiniCharacters/character-female-a.glb");
    let clips = pose(&settings(&model, PoseOf::Rest, &out.path().join("r.glb"))).unwrap().clips;
    let longest = clips.iter().max_by(|a, b| a.duration.total_cmp(&b.duration)).unwrap();
    let (name, time) = (longest.name.clone(), longest.duration / 3.0);
    let mut files = Vec::new();
    for k in 0..2 {
        let file = out.path().join(k.to_string()).join("pose.glb");
        pose(&settings(&model, PoseOf::Clip { name: name.clone(), time }, &file)).unwrap();
        files.push(std::fs::read(file).unwrap());
    }
    assert!(files[0] == files[1], "the two files differ");
}

fn run(args: &[&str]) -> (i32, String, String) {
    let output = vatbake(args);
    (output.status.code().unwrap(), String::from_utf8_lossy(&output.stdout).into_owned(), stderr(&output))
}

#[test]
fn bad_requests_are_refused_naming_the_file_and_the_fix() {
    let out = tempfile::tempdir().unwrap();
    let file = out.path().join("p.glb");
    let (file_s, fox) = (file.to_str().unwrap(), fixture("Fox/Fox.glb"));
    let fox_s = fox.to_str().unwrap();

    let (code, _, err) = run(&["pose", fox_s, "--clip", "Rnu", "--time", "0", "-o", file_s]);
    assert_eq!(code, 2);
    assert!(
        err.contains(&format!(
            "{fox_s}: has no clip named \"Rnu\" (did you mean \"Run\"?); its clips are \"Survey\", \"Walk\", \"Run\""
        )),
        "{err}"
    );

    let (code, stdout, err) = run(&["pose", fox_s, "--clip", "Run", "--time", "2", "-o", file_s, "--json"]);
    assert_eq!(code, 2);
    let message = format!(
        "--time 2: clip \"Run\" of {fox_s} lasts 1.158 s; give a time in seconds from 0 to 1.158 (the clip's end is its last pose)"
    );
    assert!(err.contains(&message), "{err}");
    let json: serde_json::Value = serde_json::from_str(&stdout).unwrap();
    assert_eq!(json["error"]["kind"], "usage");
    assert_eq!(json["error"]["message"], message.as_str());
    assert_eq!(json["error"]["file"], fox_s);

    // A missing model or description: an input error naming it.
    for args in [&["pose", "missing.glb", "-o", file_s][..], &["pose", "missing.vat.json", "--row", "0", "-o", file_s]]
    {
        let (code, _, err) = run(args);
        assert_eq!(code, 3, "{args:?}: {err}");
        assert!(err.contains(": No such file or directory (os error 2); check the path\n"), "{args:?}: {err}");
    }
    let (code, _, err) = run(&["pose", fox_s, "-o", out.path().to_str().unwrap()]);
    assert_eq!(code, 2);
    assert!(err.contains(&format!("-o {}: is a folder; give the file to write", out.path().display())), "{err}");

    let (code, _, err) = run(&["pose", fox_s, "--clip", "Run", "--time", "-0.5", "-o", file_s]);
    assert_eq!(code, 2, "{err}");

    let static_model = fixture("variants/avatar-no-clips.glb");
    let (code, _, err) = run(&["pose", static_model.to_str().unwrap(), "--clip", "Idle", "--time", "0", "-o", file_s]);
    assert_eq!(code, 2);
    assert!(err.contains("the model has no animation clips, so there is no clip \"Idle\" to pose; leave out --clip and --time to write its rest pose"), "{err}");
    assert!(!file.exists());
    // Its rest pose is a valid request.
    let (code, _, err) = run(&["pose", static_model.to_str().unwrap(), "-o", file_s]);
    assert_eq!((code, err.as_str()), (0, ""));
    std::fs::remove_file(&file).unwrap();

    let (code, _, err) = run(&["pose", fox_s, "--row", "3", "-o", file_s]);
    assert_eq!(code, 2);
    assert!(err.contains("--row N reads a finished bake: give its description (NAME.vat.json)"), "{err}");

    let (code, _, err) = run(&["pose", fox_s, "--clip", "Run", "--time", "0", "-o", &format!("{file_s}.gltf")]);
    assert_eq!(code, 2);
    assert!(err.contains("pose writes a binary glTF; name the file with .glb"), "{err}");

    // A folder that cannot be written to: an output error (exit 4), nothing left behind.
    let locked = out.path().join("locked");
    std::fs::create_dir(&locked).unwrap();
    let blocked = locked.join("x").join("p.glb");
    std::fs::write(locked.join("x"), b"a file where the folder should be").unwrap();
    let (code, _, err) = run(&["pose", fox_s, "--clip", "Run", "--time", "0", "-o", blocked.to_str().unwrap()]);
    assert_eq!(code, 4, "{err}");
    assert!(err.contains(&format!("cannot create the output folder {}", locked.join("x").display())), "{err}");

    let (_bake, _) = common::bake(&fox, &[]);
    let description = _bake.path().join("Fox.vat.json");
    let (code, _, err) = run(&["pose", description.to_str().unwrap(), "--row", "162", "-o", file_s]);
    assert_eq!(code, 2);
    assert!(
        err.contains(&format!(
            "--row 162: {} has 162 rows, 0 to 161; its clips' rows are \"Survey\" 0..103, \"Walk\" 104..125, \"Run\" 126..161",
            description.display()
        )),
        "{err}"
    );
    let (bones, _) = common::bake(&fox, &["--mode", "bones"]);
    let (code, _, err) =
        run(&["pose", bones.path().join("Fox.vat.json").to_str().unwrap(), "--row", "3", "-o", file_s]);
    assert_eq!(code, 2);
    assert!(err.contains("Fox.vat.json: a bone bake (--mode bones): its rows are joint matrices, not points; pose its source model with --clip NAME --time SECONDS"), "{err}");
    let (code, _, err) = run(&["pose", description.to_str().unwrap(), "--clip", "Run", "--time", "0", "-o", file_s]);
    assert_eq!(code, 2);
    assert!(err.contains("is a bake's description; pose one of its rows with --row N"), "{err}");
    assert!(!file.exists());
}

#[test]
fn success_is_quiet_off_a_terminal_and_json_reports_the_pose() {
    let out = tempfile::tempdir().unwrap();
    let file = out.path().join("p.glb");
    let fox = fixture("Fox/Fox.glb");
    let args = ["pose", fox.to_str().unwrap(), "--clip", "Walk", "--time", "0.5", "-o", file.to_str().unwrap()];
    let (code, stdout, err) = run(&args);
    assert_eq!((code, stdout.as_str(), err.as_str()), (0, "", ""));
    let (code, stdout, _) = run(&[&args[..], &["--json"]].concat());
    assert_eq!(code, 0);
    let report: serde_json::Value = serde_json::from_str(&stdout).unwrap();
    assert_eq!(report["clip"], "Walk");
    assert_eq!(report["time"], 0.5);
    assert_eq!(report["source_animations"], serde_json::json!([1]));
    assert_eq!((report["vertices"].as_u64(), report["triangles"].as_u64()), (Some(1728), Some(576)));
    assert_eq!(report["height"], report["written_height"]);
}

#[test]
fn a_row_of_a_bake_without_normals_gets_its_triangles_normals() {
    let fox = fixture("Fox/Fox.glb");
    let (bake, _) = common::bake(&fox, &["--normals", "none", "--rest-mesh", "meshopt"]);
    let file = bake.path().join("row.glb");
    let report = pose(&settings(&bake.path().join("Fox.vat.json"), PoseOf::Row(3), &file)).unwrap();
    assert_eq!((report.clip.as_deref(), report.vertices), (Some("Survey"), 1728));
    let (positions, normals) = vertices(&file);
    let length = |n: &[f32; 3]| (n[0] * n[0] + n[1] * n[1] + n[2] * n[2]).sqrt();
    let worst = normals.iter().map(|n| (length(n) - 1.0).abs()).fold(0.0, f32::max);
    assert!(worst < 1e-5, "a normal {worst} off unit length");
    // Every triangle's corners lean the way the triangle faces.
    let (document, blob) = gltf_import(&file);
    let indices = document.meshes().next().unwrap().primitives().next().unwrap().indices().unwrap();
    assert_eq!((indices.data_type(), indices.count()), (gltf::accessor::DataType::U16, 576 * 3));
    let at = indices.view().unwrap().offset() + indices.offset();
    let index = |k: usize| u16::from_le_bytes([blob[at + 2 * k], blob[at + 2 * k + 1]]) as usize;
    let p = |i: usize| glam::Vec3::from(positions[i]);
    let backward = (0..576)
        .filter(|t| {
            let [a, b, c] = [index(3 * t), index(3 * t + 1), index(3 * t + 2)];
            let face = (p(b) - p(a)).cross(p(c) - p(a));
            [a, b, c].iter().any(|&i| face.dot(glam::Vec3::from(normals[i])) < 0.0)
        })
        .count();
    assert_eq!(backward, 0);
}
