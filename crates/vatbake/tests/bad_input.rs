//! Broken, hostile and unsupported input: a non-zero documented exit code, one clear
//! message naming the file, nothing written, never a panic.

mod common;

use std::path::{Path, PathBuf};

use base64::Engine;
use common::{fixture, stderr, vatbake};
use serde_json::Value;

const B64: base64::engine::GeneralPurpose = base64::engine::general_purpose::STANDARD;

/// Runs a bake that must fail; returns (exit code, the message).
fn fails(model: &Path, extra: &[&str]) -> (i32, String) {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("out");
    let mut args = vec!["bake", model.to_str().unwrap(), "-o", out.to_str().unwrap()];
    args.extend_from_slice(extra);
    let o = vatbake(&args);
    let message = stderr(&o);
    assert!(!message.contains("panicked"), "{message}");
    assert!(o.stdout.is_empty(), "nothing on stdout for a failure");
    assert_eq!(message.lines().count(), 1, "one message: {message}");
    assert!(!out.exists() || std::fs::read_dir(&out).unwrap().next().is_none(), "nothing left in OUTDIR");
    (o.status.code().expect("exits, not killed"), message)
}

/// SimpleSkin's JSON with its buffers (data URIs) decoded, for editing.
fn simple_skin() -> (Value, Vec<Vec<u8>>) {
    let json: Value = serde_json::from_slice(&std::fs::read(fixture("SimpleSkin/SimpleSkin.gltf")).unwrap()).unwrap();
    let buffers = json["buffers"]
        .as_array()
        .unwrap()
        .iter()
        .map(|b| B64.decode(b["uri"].as_str().unwrap().split_once(',').unwrap().1).unwrap())
        .collect();
    (json, buffers)
}

fn write_model(dir: &Path, name: &str, mut json: Value, buffers: &[Vec<u8>]) -> PathBuf {
    for (i, buffer) in buffers.iter().enumerate() {
        json["buffers"][i]["uri"] = format!("data:application/octet-stream;base64,{}", B64.encode(buffer)).into();
    }
    let path = dir.join(name);
    std::fs::write(&path, serde_json::to_vec(&json).unwrap()).unwrap();
    path
}

/// The buffer and byte offset of an accessor's first element.
fn accessor_at(json: &Value, accessor: usize) -> (usize, usize) {
    let a = &json["accessors"][accessor];
    let view = &json["bufferViews"][a["bufferView"].as_u64().unwrap() as usize];
    let offset = view["byteOffset"].as_u64().unwrap_or(0) + a["byteOffset"].as_u64().unwrap_or(0);
    (view["buffer"].as_u64().unwrap() as usize, offset as usize)
}

fn starts_with_file(message: &str, model: &Path) {
    assert!(message.starts_with(&format!("error: {}: ", model.display())), "names the file: {message}");
}

#[test]
fn truncated_glb() {
    let dir = tempfile::tempdir().unwrap();
    let model = dir.path().join("cut.glb");
    std::fs::write(&model, &std::fs::read(fixture("Fox/Fox.glb")).unwrap()[..50_000]).unwrap();
    let (code, message) = fails(&model, &[]);
    assert_eq!(code, 3);
    starts_with_file(&message, &model);
    assert!(
        message.contains("GLB file is truncated: its header declares 162852 bytes but the file has 50000"),
        "{message}"
    );
}

