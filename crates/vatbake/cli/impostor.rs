//! `vatbake impostor`: its flags, their settings, and what it prints.

use std::io::IsTerminal;
use std::path::PathBuf;

use clap::Args;

use crate::links::Links;
use crate::messages::{self, out};

#[derive(Args, Debug)]
pub struct ImpostorArgs {
    /// The description file (*.vat.json) of the vertex bake to draw.
    pub description: PathBuf,
    /// The folder to write <name>.impostor.json and its two atlases into [default: the description's folder].
    #[arg(short = 'o', long = "out", value_name = "DIR")]
    pub out: Option<PathBuf>,
    #[command(flatten)]
    pub options: vatbake::impostor::ImpostorOptions,
    /// Print what was written as JSON.
    #[arg(long)]
    pub json: bool,
    #[command(flatten)]
    pub links: Links,
    /// Say what was written even when stdout is not a terminal (on a terminal it is said anyway).
    #[arg(short, long, conflicts_with = "json")]
    pub verbose: bool,
}

/// Runs `vatbake impostor`: exit 0 when the files are written.
pub fn run(args: ImpostorArgs) -> anyhow::Result<u8> {
    args.links.apply();
    let settings =
        vatbake::impostor::ImpostorSettings { description: args.description, out: args.out, options: args.options };
    let report = vatbake::impostor::impostor(&settings)?;
    if args.json {
        out!("{}", serde_json::to_string_pretty(&report)?);
    } else if args.verbose || std::io::stdout().is_terminal() {
        print(&report);
    }
    Ok(0)
}

fn print(report: &vatbake::impostor::ImpostorReport) {
    let Some((sidecar, atlases)) = report.files.split_first() else { return };
    out!(
        "drew {} → {}: {}, {} frames × {} views = {} cells, atlases {}×{} ({:.1} MiB on a GPU, {:.1} MiB of files)",
        report.description.display(),
        sidecar.display(),
        messages::count(report.clips, "clip"),
        report.frames,
        report.views,
        report.cells,
        report.size[0],
        report.size[1],
        report.gpu_bytes as f64 / (1 << 20) as f64,
        report.file_bytes as f64 / (1 << 20) as f64,
    );
    for file in atlases {
        out!("  also {}", file.display());
    }
}
