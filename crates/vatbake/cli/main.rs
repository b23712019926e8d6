//! `vatbake`: bake skinned, animated glTF characters into vertex animation textures.
//!
//! Thin glue over the `vatbake` library: flags become settings once (`cli`), the
//! library runs the work, and everything the user is told, with its exit code, goes
//! through `messages` and `print`.

mod args;
mod impostor;
mod links;
mod messages;
mod pose;
mod print;

use vatbake::{audit, bake, description, roster};

use crate::messages::out;
use std::io::IsTerminal;
use std::process::ExitCode;

use clap::Parser;

fn main() -> ExitCode {
    wasi_working_folder();
    let cli = match args::Cli::try_parse() {
        Ok(cli) => cli,
        Err(e) => {
            let code = if e.use_stderr() { messages::EXIT_USAGE } else { 0 };
            let _ = e.print();
            // A script that asked for JSON gets its error object even when the flags
            // themselves are wrong (clap's message, its first line, as the message).
            if code != 0 && std::env::args().any(|a| a == "--json") {
                let text = e.render().to_string();
                let first = text.lines().next().unwrap_or("").trim_start_matches("error: ").to_string();
                messages::json_error(code, vatbake::ErrorKind::Usage, &first, None);
            }
            return ExitCode::from(code);
        }
    };
    let json = cli.command.json();
    let file = cli.command.file().map(std::path::Path::to_path_buf);
    match run(cli) {
        Ok(code) => ExitCode::from(code),
        Err(e) => {
            let (code, kind, message) = messages::classify(&e);
            messages::error(&message);
            if json {
                messages::json_error(code, kind, &message, file.as_deref());
            }
            ExitCode::from(code)
        }
    }
}

/// In WebAssembly (the npm package, runtimes/cli) the host's working folder comes in
/// `VATBAKE_WASI_CWD`, the module seeing the host's files from `/`: relative paths then
/// name what they name to a native binary started there.
fn wasi_working_folder() {
    #[cfg(target_family = "wasm")]
    if let Some(folder) = std::env::var_os("VATBAKE_WASI_CWD") {
        let _ = std::env::set_current_dir(folder);
    }
}

/// A file size limit (`ulimit -f`) makes a write past it fail with "File too large"
/// (an output error, exit 4, the staged files removed) instead of killing the process
/// with SIGXFSZ before it can say a word.
fn write_errors_instead_of_sigxfsz() {
    #[cfg(unix)]
    // SAFETY: setting a signal's disposition to "ignore" before any other thread runs
    // touches no memory of ours; ignoring SIGXFSZ is what POSIX documents for a process
    // that handles EFBIG itself.
    unsafe {
        libc::signal(libc::SIGXFSZ, libc::SIG_IGN);
    }
}

