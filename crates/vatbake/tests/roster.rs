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
    assert!(odd["error"].as_str().unwrap().contains("unknown field `colour`"), "{odd} {err}");
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
    // Its own check passes (every slot its sources can fill is filled).
    let o = vatbake(&["roster", example.to_str().unwrap(), "-o", out.path().to_str().unwrap(), "--check"]);
    let stdout = String::from_utf8_lossy(&o.stdout);
    assert_eq!(o.status.code(), Some(0), "{stdout}");
    assert!(stdout.starts_with("audit: 6 units, no findings"), "{stdout}");
    // Without -o it writes out/roster/ at the repository's root, never into fixtures/
    // (which every_fixture_bakes_with_no_flags… walks), and git ignores it.
    let roster: toml::Value = toml::from_str(&std::fs::read_to_string(&example).unwrap()).unwrap();
    assert_eq!(roster["output"].as_str(), Some("../../out/roster"));
    let gitignore = std::fs::read_to_string(common::repo().join(".gitignore")).unwrap();
    assert!(gitignore.lines().any(|l| l == "/out/"), "{gitignore}");
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

/// One unit's status in a report, by name.
fn status_of<'a>(report: &'a Value, name: &str) -> &'a str {
    let unit = report["units"].as_array().unwrap().iter().find(|u| u["name"] == name);
    unit.unwrap_or_else(|| panic!("no unit {name} in {report}"))["status"].as_str().unwrap()
}

/// Runs the roster and checks that exactly `rebaked` were baked and every other unit skipped.
fn expect_rebaked(file: &Path, step: &str, rebaked: &[&str]) {
    let (code, report, err) = run(file, &[]);
    assert_eq!(code, Some(0), "{step}: {err}");
    for (name, status) in statuses(&report) {
        let expected = if rebaked.contains(&name.as_str()) { "baked" } else { "skipped" };
        assert_eq!(status, expected, "{step}: unit {name} should be {expected}: {report}");
    }
    assert_eq!(report["baked"], rebaked.len(), "{step}: {report}");
    assert_eq!(report["skipped"], 3 - rebaked.len(), "{step}: {report}");
}

/// The skip rule of docs/ROSTER.md, one input at a time: the source's bytes (SHA-256),
/// the texture still there at its recorded size, the alias table's bytes and the tool
/// version each make a unit rebake, and only that unit.
#[test]
fn every_input_of_the_skip_rule_rebakes_its_unit() {
    let dir = tempfile::tempdir().unwrap();
    let aliases = dir.path().join("aliases.toml");
    std::fs::copy(common::repo().join("assets/aliases.toml"), &aliases).unwrap();
    // The fox gets its slots from a table on disk (a roster path, relative to the roster file).
    let file = roster(dir.path(), "", "10\naliases = \"aliases.toml\"");
    let out = dir.path().join("out");
    expect_rebaked(&file, "first run", &["fox", "morph_cube", "simple"]);
    expect_rebaked(&file, "nothing changed", &[]);

    // (a) The source's bytes change, not its meaning: one more newline after the JSON.
    let mut source = std::fs::read(dir.path().join("simple.gltf")).unwrap();
    let old_sha = source_sha(&out.join("simple/simple.vat.json"));
    source.push(b'\n');
    std::fs::write(dir.path().join("simple.gltf"), &source).unwrap();
    expect_rebaked(&file, "source bytes changed", &["simple"]);
    assert_ne!(source_sha(&out.join("simple/simple.vat.json")), old_sha, "the new bake records the new bytes");
    expect_rebaked(&file, "after the source change", &[]);
    // The same in a GLB: one letter of the copyright in its JSON chunk, the length kept.
    let glb = std::fs::read(dir.path().join("fox.glb")).unwrap();
    let at = glb.windows(8).position(|w| w == b"Model by").expect("the Fox's copyright");
    let mut edited = glb.clone();
    edited[at] = b'm';
    std::fs::write(dir.path().join("fox.glb"), &edited).unwrap();
    expect_rebaked(&file, "GLB bytes changed", &["fox"]);

    // (b) A unit's texture is deleted.
    std::fs::remove_file(out.join("fox/fox.vat.ktx2")).unwrap();
    expect_rebaked(&file, "texture deleted", &["fox"]);
    assert!(out.join("fox/fox.vat.ktx2").is_file());

    // (c) A unit's texture is truncated (still there, shorter than recorded).
    let texture = out.join("morph_cube/morph_cube.vat.ktx2");
    let whole = std::fs::read(&texture).unwrap();
    std::fs::write(&texture, &whole[..whole.len() / 2]).unwrap();
    expect_rebaked(&file, "texture truncated", &["morph_cube"]);
    assert_eq!(std::fs::read(&texture).unwrap(), whole, "the rebake writes the same texture again");

    // (d) The alias table named by the roster changes (same path, other bytes).
    let table = std::fs::read_to_string(&aliases).unwrap();
    std::fs::write(&aliases, format!("{table}\n# the game's copy, edited\n")).unwrap();
    expect_rebaked(&file, "alias table changed", &["fox"]);
    expect_rebaked(&file, "after the alias table change", &[]);

    // (e) The description was written by another vatbake version.
    let description_file = out.join("simple/simple.vat.json");
    let mut description: Value = serde_json::from_slice(&std::fs::read(&description_file).unwrap()).unwrap();
    let generator = description["generator"].as_str().unwrap().to_string();
    assert!(generator.starts_with("vatbake "), "{generator}");
    description["generator"] = "vatbake 0.0.1-older".into();
    std::fs::write(&description_file, serde_json::to_vec_pretty(&description).unwrap()).unwrap();
    expect_rebaked(&file, "generator version differs", &["simple"]);
    let description: Value = serde_json::from_slice(&std::fs::read(&description_file).unwrap()).unwrap();
    assert_eq!(description["generator"], generator.as_str());
    expect_rebaked(&file, "at the end", &[]);
}

