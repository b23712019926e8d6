//! What `--fps auto` would choose (issue 29, not built): for each clip of each model given,
//! the fewest evenly spaced rows whose linear interpolation (what `@vatbake/three` does
//! between rows) stays within a tolerance of the true pose sampled at 60 Hz, over every
//! point, for three tolerances: one 16-bit step of the largest axis of the animation
//! bounds (the bake's own quantization), 1e-4 and 1e-3 of the bounds' diagonal; beside
//! the rows and the interpolation error of today's default, 30 rows per second.
//!
//! `cargo run --release -p vat-bench --example fps_auto -- fixtures/Fox/Fox.glb …`
//! (docs/PERFORMANCE.md, "Rows chosen by error").

use glam::Vec3A;
use vat_model::{Clip, ClipRows, Model};
use vat_skin::Rig;

/// Every point's position at `time` seconds of `clip`.
fn positions(rig: &Rig, clip: &Clip, time: f32) -> Vec<Vec3A> {
    let points = rig.model().points.len();
    let mut out = vec![Vec3A::ZERO; points];
    rig.positions(&rig.pose(Some(clip), time), 0..points, &mut out);
    out
}

/// The largest distance, over every point and every 60 Hz sample, between the true pose
/// and the linear interpolation of `rows` evenly spaced rows.
fn interpolation_error(rig: &Rig, clip: &Clip, truth: &[(f32, Vec<Vec3A>)], rows: u32) -> f32 {
    let spacing = ClipRows::new(clip.duration(), 1.0, None);
    let rows = ClipRows { rows, rate: (rows - 1) as f32 / spacing.duration, duration: spacing.duration };
    let stored: Vec<Vec<Vec3A>> = rows.times().iter().map(|&t| positions(rig, clip, t)).collect();
    let mut worst = 0.0f32;
    for (t, pose) in truth {
        let at = (t * rows.rate).clamp(0.0, (rows.rows - 1) as f32);
        let k = (at.floor() as usize).min(rows.rows as usize - 2);
        let a = at - k as f32;
        for (i, p) in pose.iter().enumerate() {
            let lerp = stored[k][i].lerp(stored[k + 1][i], a);
            worst = worst.max(lerp.distance(*p));
        }
    }
    worst
}

/// The fewest rows (≥ 2) within `tolerance`, searched by bisection between 2 and `most`.
fn fewest_rows(rig: &Rig, clip: &Clip, truth: &[(f32, Vec<Vec3A>)], tolerance: f32, most: u32) -> u32 {
    let (mut lo, mut hi) = (2u32, most);
    if interpolation_error(rig, clip, truth, hi) > tolerance {
        return hi;
    }
    while lo < hi {
        let mid = (lo + hi) / 2;
        if interpolation_error(rig, clip, truth, mid) <= tolerance {
            hi = mid;
        } else {
            lo = mid + 1;
        }
    }
    lo
}

fn main() -> anyhow::Result<()> {
    println!("model | clip | seconds | rows at 30/s | error at 30/s (of diag) | rows: 1 step | 1e-4 diag | 1e-3 diag");
    for path in std::env::args().skip(1) {
        let path = std::path::PathBuf::from(path);
        let bytes = vat_gltf::read_file(&path)?;
        let model: Model = vat_gltf::load(&path, &bytes, &vat_gltf::Options::default())?.model;
        let rig = Rig::new(&model);
        // The truth: every clip at 60 Hz, and the bounds over all of it.
        let truths: Vec<Vec<(f32, Vec<Vec3A>)>> = model
            .clips
            .iter()
            .map(|clip| {
                let d = clip.duration();
                let samples = (d * 60.0).ceil() as u32;
                (0..=samples).map(|j| (d.min(j as f32 / 60.0), positions(&rig, clip, d.min(j as f32 / 60.0)))).collect()
            })
            .collect();
        let (lo, hi) = truths
            .iter()
            .flatten()
            .flat_map(|(_, p)| p)
            .fold((Vec3A::INFINITY, Vec3A::NEG_INFINITY), |(lo, hi), &p| (lo.min(p), hi.max(p)));
        let diagonal = lo.distance(hi);
        let step = (hi - lo).max_element() / 65535.0;
        let name = path.file_name().unwrap().to_string_lossy();
        let mut totals = [0u32; 4];
        for (clip, truth) in model.clips.iter().zip(&truths) {
            let d = clip.duration();
            if d <= 0.0 {
                continue;
            }
            let today = ClipRows::new(d, 30.0, None).rows.max(2);
            let at_60 = ClipRows::new(d, 60.0, None).rows.max(2);
            let error = interpolation_error(&rig, clip, truth, today);
            let auto: Vec<u32> = [step, 1e-4 * diagonal, 1e-3 * diagonal]
                .iter()
                .map(|&t| fewest_rows(&rig, clip, truth, t, at_60))
                .collect();
            for (total, rows) in totals.iter_mut().zip([today, auto[0], auto[1], auto[2]]) {
                *total += rows;
            }
            println!(
                "{name} | {} | {d:.2} | {today} | {:.2e} | {} | {} | {}",
                clip.display_name(),
                error / diagonal,
                auto[0],
                auto[1],
                auto[2]
            );
        }
        println!("{name} | all | | {} | | {} | {} | {}", totals[0], totals[1], totals[2], totals[3]);
    }
    Ok(())
}