fn run(cli: args::Cli) -> anyhow::Result<u8> {
    if matches!(cli.command, args::Command::Bake(_) | args::Command::Roster(_)) {
        write_errors_instead_of_sigxfsz();
        messages::clean_up_on_interrupt();
    }
    match cli.command {
        args::Command::Bake(args) => {
            let output = args::Output::from(&args.output);
            if let Some(threads) = args.threads {
                use_threads(threads)?;
            }
            let (no_warn, dry_run) = (args.no_warn.clone(), args.dry_run);
            let all = args.into_settings()?;
            let several = all.len() > 1;
            let mut reports = Vec::new();
            for settings in &all {
                let report = {
                    let progress = messages::BakeProgress::new(!output.quiet && !output.json);
                    let watch: &dyn bake::Watch = match &progress {
                        Some(progress) => progress,
                        None => &bake::Unwatched,
                    };
                    if dry_run {
                        vatbake::bake_dry(settings, watch)?
                    } else {
                        vatbake::bake_watched(settings, watch)?
                    }
                };
                if !output.quiet {
                    let name = settings.input.display().to_string();
                    let prefix = several.then_some(name.as_str());
                    let shown = report.warnings.iter().filter(|w| !no_warn.iter().any(|c| c == w.code));
                    messages::warnings(shown.map(|w| (prefix, w)));
                }
                if !output.json && !output.quiet && (dry_run || output.verbose || std::io::stdout().is_terminal()) {
                    print_summary(settings, &report, output.verbose, if dry_run { "would bake" } else { "baked" });
                }
                reports.push(report);
            }
            // One model: its report; several: an array of them, in the order given.
            if output.json && several {
                out!("{}", serde_json::to_string_pretty(&reports)?);
            } else if output.json {
                out!("{}", serde_json::to_string_pretty(&reports[0])?);
            }
            Ok(0)
        }
        args::Command::Roster(args) => {
            let output = args::Output::from(&args.output);
            if args.jobs == Some(0) {
                return Err(vatbake::Error::usage("--jobs 0: give at least one job").into());
            }
            let roster = roster::read(&args.roster, args.out_dir.as_deref())?;
            if args.check {
                let format = if output.json { args::AuditFormat::Json } else { args::AuditFormat::Text };
                return print::audit(&roster::check(&roster, args.shard)?, format);
            }
            if args.verify {
                let report = roster::verify(&roster, args.jobs, args.shard)?;
                return print::roster_verify(&report, &output);
            }
            if args.preview {
                let template = vatbake::preview::PreviewSettings::new("", "");
                let report = roster::preview(&roster, args.jobs, args.shard, &template)?;
                return print::roster_preview(&report, &output);
            }
            let options = roster::RunOptions {
                jobs: args.jobs,
                force: args.force,
                shard: args.shard,
                no_durable: args.writing.no_durable,
                keep_stale: args.writing.keep_stale,
                gpu_budget: args.gpu_budget,
            };
            let report = {
                let progress = print::RosterProgress::new(!output.quiet && !output.json);
                roster::run(&roster, &options, &progress)?
            };
            if output.json {
                out!("{}", serde_json::to_string_pretty(&report)?);
            } else if !output.quiet && (output.verbose || std::io::stdout().is_terminal()) {
                print::roster_summary(&report);
            }
            if !output.quiet {
                print::roster_warnings(&report);
                if let Some(warning) = report.over_gpu_budget() {
                    messages::warning(&warning);
                }
                if !report.stale_folders.is_empty() {
                    messages::warning(&format!(
                        "{} holds bakes of units no longer in the roster (not deleted): {}",
                        report.folder.display(),
                        report.stale_folders.join(", ")
                    ));
                }
            }
            let failed: Vec<&roster::UnitResult> = report.units.iter().filter(|u| u.status == "failed").collect();
            for unit in &failed {
                messages::error(&format!("unit \"{}\" failed: {}", unit.name, unit.error.as_deref().unwrap_or("")));
            }
            Ok(if failed.is_empty() { 0 } else { 1 })
        }
        args::Command::Audit(args) => {
            args.links.apply();
            print::audit(&audit::audit(&args.settings()?)?, args.output_format())
        }
        args::Command::Inspect(args) => {
            args.links.apply();
            let inspection = vatbake::inspect::inspect(&args.file)?;
            if args.json {
                out!("{}", serde_json::to_string_pretty(&inspection)?);
            } else {
                print::inspection(&inspection);
            }
            Ok(0)
        }
        args::Command::Verify(args) => {
            args.links.apply();
            let settings = vatbake::verify::VerifySettings { description: args.description, source: args.source };
            let report = vatbake::verify::verify(&settings)?;
            if args.json {
                out!("{}", serde_json::to_string_pretty(&report)?);
            } else {
                print::verify(&report);
            }
            Ok(if report.passed { 0 } else { messages::EXIT_FINDINGS })
        }
        args::Command::Preview(args) => {
            args.links.apply();
            let (json, verbose) = (args.json, args.verbose);
            let report = vatbake::preview::preview(&args.into_settings())?;
            if json {
                out!("{}", serde_json::to_string_pretty(&report)?);
            } else if verbose || std::io::stdout().is_terminal() {
                print::preview(&report);
            }
            Ok(0)
        }
        args::Command::Pose(args) => pose::run(args),
        args::Command::Impostor(args) => impostor::run(args),
        args::Command::Schema => {
            out!("{}", description::schema_json().trim_end());
            Ok(0)
        }
        args::Command::Completions { shell } => {
            out!("{}", args::completions(shell).trim_end());
            Ok(0)
        }
        args::Command::Man { command } => {
            out!("{}", args::man_page(command.as_deref())?.trim_end());
            Ok(0)
        }
    }
}

