//! Command-line flags, and their one-time conversion into settings.

use std::path::PathBuf;

use clap::{Args, Parser, Subcommand};

use vatbake::settings::{BakeOptions, BakeSettings};
use vatbake::{AuditSettings, Error};

use vatbake::slots::Aliases;

use crate::links::Links;

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

// One value per run, parsed once: the bake's many settings make its variant large, and
// boxing it would buy nothing.
#[allow(clippy::large_enum_variant)]
#[derive(Subcommand, Debug)]
pub enum Command {
    /// Bake one model (or several, one after another): writes <name>.vat.ktx2, <name>.rest.glb and <name>.vat.json into OUTDIR.
    Bake(BakeArgs),
    /// Rebake a roster of units in parallel, skipping units whose source and settings are unchanged.
    Roster(RosterArgs),
    /// Check shipped description files against their source models, textures and the alias table.
    Audit(AuditArgs),
    /// Summarize a file: a description (.vat.json), a texture (.vat.ktx2, header only), a rest mesh (.rest.glb), or a source model (.glb/.gltf: its clips and their slots).
    Inspect(InspectArgs),
    /// Decode a shipped texture and compare it with a fresh evaluation of its source (exit 1 when a clip is off).
    Verify(VerifyArgs),
    /// Draw what a bake ships: a contact sheet of every clip from the decoded texture and the rest mesh.
    Preview(PreviewArgs),
    /// Freeze one pose into a static GLB: a clip at a time of a model, or a row of a finished bake (checked by its bounding-box height).
    Pose(crate::pose::PoseArgs),
    /// Draw a vertex bake into an animated impostor: every clip from a ring of views into two 8-bit atlases (KTX2) and <name>.impostor.json.
    Impostor(crate::impostor::ImpostorArgs),
    /// Print the JSON Schema of the description file.
    Schema,
    /// Print a shell completion script (e.g. `vatbake completions bash > /etc/bash_completion.d/vatbake`).
    Completions {
        /// The shell to complete for.
        #[arg(value_enum)]
        shell: clap_complete::Shell,
    },
    /// Print the manual page (roff) of vatbake, or of one of its commands (`vatbake man bake | man -l -`).
    Man {
        /// The command whose page to print (bake, roster, audit, …); none: vatbake itself.
        command: Option<String>,
    },
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
    #[arg(long, value_name = "K/N", value_parser = vatbake::roster::parse_shard)]
    pub shard: Option<(usize, usize)>,
    /// Bake nothing: audit the roster's outputs against their sources (exit 1 on findings).
    #[arg(long)]
    pub check: bool,
    /// Bake nothing: decode every unit's texture and compare it with its source (exit 1 when one is off).
    #[arg(long, conflicts_with_all = ["check", "force"])]
    pub verify: bool,
    /// Bake nothing: draw one contact sheet per unit, <name>.sheet.png beside its bake (default picture settings of `vatbake preview`).
    #[arg(long, conflicts_with_all = ["check", "force", "verify"])]
    pub preview: bool,
    /// `--no-durable` and `--keep-stale`, for every unit: `vatbake bake`'s flags, from
    /// their one declaration in [`BakeOptions`].
    #[command(flatten)]
    pub writing: Writing,
    /// Warn when the units' textures take more GPU memory together than this (raw texel bytes), e.g. 1GiB.
    #[arg(long, value_name = "BYTES", value_parser = vatbake::settings::parse_bytes)]
    pub gpu_budget: Option<u64>,
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

impl Command {
    /// Whether the command was asked for JSON on stdout: a failure is then an error
    /// object there too.
    pub fn json(&self) -> bool {
        match self {
            Command::Bake(a) => a.output.json,
            Command::Roster(a) => a.output.json,
            Command::Audit(a) => a.output_format() == AuditFormat::Json,
            Command::Inspect(a) => a.json,
            Command::Verify(a) => a.json,
            Command::Preview(a) => a.json,
            Command::Pose(a) => a.json,
            Command::Impostor(a) => a.json,
            _ => false,
        }
    }

