//! `vatbake preview` and `roster --preview`: facts of the pictures, read back from the
//! PNG bytes: each frame's silhouette where the decoded points project, moving clips
//! drawn moving and frozen ones frozen, a turned unit drawn turned, the same bytes
//! every time, and the errors a user can fix.

mod common;

use std::path::{Path, PathBuf};

use common::{fixture, stderr, vatbake};
use serde_json::Value;
use vatbake::shipped::{self, Shipped, ShippedFiles};

/// Fox baked into `<tmp>/out`.
struct Baked {
    dir: tempfile::TempDir,
}

impl Baked {
    fn new() -> Self {
        let dir = tempfile::tempdir().unwrap();
        let out = dir.path().join("out");
        // Plain texels (--delta none): the tests edit them as a shader reads them.
        let output = vatbake(&[
            "bake",
            fixture("Fox/Fox.glb").to_str().unwrap(),
            "-o",
            out.to_str().unwrap(),
            "-q",
            "--delta",
            "none",
        ]);
        assert!(output.status.success(), "{}", stderr(&output));
        Baked { dir }
    }
    fn path(&self, name: &str) -> PathBuf {
        self.dir.path().join(name)
    }
    fn description(&self) -> PathBuf {
        self.path("out/Fox.vat.json")
    }
    /// Rewrites the texels and the description together.
    fn edit(&self, edit: impl FnOnce(&mut vat_ktx2::Rgba16Image, &vat_model::Layout, &mut Value)) {
        let files = ShippedFiles::read(&self.description()).unwrap();
        let mut image = files.decode_texture().unwrap();
        let mut d: Value = serde_json::from_slice(&std::fs::read(self.description()).unwrap()).unwrap();
        edit(&mut image, &shipped::layout_of(&files.description).unwrap(), &mut d);
        let bytes = vat_ktx2::encode_ktx2(&image, &vat_ktx2::Ktx2Options::default()).unwrap();
        std::fs::write(self.path("out/Fox.vat.ktx2"), &bytes).unwrap();
        d["texture"]["bytes"] = bytes.len().into();
        std::fs::write(self.description(), serde_json::to_vec_pretty(&d).unwrap()).unwrap();
    }
    /// `preview --json` into `name`: the report and the decoded sheet.
    fn preview(&self, name: &str, extra: &[&str]) -> (Value, Picture) {
        let sheet = self.path(name);
        let mut args: Vec<String> = vec!["preview".into(), self.description().to_str().unwrap().into(), "-o".into()];
        args.push(sheet.to_str().unwrap().into());
        args.extend(extra.iter().map(|s| s.to_string()));
        args.push("--json".into());
        let args: Vec<&str> = args.iter().map(String::as_str).collect();
        let output = vatbake(&args);
        assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
        let report: Value = serde_json::from_slice(&output.stdout).unwrap();
        (report, Picture::read(&sheet))
    }
}

/// An RGBA8 picture read with the png crate.
struct Picture {
    width: u32,
    height: u32,
    pixels: Vec<u8>,
}

impl Picture {
    fn read(path: &Path) -> Self {
        let decoder = png::Decoder::new(std::io::BufReader::new(std::fs::File::open(path).unwrap()));
        let mut reader = decoder.read_info().unwrap();
        let mut pixels = vec![0; reader.output_buffer_size().unwrap()];
        let info = reader.next_frame(&mut pixels).unwrap();
        assert_eq!((info.color_type, info.bit_depth), (png::ColorType::Rgba, png::BitDepth::Eight));
        pixels.truncate(info.buffer_size());
        Picture { width: info.width, height: info.height, pixels }
    }
    fn pixel(&self, x: u32, y: u32) -> [u8; 4] {
        let at = ((y * self.width + x) * 4) as usize;
        self.pixels[at..at + 4].try_into().unwrap()
    }
    /// A cell's pixels.
    fn cell(&self, cell: &Value) -> Vec<[u8; 4]> {
        let (x, y, w, h) = rect(cell);
        (y..y + h).flat_map(|yy| (x..x + w).map(move |xx| (xx, yy))).map(|(xx, yy)| self.pixel(xx, yy)).collect()
    }
    /// The box around a cell's shaded pixels (the unit is drawn blue; the frame lines,
    /// ground and background are grey or white), in cell coordinates, inclusive.
    fn silhouette(&self, cell: &Value) -> Option<[u32; 4]> {
        let (x0, y0, w, h) = rect(cell);
        let mut found: Option<[u32; 4]> = None;
        for y in 0..h {
            for x in 0..w {
                let [r, _, b, _] = self.pixel(x0 + x, y0 + y);
                if b as i32 - r as i32 > 24 {
                    let f = found.get_or_insert([x, y, x, y]);
                    *f = [f[0].min(x), f[1].min(y), f[2].max(x), f[3].max(y)];
                }
            }
        }
        found
    }
}

