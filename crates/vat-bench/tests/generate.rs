//! The generator on the real Fox: the output loads, has the counts asked for, and
//! moves exactly like the source where the two share points.

use std::collections::HashMap;
use std::path::PathBuf;

use glam::Vec3;
use vat_bench::{clip_rows, generate, ClipPlan, GeneratePlan, Preset};
use vat_model::Model;

fn fox() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../fixtures/Fox/Fox.glb")
}

fn load(path: &std::path::Path, bytes: &[u8]) -> Model {
    vat_gltf::load(path, bytes, &vat_gltf::Options::default()).expect("the generated model loads").model
}

fn evaluate(model: &Model, clip: usize, time: f32) -> Vec<Vec3> {
    vat_skin::evaluate_clip(model, Some(&model.clips[clip]), &[time]).positions
}

#[test]
fn small_plan_gives_the_counts_and_moves_like_the_source() {
    let plan = GeneratePlan { points: 5_000, clips: ClipPlan { clips: 5, rows: 240, fps: 30.0 }, keep_images: false };
    let generated = generate(&fox(), &plan).expect("generate");
    // 434 welded points, one whole level (1,434), then a partial level to 5,000.
    assert_eq!(generated.subdivision.welded_points, 434);
    assert_eq!(generated.subdivision.levels, [1434]);
    assert_eq!(generated.points, 5_000);
    assert_eq!(generated.rows(), 240);

    let path = std::env::temp_dir().join("vat-bench-test-fox-5k.glb");
    let model = load(&path, &generated.glb);
    assert_eq!(model.points.len(), 5_000);
    assert_eq!(model.triangles.len(), generated.triangles);
    let rows: Vec<u32> = model.clips.iter().map(|c| clip_rows(c.duration(), 30.0)).collect();
    assert_eq!(rows.iter().sum::<u32>(), 240);
    assert_eq!(rows[..3], [104, 22, 36]);
    for w in &model.points.weights {
        let sum: f32 = w.iter().sum();
        assert!((sum - 1.0).abs() < 1e-5, "weights sum to {sum}");
        assert!(w[4..].iter().all(|&x| x == 0.0), "at most four influences");
    }
    assert!(model.points.normals.iter().all(|n| (n.length() - 1.0).abs() < 1e-4));

    // Source points survive welding and subdivision unchanged: where a generated
    // point has a source point's bind position and uv, it must move identically.
    let source_path = fox();
    let source_bytes = std::fs::read(&source_path).expect("read the Fox");
    let source = load(&source_path, &source_bytes);
    let key = |m: &Model, i: usize| {
        let (p, uv) = (m.points.positions[i], m.points.uv0[i]);
        [p.x, p.y, p.z, uv.x, uv.y].map(f32::to_bits)
    };
    let generated_index: HashMap<[u32; 5], usize> = (0..model.points.len()).map(|i| (key(&model, i), i)).collect();
    for (clip, time) in [(0, 1.3), (1, 0.4), (2, 0.9)] {
        let want = evaluate(&source, clip, time);
        let got = evaluate(&model, clip, time);
        let mut matched = 0;
        for (i, w) in want.iter().enumerate() {
            if let Some(&j) = generated_index.get(&key(&source, i)) {
                assert!((got[j] - *w).length() < 1e-3, "clip {clip} t {time}: point {i} at {} not {w}", got[j]);
                matched += 1;
            }
        }
        assert_eq!(matched, source.points.len(), "every source point is in the generated model");
    }

    // A time-scaled copy at scaled time is the original at the original time.
    let copy = model.clips.iter().position(|c| c.display_name() == "Walk@1.267s").expect("a Walk copy");
    let scale = model.clips[copy].duration() / model.clips[1].duration();
    let (a, b) = (evaluate(&model, 1, 0.3), evaluate(&model, copy, 0.3 * scale));
    let worst = a.iter().zip(&b).map(|(x, y)| (*x - *y).length()).fold(0.0, f32::max);
    assert!(worst < 1e-2, "scaled clip differs by {worst}");
}

#[test]
fn presets_hit_their_point_and_row_counts() {
    for preset in Preset::ALL {
        let generated = generate(&fox(), &preset.plan()).expect("generate");
        assert_eq!(generated.points, preset.points, "{}", preset.name);
        assert_eq!(generated.clips.len(), preset.clips, "{}", preset.name);
        assert_eq!(generated.rows(), preset.rows, "{}", preset.name);
    }
}
