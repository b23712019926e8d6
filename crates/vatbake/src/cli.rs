//! Command-line flags, and their one-time conversion into settings.

use std::path::PathBuf;

use clap::{Args, Parser, Subcommand};

use crate::audit::AuditSettings;
use crate::messages::Failure;
use crate::output::check_file_name;
use crate::settings::{BakeSettings, PointBudget, TextureFormat, DEFAULT_POINTS};
use crate::slots::Aliases;

/// Default Zstandard level: chosen by measurement (docs/PERFORMANCE.md).
pub const DEFAULT_ZSTD_LEVEL: i32 = vat_ktx2::DEFAULT_ZSTD_LEVEL;
pub const DEFAULT_MAX_WIDTH: u32 = 16_384;

#[derive(Parser, Debug)]
#[command(
    name = "vatbake",
    version,
    about = "Bake skinned, animated glTF characters into vertex animation textures (KTX2 + Zstd)."
)]
pub struct Cli {
    #[command(subcommand)]
    pub command: Command,
}

#[derive(Subcommand, Debug)]
pub enum Command {
    /// Bake one model: writes <name>.vat.ktx2, <name>.rest.glb and <name>.vat.json into OUTDIR.
    Bake(BakeArgs),
    /// Rebake a roster of units in parallel, skipping units whose source and settings are unchanged.
    Roster(RosterArgs),
    /// Check shipped description files against their source models, textures and the alias table.
    Audit(AuditArgs),
    /// Print the JSON Schema of the description file.
    Schema,
}

#[derive(Args, Debug)]
pub struct RosterArgs {
    /// The roster file (TOML): [defaults] and [[unit]] entries; paths in it are relative to it.
    pub roster: PathBuf,
    /// Output folder (overrides the roster's `output`); each unit goes to DIR/<name>/.
    #[arg(short = 'o', long = "out", value_name = "DIR")]
    pub out_dir: Option<PathBuf>,
    /// Units baked at once (default: one per core).
    #[arg(short, long, value_name = "N")]
    pub jobs: Option<usize>,
    /// Rebake every unit, changed or not.
    #[arg(long)]
    pub force: bool,
    /// Bake only the K-th of N deterministic shards of the roster (e.g. 2/4), to split it across machines.
    #[arg(long, value_name = "K/N", value_parser = crate::roster::parse_shard)]
    pub shard: Option<(usize, usize)>,
    /// Bake nothing: audit the roster's outputs against their sources (exit 1 on findings).
    #[arg(long)]
    pub check: bool,
    #[command(flatten)]
    pub output: OutputArgs,
}

#[derive(Args, Debug, Clone)]
pub struct OutputArgs {
    /// Print a machine-readable summary (JSON) on stdout.
    #[arg(long)]
    pub json: bool,
    /// Print nothing but errors.
    #[arg(short, long, conflicts_with = "verbose")]
    pub quiet: bool,
    /// Print the summary even when stdout is not a terminal, with per-clip and per-stage detail.
    #[arg(short, long)]
    pub verbose: bool,
}

/// How much to print.
pub struct Output {
    pub json: bool,
    pub quiet: bool,
    pub verbose: bool,
}

impl From<&OutputArgs> for Output {
    fn from(a: &OutputArgs) -> Self {
        Output { json: a.json, quiet: a.quiet, verbose: a.verbose }
    }
}

#[derive(Args, Debug)]
pub struct BakeArgs {
    /// The model: .glb, or .gltf with its .bin files or data URIs.
    pub input: PathBuf,
    /// Output folder (created if missing).
    #[arg(short = 'o', long = "out", value_name = "OUTDIR")]
    pub out_dir: PathBuf,
    /// Rows per second to sample each clip at.
    #[arg(long, default_value_t = 30.0)]
    pub fps: f32,
    /// Cap on rows per clip; longer clips are resampled evenly (their duration and rate are recorded).
    #[arg(long, value_name = "N")]
    pub max_frames: Option<u32>,
    /// Widest texture to write; more points wrap into bands (WebGL in headless Chromium: 8192; many phones: 4096).
    #[arg(long, default_value_t = DEFAULT_MAX_WIDTH, value_name = "TEXELS")]
    pub max_width: u32,
    /// Point budget: decimate to at most N points, nearby points merged, never across a uv seam or a
    /// material (the texture has one column per point); "all" bakes every point.
    /// [default: 4000, raised to the fewest points that keep every uv island when that is more]
    #[arg(long, value_name = "N|all")]
    pub points: Option<PointBudget>,
    /// Bake only these clips, by name (unnamed clips are "animation_<index>"), in this order.
    #[arg(long, value_delimiter = ',', value_name = "A,B")]
    pub clips: Option<Vec<String>>,
    /// Stem of the output file names (default: the input's file stem).
    #[arg(long, value_name = "STEM")]
    pub name: Option<String>,
    /// Zstandard level for the texture (1–22: higher is smaller and slower; -1 to -7: zstd's fastest modes).
    #[arg(long, default_value_t = DEFAULT_ZSTD_LEVEL, value_name = "LEVEL", allow_negative_numbers = true)]
    pub zstd_level: i32,
    /// Texture file format; png is a 16-bit fallback for tools that cannot read KTX2.
    #[arg(long, value_enum, default_value = "ktx2", value_name = "FORMAT")]
    pub texture_format: TextureFormat,
    /// Scene to bake (default: the file's default scene).
    #[arg(long, value_name = "INDEX")]
    pub scene: Option<usize>,
    /// Bake even when the evaluated mesh is far from the size its skeleton gives it in the bind pose.
    #[arg(long)]
    pub no_size_guard: bool,
    /// Joint influences kept per point, the strongest, renormalized (1–8; default: every one the file has).
    /// 4 bakes what a runtime that reads only JOINTS_0/WEIGHTS_0 (three.js's SkinnedMesh) shows.
    #[arg(long, value_name = "N")]
    pub max_influences: Option<usize>,
    /// Alias table (TOML) of the game's slots and the clip names each accepts; replaces the built-in table.
    #[arg(long, value_name = "FILE")]
    pub aliases: Option<PathBuf>,
    /// Make clip-name warnings errors: unassigned or unnamed clips, two clips for one slot, lookalikes, the fallback.
    #[arg(long)]
    pub strict: bool,
    /// Merge every set of animations with the same time range and no shared node property into one
    /// clip, whatever their names (default: only animations of one take split per node, or unnamed ones).
    #[arg(long, conflicts_with = "no_merge_clips")]
    pub merge_clips: bool,
    /// Keep every source animation its own clip, even one take split into one animation per node.
    #[arg(long)]
    pub no_merge_clips: bool,
    /// Threads to bake with (default: one per core). The files are the same for any count.
    #[arg(long, value_name = "N")]
    pub threads: Option<usize>,
    #[command(flatten)]
    pub output: OutputArgs,
}

