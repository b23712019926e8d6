//! Loadable but weird models through evaluation: every clip sampled at a few
//! times (before, inside, at and past its keys), the rest and bind poses, bounds
//! and packing, as `vatbake bake` does them.
#![no_main]

#[path = "common.rs"]
mod common;

use libfuzzer_sys::fuzz_target;
use vat_model::Layout;

/// Keeps each run quick: evaluation work is points × rows.
const MAX_POINT_ROWS: usize = 1 << 20;

fuzz_target!(|data: &[u8]| {
    let Ok(loaded) = vat_gltf::load(common::model_path("glb"), data, &vat_gltf::Options::default()) else { return };
    let model = loaded.model;
    let _ = vat_skin::bind_pose_positions(&model);
    let rest = vat_skin::sample_pose(&model, None, 0.0);
    let mut positions = vec![glam::Vec3::ZERO; model.points.len()];
    let mut normals = positions.clone();
    vat_skin::evaluate_pose(&model, &rest, &mut positions, &mut normals);

    let mut frames = Vec::new();
    for clip in &model.clips {
        let d = clip.duration();
        let times = [0.0, d * 0.37, d, d + 1.0, -1.0, f32::MAX];
        if model.points.len().saturating_mul(times.len() * (frames.len() + 1)) > MAX_POINT_ROWS {
            break;
        }
        for channel in &clip.channels {
            for &t in &times {
                let _ = vat_skin::sample_channel(channel, t);
            }
        }
        frames.push(vat_skin::evaluate_clip(&model, Some(clip), &times));
    }
    if frames.is_empty() {
        return;
    }
    let bounds = vat_bounds::Bounds::of_frames(&frames);
    let rows = frames.iter().map(|f| f.rows).sum();
    let layout = Layout::new(model.points.len(), rows, 4096);
    let _ = vat_bounds::pack(&layout, &bounds, &frames);
});
