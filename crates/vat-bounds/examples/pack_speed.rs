//! Times `pack` on a synthetic 28,374-point × 268-row animation (the reference workload).
//! `cargo run --release -p vat-bounds --example pack_speed`
use glam::Vec3;
use vat_bounds::{pack, Bounds};
use vat_model::{Frames, Layout};

fn main() {
    let (points, rows) = (28_374, 268);
    let mut frames = Frames::new(points, rows);
    for (i, (p, n)) in frames.positions.iter_mut().zip(frames.normals.iter_mut()).enumerate() {
        let t = i as f32 * 0.000_37;
        *p = Vec3::new(t.sin(), (t * 1.3).cos() + 1.0, (t * 0.7).sin() * 0.5);
        *n = Vec3::new((t * 5.0).cos(), (t * 3.0).sin(), 0.3).normalize();
    }
    let layout = Layout::new(points, rows, 16_384);
    let bounds = Bounds::of_frames([&frames]);
    let mut best = f64::MAX;
    for _ in 0..5 {
        let start = std::time::Instant::now();
        let (texels, q) = pack(&layout, &bounds, std::slice::from_ref(&frames));
        best = best.min(start.elapsed().as_secs_f64());
        std::hint::black_box((texels, q));
    }
    println!(
        "pack {points} points × {rows} rows: best {:.1} ms ({:.1} ns per texel)",
        best * 1e3,
        best * 1e9 / (points * rows) as f64
    );
}
