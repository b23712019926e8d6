//! A roster killed (SIGKILL) at random instants while it rebakes every unit over an
//! earlier bake: each time, every unit's folder holds the whole previous set, the whole
//! new one, or no description at all (the description is the set's mark, renamed in
//! last after the old one is removed), and the files beside a description are the ones
//! its hashes name. A rerun then finishes the job and leaves no temporary file.

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::Instant;

use vatbake::description::{sha256_hex, Description};

const UNITS: [(&str, &str); 4] = [
    ("fox", "Fox/Fox.glb"),
    ("simple", "SimpleSkin/SimpleSkin.gltf"),
    ("rigged", "RiggedSimple/rigged-simple.gltf"),
    ("cesium", "CesiumMan/glTF-Binary/CesiumMan.glb"),
];

fn fixtures() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../fixtures")
}

fn write_roster(file: &Path, fps: u32) {
    let mut text = format!("output = \"out\"\n[defaults]\npoints = \"all\"\nfps = {fps}\n");
    for (name, source) in UNITS {
        let source = fixtures().join(source);
        text += &format!("\n[[unit]]\nname = \"{name}\"\nsource = \"{}\"\n", source.display());
    }
    std::fs::write(file, text).unwrap();
}

fn roster(file: &Path) -> Command {
    let mut command = Command::new(env!("CARGO_BIN_EXE_vatbake"));
    command.args(["roster", file.to_str().unwrap(), "-q", "--jobs", "2"]);
    command.stdout(Stdio::null()).stderr(Stdio::null());
    command
}

/// Each unit's description bytes after a whole run.
fn descriptions(out: &Path) -> Vec<Vec<u8>> {
    UNITS.iter().map(|(name, _)| std::fs::read(out.join(name).join(format!("{name}.vat.json"))).unwrap()).collect()
}

fn temp_files(out: &Path) -> Vec<PathBuf> {
    let mut found = Vec::new();
    for (name, _) in UNITS {
        for entry in std::fs::read_dir(out.join(name)).into_iter().flatten() {
            let path = entry.unwrap().path();
            if path.file_name().unwrap().to_string_lossy().ends_with(".tmp") {
                found.push(path);
            }
        }
    }
    found
}

/// "old", "new" or "absent" for each unit; panics on a description beside files it does not name.
fn states(out: &Path, old: &[Vec<u8>], new: &[Vec<u8>]) -> Vec<&'static str> {
    UNITS
        .iter()
        .enumerate()
        .map(|(i, (name, _))| {
            let folder = out.join(name);
            let Ok(bytes) = std::fs::read(folder.join(format!("{name}.vat.json"))) else { return "absent" };
            let d: Description = serde_json::from_slice(&bytes).unwrap();
            for (file, recorded) in [(&d.texture.file, &d.texture.sha256), (&d.mesh.file, &d.mesh.sha256)] {
                let found = sha256_hex(&std::fs::read(folder.join(file)).unwrap());
                assert_eq!(Some(&found), recorded.as_ref(), "{name}: {file} is not the described one");
            }
            match bytes {
                b if b == old[i] => "old",
                b if b == new[i] => "new",
                _ => panic!("{name}: a description that is neither the old nor the new one"),
            }
        })
        .collect()
}

#[test]
fn a_killed_roster_leaves_whole_sets_and_a_rerun_cleans_up() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("roster.toml");
    let out = dir.path().join("out");

    // The new set, then the old one (what each killed run starts from), timed.
    write_roster(&file, 24);
    assert!(roster(&file).status().unwrap().success());
    let new = descriptions(&out);
    write_roster(&file, 12);
    assert!(roster(&file).arg("--force").status().unwrap().success());
    let old = descriptions(&out);
    write_roster(&file, 24);
    let started = Instant::now();
    assert!(roster(&file).status().unwrap().success());
    let whole_run = started.elapsed();
    assert_eq!(descriptions(&out), new);

    let mut seed = 0x2545_f491_4f6c_dd1du64;
    let mut seen = std::collections::BTreeSet::new();
    for round in 0..20 {
        write_roster(&file, 12);
        assert!(roster(&file).arg("--force").status().unwrap().success());
        write_roster(&file, 24);
        seed = seed.wrapping_mul(6_364_136_223_846_793_005).wrapping_add(1_442_695_040_888_963_407);
        let at = whole_run.mul_f64((seed >> 11) as f64 / (1u64 << 53) as f64);
        let mut child = roster(&file).spawn().unwrap();
        std::thread::sleep(at);
        let _ = child.kill();
        child.wait().unwrap();
        let now = states(&out, &old, &new);
        seen.extend(now.iter().copied());
        assert!(now.iter().all(|s| ["old", "new", "absent"].contains(s)), "round {round} at {at:?}: {now:?}");
        // `roster --verify` says which: each whole set passes against the source with
        // the rows of its own bake (12 or 24 per second); an absent unit has no bake.
        let verified = roster(&file).args(["--verify", "--json"]).stdout(Stdio::piped()).output().unwrap();
        let report: serde_json::Value = serde_json::from_slice(&verified.stdout).unwrap();
        for (i, (name, _)) in UNITS.iter().enumerate() {
            let unit = report["units"].as_array().unwrap().iter().find(|u| u["name"] == *name).unwrap();
            let rows: u64 = unit["report"]["clips"]
                .as_array()
                .map(|clips| clips.iter().map(|c| c["rows_compared"].as_u64().unwrap()).sum())
                .unwrap_or(0);
            let rows_of = |set: &[Vec<u8>]| serde_json::from_slice::<Description>(&set[i]).unwrap().rows as u64;
            let (status, want) = match now[i] {
                "old" => ("passed", rows_of(&old)),
                "new" => ("passed", rows_of(&new)),
                _ => ("error", 0),
            };
            assert_eq!((unit["status"].as_str().unwrap(), rows), (status, want), "round {round}: {name} is {}", now[i]);
        }

        // The rerun rebakes what is not new and removes every temporary file.
        assert!(roster(&file).status().unwrap().success());
        assert_eq!(states(&out, &old, &new), ["new"; 4], "round {round}");
        assert_eq!(temp_files(&out), Vec::<PathBuf>::new(), "round {round} at {at:?}");
    }
    // The instants were spread enough to catch units both before and after their rename.
    assert!(seen.contains("old") && seen.contains("new"), "{seen:?}");
}
