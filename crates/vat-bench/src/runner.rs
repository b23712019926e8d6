//! Running `vatbake bake` as a process and timing it: wall time from process start
//! to exit (with `hyperfine` when it is installed, else a plain timing loop), and
//! per-stage times and peak memory from `--json` under `/usr/bin/time -v`.

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::Instant;

use anyhow::{bail, Context, Result};
use serde_json::Value;

/// Where the bake may run.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Cores {
    /// `taskset -c 0` and `RAYON_NUM_THREADS=1`.
    One,
    /// Every core of the machine, rayon's default thread count.
    All,
}

impl Cores {
    /// How the table headings name it.
    pub fn label(self) -> &'static str {
        match self {
            Cores::One => "1 core",
            Cores::All => "all cores",
        }
    }
}

/// How wall times are taken.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Timer {
    /// `hyperfine -N` (no shell between it and the process).
    Hyperfine,
    /// Spawn, wait, `Instant` around both.
    Internal,
}

impl Timer {
    /// How the report names it.
    pub fn label(self) -> &'static str {
        match self {
            Timer::Hyperfine => "hyperfine -N",
            Timer::Internal => "internal loop (spawn → exit)",
        }
    }
}

/// Whether `program` is on the PATH.
pub fn on_path(program: &str) -> bool {
    std::env::var_os("PATH")
        .map(|paths| std::env::split_paths(&paths).any(|dir| dir.join(program).is_file()))
        .unwrap_or(false)
}

/// GNU time, for the CPU seconds and peak memory of a bake (`-v`).
pub const GNU_TIME: &str = "/usr/bin/time";

/// One `vatbake bake` invocation.
#[derive(Clone, Debug)]
pub struct Bake {
    /// The `vatbake` binary.
    pub vatbake: PathBuf,
    /// The model to bake.
    pub model: PathBuf,
    /// The output folder (`-o`).
    pub out_dir: PathBuf,
    /// Flags after `bake MODEL -o OUTDIR --json -q`, e.g. `--points all --zstd-level 1`.
    pub flags: Vec<String>,
    /// Remove OUTDIR before every run, outside the timed span, so that no run pays
    /// the file system for replacing the previous run's files (tens of MB of
    /// texture to free). Off, every run after the first replaces them, as a rebake does.
    pub fresh_output: bool,
}

impl Bake {
    /// Program and arguments, pinned to one core when asked.
    fn argv(&self, cores: Cores) -> Vec<String> {
        let mut argv = Vec::new();
        if cores == Cores::One {
            argv.extend(["taskset", "-c", "0"].map(String::from));
        }
        argv.push(self.vatbake.display().to_string());
        argv.extend([
            "bake".to_string(),
            self.model.display().to_string(),
            "-o".into(),
            self.out_dir.display().to_string(),
        ]);
        argv.extend(["--json".to_string(), "-q".to_string()]);
        argv.extend(self.flags.iter().cloned());
        argv
    }

    fn command(&self, cores: Cores, prefix: &[&str]) -> Command {
        let argv = self.argv(cores);
        let mut all: Vec<String> = prefix.iter().map(|s| s.to_string()).collect();
        all.extend(argv);
        let mut command = Command::new(&all[0]);
        command.args(&all[1..]);
        set_env(&mut command, cores);
        command
    }

    /// With `fresh_output`, removes OUTDIR (vatbake makes it again).
    fn clear_output(&self) -> Result<()> {
        if self.fresh_output && self.out_dir.exists() {
            std::fs::remove_dir_all(&self.out_dir)
                .with_context(|| format!("cannot remove {}", self.out_dir.display()))?;
        }
        Ok(())
    }

    /// The command line as one shell-quoted string (for hyperfine and the report).
    pub fn shell_line(&self, cores: Cores) -> String {
        let env = if cores == Cores::One { "RAYON_NUM_THREADS=1 " } else { "" };
        format!("{env}{}", self.argv(cores).iter().map(|a| shell_quote(a)).collect::<Vec<_>>().join(" "))
    }
}

fn set_env(command: &mut Command, cores: Cores) {
    match cores {
        Cores::One => command.env("RAYON_NUM_THREADS", "1"),
        Cores::All => command.env_remove("RAYON_NUM_THREADS"),
    };
}

fn shell_quote(arg: &str) -> String {
    if !arg.is_empty() && arg.chars().all(|c| c.is_ascii_alphanumeric() || "-_./=:,@+".contains(c)) {
        arg.to_string()
    } else {
        format!("'{}'", arg.replace('\'', r"'\''"))
    }
}

