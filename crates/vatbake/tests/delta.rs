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
        // Another reader (the ktx2 crate and zstd) loads it as an RGBA16 texture.
        let (header, stored) = read_ktx2(&dir.path().join("Fox.vat.ktx2"));
        assert_eq!(header.format, Some(ktx2::Format::R16G16B16A16_UNORM));
        assert_eq!(stored.len(), plain_texels.len());
        // A layout in planes (docs/FORMAT.md, "Delta"): one block here (4 MiB of texels
        // is more than the whole texture), eight byte planes of n texels each. Wrapped
        // into bands, a column holds three points far apart and the references do not
        // pay: "planes", each column from its left neighbour (a_bake_chooses_reference_columns_when_they_pay).
        assert_eq!(d["texture"]["delta"]["layout"], "planes", "{mode}");
        assert!(d["texture"]["delta"].get("references").is_none());
        let block_rows = d["texture"]["delta"]["block_rows"].as_u64().unwrap() as usize;
        assert_eq!(block_rows, (4 << 20) / (width * 8));
        assert_eq!(d["texture"]["delta"]["layout_decode"], vatbake::description::LAYOUT_DECODE_PLANES);
        assert_eq!(d["texture"]["delta"]["decode"], vatbake::description::DELTA_DECODE_PLANES);
        let n = stored.len() / 4;
        assert!(block_rows * width >= n, "one block");
        let bytes: Vec<u8> = stored.iter().flat_map(|v| v.to_le_bytes()).collect();
        let texel = |y: usize, x: usize, c: usize| -> u16 {
            let i = y * width + x;
            u16::from_be_bytes([bytes[2 * c * n + i], bytes[(2 * c + 1) * n + i]])
        };
        let p = |y: usize, x: usize, c: usize| plain_texels[(y * width + x) * 4 + c];
        let zigzag = |v: u16| (v << 1) ^ ((v as i16 >> 15) as u16);
        for clip in d["clips"].as_array().unwrap() {
            let first = clip["row"].as_u64().unwrap() as usize;
            for band in 0..3 {
                let y = band * rows + first;
                // A clip's first row: R minus the texel to the left's, zigzagged.
                assert_eq!(texel(y, 5, 0), zigzag(p(y, 5, 0).wrapping_sub(p(y, 4, 0))), "{mode}: band {band}");
                // Its second row: the row difference minus the left texel's, zigzagged.
                let d1 = |x| p(y + 1, x, 0).wrapping_sub(p(y, x, 0));
                assert_eq!(texel(y + 1, 5, 0), zigzag(d1(5).wrapping_sub(d1(4))), "{mode}: band {band}");
                // The alpha's high byte: its difference modulo 256, zigzagged as a byte.
                let high = ((p(y + 1, 5, 3) >> 8) as u8).wrapping_sub((p(y, 5, 3) >> 8) as u8) as i8;
                assert_eq!(texel(y + 1, 5, 3) >> 8, u16::from(((high << 1) ^ (high >> 7)) as u8), "{mode}");
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
        // Smaller: the point of the mode.
        let (bytes, plain_bytes) =
            (d["texture"]["bytes"].as_u64().unwrap(), plain["texture"]["bytes"].as_u64().unwrap());
        assert!(bytes * 10 < plain_bytes * 7, "{mode}: {bytes} bytes against plain {plain_bytes}");
    }
}

/// The default bake of the Fox stores "planes-ref": its references (base64 in the
/// description) make the file smaller than "planes" by more than they weigh, and the
/// texels undo, by another reader's words (tests/common), to the plain bake's. A unit
/// whose references do not pay keeps "planes" (MorphStressTest: its trial is larger).
#[test]
fn a_bake_chooses_reference_columns_when_they_pay() {
    let model = fixture("Fox/Fox.glb");
    let (plain_dir, _) = bake(&model, &["--delta", "none"]);
    let (_, plain_texels) = read_ktx2(&plain_dir.path().join("Fox.vat.ktx2"));
    let (dir, d) = bake(&model, &[]);
    let delta = &d["texture"]["delta"];
    assert_eq!(delta["layout"], "planes-ref");
    assert_eq!(delta["layout_decode"], vatbake::description::LAYOUT_DECODE_PLANES_REF);
    let width = d["texture"]["width"].as_u64().unwrap() as usize;
    let references = common::base64(delta["references"].as_str().unwrap());
    assert_eq!(references.len(), 2 * width);
    assert!(references.iter().enumerate().all(|(i, &k)| k as usize <= (i % width).min(16)));
    // Some columns are predicted from past their left neighbour, some alphas from another column.
    let far = references[..width].iter().filter(|&&k| k > 1).count();
    let alphas = references[width..].iter().filter(|&&k| k > 0).count();
    assert_eq!((far, alphas), (128, 1626), "far references, alpha references of {width}");
    let (_, stored) = read_ktx2(&dir.path().join("Fox.vat.ktx2"));
    assert_eq!(common::undo_delta(stored, &d), plain_texels);
    let shipped = vatbake::shipped::Shipped::open(&dir.path().join("Fox.vat.json")).unwrap();
    assert_eq!(shipped.image.texels, plain_texels);
    // The texture with its table is smaller than "planes" gave (339,085 bytes, 2026-12-03).
    let with_table = d["texture"]["bytes"].as_u64().unwrap() + delta["references"].as_str().unwrap().len() as u64;
    assert!(with_table < 339_085 * 96 / 100, "{with_table}");
    let (_, d) = bake(&fixture("MorphStressTest/MorphStressTest.gltf"), &[]);
    assert_eq!(d["texture"]["delta"]["layout"], "planes");
    assert!(d["texture"]["delta"].get("references").is_none());
    // A damaged table is refused by the reader, naming what is wrong.
    let mut damaged: serde_json::Value =
        serde_json::from_slice(&std::fs::read(dir.path().join("Fox.vat.json")).unwrap()).unwrap();
    damaged["texture"]["delta"]["references"] = serde_json::json!("AAAA");
    std::fs::write(dir.path().join("Fox.vat.json"), serde_json::to_vec(&damaged).unwrap()).unwrap();
    let error = vatbake::shipped::Shipped::open(&dir.path().join("Fox.vat.json")).unwrap_err().to_string();
    assert!(error.contains("texture.delta.references holds 3 bytes, a texture 1728 texels wide needs 3456"), "{error}");
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
