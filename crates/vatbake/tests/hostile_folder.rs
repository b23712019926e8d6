//! A hostile folder (issue 27): links planted where the writer stages its files, and
//! bakes whose files were replaced or edited by someone else. Never a byte written
//! outside the folder, never a panic, a hang or an allocation the files do not justify:
//! a clear message naming the file, with the documented exit code.

mod common;

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use common::{fixture, stderr, vatbake};
use serde_json::Value;

/// A small bake (SimpleSkin) into `<tmp>/out`; returns the folder and the description.
fn baked() -> (tempfile::TempDir, PathBuf) {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("out");
    let model = fixture("SimpleSkin/SimpleSkin.gltf");
    let o = vatbake(&["bake", model.to_str().unwrap(), "-o", out.to_str().unwrap(), "-q", "--points", "all"]);
    assert!(o.status.success(), "{}", stderr(&o));
    (dir, out.join("SimpleSkin.vat.json"))
}

/// Runs vatbake with `args`, killing it after `limit`: (exit code, stdout, stderr, time).
/// A run that has to be killed fails the test (a hang).
fn run(args: &[&str], limit: Duration) -> (i32, String, String, Duration) {
    use std::sync::atomic::{AtomicBool, Ordering};
    use std::sync::Arc;
    let started = Instant::now();
    let child = Command::new(env!("CARGO_BIN_EXE_vatbake"))
        .args(args)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    // A watchdog kills a run past `limit`; the output is read meanwhile (a full pipe
    // must not stall the child).
    let (done, killed) = (Arc::new(AtomicBool::new(false)), Arc::new(AtomicBool::new(false)));
    let pid = child.id().to_string();
    let watchdog = {
        let (done, killed) = (done.clone(), killed.clone());
        std::thread::spawn(move || {
            while !done.load(Ordering::SeqCst) {
                if started.elapsed() > limit {
                    killed.store(true, Ordering::SeqCst);
                    let _ = Command::new("kill").args(["-KILL", &pid]).status();
                    return;
                }
                std::thread::sleep(Duration::from_millis(10));
            }
        })
    };
    let o = child.wait_with_output().unwrap();
    let elapsed = started.elapsed();
    done.store(true, Ordering::SeqCst);
    watchdog.join().unwrap();
    assert!(!killed.load(Ordering::SeqCst), "vatbake {args:?} still running after {limit:?}: a hang");
    let err = stderr(&o);
    assert!(!err.contains("panicked"), "vatbake {args:?} panicked: {err}");
    (
        o.status.code().expect("exits, not killed by a signal"),
        String::from_utf8_lossy(&o.stdout).into_owned(),
        err,
        elapsed,
    )
}

fn edit_json(path: &Path, edit: impl FnOnce(&mut Value)) {
    let mut d: Value = serde_json::from_slice(&std::fs::read(path).unwrap()).unwrap();
    edit(&mut d);
    std::fs::write(path, serde_json::to_vec_pretty(&d).unwrap()).unwrap();
}

/// `verify --json`'s finding codes.
fn codes(stdout: &str) -> Vec<String> {
    let report: Value = serde_json::from_str(stdout).unwrap_or_else(|e| panic!("{e}: {stdout}"));
    report["findings"].as_array().unwrap().iter().map(|f| f["code"].as_str().unwrap().to_string()).collect()
}

/// An edit of a JSON document.
type Edit = fn(&mut Value);
/// An edit of a JSON document that captures.
type BoxedEdit = Box<dyn Fn(&mut Value)>;

const LIMIT: Duration = Duration::from_secs(60);

/// `vatbake verify DESCRIPTION --source SimpleSkin [extra]`: (exit code, stdout, stderr).
fn verify(description: &Path, extra: &[&str]) -> (i32, String, String) {
    let source = fixture("SimpleSkin/SimpleSkin.gltf");
    let mut args = vec!["verify", description.to_str().unwrap(), "--source", source.to_str().unwrap()];
    args.extend_from_slice(extra);
    let (code, stdout, err, _) = run(&args, LIMIT);
    (code, stdout, err)
}

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