    /// The file the command was given (the model, the roster, the description), for
    /// the `file` of a JSON error.
    pub fn file(&self) -> Option<&std::path::Path> {
        match self {
            Command::Bake(a) => a.input.first().map(PathBuf::as_path),
            Command::Roster(a) => Some(&a.roster),
            Command::Inspect(a) => Some(&a.file),
            Command::Verify(a) => Some(&a.description),
            Command::Preview(a) => Some(&a.description),
            Command::Pose(a) => Some(&a.input),
            Command::Impostor(a) => Some(&a.description),
            Command::Audit(a) => a.paths.first().map(PathBuf::as_path),
            _ => None,
        }
    }
}

impl From<&OutputArgs> for Output {
    fn from(a: &OutputArgs) -> Self {
        Output { json: a.json, quiet: a.quiet, verbose: a.verbose }
    }
}

/// `vatbake bake`: the model, the folder, the bake's options (declared once, with the
/// roster's keys, in [`BakeOptions`]) and what concerns this run alone.
#[derive(Args, Debug)]
pub struct BakeArgs {
    /// The model: .glb, or .gltf with its .bin files or data URIs; several models bake one after another into OUTDIR, each named after its file.
    #[arg(required = true, num_args = 1.., value_name = "INPUT")]
    pub input: Vec<PathBuf>,
    /// Output folder (created if missing).
    #[arg(short = 'o', long = "out", value_name = "OUTDIR")]
    pub out_dir: PathBuf,
    #[command(flatten)]
    pub options: BakeOptions,
    /// Threads to bake with (default: one per core). The files are the same for any count.
    #[arg(long, value_name = "N")]
    pub threads: Option<usize>,
    /// The default (the files are synced unless --no-durable); accepted so that scripts written when it was not still run.
    #[arg(long, hide = true, conflicts_with = "no_durable")]
    pub durable: bool,
    /// Warnings not to print, by code (comma-separated, e.g. unassigned-clips,duplicate-slot; docs/CLI.md lists them); --json still reports them.
    #[arg(long, value_delimiter = ',', value_name = "CODES")]
    pub no_warn: Vec<String>,
    /// Bake in memory and say what the bake would write (sizes, clips and slots, warnings), writing nothing anywhere.
    #[arg(long)]
    pub dry_run: bool,
    #[command(flatten)]
    pub output: OutputArgs,
}

impl BakeArgs {
    /// The flags as settings, one per model, checked once by [`BakeOptions::settings`]
    /// before anything is baked.
    pub fn into_settings(self) -> Result<Vec<BakeSettings>, Error> {
        if self.input.len() > 1 && self.options.name.is_some() {
            return Err(Error::usage(
                "--name names one bake; with several models each is named after its file (or use a roster)",
            ));
        }
        let mut all: Vec<BakeSettings> = Vec::new();
        for input in self.input {
            let settings = self.options.clone().settings(input, self.out_dir.clone())?;
            if let Some(other) = all.iter().find(|s| s.name == settings.name) {
                return Err(Error::usage(format!(
                    "{} and {}: both would bake to {} in {}; bake them into different folders, or use a roster \
                     with a name per unit",
                    other.input.display(),
                    settings.input.display(),
                    settings.description_file(),
                    settings.out_dir.display()
                )));
            }
            all.push(settings);
        }
        Ok(all)
    }
}

/// The bake options that `vatbake roster` takes for every unit (how the files are
/// written): the arguments [`BakeOptions`] declares for `vatbake bake`, taken from that
/// declaration, so that both commands have the same flags with the same help (and a
/// roster file the same keys).
#[derive(Debug, Default, Clone, PartialEq)]
pub struct Writing {
    /// `--no-durable`.
    pub no_durable: bool,
    /// `--keep-stale`.
    pub keep_stale: bool,
}

impl Writing {
    /// The ids of the arguments taken from [`BakeOptions`].
    const IDS: [&'static str; 2] = ["no_durable", "keep_stale"];
}

impl clap::FromArgMatches for Writing {
    fn from_arg_matches(matches: &clap::ArgMatches) -> Result<Self, clap::Error> {
        Ok(Writing { no_durable: matches.get_flag("no_durable"), keep_stale: matches.get_flag("keep_stale") })
    }

    fn update_from_arg_matches(&mut self, matches: &clap::ArgMatches) -> Result<(), clap::Error> {
        *self = Writing::from_arg_matches(matches)?;
        Ok(())
    }
}

impl Args for Writing {
    fn augment_args(command: clap::Command) -> clap::Command {
        let bake = BakeOptions::augment_args(clap::Command::new("bake"));
        Writing::IDS.iter().fold(command, |command, id| {
            let arg = bake.get_arguments().find(|a| a.get_id() == id);
            command.arg(arg.expect("BakeOptions declares every flag Writing takes").clone())
        })
    }

