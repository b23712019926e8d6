//! `vatbake verify` and `roster --verify`: a shipped bake decoded and compared with
//! its source; every way a bake can be silently wrong is caught, with the code,
//! the clip and the row named, and exit 1.

mod common;

use std::path::PathBuf;

use common::{fixture, read_ktx2, stderr, vatbake};
use serde_json::Value;
use vatbake::shipped::{self, ShippedFiles};

/// Fox baked into `<tmp>/out` from a copy of its source in `<tmp>` (one folder up
/// from the description, where `verify` looks by default).
struct Baked {
    dir: tempfile::TempDir,
}

impl Baked {
    fn new(extra: &[&str]) -> Self {
        let dir = tempfile::tempdir().unwrap();
        std::fs::copy(fixture("Fox/Fox.glb"), dir.path().join("Fox.glb")).unwrap();
        // Plain texels (--delta none): the tests edit them as a shader reads them
        // (crates/vatbake/tests/delta.rs verifies a delta bake).
        let mut args = vec!["bake", "Fox.glb", "-o", "out", "-q", "--delta", "none"];
        args.extend_from_slice(extra);
        let output = std::process::Command::new(env!("CARGO_BIN_EXE_vatbake"))
            .args(&args)
            .current_dir(dir.path())
            .output()
            .unwrap();
        assert!(output.status.success(), "{}", stderr(&output));
        Baked { dir }
    }
    fn path(&self, name: &str) -> PathBuf {
        self.dir.path().join(name)
    }
    fn description(&self) -> PathBuf {
        self.path("out/Fox.vat.json")
    }
    fn texture(&self) -> PathBuf {
        self.path("out/Fox.vat.ktx2")
    }
    fn json(&self) -> Value {
        serde_json::from_slice(&std::fs::read(self.description()).unwrap()).unwrap()
    }
    fn edit_description(&self, edit: impl FnOnce(&mut Value)) {
        let mut d = self.json();
        edit(&mut d);
        std::fs::write(self.description(), serde_json::to_vec_pretty(&d).unwrap()).unwrap();
    }
    /// Rewrites the texture's texels (as KTX2) and records its new size, so that
    /// only the content is wrong.
    fn edit_texels(&self, edit: impl FnOnce(&mut vat_ktx2::Rgba16Image, &vat_model::Layout)) {
        let files = ShippedFiles::read(&self.description()).unwrap();
        let mut image = files.decode_texture().unwrap();
        edit(&mut image, &shipped::layout_of(&files.description).unwrap());
        let bytes = vat_ktx2::encode_ktx2(&image, &vat_ktx2::Ktx2Options::default()).unwrap();
        std::fs::write(self.texture(), &bytes).unwrap();
        let sha256 = vatbake::description::sha256_hex(&bytes);
        self.edit_description(|d| {
            d["texture"]["bytes"] = bytes.len().into();
            d["texture"]["sha256"] = sha256.into();
        });
    }
    /// `verify --json`: the exit code and the report.
    fn verify(&self, extra: &[&str]) -> (i32, Value) {
        let description = self.description();
        let mut args = vec!["verify", description.to_str().unwrap(), "--json"];
        args.extend_from_slice(extra);
        let output = vatbake(&args);
        let code = output.status.code().unwrap();
        let report = serde_json::from_slice(&output.stdout)
            .unwrap_or_else(|e| panic!("exit {code}, no JSON ({e}): {}", stderr(&output)));
        (code, report)
    }
}

/// The findings' codes, in order.
fn codes(report: &Value) -> Vec<String> {
    report["findings"].as_array().unwrap().iter().map(|f| f["code"].as_str().unwrap().to_string()).collect()
}

/// The message of the first finding with `code`.
fn message<'a>(report: &'a Value, code: &str) -> &'a str {
    report["findings"]
        .as_array()
        .unwrap()
        .iter()
        .find(|f| f["code"] == code)
        .unwrap_or_else(|| panic!("no {code} finding: {report}"))["message"]
        .as_str()
        .unwrap()
}