/// `preview` of a description whose clip rows reach past the texture panicked at the
/// row indexing (exit 101); now every reader refuses it naming the file and the field.
#[test]
fn clip_rows_past_the_texture_are_refused_naming_the_field() {
    let (dir, description) = baked();
    let sheet = dir.path().join("sheet.png");
    for (field, value) in [("row", 1000u64), ("rows", 4_294_967_295), ("row", 4_294_967_295)] {
        edit_json(&description, |d| d["clips"][0][field] = value.into());
        let (code, _, err, _) = run(&["preview", description.to_str().unwrap(), "-o", sheet.to_str().unwrap()], LIMIT);
        assert_eq!(code, 3, "{field} {value}: {err}");
        assert!(err.contains(&format!("{}: clips[0].row", description.display())), "{err}");
        assert!(err.contains("reach past the texture's"), "{err}");
        let (code, _, err) = verify(&description, &[]);
        assert_eq!(code, 3, "{err}");
        assert!(err.contains("clips[0].row"), "{err}");
        edit_json(&description, |d| d["clips"][0][field] = if field == "row" { 0 } else { 1 }.into());
    }
    assert!(!sheet.exists());
    // Rates and bounds: finite and positive.
    let original = std::fs::read(&description).unwrap();
    let cases: [(&str, Edit); 3] = [
        ("clips[0].rate", |d| d["clips"][0]["rate"] = (-1.0).into()),
        ("clips[0].duration", |d| d["clips"][0]["duration"] = 0.0.into()),
        ("positions.half_extent[1]", |d| d["positions"]["half_extent"][1] = (-2.0).into()),
    ];
    for (field, edit) in cases {
        std::fs::write(&description, &original).unwrap();
        edit_json(&description, edit);
        let (code, _, err, _) = run(&["preview", description.to_str().unwrap(), "-o", sheet.to_str().unwrap()], LIMIT);
        assert_eq!(code, 3, "{field}: {err}");
        assert!(err.contains(&format!("{}: {field}: ", description.display())), "{field}: {err}");
    }
    // JSON has no infinity, but a number past f32's range reads as one.
    std::fs::write(&description, &original).unwrap();
    edit_json(&description, |d| d["positions"]["center"][0] = 1e300.into());
    let (code, _, err, _) = run(&["preview", description.to_str().unwrap(), "-o", sheet.to_str().unwrap()], LIMIT);
    assert_eq!(code, 3, "{err}");
    assert!(err.contains("positions.center[0]: inf: not a finite number"), "{err}");
}

