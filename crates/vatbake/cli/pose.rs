//! `vatbake pose`: its flags, and what it prints. The work is `vatbake::pose`.

use std::io::IsTerminal;
use std::path::PathBuf;

use clap::Args;
use vatbake::pose::{PoseOf, PoseReport, PoseSettings};

use crate::links::Links;
use crate::messages::{self, out};

#[derive(Args, Debug)]
pub struct PoseArgs {
    /// The model (.glb, .gltf) to pose with --clip and --time (neither: its rest pose), or a bake's description (*.vat.json) to pose with --row.
    #[arg(value_name = "MODEL|DESCRIPTION")]
    pub input: PathBuf,
    /// The clip to pose, by name, as a bake names it (takes split per node merged; an unknown name lists them).
    #[arg(long, value_name = "NAME", requires = "time")]
    pub clip: Option<String>,
    /// Seconds on the clip's timeline, from 0 to its duration (a time past the end is refused, naming the duration).
    #[arg(long, value_name = "SECONDS", requires = "clip", allow_negative_numbers = true)]
    pub time: Option<f32>,
    /// The row of a finished bake's texture to pose (0 is the first clip's first row), decoded onto its rest mesh.
    #[arg(long, value_name = "N", conflicts_with_all = ["clip", "time"])]
    pub row: Option<usize>,
    /// The GLB to write [default: <name>.pose.glb in the current folder].
    #[arg(short = 'o', long = "out", value_name = "FILE.glb")]
    pub out: Option<PathBuf>,
    /// Print what was written as JSON.
    #[arg(long)]
    pub json: bool,
    /// Print nothing but errors.
    #[arg(short, long, conflicts_with_all = ["verbose", "json"])]
    pub quiet: bool,
    /// Say what was written even when stdout is not a terminal (on a terminal it is said anyway).
    #[arg(short, long, conflicts_with = "json")]
    pub verbose: bool,
    #[command(flatten)]
    pub links: Links,
}

impl PoseArgs {
    fn settings(&self) -> PoseSettings {
        let of = match (&self.row, &self.clip, self.time) {
            (Some(row), _, _) => PoseOf::Row(*row),
            (None, Some(name), Some(time)) => PoseOf::Clip { name: name.clone(), time },
            _ => PoseOf::Rest,
        };
        let out = self.out.clone().unwrap_or_else(|| {
            let name = self.input.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
            let lower = name.to_lowercase();
            let stem = [".vat.json", ".glb", ".gltf"]
                .iter()
                .find(|suffix| lower.ends_with(*suffix))
                .map_or(name.as_str(), |suffix| &name[..name.len() - suffix.len()]);
            PathBuf::from(format!("{}.pose.glb", if stem.is_empty() { "model" } else { stem }))
        });
        PoseSettings { input: self.input.clone(), of, out }
    }
}

/// Runs `vatbake pose`: quiet on success unless on a terminal or `-v`, JSON with `--json`.
pub fn run(args: PoseArgs) -> anyhow::Result<u8> {
    args.links.apply();
    let report = vatbake::pose::pose(&args.settings())?;
    if !args.quiet && !args.json {
        messages::warnings(report.warnings.iter().map(|w| (None, w)));
    }
    if args.json {
        out!("{}", serde_json::to_string_pretty(&report)?);
    } else if !args.quiet && (args.verbose || std::io::stdout().is_terminal()) {
        summary(&report);
    }
    Ok(0)
}

/// One line: what was posed, where it went, its size and the guard's two heights.
fn summary(r: &PoseReport) {
    let what = match (&r.clip, r.time, r.row) {
        (clip, Some(time), Some(row)) => {
            format!("row {row} (clip \"{}\" at {time:.3} s)", clip.as_deref().unwrap_or("?"))
        }
        (_, _, Some(row)) => format!("row {row}"),
        (Some(clip), Some(time), None) => format!("clip \"{clip}\" at {time:.3} s"),
        _ => "the rest pose".to_string(),
    };
    out!(
        "posed {} {what} → {}: {} vertices, {}, {}, {}; height {:.4} (read back {:.4}), {:.0} ms",
        r.input.display(),
        r.file.display(),
        r.vertices,
        messages::count(r.triangles, "triangle"),
        messages::count(r.materials, "material"),
        messages::bytes(r.bytes),
        r.height,
        r.written_height,
        r.elapsed_ms
    );
}
