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