/// A description declaring 10^6 clips: refused by the first pass over its bytes (at
/// most 65,536 clips), in milliseconds, by every reader; before, preview grew to
/// gigabytes and aborted.
#[test]
fn a_million_clips_are_refused_at_once() {
    let (_dir, description) = baked();
    let text = std::fs::read_to_string(&description).unwrap();
    let mut d: Value = serde_json::from_str(&text).unwrap();
    let clip = d["clips"][0].clone();
    d["clips"] = Value::Array(Vec::new());
    let one = serde_json::to_string(&clip).unwrap();
    let mut json = serde_json::to_string(&d).unwrap();
    let at = json.find("\"clips\":[]").unwrap() + "\"clips\":[".len();
    let many = vec![one.as_str(); 1_000_000].join(",");
    json.insert_str(at, &many);
    // Bigger than the description cap with whole clips: the cap refuses it unread. With
    // empty objects (3 bytes a clip), the count refuses it.
    std::fs::write(&description, &json).unwrap();
    let (code, _, err, took) = run(&["inspect", description.to_str().unwrap()], LIMIT);
    assert_eq!(code, 3, "{err}");
    assert!(err.contains("bytes, more than the 67108864 bytes a description may have"), "{err}");
    eprintln!("{} MB, whole clips: refused in {took:?}", json.len() >> 20);
    let json = json.replace(&many, &vec!["{}"; 1_000_000].join(","));
    std::fs::write(&description, &json).unwrap();
    let sheet = description.with_file_name("sheet.png");
    let source = fixture("SimpleSkin/SimpleSkin.gltf");
    for args in [
        vec!["inspect", description.to_str().unwrap()],
        vec!["verify", description.to_str().unwrap(), "--source", source.to_str().unwrap()],
        vec!["preview", description.to_str().unwrap(), "-o", sheet.to_str().unwrap()],
    ] {
        let (code, _, err, took) = run(&args, LIMIT);
        assert_eq!(code, 3, "{args:?}: {err}");
        assert!(err.contains(&format!("{}: clips: more than 65536 entries", description.display())), "{err}");
        eprintln!("{}: {} MB, 10^6 clips refused in {took:?}", args[0], json.len() >> 20);
        assert!(took < Duration::from_secs(5), "{args:?} took {took:?}");
    }
    let (code, stdout, err, _) = run(&["audit", description.to_str().unwrap(), "--format", "json"], LIMIT);
    assert_eq!(code, 1, "{err}");
    assert!(stdout.contains("clips: more than 65536 entries"), "{stdout}");
}

/// Special files in place of a bake's files: a link to `/dev/zero` (read for 2 GB
/// before, or forever by audit), a FIFO (a hang before). Refused before anything is
/// read, naming the file.
#[cfg(unix)]
#[test]
fn devices_and_fifos_are_refused_never_read() {
    let (dir, description) = baked();
    let out = description.parent().unwrap();
    let sheet = dir.path().join("sheet.png");
    let d = description.to_str().unwrap();
    for file in ["SimpleSkin.vat.ktx2", "SimpleSkin.rest.glb"] {
        let path = out.join(file);
        let saved = dir.path().join(file);
        std::fs::rename(&path, &saved).unwrap();
        for special in ["/dev/zero", "fifo"] {
            if special == "fifo" {
                let made = Command::new("mkfifo").arg(&path).status().unwrap();
                assert!(made.success());
            } else {
                std::os::unix::fs::symlink(special, &path).unwrap();
            }
            // A link to a device is a link out of the folder first; followed, a device.
            let what = if special == "fifo" {
                "a FIFO (named pipe), not a regular file"
            } else {
                "a character device, not a regular file"
            };
            let named = format!("{}: {what}", path.display());
            let follow: &[&str] = if special == "fifo" { &[] } else { &["--follow-links"] };
            if special != "fifo" {
                let (code, _, err, _) = run(&["preview", d, "-o", sheet.to_str().unwrap()], LIMIT);
                assert_eq!(code, 3, "{err}");
                assert!(
                    err.contains(&format!("{}: a link to /dev/zero, outside the bake's folder", path.display())),
                    "{err}"
                );
            }
            let mut args = vec!["preview", d, "-o", sheet.to_str().unwrap()];
            args.extend_from_slice(follow);
            let (code, _, err, took) = run(&args, LIMIT);
            assert_eq!(code, 3, "{file} {special}: {err}");
            assert!(err.contains(&named), "{err}");
            eprintln!("preview, {file} → {special}: exit {code} in {took:?}");
            let started = Instant::now();
            let (code, stdout, err) = verify(&description, &[&["--json"], follow].concat());
            assert_eq!(code, 1, "{file} {special}: {err}");
            assert!(stdout.contains(&named), "{stdout}");
            eprintln!("verify, {file} → {special}: exit {code} in {:?}", started.elapsed());
            let mut args = vec!["audit", d, "--format", "json"];
            args.extend_from_slice(follow);
            let (code, stdout, err, took) = run(&args, LIMIT);
            assert_eq!(code, 1, "{file} {special}: {err}\n{stdout}");
            eprintln!("audit, {file} → {special}: exit {code} in {took:?}");
            let mut args = vec!["inspect", path.to_str().unwrap()];
            args.extend_from_slice(follow);
            let (code, _, err, _) = run(&args, LIMIT);
            assert_eq!(code, 3, "{err}");
            assert!(err.contains(&named), "{err}");
            std::fs::remove_file(&path).unwrap();
        }
        std::fs::rename(&saved, &path).unwrap();
    }
    let (code, _, err) = verify(&description, &[]);
    assert_eq!(code, 0, "the bake is whole again: {err}");
}

