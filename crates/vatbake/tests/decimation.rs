//! `vatbake bake --points N`: the texture, the rest mesh and the description
//! describe the decimated model, and the decimation's error is written and printed.

mod common;

use common::{bake, fixture, stderr, vatbake};
use glam::Vec3;

#[test]
fn the_texture_and_the_rest_mesh_hold_the_decimated_points() {
    let path = fixture("CesiumMan/glTF-Binary/CesiumMan.glb");
    let (out, desc) = bake(&path, &["--points", "400", "--max-frames", "5"]);
    let points = desc["points"].as_u64().unwrap();
    assert!((360..=400).contains(&points), "{points} points for a budget of 400");
    assert_eq!(desc["texture"]["width"], points);
    assert_eq!(desc["mesh"]["points"], points);

    let decimation = &desc["decimation"];
    assert_eq!(decimation["source_points"], 3273);
    assert_eq!(decimation["points"], points);
    assert_eq!(decimation["source_triangles"], 4672);
    let (max, mean) = (decimation["max_error"].as_f64().unwrap(), decimation["mean_error"].as_f64().unwrap());
    assert!(0.0 < mean && mean < max, "{decimation}");
    // CesiumMan is 1.5 units tall: at 400 points the surface stays within a few centimetres.
    assert!(max < 0.1 && decimation["max_error_fraction"].as_f64().unwrap() < 0.05, "{decimation}");
    // CesiumMan's 19 one-joint animations are one take: one clip of 5 rows, all measured.
    assert_eq!(decimation["rows_measured"], 5);

    // The rest mesh is the decimated model (plus the two bounds corners).
    let glb = std::fs::read(out.path().join("CesiumMan.rest.glb")).unwrap();
    let json_length = u32::from_le_bytes(glb[12..16].try_into().unwrap()) as usize;
    let json: serde_json::Value = serde_json::from_slice(&glb[20..20 + json_length]).unwrap();
    let position = json["meshes"][0]["primitives"][0]["attributes"]["POSITION"].as_u64().unwrap() as usize;
    assert_eq!(json["accessors"][position]["count"], points + 2);

    // The same decimation, made here with the library, is what the texture shows:
    // its first row is the decimated model evaluated at time 0 of the first clip.
    let bytes = std::fs::read(&path).unwrap();
    let mut model = vat_gltf::load(&path, &bytes, &vat_gltf::Options::default()).unwrap().model;
    model.clips = vat_gltf::merge_clips(std::mem::take(&mut model.clips), vat_gltf::MergeClips::Auto).0;
    let decimated = vat_decimate::decimate_in(&model, &vat_skin::bind_pose_positions(&model), 400).unwrap().model;
    assert_eq!(decimated.points.len() as u64, points);
    let frames = vat_skin::evaluate_clip(&decimated, Some(&model.clips[0]), &[0.0]);
    let texels = common::undo_delta(common::read_ktx2(&out.path().join("CesiumMan.vat.ktx2")).1, &desc);
    let center = Vec3::from_slice(&floats(&desc["positions"]["center"]));
    let half_extent = Vec3::from_slice(&floats(&desc["positions"]["half_extent"]));
    // Half a step per axis, plus the f32 rounding of the decode formula itself.
    let tolerance = half_extent / 65535.0 + (center.abs() + half_extent) * 4.0 * f32::EPSILON;
    // Each point's column, from its TEXCOORD_1 (one band): the decimated points in the bake's column order.
    let uv1 =
        &json["accessors"][json["meshes"][0]["primitives"][0]["attributes"]["TEXCOORD_1"].as_u64().unwrap() as usize];
    let view = &json["bufferViews"][uv1["bufferView"].as_u64().unwrap() as usize];
    let bin = 20
        + json_length
        + 8
        + view["byteOffset"].as_u64().unwrap_or(0) as usize
        + uv1["byteOffset"].as_u64().unwrap_or(0) as usize;
    let width = desc["texture"]["width"].as_u64().unwrap() as f32;
    let column = |point: usize| {
        (f32::from_le_bytes(glb[bin + point * 8..bin + point * 8 + 4].try_into().unwrap()) * width) as usize
    };
    let columns: std::collections::BTreeSet<usize> = (0..points as usize).map(column).collect();
    assert_eq!(columns.len(), points as usize, "every point a column of its own");
    for (point, &expected) in frames.row_positions(0).iter().enumerate() {
        let c = column(point);
        let texel = Vec3::new(texels[c * 4] as f32, texels[c * 4 + 1] as f32, texels[c * 4 + 2] as f32);
        let decoded = (texel / 65535.0 * 2.0 - Vec3::ONE) * half_extent + center;
        assert!((decoded - expected).abs().cmple(tolerance).all(), "point {point}: {decoded} vs {expected}");
    }
}

