use std::path::{Path, PathBuf};

use super::*;

fn fixture(relative: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../fixtures").join(relative)
}

fn load_fixture(relative: &str) -> Result<Loaded, LoadError> {
    let path = fixture(relative);
    let bytes = read_file(&path)?;
    load(&path, &bytes, &Options::default())
}

#[test]
fn fixtures_load_with_their_documented_shape() {
    // (file, points, skins, joints of skin 0, clips, first clip duration in s)
    let cases: &[(&str, usize, usize, usize, usize, f32)] = &[
        ("Fox/Fox.glb", 1728, 1, 24, 3, 3.4166667),
        ("SimpleSkin/SimpleSkin.gltf", 10, 1, 2, 1, 5.5),
        ("RiggedSimple/rigged-simple.gltf", 160, 1, 2, 1, 2.0833333),
        ("CesiumMan/glTF-Binary/CesiumMan.glb", 3273, 1, 19, 19, 2.0),
        ("MorphStressTest/MorphStressTest.gltf", 1528, 0, 0, 3, 9.333333),
        ("AnimatedMorphCube/AnimatedMorphCube.gltf", 24, 0, 0, 1, 4.2),
        ("Kenney-MiniCharacters/character-female-a.glb", 1576, 2, 7, 32, 0.0),
        ("Kenney-PlatformerCharacter/character.glb", 1038, 0, 0, 4, 0.0),
    ];
    for &(file, points, skins, joints, clips, duration) in cases {
        let loaded = load_fixture(file).unwrap_or_else(|e| panic!("{e}"));
        let m = &loaded.model;
        assert_eq!(m.points.len(), points, "{file} points");
        assert_eq!(m.skins.len(), skins, "{file} skins");
        if skins > 0 {
            assert_eq!(m.skins[0].joints.len(), joints, "{file} joints");
        }
        assert_eq!(m.clips.len(), clips, "{file} clips");
        if duration > 0.0 {
            assert!((m.clips[0].duration() - duration).abs() < 1e-3, "{file} duration {}", m.clips[0].duration());
        }
        for (p, w) in m.points.weights.iter().enumerate() {
            let sum: f32 = w.iter().sum();
            let skinned = m.parts.iter().any(|part| part.skin.is_some() && part.points().contains(&p));
            if skinned {
                assert!((sum - 1.0).abs() < 1e-5, "{file} point {p} weights sum {sum}");
            }
        }
        assert!(m.triangles.iter().flatten().all(|&i| (i as usize) < points), "{file} triangle range");
    }
}

/// Every point of `a` has a point of `b` within `tolerance` (per axis), and back.
fn same_point_set(a: &[Vec3], b: &[Vec3], tolerance: f32) -> f32 {
    let nearest = |p: Vec3, set: &[Vec3]| set.iter().map(|q| (*q - p).abs().max_element()).fold(f32::MAX, f32::min);
    let worst = a.iter().map(|&p| nearest(p, b)).chain(b.iter().map(|&p| nearest(p, a))).fold(0.0, f32::max);
    assert!(worst <= tolerance, "a point is {worst} from the nearest one of the other set (tolerance {tolerance})");
    worst
}

/// One quantization step of `bits` over the positions' bounding box (the largest axis).
fn quantization_step(positions: &[Vec3], bits: u32) -> f32 {
    let (min, max) = positions.iter().fold((Vec3::MAX, Vec3::MIN), |(lo, hi), &p| (lo.min(p), hi.max(p)));
    (max - min).max_element() / ((1u32 << bits) - 1) as f32
}