/// The roster's `--check` and `--verify` with a unit's texture or rest mesh replaced
/// by a link to `/dev/zero` (read for 2 GB, or forever by `--check`, before) or a FIFO
/// (a hang before): each unit reported in milliseconds, naming the file and what it is.
#[cfg(unix)]
#[test]
fn roster_check_and_verify_refuse_devices_and_fifos() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::copy(fixture("SimpleSkin/SimpleSkin.gltf"), dir.path().join("simple.gltf")).unwrap();
    let roster = dir.path().join("roster.toml");
    std::fs::write(&roster, "output = \"out\"\n[[unit]]\nname = \"simple\"\nsource = \"simple.gltf\"\n").unwrap();
    let r = roster.to_str().unwrap();
    let (code, _, err, _) = run(&["roster", r, "-q"], LIMIT);
    assert_eq!(code, 0, "{err}");
    let out = dir.path().join("out/simple");
    for (file, finding) in [
        ("simple.vat.ktx2", "texture unreadable: the texture"),
        ("simple.rest.glb", "mesh missing: the rest-pose mesh"),
    ] {
        let path = out.join(file);
        let saved = dir.path().join(file);
        std::fs::rename(&path, &saved).unwrap();
        for special in ["/dev/zero", "fifo"] {
            let what = if special == "fifo" {
                assert!(Command::new("mkfifo").arg(&path).status().unwrap().success());
                "a FIFO (named pipe), not a regular file".to_string()
            } else {
                std::os::unix::fs::symlink(special, &path).unwrap();
                "a link to /dev/zero, outside the bake's folder: refused".to_string()
            };
            let (code, stdout, err, took) = run(&["roster", r, "--check"], LIMIT);
            assert_eq!(code, 1, "{file} {special}: {err}");
            assert!(stdout.contains(&format!("{finding} {file} cannot be read: ")), "{stdout}");
            assert!(stdout.contains(&what), "{stdout}");
            eprintln!("roster --check, {file} → {special}: exit {code} in {took:?}");
            let (code, stdout, err, took) = run(&["roster", r, "--verify"], LIMIT);
            assert_eq!(code, 1, "{file} {special}: {err}");
            assert!(stdout.contains("1 units: 0 passed, 1 failed"), "{stdout}");
            assert!(stdout.contains(&what), "{stdout}");
            eprintln!("roster --verify, {file} → {special}: exit {code} in {took:?}");
            std::fs::remove_file(&path).unwrap();
        }
        std::fs::rename(&saved, &path).unwrap();
    }
    let (code, stdout, err, _) = run(&["roster", r, "--verify"], LIMIT);
    assert_eq!(code, 0, "the bakes are whole again: {err}\n{stdout}");
}