/// Sizes the thread pool every stage (and the Zstandard workers) draw on.
fn use_threads(threads: usize) -> anyhow::Result<()> {
    if threads == 0 {
        return Err(vatbake::Error::usage("--threads 0: give at least one thread").into());
    }
    // WebAssembly has one thread, whatever the count: the bytes are the same for any.
    if cfg!(target_family = "wasm") {
        return Ok(());
    }
    rayon::ThreadPoolBuilder::new()
        .num_threads(threads)
        .build_global()
        .map_err(|e| vatbake::Error::usage(format!("--threads {threads}: cannot start the threads: {e}")).into())
}

/// One line on a terminal; with `-v`, the whole story.
fn print_summary(settings: &vatbake::BakeSettings, report: &bake::BakeReport, verbose: bool, verb: &str) {
    let container = match report.description.texture.container {
        vatbake::description::TextureFormat::Png => "PNG16",
        vatbake::description::TextureFormat::Ktx2 => "KTX2+Zstd",
    };
    if !verbose {
        out!(
            "{verb} {} → {}: {} points × {} rows, {}, {} {} (raw {}{}), {:.0} ms",
            settings.input.display(),
            report.description_file.display(),
            report.points,
            report.rows,
            messages::count(report.clips, "clip"),
            container,
            messages::bytes(report.texture_bytes),
            messages::bytes(report.raw_texel_bytes),
            gpu(report),
            report.timings_ms.total
        );
        return;
    }
    out!("{verb} {} → {}", settings.input.display(), report.description_file.display());
    out!(
        "  {} points × {} rows in {}; texture {}×{}{} {} {} (raw {}{}), rest mesh {}",
        report.points,
        report.rows,
        messages::count(report.clips, "clip"),
        report.width,
        report.height,
        if report.bands > 1 { format!(" in {} bands", report.bands) } else { String::new() },
        container,
        messages::bytes(report.texture_bytes),
        messages::bytes(report.raw_texel_bytes),
        gpu(report),
        messages::bytes(report.mesh_bytes),
    );
    let positions = &report.description.positions;
    let grid = match (positions.grid, positions.max_error) {
        (Some([x, y, z]), Some(max)) => format!(" on a {x}×{y}×{z}-step grid, measured max {max:.3e}"),
        _ => String::new(),
    };
    out!("  precision {:.3e} model units{grid}; {:.0} ms", report.precision, report.timings_ms.total);
    for e in &report.description.exports {
        out!("  export {} {}", e.file, messages::bytes(e.bytes));
    }
    if let Some(d) = &report.decimation {
        out!(
            "  decimated {} → {} points; distance to the full model: max {:.3e} ({:.2}% of the bounds diagonal), \
             mean {:.3e} ({:.3}%) over {} rows",
            d.source_points,
            d.points,
            d.max_error,
            100.0 * d.max_error_fraction,
            d.mean_error,
            100.0 * d.mean_error_fraction,
            d.rows_measured
        );
    }
    for note in &report.notes {
        out!("  note: {}", note.message);
    }
    for clip in &report.description.clips {
        out!(
            "  clip {:<28} → {:<10} rows {:>4}..{:<4} {:>7.3} s at {:>7.3} rows/s{}",
            format!("\"{}\"", clip.name),
            clip.slot.as_deref().unwrap_or("(no slot)"),
            clip.row,
            clip.row + clip.rows,
            clip.duration,
            clip.rate,
            if clip.looping { ", loops" } else { "" }
        );
    }
    let t = &report.timings_ms;
    out!(
        "  stages (ms): load {:.1}, decimate {:.1}, evaluate {:.1}, bounds {:.1}, measure {:.1}, pack {:.1} \
         (evaluate {:.1}, compress {:.1}, write {:.1}), encode {:.1}, write {:.1}",
        t.load,
        t.decimate,
        t.evaluate,
        t.bounds,
        t.measure,
        t.pack,
        t.pack_evaluate,
        t.pack_compress,
        t.pack_write,
        t.encode,
        t.write
    );
}

/// ", GPU …" when the GPU holds more than the raw texels (array layers' padding,
/// separate normals); nothing otherwise.
fn gpu(report: &vatbake::BakeReport) -> String {
    let layers = report.description.texture.layers.map_or(String::new(), |n| format!(" in {n} layers"));
    if report.gpu_bytes == report.raw_texel_bytes && layers.is_empty() {
        return String::new();
    }
    format!(", GPU {}{layers}", messages::bytes(report.gpu_bytes))
}