/// Draco copies made by real encoders (COLLADA2GLTF's for the CesiumMan; glTF-Transform's
/// for the Fox, EdgeBreaker and sequential, and for the Kenney character) load as the
/// same model as the plain file: the same triangles and skins, and every position
/// within half a quantization step of one of the plain file's, and back.
#[test]
fn draco_copies_load_like_the_plain_files() {
    // (Draco copy, plain file, position bits, decoded points, plain points). The point
    // counts differ: points whose attributes are all equal are merged on encoding (the
    // Fox ships unwelded), and Draco splits points along uv seams (the CesiumMan's 3,273 become 3,572,
    // though its accessors still say 3,273). Each decoded count is three.js's too.
    let cases = [
        ("CesiumMan/glTF-Draco/CesiumMan.gltf", "CesiumMan/glTF-Binary/CesiumMan.glb", 14, 3572, 3273),
        ("draco/Fox.draco.glb", "Fox/Fox.glb", 14, 434, 1728),
        ("draco/Fox.draco-sequential.glb", "Fox/Fox.glb", 14, 434, 1728),
        ("draco/character-female-a.draco.glb", "Kenney-MiniCharacters/character-female-a.glb", 14, 1340, 1576),
    ];
    for (draco, plain, bits, draco_points, plain_points) in cases {
        let d = load_fixture(draco).unwrap_or_else(|e| panic!("{e}"));
        let p = load_fixture(plain).unwrap();
        let (d, p) = (&d.model, &p.model);
        assert_eq!(d.triangles.len(), p.triangles.len(), "{draco} triangles");
        assert_eq!((d.points.len(), p.points.len()), (draco_points, plain_points), "{draco} points");
        assert_eq!(d.parts.len(), p.parts.len(), "{draco} parts");
        assert_eq!(d.skins.len(), p.skins.len(), "{draco} skins");
        for (dp, pp) in d.parts.iter().zip(&p.parts) {
            let dpos = &d.points.positions[dp.points()];
            let ppos = &p.points.positions[pp.points()];
            // Half a step is the quantization error; a little more for float rounding.
            let step = quantization_step(ppos, bits);
            same_point_set(dpos, ppos, step * 0.5 + 1e-6);
        }
        for w in &d.points.weights {
            assert!((w.iter().sum::<f32>() - 1.0).abs() < 1e-5, "{draco} weights sum {}", w.iter().sum::<f32>());
        }
        assert!(d.triangles.iter().flatten().all(|&i| (i as usize) < d.points.len()), "{draco} triangle range");
    }
}