    fn augment_args_for_update(command: clap::Command) -> clap::Command {
        Writing::augment_args(command)
    }
}

#[derive(Args, Debug)]
pub struct InspectArgs {
    /// The file: a description (*.vat.json), a texture (*.vat.ktx2, *.vat.png), a rest mesh (*.rest.glb) or a source model (.glb, .gltf).
    pub file: PathBuf,
    /// Print the summary as JSON.
    #[arg(long)]
    pub json: bool,
    #[command(flatten)]
    pub links: Links,
}

#[derive(Args, Debug)]
pub struct VerifyArgs {
    /// The description file (*.vat.json) of the bake to verify.
    pub description: PathBuf,
    /// The source model to compare with (default: the file the description names, where the bake recorded it, beside it or one folder up).
    #[arg(long, value_name = "MODEL")]
    pub source: Option<PathBuf>,
    /// Print the report as JSON.
    #[arg(long)]
    pub json: bool,
    #[command(flatten)]
    pub links: Links,
}

#[derive(Args, Debug)]
pub struct PreviewArgs {
    /// The description file (*.vat.json) of the bake to draw.
    pub description: PathBuf,
    /// The contact sheet to write (PNG) [default: <name>.sheet.png beside the description].
    #[arg(short = 'o', long = "out", alias = "output", value_name = "FILE")]
    pub sheet: Option<PathBuf>,
    /// Frames per clip, spread evenly over its rows (first and last included).
    #[arg(long, default_value_t = 6, value_name = "N", value_parser = clap::value_parser!(u32).range(1..=64))]
    pub frames: u32,
    /// Size of one frame in pixels.
    #[arg(long, default_value = "160x160", value_name = "WxH", value_parser = parse_size)]
    pub size: (u32, u32),
    /// Draw only these clips, in this order (comma-separated names).
    #[arg(long, value_delimiter = ',', value_name = "NAMES")]
    pub clips: Option<Vec<String>>,
    /// Where the camera looks from: front (along -Z), side (from +X) or top (down -Y).
    #[arg(long, default_value = "front", value_parser = ["front", "side", "top"])]
    pub view: String,
    /// Also write the texture as 8-bit pictures: <stem>.positions.png and <stem>.normals.png.
    #[arg(long)]
    pub texture: bool,
    /// Also write every row of this clip as an animated PNG: <stem>.<clip>.apng.png.
    #[arg(long, value_name = "CLIP")]
    pub animate: Option<String>,
    /// Print what was written as JSON.
    #[arg(long)]
    pub json: bool,
    #[command(flatten)]
    pub links: Links,
    /// Say what was written even when stdout is not a terminal (on a terminal it is said anyway).
    #[arg(short, long, conflicts_with = "json")]
    pub verbose: bool,
}

/// `WxH` with both between 16 and 2048 pixels.
fn parse_size(text: &str) -> Result<(u32, u32), String> {
    let (w, h) = text.split_once(['x', 'X']).ok_or_else(|| format!("\"{text}\" is not WxH, like 160x160"))?;
    let side = |s: &str| {
        s.trim()
            .parse::<u32>()
            .ok()
            .filter(|v| (16..=2048).contains(v))
            .ok_or_else(|| format!("\"{text}\": each side must be a whole number of pixels from 16 to 2048"))
    };
    Ok((side(w)?, side(h)?))
}

impl PreviewArgs {
    /// The library's settings for these flags.
    pub fn into_settings(self) -> vatbake::preview::PreviewSettings {
        let sheet = self.sheet.unwrap_or_else(|| {
            let name = self.description.file_name().and_then(|n| n.to_str()).unwrap_or("unit");
            let stem = name.strip_suffix(".vat.json").unwrap_or(name);
            self.description.with_file_name(format!("{stem}.sheet.png"))
        });
        vatbake::preview::PreviewSettings {
            sheet,
            frames: self.frames,
            width: self.size.0,
            height: self.size.1,
            clips: self.clips,
            view: vat_preview_view(&self.view),
            texture: self.texture,
            animate: self.animate,
            description: self.description,
        }
    }
}

fn vat_preview_view(name: &str) -> vatbake::preview::View {
    match name {
        "side" => vatbake::preview::View::Side,
        "top" => vatbake::preview::View::Top,
        _ => vatbake::preview::View::Front,
    }
}

#[derive(Args, Debug)]
pub struct AuditArgs {
    /// Description files (*.vat.json), or folders searched for them recursively [default: .]
    #[arg(value_name = "PATHS")]
    pub paths: Vec<PathBuf>,
    /// Folder of the source models, searched recursively by the file name each description records
    /// (default: where each description records it, beside it, then one folder up).
    #[arg(long, value_name = "DIR")]
    pub sources: Option<PathBuf>,
    /// Alias table (TOML) to check the slots against; replaces the built-in table.
    #[arg(long, value_name = "FILE")]
    pub aliases: Option<PathBuf>,
    /// Print the findings as one JSON document (docs/AUDIT.md) instead of a line per finding.
    #[arg(long)]
    pub json: bool,
    /// The old spelling of --json (`--format json`), still read; --format means a bake's export elsewhere.
    #[arg(long, value_enum, default_value = "text", value_name = "FORMAT", hide = true)]
    pub format: AuditFormat,
    #[command(flatten)]
    pub links: Links,
}

/// How the audit prints its findings.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum AuditFormat {
    Text,
    Json,
}

impl AuditArgs {
    /// How to print: `--json`, or the old `--format json`.
    pub fn output_format(&self) -> AuditFormat {
        if self.json {
            AuditFormat::Json
        } else {
            self.format
        }
    }

