//! `--animations`: a character without clips and an animation library (a skeleton and
//! clips, no mesh, its joints named with Mixamo's prefix), both made here from the Fox,
//! bake to the same texture as the Fox itself; what does not bind is reported, a
//! library of another skeleton is refused, and a name map binds it.

mod common;

use std::path::{Path, PathBuf};

use common::{fixture, stderr, vatbake};
use serde_json::{json, Value};

/// The Fox's GLB split into its JSON and its binary chunk.
fn fox() -> (Value, Vec<u8>) {
    let glb = std::fs::read(fixture("Fox/Fox.glb")).unwrap();
    let json_len = u32::from_le_bytes(glb[12..16].try_into().unwrap()) as usize;
    let json: Value = serde_json::from_slice(&glb[20..20 + json_len]).unwrap();
    let bin_at = 20 + json_len;
    let bin_len = u32::from_le_bytes(glb[bin_at..bin_at + 4].try_into().unwrap()) as usize;
    (json, glb[bin_at + 8..bin_at + 8 + bin_len].to_vec())
}

/// Writes `json` as `name` beside `fox.bin` in `dir`.
fn write_gltf(dir: &Path, name: &str, mut json: Value, bin: &[u8]) -> PathBuf {
    std::fs::write(dir.join("fox.bin"), bin).unwrap();
    json["buffers"] = json!([{ "byteLength": bin.len(), "uri": "fox.bin" }]);
    let path = dir.join(name);
    std::fs::write(&path, serde_json::to_vec(&json).unwrap()).unwrap();
    path
}

/// The Fox without its clips, and a library of its clips on its skeleton alone, every
/// node renamed by `rename`.
fn split(dir: &Path, rename: impl Fn(&str) -> String) -> (PathBuf, PathBuf) {
    let (json, bin) = fox();
    let mut character = json.clone();
    character.as_object_mut().unwrap().remove("animations");
    let mut library = json;
    let object = library.as_object_mut().unwrap();
    for key in ["meshes", "skins", "materials", "textures", "images", "samplers"] {
        object.remove(key);
    }
    for node in library["nodes"].as_array_mut().unwrap() {
        let node = node.as_object_mut().unwrap();
        node.remove("mesh");
        node.remove("skin");
        if let Some(Value::String(name)) = node.get("name").cloned() {
            node.insert("name".into(), Value::String(rename(&name)));
        }
    }
    (write_gltf(dir, "character.gltf", character, &bin), write_gltf(dir, "library.gltf", library, &bin))
}

/// Bakes and returns the exit code, stderr and (on success) the description.
fn bake(model: &Path, out: &Path, extra: &[&str]) -> (Option<i32>, String, Option<Value>) {
    let mut args = vec!["bake", model.to_str().unwrap(), "-o", out.to_str().unwrap()];
    args.extend_from_slice(extra);
    let o = vatbake(&args);
    let description = std::fs::read_dir(out)
        .ok()
        .and_then(|mut entries| {
            entries.find_map(|e| e.ok().filter(|e| e.file_name().to_string_lossy().ends_with(".vat.json")))
        })
        .map(|e| serde_json::from_slice(&std::fs::read(e.path()).unwrap()).unwrap());
    (o.status.code(), stderr(&o), description)
}

fn texture(out: &Path, description: &Value) -> Vec<u8> {
    std::fs::read(out.join(description["texture"]["file"].as_str().unwrap())).unwrap()
}

