//! The docs' commands run, and print what the docs say they print: every line that starts
//! with `$ ` inside a fenced block of README.md and docs/CLI.md is run by `sh` (with this
//! build's `vatbake` first on `PATH`), and the lines after it, up to the next `$ ` or the
//! block's end, must equal what it printed (stdout and stderr, as they came) once timings are masked.
//!
//! Each document runs in one scratch folder of its own, holding a copy of `fixtures`
//! and nothing else; the commands run in order, so a bake feeds the
//! inspect after it. A line `<!-- doc-test: COMMAND -->` outside the blocks is a set-up
//! step the reader does not need to see (it must exit 0 and its output is ignored).

use std::path::{Path, PathBuf};
use std::process::Command;

fn workspace() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// One step of a document: a hidden set-up command, or a shown command and its output.
#[derive(Debug)]
enum Step {
    Setup { line: usize, command: String },
    Shown { line: usize, command: String, expected: Vec<String> },
}

/// The steps of a Markdown document, in order.
fn steps(text: &str) -> Vec<Step> {
    let mut steps = Vec::new();
    let mut in_block = false;
    // Whether the block's lines are the last command's output.
    let mut open = false;
    for (i, line) in text.lines().enumerate() {
        let line_no = i + 1;
        if line.starts_with("```") {
            in_block = !in_block;
            open = false;
            continue;
        }
        if !in_block {
            if let Some(rest) = line.trim().strip_prefix("<!-- doc-test:") {
                let command = rest.strip_suffix("-->").expect("a doc-test comment ends on its line").trim();
                steps.push(Step::Setup { line: line_no, command: command.to_string() });
            }
            continue;
        }
        if let Some(command) = line.strip_prefix("$ ") {
            steps.push(Step::Shown { line: line_no, command: command.to_string(), expected: Vec::new() });
            open = true;
        } else if let (true, Some(Step::Shown { expected, .. })) = (open, steps.last_mut()) {
            expected.push(line.to_string());
        }
    }
    steps
}

/// Figures that change from run to run: a number before `ms` (or before an `s` that
/// ends the line, a roster's summary), and every figure of a `stages (ms):` line, become `#`.
fn mask(line: &str) -> String {
    let number = |w: &str| !w.is_empty() && w.chars().all(|c| c.is_ascii_digit() || c == '.');
    let stages = line.trim_start().starts_with("stages (ms):");
    let words: Vec<&str> = line.split(' ').collect();
    let masked: Vec<String> = words
        .iter()
        .enumerate()
        .map(|(i, w)| {
            let next = words.get(i + 1).copied();
            let timed = matches!(next, Some(n) if n.trim_end_matches([',', ';', ')']) == "ms")
                || (next == Some("s") && i + 2 == words.len());
            let core = w.trim_end_matches([',', ')']).trim_start_matches('(');
            if number(core) && (timed || stages) {
                w.replacen(core, "#", 1)
            } else {
                w.to_string()
            }
        })
        .collect();
    masked.join(" ")
}

/// A copy of the folder (a link would be resolved by the paths a bake records).
fn copy_folder(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for entry in std::fs::read_dir(from).unwrap() {
        let entry = entry.unwrap();
        let target = to.join(entry.file_name());
        if entry.file_type().unwrap().is_dir() {
            copy_folder(&entry.path(), &target);
        } else {
            std::fs::copy(entry.path(), &target).unwrap();
        }
    }
}

/// Runs a document's steps in a scratch folder and returns every disagreement.
fn run_document(doc: &str) -> Vec<String> {
    let text = std::fs::read_to_string(workspace().join(doc)).unwrap();
    let steps = steps(&text);
    assert!(!steps.is_empty(), "{doc} has no `$ ` commands");
    let dir = tempfile::tempdir().unwrap();
    copy_folder(&workspace().join("fixtures"), &dir.path().join("fixtures"));
    let bin = Path::new(env!("CARGO_BIN_EXE_vatbake")).parent().unwrap().to_path_buf();
    let path = std::env::join_paths(
        std::iter::once(bin).chain(std::env::split_paths(&std::env::var_os("PATH").unwrap_or_default())),
    )
    .unwrap();
    let run = |command: &str| {
        Command::new("sh")
            .arg("-c")
            .arg(format!("{{ {command}\n}} 2>&1"))
            .current_dir(dir.path())
            .env("PATH", &path)
            .env("NO_COLOR", "1")
            .output()
            .unwrap()
    };
    let mut problems = Vec::new();
    for step in &steps {
        match step {
            Step::Setup { line, command } => {
                let o = run(command);
                if !o.status.success() {
                    problems.push(format!(
                        "{doc}:{line}: set-up `{command}` failed: {}",
                        String::from_utf8_lossy(&o.stdout)
                    ));
                }
            }
            Step::Shown { line, command, expected } => {
                let o = run(command);
                let printed: Vec<String> = String::from_utf8_lossy(&o.stdout).lines().map(mask).collect();
                let expected: Vec<String> = expected.iter().map(|l| mask(l)).collect();
                if printed != expected {
                    problems.push(format!(
                        "{doc}:{line}: `{command}` printed\n{}\nwhere the doc says\n{}",
                        printed.join("\n"),
                        expected.join("\n")
                    ));
                }
            }
        }
    }
    problems
}

#[test]
fn timings_are_masked_and_nothing_else() {
    assert_eq!(mask("passed a against b: 3 clips, 27 ms"), "passed a against b: 3 clips, # ms");
    assert_eq!(mask("  precision 1.530e-3 model units; 50 ms"), "  precision 1.530e-3 model units; # ms");
    assert_eq!(mask("  stages (ms): load 1.8, pack 42.8 (evaluate 4.1)"), "  stages (ms): load #, pack # (evaluate #)");
    assert_eq!(mask("4 units: 4 baked; textures 1 MB; 2.5 s"), "4 units: 4 baked; textures 1 MB; # s");
    assert_eq!(mask("   3.417 s at  30.146 rows/s"), "   3.417 s at  30.146 rows/s");
}

#[test]
fn the_steps_of_a_document_are_its_dollar_lines_and_their_output() {
    let doc = "text\n<!-- doc-test: vatbake bake x -->\n```\nvatbake not run\n```\n```\n$ a\none\ntwo\n$ b\n```\nafter\n```\nnot output\n```\n";
    let steps = steps(doc);
    assert_eq!(steps.len(), 3, "{steps:?}");
    assert!(matches!(&steps[0], Step::Setup { line: 2, command } if command == "vatbake bake x"));
    assert!(
        matches!(&steps[1], Step::Shown { line: 7, command, expected } if command == "a" && expected == &["one", "two"])
    );
    assert!(matches!(&steps[2], Step::Shown { line: 10, command, expected } if command == "b" && expected.is_empty()));
}

#[test]
fn the_readme_commands_print_what_it_says() {
    let problems = run_document("README.md");
    assert!(problems.is_empty(), "{}", problems.join("\n\n"));
}

#[test]
fn the_cli_page_commands_print_what_it_says() {
    let problems = run_document("docs/CLI.md");
    assert!(problems.is_empty(), "{}", problems.join("\n\n"));
}
