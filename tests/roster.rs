//! `vatbake roster`: parallel, incremental, failure-isolated rebakes of a unit roster.

mod common;

use std::path::Path;

use common::{fixture, stderr, vatbake};
use serde_json::Value;

/// Writes a roster next to copies of a few fixtures; returns its path.
fn roster(dir: &Path, extra_units: &str, fox_points: &str) -> std::path::PathBuf {
    for (from, to) in [
        ("Fox/Fox.glb", "fox.glb"),
        ("SimpleSkin/SimpleSkin.gltf", "simple.gltf"),
        ("AnimatedMorphCube/AnimatedMorphCube.gltf", "cube.gltf"),
        ("AnimatedMorphCube/AnimatedMorphCube.bin", "AnimatedMorphCube.bin"),
    ] {
        std::fs::copy(fixture(from), dir.join(to)).unwrap();
    }
    let text = format!(
        "output = \"out\"\n[defaults]\npoints = \"all\"\nfps = 20\n\n\
         [[unit]]\nname = \"fox\"\nsource = \"fox.glb\"\nmax_frames = {fox_points}\n\n\
         [[unit]]\nname = \"simple\"\nsource = \"simple.gltf\"\n\n\
         [[unit]]\nsource = \"cu*.gltf\"\nname = \"morph_{{stem}}\"\n{extra_units}"
    );
    let file = dir.join("roster.toml");
    std::fs::write(&file, text).unwrap();
    file
}

fn run(file: &Path, extra: &[&str]) -> (Option<i32>, Value, String) {
    let mut args = vec!["roster", file.to_str().unwrap(), "--json"];
    args.extend_from_slice(extra);
    let o = vatbake(&args);
    let report = serde_json::from_slice(&o.stdout).unwrap_or(Value::Null);
    (o.status.code(), report, stderr(&o))
}

fn statuses(report: &Value) -> Vec<(String, String)> {
    report["units"]
        .as_array()
        .unwrap()
        .iter()
        .map(|u| (u["name"].as_str().unwrap().to_string(), u["status"].as_str().unwrap().to_string()))
        .collect()
}

fn files(dir: &Path) -> Vec<(String, Vec<u8>)> {
    let mut out = Vec::new();
    for unit in std::fs::read_dir(dir).unwrap() {
        let unit = unit.unwrap().path();
        for f in std::fs::read_dir(&unit).unwrap() {
            let f = f.unwrap().path();
            out.push((f.strip_prefix(dir).unwrap().display().to_string(), std::fs::read(&f).unwrap()));
        }
    }
    out.sort();
    out
}

#[test]
fn bakes_then_skips_unchanged_units_then_rebakes_what_changed() {
    let dir = tempfile::tempdir().unwrap();
    let file = roster(dir.path(), "", "10");
    let (code, report, err) = run(&file, &[]);
    assert_eq!(code, Some(0), "{err}");
    let baked = vec![
        ("fox".to_string(), "baked".to_string()),
        ("morph_cube".into(), "baked".into()),
        ("simple".into(), "baked".into()),
    ];
    assert_eq!(statuses(&report), baked);
    assert_eq!(report["units"][0]["rows"], 30, "fox: 3 clips capped at 10 rows");
    let first = files(&dir.path().join("out"));
    assert_eq!(first.len(), 9, "three files per unit");

    let (code, report, _) = run(&file, &[]);
    assert_eq!(code, Some(0));
    assert!(statuses(&report).iter().all(|(_, s)| s == "skipped"), "{report}");
    assert_eq!(report["skipped"], 3);
    assert_eq!(files(&dir.path().join("out")), first, "a no-change run writes nothing");

    // One unit's settings change: only it is rebaked.
    roster(dir.path(), "", "12");
    let (_, report, _) = run(&file, &[]);
    let s = statuses(&report);
    assert_eq!(s[0], ("fox".into(), "baked".into()));
    assert_eq!(s[1].1, "skipped");
    assert_eq!(s[2].1, "skipped");

    let (_, report, _) = run(&file, &["--force"]);
    assert_eq!(report["baked"], 3);

    // A changed texture format is a changed setting, though the description does not list it.
    roster(dir.path(), "", "12\ntexture_format = \"png\"");
    let (code, report, err) = run(&file, &[]);
    assert_eq!(code, Some(0), "{err}");
    let s = statuses(&report);
    assert_eq!((s[0].1.as_str(), s[1].1.as_str(), s[2].1.as_str()), ("baked", "skipped", "skipped"));
    assert!(dir.path().join("out/fox/fox.vat.png").is_file());
    let (_, report, _) = run(&file, &[]);
    assert_eq!(report["skipped"], 3, "{report}");

    // So is a changed merging of takes split per node (`no_merge_clips = true` is --no-merge-clips).
    roster(dir.path(), "", "12\ntexture_format = \"png\"\nno_merge_clips = true");
    let (code, report, err) = run(&file, &[]);
    assert_eq!(code, Some(0), "{err}");
    let s = statuses(&report);
    assert_eq!((s[0].1.as_str(), s[1].1.as_str(), s[2].1.as_str()), ("baked", "skipped", "skipped"));
    let description: Value =
        serde_json::from_slice(&std::fs::read(dir.path().join("out/fox/fox.vat.json")).unwrap()).unwrap();
    assert_eq!(description["settings"]["merge_clips"], "never");
}