impl BakeArgs {
    pub fn into_settings(self) -> Result<BakeSettings, Failure> {
        if !(self.fps.is_finite() && self.fps > 0.0 && self.fps <= 1000.0) {
            return Err(Failure::usage(format!("--fps {}: give a rate between 0 and 1000 rows per second", self.fps)));
        }
        if self.max_frames == Some(0) {
            return Err(Failure::usage("--max-frames 0: a clip needs at least one row"));
        }
        if self.max_width == 0 {
            return Err(Failure::usage("--max-width 0: give the widest texture your target GPU accepts, e.g. 4096"));
        }
        if self.max_influences.is_some_and(|n| !(1..=vat_model::MAX_INFLUENCES).contains(&n)) {
            return Err(Failure::usage(format!(
                "--max-influences {}: give 1 to {} joint influences per point",
                self.max_influences.unwrap_or_default(),
                vat_model::MAX_INFLUENCES
            )));
        }
        if !(-7..=22).contains(&self.zstd_level) {
            return Err(Failure::usage(format!(
                "--zstd-level {}: Zstandard levels run from 1 to 22, and -1 to -7 for its fastest modes",
                self.zstd_level
            )));
        }
        let name = match self.name {
            Some(n) => n,
            None => self.input.file_stem().map(|s| s.to_string_lossy().into_owned()).ok_or_else(|| {
                Failure::usage(format!("{}: no file name to name the outputs after; pass --name", self.input.display()))
            })?,
        };
        check_file_name(&name).map_err(|e| Failure::usage(format!("--name: {e}")))?;
        Ok(BakeSettings {
            input: self.input,
            out_dir: self.out_dir,
            name,
            fps: self.fps,
            max_frames: self.max_frames,
            max_width: self.max_width,
            points: self.points.unwrap_or(PointBudget::Count(DEFAULT_POINTS)),
            points_given: self.points.is_some(),
            clips: self.clips,
            zstd_level: self.zstd_level,
            texture_format: self.texture_format,
            scene: self.scene,
            size_guard: !self.no_size_guard,
            max_influences: self.max_influences,
            aliases: Aliases::load(self.aliases.as_deref())?,
            strict: self.strict,
            merge_clips: match (self.merge_clips, self.no_merge_clips) {
                (true, _) => vat_gltf::MergeClips::Always,
                (_, true) => vat_gltf::MergeClips::Never,
                _ => vat_gltf::MergeClips::Auto,
            },
        })
    }
}

#[derive(Args, Debug)]
pub struct AuditArgs {
    /// Description files (*.vat.json), or folders searched for them recursively [default: .]
    #[arg(value_name = "PATHS")]
    pub paths: Vec<PathBuf>,
    /// Folder of the source models, searched recursively by the file name each description records
    /// (default: beside each description, then one folder up).
    #[arg(long, value_name = "DIR")]
    pub sources: Option<PathBuf>,
    /// Alias table (TOML) to check the slots against; replaces the built-in table.
    #[arg(long, value_name = "FILE")]
    pub aliases: Option<PathBuf>,
    /// Output: one line per finding grouped by unit, or JSON (docs/AUDIT.md).
    #[arg(long, value_enum, default_value = "text", value_name = "FORMAT")]
    pub format: AuditFormat,
}

/// How the audit prints its findings.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum AuditFormat {
    Text,
    Json,
}

impl AuditArgs {
    pub fn into_settings(self) -> Result<AuditSettings, Failure> {
        if let Some(dir) = &self.sources {
            if !dir.is_dir() {
                return Err(Failure::usage(format!(
                    "--sources {}: not a folder; give the folder that holds the source models",
                    dir.display()
                )));
            }
        }
        let paths = if self.paths.is_empty() { vec![PathBuf::from(".")] } else { self.paths };
        Ok(AuditSettings {
            paths,
            sources: self.sources,
            aliases: Aliases::load(self.aliases.as_deref())?,
            format: self.format,
            known_sources: Default::default(),
        })
    }
}
