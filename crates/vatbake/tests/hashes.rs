//! The description names the texture and the rest mesh it belongs to by their SHA-256:
//! a file from another bake beside it (a bake killed between its renames, a file
//! replaced by hand) is a finding of the audit, and the roster rebakes the unit.

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use vatbake::audit::{audit, AuditSettings};
use vatbake::description::{sha256_hex, Description};
use vatbake::roster::{self, RunOptions, Unwatched};
use vatbake::slots::Aliases;

fn fixture(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../fixtures").join(name)
}

fn description(path: &Path) -> Description {
    serde_json::from_slice(&std::fs::read(path).unwrap()).unwrap()
}

/// The same size and header, other bytes: one byte of the file's middle changed.
fn flip_a_byte(path: &Path) {
    let mut bytes = std::fs::read(path).unwrap();
    let middle = bytes.len() / 2;
    bytes[middle] ^= 0x55;
    std::fs::write(path, bytes).unwrap();
}

fn findings(json: &Path, source: &Path) -> Vec<(String, String)> {
    let settings = AuditSettings {
        paths: vec![json.to_path_buf()],
        sources: None,
        aliases: Aliases::load(None).unwrap(),
        known_sources: HashMap::from([(json.to_path_buf(), source.to_path_buf())]),
    };
    let report = audit(&settings).unwrap();
    report.results[0]
        .findings
        .iter()
        .map(|f| (serde_json::to_value(f.kind).unwrap().as_str().unwrap().to_string(), f.message.clone()))
        .collect()
}

#[test]
fn the_description_records_the_hashes_of_its_files() {
    let dir = tempfile::tempdir().unwrap();
    let source = fixture("Fox/Fox.glb");
    let settings = vatbake::BakeOptions::default().settings(source.clone(), dir.path().into()).unwrap();
    vatbake::bake(&settings).unwrap();
    let json = dir.path().join("Fox.vat.json");
    let d = description(&json);
    let on_disk = |name: &str| sha256_hex(&std::fs::read(dir.path().join(name)).unwrap());
    assert_eq!(d.texture.sha256.as_deref(), Some(on_disk("Fox.vat.ktx2").as_str()));
    assert_eq!(d.mesh.sha256.as_deref(), Some(on_disk("Fox.rest.glb").as_str()));
    assert_eq!(findings(&json, &source), []);

    // A texture of the same size and header but other bytes: only its hash tells.
    flip_a_byte(&dir.path().join("Fox.vat.ktx2"));
    let found = findings(&json, &source);
    assert_eq!(found.len(), 1, "{found:?}");
    assert_eq!(found[0].0, "texture_mismatch");
    let recorded = d.texture.sha256.as_deref().unwrap();
    let now = on_disk("Fox.vat.ktx2");
    assert_eq!(
        found[0].1,
        format!(
            "the texture Fox.vat.ktx2 is not the one this description was baked with (sha256 {}… recorded, {}… found)",
            &recorded[..12],
            &now[..12]
        )
    );
    flip_a_byte(&dir.path().join("Fox.rest.glb"));
    let kinds: Vec<String> = findings(&json, &source).into_iter().map(|(kind, _)| kind).collect();
    assert_eq!(kinds, ["texture_mismatch", "mesh_mismatch"]);

    // A description without hashes (written before they existed) is checked by size and header alone.
    let mut old = serde_json::to_value(&d).unwrap();
    old["texture"].as_object_mut().unwrap().remove("sha256");
    old["mesh"].as_object_mut().unwrap().remove("sha256");
    std::fs::write(&json, serde_json::to_vec_pretty(&old).unwrap()).unwrap();
    assert_eq!(findings(&json, &source), []);
}

#[test]
fn the_roster_rebakes_a_unit_whose_files_are_not_the_described_ones() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::copy(fixture("Fox/Fox.glb"), dir.path().join("fox.glb")).unwrap();
    let file = dir.path().join("roster.toml");
    std::fs::write(
        &file,
        "output = \"out\"\n[defaults]\nmax_frames = 10\n\n[[unit]]\nname = \"fox\"\nsource = \"fox.glb\"\n",
    )
    .unwrap();
    let roster = roster::read(&file, None).unwrap();
    let options =
        RunOptions { jobs: Some(1), force: false, shard: None, no_durable: true, keep_stale: false, gpu_budget: None };
    let status = || roster::run(&roster, &options, &Unwatched).unwrap().units[0].status;
    assert_eq!(status(), "baked");
    assert_eq!(status(), "skipped");
    let texture = dir.path().join("out/fox/fox.vat.ktx2");
    let baked = std::fs::read(&texture).unwrap();
    flip_a_byte(&texture);
    assert_eq!(status(), "baked", "a texture that is not the described one is rebaked");
    assert_eq!(std::fs::read(&texture).unwrap(), baked);
    flip_a_byte(&dir.path().join("out/fox/fox.rest.glb"));
    assert_eq!(status(), "baked", "so is a rest mesh");
    assert_eq!(status(), "skipped");
}