fn clip<'a>(report: &'a Value, name: &str) -> &'a Value {
    report["clips"].as_array().unwrap().iter().find(|c| c["name"] == name).unwrap()
}

#[test]
fn a_fresh_bake_passes_within_its_precision() {
    for extra in
        [&[][..], &["--points", "600"], &["--max-width", "500"], &["--texture-format", "png"], &["--bits", "12"]]
    {
        let baked = Baked::new(extra);
        if extra.contains(&"png") {
            std::fs::remove_file(baked.path("out/Fox.vat.ktx2")).ok();
        }
        let (code, report) = baked.verify(&[]);
        assert_eq!(code, 0, "{extra:?}: {report}");
        assert_eq!(report["passed"], true);
        assert_eq!(codes(&report), Vec::<String>::new());
        assert!(report["source"].as_str().unwrap().ends_with("out/../Fox.glb"), "{}", report["source"]);
        let d = baked.json();
        let recorded = d["positions"]["precision"].as_f64().unwrap();
        let precision = report["precision"].as_f64().unwrap();
        assert!((precision - recorded).abs() <= 1e-6 * recorded, "{precision} vs {recorded}");
        let decimation = d["decimation"]["max_error"].as_f64().unwrap_or(0.0);
        assert_eq!(report["decimation_error"].as_f64().unwrap(), decimation);
        let tolerance = report["tolerance"].as_f64().unwrap();
        assert!(tolerance >= precision + decimation && tolerance < (precision + decimation) * 1.03);
        let names: Vec<&str> =
            report["clips"].as_array().unwrap().iter().map(|c| c["name"].as_str().unwrap()).collect();
        assert_eq!(names, ["Survey", "Walk", "Run"], "{extra:?}");
        for c in report["clips"].as_array().unwrap() {
            let max = c["max_error"].as_f64().unwrap();
            // Every point is decoded to within half a quantization step (plus float
            // rounding) of the same point evaluated again: the texture is the source.
            assert!(max > 0.0 && max <= recorded * 1.001, "{extra:?} {}: {max} vs precision {recorded}", c["name"]);
            assert!(c["mean_error"].as_f64().unwrap() < max);
            assert!(c["max_normal_error_degrees"].as_f64().unwrap() <= 0.97);
            assert_eq!(c["passed"], true);
        }
        assert_eq!(clip(&report, "Walk")["rows_compared"], 22);
    }
}

#[test]
fn the_text_report_names_the_verdict_and_every_clip() {
    let baked = Baked::new(&[]);
    let output = vatbake(&["verify", baked.description().to_str().unwrap()]);
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    let text = String::from_utf8(output.stdout).unwrap();
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(lines.len(), 4, "{text}");
    assert!(lines[0].starts_with("passed ") && lines[0].contains("3 clips, tolerance 1.56"), "{}", lines[0]);
    assert!(lines[2].contains("\"Walk\"") && lines[2].contains("rows  104..126"), "{}", lines[2]);
}

#[test]
fn a_texture_from_another_bake_is_caught() {
    let baked = Baked::new(&[]);
    // The same shape, the clips in another order: only the content differs.
    let other = Baked::new(&["--clips", "Run,Walk,Survey"]);
    std::fs::copy(other.texture(), baked.texture()).unwrap();
    let (code, report) = baked.verify(&[]);
    assert_eq!(code, 1, "{report}");
    let found = codes(&report);
    assert!(found.contains(&"over-tolerance".to_string()), "{found:?}");
    assert!(message(&report, "over-tolerance").contains("clip \"Survey\""), "{report}");
    assert_eq!(clip(&report, "Survey")["passed"], false);
    // Another shape (24 rows per second): the texture does not fit the description.
    let other = Baked::new(&["--fps", "24"]);
    std::fs::copy(other.texture(), baked.texture()).unwrap();
    let (code, report) = baked.verify(&[]);
    assert_eq!(code, 1);
    assert_eq!(codes(&report), ["texture-bytes", "texture-shape"], "{report}");
    let shape = message(&report, "texture-shape");
    assert!(shape.contains("is 1728×130 texels, the description says 1728×162"), "{shape}");
    assert_eq!(report["clips"], serde_json::json!([]), "nothing to compare");
}

