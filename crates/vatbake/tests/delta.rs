//! `--delta row|second`: the stored texels are each clip's rows as differences,
//! an ordinary RGBA16 KTX2 any reader loads; undone (shipped.rs, as verify,
//! preview and inspect read it) they are the plain bake's texels, byte for byte.

mod common;

use common::{bake, fixture, read_ktx2, stderr, vatbake};

#[test]
fn a_delta_bake_undoes_to_the_plain_bakes_texels_in_bands_and_clips() {
    // The Fox: three clips; --max-width 700 wraps its 1,728 points into 3 bands.
    let model = fixture("Fox/Fox.glb");
    let common = ["--points", "all", "--max-width", "700"];
    let (plain_dir, plain) = bake(&model, &[&common[..], &["--delta", "none"]].concat());
    assert_eq!(plain["texture"]["bands"], 3);
    assert_eq!(plain["clips"].as_array().unwrap().len(), 3);
    assert!(plain["texture"].get("delta").is_none() && plain["settings"].get("delta").is_none());
    let (_, plain_texels) = read_ktx2(&plain_dir.path().join("Fox.vat.ktx2"));
    let width = plain["texture"]["width"].as_u64().unwrap() as usize;
    let rows = plain["rows"].as_u64().unwrap() as usize;
    let shipped_plain = vatbake::shipped::Shipped::open(&plain_dir.path().join("Fox.vat.json")).unwrap();
    assert_eq!(shipped_plain.image.texels, plain_texels);
    for (mode, order) in [("row", 1), ("second", 2)] {
        let mut args = common.to_vec();
        args.extend(["--delta", mode]);
        let (dir, d) = bake(&model, &args);
        assert_eq!(d["settings"]["delta"], mode);
        assert_eq!(d["texture"]["delta"]["mode"], mode);
        assert_eq!(d["texture"]["delta"]["order"], order);
        assert_eq!(d["texture"]["delta"]["decode"], vatbake::description::DELTA_DECODE);
        // Another reader (the ktx2 crate and zstd) loads it as an RGBA16 texture.
        let (header, stored) = read_ktx2(&dir.path().join("Fox.vat.ktx2"));
        assert_eq!(header.format, Some(ktx2::Format::R16G16B16A16_UNORM));
        assert_eq!(stored.len(), plain_texels.len());
        let at = |t: &[u16], y: usize, x: usize, c: usize| t[(y * width + x) * 4 + c];
        // Each clip's first row in every band is stored as it is; the one after it is a difference.
        for clip in d["clips"].as_array().unwrap() {
            let first = clip["row"].as_u64().unwrap() as usize;
            for band in 0..3 {
                let y = band * rows + first;
                assert_eq!(
                    stored[y * width * 4..(y + 1) * width * 4],
                    plain_texels[y * width * 4..(y + 1) * width * 4]
                );
                let p = |y, c| at(&plain_texels, y, 5, c);
                assert_eq!(
                    at(&stored, y + 1, 5, 0),
                    p(y + 1, 0).wrapping_sub(p(y, 0)),
                    "{mode}: band {band}, row {first}"
                );
                let third = p(y + 2, 0).wrapping_sub(p(y + 1, 0));
                let expected = if order == 1 { third } else { third.wrapping_sub(p(y + 1, 0).wrapping_sub(p(y, 0))) };
                assert_eq!(at(&stored, y + 2, 5, 0), expected, "{mode}: band {band}, clip at row {first}");
            }
        }
        assert_ne!(stored, plain_texels);
        // Read back through shipped.rs: the plain texels, byte for byte.
        let shipped = vatbake::shipped::Shipped::open(&dir.path().join("Fox.vat.json")).unwrap();
        assert_eq!(shipped.image.texels, plain_texels, "{mode}");
        // verify re-evaluates the source against the undone texels.
        let description = dir.path().join("Fox.vat.json");
        let out = vatbake(&["verify", description.to_str().unwrap(), "--source", model.to_str().unwrap()]);
        assert!(out.status.success(), "verify --delta {mode}: {}", stderr(&out));
        // Smaller: the point of the mode (plain 1 band: 698,054 bytes at level 3).
        let (bytes, plain_bytes) =
            (d["texture"]["bytes"].as_u64().unwrap(), plain["texture"]["bytes"].as_u64().unwrap());
        assert!(bytes * 10 < plain_bytes * 7, "{mode}: {bytes} bytes against plain {plain_bytes}");
    }
}

#[test]
fn a_delta_with_a_png_texture_is_refused() {
    let model = fixture("SimpleSkin/SimpleSkin.gltf");
    let out = tempfile::tempdir().unwrap();
    let run = vatbake(&[
        "bake",
        model.to_str().unwrap(),
        "-o",
        out.path().to_str().unwrap(),
        "--texture-format",
        "png",
        "--delta",
        "row",
    ]);
    assert_eq!(run.status.code(), Some(2), "{}", stderr(&run));
    assert!(stderr(&run).contains("--delta row with --texture-format png"), "{}", stderr(&run));
    let run = vatbake(&["bake", model.to_str().unwrap(), "-o", out.path().to_str().unwrap(), "--delta", "third"]);
    assert!(!run.status.success());
    assert!(stderr(&run).contains("none, row or second"), "{}", stderr(&run));
}