fn floats(value: &serde_json::Value) -> Vec<f32> {
    value.as_array().unwrap().iter().map(|v| v.as_f64().unwrap() as f32).collect()
}

#[test]
fn a_budget_that_covers_every_point_bakes_them_all_with_a_note() {
    let fox = fixture("Fox/Fox.glb");
    let out = tempfile::tempdir().unwrap();
    let o = vatbake(&["bake", fox.to_str().unwrap(), "-o", out.path().to_str().unwrap(), "-v", "--max-frames", "3"]);
    assert!(o.status.success(), "{}", stderr(&o));
    let stdout = String::from_utf8(o.stdout).unwrap();
    assert!(stdout.contains("note: the budget of 4000 points is at or above the model's 1728 points"), "{stdout}");
    let desc: serde_json::Value =
        serde_json::from_slice(&std::fs::read(out.path().join("Fox.vat.json")).unwrap()).unwrap();
    assert_eq!(desc["points"], 1728);
    assert!(desc["decimation"].is_null());
}

#[test]
fn the_summary_and_the_json_report_give_the_error() {
    let fox = fixture("Fox/Fox.glb");
    let out = tempfile::tempdir().unwrap();
    let args =
        ["bake", fox.to_str().unwrap(), "-o", out.path().to_str().unwrap(), "--points", "300", "--max-frames", "3"];
    let o = vatbake(&[&args[..], &["-v"]].concat());
    assert!(o.status.success(), "{}", stderr(&o));
    let stdout = String::from_utf8(o.stdout).unwrap();
    assert!(stdout.contains("decimated 1728 → "), "{stdout}");
    assert!(stdout.contains("% of the bounds diagonal"), "{stdout}");

    let o = vatbake(&[&args[..], &["--json"]].concat());
    let report: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(report["decimation"]["source_points"], 1728);
    assert!(report["decimation"]["points"].as_u64().unwrap() <= 300);
    assert!(report["timings_ms"]["decimate"].as_f64().is_some());
}

#[test]
fn decimated_bakes_are_deterministic() {
    let model = fixture("Kenney-MiniCharacters/character-female-a.glb");
    let (first, _) = bake(&model, &["--points", "500", "--max-frames", "4"]);
    let (second, _) = bake(&model, &["--points", "500", "--max-frames", "4"]);
    for name in ["character-female-a.vat.ktx2", "character-female-a.rest.glb", "character-female-a.vat.json"] {
        let (a, b) =
            (std::fs::read(first.path().join(name)).unwrap(), std::fs::read(second.path().join(name)).unwrap());
        assert!(a == b, "{name} differs between two bakes");
    }
}

#[test]
fn a_budget_too_small_for_the_model_is_a_usage_error_naming_the_smallest() {
    let model = fixture("Kenney-MiniCharacters/character-female-a.glb");
    let out = tempfile::tempdir().unwrap();
    let o = vatbake(&["bake", model.to_str().unwrap(), "-o", out.path().to_str().unwrap(), "--points", "3"]);
    assert_eq!(o.status.code(), Some(2));
    let message = stderr(&o);
    assert!(message.contains("character-female-a.glb: --points 3: "), "{message}");
    assert!(message.contains("the smallest budget that keeps them all is"), "{message}");
    assert!(std::fs::read_dir(out.path()).unwrap().next().is_none(), "nothing is written");
}