#[test]
fn json_that_is_not_gltf() {
    let dir = tempfile::tempdir().unwrap();
    let model = dir.path().join("notes.gltf");
    std::fs::write(&model, br#"{"title": "shopping list", "items": ["eggs"]}"#).unwrap();
    let (code, message) = fails(&model, &[]);
    assert_eq!(code, 3);
    starts_with_file(&message, &model);
    assert!(message.contains("not a glTF 2.0 document: it has no asset.version"), "{message}");
}

#[test]
fn missing_bin() {
    let dir = tempfile::tempdir().unwrap();
    let model = dir.path().join("rigged-simple.gltf");
    std::fs::copy(fixture("RiggedSimple/rigged-simple.gltf"), &model).unwrap();
    let (code, message) = fails(&model, &[]);
    assert_eq!(code, 3);
    starts_with_file(&message, &model);
    assert!(message.contains("cannot read buffer 0 \"rigged-simple.bin\""), "{message}");
    assert!(message.contains("copy the file next to the model"), "{message}");
}

#[test]
fn index_out_of_range() {
    let dir = tempfile::tempdir().unwrap();
    let (json, mut buffers) = simple_skin();
    let indices = json["meshes"][0]["primitives"][0]["indices"].as_u64().unwrap() as usize;
    let (buffer, at) = accessor_at(&json, indices);
    buffers[buffer][at..at + 2].copy_from_slice(&999u16.to_le_bytes());
    let model = write_model(dir.path(), "bad-index.gltf", json, &buffers);
    let (code, message) = fails(&model, &[]);
    assert_eq!(code, 3);
    starts_with_file(&message, &model);
    assert!(message.contains("index 999 is out of range: the primitive has 10 points"), "{message}");
}

#[test]
fn accessor_larger_than_its_buffer() {
    let dir = tempfile::tempdir().unwrap();
    let (mut json, buffers) = simple_skin();
    let position = json["meshes"][0]["primitives"][0]["attributes"]["POSITION"].as_u64().unwrap() as usize;
    json["accessors"][position]["count"] = 1_000_000_000u64.into();
    let model = write_model(dir.path(), "huge.gltf", json, &buffers);
    let (code, message) = fails(&model, &[]);
    assert_eq!(code, 3);
    starts_with_file(&message, &model);
    assert!(message.contains("needs 1000000000 ×"), "{message}");
    assert!(message.contains("more than the"), "{message}");
}

#[test]
fn uri_escaping_the_model_folder() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::create_dir(dir.path().join("models")).unwrap();
    std::fs::copy(fixture("RiggedSimple/rigged-simple.bin"), dir.path().join("outside.bin")).unwrap();
    let mut json: Value =
        serde_json::from_slice(&std::fs::read(fixture("RiggedSimple/rigged-simple.gltf")).unwrap()).unwrap();
    json["buffers"][0]["uri"] = "../outside.bin".into();
    let model = dir.path().join("models/escape.gltf");
    std::fs::write(&model, serde_json::to_vec(&json).unwrap()).unwrap();
    let (code, message) = fails(&model, &[]);
    assert_eq!(code, 3);
    starts_with_file(&message, &model);
    assert!(message.contains("the URI \"../outside.bin\" escapes the model's folder"), "{message}");
}

#[test]
fn model_with_no_animation() {
    let dir = tempfile::tempdir().unwrap();
    let (mut json, buffers) = simple_skin();
    json.as_object_mut().unwrap().remove("animations");
    let model = write_model(dir.path(), "still.gltf", json, &buffers);
    let (code, message) = fails(&model, &[]);
    assert_eq!(code, 3);
    starts_with_file(&message, &model);
    assert!(message.contains("the model has no animation clips, so there is nothing to bake"), "{message}");
}

#[test]
fn nan_in_keyframes() {
    let dir = tempfile::tempdir().unwrap();
    let (json, mut buffers) = simple_skin();
    let output = json["animations"][0]["samplers"][0]["output"].as_u64().unwrap() as usize;
    let (buffer, at) = accessor_at(&json, output);
    buffers[buffer][at + 4..at + 8].copy_from_slice(&f32::NAN.to_le_bytes());
    let model = write_model(dir.path(), "nan.gltf", json, &buffers);
    let (code, message) = fails(&model, &[]);
    assert_eq!(code, 3);
    starts_with_file(&message, &model);
    assert!(message.contains("channel 0 has NaN or infinite key values"), "{message}");
}

#[test]
fn positions_that_overflow() {
    // A joint scaled by 3e38: the skinned positions overflow to infinity. (Rows that
    // overflow only while animated are refused by the bounds pass: texels.rs tests.)
    let dir = tempfile::tempdir().unwrap();
    let (mut json, buffers) = simple_skin();
    json["nodes"][1]["scale"] = serde_json::json!([3e38, 3e38, 3e38]);
    let model = write_model(dir.path(), "overflow.gltf", json, &buffers);
    // The rest pose already gives it away, size guard or not.
    for flags in [&[][..], &["--no-size-guard"]] {
        let (code, message) = fails(&model, flags);
        assert_eq!(code, 3);
        starts_with_file(&message, &model);
        assert!(message.contains("the rest pose evaluates to positions that are not finite numbers"), "{message}");
    }
}