/// A unit's `--format` files are part of its record: one deleted, or edited to other
/// bytes of the same size, rebakes that unit (and writes the file again); untouched, it is skipped.
#[test]
fn a_units_format_files_missing_or_edited_rebake_it() {
    let dir = tempfile::tempdir().unwrap();
    let file = roster(dir.path(), "", "10\nformat = \"vat3\"");
    let fox = dir.path().join("out/fox");
    expect_rebaked(&file, "first run", &["fox", "morph_cube", "simple"]);
    expect_rebaked(&file, "nothing changed", &[]);
    let pos = fox.join("fox_pos.exr");
    let whole = std::fs::read(&pos).unwrap();

    std::fs::remove_file(&pos).unwrap();
    expect_rebaked(&file, "fox_pos.exr deleted", &["fox"]);
    assert_eq!(std::fs::read(&pos).unwrap(), whole, "the rebake writes the same file again");
    expect_rebaked(&file, "after the rebake", &[]);

    // Same size, one byte changed: only the SHA-256 tells.
    let data = fox.join("fox_data.json");
    let mut edited = std::fs::read(&data).unwrap();
    let last = edited.len() - 2;
    edited[last] = if edited[last] == b' ' { b'\t' } else { b' ' };
    std::fs::write(&data, &edited).unwrap();
    expect_rebaked(&file, "fox_data.json edited", &["fox"]);
    assert_ne!(std::fs::read(&data).unwrap(), edited);
    expect_rebaked(&file, "at the end", &[]);
}

fn source_sha(description: &Path) -> String {
    let description: Value = serde_json::from_slice(&std::fs::read(description).unwrap()).unwrap();
    description["source"]["sha256"].as_str().unwrap().to_string()
}