#[test]
fn threads_are_the_rosters_to_decide() {
    let dir = tempfile::tempdir().unwrap();
    let file = roster(dir.path(), "threads = 4\n", "10");
    let (code, _, err) = run(&file, &[]);
    assert_eq!(code, Some(2), "{err}");
    assert!(err.contains("\"threads\" is decided by the roster, not per unit"), "{err}");
}

#[test]
fn same_bytes_at_any_job_count() {
    let one = tempfile::tempdir().unwrap();
    let two = tempfile::tempdir().unwrap();
    let (code, _, err) = run(&roster(one.path(), "", "10"), &["--jobs", "1"]);
    assert_eq!(code, Some(0), "{err}");
    let (code, _, _) = run(&roster(two.path(), "", "10"), &["--jobs", "2"]);
    assert_eq!(code, Some(0));
    assert!(files(&one.path().join("out")) == files(&two.path().join("out")));
}

#[test]
fn a_broken_unit_fails_alone() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("broken.glb"), b"glTF\x02\x00\x00\x00\xff\xff\x00\x00").unwrap();
    let file = roster(dir.path(), "\n[[unit]]\nname = \"broken\"\nsource = \"broken.glb\"\n", "10");
    let (code, report, err) = run(&file, &[]);
    assert_eq!(code, Some(1));
    assert_eq!(report["failed"], 1);
    assert_eq!(report["baked"], 3);
    let broken = report["units"].as_array().unwrap().iter().find(|u| u["name"] == "broken").unwrap();
    assert!(broken["error"].as_str().unwrap().contains("GLB file is truncated"), "{broken}");
    assert!(err.contains("error: unit \"broken\" failed:"), "{err}");
    assert!(!dir.path().join("out/broken/broken.vat.json").exists());
    assert!(dir.path().join("out/fox/fox.vat.json").exists());
}

#[test]
fn shards_split_the_roster_without_overlap() {
    let dir = tempfile::tempdir().unwrap();
    let file = roster(dir.path(), "", "10");
    let (_, a, _) = run(&file, &["--shard", "1/2"]);
    let (_, b, _) = run(&file, &["--shard", "2/2"]);
    let names = |r: &Value| statuses(r).into_iter().map(|(n, _)| n).collect::<Vec<_>>();
    assert_eq!(names(&a), ["fox", "simple"]);
    assert_eq!(names(&b), ["morph_cube"]);
    let o = vatbake(&["roster", file.to_str().unwrap(), "--shard", "3/2"]);
    assert_eq!(o.status.code(), Some(2));
}

#[test]
fn outputs_of_removed_units_are_listed_not_deleted() {
    let dir = tempfile::tempdir().unwrap();
    let file = roster(dir.path(), "", "10");
    assert_eq!(run(&file, &[]).0, Some(0));
    let text = std::fs::read_to_string(&file)
        .unwrap()
        .replace("name = \"simple\"\nsource = \"simple.gltf\"", "name = \"simple2\"\nsource = \"simple.gltf\"");
    std::fs::write(&file, text).unwrap();
    let (code, report, err) = run(&file, &[]);
    assert_eq!(code, Some(0));
    assert_eq!(report["stale_outputs"], serde_json::json!(["simple"]));
    assert!(err.contains("holds bakes of units no longer in the roster (not deleted): simple"), "{err}");
    assert!(dir.path().join("out/simple/simple.vat.json").exists());
}

