//! `--lods`: coarser rest meshes over a subset of the baked points, playing from the
//! one texture: the texture and the rest mesh unchanged, each level's vertices baked
//! points reading their own columns, the error over every row, and the bad budgets.

mod common;

use std::path::Path;
use std::process::Command;

use common::{bake, fixture, stderr, vatbake};
use vatbake::shipped::read_rest_mesh;

fn read(dir: &Path, file: &str) -> Vec<u8> {
    std::fs::read(dir.join(file)).unwrap()
}

/// (file, points, triangles, rows) and the rounded figures of each level.
fn levels(description: &serde_json::Value) -> Vec<(String, u64, u64, u64, String)> {
    description["lods"]
        .as_array()
        .unwrap()
        .iter()
        .map(|l| {
            let s = &l["switch"];
            (
                l["file"].as_str().unwrap().to_string(),
                l["points"].as_u64().unwrap(),
                l["triangles"].as_u64().unwrap(),
                l["rows_measured"].as_u64().unwrap(),
                format!(
                    "max {:.4} mean {:.6} screen {:.4} distance {:.1}",
                    l["max_error_fraction"].as_f64().unwrap(),
                    l["mean_error_fraction"].as_f64().unwrap(),
                    s["screen_fraction"].as_f64().unwrap(),
                    s["distance"].as_f64().unwrap()
                ),
            )
        })
        .collect()
}

#[test]
fn levels_share_the_texture_byte_for_byte_and_read_their_own_columns() {
    let fox = fixture("Fox/Fox.glb");
    let (plain, plain_description) = bake(&fox, &[]);
    let (with, description) = bake(&fox, &["--lods", "1000,500"]);
    // The texture and the rest mesh are the bake's without --lods, byte for byte.
    assert_eq!(read(plain.path(), "Fox.vat.ktx2"), read(with.path(), "Fox.vat.ktx2"));
    assert_eq!(read(plain.path(), "Fox.rest.glb"), read(with.path(), "Fox.rest.glb"));
    assert_eq!(plain_description["texture"], description["texture"]);
    assert!(plain_description.get("lods").is_none());
    assert_eq!(description["settings"]["lods"], "1000,500");
    // The Fox: 1728 points, 576 triangles, 162 rows.
    assert_eq!(
        levels(&description),
        [
            (
                "Fox.lod1.rest.glb".into(),
                992,
                378,
                162,
                "max 0.0247 mean 0.000471 screen 0.0375 distance 4635.5".into()
            ),
            (
                "Fox.lod2.rest.glb".into(),
                498,
                232,
                162,
                "max 0.0447 mean 0.002485 screen 0.0207 distance 8388.3".into()
            ),
        ]
    );
    let finest = read_rest_mesh(&with.path().join("Fox.rest.glb")).unwrap();
    let points = description["points"].as_u64().unwrap() as usize;
    for level in description["lods"].as_array().unwrap() {
        let file = level["file"].as_str().unwrap();
        let bytes = read(with.path(), file);
        assert_eq!(level["sha256"], vat_description::sha256_hex(&bytes));
        let mesh = read_rest_mesh(&with.path().join(file)).unwrap();
        let kept = level["points"].as_u64().unwrap() as usize;
        assert_eq!(
            (mesh.positions.len(), mesh.triangles.len() as u64),
            (kept + 2, level["triangles"].as_u64().unwrap())
        );
        // Every vertex reads a column of the bake, one its own, at the finest mesh's rest
        // position and normal for that column; the bounds are the finest mesh's.
        let mut seen = vec![false; points];
        for (vertex, &column) in mesh.columns[..kept].iter().enumerate() {
            assert!(!std::mem::replace(&mut seen[column as usize], true), "{file}: column {column} twice");
            let twin = finest.columns[..points].iter().position(|&c| c == column).unwrap();
            assert_eq!(mesh.positions[vertex], finest.positions[twin], "{file}: vertex {vertex}");
            assert_eq!(mesh.normals[vertex], finest.normals[twin], "{file}: vertex {vertex}");
        }
        assert_eq!((mesh.min, mesh.max), (finest.min, finest.max));
        assert_eq!(mesh.materials, finest.materials);
    }
}

#[test]
fn cesium_man_by_fractions() {
    let (_out, description) = bake(&fixture("CesiumMan/glTF-Binary/CesiumMan.glb"), &["--lods", "0.5,0.25"]);
    // 3273 points, 4672 triangles, 61 rows.
    assert_eq!(
        levels(&description),
        [
            (
                "CesiumMan.lod1.rest.glb".into(),
                1637,
                2772,
                61,
                "max 0.0125 mean 0.000050 screen 0.0739 distance 22.6".into()
            ),
            (
                "CesiumMan.lod2.rest.glb".into(),
                817,
                1286,
                61,
                "max 0.0237 mean 0.000417 screen 0.0390 distance 42.7".into()
            ),
        ]
    );
}