fn rect(cell: &Value) -> (u32, u32, u32, u32) {
    let n = |k: &str| cell[k].as_u64().unwrap() as u32;
    (n("x"), n("y"), n("width"), n("height"))
}

fn cells<'a>(report: &'a Value, clip: &str) -> Vec<&'a Value> {
    report["cells"].as_array().unwrap().iter().filter(|c| c["clip"] == clip).collect()
}

/// The box the decoded points of `row` project to, by the sheet's camera.
fn projected(shipped: &Shipped, row: usize, view: vat_preview::View, w: u32, h: u32) -> [f32; 4] {
    let d = &shipped.description;
    let bounds = vat_preview::Bounds::from_center_half_extent(d.positions.center, d.positions.half_extent);
    let camera = vat_preview::Camera::framing(&bounds, view, w, h).unwrap();
    shipped.positions(row).iter().fold([f32::MAX, f32::MAX, f32::MIN, f32::MIN], |b, p| {
        let [x, y, _] = camera.project(p.to_array());
        [b[0].min(x), b[1].min(y), b[2].max(x), b[3].max(y)]
    })
}

#[test]
fn every_frame_is_drawn_where_its_decoded_points_project() {
    let baked = Baked::new();
    let shipped = Shipped::open(&baked.description()).unwrap();
    for (view, name) in [(vat_preview::View::Front, "front"), (vat_preview::View::Side, "side")] {
        let (report, picture) = baked.preview(&format!("{name}.png"), &["--view", name, "--size", "200x150"]);
        assert_eq!(report["sheet_size"], serde_json::json!([picture.width, picture.height]));
        assert_eq!(report["cells"].as_array().unwrap().len(), 18, "3 clips × 6 frames");
        for cell in report["cells"].as_array().unwrap() {
            let row = cell["row"].as_u64().unwrap() as usize;
            let drawn = picture.silhouette(cell).unwrap_or_else(|| panic!("{name} row {row}: nothing drawn"));
            let want = projected(&shipped, row, view, 200, 150);
            for k in 0..4 {
                assert!(
                    (drawn[k] as f32 - want[k]).abs() <= 2.0,
                    "{name} row {row}: silhouette {drawn:?}, the points project to {want:?}"
                );
            }
        }
    }
}

#[test]
fn moving_clips_differ_frame_to_frame_and_a_frozen_clip_does_not() {
    let baked = Baked::new();
    let (report, picture) = baked.preview("moving.png", &[]);
    for clip in ["Survey", "Walk", "Run"] {
        let frames: Vec<Vec<[u8; 4]>> = cells(&report, clip).iter().map(|c| picture.cell(c)).collect();
        assert_eq!(frames.len(), 6);
        for pair in frames.windows(2) {
            let differ = pair[0].iter().zip(&pair[1]).filter(|(a, b)| a != b).count();
            assert!(differ > 100, "{clip}: neighbouring frames differ in only {differ} pixels");
        }
    }
    // Walk (rows 104..126): every row a copy of its first.
    baked.edit(|image, layout, _| {
        let row_len = layout.width * 4;
        let first = image.texels[104 * row_len..105 * row_len].to_vec();
        for row in 105..126 {
            image.texels[row * row_len..(row + 1) * row_len].copy_from_slice(&first);
        }
    });
    let (report, picture) = baked.preview("frozen.png", &[]);
    let walk: Vec<Vec<[u8; 4]>> = cells(&report, "Walk").iter().map(|c| picture.cell(c)).collect();
    assert!(walk.iter().all(|f| *f == walk[0]), "a frozen clip draws the same frame 6 times");
    let run: Vec<Vec<[u8; 4]>> = cells(&report, "Run").iter().map(|c| picture.cell(c)).collect();
    assert!(run[0] != run[3], "the other clips still move");
}