/// A model that is a FIFO (a hang before) or a device (`/dev/zero`: read until memory
/// ran out), or a .gltf whose buffer is a link to `/dev/zero`: `bake` refuses each
/// before opening it, exit 3, naming the file; so does a roster unit.
#[cfg(unix)]
#[test]
fn models_and_buffers_that_are_fifos_or_devices_are_refused() {
    let dir = tempfile::tempdir().unwrap();
    let fifo = dir.path().join("model.glb");
    assert!(Command::new("mkfifo").arg(&fifo).status().unwrap().success());
    let cube = dir.path().join("AnimatedMorphCube.gltf");
    std::fs::copy(fixture("AnimatedMorphCube/AnimatedMorphCube.gltf"), &cube).unwrap();
    std::os::unix::fs::symlink("/dev/zero", dir.path().join("AnimatedMorphCube.bin")).unwrap();
    let out = dir.path().join("out");
    let not_regular = "not a regular file (a FIFO, a device or a socket): refused";
    for (model, expected) in [
        (
            fifo.clone(),
            format!("error: {}: cannot read the model: {not_regular}; pass the model file itself", fifo.display()),
        ),
        (PathBuf::from("/dev/zero"), format!("error: /dev/zero: cannot read the model: {not_regular}")),
        (
            cube.clone(),
            format!(
                "error: {}: cannot read buffer 0 \"AnimatedMorphCube.bin\" ({}): {not_regular}",
                cube.display(),
                dir.path().join("AnimatedMorphCube.bin").display()
            ),
        ),
    ] {
        let (code, _, err, took) = run(&["bake", model.to_str().unwrap(), "-o", out.to_str().unwrap()], LIMIT);
        assert_eq!(code, 3, "{err}");
        assert!(err.starts_with(&expected), "{err}");
        eprintln!("bake {}: exit 3 in {took:?}", model.display());
    }
    let roster = dir.path().join("roster.toml");
    std::fs::write(&roster, "output = \"out\"\n[[unit]]\nname = \"pipe\"\nsource = \"model.glb\"\n").unwrap();
    let (code, stdout, err, _) = run(&["roster", roster.to_str().unwrap()], LIMIT);
    assert_eq!(code, 1, "{err}");
    assert!(format!("{stdout}{err}").contains(not_regular), "{stdout}{err}");
    assert!(!out.exists() || std::fs::read_dir(&out).unwrap().all(|e| e.unwrap().file_type().unwrap().is_dir()));
}

/// A link that leads out of the bake's folder (to another project's file, to
/// `/etc/passwd`) is refused, naming the file and where it leads; a link inside the
/// folder is read as before.
#[cfg(unix)]
#[test]
fn links_out_of_the_folder_are_refused() {
    let (dir, description) = baked();
    let out = description.parent().unwrap();
    let d = description.to_str().unwrap();
    let sheet = dir.path().join("sheet.png");
    let texture = out.join("SimpleSkin.vat.ktx2");
    let elsewhere = dir.path().join("elsewhere.ktx2");
    std::fs::rename(&texture, &elsewhere).unwrap();
    std::os::unix::fs::symlink(&elsewhere, &texture).unwrap();
    let (code, _, err, _) = run(&["preview", d, "-o", sheet.to_str().unwrap()], LIMIT);
    assert_eq!(code, 3, "{err}");
    assert!(
        err.contains(&format!(
            "{}: a link to {}, outside the bake's folder",
            texture.display(),
            elsewhere.canonicalize().unwrap().display()
        )),
        "{err}"
    );
    let (code, stdout, _) = verify(&description, &["--json"]);
    assert_eq!(code, 1);
    assert_eq!(codes(&stdout), ["texture-unreadable"], "{stdout}");
    // --follow-links reads it.
    let (code, _, err, _) = run(&["preview", d, "-o", sheet.to_str().unwrap(), "--follow-links"], LIMIT);
    assert_eq!(code, 0, "{err}");
    // Inside the folder: read as before.
    std::fs::remove_file(&texture).unwrap();
    std::fs::rename(&elsewhere, out.join("kept.ktx2")).unwrap();
    std::os::unix::fs::symlink("kept.ktx2", &texture).unwrap();
    let (code, _, err) = verify(&description, &[]);
    assert_eq!(code, 0, "{err}");
    // The rest mesh pointing at /etc/passwd: refused, not read.
    let mesh = out.join("SimpleSkin.rest.glb");
    std::fs::remove_file(&mesh).unwrap();
    std::os::unix::fs::symlink("/etc/passwd", &mesh).unwrap();
    let (code, _, err, _) = run(&["preview", d, "-o", sheet.to_str().unwrap()], LIMIT);
    assert_eq!(code, 3, "{err}");
    assert!(err.contains("a link to /etc/passwd, outside the bake's folder"), "{err}");
}

