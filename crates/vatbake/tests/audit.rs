//! Clip slots at bake time, and `vatbake audit` of shipped description files: on the
//! fixtures (Kenney's `die`, CesiumMan's unnamed clips, Fox's `Survey`) and on
//! purpose-built cases (a `Dead` clip, machine-generated names, a clip renamed after
//! the bake, a source changed after the bake).

mod common;

use std::path::{Path, PathBuf};
use std::process::Output;
use std::time::Instant;

use common::{fixture, stderr, vatbake};
use serde_json::Value;

/// The seed's alias table: fragment lists that never mention "dead".
const SEED_TABLE: &str = "version = 1\n[slots]\nidle = [\"idle\", \"survey\"]\nwalk = []\nrun = []\n\
                          death = [\"die\", \"killed\"]\n";

fn bake_into(model: &Path, out: &Path, extra: &[&str]) -> Output {
    let mut args = vec!["bake", model.to_str().unwrap(), "-o", out.to_str().unwrap(), "--points", "all"];
    args.extend_from_slice(extra);
    vatbake(&args)
}

fn read_json(path: &Path) -> Value {
    serde_json::from_slice(&std::fs::read(path).unwrap()).unwrap()
}

/// (name, slot) of every baked clip.
fn slots(description: &Value) -> Vec<(String, Option<String>)> {
    description["clips"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| (c["name"].as_str().unwrap().to_string(), c["slot"].as_str().map(str::to_string)))
        .collect()
}

fn slot_of(description: &Value, clip: &str) -> Option<String> {
    slots(description).into_iter().find(|(n, _)| n == clip).and_then(|(_, s)| s)
}

/// Runs `vatbake audit ARGS --json`: (exit code, report).
fn audit(args: &[&str]) -> (Option<i32>, Value) {
    let mut all = vec!["audit"];
    all.extend_from_slice(args);
    all.push("--json");
    let o = vatbake(&all);
    let report = serde_json::from_slice(&o.stdout).unwrap_or_else(|_| panic!("no JSON report: {}", stderr(&o)));
    (o.status.code(), report)
}

/// The finding kinds of the unit whose description file is `name`.
fn kinds(report: &Value, name: &str) -> Vec<String> {
    let unit = report["results"]
        .as_array()
        .unwrap()
        .iter()
        .find(|u| u["description"].as_str().unwrap().ends_with(name))
        .unwrap_or_else(|| panic!("no unit {name} in {report:#}"));
    unit["findings"].as_array().unwrap().iter().map(|f| f["kind"].as_str().unwrap().to_string()).collect()
}

fn finding<'a>(report: &'a Value, kind: &str) -> &'a Value {
    report["results"]
        .as_array()
        .unwrap()
        .iter()
        .flat_map(|u| u["findings"].as_array().unwrap())
        .find(|f| f["kind"] == kind)
        .unwrap_or_else(|| panic!("no {kind} finding in {report:#}"))
}

/// A copy of a GLB with its JSON changed by `edit` (the binary chunk untouched).
fn edit_glb(bytes: &[u8], edit: impl FnOnce(&mut Value)) -> Vec<u8> {
    let json_len = u32::from_le_bytes(bytes[12..16].try_into().unwrap()) as usize;
    let mut json: Value = serde_json::from_slice(&bytes[20..20 + json_len]).unwrap();
    edit(&mut json);
    let mut text = serde_json::to_vec(&json).unwrap();
    text.resize(text.len().next_multiple_of(4), b' ');
    let rest = &bytes[20 + json_len..];
    let mut out = Vec::with_capacity(20 + text.len() + rest.len());
    out.extend_from_slice(&bytes[..8]);
    out.extend_from_slice(&((20 + text.len() + rest.len()) as u32).to_le_bytes());
    out.extend_from_slice(&(text.len() as u32).to_le_bytes());
    out.extend_from_slice(b"JSON");
    out.extend_from_slice(&text);
    out.extend_from_slice(rest);
    out
}

/// Writes `fixtures/<from>` to `to` with its JSON changed by `edit`.
fn edited_fixture(from: &str, to: &Path, edit: impl FnOnce(&mut Value)) -> PathBuf {
    std::fs::write(to, edit_glb(&std::fs::read(fixture(from)).unwrap(), edit)).unwrap();
    to.to_path_buf()
}