/// Every field of `roster --json` (docs/ROSTER.md), on a run that bakes, fails and skips.
#[test]
fn the_json_report_has_every_field_and_its_totals_add_up() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("broken.glb"), b"glTF\x02\x00\x00\x00\xff\xff\x00\x00").unwrap();
    let file = roster(dir.path(), "\n[[unit]]\nname = \"broken\"\nsource = \"broken.glb\"\n", "10");
    let out = dir.path().join("out");
    let mut first_units = Vec::new();
    for (run_index, expected_status) in [(0, "baked"), (1, "skipped")] {
        let (code, report, err) = run(&file, &[]);
        assert_eq!(code, Some(1), "the broken unit fails the run: {err}");
        let keys = |v: &Value| v.as_object().unwrap().keys().cloned().collect::<Vec<_>>();
        let mut expected_keys = [
            "roster",
            "output",
            "units",
            "baked",
            "skipped",
            "failed",
            "total_texture_bytes",
            "total_mesh_bytes",
            "total_gpu_bytes",
            "gpu_budget",
            "stale_outputs",
            "ms",
        ]
        .map(String::from)
        .to_vec();
        expected_keys.sort();
        let mut got = keys(&report);
        got.sort();
        assert_eq!(got, expected_keys, "{report}");
        assert_eq!(report["roster"].as_str().unwrap(), file.to_str().unwrap());
        assert!(Path::new(report["output"].as_str().unwrap()).ends_with("out"), "{report}");
        assert_eq!(report["stale_outputs"], serde_json::json!([]));

        let units = report["units"].as_array().unwrap();
        let names: Vec<&str> = units.iter().map(|u| u["name"].as_str().unwrap()).collect();
        assert_eq!(names, ["broken", "fox", "morph_cube", "simple"], "sorted by name");
        let (mut texture_total, mut mesh_total, mut slowest) = (0, 0, 0.0f64);
        for unit in units {
            let mut got = keys(unit);
            got.sort();
            assert_eq!(
                got,
                [
                    "error",
                    "gpu_bytes",
                    "mesh_bytes",
                    "ms",
                    "name",
                    "points",
                    "rows",
                    "source",
                    "status",
                    "texture_bytes",
                    "warnings"
                ],
                "{unit}"
            );
            let name = unit["name"].as_str().unwrap();
            let ms = unit["ms"].as_f64().unwrap();
            assert!(ms >= 0.0, "{unit}");
            slowest = slowest.max(ms);
            assert!(unit["warnings"].is_array(), "{unit}");
            for warning in unit["warnings"].as_array().unwrap() {
                assert!(warning["code"].is_string() && warning["message"].is_string(), "{warning}");
            }
            if name == "broken" {
                assert_eq!(unit["status"], "failed");
                assert_eq!(unit["source"].as_str().unwrap(), dir.path().join("broken.glb").to_str().unwrap());
                for field in ["points", "rows", "texture_bytes", "mesh_bytes", "gpu_bytes"] {
                    assert!(unit[field].is_null(), "{field}: {unit}");
                }
                assert!(unit["error"].as_str().unwrap().contains("GLB file is truncated"), "{unit}");
                continue;
            }
            assert_eq!(unit["status"], expected_status, "run {run_index}: {unit}");
            assert!(unit["error"].is_null(), "{unit}");
            let folder = out.join(name);
            let description: Value =
                serde_json::from_slice(&std::fs::read(folder.join(format!("{name}.vat.json"))).unwrap()).unwrap();
            assert_eq!(unit["points"], description["points"], "{unit}");
            assert_eq!(unit["rows"], description["rows"], "{unit}");
            let texture_size = std::fs::metadata(folder.join(format!("{name}.vat.ktx2"))).unwrap().len();
            let mesh_size = std::fs::metadata(folder.join(format!("{name}.rest.glb"))).unwrap().len();
            assert_eq!(unit["texture_bytes"].as_u64(), Some(texture_size), "{unit}");
            assert_eq!(unit["mesh_bytes"].as_u64(), Some(mesh_size), "{unit}");
            texture_total += texture_size;
            mesh_total += mesh_size;
        }
        // Exact figures of the fixtures (fps 20, every point; the fox capped at 10 rows a clip).
        let fox = units.iter().find(|u| u["name"] == "fox").unwrap();
        assert_eq!((fox["points"].as_u64(), fox["rows"].as_u64()), (Some(1728), Some(30)), "{fox}");
        let simple = units.iter().find(|u| u["name"] == "simple").unwrap();
        assert_eq!(simple["points"], 10, "{simple}");
        assert_eq!(
            simple["warnings"][0]["code"],
            if run_index == 0 { Value::from("fallback-slot") } else { Value::Null }
        );

        let count = |status: &str| units.iter().filter(|u| u["status"] == status).count();
        assert_eq!(report["baked"], count("baked"));
        assert_eq!(report["skipped"], count("skipped"));
        assert_eq!(report["failed"], 1);
        assert_eq!(report[expected_status], 3);
        assert_eq!(report["total_texture_bytes"].as_u64(), Some(texture_total), "{report}");
        assert_eq!(report["total_mesh_bytes"].as_u64(), Some(mesh_total), "{report}");
        let gpu_total: u64 = units.iter().filter_map(|u| u["gpu_bytes"].as_u64()).sum();
        assert_eq!(report["total_gpu_bytes"].as_u64(), Some(gpu_total), "{report}");
        assert!(report["gpu_budget"].is_null(), "{report}");
        let total_ms = report["ms"].as_f64().unwrap();
        assert!(total_ms + 1.0 >= slowest, "the run's {total_ms} ms holds its slowest unit's {slowest} ms");
        let figures =
            |u: &Value| (u["name"].clone(), u["points"].clone(), u["rows"].clone(), u["texture_bytes"].clone());
        let now: Vec<_> = units.iter().map(figures).collect();
        if run_index == 0 {
            first_units = now;
        } else {
            assert_eq!(now, first_units, "a skipped unit reports its last bake's figures");
        }
    }
}