#[test]
fn a_coarser_grid_is_held_to_its_own_precision_only() {
    // --bits 12: cells of 16 steps, and errors up to half a cell, which verify allows
    // because the description records the grid; without the grid the same texels are over.
    let baked = Baked::new(&["--bits", "12"]);
    let d = baked.json();
    assert_eq!(d["positions"]["grid"], serde_json::json!([16, 16, 16]));
    assert_eq!(d["settings"]["bits"], 12);
    let half_step = d["positions"]["half_extent"]
        .as_array()
        .unwrap()
        .iter()
        .map(|h| (h.as_f64().unwrap() / 65535.0).powi(2))
        .sum::<f64>()
        .sqrt();
    let precision = d["positions"]["precision"].as_f64().unwrap();
    assert!((precision - 16.0 * half_step).abs() <= 1e-5 * precision, "{precision} vs 16 × {half_step}");
    let max_error = d["positions"]["max_error"].as_f64().unwrap();
    assert!(max_error > 4.0 * half_step && max_error <= precision, "{max_error}");
    let (_, texels) = read_ktx2(&baked.texture());
    assert!(texels.chunks_exact(4).all(|t| t[..3].iter().all(|&v| v % 16 == 0 || v == 65535)));
    baked.edit_description(|d| {
        let o = d["positions"].as_object_mut().unwrap();
        o.remove("grid");
        o.remove("max_error");
        o["precision"] = half_step.into();
    });
    let (code, report) = baked.verify(&[]);
    assert_eq!(code, 1, "{report}");
    assert_eq!(codes(&report), ["over-tolerance", "over-tolerance", "over-tolerance"], "{report}");
}

#[test]
fn an_edited_description_is_caught() {
    // Bounds moved by 1 model unit on x.
    let baked = Baked::new(&[]);
    baked.edit_description(|d| {
        d["positions"]["center"][0] = (d["positions"]["center"][0].as_f64().unwrap() + 1.0).into()
    });
    let (code, report) = baked.verify(&[]);
    assert_eq!(code, 1);
    assert_eq!(codes(&report), ["bounds", "over-tolerance", "over-tolerance", "over-tolerance"], "{report}");
    for c in report["clips"].as_array().unwrap() {
        let max = c["max_error"].as_f64().unwrap();
        assert!((max - 1.0).abs() < 0.01, "{}: {max}", c["name"]);
    }

    // A rate changed by 10%.
    let baked = Baked::new(&[]);
    baked.edit_description(|d| d["clips"][1]["rate"] = (d["clips"][1]["rate"].as_f64().unwrap() * 1.1).into());
    let (code, report) = baked.verify(&[]);
    assert_eq!(code, 1);
    assert_eq!(codes(&report), ["clips"], "{report}");
    assert!(message(&report, "clips").contains("clip \"Walk\" has rate 32.6"), "{}", message(&report, "clips"));

    // A clip's first row moved down by one: its rows are read one late.
    let baked = Baked::new(&[]);
    baked.edit_description(|d| d["clips"][1]["row"] = 105.into());
    let (code, report) = baked.verify(&[]);
    assert_eq!(code, 1);
    assert_eq!(codes(&report), ["clips", "over-tolerance", "normals"], "{report}");
    assert!(message(&report, "clips").contains("first row 105 where the bake puts it at 104"));
    assert!(message(&report, "over-tolerance")
        .starts_with(&format!("{}: clip \"Walk\" is up to", baked.description().display())));
    assert_eq!(clip(&report, "Survey")["passed"], true);
    assert_eq!(clip(&report, "Walk")["passed"], false);
}

