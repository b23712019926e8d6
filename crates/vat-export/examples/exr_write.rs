//! Times `vat_export::exr_rgba32f` on the texels of a `--target godot|unity|unreal` EXR.
//!
//! `cargo run --release -p vat-export --example exr_write -- unit-godot.exr [runs]` reads the
//! EXR with the `exr` crate, turns each float back into its 16-bit texel (`t / 65535` is
//! exact), rewrites it `runs` times (default 11) and prints: file, width, height, the file's
//! bytes, the rewrite's bytes, whether they are the same bytes, the median write time in ms.

use std::time::Instant;

fn main() {
    let mut args = std::env::args().skip(1);
    let path = args.next().expect("usage: exr_write FILE.exr [runs]");
    let runs: usize = args.next().map_or(11, |r| r.parse().expect("runs: a whole number"));
    let file = std::fs::read(&path).unwrap_or_else(|e| panic!("{path}: {e}"));
    let name = path.clone();
    let image = exr::prelude::read_first_rgba_layer_from_file(
        &path,
        |size, _| (size.width(), vec![0u16; size.width() * size.height() * 4]),
        move |(width, texels), at, (r, g, b, a): (f32, f32, f32, f32)| {
            let i = (at.y() * *width + at.x()) * 4;
            for (c, f) in [r, g, b, a].into_iter().enumerate() {
                let t = (f * 65535.0).round();
                assert_eq!(t / 65535.0, f, "{name}: not a 16-bit texel");
                texels[i + c] = t as u16;
            }
        },
    )
    .unwrap_or_else(|e| panic!("{path}: {e}"));
    let (width, texels) = image.layer_data.channel_data.pixels;
    let height = texels.len() / 4 / width;
    let mut times = Vec::with_capacity(runs);
    let mut written = Vec::new();
    for _ in 0..runs {
        let started = Instant::now();
        written = vat_export::exr_rgba32f(width, height, vat_export::unorm16_pixels(&texels, width, height));
        times.push(started.elapsed().as_secs_f64() * 1000.0);
    }
    times.sort_by(f64::total_cmp);
    println!(
        "{path} {width} {height} {} {} {} {:.2}",
        file.len(),
        written.len(),
        if written == file { "same" } else { "differ" },
        times[runs / 2]
    );
}
