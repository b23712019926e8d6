//! What a killed bake leaves behind (its hidden `.NAME.PID.RANDOM.tmp` or older `.NAME.PID.tmp` files) is removed by
//! the next bake into the same folder, once the writer is gone; nothing else is.

mod common;

use std::path::Path;

use common::{fixture, stderr, vatbake};

#[test]
fn the_next_bake_removes_what_a_killed_one_left() {
    if !Path::new("/proc/self").exists() {
        return; // without a process list, no writer is known to be gone: nothing is removed
    }
    let dir = tempfile::tempdir().unwrap();
    // A bake killed while writing (pid_max is at most 2^22: no process has this id),
    // and a file of a live process (pid 1), as a parallel bake into the folder would have.
    let killed = [".Fox.vat.ktx2.999999999.tmp", ".Fox.rest.glb.999999999.tmp"].map(|n| dir.path().join(n));
    let live = dir.path().join(".Fox.vat.json.1.tmp");
    let mine = dir.path().join("notes.txt");
    for file in killed.iter().chain([&live, &mine]) {
        std::fs::write(file, b"half a file").unwrap();
    }
    let options = vatbake::BakeOptions { points: Some("all".parse().unwrap()), ..Default::default() };
    let settings = options.settings(fixture("SimpleSkin/SimpleSkin.gltf"), dir.path().into()).unwrap();
    vatbake::bake(&settings).unwrap();
    let mut names: Vec<String> =
        std::fs::read_dir(dir.path()).unwrap().map(|e| e.unwrap().file_name().into_string().unwrap()).collect();
    names.sort();
    assert_eq!(
        names,
        [".Fox.vat.json.1.tmp", "SimpleSkin.rest.glb", "SimpleSkin.vat.json", "SimpleSkin.vat.ktx2", "notes.txt"]
    );
}

/// A rebake without `--target godot` removes the EXR the earlier bake of the same name
/// wrote, which would sit beside the new bake out of step with it, and says so; a file
/// no bake recorded stays.
#[test]
fn a_rebake_removes_the_files_of_the_earlier_bake_it_does_not_write() {
    let dir = tempfile::tempdir().unwrap();
    let mine = dir.path().join("SimpleSkin-notes.txt");
    std::fs::write(&mine, b"mine").unwrap();
    let bake = |target: &str| {
        let options = vatbake::BakeOptions { target: Some(target.parse().unwrap()), ..Default::default() };
        vatbake::bake(&options.settings(fixture("SimpleSkin/SimpleSkin.gltf"), dir.path().into()).unwrap()).unwrap()
    };
    let first = bake("godot");
    assert!(first.notes.iter().all(|n| n.code != "stale-removed"));
    let exr = dir.path().join("SimpleSkin-godot.exr");
    assert!(exr.is_file());
    let second = bake("three");
    assert!(!exr.exists(), "the earlier bake's EXR is left beside the new bake");
    let note = second.notes.iter().find(|n| n.code == "stale-removed").expect("a stale-removed note");
    assert_eq!(
        note.message,
        "removed \"SimpleSkin-godot.exr\" from an earlier bake of SimpleSkin.vat.json that this bake does not write"
    );
    assert!(mine.is_file());
    let mut names: Vec<String> =
        std::fs::read_dir(dir.path()).unwrap().map(|e| e.unwrap().file_name().into_string().unwrap()).collect();
    names.sort();
    assert_eq!(names, ["SimpleSkin-notes.txt", "SimpleSkin.rest.glb", "SimpleSkin.vat.json", "SimpleSkin.vat.ktx2"]);
}

#[test]
fn a_rebake_without_levels_of_detail_removes_them() {
    let dir = tempfile::tempdir().unwrap();
    let bake = |lods: Option<&str>| {
        let options = vatbake::BakeOptions { lods: lods.map(|l| l.parse().unwrap()), ..Default::default() };
        vatbake::bake(&options.settings(fixture("Fox/Fox.glb"), dir.path().into()).unwrap()).unwrap()
    };
    bake(Some("0.5"));
    let level = dir.path().join("Fox.lod1.rest.glb");
    assert!(level.is_file());
    let second = bake(None);
    assert!(!level.exists(), "the earlier bake's level is left beside the new bake");
    let note = second.notes.iter().find(|n| n.code == "stale-removed").expect("a stale-removed note");
    assert_eq!(
        note.message,
        "removed \"Fox.lod1.rest.glb\" from an earlier bake of Fox.vat.json that this bake does not write"
    );
}