#[test]
fn a_source_changed_since_the_bake_is_caught() {
    let baked = Baked::new(&[]);
    // The same file with one clip renamed: still a valid model, other bytes.
    let bytes = std::fs::read(baked.path("Fox.glb")).unwrap();
    let at = bytes.windows(8).position(|w| w == b"\"Survey\"").unwrap();
    let mut changed = bytes.clone();
    changed[at + 1..at + 7].copy_from_slice(b"Sniff!");
    std::fs::write(baked.path("Fox.glb"), &changed).unwrap();
    let (code, report) = baked.verify(&[]);
    assert_eq!(code, 1);
    assert_eq!(codes(&report), ["source-changed", "clips"], "{report}");
    let changed = message(&report, "source-changed");
    assert!(changed.contains("out/../Fox.glb is not the file that was baked (its SHA-256 differs"), "{changed}");
    assert!(message(&report, "clips").contains("name \"Survey\" where the source has \"Sniff!\""));
    // The motion itself is unchanged: every clip is still within tolerance.
    assert!(report["clips"].as_array().unwrap().iter().all(|c| c["passed"] == true));

    // --source names the file to compare with: the original passes.
    let (code, report) = baked.verify(&["--source", fixture("Fox/Fox.glb").to_str().unwrap()]);
    assert_eq!((code, codes(&report)), (0, vec![]));
}

#[test]
fn a_truncated_or_bit_flipped_texture_is_a_finding_not_a_crash() {
    let baked = Baked::new(&[]);
    let bytes = std::fs::read(baked.texture()).unwrap();
    std::fs::write(baked.texture(), &bytes[..bytes.len() / 2]).unwrap();
    let (code, report) = baked.verify(&[]);
    assert_eq!(code, 1);
    assert_eq!(codes(&report), ["texture-bytes", "texture-unreadable"], "{report}");
    assert!(message(&report, "texture-unreadable").contains("Fox.vat.ktx2: the texture cannot be decoded"));

    // One bit flipped in the middle of the Zstandard frame.
    let mut flipped = bytes.clone();
    flipped[bytes.len() / 2] ^= 0x10;
    std::fs::write(baked.texture(), &flipped).unwrap();
    let (code, report) = baked.verify(&[]);
    assert_eq!(code, 1, "{report}");
    // The description's SHA-256 of the texture finds it first; the frame's own
    // checksum then stops the decode before any texel is used.
    assert_eq!(codes(&report), ["texture-sha256", "texture-unreadable"], "{report}");
    assert!(message(&report, "texture-sha256").contains("Fox.vat.ktx2: the texture's SHA-256 is not the one"));
    assert!(message(&report, "texture-unreadable").ends_with("Restored data doesn't match checksum"), "{report}");
}

#[test]
fn the_bind_pose_in_every_row_is_caught() {
    let baked = Baked::new(&[]);
    let rest = shipped::read_rest_mesh(&baked.path("out/Fox.rest.glb")).unwrap();
    let files = ShippedFiles::read(&baked.description()).unwrap();
    let bounds = shipped::bounds_of(&files.description);
    let columns = shipped::columns_of(&rest, files.description.points as usize).unwrap();
    baked.edit_texels(|image, layout| {
        for row in 0..layout.rows {
            for point in 0..layout.points {
                // In the point's own column, as the rest mesh's TEXCOORD_1 names it.
                let (x, y) = layout.texel(columns.column(point), row);
                let at = (y * layout.width + x) * 4;
                let [r, g, b] = vat_bounds::encode_position(rest.positions[point], &bounds);
                image.texels[at..at + 4].copy_from_slice(&[r, g, b, vat_bounds::encode_normal(rest.normals[point])]);
            }
        }
    });
    let (code, report) = baked.verify(&[]);
    assert_eq!(code, 1);
    assert_eq!(
        codes(&report),
        [
            "over-tolerance",
            "normals",
            "frozen-clip",
            "over-tolerance",
            "normals",
            "frozen-clip",
            "over-tolerance",
            "normals",
            "frozen-clip",
            "rest-pose"
        ],
        "{report}"
    );
    assert!(message(&report, "rest-pose").contains("every row of"), "{report}");
    assert!(message(&report, "frozen-clip")
        .contains("clip \"Survey\": all its 104 rows (texture rows 0..104) hold one pose"));
}

