//! A hostile folder (issue 27): links planted where the writer stages its files, and
//! bakes whose files were replaced or edited by someone else. Never a byte written
//! outside the folder, never a panic, a hang or an allocation the files do not justify:
//! a clear message naming the file, with the documented exit code.

mod common;

use common::{fixture, stderr, vatbake};

/// Every name a bake of `name` could write to, with the writer's pid in the old
/// predictable naming (`.NAME.PID.tmp`), for every pid in `pids`.
fn predictable_names(names: &[&str], pids: std::ops::Range<u32>) -> Vec<String> {
    let mut all = Vec::new();
    for pid in pids {
        for name in names {
            all.push(format!(".{name}.{pid}.tmp"));
            all.push(format!(".{name}.old.{pid}.tmp"));
        }
    }
    all
}

/// Links planted in the output folder at every name the writer could use (the old
/// `.NAME.PID.tmp` for the next pids, the final names themselves): the bake and the
/// preview write nothing outside the folder, and the final names become regular files.
#[cfg(unix)]
#[test]
fn planted_links_in_the_output_folder_are_never_written_through() {
    let dir = tempfile::tempdir().unwrap();
    let (out, outside) = (dir.path().join("out"), dir.path().join("outside"));
    std::fs::create_dir_all(&out).unwrap();
    std::fs::create_dir_all(&outside).unwrap();
    let victim = outside.join("victim");
    std::fs::write(&victim, b"keep me").unwrap();
    let names = ["SimpleSkin.vat.ktx2", "SimpleSkin.rest.glb", "SimpleSkin.vat.json", "sheet.png"];
    // The next process ids: the ones the bake and the preview below are likely to get.
    let next = std::process::id();
    for name in predictable_names(&names, next..next + 1500) {
        std::os::unix::fs::symlink(&victim, out.join(name)).unwrap();
    }
    for name in names {
        std::os::unix::fs::symlink(&victim, out.join(name)).unwrap();
    }
    let o =
        vatbake(&["bake", fixture("SimpleSkin/SimpleSkin.gltf").to_str().unwrap(), "-o", out.to_str().unwrap(), "-q"]);
    assert!(o.status.success(), "{}", stderr(&o));
    let sheet = out.join("sheet.png");
    let o = vatbake(&["preview", out.join("SimpleSkin.vat.json").to_str().unwrap(), "-o", sheet.to_str().unwrap()]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert_eq!(std::fs::read(&victim).unwrap(), b"keep me", "a file outside the folder was written through a link");
    assert_eq!(std::fs::read_dir(&outside).unwrap().count(), 1);
    for name in names {
        let meta = std::fs::symlink_metadata(out.join(name)).unwrap();
        assert!(meta.file_type().is_file(), "{name} is a regular file, not the planted link");
    }
    // The new set is whole and reads back.
    let o = vatbake(&["inspect", out.join("SimpleSkin.vat.json").to_str().unwrap()]);
    assert!(o.status.success(), "{}", stderr(&o));
}