/// `--gpu-budget` holds the whole run's GPU memory (what a game holding every unit
/// holds), not each unit's: one warning past it, naming the largest units, none within.
#[test]
fn gpu_budget_warns_on_the_rosters_total() {
    let dir = tempfile::tempdir().unwrap();
    let file = roster(dir.path(), "", "10");
    let (code, report, err) = run(&file, &["--gpu-budget", "400KiB"]);
    assert_eq!(code, Some(0), "a warning, not a failure: {err}");
    // The fox: 1,728 points, 30 rows, RGBA16.
    let fox = report["units"].as_array().unwrap().iter().find(|u| u["name"] == "fox").unwrap().clone();
    assert_eq!(fox["gpu_bytes"].as_u64(), Some(1728 * 30 * 8), "{fox}");
    let total: u64 = report["units"].as_array().unwrap().iter().filter_map(|u| u["gpu_bytes"].as_u64()).sum();
    assert!(total > 1728 * 30 * 8, "every unit counts: {report}");
    assert_eq!(report["total_gpu_bytes"].as_u64(), Some(total), "{report}");
    assert_eq!(report["gpu_budget"].as_u64(), Some(400 << 10), "{report}");
    let expected = format!(
        "warning: the 3 units' textures take {:.1} MiB of GPU memory together, past --gpu-budget 0.4 MiB (largest: fox 0.4 MiB,",
        total as f64 / 1048576.0
    );
    assert!(err.contains(&expected), "{expected:?} in {err}");
    assert_eq!(err.matches("of GPU memory together").count(), 1, "{err}");

    let (code, report, err) = run(&file, &["--gpu-budget", "1MiB"]);
    assert_eq!(code, Some(0), "{err}");
    assert_eq!(report["total_gpu_bytes"].as_u64(), Some(total), "skipped units count too: {report}");
    assert!(!err.contains("GPU memory"), "within the budget: {err}");

    let (code, _, err) = run(&file, &["--gpu-budget", "lots"]);
    assert_eq!(code, Some(2), "{err}");
    assert!(err.contains("\"lots\" is not a size in bytes"), "{err}");
}

/// `-q` prints nothing at all, on a unit whose clip names make warnings.
#[test]
fn a_quiet_roster_prints_nothing() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::copy(fixture("MorphStressTest/MorphStressTest.gltf"), dir.path().join("MorphStressTest.gltf")).unwrap();
    let file = dir.path().join("roster.toml");
    std::fs::write(&file, "output = \"out\"\n[[unit]]\nname = \"morph\"\nsource = \"MorphStressTest.gltf\"\n").unwrap();
    let loud = vatbake(&["roster", file.to_str().unwrap()]);
    assert_eq!(loud.status.code(), Some(0), "{}", stderr(&loud));
    assert!(stderr(&loud).contains("warning: "), "the unit has findings to hide: {}", stderr(&loud));
    for extra in [&["--force"][..], &[]] {
        let mut args = vec!["roster", file.to_str().unwrap(), "-q"];
        args.extend_from_slice(extra);
        let quiet = vatbake(&args);
        assert_eq!(quiet.status.code(), Some(0));
        assert_eq!((stderr(&quiet).as_str(), String::from_utf8_lossy(&quiet.stdout).as_ref()), ("", ""), "{extra:?}");
    }
    assert!(dir.path().join("out/morph/morph.vat.ktx2").is_file());
}