    /// The audit's settings (the output format is the binary's).
    pub fn settings(&self) -> Result<AuditSettings, Error> {
        if let Some(dir) = &self.sources {
            if !dir.is_dir() {
                return Err(Error::usage(format!(
                    "--sources {}: not a folder; give the folder that holds the source models",
                    dir.display()
                )));
            }
        }
        let paths = if self.paths.is_empty() { vec![PathBuf::from(".")] } else { self.paths.clone() };
        Ok(AuditSettings {
            paths,
            sources: self.sources.clone(),
            aliases: Aliases::load(self.aliases.as_deref())?,
            known_sources: Default::default(),
        })
    }
}

/// The completion script for `shell`, made from the flag definitions.
pub fn completions(shell: clap_complete::Shell) -> String {
    let mut command = <Cli as clap::CommandFactory>::command();
    let mut script = Vec::new();
    clap_complete::generate(shell, &mut command, "vatbake", &mut script);
    String::from_utf8_lossy(&script).into_owned()
}

/// The manual page (roff) of vatbake, or of one of its commands.
pub fn man_page(command: Option<&str>) -> Result<String, Error> {
    let mut vatbake = <Cli as clap::CommandFactory>::command();
    vatbake.build();
    let page = match command {
        None => vatbake,
        Some(name) => vatbake
            .find_subcommand(name)
            .cloned()
            .map(|c| c.display_name(format!("vatbake-{name}")).bin_name(format!("vatbake {name}")))
            .ok_or_else(|| Error::usage(format!("vatbake man {name}: no such command; see vatbake --help")))?,
    };
    let mut roff = Vec::new();
    clap_mangen::Man::new(page)
        .render(&mut roff)
        .map_err(|e| Error::output(format!("cannot write the manual page: {e}")))?;
    Ok(String::from_utf8_lossy(&roff).into_owned())
}

#[cfg(test)]
mod tests {
    use super::*;
    use clap::CommandFactory;
    use std::collections::BTreeSet;

    /// The long options in the first column of the option table of `## \`vatbake NAME\``.
    fn documented(name: &str) -> BTreeSet<String> {
        let doc = include_str!("../../../docs/CLI.md");
        let heading = format!("## `vatbake {name}`");
        let section = doc.split(&heading).nth(1).unwrap_or_else(|| panic!("docs/CLI.md has no {heading}"));
        let section = section.split("\n## ").next().unwrap();
        let mut options = BTreeSet::new();
        for row in section.lines().filter(|l| l.starts_with("| `")) {
            let first = row.split('|').nth(1).unwrap();
            for word in first.split(|c: char| !(c.is_ascii_alphanumeric() || c == '-')) {
                if let Some(long) = word.strip_prefix("--").filter(|w| !w.is_empty()) {
                    options.insert(long.to_string());
                }
            }
        }
        options
    }

    /// The long options `vatbake NAME --help` lists (help itself aside; a hidden old
    /// spelling such as audit's `--format` is not listed, so the docs need not list it).
    fn in_help(name: &str) -> BTreeSet<String> {
        let cli = Cli::command();
        let command = cli.find_subcommand(name).unwrap();
        command
            .get_arguments()
            .filter(|a| !a.is_hide_set())
            .filter_map(|a| a.get_long())
            .filter(|&long| long != "help")
            .map(str::to_string)
            .collect()
    }

