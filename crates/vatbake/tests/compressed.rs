//! The file a game ships (gltfpack: EXT_meshopt_compression + KHR_mesh_quantization;
//! glTF-Transform: KHR_draco_mesh_compression) evaluates to the same motion as its
//! uncompressed original, within the tool's quantization, on every row at 30 Hz (the
//! rate gltfpack resamples animation at).

mod common;

use common::fixture;
use glam::Vec3;
use vat_model::Model;

fn load(relative: &str) -> Model {
    let path = fixture(relative);
    let bytes = std::fs::read(&path).unwrap();
    vat_gltf::load(&path, &bytes, &vat_gltf::Options::default()).unwrap_or_else(|e| panic!("{e}")).model
}

fn rest(model: &Model) -> Vec<Vec3> {
    vat_skin::evaluate_clip(model, None, &[0.0]).positions
}

/// Largest distance between corresponding points over every 30 Hz row of every clip,
/// as a fraction of the original's bounding diagonal. gltfpack welds duplicate
/// points, so each original point is matched once, at rest, to its nearest
/// compressed point, and followed through the animation.
fn worst_gap(original: &str, compressed: &str) -> f32 {
    let (a, b) = (load(original), load(compressed));
    assert_eq!(a.clips.len(), b.clips.len(), "{compressed} keeps every clip");
    let (rest_a, rest_b) = (rest(&a), rest(&b));
    let matched: Vec<usize> = rest_a
        .iter()
        .map(|p| {
            (0..rest_b.len())
                .min_by(|&i, &j| rest_b[i].distance_squared(*p).total_cmp(&rest_b[j].distance_squared(*p)))
                .unwrap()
        })
        .collect();
    let mut diagonal: f32 = 0.0;
    let mut worst: f32 = 0.0;
    for (clip_a, clip_b) in a.clips.iter().zip(&b.clips) {
        assert_eq!(clip_a.name, clip_b.name);
        let rows = (clip_a.duration().min(clip_b.duration()) * 30.0 + 1e-3).floor() as usize + 1;
        let times: Vec<f32> = (0..rows).map(|k| k as f32 / 30.0).collect();
        let (fa, fb) =
            (vat_skin::evaluate_clip(&a, Some(clip_a), &times), vat_skin::evaluate_clip(&b, Some(clip_b), &times));
        diagonal = diagonal.max(vat_bounds::Bounds::of_frames([&fa]).diagonal());
        for row in 0..rows {
            let (pa, pb) = (fa.row_positions(row), fb.row_positions(row));
            for (p, &m) in pa.iter().zip(&matched) {
                worst = worst.max(p.distance(pb[m]));
            }
        }
    }
    worst / diagonal
}

#[test]
fn compressed_copies_move_like_their_originals() {
    // 14-bit positions put up to half of 1/16383 of the extent on each axis; 16-bit
    // rotation keys turn each joint by up to ~1e-4 rad, which a chain of joints adds up.
    // Measured worst: 4.9e-4 of the diagonal (Fox); 1e-3 (1 mm on a 1 m character)
    // bounds both with room, while a dequantization bug is off by whole units.
    const TOLERANCE: f32 = 1e-3;
    for (original, compressed) in [
        ("Fox/Fox.glb", "Fox/gltfpack/Fox.meshopt.glb"),
        ("SimpleSkin/SimpleSkin.gltf", "gltfpack/SimpleSkin.meshopt.glb"),
        ("RiggedSimple/rigged-simple.gltf", "gltfpack/rigged-simple.meshopt.glb"),
        ("CesiumMan/glTF-Binary/CesiumMan.glb", "gltfpack/CesiumMan.meshopt.glb"),
        ("Kenney-MiniCharacters/character-female-a.glb", "gltfpack/character-female-a.meshopt.glb"),
    ] {
        let gap = worst_gap(original, compressed);
        println!("{compressed}: worst gap {gap:.2e} of the diagonal");
        assert!(gap <= TOLERANCE, "{compressed}: {gap:.2e} of the diagonal from {original}");
    }
}

#[test]
fn draco_copies_move_like_their_originals() {
    // glTF-Transform's defaults: 14-bit positions, 12-bit weights; animation untouched.
    // Measured worst: 3.7e-5 of the diagonal (Fox); the bound is the gltfpack test's.
    const TOLERANCE: f32 = 1e-3;
    for (original, compressed) in [
        ("Fox/Fox.glb", "draco/Fox.draco.glb"),
        ("Fox/Fox.glb", "draco/Fox.draco-sequential.glb"),
        ("Kenney-MiniCharacters/character-female-a.glb", "draco/character-female-a.draco.glb"),
    ] {
        let gap = worst_gap(original, compressed);
        println!("{compressed}: worst gap {gap:.2e} of the diagonal");
        assert!(gap <= TOLERANCE, "{compressed}: {gap:.2e} of the diagonal from {original}");
    }
}
