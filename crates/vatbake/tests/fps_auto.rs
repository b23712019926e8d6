//! `--fps auto`: each clip's rows chosen by the error of the interpolation between them
//! (docs/CLI.md, "Rows chosen by error"). The figures are the fixtures' own, exact: a
//! held pose takes one row, a fast clip up to 60 rows per second; the same bytes at any
//! thread count; `verify` checks the times between rows, of a vertex or a bone bake, and
//! catches a record that lies.

mod common;

use common::{bake, fixture, stderr, vatbake};
use serde_json::Value;

/// Each clip's (name, rows, chosen fps) in a description.
fn clip_rows(description: &Value) -> Vec<(String, u64, f64)> {
    description["clips"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| {
            let fps = c["auto_rate"]["fps"].as_f64().unwrap_or(f64::NAN);
            (c["name"].as_str().unwrap().to_string(), c["rows"].as_u64().unwrap(), fps)
        })
        .collect()
}

#[test]
fn a_held_pose_takes_one_row_and_a_walk_keeps_its_rows() {
    let model = fixture("Kenney-PlatformerCharacter/character.glb");
    let (_fixed, fixed) = bake(&model, &[]);
    let (_auto, auto) = bake(&model, &["--fps", "auto"]);
    let rows = |d: &Value| clip_rows(d).iter().map(|(name, rows, _)| (name.clone(), *rows)).collect::<Vec<_>>();
    let named = |list: &[(&str, u64)]| list.iter().map(|&(n, r)| (n.to_string(), r)).collect::<Vec<_>>();
    // At 30 rows per second: round(duration × 30) + 1 each.
    assert_eq!(rows(&fixed), named(&[("static", 4), ("idle", 21), ("walk", 14), ("jump", 16)]));
    // auto: the held pose (0.1 s, no motion) is one row at 1 row per second; the idle
    // breathes slowly (9 rows per second); the walk needs the rows 30 per second gives.
    assert_eq!(rows(&auto), named(&[("static", 1), ("idle", 7), ("walk", 14), ("jump", 8)]));
    let fps: Vec<f64> = clip_rows(&auto).iter().map(|c| c.2).collect();
    assert_eq!(fps, [1.0, 9.0, 29.0, 13.0]);
    assert_eq!((fixed["rows"].as_u64(), auto["rows"].as_u64()), (Some(55), Some(30)));
    // The record: the tolerance, the ceiling, and each clip's error within it.
    assert_eq!(auto["settings"]["fps"].as_f64(), Some(60.0));
    let tolerance = auto["settings"]["fps_tolerance"].as_f64().unwrap();
    assert_eq!(tolerance as f32, vatbake::settings::DEFAULT_FPS_TOLERANCE);
    let half = auto["positions"]["half_extent"].as_array().unwrap().iter().map(|v| v.as_f64().unwrap());
    let diagonal = 2.0 * half.map(|h| h * h).sum::<f64>().sqrt();
    for clip in auto["clips"].as_array().unwrap() {
        let error = clip["auto_rate"]["max_error"].as_f64().unwrap();
        // Within the tolerance of the 60 Hz poses' diagonal (the bounds of the rows are
        // a little smaller than that box, hence the margin).
        assert!(error <= tolerance * diagonal * 1.05, "{clip}");
    }
    assert!(fixed["settings"].get("fps_tolerance").is_none());
    assert!(fixed["clips"][0].get("auto_rate").is_none());
}

#[test]
fn a_fast_clip_takes_up_to_sixty_rows_per_second() {
    let (_out, auto) = bake(&fixture("Fox/Fox.glb"), &["--fps", "auto"]);
    // Survey (a slow look around) falls to 12 rows per second; Walk needs 48; Run is not
    // within even at 60, which it gets (its recorded error says by how much).
    let expected = [("Survey", 42, 12.0), ("Walk", 35, 48.0), ("Run", 70, 60.0)];
    let expected: Vec<(String, u64, f64)> = expected.iter().map(|&(n, r, f)| (n.to_string(), r, f)).collect();
    assert_eq!(clip_rows(&auto), expected);
    assert_eq!(auto["rows"].as_u64(), Some(147));
    // A looser tolerance, fewer rows.
    let (_loose, loose) = bake(&fixture("Fox/Fox.glb"), &["--fps", "auto", "--fps-tolerance", "0.01"]);
    assert!(loose["rows"].as_u64().unwrap() < 147, "{}", loose["rows"]);
}