/// SIGTERM or SIGHUP in the middle of a roster: exit 130, the unit in progress leaves no
/// temporary file and no part of a set, and a unit already finished keeps its files.
#[cfg(unix)]
#[test]
fn an_interrupted_roster_leaves_only_whole_bakes() {
    for signal in ["TERM", "HUP"] {
        let dir = tempfile::tempdir().unwrap();
        std::fs::copy(fixture("SimpleSkin/SimpleSkin.gltf"), dir.path().join("simple.gltf")).unwrap();
        std::fs::copy(fixture("CesiumMan/glTF-Binary/CesiumMan.glb"), dir.path().join("cesium.glb")).unwrap();
        let file = dir.path().join("roster.toml");
        // The slow unit: every CesiumMan point, 240 rows a second, 19 clips apart, zstd 22.
        std::fs::write(
            &file,
            "output = \"out\"\n\
             [[unit]]\nname = \"a_simple\"\nsource = \"simple.gltf\"\n\n\
             [[unit]]\nname = \"b_slow\"\nsource = \"cesium.glb\"\npoints = \"all\"\nfps = 240\n\
             zstd_level = 22\nno_merge_clips = true\n",
        )
        .unwrap();
        let out = dir.path().join("out");
        let child = std::process::Command::new(env!("CARGO_BIN_EXE_vatbake"))
            .args(["roster", file.to_str().unwrap(), "--jobs", "1"])
            .stdout(std::process::Stdio::piped())
            .stderr(std::process::Stdio::piped())
            .spawn()
            .unwrap();
        common::interrupt_while_staging(child, &out.join("b_slow"), signal);
        let slow: Vec<_> = std::fs::read_dir(out.join("b_slow")).unwrap().flatten().map(|e| e.file_name()).collect();
        assert!(slow.is_empty(), "{signal}: left behind in the unit in progress: {slow:?}");
        let mut finished: Vec<_> = std::fs::read_dir(out.join("a_simple"))
            .unwrap()
            .flatten()
            .map(|e| e.file_name().to_string_lossy().into_owned())
            .collect();
        finished.sort();
        assert_eq!(finished, ["a_simple.rest.glb", "a_simple.vat.json", "a_simple.vat.ktx2"], "{signal}");
        // The next run skips the finished unit and bakes the other (here, quickly).
        let text = std::fs::read_to_string(&file).unwrap().replace("fps = 240\nzstd_level = 22\n", "max_frames = 2\n");
        std::fs::write(&file, text).unwrap();
        let (code, report, err) = run(&file, &[]);
        assert_eq!(code, Some(0), "{err}");
        assert_eq!((status_of(&report, "a_simple"), status_of(&report, "b_slow")), ("skipped", "baked"));
    }
}

/// `lods` is a key per unit like any bake setting: the unit gets its levels, and a level
/// deleted or edited rebakes that unit alone.
#[test]
fn a_units_levels_of_detail_are_part_of_its_record() {
    let dir = tempfile::tempdir().unwrap();
    let file = roster(dir.path(), "", "10\nlods = \"0.6,0.3\"");
    let fox = dir.path().join("out/fox");
    expect_rebaked(&file, "first run", &["fox", "morph_cube", "simple"]);
    let description: Value = serde_json::from_slice(&std::fs::read(fox.join("fox.vat.json")).unwrap()).unwrap();
    let levels: Vec<(&str, u64)> = description["lods"]
        .as_array()
        .unwrap()
        .iter()
        .map(|l| (l["file"].as_str().unwrap(), l["points"].as_u64().unwrap()))
        .collect();
    // 1728 points: 0.6 and 0.3 of them are 1037 and 518 at most.
    assert_eq!(levels, [("fox.lod1.rest.glb", 1031), ("fox.lod2.rest.glb", 516)]);
    assert!(!dir.path().join("out/simple/simple.lod1.rest.glb").exists());
    expect_rebaked(&file, "nothing changed", &[]);
    let level = fox.join("fox.lod2.rest.glb");
    let whole = std::fs::read(&level).unwrap();
    std::fs::remove_file(&level).unwrap();
    expect_rebaked(&file, "fox.lod2.rest.glb deleted", &["fox"]);
    assert_eq!(std::fs::read(&level).unwrap(), whole, "the rebake writes the same level again");
    let mut edited = whole.clone();
    let last = edited.len() - 1;
    edited[last] ^= 1;
    std::fs::write(&level, &edited).unwrap();
    expect_rebaked(&file, "fox.lod2.rest.glb edited", &["fox"]);
    expect_rebaked(&file, "at the end", &[]);
}