#[test]
fn a_clip_frozen_on_its_first_row_is_caught() {
    let baked = Baked::new(&[]);
    // Walk (rows 104..126): every row a copy of its first.
    baked.edit_texels(|image, layout| {
        let row_len = layout.width * 4;
        let first = image.texels[104 * row_len..105 * row_len].to_vec();
        for row in 105..126 {
            image.texels[row * row_len..(row + 1) * row_len].copy_from_slice(&first);
        }
    });
    let (code, report) = baked.verify(&[]);
    assert_eq!(code, 1);
    assert_eq!(codes(&report), ["over-tolerance", "normals", "frozen-clip"], "{report}");
    assert!(message(&report, "frozen-clip").contains("clip \"Walk\": all its 22 rows (texture rows 104..126)"));
    assert_eq!(clip(&report, "Survey")["passed"], true);
    assert_eq!(clip(&report, "Run")["passed"], true);
    assert_eq!(clip(&report, "Walk")["passed"], false);
    let worst = clip(&report, "Walk")["worst_row"].as_u64().unwrap();
    assert!((105..126).contains(&worst), "{worst}");
}

#[test]
fn what_stops_verify_is_an_error_with_its_exit_code() {
    let dir = tempfile::tempdir().unwrap();
    let garbage = dir.path().join("x.vat.json");
    std::fs::write(&garbage, b"{\"format\": \"something else\"}").unwrap();
    let output = vatbake(&["verify", garbage.to_str().unwrap()]);
    assert_eq!(output.status.code(), Some(2), "{}", stderr(&output));
    assert!(stderr(&output).contains("x.vat.json: not a vatbake description (its format is Some(\"something else\")"));

    // The bake without its source: exit 3, and the way out.
    let baked = Baked::new(&[]);
    std::fs::remove_file(baked.path("Fox.glb")).unwrap();
    let output = vatbake(&["verify", baked.description().to_str().unwrap()]);
    assert_eq!(output.status.code(), Some(3), "{}", stderr(&output));
    assert!(
        stderr(&output).contains(
            "its source Fox.glb is not at ../Fox.glb (where the bake recorded it), beside it or one folder up; \
             pass --source MODEL"
        ),
        "{}",
        stderr(&output)
    );
}

