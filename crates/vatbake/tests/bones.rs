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
fn verify_and_preview_refuse_a_bone_bake_with_exit_2() {
    let (dir, _) = bake(&fixture("Fox/Fox.glb"), &["--mode", "bones"]);
    let description = dir.path().join("Fox.vat.json");
    let source = fixture("Fox/Fox.glb");
    let sheet = dir.path().join("sheet.png");
    for args in [
        vec!["verify", description.to_str().unwrap(), "--source", source.to_str().unwrap()],
        vec!["preview", description.to_str().unwrap(), "-o", sheet.to_str().unwrap()],
    ] {
        let output = vatbake(&args);
        assert_eq!(output.status.code(), Some(2), "{args:?}");
        assert!(
            stderr(&output).contains(
                "a bone bake (--mode bones): its texture holds joint matrices, not points, which this command does \
                 not read; `vatbake inspect` reads it, and a bake with --mode vertices can be verified and previewed\n"
            ),
            "{}",
            stderr(&output)
        );
    }
    assert!(!sheet.exists());
}
