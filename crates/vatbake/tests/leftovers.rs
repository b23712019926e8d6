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
