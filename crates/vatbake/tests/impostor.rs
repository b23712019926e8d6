//! `vatbake impostor`: the sidecar's arithmetic (frames per clip, cells, atlas size,
//! hashes), the atlases read back by other readers (the `ktx2` crate, `zstd`), the
//! unit's own colours in them, the same bytes at any thread count, and the errors a
//! user can fix. Cells are small and frames few: the whole file runs in seconds.

mod common;

use std::path::Path;

use common::{bake, fixture, stderr, vatbake};
use serde_json::Value;
use vatbake::impostor::{impostor, FrameRate, ImpostorOptions, ImpostorSettings};

/// An atlas read with the `ktx2` crate and inflated with `zstd`: (vkFormat, width, height, bytes).
fn atlas(path: &Path) -> (Option<ktx2::Format>, u32, u32, Vec<u8>) {
    let bytes = std::fs::read(path).unwrap();
    let reader = ktx2::Reader::new(&bytes[..]).expect("the ktx2 crate accepts the file");
    let header = reader.header();
    let level = reader.levels().next().unwrap();
    let texels = zstd::decode_all(level.data).unwrap();
    (header.format, header.pixel_width, header.pixel_height, texels)
}

fn small(description: &Path) -> ImpostorSettings {
    let options = ImpostorOptions { views: 4, fps: FrameRate::Fixed(4.0), cell: 16, ..ImpostorOptions::default() };
    ImpostorSettings { options, ..ImpostorSettings::new(description) }
}

#[test]
fn the_fox_is_drawn_from_every_view_in_its_colours_and_the_sidecar_finds_each_cell() {
    let (dir, description) = bake(&fixture("Fox/Fox.glb"), &[]);
    let path = dir.path().join("Fox.vat.json");
    let output = vatbake(&[
        "impostor",
        path.to_str().unwrap(),
        "--views",
        "4",
        "--fps",
        "4",
        "--cell",
        "16",
        "--elevations",
        "0,45",
        "--json",
    ]);
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    let report: Value = serde_json::from_slice(&output.stdout).unwrap();
    let sidecar: Value = serde_json::from_slice(&std::fs::read(dir.path().join("Fox.impostor.json")).unwrap()).unwrap();

    // Survey 3.42 s, Walk 0.71 s, Run 1.16 s at 4 frames per second, all looping:
    // round(13.68) + round(2.84) + round(4.64) = 14 + 3 + 5 frames.
    let frames: Vec<(u64, u64)> = sidecar["clips"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| (c["first_frame"].as_u64().unwrap(), c["frames"].as_u64().unwrap()))
        .collect();
    assert_eq!(frames, [(0, 14), (14, 3), (17, 5)]);
    assert_eq!(sidecar["frames"], 22);
    // 22 frames × (4 azimuths × 2 rings) = 176 cells: 14 columns (⌈√176⌉), 13 rows.
    assert_eq!((report["cells"].as_u64(), report["views"].as_u64()), (Some(176), Some(8)));
    assert_eq!(
        (sidecar["columns"].as_u64(), sidecar["width"].as_u64(), sidecar["height"].as_u64()),
        (Some(14), Some(224), Some(208))
    );
    assert_eq!(report["gpu_bytes"], 2 * 224 * 208 * 4);
    assert_eq!(sidecar["views"]["elevations"], serde_json::json!([0.0, 45.0]));
    // The cell frames the sphere around the recorded bounds, centred on them.
    let half: Vec<f64> =
        description["positions"]["half_extent"].as_array().unwrap().iter().map(|v| v.as_f64().unwrap()).collect();
    let diameter = 2.0 * half.iter().map(|h| h * h).sum::<f64>().sqrt();
    assert!((sidecar["size"].as_f64().unwrap() - diameter).abs() < 1e-3 * diameter);
    assert_eq!(sidecar["pivot"], description["positions"]["center"]);

    // The files it names are there, with the sizes and hashes it records.
    for key in ["colour", "normal"] {
        let file = dir.path().join(sidecar[key]["file"].as_str().unwrap());
        let bytes = std::fs::read(&file).unwrap();
        assert_eq!(sidecar[key]["bytes"].as_u64(), Some(bytes.len() as u64));
        assert_eq!(sidecar[key]["sha256"].as_str().unwrap(), vat_description::sha256_hex(&bytes));
    }
    let (format, width, height, colour) = atlas(&dir.path().join("Fox.impostor.color.ktx2"));
    assert_eq!((format, width, height), (Some(ktx2::Format::R8G8B8A8_SRGB), 224, 208));
    let (format, _, _, normal) = atlas(&dir.path().join("Fox.impostor.normal.ktx2"));
    assert_eq!(format, Some(ktx2::Format::R8G8B8A8_UNORM));

    // Every cell shows the unit: covered texels in each, and none outside the cells.
    let coverage = |c: usize| -> usize {
        let (cx, cy) = (c % 14 * 16, c / 14 * 16);
        (0..16)
            .flat_map(|y| (0..16).map(move |x| ((cy + y) * 224 + cx + x) * 4 + 3))
            .filter(|&a| colour[a] > 127)
            .count()
    };
    let covered: Vec<usize> = (0..176).map(coverage).collect();
    // (Measured: 7 to 33 of the 256 texels of a 16-texel cell.)
    assert!(covered.iter().all(|&n| n >= 5), "a cell without the unit: {covered:?}");
    assert_eq!((176..182).map(coverage).sum::<usize>(), 0, "the cells past the last are empty");
    // Seen from the side (azimuth 90°) the fox is longer than from the front (0°), on
    // the level ring: frame 0's cells 1 and 0.
    assert!(covered[1] > covered[0] + 10, "side {} front {}", covered[1], covered[0]);
    // The fox's texture is orange: over its covered texels red well above blue.
    let (mut red, mut blue, mut n) = (0u64, 0u64, 0u64);
    for texel in colour.chunks_exact(4).filter(|t| t[3] == 255) {
        red += u64::from(texel[0]);
        blue += u64::from(texel[2]);
        n += 1;
    }
    assert!(red > 2 * blue && red / n > 120, "mean red {} blue {}", red / n, blue / n);
    // Normals are unit vectors facing the camera: on the level ring's front view
    // (azimuth 0), z ≥ 0 where the unit is.
    for (texel, alpha) in normal.chunks_exact(4).zip(colour.chunks_exact(4).map(|t| t[3])).take(16 * 224) {
        if alpha == 255 {
            let n: Vec<f32> = texel[..3].iter().map(|&b| f32::from(b) / 127.5 - 1.0).collect();
            let length = (n[0] * n[0] + n[1] * n[1] + n[2] * n[2]).sqrt();
            assert!((length - 1.0).abs() < 0.03, "{n:?}");
        }
    }
}

