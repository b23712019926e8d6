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

#[test]
fn draco_is_refused_with_advice() {
    let err = load_fixture("CesiumMan/glTF-Draco/CesiumMan.gltf").unwrap_err();
    assert_eq!(err.kind, ErrorKind::Unsupported);
    assert!(err.to_string().contains("KHR_draco_mesh_compression"), "{err}");
    assert!(err.to_string().contains("export without Draco"), "{err}");
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
    assert!(err.to_string().starts_with("x.gltf: not a glTF 2.0 document"), "{err}");
}
