//! `gen-big-model`: writes a large skinned, animated GLB subdivided from a real
//! fixture, for benchmarks. See the `vat_bench` crate docs for what it does.

use std::path::PathBuf;

use anyhow::{Context, Result};
use clap::Parser;
use vat_bench::{generate, Preset};

#[derive(Parser, Debug)]
#[command(version, about = "Write a large skinned, animated GLB subdivided from a real fixture, for benchmarks.")]
struct Args {
    /// The fixture to grow.
    #[arg(long, default_value = "fixtures/Fox/Fox.glb")]
    source: PathBuf,
    /// Workload: "reference" (28,374 points, 7 clips, 268 rows at 30 fps: the Blender
    /// comparison) or "spec" (30,000 points, 8 clips, 320 rows: SPEC §7).
    #[arg(long, default_value = "reference")]
    preset: String,
    /// Override the preset's point target.
    #[arg(long)]
    points: Option<usize>,
    /// Override the preset's clip count.
    #[arg(long)]
    clips: Option<usize>,
    /// Override the preset's total rows.
    #[arg(long)]
    rows: Option<u32>,
    /// Rate the rows are counted at.
    #[arg(long)]
    fps: Option<f32>,
    /// Drop materials and images.
    #[arg(long)]
    no_images: bool,
    /// Output .glb.
    #[arg(short = 'o', long = "out")]
    out: PathBuf,
    /// Print the summary as JSON.
    #[arg(long)]
    json: bool,
}

fn main() -> Result<()> {
    let args = Args::parse();
    let preset = Preset::by_name(&args.preset)
        .with_context(|| format!("--preset {}: the presets are \"reference\" and \"spec\"", args.preset))?;
    let mut plan = preset.plan();
    plan.points = args.points.unwrap_or(plan.points);
    plan.clips.clips = args.clips.unwrap_or(plan.clips.clips);
    plan.clips.rows = args.rows.unwrap_or(plan.clips.rows);
    plan.clips.fps = args.fps.unwrap_or(plan.clips.fps);
    plan.keep_images = !args.no_images;

    let generated = generate(&args.source, &plan)?;
    if let Some(dir) = args.out.parent().filter(|d| !d.as_os_str().is_empty()) {
        std::fs::create_dir_all(dir).with_context(|| format!("cannot create {}", dir.display()))?;
    }
    std::fs::write(&args.out, &generated.glb).with_context(|| format!("cannot write {}", args.out.display()))?;

    let s = &generated.subdivision;
    if args.json {
        let clips: Vec<_> = generated
            .clips
            .iter()
            .map(|(name, duration, rows)| serde_json::json!({ "name": name, "duration": duration, "rows": rows }))
            .collect();
        let summary = serde_json::json!({
            "file": args.out,
            "bytes": generated.glb.len(),
            "source": args.source,
            "preset": preset.name,
            "points": generated.points,
            "triangles": generated.triangles,
            "welded_points": s.welded_points,
            "levels": s.levels,
            "partial_edges": s.partial_edges,
            "rows": generated.rows(),
            "fps": plan.clips.fps,
            "clips": clips,
        });
        println!("{}", serde_json::to_string_pretty(&summary)?);
    } else {
        println!(
            "{}: {} points, {} triangles, {} clips, {} rows at {} fps, {} bytes",
            args.out.display(),
            generated.points,
            generated.triangles,
            generated.clips.len(),
            generated.rows(),
            plan.clips.fps,
            generated.glb.len()
        );
        println!(
            "  from {}: welded to {} points; whole levels {:?}; partial level split {} edges",
            args.source.display(),
            s.welded_points,
            s.levels,
            s.partial_edges
        );
        for (name, duration, rows) in &generated.clips {
            println!("  clip {name:<20} {duration:>7.3} s {rows:>4} rows");
        }
    }
    Ok(())
}