/// `--keep-stale` (a roster's `keep_stale` key, `roster --keep-stale`): the earlier
/// bake's files that the new one does not write stay, each named in a `stale-kept`
/// warning, and nothing is removed.
#[test]
fn keep_stale_keeps_the_earlier_bakes_files_and_warns_about_each() {
    let dir = tempfile::tempdir().unwrap();
    let model = fixture("SimpleSkin/SimpleSkin.gltf");
    let out = dir.path().to_str().unwrap();
    let bake = |extra: &[&str]| {
        let mut args = vec!["bake", model.to_str().unwrap(), "-o", out, "--json"];
        args.extend_from_slice(extra);
        let o = vatbake(&args);
        assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
        (serde_json::from_slice::<serde_json::Value>(&o.stdout).unwrap(), o)
    };
    bake(&["--target", "godot"]);
    let exr = dir.path().join("SimpleSkin-godot.exr");
    let (report, o) = bake(&["--keep-stale"]);
    assert!(exr.is_file(), "--keep-stale removed the earlier bake's EXR");
    let kept: Vec<&serde_json::Value> =
        report["warnings"].as_array().unwrap().iter().filter(|w| w["code"] == "stale-kept").collect();
    assert_eq!(kept.len(), 1, "{report}");
    let message = "kept \"SimpleSkin-godot.exr\" from an earlier bake of SimpleSkin.vat.json: this bake does not \
                   write it, so it is out of step with the new files";
    assert_eq!(kept[0]["message"], message);
    assert!(report["notes"].as_array().unwrap().iter().all(|n| n["code"] != "stale-removed"), "{report}");
    assert!(stderr(&o).contains(&format!("warning: {message}\n")), "{}", stderr(&o));
    // Kept again by the next rebake with the flag (the description no longer records it:
    // nothing to warn about); `verify` and `audit` name it as a file no description records.
    let (report, _) = bake(&["--keep-stale"]);
    assert!(report["warnings"].as_array().unwrap().iter().all(|w| w["code"] != "stale-kept"), "{report}");
    assert!(exr.is_file());
    let description = dir.path().join("SimpleSkin.vat.json");
    let verify = vatbake(&["verify", description.to_str().unwrap()]);
    assert_eq!(verify.status.code(), Some(1));
    let said = String::from_utf8_lossy(&verify.stdout);
    assert!(said.contains("unrecorded-file: ") && said.contains("SimpleSkin-godot.exr"), "{said}");

    // A roster: the key for one unit, the flag for every unit.
    let roster = dir.path().join("roster.toml");
    std::fs::copy(&model, dir.path().join("simple.gltf")).unwrap();
    let units = |keep: &str| {
        std::fs::write(
            &roster,
            format!("output = \"units\"\n[[unit]]\nname = \"a\"\nsource = \"simple.gltf\"\n{keep}\n"),
        )
        .unwrap()
    };
    let roster_run = |extra: &[&str]| {
        let mut args = vec!["roster", roster.to_str().unwrap(), "--json", "--force"];
        args.extend_from_slice(extra);
        let o = vatbake(&args);
        assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
        let report: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
        report["units"][0]["warnings"].as_array().unwrap().iter().filter(|w| w["code"] == "stale-kept").count()
    };
    let unit_exr = dir.path().join("units/a/a-godot.exr");
    units("target = \"godot\"");
    roster_run(&[]);
    units("keep_stale = true");
    assert_eq!(roster_run(&[]), 1);
    assert!(unit_exr.is_file(), "the unit's keep_stale key was not followed");
    units("target = \"godot\"");
    roster_run(&[]);
    units("");
    assert_eq!(roster_run(&["--keep-stale"]), 1);
    assert!(unit_exr.is_file(), "roster --keep-stale was not followed");
    units("target = \"godot\"");
    roster_run(&[]);
    units("");
    assert_eq!(roster_run(&[]), 0);
    assert!(!unit_exr.exists(), "without --keep-stale the unit's stale EXR stays");
}

/// `--no-durable` and `--keep-stale` are one declaration: the same flags with the same
/// help in `bake` and `roster`, and the same keys in a roster file; files are synced by
/// default in both (`--durable`, the old opt-in, still runs).
#[test]
fn bake_and_roster_share_their_writing_flags_and_default() {
    let help = |command: &str| String::from_utf8(vatbake(&[command, "--help"]).stdout).unwrap();
    // The flag's help, however clap lays it out (beside the flag or under it).
    let flag = |help: &str, name: &str| -> String {
        let start = help.find(&format!("      --{name} ")).or_else(|| help.find(&format!("      --{name}\n")));
        let block = &help[start.unwrap_or_else(|| panic!("no --{name} in\n{help}"))..];
        let end = ["\n  -", "\n      -"].iter().filter_map(|next| block.find(next)).min().unwrap_or(block.len());
        block[..end].split_whitespace().collect::<Vec<_>>().join(" ")
    };
    let (bake, roster) = (help("bake"), help("roster"));
    for name in ["no-durable", "keep-stale"] {
        assert_eq!(flag(&bake, name), flag(&roster, name));
    }
    assert!(flag(&bake, "no-durable").contains("Synced by default"), "{bake}");
    assert!(!bake.contains("--durable\n"), "the old opt-in is shown:\n{bake}");
    let dir = tempfile::tempdir().unwrap();
    let model = fixture("SimpleSkin/SimpleSkin.gltf");
    for extra in [&["--durable"][..], &["--no-durable"], &[]] {
        let mut args = vec!["bake", model.to_str().unwrap(), "-o", dir.path().to_str().unwrap(), "-q"];
        args.extend_from_slice(extra);
        let o = vatbake(&args);
        assert_eq!(o.status.code(), Some(0), "{extra:?}: {}", stderr(&o));
    }
    let both = vatbake(&["bake", model.to_str().unwrap(), "-o", "x", "--durable", "--no-durable"]);
    assert_eq!(both.status.code(), Some(2), "{}", stderr(&both));
}