#[test]
fn a_unit_turned_90_degrees_gives_a_different_sheet() {
    let baked = Baked::new();
    let (_, side) = baked.preview("side.png", &["--view", "side", "--clips", "Survey", "--frames", "1"]);
    let (report, front) = baked.preview("front.png", &["--clips", "Survey", "--frames", "1"]);
    let width = |p: &Picture, r: &Value| {
        let s = p.silhouette(&r["cells"][0]).unwrap();
        s[2] - s[0] + 1
    };
    let front_width = width(&front, &report);
    let side_width = width(&side, &report);
    assert!(
        side_width * 2 > front_width * 3,
        "the fox is long, not wide: side {side_width} px, front {front_width} px"
    );

    // Turn every row 90° about +Y: (x, y, z) → (z, y, −x), in the texels and the bounds.
    baked.edit(|image, _, d| {
        for texel in image.texels.chunks_exact_mut(4) {
            let (r, b) = (texel[0], texel[2]);
            texel[0] = b;
            texel[2] = u16::MAX - r;
        }
        let p = &d["positions"];
        let (c, h) = (p["center"].clone(), p["half_extent"].clone());
        d["positions"]["center"] = serde_json::json!([c[2], c[1], -c[0].as_f64().unwrap()]);
        d["positions"]["half_extent"] = serde_json::json!([h[2], h[1], h[0]]);
    });
    let (report, turned) = baked.preview("turned.png", &["--clips", "Survey", "--frames", "1"]);
    let turned_width = width(&turned, &report);
    assert!(turned_width * 2 > front_width * 3, "turned, the front view shows its length: {turned_width} px");
    assert!(
        turned_width.abs_diff(side_width) <= 3,
        "front of the turned {turned_width} px, side of the original {side_width} px"
    );
    assert!(turned.pixels != front.pixels);
}

#[test]
fn the_same_inputs_give_the_same_png_bytes_and_the_extras_are_written() {
    let baked = Baked::new();
    let (report, _) = baked.preview("a.png", &["--texture", "--animate", "Walk", "--frames", "4"]);
    let (_, _) = baked.preview("b.png", &["--texture", "--animate", "Walk", "--frames", "4"]);
    let files: Vec<&str> = report["files"].as_array().unwrap().iter().map(|f| f.as_str().unwrap()).collect();
    let names: Vec<String> =
        files.iter().map(|f| Path::new(f).file_name().unwrap().to_str().unwrap().to_owned()).collect();
    assert_eq!(names, ["a.png", "a.positions.png", "a.normals.png", "a.Walk.apng.png"]);
    for suffix in ["png", "positions.png", "normals.png", "Walk.apng.png"] {
        let a = std::fs::read(baked.path(&format!("a.{suffix}"))).unwrap();
        let b = std::fs::read(baked.path(&format!("b.{suffix}"))).unwrap();
        assert!(a == b, "a.{suffix} and b.{suffix} differ");
    }
    // The texture picture: one pixel per texel, rows = frames (1728 × 162 for the Fox).
    let texture = Picture::read(&baked.path("a.positions.png"));
    assert_eq!((texture.width, texture.height), (1728, 162));
    // The animation: one frame per row of Walk (22), each 1/rate s.
    let apng = png::Decoder::new(std::io::BufReader::new(std::fs::File::open(baked.path("a.Walk.apng.png")).unwrap()));
    let reader = apng.read_info().unwrap();
    assert_eq!(reader.info().animation_control().unwrap().num_frames, 22);
    // Nothing else, and no temporary file, is left in the folder.
    let mut left: Vec<String> = std::fs::read_dir(baked.dir.path())
        .unwrap()
        .map(|e| e.unwrap().file_name().into_string().unwrap())
        .filter(|n| n != "out")
        .collect();
    left.sort();
    assert_eq!(left.len(), 8, "{left:?}");
}

#[test]
fn what_a_user_must_fix_is_an_error_with_its_exit_code() {
    let baked = Baked::new();
    let description = baked.description();
    let d = description.to_str().unwrap();
    let sheet = baked.path("x.png");
    let s = sheet.to_str().unwrap();
    let rest = baked.path("out/Fox.rest.glb");
    let cases: [(&[&str], i32, &str); 5] = [
        (&["preview", d, "-o", s, "--clips", "Jump"], 2, "no clip named \"Jump\"; its clips are: Survey, Walk, Run"),
        (&["preview", d, "-o", s, "--animate", "Fly"], 2, "no clip named \"Fly\""),
        (&["preview", d, "-o", s, "--size", "8x8"], 2, "from 16 to 2048"),
        (&["preview", d, "-o", s, "--view", "back"], 2, "back"),
        (&["preview", rest.to_str().unwrap(), "-o", s], 2, "not a vatbake description"),
    ];
    for (args, code, message) in cases {
        let output = vatbake(args);
        assert_eq!(output.status.code(), Some(code), "{args:?}: {}", stderr(&output));
        assert!(stderr(&output).contains(message), "{args:?}: {}", stderr(&output));
        assert!(!sheet.exists(), "{args:?} wrote a sheet");
    }
    // A texture cut short: an input error, and no sheet.
    let texture = baked.path("out/Fox.vat.ktx2");
    let bytes = std::fs::read(&texture).unwrap();
    std::fs::write(&texture, &bytes[..bytes.len() / 2]).unwrap();
    let output = vatbake(&["preview", d, "-o", s]);
    assert_eq!(output.status.code(), Some(3), "{}", stderr(&output));
    assert!(stderr(&output).contains("Fox.vat.ktx2"), "{}", stderr(&output));
    assert!(!sheet.exists());
}