#[test]
fn the_same_bytes_at_any_thread_count() {
    let model = fixture("Kenney-MiniCharacters/character-female-a.glb");
    let files = |threads: &str| {
        let (out, d) = bake(&model, &["--fps", "auto", "--threads", threads]);
        let read = |suffix: &str| std::fs::read(out.path().join(format!("character-female-a{suffix}"))).unwrap();
        (read(".vat.json"), read(".vat.ktx2"), read(".rest.glb"), d)
    };
    let (one, many) = (files("1"), files("4"));
    assert!(one.0 == many.0 && one.1 == many.1 && one.2 == many.2, "an --fps auto bake differs by thread count");
    // The held poses take one row, the sprint more than 30 per second gave it.
    let rows = clip_rows(&one.3);
    let of = |name: &str| rows.iter().find(|c| c.0 == name).unwrap().1;
    assert_eq!((of("crouch"), of("sit"), of("static")), (1, 1, 1));
    assert_eq!((of("idle"), of("sprint")), (13, 31));
}

/// For a vertex bake, and for a bone bake in either encoding (its rows are matrices: the
/// bind pose skinned by each of two rows' and interpolated, as `@vatbake/three` plays it).
#[test]
fn verify_checks_the_times_between_rows() {
    for mode in [&[][..], &["--mode", "bones"], &["--mode", "bones", "--bone-encoding", "quat16"]] {
        let (out, _) = bake(&fixture("Fox/Fox.glb"), &[&["--fps", "auto"], mode].concat());
        let description = out.path().join("Fox.vat.json");
        let source = fixture("Fox/Fox.glb");
        let run = || {
            let o = vatbake(&["verify", description.to_str().unwrap(), "--source", source.to_str().unwrap(), "--json"]);
            (o.status.code(), serde_json::from_slice::<Value>(&o.stdout).unwrap_or_else(|_| panic!("{}", stderr(&o))))
        };
        let (code, report) = run();
        assert_eq!(code, Some(0), "{mode:?}: {report}");
        let d: Value = serde_json::from_slice(&std::fs::read(&description).unwrap()).unwrap();
        assert_eq!(d["bones"].is_object(), !mode.is_empty());
        for (check, clip) in report["clips"].as_array().unwrap().iter().zip(d["clips"].as_array().unwrap()) {
            // Every 1/60 s that is not on a row.
            assert!(check["off_row_times"].as_u64().unwrap() > 0, "{mode:?}: {check}");
            let decoded = check["off_row_max_error"].as_f64().unwrap();
            let recorded = clip["auto_rate"]["max_error"].as_f64().unwrap();
            // The decoded rows are quantized: within the bake's record and one precision.
            assert!(decoded <= recorded + report["tolerance"].as_f64().unwrap(), "{mode:?}: {check} {clip}");
            assert!(decoded > 0.5 * recorded, "{mode:?}: {check} {clip}");
        }
        // A record that claims less than the rows give is caught, clip and time named.
        let mut edited = d.clone();
        edited["clips"][1]["auto_rate"]["max_error"] = serde_json::json!(0.001);
        std::fs::write(&description, serde_json::to_vec_pretty(&edited).unwrap()).unwrap();
        let (code, report) = run();
        assert_eq!(code, Some(1), "{mode:?}: {report}");
        let findings = report["findings"].as_array().unwrap();
        let codes: Vec<&str> = findings.iter().map(|f| f["code"].as_str().unwrap()).collect();
        assert_eq!(codes, ["off-row"], "{mode:?}");
        let message = findings[0]["message"].as_str().unwrap();
        assert!(message.contains("clip \"Walk\" plays up to"), "{message}");
        assert!(message.contains("its bake recorded 1.0000e-3 for its 48 rows/s (--fps auto)"), "{message}");
    }
}

#[test]
fn a_roster_key_and_the_way_back() {
    // The roster's key is the flag's: `fps = "auto"` and `fps_tolerance`.
    let options: vatbake::BakeOptions = toml::from_str("fps = \"auto\"\nfps_tolerance = 0.01").unwrap();
    assert_eq!((options.fps, options.fps_tolerance), (Some(vatbake::settings::Fps::Auto), Some(0.01)));
    let options: vatbake::BakeOptions = toml::from_str("fps = 24").unwrap();
    assert_eq!(options.fps, Some(vatbake::settings::Fps::Rate(24.0)));
    let error = toml::from_str::<vatbake::BakeOptions>("fps = \"fast\"").unwrap_err().to_string();
    assert!(error.contains("\"fast\" is not a rate: give rows per second (e.g. 30) or \"auto\""), "{error}");
}
