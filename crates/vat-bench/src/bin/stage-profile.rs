//! `stage-profile`: the bake's stages run in-process through the stage crates'
//! public functions, each timed on its own and split into its parts (allocation,
//! pose sampling, skinning, normal and position encoding, Zstandard), to say which
//! function costs what. Run it pinned (`taskset -c 0`, `RAYON_NUM_THREADS=1`) for
//! one-core numbers. It mirrors `vatbake bake` (all clips, all points, the same row
//! times); `vatbake`'s own `--json` stage times remain the reference.

use std::hint::black_box;
use std::io::Write;
use std::path::PathBuf;
use std::time::Instant;

use anyhow::{Context, Result};
use clap::Parser;
use glam::Vec3;
use vat_bench::clip_rows;
use vat_bench::stats::{median, min};
use vat_model::{Frames, Layout};

#[derive(Parser, Debug)]
#[command(about = "Time each stage of a bake in-process, split into its parts.")]
struct Args {
    model: PathBuf,
    #[arg(long, default_value_t = 7)]
    runs: usize,
    #[arg(long, default_value_t = 30.0)]
    fps: f32,
    #[arg(long, default_value_t = 16_384)]
    max_width: usize,
    /// Zstandard levels to time `encode_ktx2` at (negative = zstd's fast levels).
    #[arg(long, value_delimiter = ',', default_value = "1,3,9", allow_hyphen_values = true)]
    levels: Vec<i32>,
    /// Folder for the write test (a file is written, synced and removed).
    #[arg(long, default_value = "target/bench/scratch")]
    scratch: PathBuf,
}

/// Median and min in ms of `runs` calls of `f` (after one warm-up call).
fn time<T>(runs: usize, mut f: impl FnMut() -> T) -> (f64, f64) {
    black_box(f());
    let samples: Vec<f64> = (0..runs)
        .map(|_| {
            let started = Instant::now();
            black_box(f());
            started.elapsed().as_secs_f64() * 1e3
        })
        .collect();
    (median(&samples), min(&samples))
}

struct Table {
    texels: f64,
    lines: Vec<String>,
}

impl Table {
    fn row(&mut self, stage: &str, part: &str, (median_ms, min_ms): (f64, f64)) {
        let line =
            format!("| {stage} | {part} | {median_ms:.1} | {min_ms:.1} | {:.1} |", median_ms * 1e6 / self.texels);
        eprintln!("{line}");
        self.lines.push(line);
    }
}