/// `--fps auto` (the default): each clip the fewest frames that keep every stored pose
/// within `--motion` cell texels (2) of the frame shown at its time, recorded per clip.
#[test]
fn each_clip_gets_the_frames_its_motion_needs() {
    let (dir, _) = bake(&fixture("Fox/Fox.glb"), &[]);
    let path = dir.path().join("Fox.vat.json");
    let options = ImpostorOptions { views: 1, ..ImpostorOptions::default() };
    let report = impostor(&ImpostorSettings { options, ..ImpostorSettings::new(&path) }).unwrap();
    let sidecar: Value = serde_json::from_slice(&std::fs::read(&report.files[0]).unwrap()).unwrap();
    assert_eq!(sidecar["format_version"], 2);
    assert_eq!((sidecar["fps"].clone(), sidecar["motion"].as_f64()), (Value::Null, Some(2.0)));
    let clips: Vec<(String, u64, f64, f64)> = sidecar["clips"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| {
            let name = c["name"].as_str().unwrap().to_string();
            (name, c["frames"].as_u64().unwrap(), c["fps"].as_f64().unwrap(), c["motion"].as_f64().unwrap())
        })
        .collect();
    let summary: Vec<String> =
        clips.iter().map(|(n, f, fps, m)| format!("{n} {f} frames {fps:.2} fps {m:.3} texels")).collect();
    // Survey (the fox looks round, 3.42 s) needs few; Walk and Run (0.71 s and 1.16 s of
    // legs) many, each within 2 texels of its stored rows.
    assert_eq!(
        summary,
        [
            "Survey 18 frames 5.27 fps 1.812 texels",
            "Walk 14 frames 19.76 fps 1.888 texels",
            "Run 26 frames 22.45 fps 1.939 texels"
        ]
    );
    assert_eq!(sidecar["frames"], 18 + 14 + 26);
    // A tighter tolerance: more frames for every clip.
    let options = ImpostorOptions { views: 1, motion: 0.5, ..ImpostorOptions::default() };
    let out = Some(dir.path().join("tight"));
    let report = impostor(&ImpostorSettings { options, out, ..ImpostorSettings::new(&path) }).unwrap();
    let tight: Value = serde_json::from_slice(&std::fs::read(&report.files[0]).unwrap()).unwrap();
    let frames: Vec<u64> = tight["clips"].as_array().unwrap().iter().map(|c| c["frames"].as_u64().unwrap()).collect();
    assert!(frames.iter().zip([18, 14, 26]).all(|(&t, l)| t > l), "{frames:?}");
    // A fixed rate is recorded as asked, each clip's motion still measured.
    let output = vatbake(&["impostor", path.to_str().unwrap(), "--fps", "10", "--views", "1", "--json"]);
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    let fixed: Value = serde_json::from_slice(&std::fs::read(dir.path().join("Fox.impostor.json")).unwrap()).unwrap();
    assert_eq!((fixed["fps"].as_f64(), fixed["motion"].clone()), (Some(10.0), Value::Null));
    assert!(fixed["clips"][2]["motion"].as_f64().unwrap() > 2.0, "{}", fixed["clips"][2]);
    let output = vatbake(&["impostor", path.to_str().unwrap(), "--motion", "0"]);
    assert_eq!(output.status.code(), Some(2), "{}", stderr(&output));
    assert!(stderr(&output).contains("--motion 0: give 0.05 to 64 cell texels"), "{}", stderr(&output));
}