#[test]
fn levels_are_the_same_bytes_at_any_thread_count() {
    let fox = fixture("Fox/Fox.glb");
    let run = |threads: &str| {
        let out = tempfile::tempdir().unwrap();
        let status = Command::new(env!("CARGO_BIN_EXE_vatbake"))
            .args(["bake", fox.to_str().unwrap(), "-o", out.path().to_str().unwrap(), "-q", "--lods", "0.6,0.3"])
            .env("RAYON_NUM_THREADS", threads)
            .status()
            .unwrap();
        assert!(status.success());
        ["Fox.vat.json", "Fox.lod1.rest.glb", "Fox.lod2.rest.glb"].map(|f| read(out.path(), f))
    };
    assert!(run("1") == run("3"), "the files differ between 1 and 3 threads");
}

#[test]
fn bad_levels_are_refused_naming_the_value() {
    let cesium = fixture("CesiumMan/glTF-Binary/CesiumMan.glb");
    let out = tempfile::tempdir().unwrap();
    let refused = |lods: &str| {
        let output =
            vatbake(&["bake", cesium.to_str().unwrap(), "-o", out.path().to_str().unwrap(), "-q", "--lods", lods]);
        assert_eq!(output.status.code(), Some(2), "--lods {lods}: {}", stderr(&output));
        let message = stderr(&output);
        message.lines().find(|l| l.starts_with("error:")).unwrap_or(&message).to_string()
    };
    let file = cesium.display();
    assert_eq!(
        refused("5000"),
        format!(
            "error: {file}: --lods 5000: level 1 (5000, 5000 points) is not below the bake's 3273 points; \
             give each level fewer points than the bake keeps (e.g. --lods 1636,818)"
        )
    );
    assert_eq!(
        refused("1000,0.5"),
        format!(
            "error: {file}: --lods 1000,0.5: level 2 (0.5, 1637 points) keeps no fewer points than level 1 \
             (1000 points); list the levels finest first, each with fewer points"
        )
    );
    assert_eq!(
        refused("0.1"),
        format!(
            "error: {file}: --lods 0.1: level 1 (0.1, 327 points) is below the 501 points that keep every uv \
             island and open border (fewer would leave a hole); give at least 501"
        )
    );
    assert!(refused("100,200").contains("200 after 100: each level must keep fewer points than the one before"));
    assert!(refused("1.5").contains("\"1.5\" is not a level"));
    assert!(refused("0").contains("\"0\" is not a level"));
    assert_eq!(std::fs::read_dir(out.path()).unwrap().count(), 0, "nothing written");
}

/// `verify DESCRIPTION --json`: (exit code, report).
fn verify(description: &Path) -> (Option<i32>, serde_json::Value) {
    let fox = fixture("Fox/Fox.glb");
    let o = vatbake(&["verify", description.to_str().unwrap(), "--source", fox.to_str().unwrap(), "--json"]);
    (o.status.code(), serde_json::from_slice(&o.stdout).unwrap_or_else(|_| panic!("no report: {}", stderr(&o))))
}

/// `audit FOLDER --format json`: each finding's kind.
fn audit_kinds(folder: &Path) -> Vec<String> {
    let sources = fixture("Fox");
    let o = vatbake(&["audit", folder.to_str().unwrap(), "--sources", sources.to_str().unwrap(), "--format", "json"]);
    let report: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    report["results"][0]["findings"].as_array().unwrap().iter().map(|f| f["kind"].as_str().unwrap().into()).collect()
}