/// The Draco CesiumMan with the body of its Draco stream zeroed: the decoder refuses
/// it, and the message names the primitive and the extension.
#[test]
fn a_corrupt_draco_stream_is_refused() {
    let source = fixture("CesiumMan/glTF-Draco/CesiumMan.gltf");
    let json: Value = serde_json::from_slice(&std::fs::read(&source).unwrap()).unwrap();
    let mut bin = std::fs::read(fixture("CesiumMan/glTF-Draco/0.bin")).unwrap();
    let view = &json["bufferViews"][json["meshes"][0]["primitives"][0]["extensions"]["KHR_draco_mesh_compression"]
        ["bufferView"]
        .as_u64()
        .unwrap() as usize];
    let start = view["byteOffset"].as_u64().unwrap() as usize;
    let end = start + view["byteLength"].as_u64().unwrap() as usize;
    assert_eq!(&bin[start..start + 5], b"DRACO");
    bin[start + 16..end].fill(0); // header kept, connectivity and attributes gone
    let dir = tempfile::tempdir().unwrap();
    let model = dir.path().join("CesiumMan.gltf");
    std::fs::copy(&source, &model).unwrap();
    std::fs::write(dir.path().join("0.bin"), &bin).unwrap();
    let (code, message) = fails(&model, &[]);
    assert_eq!(code, 3);
    starts_with_file(&message, &model);
    assert!(message.contains("mesh 0 primitive 0 (KHR_draco_mesh_compression)"), "{message}");
    assert!(message.contains("cannot be decoded"), "{message}");
}

#[test]
fn missing_file() {
    let (code, message) = fails(Path::new("no/such/model.glb"), &[]);
    assert_eq!(
        message,
        "error: no/such/model.glb: cannot read the model: No such file or directory (os error 2); check the path\n"
    );
    assert_eq!(code, 3);
    assert!(message.starts_with("error: no/such/model.glb: cannot read the model"), "{message}");
}

#[test]
fn usage_errors_exit_2() {
    let fox = fixture("Fox/Fox.glb");
    for (flags, expected) in [
        (&["--points", "0"][..], "the point budget must be at least 1"),
        (&["--name", "../escape"][..], "is not a plain file name"),
        (&["--fps", "0"][..], "--fps 0: give a rate above 0 and at most 1000 rows per second (e.g. 30)"),
        (&["--fps", "-5"][..], "--fps -5: give a rate above 0 and at most 1000 rows per second (e.g. 30)"),
        (
            &["--fps-tolerance", "0.01"][..],
            "--fps-tolerance 0.01: it is the error --fps auto chooses each clip's rate by",
        ),
        (&["--fps", "auto", "--fps-tolerance", "0"][..], "--fps-tolerance 0: give the largest error between rows"),
        (&["--max-width", "0"][..], "--max-width 0"),
        (&["--zstd-level", "40"][..], "Zstandard levels run from 1 to 22"),
        (&["--threads", "0"][..], "--threads 0: give at least one thread"),
        (&["--bits", "0"][..], "--bits 0: give 1 to 16 significant bits per axis"),
        (&["--bits", "17"][..], "--bits 17: give 1 to 16 significant bits per axis"),
        (&["--tolerance", "0"][..], "--tolerance 0: give the largest position error you accept"),
        (&["--tolerance", "-0.5"][..], "--tolerance -0.5: give the largest position error you accept"),
        (&["--tolerance", "NaN"][..], "--tolerance NaN: give the largest position error you accept"),
        (&["--tolerance", "0.1", "--bits", "12"][..], "'--tolerance <DIST>' cannot be used with '--bits <N>'"),
    ] {
        let dir = tempfile::tempdir().unwrap();
        let out = dir.path().join("out");
        let mut args = vec!["bake", fox.to_str().unwrap(), "-o", out.to_str().unwrap()];
        args.extend_from_slice(flags);
        let o = vatbake(&args);
        assert_eq!(o.status.code(), Some(2), "{flags:?}");
        assert!(stderr(&o).contains(expected), "{flags:?}: {}", stderr(&o));
        assert!(!out.exists());
    }
}

#[test]
fn unwritable_output_exits_4() {
    let dir = tempfile::tempdir().unwrap();
    let blocker = dir.path().join("a-file");
    std::fs::write(&blocker, b"not a folder").unwrap();
    let fox = fixture("Fox/Fox.glb");
    let o = vatbake(&["bake", fox.to_str().unwrap(), "-o", blocker.to_str().unwrap(), "--points", "all"]);
    assert_eq!(o.status.code(), Some(4), "{}", stderr(&o));
    let shown = blocker.display();
    assert_eq!(
        stderr(&o),
        format!(
            "error: cannot create the output folder {shown}: {shown} is a file, not a folder; give -o a folder (it is \
             created if missing)\n"
        )
    );
    // A folder under that file: the file on the path is named.
    let under = blocker.join("sub");
    let o = vatbake(&["bake", fox.to_str().unwrap(), "-o", under.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(4), "{}", stderr(&o));
    assert!(stderr(&o).contains(&format!(": {shown} is a file, not a folder; give -o a folder")), "{}", stderr(&o));
    // A folder that cannot be written (permissions; root writes anyway, so only when not root).
    let locked = dir.path().join("locked");
    std::fs::create_dir(&locked).unwrap();
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(&locked, std::fs::Permissions::from_mode(0o555)).unwrap();
        if std::fs::write(locked.join("probe"), b"").is_err() {
            let o = vatbake(&["bake", fox.to_str().unwrap(), "-o", locked.to_str().unwrap()]);
            assert_eq!(o.status.code(), Some(4), "{}", stderr(&o));
            assert!(stderr(&o).ends_with("; give -o a folder you can write to\n"), "{}", stderr(&o));
        }
        std::fs::set_permissions(&locked, std::fs::Permissions::from_mode(0o755)).unwrap();
    }
}