/// The GLB's JSON chunk edited, the binary chunk kept.
fn edit_glb(path: &Path, edit: impl FnOnce(&mut Value)) {
    let bytes = std::fs::read(path).unwrap();
    let json_len = u32::from_le_bytes(bytes[12..16].try_into().unwrap()) as usize;
    let mut doc: Value = serde_json::from_slice(&bytes[20..20 + json_len]).unwrap();
    let rest = &bytes[20 + json_len..];
    edit(&mut doc);
    let mut json = serde_json::to_vec(&doc).unwrap();
    while !json.len().is_multiple_of(4) {
        json.push(b' ');
    }
    let mut out = Vec::new();
    out.extend_from_slice(b"glTF");
    out.extend_from_slice(&2u32.to_le_bytes());
    out.extend_from_slice(&((12 + 8 + json.len() + rest.len()) as u32).to_le_bytes());
    out.extend_from_slice(&(json.len() as u32).to_le_bytes());
    out.extend_from_slice(b"JSON");
    out.extend_from_slice(&json);
    out.extend_from_slice(rest);
    std::fs::write(path, out).unwrap();
}

/// The rest-mesh reader trusted its accessors: a wrapped count panicked (`capacity
/// overflow`), a stride-0 index accessor of 2^31·3 indices aborted on a 51 GB
/// allocation, a wrapped byteOffset was accepted. Each is now refused, naming the
/// accessor, before anything is allocated.
#[test]
fn rest_mesh_accessors_are_checked_before_allocating() {
    let (dir, description) = baked();
    let mesh = description.with_file_name("SimpleSkin.rest.glb");
    let original = std::fs::read(&mesh).unwrap();
    let sheet = dir.path().join("sheet.png");
    let index_accessor = |doc: &Value| doc["meshes"][0]["primitives"][0]["indices"].as_u64().unwrap() as usize;
    let cases: [(&str, BoxedEdit); 5] = [
        ("runs past its buffer view", Box::new(|doc| doc["accessors"][0]["count"] = u64::MAX.into())),
        (
            "indices, more than its 528 bytes",
            Box::new(move |doc| {
                let i = index_accessor(doc);
                doc["accessors"][i]["count"] = (3u64 << 31).into();
            }),
        ),
        (
            "is shorter than an element",
            Box::new(move |doc| {
                let i = index_accessor(doc);
                let view = doc["accessors"][i]["bufferView"].as_u64().unwrap() as usize;
                doc["bufferViews"][view]["byteStride"] = 0.into();
            }),
        ),
        ("runs past its buffer view", Box::new(|doc| doc["accessors"][0]["byteOffset"] = (u64::MAX - 3).into())),
        (
            "more than its",
            Box::new(move |doc| {
                let p = doc["meshes"][0]["primitives"][0].clone();
                doc["meshes"][0]["primitives"] = Value::Array(vec![p; 100_000]);
            }),
        ),
    ];
    for (expected, edit) in cases {
        std::fs::write(&mesh, &original).unwrap();
        edit_glb(&mesh, edit);
        let (code, _, err, took) =
            run(&["preview", description.to_str().unwrap(), "-o", sheet.to_str().unwrap()], LIMIT);
        assert_eq!(code, 3, "{expected}: {err}");
        assert!(
            err.contains(&format!("{}: not a vatbake rest mesh", mesh.display())) && err.contains(expected),
            "{err}"
        );
        assert!(took < Duration::from_secs(20), "{expected}: {took:?}");
        let (code, stdout, _) = verify(&description, &["--json"]);
        assert_eq!(code, 1);
        assert!(codes(&stdout).contains(&"rest-mesh".to_string()), "{stdout}");
        let (code, _, err, _) = run(&["inspect", mesh.to_str().unwrap()], LIMIT);
        assert_eq!(code, 2, "{err}");
    }
}

