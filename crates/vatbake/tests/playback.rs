//! The bake features a player asks for (issue 17): `--loop-rows`, `--sockets`,
//! `--root-motion`, `--max-size`/`--device` (array layers), `--gpu-budget`. Each is
//! checked on real fixtures against a plain bake of the same model, read back with the
//! `ktx2` crate and through `vatbake verify`, with its errors' exit codes and messages.

mod common;

use std::path::Path;

use common::{bake, fixture, read_ktx2, stderr, vatbake};
use serde_json::Value;

fn kenney() -> std::path::PathBuf {
    fixture("Kenney-MiniCharacters/character-female-a.glb")
}

/// Decoded positions of every point (in column order) on each row of the plain image.
fn decode_rows(texels: &[u16], d: &Value) -> Vec<Vec<[f32; 3]>> {
    let width = d["texture"]["width"].as_u64().unwrap() as usize;
    let rows = d["rows"].as_u64().unwrap() as usize;
    let points = d["points"].as_u64().unwrap() as usize;
    let c: Vec<f32> = (0..3).map(|i| d["positions"]["center"][i].as_f64().unwrap() as f32).collect();
    let h: Vec<f32> = (0..3).map(|i| d["positions"]["half_extent"][i].as_f64().unwrap() as f32).collect();
    (0..rows)
        .map(|r| {
            (0..points)
                .map(|col| {
                    let (x, y) = (col % width, (col / width) * rows + r);
                    let t = &texels[(y * width + x) * 4..][..3];
                    [0, 1, 2].map(|i| (f32::from(t[i]) / 65535.0 * 2.0 - 1.0) * h[i] + c[i])
                })
                .collect()
        })
        .collect()
}