/// The mistakes of a first hour, each answered with the file, the problem and what to
/// do, and the same exit code for the same kind of failure in every command.
#[test]
fn first_hour_mistakes_say_what_to_do() {
    let dir = tempfile::tempdir().unwrap();
    // A folder given as the model.
    let (code, message) = fails(dir.path(), &[]);
    assert_eq!(code, 3);
    assert_eq!(
        message,
        format!(
            "error: {}: a folder, not a model; give a .glb or .gltf file (for every model in a folder, a roster's \
             glob: docs/ROSTER.md)\n",
            dir.path().display()
        )
    );
    // A text file named .glb.
    let text = dir.path().join("notes.glb");
    std::fs::write(&text, "hello, this is text\n").unwrap();
    let (code, message) = fails(&text, &[]);
    assert_eq!(code, 3);
    assert_eq!(
        message,
        format!(
            "error: {}: not a glTF model: neither a glTF binary (its first bytes are \"hell\", not \"glTF\") nor \
             glTF JSON (it does not start with {{); give a .glb or .gltf file exported as glTF 2.0\n",
            text.display()
        )
    );
    // A missing file: exit 3 in bake, inspect, verify, preview and roster alike.
    for args in [
        &["bake", "missing.glb", "-o", "out"][..],
        &["inspect", "missing.vat.json"],
        &["verify", "missing.vat.json"],
        &["preview", "missing.vat.json"],
        &["roster", "missing.toml"],
    ] {
        let o = std::process::Command::new(env!("CARGO_BIN_EXE_vatbake"))
            .args(args)
            .current_dir(dir.path())
            .output()
            .unwrap();
        assert_eq!(o.status.code(), Some(3), "{args:?}: {}", stderr(&o));
        assert!(
            stderr(&o).contains("No such file or directory (os error 2); check the path\n"),
            "{args:?}: {}",
            stderr(&o)
        );
    }
    // --json: a failure is an error object on stdout too.
    let o = std::process::Command::new(env!("CARGO_BIN_EXE_vatbake"))
        .args(["bake", "missing.glb", "-o", "out", "--json"])
        .current_dir(dir.path())
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(3));
    let error: Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(
        error,
        serde_json::json!({"error": {
            "code": 3,
            "kind": "input",
            "message": "missing.glb: cannot read the model: No such file or directory (os error 2); check the path",
            "file": "missing.glb"
        }})
    );
}

/// Ctrl-C in the middle of the texture: exit 130, and the half-written temporary
/// file is removed, leaving the output folder as it was.
#[cfg(unix)]
#[test]
fn an_interrupted_bake_leaves_nothing_behind() {
    interrupt_bake("INT", false);
}

/// SIGTERM (a build system stopping a job), in a folder that holds an earlier bake of
/// the model: the earlier set stays, byte for byte.
#[cfg(unix)]
#[test]
fn a_terminated_bake_keeps_the_previous_set() {
    interrupt_bake("TERM", true);
}

/// SIGHUP (the terminal closed), likewise.
#[cfg(unix)]
#[test]
fn a_hung_up_bake_keeps_the_previous_set() {
    interrupt_bake("HUP", true);
}

/// Every file of a folder with its bytes, sorted by name.
fn snapshot(dir: &Path) -> Vec<(String, Vec<u8>)> {
    let mut files: Vec<(String, Vec<u8>)> = std::fs::read_dir(dir)
        .unwrap()
        .flatten()
        .filter(|e| e.path().is_file())
        .map(|e| (e.file_name().to_string_lossy().into_owned(), std::fs::read(e.path()).unwrap()))
        .collect();
    files.sort();
    files
}

