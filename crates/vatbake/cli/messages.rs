//! What the user is told, and the exit codes that go with it. One home for both.
//!
//! Exit codes (also in docs/CLI.md):
//! - 0: success
//! - 1: findings (audit), failed units (roster), a bake that is off its source (verify)
//! - 2: usage error: a flag or argument is wrong
//! - 3: input error: the model cannot be read, is invalid, unsupported, or would bake wrongly
//! - 4: output error: the results cannot be written

use std::fmt;
use std::io::IsTerminal;

pub const EXIT_FINDINGS: u8 = 1;
pub const EXIT_USAGE: u8 = 2;
pub const EXIT_INPUT: u8 = 3;
pub const EXIT_OUTPUT: u8 = 4;
/// Stopped by Ctrl-C or a termination signal (128 + SIGINT, as shells report it).
pub const EXIT_INTERRUPTED: u8 = 130;

/// The exit code and one-paragraph message for any error that reaches the edge:
/// the library's error kinds map to codes here and only here.
pub fn classify(error: &anyhow::Error) -> (u8, vatbake::ErrorKind, String) {
    let error = vatbake::Error::classify(error);
    let code = match error.kind {
        vatbake::ErrorKind::Usage => EXIT_USAGE,
        vatbake::ErrorKind::Input => EXIT_INPUT,
        vatbake::ErrorKind::Output => EXIT_OUTPUT,
        vatbake::ErrorKind::Cancelled => EXIT_INTERRUPTED,
    };
    (code, error.kind, error.message)
}

/// A failure under `--json`: `{"error": {"code", "kind", "message", "file"}}` on
/// stdout (the message is on stderr too), so a script reads one JSON document either way.
pub fn json_error(code: u8, kind: vatbake::ErrorKind, message: &str, file: Option<&std::path::Path>) {
    let error = serde_json::json!({
        "error": {
            "code": code,
            "kind": kind,
            "message": message,
            "file": file.map(|f| f.display().to_string()),
        }
    });
    out!("{}", serde_json::to_string_pretty(&error).unwrap_or_default());
}

/// On Ctrl-C (SIGINT), SIGTERM or SIGHUP: remove every temporary file still being
/// written, then exit with 130. Without it an interrupted bake would leave its
/// hidden `.NAME.PID.tmp` files in the output folder. WebAssembly (the npm package's
/// module, runtimes/cli) has no signals: the host that runs it ends it.
pub fn clean_up_on_interrupt() {
    #[cfg(not(target_family = "wasm"))]
    // Fails only when a handler is already set (a second call): nothing to do then.
    let _ = ctrlc::set_handler(|| {
        vatbake::staging::remove_unfinished();
        eprintln!("vatbake: interrupted; unfinished files removed");
        std::process::exit(i32::from(EXIT_INTERRUPTED));
    });
}

fn colour() -> bool {
    std::io::stderr().is_terminal() && std::env::var_os("NO_COLOR").is_none()
}

pub fn error(message: &str) {
    if colour() {
        eprintln!("\x1b[1;31merror:\x1b[0m {message}");
    } else {
        eprintln!("error: {message}");
    }
}

/// Each finding on a line of its own (after `prefix`, a unit's name), and each
/// kind's advice once, after the first finding of that kind.
pub fn warnings<'a>(findings: impl IntoIterator<Item = (Option<&'a str>, &'a vat_model::Finding)>) {
    let mut advised = std::collections::BTreeSet::new();
    for (prefix, finding) in findings {
        match prefix {
            Some(p) => warning(&format!("{p}: {}", finding.message)),
            None => warning(&finding.message),
        }
        if let Some(advice) = finding.advice.filter(|_| advised.insert(finding.code)) {
            eprintln!("  hint: {advice}");
        }
    }
}

pub fn warning(message: &str) {
    if colour() {
        eprintln!("\x1b[1;33mwarning:\x1b[0m {message}");
    } else {
        eprintln!("warning: {message}");
    }
}