#[test]
fn the_same_bytes_at_any_thread_count() {
    let (dir, _) = bake(&fixture("Kenney-MiniCharacters/character-female-a.glb"), &["--clips", "idle,walk"]);
    let path = dir.path().join("character-female-a.vat.json");
    let run = |threads: usize, out: &str| -> Vec<Vec<u8>> {
        // Each clip's frames chosen by its motion (the default) as well as drawn.
        let mut settings = ImpostorSettings { out: Some(dir.path().join(out)), ..small(&path) };
        settings.options.fps = FrameRate::Auto;
        let pool = rayon::ThreadPoolBuilder::new().num_threads(threads).build().unwrap();
        let report = pool.install(|| impostor(&settings)).unwrap();
        report.files.iter().map(|f| std::fs::read(f).unwrap()).collect()
    };
    let one = run(1, "one");
    assert_eq!(one.len(), 3);
    assert_eq!(run(4, "four"), one);
}

#[test]
fn bad_input_is_a_clear_error_and_writes_nothing() {
    let (dir, _) = bake(&fixture("Fox/Fox.glb"), &["--clips", "Walk"]);
    let path = dir.path().join("Fox.vat.json");
    let run = |extra: &[&str]| {
        let mut args = vec!["impostor", path.to_str().unwrap()];
        args.extend_from_slice(extra);
        let output = vatbake(&args);
        (output.status.code(), stderr(&output))
    };
    let (code, message) = run(&["--fps", "0"]);
    assert_eq!(code, Some(2));
    assert!(message.contains("--fps 0: give auto or 0.5 to 60 frames per second"), "{message}");
    let (code, message) = run(&["--elevations", "45,0"]);
    assert_eq!(code, Some(2));
    assert!(message.contains("lowest first"), "{message}");
    let (code, message) = run(&["--cell", "512", "--fps", "60", "--views", "64"]);
    assert_eq!(code, Some(2));
    assert!(message.contains("more than a 4096 × 4096 atlas holds (64); lower --fps, --cell"), "{message}");

    // A rest mesh whose texture is not an image: the file, the texture and what to do.
    let mesh = dir.path().join("Fox.rest.glb");
    let mut bytes = std::fs::read(&mesh).unwrap();
    let png = bytes.windows(4).position(|w| w == b"\x89PNG").unwrap();
    bytes[png..png + 4].copy_from_slice(b"GIF8");
    std::fs::write(&mesh, &bytes).unwrap();
    let mut description: Value = serde_json::from_slice(&std::fs::read(&path).unwrap()).unwrap();
    description["mesh"]["sha256"] = vat_description::sha256_hex(&bytes).into();
    std::fs::write(&path, serde_json::to_vec_pretty(&description).unwrap()).unwrap();
    let (code, message) = run(&[]);
    assert_eq!(code, Some(3), "an input error: {message}");
    assert!(
        message.contains("Fox.rest.glb: cannot read its base colour (material 0's base colour texture 0 (image 0): image: neither a PNG nor a JPEG)"),
        "{message}"
    );

    // A bone bake holds matrices, not points.
    let (bones, _) = bake(&fixture("Fox/Fox.glb"), &["--mode", "bones", "--clips", "Walk"]);
    let output = vatbake(&["impostor", bones.path().join("Fox.vat.json").to_str().unwrap()]);
    assert_eq!(output.status.code(), Some(2));
    assert!(stderr(&output).contains("a bone bake (--mode bones)"), "{}", stderr(&output));

    for folder in [dir.path(), bones.path()] {
        let written: Vec<_> = std::fs::read_dir(folder)
            .unwrap()
            .filter_map(|e| e.ok()?.file_name().into_string().ok())
            .filter(|n| n.contains("impostor"))
            .collect();
        assert!(written.is_empty(), "{written:?}");
    }
}