/// A texture whose header declares another shape (here 1 GiB of texels) is refused
/// from its header, before anything is inflated; one larger than its declared shape
/// can take is not read.
#[test]
fn a_texture_of_another_shape_is_refused_from_its_header() {
    let (dir, description) = baked();
    let texture = description.with_file_name("SimpleSkin.vat.ktx2");
    let mut bytes = std::fs::read(&texture).unwrap();
    // pixelWidth at 20, pixelHeight at 24 (KTX 2.0 header).
    bytes[20..24].copy_from_slice(&16384u32.to_le_bytes());
    bytes[24..28].copy_from_slice(&8192u32.to_le_bytes());
    std::fs::write(&texture, &bytes).unwrap();
    let sheet = dir.path().join("sheet.png");
    let (code, _, err, took) = run(&["preview", description.to_str().unwrap(), "-o", sheet.to_str().unwrap()], LIMIT);
    assert_eq!(code, 3, "{err}");
    assert!(err.contains("the texture is 16384×8192 texels, the description says"), "{err}");
    eprintln!("a 1 GiB texture declared: refused in {took:?}");
    let (code, stdout, _) = verify(&description, &["--json"]);
    assert_eq!(code, 1);
    assert!(codes(&stdout).contains(&"texture-shape".to_string()), "{stdout}");
    // 64 MiB of padding after a small texture: more than its description records
    // (`texture.bytes`); not read.
    bytes.resize(64 << 20, 0);
    std::fs::write(&texture, &bytes).unwrap();
    let (code, stdout, _) = verify(&description, &["--json"]);
    assert_eq!(code, 1);
    assert!(stdout.contains("67108864 bytes, more than the "), "{stdout}");
    assert!(stdout.contains(" bytes its description records for it (texture.bytes): refused"), "{stdout}");
    // With `texture.bytes` edited up, still no more than its declared shape can take.
    edit_json(&description, |d| d["texture"]["bytes"] = (1u64 << 40).into());
    let (code, stdout, _) = verify(&description, &["--json"]);
    assert_eq!(code, 1);
    assert!(stdout.contains("bytes the texture's declared shape can take: refused"), "{stdout}");
}

/// `inspect` of a KTX2 with 200,000 key/value entries took 54 s (each entry's value
/// looked up again by its key); now linear.
#[test]
fn many_ktx2_key_values_are_read_in_linear_time() {
    let (_dir, description) = baked();
    let texture = description.with_file_name("SimpleSkin.vat.ktx2");
    let mut bytes = std::fs::read(&texture).unwrap();
    // A new key/value block at the end, the header pointed at it (kvdByteOffset at 56,
    // kvdByteLength at 60).
    let mut kvd = Vec::new();
    for i in 0..200_000u32 {
        let entry = format!("k{i:07}\0v\0");
        kvd.extend_from_slice(&(entry.len() as u32).to_le_bytes());
        kvd.extend_from_slice(entry.as_bytes());
        while !kvd.len().is_multiple_of(4) {
            kvd.push(0);
        }
    }
    while !bytes.len().is_multiple_of(4) {
        bytes.push(0);
    }
    let at = bytes.len() as u32;
    bytes[56..60].copy_from_slice(&at.to_le_bytes());
    bytes[60..64].copy_from_slice(&(kvd.len() as u32).to_le_bytes());
    bytes.extend_from_slice(&kvd);
    let many = texture.with_file_name("many.ktx2");
    std::fs::write(&many, &bytes).unwrap();
    let (code, stdout, err, took) = run(&["inspect", many.to_str().unwrap(), "--json"], LIMIT);
    assert_eq!(code, 0, "{err}");
    eprintln!("{} MB, 200,000 key/value entries: inspect in {took:?}", bytes.len() >> 20);
    assert!(stdout.contains("k0199999"), "every entry listed");
    assert!(took < Duration::from_secs(10), "{took:?}");
}