/// Sends `signal` to a bake in the middle of its texture; with `earlier`, the output
/// folder first holds a small bake of the same model under the same names.
#[cfg(unix)]
fn interrupt_bake(signal: &str, earlier: bool) {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("out");
    let model = fixture("CesiumMan/glTF-Binary/CesiumMan.glb");
    let before = if earlier {
        let o = vatbake(&["bake", model.to_str().unwrap(), "-o", out.to_str().unwrap(), "--max-frames", "2", "-q"]);
        assert!(o.status.success(), "{}", stderr(&o));
        let files = snapshot(&out);
        assert_eq!(files.len(), 3);
        files
    } else {
        Vec::new()
    };
    // Every CesiumMan point at 240 rows a second, its 19 animations kept apart, and
    // zstd level 22: many seconds in the texture stage, which writes its temporary
    // file from its first chunk on.
    let child = std::process::Command::new(env!("CARGO_BIN_EXE_vatbake"))
        .args(["bake", model.to_str().unwrap(), "-o", out.to_str().unwrap(), "--points", "all"])
        .args(["--fps", "240", "--zstd-level", "22", "--no-merge-clips"])
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    common::interrupt_while_staging(child, &out, signal);
    let left: Vec<_> = std::fs::read_dir(&out).unwrap().flatten().map(|e| e.file_name()).collect();
    assert_eq!(left.len(), before.len(), "{signal}: the folder holds {left:?}");
    assert!(snapshot(&out) == before, "{signal}: the earlier files changed");
}

/// A bake that fails into a folder holding an earlier bake leaves that set as it was,
/// byte for byte ("nothing, or the previous set"), early (the model is unreadable) or
/// at the very end (the last step, renaming the staged files into place, fails).
#[test]
fn a_failed_bake_keeps_the_previous_set() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("out");
    let fox = fixture("Fox/Fox.glb");
    let o = vatbake(&["bake", fox.to_str().unwrap(), "-o", out.to_str().unwrap(), "--points", "all", "-q"]);
    assert!(o.status.success(), "{}", stderr(&o));
    let before = snapshot(&out);
    let names: Vec<&str> = before.iter().map(|(n, _)| n.as_str()).collect();
    assert_eq!(names, ["Fox.rest.glb", "Fox.vat.json", "Fox.vat.ktx2"]);

    // Late: a folder stands where the PNG texture would go, so the texture's rename
    // fails after every file has been written to its temporary name.
    std::fs::create_dir(out.join("Fox.vat.png")).unwrap();
    let o = vatbake(&[
        "bake",
        fox.to_str().unwrap(),
        "-o",
        out.to_str().unwrap(),
        "--points",
        "all",
        "--texture-format",
        "png",
        "-q",
    ]);
    assert_eq!(o.status.code(), Some(4), "{}", stderr(&o));
    assert!(stderr(&o).contains("cannot move the finished file into"), "{}", stderr(&o));
    assert!(!stderr(&o).contains("panicked"), "{}", stderr(&o));
    let mut left: Vec<String> =
        std::fs::read_dir(&out).unwrap().flatten().map(|e| e.file_name().to_string_lossy().into_owned()).collect();
    left.sort();
    assert_eq!(left, ["Fox.rest.glb", "Fox.vat.json", "Fox.vat.ktx2", "Fox.vat.png"], "no temporary file left");
    assert!(std::fs::read_dir(out.join("Fox.vat.png")).unwrap().next().is_none());
    assert!(snapshot(&out) == before, "the previous set is untouched");
    std::fs::remove_dir(out.join("Fox.vat.png")).unwrap();

    // Early: the same stem, a broken model.
    let broken = dir.path().join("Fox.glb");
    std::fs::write(&broken, &std::fs::read(&fox).unwrap()[..50_000]).unwrap();
    let o = vatbake(&["bake", broken.to_str().unwrap(), "-o", out.to_str().unwrap(), "--points", "all"]);
    assert_eq!(o.status.code(), Some(3), "{}", stderr(&o));
    assert!(snapshot(&out) == before, "the previous set is untouched");
    assert_eq!(std::fs::read_dir(&out).unwrap().count(), 3, "nothing else in the folder");
}

/// `--json` with a flag clap refuses: the error object on stdout too, exit 2.
#[test]
fn a_refused_flag_under_json_is_an_error_object() {
    let o = vatbake(&["bake", "model.glb", "-o", "out", "--json", "--fps", "fast"]);
    assert_eq!(o.status.code(), Some(2));
    let error: Value = serde_json::from_slice(&o.stdout).unwrap_or_else(|_| panic!("{}", stderr(&o)));
    assert_eq!(error["error"]["code"], 2);
    assert_eq!(error["error"]["kind"], "usage");
    assert_eq!(error["error"]["file"], Value::Null);
    assert_eq!(error["error"]["message"], "invalid value 'fast' for '--fps <FPS|auto>': \"fast\" is not a rate: give rows per second (e.g. 30) or \"auto\"");
}