fn verify_passes(description: &Path, source: &Path) {
    let o = vatbake(&["verify", description.to_str().unwrap(), "--source", source.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(0), "{}{}", String::from_utf8_lossy(&o.stdout), stderr(&o));
}

#[test]
fn the_default_description_has_none_of_the_playback_fields() {
    let (_dir, d) = bake(&fixture("Fox/Fox.glb"), &[]);
    assert!(d.get("sockets").is_none());
    for key in ["loop_rows", "sockets", "root_motion", "root_motion_clips", "max_height", "normals"] {
        assert!(d["settings"].get(key).is_none(), "settings.{key}");
    }
    assert!(d["texture"].get("layers").is_none() && d["texture"].get("layer_height").is_none());
    assert!(d["normals"].get("mode").is_none());
    assert!(d["clips"]
        .as_array()
        .unwrap()
        .iter()
        .all(|c| c.get("loop_row").is_none() && c.get("root_motion").is_none()));
}

#[test]
fn loop_rows_leave_clips_that_already_end_on_their_first_row_alone() {
    // Every Fox clip's last key is its first pose: nothing to append, the texels unchanged.
    let model = fixture("Fox/Fox.glb");
    let (plain_dir, plain) = bake(&model, &["--points", "all"]);
    let (dir, d) = bake(&model, &["--points", "all", "--loop-rows"]);
    assert_eq!(d["settings"]["loop_rows"], true);
    assert_eq!(d["rows"], plain["rows"]);
    assert!(d["clips"].as_array().unwrap().iter().all(|c| c.get("loop_row").is_none()));
    assert_eq!(read_ktx2(&dir.path().join("Fox.vat.ktx2")).1, read_ktx2(&plain_dir.path().join("Fox.vat.ktx2")).1);
}

/// The Fox with its Survey (a slow idle) cut one key short: the clip no longer ends
/// on its first pose, though still within the 1% that makes it a loop.
fn fox_survey_cut_short(dir: &Path) -> std::path::PathBuf {
    let bytes = std::fs::read(fixture("Fox/Fox.glb")).unwrap();
    let json_len = u32::from_le_bytes(bytes[12..16].try_into().unwrap()) as usize;
    let mut json: Value = serde_json::from_slice(&bytes[20..20 + json_len]).unwrap();
    let bin_at = 20 + json_len + 8;
    let walk = json["animations"].as_array().unwrap().iter().position(|a| a["name"] == "Survey").unwrap();
    let mut accessors: Vec<(u64, bool)> = Vec::new();
    for sampler in json["animations"][walk]["samplers"].as_array().unwrap() {
        accessors.push((sampler["input"].as_u64().unwrap(), true));
        accessors.push((sampler["output"].as_u64().unwrap(), false));
    }
    accessors.sort();
    accessors.dedup();
    for (index, is_time) in accessors {
        let accessor = &json["accessors"][index as usize];
        let count = accessor["count"].as_u64().unwrap();
        let view = &json["bufferViews"][accessor["bufferView"].as_u64().unwrap() as usize];
        let at = bin_at
            + view["byteOffset"].as_u64().unwrap_or(0) as usize
            + accessor["byteOffset"].as_u64().unwrap_or(0) as usize;
        let last_kept = f32::from_le_bytes(bytes[at + 4 * (count as usize - 2)..][..4].try_into().unwrap());
        let accessor = &mut json["accessors"][index as usize];
        accessor["count"] = (count - 1).into();
        if is_time {
            accessor["max"] = serde_json::json!([last_kept]);
        } else {
            accessor.as_object_mut().unwrap().remove("min");
            accessor.as_object_mut().unwrap().remove("max");
        }
    }
    let mut text = serde_json::to_vec(&json).unwrap();
    while !text.len().is_multiple_of(4) {
        text.push(b' ');
    }
    let bin = &bytes[20 + json_len..];
    let mut out = Vec::new();
    out.extend_from_slice(&bytes[0..8]);
    out.extend_from_slice(&((12 + 8 + text.len() + bin.len()) as u32).to_le_bytes());
    out.extend_from_slice(&(text.len() as u32).to_le_bytes());
    out.extend_from_slice(b"JSON");
    out.extend_from_slice(&text);
    out.extend_from_slice(bin);
    let path = dir.join("Fox.glb");
    std::fs::write(&path, out).unwrap();
    path
}

#[test]
fn loop_rows_append_a_copy_of_the_first_row_to_a_loop_cut_short() {
    let work = tempfile::tempdir().unwrap();
    let model = fox_survey_cut_short(work.path());
    let common = ["--points", "all", "--delta", "none"];
    let (plain_dir, plain) = bake(&model, &common);
    let (dir, d) = bake(&model, &[&common[..], &["--loop-rows"]].concat());
    let walk = |d: &Value| d["clips"].as_array().unwrap().iter().find(|c| c["name"] == "Survey").unwrap().clone();
    let (before, after) = (walk(&plain), walk(&d));
    assert_eq!(before["loop"], true, "the cut Survey still loops within 1%");
    assert!(before.get("loop_row").is_none());
    assert_eq!(after["loop_row"], true);
    assert_eq!(after["rows"].as_u64().unwrap(), before["rows"].as_u64().unwrap() + 1);
    assert_eq!(d["rows"].as_u64().unwrap(), plain["rows"].as_u64().unwrap() + 1);
    let rate = after["rate"].as_f64().unwrap();
    assert_eq!(rate, before["rate"].as_f64().unwrap());
    let grown = after["duration"].as_f64().unwrap() - before["duration"].as_f64().unwrap();
    assert!((grown - 1.0 / rate).abs() < 1e-5, "duration grows by one row period: {grown}");
    let rows = after["rows"].as_f64().unwrap();
    assert!(((rows - 1.0) / after["duration"].as_f64().unwrap() - rate).abs() < 1e-3 * rate);
    // The other clips already end on their first row: unchanged.
    assert_eq!(d["clips"].as_array().unwrap().iter().filter(|c| c.get("loop_row").is_some()).count(), 1);

    // Texels: the plain bake's rows, with Walk's first row repeated after its last.
    let (_, plain_texels) = read_ktx2(&plain_dir.path().join("Fox.vat.ktx2"));
    let (_, texels) = read_ktx2(&dir.path().join("Fox.vat.ktx2"));
    let width = d["texture"]["width"].as_u64().unwrap() as usize;
    let row = |t: &[u16], y: usize| t[y * width * 4..(y + 1) * width * 4].to_vec();
    let (first, count) = (after["row"].as_u64().unwrap() as usize, after["rows"].as_u64().unwrap() as usize);
    let mut expected: Vec<Vec<u16>> =
        (0..plain["rows"].as_u64().unwrap() as usize).map(|y| row(&plain_texels, y)).collect();
    expected.insert(first + count - 1, row(&plain_texels, first));
    let got: Vec<Vec<u16>> = (0..d["rows"].as_u64().unwrap() as usize).map(|y| row(&texels, y)).collect();
    assert_eq!(got, expected);
    assert_ne!(row(&texels, first + count - 2), row(&texels, first), "the source's last row is not its first");
    verify_passes(&dir.path().join("Fox.vat.json"), &model);
}

#[test]
fn sockets_record_a_unit_rotation_and_a_position_per_row_and_unknown_names_list_the_nearest() {
    let model = fixture("Fox/Fox.glb");
    let (_dir, d) = bake(&model, &["--sockets", "b_RightHand_08,b_Head_05"]);
    assert_eq!(d["settings"]["sockets"], serde_json::json!(["b_RightHand_08", "b_Head_05"]));
    let sockets = d["sockets"].as_array().unwrap();
    assert_eq!(sockets.len(), 2);
    assert_eq!((sockets[0]["name"].as_str().unwrap(), sockets[0]["node"].as_u64().unwrap()), ("b_RightHand_08", 11));
    assert_eq!(sockets[1]["node"], 8);
    let rows = d["rows"].as_u64().unwrap() as usize;
    let bounds_min: Vec<f64> = (0..3)
        .map(|i| d["positions"]["center"][i].as_f64().unwrap() - d["positions"]["half_extent"][i].as_f64().unwrap())
        .collect();
    for socket in sockets {
        let entries = socket["rows"].as_array().unwrap();
        assert_eq!(entries.len(), rows);
        for e in entries {
            let v: Vec<f64> = e.as_array().unwrap().iter().map(|x| x.as_f64().unwrap()).collect();
            let norm = (v[3] * v[3] + v[4] * v[4] + v[5] * v[5] + v[6] * v[6]).sqrt();
            assert!((norm - 1.0).abs() < 1e-5 && v[6] >= 0.0, "{v:?}");
            // A joint of the Fox's inside its animation's bounds (to a few units).
            assert!((0..3).all(|i| v[i] > bounds_min[i] - 5.0), "{v:?}");
        }
    }
    // The head is above the hand on the first row (y up).
    assert!(sockets[1]["rows"][0][1].as_f64().unwrap() > sockets[0]["rows"][0][1].as_f64().unwrap() + 20.0);

    let out = tempfile::tempdir().unwrap();
    let o =
        vatbake(&["bake", model.to_str().unwrap(), "-o", out.path().to_str().unwrap(), "--sockets", "b_RightHand_8"]);
    assert_eq!(o.status.code(), Some(2));
    let message = stderr(&o);
    assert!(
        message.contains("--sockets b_RightHand_8: no joint is named \"b_RightHand_8\"; the nearest joint names are \"b_RightHand_08\""),
        "{message}"
    );
    assert_eq!(std::fs::read_dir(out.path()).unwrap().count(), 0, "nothing written");
}

#[test]
fn root_motion_extract_plays_in_place_and_the_recorded_travel_restores_the_keep_bake() {
    // Kenney's "die" falls backwards: its root travels about 0.1 units.
    let model = kenney();
    let common = ["--clips", "die,idle", "--delta", "none", "--points", "all"];
    let (keep_dir, keep) = bake(&model, &common);
    let (dir, d) = bake(&model, &[&common[..], &["--root-motion", "extract,idle=keep"]].concat());
    assert_eq!(d["settings"]["root_motion"], "extract");
    assert_eq!(d["settings"]["root_motion_clips"]["idle"], "keep");
    let die = &d["clips"][0];
    assert!(d["clips"][1].get("root_motion").is_none());
    let motion = &die["root_motion"];
    assert_eq!((motion["mode"].as_str().unwrap(), motion["node"].as_u64().unwrap()), ("extract", 1));
    assert!(motion["yaw"].is_null());
    let travel: Vec<[f32; 3]> = motion["translation"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| [0, 1, 2].map(|i| t[i].as_f64().unwrap() as f32))
        .collect();
    assert_eq!(travel.len(), die["rows"].as_u64().unwrap() as usize);
    assert_eq!(travel[0], [0.0; 3]);
    let furthest = travel.iter().map(|t| (t[0] * t[0] + t[2] * t[2]).sqrt()).fold(0.0, f32::max);
    assert!(furthest > 0.05, "the root travels: {furthest}");
    assert!(travel.iter().all(|t| t[1] == 0.0), "horizontal only");
    // In-place positions plus the row's travel are the keep bake's, within both encodings' precision.
    let tolerance = keep["positions"]["precision"].as_f64().unwrap() as f32
        + d["positions"]["precision"].as_f64().unwrap() as f32
        + 1e-5;
    let keep_rows = decode_rows(&undo(&keep_dir, "character-female-a", &keep), &keep);
    let rows = decode_rows(&undo(&dir, "character-female-a", &d), &d);
    let mut worst = 0.0f32;
    for (k, t) in travel.iter().enumerate() {
        for (p, q) in rows[k].iter().zip(&keep_rows[k]) {
            let diff = (0..3).map(|i| (p[i] + t[i] - q[i]).powi(2)).sum::<f32>().sqrt();
            worst = worst.max(diff);
        }
    }
    assert!(worst <= tolerance, "in place + travel is {worst} from the keep bake (tolerance {tolerance})");
    // The bounds shrink: the in-place box is no wider on x and z.
    let he = |d: &Value, i: usize| d["positions"]["half_extent"][i].as_f64().unwrap();
    assert!(he(&d, 0) <= he(&keep, 0) + 1e-6 && he(&d, 2) <= he(&keep, 2) + 1e-6);
    assert!(he(&d, 0) + he(&d, 2) < he(&keep, 0) + he(&keep, 2) - 0.01, "x {} z {}", he(&d, 0), he(&d, 2));
    verify_passes(&dir.path().join("character-female-a.vat.json"), &model);

    // zero: the same texels, nothing recorded.
    let (zero_dir, zero) = bake(&model, &[&common[..], &["--root-motion", "zero,idle=keep"]].concat());
    assert_eq!(zero["clips"][0]["root_motion"], serde_json::json!({ "mode": "zero", "node": 1, "yaw": null }));
    assert_eq!(
        read_ktx2(&zero_dir.path().join("character-female-a.vat.ktx2")).1,
        read_ktx2(&dir.path().join("character-female-a.vat.ktx2")).1
    );
}

fn undo(dir: &tempfile::TempDir, stem: &str, d: &Value) -> Vec<u16> {
    common::undo_delta(read_ktx2(&dir.path().join(format!("{stem}.vat.ktx2"))).1, d)
}

#[test]
fn root_motion_errors_name_the_problem() {
    let out = tempfile::tempdir().unwrap();
    let o_dir = out.path().to_str().unwrap();
    let run = |model: &Path, flag: &str| {
        let o = vatbake(&["bake", model.to_str().unwrap(), "-o", o_dir, "--root-motion", flag]);
        (o.status.code(), stderr(&o))
    };
    let (code, message) = run(&kenney(), "slide");
    assert_eq!(code, Some(2));
    assert!(message.contains("\"slide\" is not a root motion mode: give one of keep, extract, zero"), "{message}");
    let (code, message) = run(&kenney(), "extract,dance=keep");
    assert_eq!(code, Some(2));
    assert!(
        message.contains("--root-motion dance=…: the bake has no clip named \"dance\"; its clips are \"static\""),
        "{message}"
    );
    let (code, message) = run(&fixture("Kenney-PlatformerCharacter/character.glb"), "extract");
    assert_eq!(code, Some(2));
    assert!(message.contains("the model has no skin, so no root joint"), "{message}");
}

#[test]
fn max_size_splits_a_tall_texture_into_array_layers_that_read_back_row_for_row() {
    let model = kenney();
    let (plain_dir, plain) = bake(&model, &[]);
    let (dir, d) = bake(&model, &["--max-size", "4096x100"]);
    let height = plain["texture"]["height"].as_u64().unwrap();
    assert_eq!(height, 424);
    assert_eq!(d["settings"]["max_height"], 100);
    assert_eq!((d["texture"]["layers"].as_u64().unwrap(), d["texture"]["layer_height"].as_u64().unwrap()), (5, 85));
    assert_eq!(d["texture"]["height"], height);
    // The ktx2 crate reads layerCount 5 of 85 rows; the layers are the plain bake's stored rows, then one zero row.
    let (header, stored) = read_ktx2(&dir.path().join("character-female-a.vat.ktx2"));
    assert_eq!((header.pixel_height, header.layer_count), (85, 5));
    let (_, plain_stored) = read_ktx2(&plain_dir.path().join("character-female-a.vat.ktx2"));
    let width = d["texture"]["width"].as_u64().unwrap() as usize;
    assert_eq!(stored.len(), 5 * 85 * width * 4);
    assert_eq!(stored[..plain_stored.len()], plain_stored[..]);
    assert!(stored[plain_stored.len()..].iter().all(|&v| v == 0));
    verify_passes(&dir.path().join("character-female-a.vat.json"), &model);
    // audit reads the layer's height from the header and finds it the description's.
    let o = vatbake(&["audit", dir.path().join("character-female-a.vat.json").to_str().unwrap()]);
    let text = String::from_utf8_lossy(&o.stdout);
    assert!(!text.contains("texture mismatch") && !text.contains("texture_mismatch"), "{text}");
    // --device mobile bounds it at 4096 rows: no layers for 424.
    let (_, mobile) = bake(&model, &["--device", "mobile"]);
    assert!(mobile["texture"].get("layers").is_none());
    assert_eq!(mobile["settings"]["max_height"], 4096);
    assert_eq!(mobile["settings"]["max_width"], 4096);
}

#[test]
fn gpu_bytes_are_reported_and_a_budget_warns() {
    let model = kenney();
    let out = tempfile::tempdir().unwrap();
    let o = vatbake(&[
        "bake",
        model.to_str().unwrap(),
        "-o",
        out.path().to_str().unwrap(),
        "--json",
        "--max-size",
        "4096x100",
        "--gpu-budget",
        "1MiB",
    ]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let report: Value = serde_json::from_slice(&o.stdout).unwrap();
    let width = report["width"].as_u64().unwrap();
    assert_eq!(report["gpu_bytes"].as_u64().unwrap(), width * 5 * 85 * 8);
    let warning = report["warnings"].as_array().unwrap().iter().find(|w| w["code"] == "gpu-budget").unwrap();
    assert!(warning["message"].as_str().unwrap().contains("more than the budget of 1.0 MiB"), "{warning}");
}

#[test]
fn size_flags_are_checked() {
    let out = tempfile::tempdir().unwrap();
    let model = kenney();
    let run = |flags: &[&str]| {
        let mut args = vec!["bake", model.to_str().unwrap(), "-o", out.path().to_str().unwrap()];
        args.extend_from_slice(flags);
        let o = vatbake(&args);
        (o.status.code(), stderr(&o))
    };
    let (code, message) = run(&["--max-size", "4096"]);
    assert_eq!(code, Some(2));
    assert!(message.contains("\"4096\" is not a size: give WIDTHxHEIGHT in texels"), "{message}");
    let (code, message) = run(&["--max-size", "4096x4096", "--max-width", "2048"]);
    assert_eq!(code, Some(2));
    assert!(message.contains("cannot be used with"), "{message}");
    let (code, message) = run(&["--device", "phone"]);
    assert_eq!(code, Some(2));
    assert!(message.contains("\"phone\" is not a device: give web, mobile or desktop"), "{message}");
    let (code, message) = run(&["--gpu-budget", "lots"]);
    assert_eq!(code, Some(2));
    assert!(message.contains("is not a size in bytes"), "{message}");
    let (code, message) = run(&["--max-size", "4096x100", "--texture-format", "png"]);
    assert_eq!(code, Some(2));
    assert!(message.contains("a PNG cannot hold array layers"), "{message}");
}

#[test]
fn a_roster_takes_the_playback_settings_per_unit_and_reports_gpu_bytes() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::copy(kenney(), dir.path().join("kenney.glb")).unwrap();
    let roster = dir.path().join("roster.toml");
    std::fs::write(
        &roster,
        "output = \"baked\"\n[defaults]\nclips = [\"die\", \"idle\"]\n\n\
         [[unit]]\nname = \"rooted\"\nsource = \"kenney.glb\"\nroot_motion = \"extract,idle=keep\"\nsockets = [\"root\"]\n\n\
         [[unit]]\nname = \"layered\"\nsource = \"kenney.glb\"\nmax_size = \"4096x20\"\n",
    )
    .unwrap();
    let o = vatbake(&["roster", roster.to_str().unwrap(), "--json"]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let report: Value = serde_json::from_slice(&o.stdout).unwrap();
    let read = |name: &str| -> Value {
        serde_json::from_slice(&std::fs::read(dir.path().join(format!("baked/{name}/{name}.vat.json"))).unwrap())
            .unwrap()
    };
    let rooted = read("rooted");
    assert_eq!(rooted["clips"][0]["root_motion"]["mode"], "extract");
    assert!(rooted["clips"][1].get("root_motion").is_none());
    assert_eq!(rooted["sockets"][0]["name"], "root");
    let layered = read("layered");
    let (layers, layer_height) =
        (layered["texture"]["layers"].as_u64().unwrap(), layered["texture"]["layer_height"].as_u64().unwrap());
    assert!(layers > 1 && layer_height <= 20, "{layers} × {layer_height}");
    let unit = report["units"].as_array().unwrap().iter().find(|u| u["name"] == "layered").unwrap();
    let width = layered["texture"]["width"].as_u64().unwrap();
    assert_eq!(unit["gpu_bytes"].as_u64().unwrap(), width * layers * layer_height * 8);
}

#[test]
fn normals_separate_and_none_keep_the_positions_and_read_back() {
    let model = fixture("Fox/Fox.glb");
    let common = ["--points", "all", "--delta", "none"];
    let (plain_dir, _) = bake(&model, &common);
    let (_, packed) = read_ktx2(&plain_dir.path().join("Fox.vat.ktx2"));
    let (dir, d) = bake(&model, &[&common[..], &["--normals", "separate"]].concat());
    assert_eq!(d["settings"]["normals"], "separate");
    assert_eq!(
        d["normals"],
        serde_json::json!({ "mode": "separate", "channel": "rg", "encoding": "octahedral_16_16",
                            "max_error_degrees": 0.004, "first_layer": 1 })
    );
    // The ktx2 crate: two layers of the plain height, positions then normals.
    let (header, stored) = read_ktx2(&dir.path().join("Fox.vat.ktx2"));
    assert_eq!((header.pixel_height, header.layer_count), (162, 2));
    let half = packed.len();
    assert_eq!(stored.len(), 2 * half);
    for (i, (s, p)) in stored[..half].iter().zip(&packed).enumerate() {
        assert_eq!(*s, if i % 4 == 3 { 0 } else { *p }, "texel value {i}");
    }
    // Each separate normal is within 0.96° + 0.004° of the packed one (both encode the same normal).
    let mut worst = 0.0f32;
    for (n16, p) in stored[half..].chunks_exact(4).zip(packed.chunks_exact(4)) {
        if p[0] == 0 && p[1] == 0 && p[2] == 0 && p[3] == 0 {
            continue; // padding
        }
        assert_eq!((n16[2], n16[3]), (0, 0));
        let a = vatbake::shipped::decode_normal16(n16[0], n16[1]);
        let b = vat_bounds::decode_normal(p[3]);
        worst = worst.max(a.cross(b).length().atan2(a.dot(b)).to_degrees());
    }
    assert!(worst > 0.1 && worst <= 0.96 + 0.004, "{worst}");
    verify_passes(&dir.path().join("Fox.vat.json"), &model);
    let o = vatbake(&["inspect", dir.path().join("Fox.vat.json").to_str().unwrap(), "--json"]);
    let inspected: Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(inspected["gpu_bytes"].as_u64().unwrap(), 2 * 162 * 1728 * 8);

    let (dir, d) = bake(&model, &[&common[..], &["--normals", "none"]].concat());
    assert_eq!((d["normals"]["mode"].as_str(), d["normals"]["max_error_degrees"].as_f64()), (Some("none"), Some(0.0)));
    let (header, stored) = read_ktx2(&dir.path().join("Fox.vat.ktx2"));
    assert_eq!(header.layer_count, 0);
    for (i, (s, p)) in stored.iter().zip(&packed).enumerate() {
        assert_eq!(*s, if i % 4 == 3 { 0 } else { *p }, "texel value {i}");
    }
    verify_passes(&dir.path().join("Fox.vat.json"), &model);
    let o = vatbake(&["bake", model.to_str().unwrap(), "-o", dir.path().to_str().unwrap(), "--normals", "flat"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(
        stderr(&o).contains("\"flat\" is not a normals mode: give one of packed, separate, none"),
        "{}",
        stderr(&o)
    );
}
