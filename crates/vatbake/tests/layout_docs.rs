//! The maps of the code say what is there: README's layout table lists every crate of
//! the workspace and no other, and docs/ARCHITECTURE.md names every crate and every file
//! of the pipeline, so neither drifts when a crate or a stage is added, moved or removed.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

fn workspace() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

fn read(path: &str) -> String {
    std::fs::read_to_string(workspace().join(path)).unwrap_or_else(|e| panic!("{path}: {e}"))
}

/// The folders under `crates/` that hold a Cargo.toml.
fn crates() -> BTreeSet<String> {
    std::fs::read_dir(workspace().join("crates"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.join("Cargo.toml").is_file())
        .map(|p| p.file_name().unwrap().to_string_lossy().into_owned())
        .collect()
}

#[test]
fn the_readme_layout_table_lists_every_crate_and_no_other() {
    let readme = read("README.md");
    let table = readme.split("## Layout").nth(1).expect("README.md has a ## Layout section");
    let table = table.split("\n## ").next().unwrap();
    let listed: BTreeSet<String> = table
        .lines()
        .filter_map(|l| l.strip_prefix("| `crates/"))
        .map(|l| l.split('`').next().unwrap().to_string())
        .filter(|c| !c.contains('/'))
        .collect();
    assert_eq!(listed, crates(), "README.md's layout table and the folders under crates/ disagree");
}

#[test]
fn the_architecture_page_names_every_crate_and_every_pipeline_file() {
    let page = read("docs/ARCHITECTURE.md");
    for krate in crates() {
        assert!(page.contains(&format!("`{krate}`")), "docs/ARCHITECTURE.md does not name the crate `{krate}`");
    }
    let pipeline = workspace().join("crates/vatbake/src/pipeline");
    let mut files: Vec<String> = std::fs::read_dir(&pipeline)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| n.ends_with(".rs") && n != "mod.rs")
        .collect();
    files.sort();
    assert!(files.len() >= 9, "{files:?}");
    for file in files {
        let stem = file.trim_end_matches(".rs");
        let named = page.contains(&format!("`{file}`")) || page.contains(&format!("**{stem}**"));
        assert!(named, "docs/ARCHITECTURE.md does not describe crates/vatbake/src/pipeline/{file}");
    }
}