/// The Draco stream of the CesiumMan, damaged: cut short, or with bytes flipped.
/// Every damaged copy gives an error (or, where the damage lands in data that
/// still decodes, a model); none panics.
#[test]
fn damaged_draco_streams_are_errors_not_panics() {
    let path = fixture("CesiumMan/glTF-Draco/CesiumMan.gltf");
    let bytes = read_file(&path).unwrap();
    let (root, _) = parse_document(&path, &bytes).unwrap();
    let view = &root.buffer_views[4];
    let (start, length) = (view.byte_offset.unwrap().0 as usize, view.byte_length.0 as usize);
    let bin = std::fs::read(fixture("CesiumMan/glTF-Draco/0.bin")).unwrap();
    assert_eq!(&bin[start..start + 5], b"DRACO");
    let dir = std::env::temp_dir().join(format!("vat-gltf-draco-fuzz-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let model = dir.join("CesiumMan.gltf");
    std::fs::write(&model, &bytes).unwrap();
    let mut errors = 0;
    let mut check = |damaged: Vec<u8>, what: &str| {
        std::fs::write(dir.join("0.bin"), &damaged).unwrap();
        let result = std::panic::catch_unwind(|| load(&model, &bytes, &Options::default()));
        match result {
            Err(_) => panic!("{what}: the decoder panicked"),
            Ok(Err(e)) => {
                assert_eq!(e.kind, ErrorKind::Invalid, "{what}: {e}");
                // A short buffer is caught before decoding; a damaged stream names its primitive.
                let message = e.to_string();
                assert!(message.contains("mesh 0 primitive 0") || message.contains("holds only"), "{what}: {e}");
                errors += 1;
            }
            Ok(Ok(_)) => {}
        }
    };
    // Cut short: the stream's view then runs past the buffer (caught before decoding),
    // so also zero its tail in place, which the decoder itself must reject.
    for cut in [6, 11, 12, 20, 64, 500, 4000, length / 2, length - 1] {
        let mut damaged = bin.clone();
        damaged[start + cut..start + length].fill(0);
        check(damaged, &format!("zeroed from byte {cut}"));
        check(bin[..start + cut].to_vec(), &format!("truncated at byte {cut}"));
    }
    // Flipped bytes, at positions from a fixed pseudo-random sequence.
    let mut state = 0x2545_f491_u32;
    let mut next = || {
        state ^= state << 13;
        state ^= state >> 17;
        state ^= state << 5;
        state
    };
    for round in 0..400 {
        let mut damaged = bin.clone();
        let flips = 1 + round % 4;
        for _ in 0..flips {
            let at = start + (next() as usize % length);
            damaged[at] ^= 1 << (next() % 8);
        }
        // A third of the rounds damage only the header and connectivity, where a lie is likeliest to bite.
        if round % 3 == 0 {
            let at = start + 5 + (next() as usize % 64);
            damaged[at] = next() as u8;
        }
        check(damaged, &format!("round {round}"));
    }
    std::fs::remove_dir_all(&dir).ok();
    assert!(errors > 100, "only {errors} damaged streams were refused");
}

#[test]
fn fox_carries_its_texture() {
    let loaded = load_fixture("Fox/Fox.glb").unwrap();
    let set = &loaded.model.materials;
    assert_eq!(set.materials.len(), 1);
    assert_eq!(set.image_data.len(), 1);
    assert_eq!(set.image_data[0].mime_type, "image/png");
    assert!(set.image_data[0].bytes.starts_with(b"\x89PNG"));
}

#[test]
fn not_gltf_is_named() {
    let file = Path::new("x.gltf");
    let err = load(file, br#"{"hello": 1}"#, &Options::default()).unwrap_err();
    assert_eq!(err.kind, ErrorKind::NotGltf);
    let err = load(file, b"\x00\x01garbage", &Options::default()).unwrap_err();
    assert_eq!(err.kind, ErrorKind::NotGltf);
    assert_eq!(
        err.to_string(),
        "x.gltf: not a glTF model: neither a glTF binary (its first bytes are \"..ga\", not \"glTF\") nor glTF \
         JSON (it does not start with {); give a .glb or .gltf file exported as glTF 2.0"
    );
}

/// A GLB's binary chunk is read where it lies in the file's bytes: buffer 0 borrows
/// it, so the loader holds the model's bytes once, not twice.
#[test]
fn the_glb_binary_chunk_is_borrowed_not_copied() {
    let path = fixture("Fox/Fox.glb");
    let bytes = read_file(&path).unwrap();
    let container = container::split(&path, &bytes).unwrap();
    let (root, _) = parse_json(&path, container.json).unwrap();
    let buffers = load_buffers(&path, &root, container.bin).unwrap();
    assert_eq!(buffers.len(), 1);
    assert!(matches!(buffers[0], std::borrow::Cow::Borrowed(_)), "buffer 0 is a copy");
    let (file, buffer) = (bytes.as_ptr_range(), buffers[0].as_ptr_range());
    assert!(file.start <= buffer.start && buffer.end <= file.end, "buffer 0 lies outside the file's bytes");
    assert_eq!(buffers[0].len(), container.bin.unwrap().len());
    // A data URI has no bytes to borrow from: decoded into a buffer of its own.
    let path = fixture("SimpleSkin/SimpleSkin.gltf");
    let bytes = read_file(&path).unwrap();
    let (root, _) = parse_document(&path, &bytes).unwrap();
    let buffers = load_buffers(&path, &root, None).unwrap();
    assert!(buffers.iter().all(|b| matches!(b, std::borrow::Cow::Owned(_))));
}

/// A Blender export with an extra scene that has no `nodes` (optional in glTF 2.0), first
/// as the default scene's neighbour, then as the scene the file picks.
#[test]
fn a_scene_without_nodes_is_an_empty_scene() {
    let path = fixture("SimpleSkin/SimpleSkin.gltf");
    let mut json: serde_json::Value = serde_json::from_slice(&read_file(&path).unwrap()).unwrap();
    json["scenes"].as_array_mut().unwrap().push(serde_json::json!({ "name": "Face" }));
    let bytes = serde_json::to_vec(&json).unwrap();
    let loaded = load(&path, &bytes, &Options::default()).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!((loaded.model.points.len(), loaded.model.scene_roots.as_slice()), (10, &[0][..]));
    json["scene"] = serde_json::json!(1);
    let bytes = serde_json::to_vec(&json).unwrap();
    let error = load(&path, &bytes, &Options::default()).unwrap_err().to_string();
    assert!(error.ends_with("the scene has no mesh with points; scene 0 has a mesh: pass --scene 0"), "{error}");
}