/// Wall times in seconds of `runs` bakes after one warm-up run.
pub fn wall_times(bake: &Bake, cores: Cores, runs: usize, timer: Timer, scratch: &Path) -> Result<Vec<f64>> {
    std::fs::create_dir_all(&bake.out_dir)?;
    match timer {
        Timer::Hyperfine => {
            std::fs::create_dir_all(scratch)?;
            let export = scratch.join("hyperfine.json");
            let argv = bake.argv(cores);
            let line = argv.iter().map(|a| shell_quote(a)).collect::<Vec<_>>().join(" ");
            let mut command = Command::new("hyperfine");
            command
                .args(["-N", "--style", "none", "--warmup", "1", "--runs", &runs.to_string(), "--export-json"])
                .arg(&export);
            if bake.fresh_output {
                command.arg("--prepare").arg(format!("rm -rf {}", shell_quote(&bake.out_dir.display().to_string())));
            }
            command.arg(&line).stdout(Stdio::null()).stderr(Stdio::piped());
            set_env(&mut command, cores);
            let output = command.output().context("cannot run hyperfine")?;
            if !output.status.success() {
                bail!("hyperfine failed on `{line}`: {}", String::from_utf8_lossy(&output.stderr).trim());
            }
            let report: Value = serde_json::from_slice(&std::fs::read(&export)?)?;
            let times = report
                .pointer("/results/0/times")
                .and_then(Value::as_array)
                .context("hyperfine's JSON has no results[0].times")?;
            Ok(times.iter().filter_map(Value::as_f64).collect())
        }
        Timer::Internal => {
            let mut times = Vec::with_capacity(runs);
            for run in 0..=runs {
                bake.clear_output()?;
                let mut command = bake.command(cores, &[]);
                command.stdout(Stdio::null()).stderr(Stdio::piped());
                let started = Instant::now();
                let output = command.output().context("cannot run vatbake")?;
                let elapsed = started.elapsed().as_secs_f64();
                if !output.status.success() {
                    bail!("`{}` failed: {}", bake.shell_line(cores), String::from_utf8_lossy(&output.stderr).trim());
                }
                if run > 0 {
                    times.push(elapsed);
                }
            }
            Ok(times)
        }
    }
}

/// What one bake reported about itself, and its peak memory.
#[derive(Clone, Debug)]
pub struct Detail {
    /// The `--json` summary.
    pub summary: Value,
    /// Maximum resident set size in KiB (`/usr/bin/time -v`), when measured.
    pub max_rss_kib: Option<u64>,
    /// Spawn to exit, seconds, `/usr/bin/time` included (about a millisecond).
    pub wall_s: f64,
    /// User + system CPU seconds of the bake (`/usr/bin/time -v`), when measured:
    /// on one pinned core, what the wall time would be on an otherwise idle machine.
    pub cpu_s: Option<f64>,
}

impl Detail {
    /// A stage's time from the summary's `timings_ms`, in milliseconds; NaN when absent.
    pub fn stage_ms(&self, stage: &str) -> f64 {
        self.summary.pointer(&format!("/timings_ms/{stage}")).and_then(Value::as_f64).unwrap_or(f64::NAN)
    }
    /// A top-level number of the summary; NaN when absent.
    pub fn number(&self, key: &str) -> f64 {
        self.summary.get(key).and_then(Value::as_f64).unwrap_or(f64::NAN)
    }
}

/// One bake with its `--json` summary, under `/usr/bin/time -v` when present.
pub fn detail_run(bake: &Bake, cores: Cores) -> Result<Detail> {
    bake.clear_output()?;
    std::fs::create_dir_all(&bake.out_dir)?;
    let gnu_time = Path::new(GNU_TIME).is_file();
    let mut command = if gnu_time { bake.command(cores, &[GNU_TIME, "-v"]) } else { bake.command(cores, &[]) };
    let started = Instant::now();
    let output = command.output().context("cannot run vatbake")?;
    let wall_s = started.elapsed().as_secs_f64();
    let stderr = String::from_utf8_lossy(&output.stderr);
    if !output.status.success() {
        bail!("`{}` failed: {}", bake.shell_line(cores), stderr.trim());
    }
    let summary: Value = serde_json::from_slice(&output.stdout)
        .with_context(|| format!("`{}` printed no JSON summary", bake.shell_line(cores)))?;
    let field = |name: &str| stderr.lines().find_map(|l| l.trim().strip_prefix(name).map(|v| v.trim().to_string()));
    let max_rss_kib = field("Maximum resident set size (kbytes):").and_then(|v| v.parse().ok());
    let seconds = |name: &str| field(name).and_then(|v| v.parse::<f64>().ok());
    let cpu_s = seconds("User time (seconds):").zip(seconds("System time (seconds):")).map(|(u, s)| u + s);
    Ok(Detail { summary, max_rss_kib, wall_s, cpu_s })
}

/// `runs` detail runs after one warm-up.
pub fn detail_runs(bake: &Bake, cores: Cores, runs: usize) -> Result<Vec<Detail>> {
    detail_run(bake, cores)?;
    (0..runs).map(|_| detail_run(bake, cores)).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn quoting() {
        assert_eq!(shell_quote("target/release/vatbake"), "target/release/vatbake");
        assert_eq!(shell_quote("a b"), "'a b'");
        assert_eq!(shell_quote("it's"), r"'it'\''s'");
    }
}