/// The README's path: `bake fixtures/Fox/Fox.glb -o out/` from the repository's root,
/// then `verify out/Fox.vat.json` and `audit out/`. The description records where the
/// source is from its folder; without that record (older files) the readers look
/// beside it and one folder up, as before.
#[test]
fn verify_and_audit_find_the_source_where_the_bake_recorded_it() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::create_dir_all(dir.path().join("fixtures/Fox")).unwrap();
    std::fs::copy(fixture("Fox/Fox.glb"), dir.path().join("fixtures/Fox/Fox.glb")).unwrap();
    let run = |args: &[&str]| {
        std::process::Command::new(env!("CARGO_BIN_EXE_vatbake")).args(args).current_dir(dir.path()).output().unwrap()
    };
    let o = run(&["bake", "fixtures/Fox/Fox.glb", "-o", "out/", "-q"]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let json = dir.path().join("out/Fox.vat.json");
    let mut description: Value = serde_json::from_slice(&std::fs::read(&json).unwrap()).unwrap();
    assert_eq!(description["source"]["path"], "../fixtures/Fox/Fox.glb");
    let o = run(&["verify", "out/Fox.vat.json"]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let stdout = String::from_utf8_lossy(&o.stdout);
    assert!(stdout.starts_with("passed out/Fox.vat.json against out/../fixtures/Fox/Fox.glb: 3 clips"), "{stdout}");
    let o = run(&["audit", "out/"]);
    assert_eq!(o.status.code(), Some(0), "{}", String::from_utf8_lossy(&o.stdout));
    assert!(String::from_utf8_lossy(&o.stdout).starts_with("audit: 1 unit, no findings"));

    // A description without the record: the old lookup, and its message.
    description["source"].as_object_mut().unwrap().remove("path");
    std::fs::write(&json, serde_json::to_vec_pretty(&description).unwrap()).unwrap();
    let o = run(&["verify", "out/Fox.vat.json"]);
    assert_eq!(o.status.code(), Some(3), "{}", stderr(&o));
    assert_eq!(
        stderr(&o),
        "error: out/Fox.vat.json: its source Fox.glb is not beside it or one folder up; pass --source MODEL\n"
    );
    // A record that is not a plain relative path ending in the file's name is ignored.
    description["source"]["path"] = "/etc/Fox.glb".into();
    std::fs::write(&json, serde_json::to_vec_pretty(&description).unwrap()).unwrap();
    assert_eq!(run(&["verify", "out/Fox.vat.json"]).status.code(), Some(3));
    std::fs::copy(fixture("Fox/Fox.glb"), dir.path().join("Fox.glb")).unwrap();
    assert_eq!(run(&["verify", "out/Fox.vat.json"]).status.code(), Some(0), "one folder up");
}

#[test]
fn roster_verify_fails_the_broken_unit_alone() {
    let dir = tempfile::tempdir().unwrap();
    let roster = dir.path().join("roster.toml");
    let fox = fixture("Fox/Fox.glb");
    let simple = fixture("RiggedSimple/rigged-simple.gltf");
    std::fs::write(
        &roster,
        format!(
            "output = \"out\"\n[[unit]]\nname = \"fox\"\nsource = {:?}\n[[unit]]\nname = \"simple\"\nsource = {:?}\n\
             [[unit]]\nname = \"fox2\"\nsource = {:?}\npoints = 500\n",
            fox.to_str().unwrap(),
            simple.to_str().unwrap(),
            fox.to_str().unwrap()
        ),
    )
    .unwrap();
    let roster = roster.to_str().unwrap();
    let output = vatbake(&["roster", roster, "-q"]);
    assert!(output.status.success(), "{}", stderr(&output));
    let output = vatbake(&["roster", roster, "--verify", "--json"]);
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    let report: Value = serde_json::from_slice(&output.stdout).unwrap();
    assert_eq!((&report["passed"], &report["failed"], &report["errors"]), (&3.into(), &0.into(), &0.into()));

    // fox2's texture truncated, simple's description gone.
    let texture = dir.path().join("out/fox2/fox2.vat.ktx2");
    let bytes = std::fs::read(&texture).unwrap();
    std::fs::write(&texture, &bytes[..100]).unwrap();
    std::fs::remove_file(dir.path().join("out/simple/simple.vat.json")).unwrap();
    let output = vatbake(&["roster", roster, "--verify", "--json"]);
    assert_eq!(output.status.code(), Some(1));
    let report: Value = serde_json::from_slice(&output.stdout).unwrap();
    let statuses: Vec<(&str, &str)> = report["units"]
        .as_array()
        .unwrap()
        .iter()
        .map(|u| (u["name"].as_str().unwrap(), u["status"].as_str().unwrap()))
        .collect();
    assert_eq!(statuses, [("fox", "passed"), ("fox2", "failed"), ("simple", "error")]);
    assert!(stderr(&output).contains("unit \"simple\" has no bake"), "{}", stderr(&output));
    let fox2 = &report["units"][1]["report"];
    assert_eq!(codes(fox2), ["texture-bytes", "texture-unreadable"]);

    // --verify bakes nothing and cannot be mixed with --check or --force.
    let output = vatbake(&["roster", roster, "--verify", "--force"]);
    assert_eq!(output.status.code(), Some(2));
}

/// `--format vat3`: the description records its five files; verify passes them, then
/// reports one finding per file deleted, resized or edited, with exit 1; inspect lists them.
#[test]
fn a_format_file_missing_resized_or_edited_is_a_finding() {
    let baked = Baked::new(&["--format", "vat3"]);
    let (code, report) = baked.verify(&[]);
    assert_eq!((code, codes(&report).len()), (0, 0), "{report}");
    let recorded = baked.json()["exports"].clone();
    let names: Vec<&str> = recorded.as_array().unwrap().iter().map(|e| e["file"].as_str().unwrap()).collect();
    assert_eq!(names, ["Fox_data.json", "Fox_pos.exr", "Fox_rot.exr", "Fox_col.exr", "Fox_mesh.glb"]);

    std::fs::remove_file(baked.path("out/Fox_rot.exr")).unwrap();
    let data = baked.path("out/Fox_data.json");
    let mut text = std::fs::read(&data).unwrap();
    text.push(b'\n');
    std::fs::write(&data, &text).unwrap();
    let pos = baked.path("out/Fox_pos.exr");
    let mut exr = std::fs::read(&pos).unwrap();
    let last = exr.len() - 1;
    exr[last] ^= 1;
    std::fs::write(&pos, &exr).unwrap();

    let (code, report) = baked.verify(&[]);
    assert_eq!(code, 1, "{report}");
    assert_eq!(codes(&report), ["export-bytes", "export-sha256", "export-missing"], "{report}");
    let bytes = recorded[0]["bytes"].as_u64().unwrap();
    let resized = message(&report, "export-bytes");
    assert!(
        resized.ends_with(&format!(
            "Fox_data.json: {} bytes, the description says {bytes}: edited, or written by another bake",
            bytes + 1
        )),
        "{resized}"
    );
    assert!(
        message(&report, "export-sha256").contains("Fox_pos.exr: its SHA-256 is not the one the description records")
    );
    assert!(
        message(&report, "export-missing").contains("Fox_rot.exr: cannot read the export file the description records")
    );

    let output = vatbake(&["inspect", baked.description().to_str().unwrap()]);
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    let text = String::from_utf8(output.stdout).unwrap();
    let lines: Vec<&str> = text.lines().filter(|l| l.starts_with("  export")).collect();
    assert_eq!(lines.len(), 5, "{text}");
    assert!(lines[0].starts_with("  export    Fox_data.json ") && lines[0].contains(" on disk"), "{}", lines[0]);
    assert!(!lines[1].contains(" — "), "same size, other bytes: {}", lines[1]);
    assert!(lines[2].starts_with("  export    Fox_rot.exr ") && lines[2].ends_with(" — missing"), "{}", lines[2]);
    let output = vatbake(&["inspect", baked.description().to_str().unwrap(), "--json"]);
    let json: Value = serde_json::from_slice(&output.stdout).unwrap();
    assert_eq!(json["exports"][2]["file"], "Fox_rot.exr");
    assert_eq!(json["exports"][2]["on_disk"], Value::Null);
    assert_eq!(json["exports"][0]["on_disk"], bytes + 1);
    assert_eq!(json["exports"][1]["sha256"], recorded[1]["sha256"]);
}

/// A file a bake of this name writes but the description does not record (an earlier
/// bake's `--target unity` EXR, the texture in the other format) is a finding.
#[test]
fn a_file_from_an_earlier_bake_beside_the_description_is_a_finding() {
    let baked = Baked::new(&[]);
    let (code, report) = baked.verify(&[]);
    assert_eq!((code, codes(&report)), (0, Vec::<String>::new()), "{report}");
    std::fs::write(baked.path("out/Fox-unity.exr"), b"an earlier bake's").unwrap();
    std::fs::write(baked.path("out/Fox.vat.png"), b"an earlier bake's").unwrap();
    std::fs::write(baked.path("out/Fox.notes.txt"), b"not a bake's").unwrap();
    let (code, report) = baked.verify(&[]);
    assert_eq!(code, 1, "{report}");
    assert_eq!(codes(&report), ["unrecorded-file", "unrecorded-file"]);
    let first = report["findings"][0]["message"].as_str().unwrap();
    assert_eq!(
        first,
        format!(
            "{}: a file a bake of this name writes, but {} does not record it: left by an earlier bake, out of step \
             with this one; delete it or re-bake",
            baked.path("out").join("Fox.vat.png").display(),
            baked.description().display()
        )
    );
}

/// A rest mesh an optimizer rewrote: its tool named by its generator (not "another bake"),
/// and vertices that no longer read the columns the bake gave them named as re-ordered.
#[test]
fn a_rewritten_rest_mesh_is_named_by_what_was_done_to_it() {
    let baked = Baked::new(&[]);
    let mesh = baked.path("out/Fox.rest.glb");
    let mut bytes = std::fs::read(&mesh).unwrap();
    let json_length = u32::from_le_bytes(bytes[12..16].try_into().unwrap()) as usize;
    let json: Value = serde_json::from_slice(&bytes[20..20 + json_length]).unwrap();
    // Vertex 0 and vertex 1 trade their column uvs (TEXCOORD_1: two floats each).
    let accessor =
        &json["accessors"][json["meshes"][0]["primitives"][0]["attributes"]["TEXCOORD_1"].as_u64().unwrap() as usize];
    let view = &json["bufferViews"][accessor["bufferView"].as_u64().unwrap() as usize];
    let bin = 20 + json_length + 8;
    let at =
        bin + view["byteOffset"].as_u64().unwrap_or(0) as usize + accessor["byteOffset"].as_u64().unwrap_or(0) as usize;
    let (first, second) = bytes[at..at + 16].split_at_mut(8);
    first.swap_with_slice(second);
    std::fs::write(&mesh, &bytes).unwrap();
    let (code, report) = baked.verify(&[]);
    assert_eq!(code, 1);
    assert_eq!(codes(&report), ["mesh-sha256", "rest-mesh"]);
    assert!(message(&report, "mesh-sha256").ends_with("the files are from different bakes"), "{report}");
    let reordered = message(&report, "rest-mesh");
    assert!(reordered.contains(": vertex 0 reads texture column "), "{reordered}");
    assert!(
        reordered.ends_with(
            ": its vertices were re-ordered or its column uv (TEXCOORD_1) rewritten since the bake (an optimizer's \
             reorder or weld: docs/PLAYBACK.md, \"Optimizers\")"
        ),
        "{reordered}"
    );
    // Another tool's generator, of the same length so that no offset moves.
    let generator = json["asset"]["generator"].as_str().unwrap().to_string();
    let other = format!("{:<1$}", "Optimizer 9", generator.len());
    let at = bytes.windows(generator.len()).position(|w| w == generator.as_bytes()).unwrap();
    bytes[at..at + generator.len()].copy_from_slice(other.as_bytes());
    std::fs::write(&mesh, &bytes).unwrap();
    let (_, report) = baked.verify(&[]);
    assert!(
        message(&report, "mesh-sha256").contains(&format!(
            "the rest mesh's SHA-256 is not the one its description records: {other} rewrote it after the bake (an \
             optimizer: docs/PLAYBACK.md, \"Optimizers\", says which options keep the column uv)"
        )),
        "{report}"
    );
}