#[test]
fn a_roster_makes_each_units_impostor_after_its_bake_and_keeps_it_while_nothing_changed() {
    let dir = tempfile::tempdir().unwrap();
    let roster = dir.path().join("roster.toml");
    let fox = fixture("Fox/Fox.glb");
    std::fs::write(
        &roster,
        format!(
            "output = \"out\"\n[defaults]\nclips = [\"Walk\"]\nimpostor = {{ views = 4, fps = 2, cell = 16 }}\n\
             [[unit]]\nname = \"fox\"\nsource = {fox:?}\n\
             [[unit]]\nname = \"typo\"\nsource = {fox:?}\nimpostor = {{ view = 4 }}\n\
             [[unit]]\nname = \"plain\"\nsource = {fox:?}\nimpostor = false\n"
        ),
    )
    .unwrap();
    let run = || {
        let output = vatbake(&["roster", roster.to_str().unwrap(), "--json"]);
        let report: Value = serde_json::from_slice(&output.stdout).unwrap();
        (output.status.code(), report)
    };
    let (code, report) = run();
    assert_eq!(code, Some(1), "one unit failed");
    let unit = |report: &Value, name: &str| {
        report["units"].as_array().unwrap().iter().find(|u| u["name"] == name).unwrap().clone()
    };
    let fox_unit = unit(&report, "fox");
    assert_eq!(fox_unit["status"], "baked");
    // Walk loops, 0.71 s at 2 fps: round(1.42) = 1 frame × 4 views of 16 texels: 32 × 32 atlases.
    let sidecar_path = dir.path().join("out/fox/fox.impostor.json");
    let sidecar: Value = serde_json::from_slice(&std::fs::read(&sidecar_path).unwrap()).unwrap();
    assert_eq!((sidecar["frames"].as_u64(), sidecar["views"]["azimuths"].as_u64()), (Some(1), Some(4)));
    assert_eq!(fox_unit["impostor_gpu_bytes"], 2 * 32 * 32 * 4);
    let typo = unit(&report, "typo");
    assert_eq!(typo["status"], "failed");
    assert!(
        typo["error"]
            .as_str()
            .unwrap()
            .contains("unit \"typo\": impostor: unknown key \"view\": did you mean \"views\"?"),
        "{typo}"
    );
    assert_eq!(unit(&report, "plain")["impostor_gpu_bytes"], Value::Null);
    assert!(!dir.path().join("out/plain/plain.impostor.json").exists());

    // Nothing changed: the bake is skipped and the impostor kept, byte for byte, not remade.
    let before = std::fs::metadata(&sidecar_path).unwrap().modified().unwrap();
    let (_, again) = run();
    assert_eq!(unit(&again, "fox")["status"], "skipped");
    assert_eq!(unit(&again, "fox")["impostor_gpu_bytes"], 2 * 32 * 32 * 4);
    assert_eq!(std::fs::metadata(&sidecar_path).unwrap().modified().unwrap(), before);
}
