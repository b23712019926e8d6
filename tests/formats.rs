//! `--format`: another tool's files beside the bake. The default (`vatbake`) writes the
//! same bytes as no flag; each format writes the files its players expect, named as
//! they expect them; a wrong name is a usage error (exit 2) that lists the choices
//! (in a roster, that unit fails with the same message). Decoding each format in its players is
//! in tests/browser/players.test.mjs (PlayCanvas) and tests/js/openvat.test.mjs.

mod common;

use common::{bake, fixture, stderr, vatbake};

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
    for name in files(plain.path()) {
        let (a, b) =
            (std::fs::read(plain.path().join(&name)).unwrap(), std::fs::read(flagged.path().join(&name)).unwrap());
        assert_eq!(a, b, "{name} differs with --format vatbake");
    }
    assert_eq!(files(plain.path()), ["rigged-simple.rest.glb", "rigged-simple.vat.json", "rigged-simple.vat.ktx2"]);
}

#[test]
fn each_format_writes_its_players_files_beside_the_bake() {
    let model = fixture("RiggedSimple/rigged-simple.gltf");
    let own = ["rigged-simple.rest.glb", "rigged-simple.vat.json", "rigged-simple.vat.ktx2"];
    for (format, extra) in [
        ("playcanvas", &["rigged-simple.vat"][..]),
        (
            "openvat",
            &["rigged-simple-remap_info.json", "rigged-simple-vnrm.png", "rigged-simple-mesh.glb", "rigged-simple.png"]
                [..],
        ),
    ] {
        let (dir, description) = bake(&model, &["--points", "all", "--format", format]);
        assert_eq!(description["settings"]["format"], format);
        let mut want: Vec<String> = own.iter().chain(extra).map(|s| s.to_string()).collect();
        want.sort();
        assert_eq!(files(dir.path()), want, "{format}");
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
fn a_wrong_or_unwritten_target_and_vat3_are_refused_with_exit_2_and_nothing_written() {
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
    for target in ["babylon", "playcanvas", "godot", "unity", "unreal"] {
        let (code, message) = run(&["--target", target]);
        assert_eq!(code, Some(2), "{message}");
        assert!(message.contains(&format!("--target {target} is not written yet")), "{message}");
    }
    let (code, message) = run(&["--format", "vat3"]);
    assert_eq!(code, Some(2), "{message}");
    assert!(message.contains("--format vat3 is not written yet") && message.contains("--format openvat"), "{message}");
    assert!(!out.exists(), "nothing written");
    let (code, message) = run(&["--target", "three", "-q"]);
    assert_eq!(code, Some(0), "{message}");
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
    let dir = tempfile::tempdir().unwrap();
    for file in ["rigged-simple.gltf", "rigged-simple.bin"] {
        std::fs::copy(fixture(&format!("RiggedSimple/{file}")), dir.path().join(file)).unwrap();
    }
    let roster = dir.path().join("roster.toml");
    std::fs::write(
        &roster,
        "output = \"out\"\n[defaults]\npoints = \"all\"\n\n\
         [[unit]]\nname = \"web\"\nsource = \"rigged-simple.gltf\"\nformat = \"playcanvas\"\n\n\
         [[unit]]\nname = \"plain\"\nsource = \"rigged-simple.gltf\"\n",
    )
    .unwrap();
    let o = vatbake(&["roster", roster.to_str().unwrap(), "-q"]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let out = dir.path().join("out");
    assert_eq!(files(&out), ["plain", "web"], "one folder per unit");
    let (web, plain) = (files(&out.join("web")), files(&out.join("plain")));
    assert!(web.contains(&"web.vat".to_string()), "{web:?}");
    assert_eq!(plain, ["plain.rest.glb", "plain.vat.json", "plain.vat.ktx2"]);
    let web: serde_json::Value =
        serde_json::from_slice(&std::fs::read(out.join("web").join("web.vat.json")).unwrap()).unwrap();
    assert_eq!(web["settings"]["format"], "playcanvas");
}