fn main() -> Result<()> {
    let args = Args::parse();
    let runs = args.runs.max(1);
    let bytes = vat_gltf::read_file(&args.model)?;
    let model = vat_gltf::load(&args.model, &bytes, &vat_gltf::Options::default())?.model;
    let points = model.points.len();
    let clips: Vec<(&vat_model::Clip, Vec<f32>)> = model
        .clips
        .iter()
        .map(|clip| {
            let duration = clip.duration();
            let rows = clip_rows(duration, args.fps);
            let times = if rows <= 1 {
                vec![0.0]
            } else {
                (0..rows).map(|k| (duration as f64 * k as f64 / (rows - 1) as f64) as f32).collect()
            };
            (clip, times)
        })
        .collect();
    let rows: usize = clips.iter().map(|c| c.1.len()).sum();
    let layout = Layout::new(points, rows, args.max_width);
    let texels = (points * rows) as f64;
    let mut table = Table { texels, lines: Vec::new() };
    println!(
        "{}: {points} points × {rows} rows = {} point-rows; texture {}×{} ({} bands), {} raw bytes; {runs} runs, \
         threads: RAYON_NUM_THREADS={}",
        args.model.display(),
        points * rows,
        layout.width,
        layout.height,
        layout.bands,
        layout.width * layout.height * 8,
        std::env::var("RAYON_NUM_THREADS").unwrap_or_else(|_| "unset".into())
    );

    table.row(
        "load",
        "read_file + vat_gltf::load",
        time(runs, || {
            let bytes = vat_gltf::read_file(&args.model).expect("read");
            vat_gltf::load(&args.model, &bytes, &vat_gltf::Options::default()).expect("load").model.points.len()
        }),
    );

    // Evaluate, whole and in parts.
    table.row(
        "evaluate",
        "vat_skin::evaluate_clip, all clips",
        time(runs, || {
            clips.iter().map(|(clip, times)| vat_skin::evaluate_clip(&model, Some(clip), times)).collect::<Vec<_>>()
        }),
    );
    table.row(
        "evaluate",
        "  of which Frames::new (allocate + zero)",
        time(runs, || clips.iter().map(|(_, times)| Frames::new(points, times.len())).collect::<Vec<_>>()),
    );
    table.row(
        "evaluate",
        "  of which sample_pose (all rows)",
        time(runs, || {
            let mut n = 0;
            for (clip, times) in &clips {
                for &t in times {
                    n += vat_skin::sample_pose(&model, Some(clip), t).locals.len();
                }
            }
            n
        }),
    );
    let mut row_positions = vec![Vec3::ZERO; points];
    let mut row_normals = vec![Vec3::ZERO; points];
    let poses: Vec<vat_skin::Pose> = clips
        .iter()
        .flat_map(|(clip, times)| times.iter().map(|&t| vat_skin::sample_pose(&model, Some(clip), t)))
        .collect();
    table.row(
        "evaluate",
        "  of which evaluate_pose into one reused row",
        time(runs, || {
            for pose in &poses {
                vat_skin::evaluate_pose(&model, pose, &mut row_positions, &mut row_normals);
            }
            row_positions[0]
        }),
    );

    let frames: Vec<Frames> =
        clips.iter().map(|(clip, times)| vat_skin::evaluate_clip(&model, Some(clip), times)).collect();
    table.row("bounds", "Bounds::of_frames", time(runs, || vat_bounds::Bounds::of_frames(&frames)));
    let bounds = vat_bounds::Bounds::of_frames(&frames);

    table.row("pack", "vat_bounds::pack", time(runs, || vat_bounds::pack(&layout, &bounds, &frames).0.len()));
    table.row(
        "pack",
        "  of which the texel buffer (allocate + first write)",
        time(runs, || {
            let mut texels = vec![0u16; layout.width * layout.height * 4];
            texels.fill(1);
            texels
        }),
    );
    table.row(
        "pack",
        "  of which encode_normal, every point-row",
        time(runs, || {
            frames
                .iter()
                .flat_map(|f| f.normals.iter())
                .fold(0u32, |a, &n| a.wrapping_add(u32::from(vat_bounds::encode_normal(n))))
        }),
    );
    table.row(
        "pack",
        "  of which encode_position + decode error check, every point-row",
        time(runs, || {
            frames.iter().flat_map(|f| f.positions.iter()).fold(0.0f32, |worst, &p| {
                let texel = vat_bounds::encode_position(p, &bounds);
                worst.max((vat_bounds::decode_position(texel, &bounds) - p).length())
            })
        }),
    );

    // What-ifs: the same texels without the per-texel error measurement, and the
    // frame buffers without their explicit zero fill, to size what those cost. Not
    // vatbake code; the nearest-code encoder is checked against the real one.
    let normals = || frames.iter().flat_map(|f| f.normals.iter().copied());
    let mismatched = normals().filter(|&n| what_if::nearest_normal_code(n) != vat_bounds::encode_normal(n)).count();
    table.row(
        "what-if",
        &format!("encode_normal without its error cosine ({mismatched} of {} codes differ)", points * rows),
        time(runs, || normals().fold(0u32, |a, n| a.wrapping_add(u32::from(what_if::nearest_normal_code(n))))),
    );
    table.row(
        "what-if",
        "encode_position without the decode error check",
        time(runs, || {
            frames.iter().flat_map(|f| f.positions.iter()).fold(0u32, |a, &p| {
                let t = vat_bounds::encode_position(p, &bounds);
                a.wrapping_add(u32::from(t[0]) + u32::from(t[1]) + u32::from(t[2]))
            })
        }),
    );
    let mut texels = vec![0u16; layout.width * layout.height * 4];
    let packed_by_what_if = {
        what_if::pack_without_errors(&layout, &bounds, &frames, &mut texels);
        texels == vat_bounds::pack(&layout, &bounds, &frames).0
    };
    table.row(
        "what-if",
        &format!(
            "pack into a reused buffer, no error measurement, one thread ({})",
            if packed_by_what_if { "same texels" } else { "texels DIFFER" }
        ),
        time(runs, || what_if::pack_without_errors(&layout, &bounds, &frames, &mut texels)),
    );
    drop(texels);
    table.row(
        "what-if",
        "frame buffers as calloc'd f32 (`vec![0.0f32; n]`) + one write pass, instead of Frames::new",
        time(runs, || {
            clips
                .iter()
                .map(|(_, times)| {
                    let mut positions = vec![0.0f32; points * times.len() * 3];
                    let mut normals = vec![0.0f32; points * times.len() * 3];
                    positions.fill(1.0);
                    normals.fill(1.0);
                    (positions, normals)
                })
                .collect::<Vec<_>>()
        }),
    );

    let (texels_u16, _) = vat_bounds::pack(&layout, &bounds, &frames);
    drop(frames);
    let image = vat_ktx2::Rgba16Image { width: layout.width as u32, height: layout.height as u32, texels: texels_u16 };
    let mut ktx2 = Vec::new();
    // The parts of encode_ktx2: the texels as little-endian bytes (a copy), then one
    // Zstandard frame with checksum and content size, as vat-ktx2 asks for it.
    let le_bytes = || image.texels.iter().flat_map(|t| t.to_le_bytes()).collect::<Vec<u8>>();
    table.row("encode", "  texels → little-endian bytes (the copy encode_ktx2 makes)", time(runs, le_bytes));
    let raw = le_bytes();
    for &level in &args.levels {
        let options = vat_ktx2::Ktx2Options { zstd_level: level, writer: "vat-bench stage-profile".into() };
        let timing = time(runs, || vat_ktx2::encode_ktx2(&image, &options).expect("encode").len());
        ktx2 = vat_ktx2::encode_ktx2(&image, &options)?;
        table.row("encode", &format!("encode_ktx2 level {level} → {} bytes", ktx2.len()), timing);
        table.row(
            "encode",
            &format!("  zstd::bulk level {level} alone on those bytes (checksum, content size)"),
            time(runs, || {
                let mut compressor = zstd::bulk::Compressor::new(level).expect("level");
                compressor.include_checksum(true).expect("checksum");
                compressor.include_contentsize(true).expect("content size");
                compressor.compress(&raw).expect("compress").len()
            }),
        );
    }
    drop(raw);

    std::fs::create_dir_all(&args.scratch)?;
    let path = args.scratch.join("stage-profile.ktx2");
    table.row(
        "write",
        &format!("{} bytes: create + write_all", ktx2.len()),
        time(runs, || {
            let mut file = std::fs::File::create(&path).expect("create");
            file.write_all(&ktx2).expect("write");
        }),
    );
    table.row(
        "write",
        "  + sync_data (what a durable write would add)",
        time(runs, || {
            let mut file = std::fs::File::create(&path).expect("create");
            file.write_all(&ktx2).expect("write");
            file.sync_data().expect("sync");
        }),
    );
    std::fs::remove_file(&path).context("cannot remove the write test file")?;

    println!("\n| stage | part | median ms | min ms | ns per point-row |\n|---|---|---:|---:|---:|");
    for line in &table.lines {
        println!("{line}");
    }
    Ok(())
}