#[test]
fn inspect_verify_and_audit_read_the_levels() {
    let fox = fixture("Fox/Fox.glb");
    let out = tempfile::tempdir().unwrap();
    let dir = out.path().join("baked");
    let o = vatbake(&["bake", fox.to_str().unwrap(), "-o", dir.to_str().unwrap(), "-q", "--lods", "1000,500"]);
    assert!(o.status.success(), "{}", stderr(&o));
    let description = dir.join("Fox.vat.json");

    // inspect lists every level.
    let text = String::from_utf8(vatbake(&["inspect", description.to_str().unwrap()]).stdout).unwrap();
    let levels: Vec<&str> = text.lines().filter(|l| l.trim_start().starts_with("lod ")).collect();
    assert_eq!(levels.len(), 2, "{text}");
    assert!(
        levels[0].contains("Fox.lod1.rest.glb: 992 points, 378 triangles; error max")
            && levels[0].contains("over 162 rows; shown below 3.75% of the screen height, from 4635.5")
            && levels[0].contains("(1 px at 1080p, 60°)"),
        "{}",
        levels[0]
    );

    let lod = dir.join("Fox.lod1.rest.glb");
    let text = String::from_utf8(vatbake(&["inspect", lod.to_str().unwrap()]).stdout).unwrap();
    assert!(text.contains("994 vertices (992 texture columns + 2 bounds corners), 378 triangles"), "{text}");

    // verify decodes each level through its own columns: within the tolerance.
    let (code, report) = verify(&description);
    assert_eq!(code, Some(0), "{report:#}");
    let checks = report["lods"].as_array().unwrap();
    assert_eq!(checks.len(), 2);
    for (check, points) in checks.iter().zip([992, 498]) {
        assert_eq!((check["points"].as_u64(), check["rows_compared"].as_u64()), (Some(points), Some(162)));
        assert_eq!(check["passed"], true);
        assert!(check["max_error"].as_f64().unwrap() <= report["tolerance"].as_f64().unwrap());
    }
    assert!(audit_kinds(&dir).is_empty());

    // A level replaced by another: its hash and its counts are wrong.
    std::fs::copy(dir.join("Fox.lod2.rest.glb"), dir.join("Fox.lod1.rest.glb")).unwrap();
    let (code, report) = verify(&description);
    assert_eq!(code, Some(1));
    let codes: Vec<&str> = report["findings"].as_array().unwrap().iter().map(|f| f["code"].as_str().unwrap()).collect();
    assert_eq!(codes, ["lod-sha256", "lod"], "{report:#}");
    assert_eq!(audit_kinds(&dir), ["mesh_mismatch"]);

    // A level missing.
    std::fs::remove_file(dir.join("Fox.lod2.rest.glb")).unwrap();
    let (_, report) = verify(&description);
    let codes: Vec<&str> = report["findings"].as_array().unwrap().iter().map(|f| f["code"].as_str().unwrap()).collect();
    assert_eq!(codes, ["lod-sha256", "lod", "lod-missing"], "{report:#}");
    assert_eq!(audit_kinds(&dir), ["mesh_mismatch", "mesh_missing"]);
}

#[test]
fn every_format_with_a_mesh_writes_each_level_in_its_own_terms() {
    let fox = fixture("Fox/Fox.glb");
    // (format, the format's files for the levels)
    for (format, files) in [
        ("openvat", ["Fox-lod1-mesh.glb", "Fox-lod2-mesh.glb"]),
        ("vat3", ["Fox_lod1_mesh.glb", "Fox_lod2_mesh.glb"]),
        ("playcanvas", ["Fox.vat", "Fox.vat"]),
    ] {
        let (plain, plain_description) = bake(&fox, &["--format", format]);
        let (with, description) = bake(&fox, &["--format", format, "--lods", "1000,500"]);
        let exports: Vec<&str> =
            description["exports"].as_array().unwrap().iter().map(|e| e["file"].as_str().unwrap()).collect();
        let plain_exports = plain_description["exports"].as_array().unwrap();
        // The format's own files are the ones a bake without levels writes; the levels come after.
        for e in plain_exports {
            let file = e["file"].as_str().unwrap();
            assert!(exports.contains(&file), "{format}: {file} missing from {exports:?}");
            if format != "playcanvas" {
                assert_eq!(read(plain.path(), file), read(with.path(), file), "{format}: {file} changed by --lods");
            }
        }
        for (k, file) in files.iter().enumerate() {
            assert!(exports.contains(file), "{format}: {file} missing from {exports:?}");
            if format == "playcanvas" {
                continue;
            }
            // A level mesh: the level's points and triangles, as our level's GLB.
            let ours = read_rest_mesh(&with.path().join(format!("Fox.lod{}.rest.glb", k + 1))).unwrap();
            let theirs = read_rest_mesh(&with.path().join(file)).unwrap();
            assert_eq!(
                (theirs.positions.len(), theirs.triangles.len()),
                (ours.positions.len(), ours.triangles.len()),
                "{format}: {file}"
            );
            assert_eq!(theirs.positions, ours.positions, "{format}: {file}");
        }
        assert_eq!(
            exports.len(),
            plain_exports.len() + if format == "playcanvas" { 0 } else { 2 },
            "{format}: {exports:?}"
        );
        let o =
            vatbake(&["verify", with.path().join("Fox.vat.json").to_str().unwrap(), "--source", fox.to_str().unwrap()]);
        assert!(o.status.success(), "{format}: {}", stderr(&o));
    }
}