/// `text` in bold when stdout is a terminal and NO_COLOR is unset.
pub fn bold(text: &str) -> String {
    if std::io::stdout().is_terminal() && std::env::var_os("NO_COLOR").is_none() {
        format!("\x1b[1m{text}\x1b[0m")
    } else {
        text.to_string()
    }
}

/// `text` in red (`ok` false) or green when stdout is a terminal and NO_COLOR is unset.
pub fn verdict(text: &str, ok: bool) -> String {
    if std::io::stdout().is_terminal() && std::env::var_os("NO_COLOR").is_none() {
        format!("\x1b[1;{}m{text}\x1b[0m", if ok { 32 } else { 31 })
    } else {
        text.to_string()
    }
}

/// 1234567 → "1.2 MB"; 2048 → "2.0 KB".
pub fn bytes(n: u64) -> String {
    match n {
        n if n >= 1_000_000 => format!("{:.1} MB", n as f64 / 1e6),
        n if n >= 1_000 => format!("{:.1} KB", n as f64 / 1e3),
        n => format!("{n} B"),
    }
}

/// Writes one line to stdout. A reader that stops early (`vatbake … --json | head`)
/// closes the pipe: that ends the program quietly instead of panicking.
pub fn write_line(args: fmt::Arguments) {
    use std::io::Write;
    let mut stdout = std::io::stdout().lock();
    let result = stdout.write_fmt(args).and_then(|()| stdout.write_all(b"\n"));
    if let Err(e) = result {
        if e.kind() == std::io::ErrorKind::BrokenPipe {
            std::process::exit(0);
        }
        eprintln!("error: cannot write to stdout: {e}");
        std::process::exit(EXIT_OUTPUT as i32);
    }
}

/// `println!` for results: see [`write_line`].
macro_rules! out {
    ($($arg:tt)*) => { $crate::messages::write_line(format_args!($($arg)*)) };
}
pub(crate) use out;

/// A progress line on stderr while one bake runs, when stderr is a terminal: the
/// stage, and the texture's image rows as a bar as they are compressed (the last
/// stage to finish with them), with the time left at the rate so far. Cleared when dropped, so the summary and any error print on a
/// clean line. Elsewhere (a pipe, a log file, `-q`, `--json`) nothing at all.
pub struct BakeProgress {
    bar: indicatif::ProgressBar,
    /// The bar is drawn from the first `rows` call on; before it, a spinner and the stage.
    counting: std::sync::Once,
}

impl BakeProgress {
    pub fn new(enabled: bool) -> Option<Self> {
        (enabled && std::io::stderr().is_terminal()).then(|| {
            let bar = indicatif::ProgressBar::new(0);
            bar.set_style(
                indicatif::ProgressStyle::with_template("{spinner} {msg:<9} {elapsed}").expect("the template is valid"),
            );
            bar.enable_steady_tick(std::time::Duration::from_millis(120));
            BakeProgress { bar, counting: std::sync::Once::new() }
        })
    }
}

impl vatbake::Watch for BakeProgress {
    fn stage(&self, name: &'static str) {
        self.bar.set_message(name);
    }
    fn rows(&self, done: usize, total: usize) {
        self.counting.call_once(|| {
            self.bar.set_style(
                indicatif::ProgressStyle::with_template(
                    "{spinner} {msg:<9} {bar:32} {pos}/{len} rows  {elapsed}, eta {eta}",
                )
                .expect("the template is valid"),
            );
        });
        self.bar.set_length(total as u64);
        self.bar.set_position(done as u64);
    }
}

impl Drop for BakeProgress {
    fn drop(&mut self) {
        self.bar.finish_and_clear();
    }
}

/// `1 clip`, `3 clips`: a count and its noun, plural unless one.
pub fn count(n: usize, noun: &str) -> String {
    if n == 1 {
        format!("1 {noun}")
    } else {
        format!("{n} {noun}s")
    }
}