fn rename_clips(json: &mut Value, names: &[&str]) {
    for (animation, name) in json["animations"].as_array_mut().unwrap().iter_mut().zip(names) {
        animation["name"] = Value::from(*name);
    }
}

#[test]
fn fox_survey_fills_idle_and_the_bake_audits_clean() {
    let dir = tempfile::tempdir().unwrap();
    let o = bake_into(&fixture("Fox/Fox.glb"), dir.path(), &[]);
    assert!(o.status.success() && o.stderr.is_empty(), "{}", stderr(&o));
    let description = read_json(&dir.path().join("Fox.vat.json"));
    assert_eq!(
        slots(&description),
        [
            ("Survey".to_string(), Some("idle".to_string())),
            ("Walk".to_string(), Some("walk".to_string())),
            ("Run".to_string(), Some("run".to_string()))
        ]
    );
    let fox = fixture("Fox");
    let (code, report) = audit(&[dir.path().to_str().unwrap(), "--sources", fox.to_str().unwrap()]);
    assert_eq!(code, Some(0), "{report:#}");
    assert_eq!((report["units"].as_u64(), report["findings"].as_u64()), (Some(1), Some(0)));
    assert!(report["results"][0]["source"].as_str().unwrap().ends_with("Fox/Fox.glb"));

    // Text: a summary line, nothing else.
    let o = vatbake(&["audit", dir.path().to_str().unwrap(), "--sources", fox.to_str().unwrap()]);
    let text = String::from_utf8(o.stdout).unwrap();
    assert_eq!(o.status.code(), Some(0));
    assert!(text.starts_with("audit: 1 unit, no findings ("), "{text}");
    assert_eq!(text.lines().count(), 1);
}

#[test]
fn kenney_die_fills_death_and_duplicates_are_reported() {
    let dir = tempfile::tempdir().unwrap();
    let o = bake_into(&fixture("Kenney-MiniCharacters/character-female-a.glb"), dir.path(), &[]);
    assert!(o.status.success(), "{}", stderr(&o));
    let description = read_json(&dir.path().join("character-female-a.vat.json"));
    assert_eq!(slot_of(&description, "die").as_deref(), Some("death"));
    assert_eq!(slot_of(&description, "idle").as_deref(), Some("idle"));
    assert_eq!(slot_of(&description, "pick-up").as_deref(), Some("pickup"));
    assert_eq!(slot_of(&description, "static"), None, "static is in the table's ignore list");
    // Four attack clips: the first in bake order fills the slot, and the bake says so.
    assert_eq!(slot_of(&description, "attack-melee-right").as_deref(), Some("attack"));
    assert_eq!(slot_of(&description, "attack-kick-left"), None);
    let warnings = stderr(&o);
    assert!(
        warnings.contains(
            "warning: slot attack: \"attack-melee-right\" (comes first in bake order) over \
             \"attack-melee-left\", \"attack-kick-right\", \"attack-kick-left\", which bake with slot null\n"
        ),
        "{warnings}"
    );
    assert!(warnings.contains("warning: 7 clips match no slot and bake with slot null: \"drive\""), "{warnings}");
    // One line per finding, each kind's advice once: 7 findings (unassigned clips, six
    // slots with several clips), and two hints.
    assert_eq!(warnings.lines().filter(|l| l.starts_with("warning: ")).count(), 7, "{warnings}");
    assert_eq!(warnings.lines().filter(|l| l.starts_with("  hint: ")).count(), 2, "{warnings}");
    assert!(!warnings.contains("\"static\""), "an ignored clip is not reported");

    // Every source clip is baked, so the description still lists all 32.
    assert_eq!(description["clips"].as_array().unwrap().len(), 32);
    let kenney = fixture("Kenney-MiniCharacters");
    let (code, report) = audit(&[dir.path().to_str().unwrap(), "--sources", kenney.to_str().unwrap()]);
    assert_eq!(code, Some(0), "{report:#}");

    // --strict: the same warnings are an error, and nothing is written.
    let strict = dir.path().join("strict");
    let o = bake_into(&fixture("Kenney-MiniCharacters/character-female-a.glb"), &strict, &["--strict"]);
    assert_eq!(o.status.code(), Some(3));
    assert!(
        stderr(&o).contains("--strict, and the clip names need attention: 7 clips match no slot"),
        "{}",
        stderr(&o)
    );
    assert!(!strict.exists());
}