    #[test]
    fn completions_and_man_pages_come_from_the_same_flags() {
        let bash = completions(clap_complete::Shell::Bash);
        assert!(bash.starts_with("_vatbake() {"), "{}", &bash[..40]);
        for option in in_help("bake") {
            assert!(bash.contains(&format!("--{option}")), "bash completion lacks --{option}");
        }
        let fish = completions(clap_complete::Shell::Fish);
        assert!(fish.contains("-l max-influences"), "fish completion lacks --max-influences");
        let page = man_page(Some("bake")).unwrap();
        assert!(page.contains(".TH vatbake-bake 1"), "{}", &page[..200]);
        assert!(page.contains("\\fB\\-\\-max\\-influences\\fR"));
        assert!(man_page(None).unwrap().contains(".SH SUBCOMMANDS"));
        let error = man_page(Some("nope")).unwrap_err();
        assert_eq!(
            (error.kind, error.message.as_str()),
            (vatbake::ErrorKind::Usage, "vatbake man nope: no such command; see vatbake --help")
        );
    }

    #[test]
    fn docs_cli_md_lists_every_option_of_every_command_and_no_other() {
        for name in ["bake", "roster", "audit", "inspect", "verify", "preview", "impostor"] {
            assert_eq!(documented(name), in_help(name), "docs/CLI.md and `vatbake {name} --help` disagree");
        }
    }

    /// The help of `vatbake bake --LONG`.
    fn bake_help(long: &str) -> String {
        let cli = Cli::command();
        let bake = cli.find_subcommand("bake").unwrap();
        let arg = bake.get_arguments().find(|a| a.get_long() == Some(long)).unwrap_or_else(|| panic!("no --{long}"));
        arg.get_help().map(ToString::to_string).unwrap_or_default()
    }

    /// The first word of the default column of `--LONG`'s row in docs/CLI.md's bake table.
    fn documented_default(long: &str) -> String {
        let doc = include_str!("../../../docs/CLI.md");
        let section = doc.split("## `vatbake bake`").nth(1).unwrap().split("\n## ").next().unwrap();
        // Cells split at the bars that are not escaped (`N\|all`).
        let cells = |row: &str| row.replace("\\|", "/").split('|').map(|c| c.trim().to_string()).collect::<Vec<_>>();
        let row = section
            .lines()
            .filter(|l| l.starts_with("| `"))
            .map(cells)
            .find(|cells| cells[1].split([' ', ',']).any(|w| w == format!("`--{long}")))
            .unwrap_or_else(|| panic!("docs/CLI.md's bake table has no row for --{long}"));
        let cell = &row[2];
        cell.trim_start_matches('`').split(['`', ' ', '(']).next().unwrap().to_string()
    }

    #[test]
    fn bake_defaults_in_help_and_docs_cli_md_are_the_code_defaults() {
        let s = BakeOptions::default().settings("unit.glb".into(), "out".into()).unwrap();
        let bits = match s.precision {
            vatbake::settings::Precision::Full => "16".to_string(),
            other => panic!("the default grid is every step, not {other:?}"),
        };
        let defaults = [
            ("fps", s.fps.to_string()),
            ("max-width", s.max_width.to_string()),
            ("points", s.points.to_string()),
            ("zstd-level", s.zstd_level.to_string()),
            ("delta", s.delta.as_str().to_string()),
            ("format", s.format.as_str().to_string()),
            ("target", s.target.as_str().to_string()),
            ("texture-format", s.texture_format.to_string()),
            ("column-order", s.column_order.as_str().to_string()),
            ("bits", bits),
            ("mode", s.mode.as_str().to_string()),
            ("normals", s.normals.as_str().to_string()),
            ("rest-mesh", s.rest_mesh.as_str().to_string()),
            ("bone-encoding", s.bone_encoding.as_str().to_string()),
            ("root-motion", s.root_motion.default.as_str().to_string()),
        ];
        for (long, code) in defaults {
            assert_eq!(documented_default(long), code, "docs/CLI.md's default of --{long} is not the code's");
            let help = bake_help(long);
            let shown = help.split("[default: ").nth(1).map(|d| d.split([']', ',', ';']).next().unwrap());
            match shown {
                Some(shown) => assert_eq!(shown, code, "`vatbake bake --help`'s default of --{long} is not the code's"),
                None => assert!(
                    ["normals", "root-motion"].contains(&long),
                    "`vatbake bake --help` shows no [default: …] for --{long}: {help}"
                ),
            }
        }
    }