/// Re-implementations of parts of vat-bounds (as of this writing) without their
/// error measurement, for timing only.
mod what_if {
    use glam::{Vec2, Vec3};
    use vat_bounds::Bounds;
    use vat_model::{Frames, Layout};

    fn sign_not_zero(v: Vec2) -> Vec2 {
        Vec2::new(if v.x >= 0.0 { 1.0 } else { -1.0 }, if v.y >= 0.0 { 1.0 } else { -1.0 })
    }

    fn oct_project(n: Vec3) -> Vec2 {
        let p = Vec2::new(n.x, n.y) / (n.x.abs() + n.y.abs() + n.z.abs());
        if n.z >= 0.0 {
            p
        } else {
            (Vec2::ONE - Vec2::new(p.y.abs(), p.x.abs())) * sign_not_zero(p)
        }
    }

    /// `vat_bounds::encode_normal`'s nearest octahedral code, without the cosine
    /// it also computes for the error report.
    pub fn nearest_normal_code(n: Vec3) -> u16 {
        let l1 = n.x.abs() + n.y.abs() + n.z.abs();
        let n = if l1 > 0.0 && l1.is_finite() { n } else { Vec3::Z };
        let p = (oct_project(n) * 0.5 + Vec2::splat(0.5)) * 255.0;
        let (x, y) = (((p.x + 0.5) as u16).min(255), ((p.y + 0.5) as u16).min(255));
        (x << 8) | y
    }

    /// `vat_bounds::pack`'s texels, on one thread, into a buffer the caller owns,
    /// measuring no error.
    pub fn pack_without_errors(layout: &Layout, bounds: &Bounds, clips: &[Frames], texels: &mut [u16]) {
        let rows: Vec<(usize, usize)> =
            clips.iter().enumerate().flat_map(|(c, frames)| (0..frames.rows).map(move |r| (c, r))).collect();
        for (y, line) in texels.chunks_exact_mut(layout.width * 4).enumerate() {
            let band = y / layout.rows;
            let (clip, row) = rows[y % layout.rows];
            let first = band * layout.width;
            let count = layout.points.saturating_sub(first).min(layout.width);
            let positions = &clips[clip].row_positions(row)[first..first + count];
            let normals = &clips[clip].row_normals(row)[first..first + count];
            for ((texel, &position), &normal) in line.chunks_exact_mut(4).zip(positions).zip(normals) {
                let rgb = vat_bounds::encode_position(position, bounds);
                texel.copy_from_slice(&[rgb[0], rgb[1], rgb[2], nearest_normal_code(normal)]);
            }
        }
    }
}