#[test]
fn a_library_with_mixamo_names_plays_on_the_character_as_the_fox_plays_its_own_clips() {
    let dir = tempfile::tempdir().unwrap();
    let (character, library) = split(dir.path(), |name| format!("mixamorig:{name}"));
    let whole = dir.path().join("whole");
    let (code, message, fox) = bake(&fixture("Fox/Fox.glb"), &whole, &[]);
    assert_eq!(code, Some(0), "{message}");
    let fox = fox.unwrap();

    // Without the library the character has nothing to bake.
    let (code, message, _) = bake(&character, &dir.path().join("alone"), &[]);
    assert_eq!(code, Some(3), "{message}");
    assert!(message.contains("the model has no animation clips"), "{message}");

    let out = dir.path().join("out");
    let (code, message, description) = bake(&character, &out, &["--animations", library.to_str().unwrap()]);
    assert_eq!(code, Some(0), "{message}");
    let description = description.unwrap();
    assert_eq!(texture(&out, &description), texture(&whole, &fox), "the same texels as the Fox's own clips");
    let names = |d: &Value| d["clips"].as_array().unwrap().iter().map(|c| c["name"].clone()).collect::<Vec<_>>();
    assert_eq!(names(&description), names(&fox));
    assert_eq!(description["clips"][2]["animations_file"], json!(0));
    assert_eq!(description["clips"][2]["source_index"], json!(2));
    let recorded = &description["animations"][0];
    assert_eq!(recorded["file"], json!("library.gltf"));
    assert_eq!(recorded["bytes"].as_u64(), Some(std::fs::metadata(&library).unwrap().len()));
    // The Fox's clips move every joint its skin has, and every track binds.
    assert!(!message.contains("unbound-tracks") && !message.contains("bind to no node"), "{message}");

    // verify finds the library where the description records it and bakes it again.
    let o =
        vatbake(&["verify", out.join("character.vat.json").to_str().unwrap(), "--source", character.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
}

#[test]
fn a_library_of_another_skeleton_is_refused_and_a_name_map_binds_it() {
    let dir = tempfile::tempdir().unwrap();
    let (character, library) = split(dir.path(), |name| format!("Other_{name}"));
    let out = dir.path().join("out");
    let (code, message, _) = bake(&character, &out, &["--animations", library.to_str().unwrap()]);
    assert_eq!(code, Some(3), "{message}");
    assert!(message.contains("library.gltf: only 0 of its 20 animated nodes bind to a node of"), "{message}");
    assert!(message.contains("not the same skeleton; pass --animation-names"), "{message}");
    assert!(!out.exists(), "nothing written");

    // A map of every name but one: the bake runs, and says which tracks did not play.
    let (json, _) = fox();
    let names: Vec<String> =
        json["nodes"].as_array().unwrap().iter().filter_map(|n| n["name"].as_str()).map(String::from).collect();
    let map: serde_json::Map<String, Value> =
        names.iter().filter(|n| *n != "b_Head_05").map(|n| (format!("Other_{n}"), json!(n))).collect();
    let map_file = dir.path().join("names.json");
    std::fs::write(&map_file, serde_json::to_vec(&map).unwrap()).unwrap();
    let (code, message, description) = bake(
        &character,
        &out,
        &["--animations", library.to_str().unwrap(), "--animation-names", map_file.to_str().unwrap()],
    );
    assert_eq!(code, Some(0), "{message}");
    assert_eq!(message.matches("bind to no node").count(), 1, "{message}");
    assert!(message.contains("the tracks of 1 of its 20 animated nodes bind to no node"), "{message}");
    assert!(message.contains("\"Other_b_Head_05\""), "{message}");
    let description = description.unwrap();
    let recorded = &description["animation_names"];
    assert_eq!(recorded["file"], json!("names.json"));
    assert_eq!(recorded["path"], json!("../names.json"));
    assert_eq!(recorded["sha256"].as_str().map(str::len), Some(64));

    // verify finds the library and the map where the description records them.
    let o = vatbake(&["verify", out.join("character.vat.json").to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
}

/// A roster unit whose clips come from a library: rebaked when the library's bytes
/// change, and audited against the library's clips and hash.
#[test]
fn the_roster_and_the_audit_follow_the_library() {
    let dir = tempfile::tempdir().unwrap();
    let (_, library) = split(dir.path(), |name| format!("mixamorig:{name}"));
    let roster = dir.path().join("roster.toml");
    std::fs::write(
        &roster,
        "output = \"out\"\n[[unit]]\nname = \"hero\"\nsource = \"character.gltf\"\nanimations = [\"library.gltf\"]\n",
    )
    .unwrap();
    let run = || {
        let o = vatbake(&["roster", roster.to_str().unwrap(), "--json"]);
        let report: Value = serde_json::from_slice(&o.stdout).unwrap_or(Value::Null);
        (o.status.code(), report["units"][0]["status"].as_str().map(String::from), stderr(&o))
    };
    assert_eq!(run(), (Some(0), Some("baked".into()), String::new()));
    assert_eq!(run().1.as_deref(), Some("skipped"), "nothing changed");
    let audit = || {
        let o = vatbake(&["audit", dir.path().join("out").to_str().unwrap(), "--format", "json"]);
        (o.status.code(), String::from_utf8_lossy(&o.stdout).into_owned())
    };
    let (code, report) = audit();
    assert_eq!(code, Some(0), "{report}");

    // The same clips in other bytes: the unit is stale for the audit, and rebaked.
    let text: Value = serde_json::from_slice(&std::fs::read(&library).unwrap()).unwrap();
    std::fs::write(&library, serde_json::to_vec_pretty(&text).unwrap()).unwrap();
    let (code, report) = audit();
    assert_eq!(code, Some(1), "{report}");
    assert!(report.contains("library.gltf changed since the bake"), "{report}");
    assert_eq!(run().1.as_deref(), Some("baked"), "the library changed");
    assert_eq!(audit().0, Some(0));

    // A library gone: said once, and its clips are not reported one by one.
    std::fs::remove_file(&library).unwrap();
    let (code, report) = audit();
    assert_eq!(code, Some(1), "{report}");
    assert_eq!(report.matches("library.gltf cannot be read").count(), 1, "{report}");
    assert!(!report.contains("not in the source"), "{report}");
}

/// The library's clips also move the head by the hip's translation keys: played as they
/// are (`all`), the head leaves the neck; with `root`, only the hip's translation plays
/// and the texture is the Fox's own again.
#[test]
fn root_translations_keep_the_character_s_bone_lengths() {
    let dir = tempfile::tempdir().unwrap();
    let (character, library) = split(dir.path(), |name| name.to_string());
    let mut json: Value = serde_json::from_slice(&std::fs::read(&library).unwrap()).unwrap();
    let head = json["nodes"].as_array().unwrap().iter().position(|n| n["name"] == "b_Head_05").unwrap();
    for animation in json["animations"].as_array_mut().unwrap() {
        let hip = animation["channels"]
            .as_array()
            .unwrap()
            .iter()
            .find(|c| c["target"]["path"] == "translation")
            .cloned()
            .unwrap();
        let mut moved = hip.clone();
        moved["target"]["node"] = json!(head);
        animation["channels"].as_array_mut().unwrap().push(moved);
    }
    std::fs::write(&library, serde_json::to_vec(&json).unwrap()).unwrap();
    let whole = dir.path().join("whole");
    let (_, _, fox) = bake(&fixture("Fox/Fox.glb"), &whole, &[]);
    let fox = texture(&whole, &fox.unwrap());

    let all = dir.path().join("all");
    let (code, message, described) = bake(&character, &all, &["--animations", library.to_str().unwrap()]);
    assert_eq!(code, Some(0), "{message}");
    let described = described.unwrap();
    assert_ne!(texture(&all, &described), fox, "the head follows the hip's keys");
    assert!(described["settings"].get("animation_translations").is_none(), "the default is not written");

    let root = dir.path().join("root");
    let o = vatbake(&[
        "bake",
        character.to_str().unwrap(),
        "-o",
        root.to_str().unwrap(),
        "--animations",
        library.to_str().unwrap(),
        "--animation-translations",
        "root",
        "--json",
    ]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let summary = String::from_utf8_lossy(&o.stdout);
    assert!(summary.contains("--animation-translations root left out 3 translation tracks"), "{summary}");
    let rooted: Value = serde_json::from_slice(&std::fs::read(root.join("character.vat.json")).unwrap()).unwrap();
    assert_eq!(rooted["settings"]["animation_translations"], json!("root"));
    assert_eq!(texture(&root, &rooted), fox, "only the hip's translation plays");
}