    #[test]
    fn format_and_target_take_every_registry_member_with_its_help_line() {
        let cli = Cli::command();
        let bake = cli.find_subcommand("bake").unwrap();
        let choices = |long: &str| -> Vec<(String, String)> {
            let arg = bake.get_arguments().find(|a| a.get_long() == Some(long)).unwrap();
            arg.get_possible_values()
                .iter()
                .map(|v| (v.get_name().to_string(), v.get_help().map(ToString::to_string).unwrap_or_default()))
                .collect()
        };
        let formats: Vec<(String, String)> = <vatbake::settings::OutputFormat as strum::IntoEnumIterator>::iter()
            .map(|f| (f.to_string(), f.about().to_string()))
            .collect();
        let targets: Vec<(String, String)> = <vatbake::settings::Target as strum::IntoEnumIterator>::iter()
            .map(|t| (t.to_string(), t.about().to_string()))
            .collect();
        assert_eq!((formats.len(), targets.len()), (5, 6));
        assert_eq!(choices("format"), formats);
        assert_eq!(choices("target"), targets);
        let parsed =
            Cli::try_parse_from(["vatbake", "bake", "a.glb", "-o", "out", "--target", "unreal", "--format", "vat3"]);
        match parsed.unwrap().command {
            Command::Bake(args) => {
                assert_eq!(args.options.target, Some(vatbake::settings::Target::Unreal));
                assert_eq!(args.options.format, Some(vatbake::settings::OutputFormat::Vat3));
            }
            _ => panic!("not a bake"),
        }
    }

    /// The keys a roster unit takes: `BakeOptions`' fields, as serde lists them when it
    /// meets a key it does not know.
    fn roster_keys() -> BTreeSet<String> {
        let error = toml::from_str::<BakeOptions>("no_such_key = 1").unwrap_err();
        let message = error.message();
        let expected = message.split("expected one of").nth(1).unwrap_or_else(|| panic!("{message}"));
        expected.split('`').skip(1).step_by(2).map(str::to_string).collect()
    }

    #[test]
    fn every_bake_option_is_one_flag_and_one_roster_key_of_one_name() {
        let options = <BakeOptions as clap::Args>::augment_args(clap::Command::new("options"));
        let mut flags = BTreeSet::new();
        for arg in options.get_arguments() {
            let id = arg.get_id().as_str();
            assert_eq!(arg.get_long(), Some(id.replace('_', "-").as_str()), "the flag of {id} is not its name");
            flags.insert(id.to_string());
        }
        assert_eq!(flags, roster_keys(), "clap's and serde's options disagree");
    }

    #[test]
    fn every_other_bake_flag_is_decided_by_the_roster() {
        let keys = roster_keys();
        let dir = tempfile::tempdir().unwrap();
        let roster = dir.path().join("roster.toml");
        for long in in_help("bake").into_iter().filter(|long| !keys.contains(&long.replace('-', "_"))) {
            let key = long.replace('-', "_");
            std::fs::write(&roster, format!("output = \"out\"\n[[unit]]\nsource = \"a.glb\"\n{key} = true\n")).unwrap();
            let error = vatbake::roster::read(&roster, None).expect_err(&long).to_string();
            assert!(error.contains(&format!("\"{key}\" is decided by the roster")), "--{long}: {error}");
        }
    }

    #[test]
    fn a_flag_given_at_its_default_value_is_given() {
        let options = |flags: &[&str]| {
            let args = ["vatbake", "bake", "unit.glb", "-o", "out"].iter().chain(flags);
            match Cli::try_parse_from(args).unwrap().command {
                Command::Bake(bake) => bake.options,
                other => panic!("{other:?}"),
            }
        };
        assert_eq!(options(&[]), BakeOptions::default());
        let given = options(&["--max-width", "16384", "--fps", "30", "--zstd-level", "5", "--format", "vatbake"]);
        assert_eq!(
            (given.max_width, given.fps, given.zstd_level, given.format),
            (
                Some(16_384),
                Some(vatbake::settings::Fps::Rate(30.0)),
                Some(5),
                Some(vatbake::settings::OutputFormat::Vatbake)
            )
        );
        // A width beside --max-size's is refused, the default's value too (clap's words
        // on the command line; BakeOptions::settings' from a roster).
        let both = ["vatbake", "bake", "unit.glb", "-o", "out", "--max-size", "4096x4096", "--max-width", "16384"];
        assert_eq!(Cli::try_parse_from(both).unwrap_err().kind(), clap::error::ErrorKind::ArgumentConflict);
    }
}