#[test]
fn roster_preview_draws_a_sheet_per_unit_and_a_missing_bake_fails_alone() {
    let dir = tempfile::tempdir().unwrap();
    let roster = dir.path().join("roster.toml");
    std::fs::write(
        &roster,
        format!(
            "output = \"out\"\n[[unit]]\nname = \"fox\"\nsource = {:?}\npoints = 500\n[[unit]]\nname = \"simple\"\nsource = {:?}\n",
            fixture("Fox/Fox.glb").to_str().unwrap(),
            fixture("RiggedSimple/rigged-simple.gltf").to_str().unwrap(),
        ),
    )
    .unwrap();
    let roster = roster.to_str().unwrap();
    let output = vatbake(&["roster", roster, "-q"]);
    assert!(output.status.success(), "{}", stderr(&output));
    std::fs::remove_file(dir.path().join("out/simple/simple.vat.json")).unwrap();
    let output = vatbake(&["roster", roster, "--preview", "--json"]);
    assert_eq!(output.status.code(), Some(3), "{}", stderr(&output));
    let report: Value = serde_json::from_slice(&output.stdout).unwrap();
    assert_eq!((&report["drawn"], &report["errors"]), (&1.into(), &1.into()));
    assert!(stderr(&output).contains("unit \"simple\" has no bake"), "{}", stderr(&output));
    let sheet = Picture::read(&dir.path().join("out/fox/fox.sheet.png"));
    assert!(sheet.width > 6 * 160 && sheet.height > 3 * 160, "{} × {}", sheet.width, sheet.height);
}

/// A bake with `--lods`: one more row per level, the first clip's frames drawn through
/// the level's own mesh, where level 0 draws them (within the level's error), not the
/// same pixels.
#[test]
fn each_level_of_detail_is_a_row_of_the_first_clip() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("out");
    let fox = fixture("Fox/Fox.glb");
    let bake = vatbake(&["bake", fox.to_str().unwrap(), "-o", out.to_str().unwrap(), "-q", "--lods", "0.5,0.25"]);
    assert!(bake.status.success(), "{}", stderr(&bake));
    let sheet = dir.path().join("sheet.png");
    let description = out.join("Fox.vat.json");
    let o = vatbake(&["preview", description.to_str().unwrap(), "-o", sheet.to_str().unwrap(), "--json"]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let report: Value = serde_json::from_slice(&o.stdout).unwrap();
    let picture = Picture::read(&sheet);
    let all = report["cells"].as_array().unwrap();
    assert_eq!((all.len(), report["frames"].as_u64()), (30, Some(30)), "3 clips and 2 levels × 6 frames");
    let of_level = |level: u64| -> Vec<&Value> { all.iter().filter(|c| c["level"].as_u64() == Some(level)).collect() };
    let rest: Vec<&Value> = all.iter().filter(|c| c.get("level").is_none()).collect();
    assert_eq!(rest.len(), 18);
    for level in [1, 2] {
        let cells = of_level(level);
        assert_eq!(cells.len(), 6);
        for (cell, fine) in cells.iter().zip(rest.iter().filter(|c| c["clip"] == "Survey")) {
            assert_eq!((cell["clip"].as_str(), &cell["row"]), (Some("Survey"), &fine["row"]));
            let (a, b) = (picture.silhouette(cell).unwrap(), picture.silhouette(fine).unwrap());
            // 160 px frames: level 2's 6.15 % of the diagonal is under 10 px.
            for k in 0..4 {
                assert!(
                    (a[k] as i64 - b[k] as i64).abs() <= 10,
                    "level {level} row {}: box {a:?}, level 0 {b:?}",
                    cell["row"]
                );
            }
            assert_ne!(picture.cell(cell), picture.cell(fine), "level {level} is drawn with its own mesh");
        }
    }
}
