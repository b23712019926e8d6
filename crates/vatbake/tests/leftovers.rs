//! What a killed bake leaves behind (its hidden `.NAME.PID.RANDOM.tmp` or older `.NAME.PID.tmp` files) is removed by
//! the next bake into the same folder, once the writer is gone; nothing else is.

use std::path::Path;

fn fixture(name: &str) -> std::path::PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../fixtures").join(name)
}

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