/// `audit` (and so `roster --check`) ignored the files of another tool's format a
/// description records, and bounds that are not finite: both are findings now.
#[test]
fn audit_checks_exports_and_bounds() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("out");
    let model = fixture("SimpleSkin/SimpleSkin.gltf");
    let o = vatbake(&["bake", model.to_str().unwrap(), "-o", out.to_str().unwrap(), "-q", "--format", "playcanvas"]);
    assert!(o.status.success(), "{}", stderr(&o));
    let description = out.join("SimpleSkin.vat.json");
    let d: Value = serde_json::from_slice(&std::fs::read(&description).unwrap()).unwrap();
    let export = out.join(d["exports"][0]["file"].as_str().unwrap());
    let audit = || {
        let sources = fixture("SimpleSkin");
        let args = ["audit", out.to_str().unwrap(), "--sources", sources.to_str().unwrap(), "--format", "json"];
        let (code, stdout, err, _) = run(&args, LIMIT);
        let report: Value = serde_json::from_str(&stdout).unwrap_or_else(|e| panic!("{e}: {stdout} {err}"));
        let kinds: Vec<String> = report["results"][0]["findings"]
            .as_array()
            .unwrap()
            .iter()
            .map(|f| f["kind"].as_str().unwrap().to_string())
            .collect();
        (code, kinds, stdout)
    };
    let (code, kinds, _) = audit();
    assert_eq!((code, kinds.len()), (0, 0), "{kinds:?}");
    std::fs::write(&export, b"edited").unwrap();
    let (code, kinds, stdout) = audit();
    assert_eq!(code, 1);
    assert_eq!(kinds, ["export_mismatch"], "{stdout}");
    std::fs::remove_file(&export).unwrap();
    let (_, kinds, _) = audit();
    assert_eq!(kinds, ["export_mismatch"]);
    #[cfg(unix)]
    {
        Command::new("mkfifo").arg(&export).status().unwrap();
        let (_, kinds, stdout) = audit();
        assert_eq!(kinds, ["export_mismatch"]);
        assert!(stdout.contains("a FIFO (named pipe), not a regular file"), "{stdout}");
        std::fs::remove_file(&export).unwrap();
    }
    edit_json(&description, |d| {
        d["exports"] = Value::Array(Vec::new());
        d["positions"]["half_extent"][2] = (-1.0).into();
        d["positions"]["center"][0] = 1e300.into();
    });
    let (code, kinds, stdout) = audit();
    assert_eq!(code, 1);
    assert!(kinds.contains(&"bad_bounds".to_string()), "{stdout}");
    assert!(stdout.contains("positions.center[0] is inf, positions.half_extent[2] is -1"), "{stdout}");
}

/// A file size limit (`ulimit -f`) killed a bake with SIGXFSZ and no word of ours; a
/// full disk's "No space left on device" was printed twice. Now: one message, exit 4,
/// nothing left behind.
#[cfg(target_os = "linux")]
#[test]
fn a_file_size_limit_is_an_output_error() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("out");
    let script = format!(
        "ulimit -f 16; exec {} bake {} -o {} -q",
        env!("CARGO_BIN_EXE_vatbake"),
        fixture("Fox/Fox.glb").display(),
        out.display()
    );
    let o = Command::new("sh").args(["-c", &script]).output().unwrap();
    let err = stderr(&o);
    assert_eq!(o.status.code(), Some(4), "{err}");
    assert!(err.contains("File too large"), "{err}");
    assert_eq!(err.matches("os error").count(), 1, "{err}");
    assert!(std::fs::read_dir(&out).map_or(true, |mut entries| entries.next().is_none()), "nothing left");
}