#[test]
fn cesium_man_unnamed_clips_are_baked_and_reported() {
    let model = fixture("CesiumMan/glTF-Binary/CesiumMan.glb");
    let sources = fixture("CesiumMan");
    // By default its 19 unnamed animations, one per joint over the same 2 s, are one
    // take: one clip, the unit's only one, which fills the fallback slot; the audit
    // makes the same clip of the source.
    let merged = tempfile::tempdir().unwrap();
    let o = bake_into(&model, merged.path(), &[]);
    assert!(o.status.success(), "{}", stderr(&o));
    let description = read_json(&merged.path().join("CesiumMan.vat.json"));
    assert_eq!(slots(&description), [("animation_0".to_string(), Some("idle".to_string()))]);
    assert_eq!(description["clips"][0]["merged_from"], serde_json::json!((0..19).collect::<Vec<u32>>()));
    let (code, report) = audit(&[merged.path().to_str().unwrap(), "--sources", sources.to_str().unwrap()]);
    assert_eq!((code, kinds(&report, "CesiumMan.vat.json")), (Some(0), vec![]));

    // Kept apart, they are 19 unnamed clips, reported.
    let dir = tempfile::tempdir().unwrap();
    let o = bake_into(&model, dir.path(), &["--no-merge-clips"]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(
        stderr(&o).contains("19 clips have no name (\"animation_0\", \"animation_1\""),
        "unnamed clips are reported: {}",
        stderr(&o)
    );
    let description = read_json(&dir.path().join("CesiumMan.vat.json"));
    let clips = slots(&description);
    assert_eq!(clips.len(), 19, "never silently dropped");
    assert!(clips.iter().enumerate().all(|(i, (name, slot))| *name == format!("animation_{i}") && slot.is_none()));

    let (code, report) = audit(&[dir.path().to_str().unwrap(), "--sources", sources.to_str().unwrap()]);
    assert_eq!(code, Some(1));
    assert_eq!(kinds(&report, "CesiumMan.vat.json"), ["no_slots"]);
    assert!(finding(&report, "no_slots")["advice"].as_str().unwrap().contains("name the animations in the source"));

    let strict = dir.path().join("strict");
    let o = bake_into(&model, &strict, &["--strict", "--no-merge-clips"]);
    assert_eq!(o.status.code(), Some(3), "{}", stderr(&o));
    assert!(!strict.exists());
}

#[test]
fn a_dead_clip_fills_death_and_the_seed_table_is_caught() {
    let dir = tempfile::tempdir().unwrap();
    let model = edited_fixture("Fox/Fox.glb", &dir.path().join("goblin.glb"), |json| {
        rename_clips(json, &["Idle", "Walk", "Dead"]);
    });
    let table = dir.path().join("seed.toml");
    std::fs::write(&table, SEED_TABLE).unwrap();

    // The built-in table knows "dead".
    let good = dir.path().join("good");
    let o = bake_into(&model, &good, &[]);
    assert!(o.status.success() && o.stderr.is_empty(), "{}", stderr(&o));
    assert_eq!(slot_of(&read_json(&good.join("goblin.vat.json")), "Dead").as_deref(), Some("death"));

    // The seed's table does not; the independent guard says so, naming both.
    let seed = dir.path().join("seed");
    let o = bake_into(&model, &seed, &["--aliases", table.to_str().unwrap()]);
    assert!(o.status.success());
    assert!(
        stderr(&o).contains(
            "warning: slot death is empty, but clip \"Dead\" looks like it belongs there (\"dead\" ~ \"death\")\n  \
             hint: if it does, add the clip's name to that slot's names in the alias table\n"
        ),
        "{}",
        stderr(&o)
    );
    assert_eq!(slot_of(&read_json(&seed.join("goblin.vat.json")), "Dead"), None);
    let o = bake_into(&model, &dir.path().join("strict"), &["--aliases", table.to_str().unwrap(), "--strict"]);
    assert_eq!(o.status.code(), Some(3));

    // The audit with the game's (built-in) table catches the seed-table bake: a source
    // one folder up from the description is found without --sources.
    let (code, report) = audit(&[seed.to_str().unwrap()]);
    assert_eq!(code, Some(1));
    assert_eq!(kinds(&report, "goblin.vat.json"), ["empty_slot"]);
    let f = finding(&report, "empty_slot");
    assert_eq!((f["slot"].as_str(), f["clip"].as_str()), (Some("death"), Some("Dead")));
    assert_eq!(f["message"], "slot death is empty, but the source has clip \"Dead\" for it");

    // Audited with the seed's table, the guard still finds the miss.
    let (code, report) = audit(&[seed.to_str().unwrap(), "--aliases", table.to_str().unwrap()]);
    assert_eq!(code, Some(1));
    assert_eq!(kinds(&report, "goblin.vat.json"), ["plausible_miss"]);
    // A good bake audited with the seed's table: the baked slot is not the table's (the
    // death slot is filled, so there is no miss to report).
    let (_, report) = audit(&[good.to_str().unwrap(), "--aliases", table.to_str().unwrap()]);
    assert_eq!(kinds(&report, "goblin.vat.json"), ["wrong_slot"]);
}

#[test]
fn machine_named_clips_never_bake_silently() {
    let dir = tempfile::tempdir().unwrap();
    // Wildlife: one clip with a generated name falls back to the table's fallback slot.
    let squirrel = edited_fixture("Fox/Fox.glb", &dir.path().join("squirrel.glb"), |json| {
        json["animations"].as_array_mut().unwrap().truncate(1);
        rename_clips(json, &["Armature|mixamo.com|Layer0"]);
    });
    let out = dir.path().join("out");
    let o = bake_into(&squirrel, &out, &[]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(
        stderr(&o).contains(
            "clip \"Armature|mixamo.com|Layer0\" matches no slot; as the only clip it fills the fallback slot idle"
        ),
        "{}",
        stderr(&o)
    );
    assert_eq!(
        slot_of(&read_json(&out.join("squirrel.vat.json")), "Armature|mixamo.com|Layer0").as_deref(),
        Some("idle")
    );

    // Without a fallback in the table, it is an error.
    let table = dir.path().join("nofallback.toml");
    std::fs::write(&table, "version = 1\n[slots]\nidle = []\nwalk = []\n").unwrap();
    let o = bake_into(&squirrel, &dir.path().join("nf"), &["--aliases", table.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(3));
    assert!(stderr(&o).contains("none of its clips (\"Armature|mixamo.com|Layer0\") fills a slot of the alias table"));

    // Several generated names with the built-in table: every clip bakes, with slot null,
    // and one finding says so (a tank, a chest: the game's own table is what it must fill).
    let generated = edited_fixture("Fox/Fox.glb", &dir.path().join("generated.glb"), |json| {
        rename_clips(json, &["clip_7f3a9c", "clip_0b12ee", "clip_93aa01"]);
    });
    let baked = dir.path().join("baked");
    let o = bake_into(&generated, &baked, &[]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert_eq!(
        stderr(&o),
        "warning: none of the 3 clips (\"clip_7f3a9c\", \"clip_0b12ee\", \"clip_93aa01\") fills a slot of the built-in \
         alias table; all bake with slot null\n  hint: if a game will ask for these clips by slot, give it an alias table \
         with their names (--aliases FILE, docs/AUDIT.md); --strict refuses such a unit\n"
    );
    let description = read_json(&baked.join("generated.vat.json"));
    assert_eq!(description["clips"].as_array().unwrap().len(), 3);
    assert!(description["clips"].as_array().unwrap().iter().all(|c| c["slot"].is_null()));
    let (code, report) = audit(&[baked.to_str().unwrap()]);
    assert_eq!(code, Some(1));
    assert_eq!(kinds(&report, "generated.vat.json"), ["no_slots"]);
    // --strict refuses it, saying what to do; nothing is written.
    let refused = dir.path().join("refused");
    let o = bake_into(&generated, &refused, &["--strict"]);
    assert_eq!(o.status.code(), Some(3));
    assert!(stderr(&o).contains("--strict, and the clip names need attention: none of the 3 clips"), "{}", stderr(&o));
    assert!(!refused.exists(), "nothing written");
    let o = bake_into(&generated, &refused, &["--clips", "clip_7f3a9c,clip_0b12ee"]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(stderr(&o).contains("2 clips match no slot"));
    let (code, report) = audit(&[refused.to_str().unwrap()]);
    assert_eq!(code, Some(1));
    assert_eq!(kinds(&report, "generated.vat.json"), ["no_slots"]);
}

#[test]
fn a_clip_renamed_after_the_bake() {
    let dir = tempfile::tempdir().unwrap();
    let source = dir.path().join("fox.glb");
    std::fs::copy(fixture("Fox/Fox.glb"), &source).unwrap();
    let baked = dir.path().join("baked");
    assert!(bake_into(&source, &baked, &[]).status.success());
    edited_fixture("Fox/Fox.glb", &source, |json| rename_clips(json, &["Survey", "Walk", "Trot"]));

    let (code, report) = audit(&[baked.to_str().unwrap()]);
    assert_eq!(code, Some(1));
    assert_eq!(kinds(&report, "fox.vat.json"), ["stale_source", "missing_clip", "unbaked_clip"]);
    assert_eq!(
        finding(&report, "missing_clip")["message"],
        "clip \"Run\" is baked (the game plays it as run), but the source no longer has it (its place, animation 2, \
         is now \"Trot\": renamed?)"
    );
    let text = String::from_utf8(vatbake(&["audit", baked.to_str().unwrap()]).stdout).unwrap();
    let lines: Vec<&str> = text.lines().collect();
    assert!(lines[0].contains("fox.vat.json (source "), "{text}");
    assert!(lines[1].starts_with("  stale source: the source changed since the bake (sha256 "), "{text}");
    assert!(lines[1].ends_with("; re-bake the unit"), "{text}");
    assert!(lines[2].starts_with("  missing clip: clip \"Run\" is baked"), "{text}");
    assert!(lines[4].starts_with("audit: 1 unit, 1 with findings, 3 findings ("), "{text}");
}

#[test]
fn a_source_changed_after_the_bake() {
    let dir = tempfile::tempdir().unwrap();
    let source = dir.path().join("fox.glb");
    std::fs::copy(fixture("Fox/Fox.glb"), &source).unwrap();
    let baked = dir.path().join("baked");
    assert!(bake_into(&source, &baked, &[]).status.success());

    // Only the bytes changed: stale, nothing else.
    edited_fixture("Fox/Fox.glb", &source, |json| json["asset"]["generator"] = "re-exported".into());
    let (code, report) = audit(&[baked.to_str().unwrap()]);
    assert_eq!(code, Some(1));
    assert_eq!(kinds(&report, "fox.vat.json"), ["stale_source"]);

    // The Survey clip re-timed to 4 s (its key-time accessors' max): the seed's goblin.
    edited_fixture("Fox/Fox.glb", &source, |json| {
        let inputs: Vec<usize> = json["animations"][0]["samplers"]
            .as_array()
            .unwrap()
            .iter()
            .map(|s| s["input"].as_u64().unwrap() as usize)
            .collect();
        for input in inputs {
            json["accessors"][input]["max"] = serde_json::json!([4.0]);
        }
    });
    let (_, report) = audit(&[baked.to_str().unwrap()]);
    assert_eq!(kinds(&report, "fox.vat.json"), ["stale_source", "duration_mismatch"]);
    assert_eq!(
        finding(&report, "duration_mismatch")["message"],
        "clip \"Survey\" lasts 4.000 s in the source but 3.417 s in the bake, so it would play 1.17× too fast"
    );

    // Gone altogether.
    std::fs::remove_file(&source).unwrap();
    let (_, report) = audit(&[baked.to_str().unwrap()]);
    assert_eq!(kinds(&report, "fox.vat.json"), ["source_not_found"]);
}

#[test]
fn texture_mesh_and_description_against_each_other() {
    let dir = tempfile::tempdir().unwrap();
    let fox = fixture("Fox");
    let sources = ["--sources", fox.to_str().unwrap()];
    let baked = dir.path().join("baked");
    assert!(bake_into(&fixture("Fox/Fox.glb"), &baked, &["--max-width", "1000"]).status.success());
    let other = dir.path().join("other");
    assert!(bake_into(&fixture("Fox/Fox.glb"), &other, &[]).status.success());
    let dir_arg = baked.to_str().unwrap();

    // A texture from another bake: the header disagrees.
    std::fs::copy(other.join("Fox.vat.ktx2"), baked.join("Fox.vat.ktx2")).unwrap();
    let (_, report) = audit(&[&[dir_arg][..], &sources[..]].concat());
    assert_eq!(kinds(&report, "Fox.vat.json"), ["texture_mismatch"]);
    let message = finding(&report, "texture_mismatch")["message"].as_str().unwrap().to_string();
    assert!(
        message.starts_with(
            "the texture Fox.vat.ktx2 has width 1728 (the description says 864), height 162 (the description says 324)"
        ),
        "{message}"
    );

    // Missing texture and mesh.
    std::fs::remove_file(baked.join("Fox.vat.ktx2")).unwrap();
    std::fs::remove_file(baked.join("Fox.rest.glb")).unwrap();
    let (_, report) = audit(&[&[dir_arg][..], &sources[..]].concat());
    assert_eq!(kinds(&report, "Fox.vat.json"), ["texture_missing", "mesh_missing"]);

    // An earlier bake's --target EXR beside the description, which it does not record.
    std::fs::write(baked.join("Fox-godot.exr"), b"an earlier bake's").unwrap();
    let (_, report) = audit(&[&[dir_arg][..], &sources[..]].concat());
    assert_eq!(kinds(&report, "Fox.vat.json"), ["texture_missing", "mesh_missing", "unrecorded_file"]);
    assert_eq!(
        finding(&report, "unrecorded_file")["message"],
        "Fox-godot.exr is a file a bake of this name writes, but the description does not record it: an earlier \
         bake's, out of step with this one"
    );
    std::fs::remove_file(baked.join("Fox-godot.exr")).unwrap();

    // A description edited by hand: the seed's goblin, rate taken as the bake's fps.
    let path = other.join("Fox.vat.json");
    let mut description = read_json(&path);
    description["clips"][0]["rate"] = 30.0.into();
    description["rows"] = 150.into();
    std::fs::write(&path, serde_json::to_vec_pretty(&description).unwrap()).unwrap();
    let (_, report) = audit(&[other.to_str().unwrap(), "--sources", fox.to_str().unwrap()]);
    assert_eq!(kinds(&report, "Fox.vat.json"), ["inconsistent_clip", "inconsistent_layout"]);

    // Not a description at all.
    std::fs::write(&path, b"{\"format\": \"something else\"}").unwrap();
    let (code, report) = audit(&[other.to_str().unwrap()]);
    assert_eq!(code, Some(1));
    assert_eq!(kinds(&report, "Fox.vat.json"), ["unreadable_description"]);
}

#[test]
fn a_single_row_clip_whose_source_moves_is_frozen() {
    let dir = tempfile::tempdir().unwrap();
    assert!(bake_into(&fixture("Fox/Fox.glb"), dir.path(), &["--max-frames", "1"]).status.success());
    let fox = fixture("Fox");
    let (code, report) = audit(&[dir.path().to_str().unwrap(), "--sources", fox.to_str().unwrap()]);
    assert_eq!(code, Some(1));
    assert_eq!(kinds(&report, "Fox.vat.json"), ["frozen_clip", "frozen_clip", "frozen_clip"]);
    assert_eq!(
        finding(&report, "frozen_clip")["message"],
        "clip \"Survey\" is one frozen row, but the source clip moves for 3.417 s"
    );
}

#[test]
fn sources_are_found_by_name_and_bytes_and_png_bakes_audit_too() {
    let dir = tempfile::tempdir().unwrap();
    let baked = dir.path().join("baked");
    let o = bake_into(&fixture("Fox/Fox.glb"), &baked, &["--texture-format", "png", "-q"]);
    assert!(o.status.success(), "{}", stderr(&o));
    // Two files called Fox.glb under --sources: the one with the baked bytes is used.
    let models = dir.path().join("models");
    for sub in ["a", "b"] {
        std::fs::create_dir_all(models.join(sub)).unwrap();
    }
    edited_fixture("Fox/Fox.glb", &models.join("a/Fox.glb"), |json| json["asset"]["generator"] = "other".into());
    std::fs::copy(fixture("Fox/Fox.glb"), models.join("b/Fox.glb")).unwrap();
    let (code, report) = audit(&[baked.to_str().unwrap(), "--sources", models.to_str().unwrap()]);
    assert_eq!(code, Some(0), "{report:#}");
    assert!(report["results"][0]["source"].as_str().unwrap().ends_with("b/Fox.glb"));
    // Neither has them: the first is checked, and the ambiguity is a finding.
    edited_fixture("Fox/Fox.glb", &models.join("b/Fox.glb"), |json| json["asset"]["generator"] = "third".into());
    let (_, report) = audit(&[baked.to_str().unwrap(), "--sources", models.to_str().unwrap()]);
    assert_eq!(kinds(&report, "Fox.vat.json"), ["source_not_found", "stale_source"]);
    // A PNG that is not 16-bit RGBA of the described size.
    std::fs::copy(fixture("Kenney-PlatformerCharacter/character.glb"), baked.join("Fox.vat.png")).unwrap();
    let (_, report) = audit(&[baked.to_str().unwrap(), "--sources", fixture("Fox").to_str().unwrap()]);
    assert_eq!(kinds(&report, "Fox.vat.json"), ["texture_unreadable"]);
}

#[test]
fn audit_cannot_run_is_exit_2() {
    let dir = tempfile::tempdir().unwrap();
    let missing = dir.path().join("nothing-here");
    let o = vatbake(&["audit", missing.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(2));
    let o = vatbake(&["audit", dir.path().to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains("no description files (*.vat.json) under"), "{}", stderr(&o));

    assert!(bake_into(&fixture("Fox/Fox.glb"), dir.path(), &[]).status.success());
    let o = vatbake(&["audit", dir.path().to_str().unwrap(), "--sources", missing.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(2));
    let table = dir.path().join("broken.toml");
    std::fs::write(&table, "version = 1\n[slots]\nidle = \"idle\"\n").unwrap();
    let o = vatbake(&["audit", dir.path().to_str().unwrap(), "--aliases", table.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains("slot \"idle\": give its accepted clip names as a list of strings"), "{}", stderr(&o));
    let o = bake_into(&fixture("Fox/Fox.glb"), &dir.path().join("x"), &["--aliases", table.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(2));
}

#[test]
fn the_alias_table_is_recorded_so_a_changed_table_is_a_changed_setting() {
    let dir = tempfile::tempdir().unwrap();
    let table = dir.path().join("seed.toml");
    std::fs::write(&table, SEED_TABLE).unwrap();
    assert!(bake_into(&fixture("Fox/Fox.glb"), &dir.path().join("a"), &[]).status.success());
    assert!(bake_into(&fixture("Fox/Fox.glb"), &dir.path().join("b"), &["--aliases", table.to_str().unwrap()])
        .status
        .success());
    let builtin = read_json(&dir.path().join("a/Fox.vat.json"))["settings"]["aliases_sha256"].clone();
    let seed = read_json(&dir.path().join("b/Fox.vat.json"))["settings"]["aliases_sha256"].clone();
    assert_eq!(builtin.as_str().unwrap().len(), 64);
    assert_ne!(builtin, seed);
}

/// A roster's worth of shipped bakes, written from three fixtures: every tenth unit
/// stale, renamed, missing its texture or hand-edited; the rest clean.
struct Generated {
    _dir: tempfile::TempDir,
    baked: PathBuf,
    sources: PathBuf,
}

fn link_or_copy(from: &Path, to: &Path) {
    if std::fs::hard_link(from, to).is_err() {
        std::fs::copy(from, to).unwrap();
    }
}

fn generate(units: usize) -> Generated {
    let dir = tempfile::tempdir().unwrap();
    let (baked, sources, base) = (dir.path().join("baked"), dir.path().join("sources"), dir.path().join("base"));
    for d in [&baked, &sources] {
        std::fs::create_dir_all(d).unwrap();
    }
    let fixtures =
        ["Fox/Fox.glb", "Kenney-MiniCharacters/character-female-a.glb", "Kenney-PlatformerCharacter/character.glb"];
    let bases: Vec<(&str, Value, String)> = fixtures
        .iter()
        .map(|f| {
            let model = fixture(f);
            let o = bake_into(&model, &base, &["-q"]);
            assert!(o.status.success(), "{}", stderr(&o));
            let stem = model.file_stem().unwrap().to_str().unwrap().to_string();
            (*f, read_json(&base.join(format!("{stem}.vat.json"))), stem)
        })
        .collect();
    for i in 0..units {
        let (model, description, stem) = &bases[i % bases.len()];
        let name = format!("unit_{i:03}");
        let mut description = description.clone();
        description["source"]["file"] = format!("{name}.glb").into();
        description["texture"]["file"] = format!("{name}.vat.ktx2").into();
        description["mesh"]["file"] = format!("{name}.rest.glb").into();
        let source = sources.join(format!("{name}.glb"));
        match i % 10 {
            0 => {
                edited_fixture(model, &source, |json| {
                    json["asset"]["generator"] = "re-exported".into();
                });
            }
            1 => {
                edited_fixture(model, &source, |json| {
                    json["animations"][1]["name"] = "Renamed".into();
                });
            }
            _ => link_or_copy(&fixture(model), &source),
        }
        if i % 10 == 3 {
            let d = description["clips"][0]["duration"].as_f64().unwrap();
            description["clips"][0]["duration"] = (d * 2.0).into();
        }
        if i % 10 != 2 {
            link_or_copy(&base.join(format!("{stem}.vat.ktx2")), &baked.join(format!("{name}.vat.ktx2")));
        }
        link_or_copy(&base.join(format!("{stem}.rest.glb")), &baked.join(format!("{name}.rest.glb")));
        std::fs::write(baked.join(format!("{name}.vat.json")), serde_json::to_vec_pretty(&description).unwrap())
            .unwrap();
    }
    Generated { _dir: dir, baked, sources }
}

#[test]
fn a_generated_roster_audits_to_exactly_its_planted_findings() {
    let set = generate(30);
    let (code, report) = audit(&[set.baked.to_str().unwrap(), "--sources", set.sources.to_str().unwrap()]);
    assert_eq!(code, Some(1));
    assert_eq!(report["units"], 30);
    assert_eq!(report["units_with_findings"], 12, "{report:#}");
    assert_eq!(kinds(&report, "unit_000.vat.json"), ["stale_source"]);
    assert_eq!(kinds(&report, "unit_010.vat.json"), ["stale_source"]);
    assert_eq!(kinds(&report, "unit_001.vat.json"), ["stale_source", "missing_clip", "unbaked_clip"]);
    assert_eq!(kinds(&report, "unit_002.vat.json"), ["texture_missing"]);
    assert_eq!(kinds(&report, "unit_003.vat.json"), ["duration_mismatch", "inconsistent_clip"]);
    for clean in ["unit_004.vat.json", "unit_015.vat.json", "unit_029.vat.json"] {
        assert_eq!(kinds(&report, clean), Vec::<String>::new());
    }
}

/// The benchmark behind docs/AUDIT.md: 300 units, median of 7 runs of the binary.
/// `cargo test --release -p vatbake --test audit -- --ignored --nocapture`
#[test]
#[ignore = "benchmark: run in a release build"]
fn audit_of_300_units_takes_well_under_a_second() {
    let set = generate(300);
    let args = ["audit", set.baked.to_str().unwrap(), "--sources", set.sources.to_str().unwrap(), "--format", "json"];
    let mut times: Vec<f64> = (0..7)
        .map(|_| {
            let started = Instant::now();
            let o = vatbake(&args);
            let elapsed = started.elapsed().as_secs_f64();
            assert_eq!(o.status.code(), Some(1));
            elapsed
        })
        .collect();
    times.sort_by(f64::total_cmp);
    let median = times[times.len() / 2];
    println!(
        "audit of 300 units: median {:.0} ms (min {:.0}, max {:.0}) over {} runs",
        median * 1e3,
        times[0] * 1e3,
        times[times.len() - 1] * 1e3,
        times.len()
    );
    assert!(median < 1.0, "median {median:.3} s");
}