#[test]
fn roster_mistakes_are_usage_errors() {
    let dir = tempfile::tempdir().unwrap();
    let file = roster(dir.path(), "\n[[unit]]\nname = \"odd\"\nsource = \"fox.glb\"\ncolour = \"red\"\n", "10");
    let (code, report, err) = run(&file, &[]);
    // An unknown setting fails that unit alone, naming the key.
    assert_eq!(code, Some(1));
    let odd = report["units"].as_array().unwrap().iter().find(|u| u["name"] == "odd").unwrap();
    assert!(odd["error"].as_str().unwrap().contains("--colour"), "{odd} {err}");
    std::fs::write(&file, "output = \"out\"\n").unwrap();
    let o = vatbake(&["roster", file.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains("no units: add [[unit]] entries"), "{}", stderr(&o));
}

#[test]
fn the_example_roster_in_fixtures_bakes() {
    let out = tempfile::tempdir().unwrap();
    let example = fixture("roster/roster.toml");
    let o = vatbake(&["roster", example.to_str().unwrap(), "-o", out.path().to_str().unwrap(), "--json", "-q"]);
    let report: Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(o.status.code(), Some(0), "{report}");
    assert_eq!(report["baked"], 6);
    assert!(out.path().join("mini_character-female-a/mini_character-female-a.vat.ktx2").exists());
}

#[test]
fn check_audits_each_unit_against_its_own_source() {
    let dir = tempfile::tempdir().unwrap();
    let file = roster(dir.path(), "", "10");
    let o = vatbake(&["roster", file.to_str().unwrap(), "--check"]);
    assert_eq!(o.status.code(), Some(1), "nothing baked yet is a finding");
    assert!(String::from_utf8_lossy(&o.stdout).contains("unit \"fox\" has no bake"));
    assert_eq!(run(&file, &[]).0, Some(0));
    let o = vatbake(&["roster", file.to_str().unwrap(), "--check"]);
    assert_eq!(o.status.code(), Some(0), "{}", String::from_utf8_lossy(&o.stdout));
    assert!(String::from_utf8_lossy(&o.stdout).contains("audit: 3 units, no findings"));
    // The source changes after the bake: the audit says the bake is stale.
    let mut bytes = std::fs::read(dir.path().join("fox.glb")).unwrap();
    bytes.extend_from_slice(&[0; 4]);
    std::fs::write(dir.path().join("fox.glb"), bytes).unwrap();
    let o = vatbake(&["roster", file.to_str().unwrap(), "--check", "--json"]);
    assert_eq!(o.status.code(), Some(1));
    let report: Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(report["units_with_findings"], 1);
    let fox = report["results"]
        .as_array()
        .unwrap()
        .iter()
        .find(|u| u["description"].as_str().unwrap().ends_with("fox.vat.json"))
        .unwrap();
    assert_eq!(fox["findings"][0]["kind"], "stale_source", "{fox}");
}

#[test]
fn the_same_finding_of_several_units_is_said_once() {
    // Three copies of SimpleSkin: each one's only, unnamed clip fills the fallback slot.
    let dir = tempfile::tempdir().unwrap();
    for name in ["a", "b", "c"] {
        std::fs::copy(fixture("SimpleSkin/SimpleSkin.gltf"), dir.path().join(format!("{name}.gltf"))).unwrap();
    }
    let file = dir.path().join("roster.toml");
    std::fs::write(&file, "output = \"out\"\n[[unit]]\nsource = \"*.gltf\"\nname = \"{stem}\"\n").unwrap();
    let o = vatbake(&["roster", file.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let messages: String = stderr(&o).lines().filter(|l| !l.starts_with('[')).map(|l| format!("{l}\n")).collect();
    assert_eq!(
        messages,
        "warning: 3 units (a, b, c): clip \"animation_0\" has no name; as the only clip it fills the fallback slot idle\n  \
         hint: add its name to that slot in the table (or name the animation) to make it explicit\n"
    );
    // --json keeps every unit's findings, each with its code.
    let (code, report, _) = run(&file, &["--force"]);
    assert_eq!(code, Some(0));
    for unit in report["units"].as_array().unwrap() {
        assert_eq!(unit["warnings"][0]["code"], "fallback-slot", "{unit}");
    }
}
