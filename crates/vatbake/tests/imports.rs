//! No circle of imports anywhere in the workspace (issue 14).
//!
//! A check of the whole workspace, kept with the crate that ties the workspace together.
//! For every crate root of the workspace (`crates/*/src/lib.rs`, `src/main.rs`,
//! `src/bin/*.rs` and any `path` a crate's Cargo.toml gives its library or binaries) this builds a graph whose nodes are the root (`crate`) and the
//! top-level modules it declares, and fails if the graph has a cycle, printing each
//! one with the reference that made every edge.
//!
//! What counts as an edge `A -> B` ("A needs B"):
//! - a module file names `crate::b…` or, at its own level, `super::b…`: an edge to
//!   module `b`. `crate::Name` where the root re-exports or imports `Name` with
//!   `use b::…` is an edge to `b`, the module that really holds it; any other
//!   `crate::Name` is an item of the root itself, an edge to `crate`.
//! - the root names a module it declared as the start of a path (`b::f()`,
//!   `use b::Reader`, `pub use b::Name`): an edge `crate -> b`. Declaring `mod b;`
//!   is not a reference.
//!
//! So a child that uses an item defined in the root while the root uses that child
//! is a circle (`crate -> b -> crate`); a child that uses a re-exported name is not
//! (its edge goes to the module the name comes from). Modules nested inside a
//! top-level module count as part of it, as do inline `mod tests { … }` blocks.
//! Edges to one's own module are ignored.
//!
//! The scanner is plain string scanning, not a Rust parser: comments (doc comments
//! too), string and character literals are dropped, the rest is cut into
//! identifiers, `::` and single punctuation characters. Known limits: `#[path]`
//! attributes and macros that build paths are not followed, and names brought into
//! the root by a glob (`pub use b::*`) are taken as the root's own items, which can
//! report a circle that is not there but never hides one.

use std::collections::{BTreeMap, BTreeSet};
use std::fmt::Write as _;
use std::fs;
use std::path::{Path, PathBuf};

/// The name of the root node.
const ROOT: &str = "crate";

#[derive(Clone, Debug, PartialEq, Eq)]
enum Token {
    Ident(String),
    /// `::`
    PathSep,
    Punct(char),
}

/// Cuts Rust source into tokens, leaving out comments, string, byte-string and
/// character literals, lifetimes and numbers.
fn tokenize(source: &str) -> Vec<Token> {
    let chars: Vec<char> = source.chars().collect();
    let mut tokens = Vec::new();
    let mut i = 0;
    while i < chars.len() {
        let c = chars[i];
        let next = chars.get(i + 1).copied();
        if c.is_whitespace() {
            i += 1;
        } else if c == '/' && next == Some('/') {
            while i < chars.len() && chars[i] != '\n' {
                i += 1;
            }
        } else if c == '/' && next == Some('*') {
            // Block comments nest in Rust.
            let mut depth = 0;
            while i < chars.len() {
                if chars[i] == '/' && chars.get(i + 1) == Some(&'*') {
                    depth += 1;
                    i += 2;
                } else if chars[i] == '*' && chars.get(i + 1) == Some(&'/') {
                    depth -= 1;
                    i += 2;
                    if depth == 0 {
                        break;
                    }
                } else {
                    i += 1;
                }
            }
        } else if c == '"' {
            i = skip_string(&chars, i);
        } else if c == '\'' {
            // 'x', '\n', '\u{1F600}' are characters; 'a (no closing quote right
            // after one character) is a lifetime or a label.
            if next == Some('\\') {
                i += 3; // the quote, the backslash and the escaped character
                while i < chars.len() && chars[i] != '\'' {
                    i += 1;
                }
                i += 1;
            } else if chars.get(i + 2) == Some(&'\'') {
                i += 3;
            } else {
                i += 1;
                while i < chars.len() && is_ident_char(chars[i]) {
                    i += 1;
                }
            }
        } else if is_ident_start(c) {
            if let Some(end) = raw_string_end(&chars, i) {
                i = end;
                continue;
            }
            if c == 'r' && next == Some('#') && chars.get(i + 2).is_some_and(|&c| is_ident_start(c)) {
                i += 2; // raw identifier r#name
            }
            let start = i;
            while i < chars.len() && is_ident_char(chars[i]) {
                i += 1;
            }
            let word: String = chars[start..i].iter().collect();
            // b"…" and c"…" literals: the prefix is followed directly by the string.
            if (word == "b" || word == "c") && chars.get(i) == Some(&'"') {
                i = skip_string(&chars, i);
            } else {
                tokens.push(Token::Ident(word));
            }
        } else if c.is_ascii_digit() {
            while i < chars.len() && (is_ident_char(chars[i]) || chars[i] == '.') {
                // `0..n`: stop before a range.
                if chars[i] == '.' && chars.get(i + 1) == Some(&'.') {
                    break;
                }
                i += 1;
            }
        } else if c == ':' && next == Some(':') {
            tokens.push(Token::PathSep);
            i += 2;
        } else {
            tokens.push(Token::Punct(c));
            i += 1;
        }
    }
    tokens
}

fn is_ident_start(c: char) -> bool {
    c.is_alphabetic() || c == '_'
}

fn is_ident_char(c: char) -> bool {
    c.is_alphanumeric() || c == '_'
}

/// From the opening quote of a "…" string, the index just past its closing quote.
fn skip_string(chars: &[char], open: usize) -> usize {
    let mut i = open + 1;
    while i < chars.len() && chars[i] != '"' {
        i += if chars[i] == '\\' { 2 } else { 1 };
    }
    i + 1
}

/// If a raw string (`r"…"`, `r#"…"#`, `br##"…"##`, …) starts at `i`, the index
/// just past it.
fn raw_string_end(chars: &[char], i: usize) -> Option<usize> {
    let mut j = i;
    if chars[j] == 'b' || chars[j] == 'c' {
        j += 1;
    }
    if chars.get(j) != Some(&'r') {
        return None;
    }
    j += 1;
    let mut hashes = 0;
    while chars.get(j) == Some(&'#') {
        hashes += 1;
        j += 1;
    }
    if chars.get(j) != Some(&'"') {
        return None;
    }
    j += 1;
    while j < chars.len() {
        if chars[j] == '"' && (1..=hashes).all(|k| chars.get(j + k) == Some(&'#')) {
            return Some(j + 1 + hashes);
        }
        j += 1;
    }
    Some(j)
}

/// `mod name;` declarations (module files, not inline `mod name { … }` blocks) of
/// one file, at any depth (a `#[cfg(test)] mod x;` counts like any other).
fn declared_module_files(tokens: &[Token]) -> Vec<String> {
    let mut names = Vec::new();
    for window in tokens.windows(3) {
        if let [Token::Ident(keyword), Token::Ident(name), Token::Punct(';')] = window {
            if keyword == "mod" {
                names.push(name.clone());
            }
        }
    }
    names
}

/// The first identifier of each item of a `use` group whose `{` is at `open`:
/// `{a::{X, Y}, B, self}` gives `a`, `B`, `self` (and `*` as "*").
fn group_heads(tokens: &[Token], open: usize) -> Vec<String> {
    let mut heads = Vec::new();
    let mut depth = 0;
    let mut at_item_start = false;
    for token in &tokens[open..] {
        match token {
            Token::Punct('{') => {
                depth += 1;
                at_item_start = depth == 1;
                continue;
            }
            Token::Punct('}') => {
                depth -= 1;
                if depth == 0 {
                    break;
                }
            }
            Token::Punct(',') if depth == 1 => {
                at_item_start = true;
                continue;
            }
            Token::Ident(name) if at_item_start => heads.push(name.clone()),
            Token::Punct('*') if at_item_start => heads.push("*".to_string()),
            _ => {}
        }
        at_item_start = false;
    }
    heads
}

/// Where a reference ends up, seen from the module at `path` (its absolute module
/// path, e.g. `["deform", "tests"]`): `crate`/`super`/`self` segments are followed,
/// and the identifiers right after them are returned with the module path they
/// are looked up in. Returns `None` if `start` does not begin such a path.
fn relative_path_heads(tokens: &[Token], start: usize, path: &[String]) -> Option<(Vec<String>, Vec<String>)> {
    let mut target: Vec<String> = path.to_vec();
    let mut i = start;
    let mut moved = false;
    loop {
        match (tokens.get(i), tokens.get(i + 1)) {
            (Some(Token::Ident(word)), Some(Token::PathSep)) if word == "crate" && !moved => target.clear(),
            (Some(Token::Ident(word)), Some(Token::PathSep)) if word == "super" => {
                target.pop()?;
            }
            (Some(Token::Ident(word)), Some(Token::PathSep)) if word == "self" && !moved => {}
            _ => break,
        }
        moved = true;
        i += 2;
    }
    if !moved {
        return None;
    }
    let heads = match tokens.get(i) {
        Some(Token::Ident(name)) => vec![name.clone()],
        Some(Token::Punct('{')) => group_heads(tokens, i),
        Some(Token::Punct('*')) => vec!["*".to_string()],
        _ => return None,
    };
    Some((target, heads))
}

/// One crate's module graph: for every edge, the first reference that made it.
#[derive(Debug, Default)]
struct Graph {
    edges: BTreeMap<String, BTreeMap<String, String>>,
}

impl Graph {
    fn add(&mut self, from: &str, to: &str, why: impl FnOnce() -> String) {
        if from != to {
            self.edges.entry(from.to_string()).or_default().entry(to.to_string()).or_insert_with(why);
        }
    }

    /// Every elementary cycle found by a depth-first search (one per back edge),
    /// each as its list of nodes, the first repeated at the end.
    fn cycles(&self) -> Vec<Vec<String>> {
        fn visit<'g>(
            graph: &'g Graph,
            node: &'g str,
            stack: &mut Vec<&'g str>,
            done: &mut BTreeSet<&'g str>,
            cycles: &mut Vec<Vec<String>>,
        ) {
            stack.push(node);
            for next in graph.edges.get(node).into_iter().flat_map(|edges| edges.keys()) {
                if let Some(at) = stack.iter().position(|&n| n == next) {
                    let mut cycle: Vec<String> = stack[at..].iter().map(|n| n.to_string()).collect();
                    cycle.push(next.clone());
                    cycles.push(cycle);
                } else if !done.contains(next.as_str()) {
                    visit(graph, next, stack, done, cycles);
                }
            }
            stack.pop();
            done.insert(node);
        }
        let mut cycles = Vec::new();
        let mut done = BTreeSet::new();
        for node in self.edges.keys() {
            if !done.contains(node.as_str()) {
                visit(self, node, &mut Vec::new(), &mut done, &mut cycles);
            }
        }
        cycles
    }
}

/// The file of module `name` declared in `parent` (a file, `dir` being the folder
/// where its child modules live): `dir/name.rs` or `dir/name/mod.rs`.
fn module_file(dir: &Path, name: &str, exists: &dyn Fn(&Path) -> bool) -> Option<PathBuf> {
    [dir.join(format!("{name}.rs")), dir.join(name).join("mod.rs")].into_iter().find(|p| exists(p))
}

/// Builds the graph of the crate whose root file is `root`, reading files through
/// `read` (`None` for a missing file).
fn crate_graph(root: &Path, read: &dyn Fn(&Path) -> Option<String>) -> Graph {
    let exists = |p: &Path| read(p).is_some();
    let root_tokens = tokenize(&read(root).unwrap_or_default());
    let root_dir = root.parent().unwrap().to_path_buf();
    let top_modules: BTreeSet<String> = declared_module_files(&root_tokens).into_iter().collect();

    // Names the root imports or re-exports from one of its modules: name -> module.
    // Names imported from elsewhere (other crates, std) map to "" (no edge).
    let mut imported: BTreeMap<String, String> = BTreeMap::new();
    for (i, token) in root_tokens.iter().enumerate() {
        if token != &Token::Ident("use".to_string()) {
            continue;
        }
        let mut j = i + 1;
        let mut first = None;
        while let Some(Token::Ident(word)) = root_tokens.get(j) {
            if word == "crate" || word == "self" {
                j += 2;
                continue;
            }
            first.get_or_insert(word.clone());
            j += 1;
            if root_tokens.get(j) != Some(&Token::PathSep) {
                break;
            }
            j += 1;
        }
        let Some(first) = first else { continue };
        let source = if top_modules.contains(&first) { first } else { String::new() };
        // Every name the statement brings in: the last identifier before each
        // `,`, `}` or `;`, or the alias after `as`.
        let mut last: Option<String> = None;
        for token in &root_tokens[i + 1..] {
            match token {
                Token::Ident(word) if word != "as" => last = Some(word.clone()),
                Token::Punct(',' | '}' | ';') => {
                    if let Some(name) = last.take() {
                        imported.entry(name).or_insert_with(|| source.clone());
                    }
                    if token == &Token::Punct(';') {
                        break;
                    }
                }
                _ => {}
            }
        }
    }
    let resolve_in_root = |name: &str| -> Option<String> {
        if top_modules.contains(name) {
            Some(name.to_string())
        } else if let Some(module) = imported.get(name) {
            (!module.is_empty()).then(|| module.clone())
        } else {
            Some(ROOT.to_string())
        }
    };

    let mut graph = Graph::default();
    // The root's own references: paths that start with one of its modules.
    for (i, window) in root_tokens.windows(2).enumerate() {
        if let [Token::Ident(name), Token::PathSep] = window {
            let starts_path = i == 0 || root_tokens[i - 1] != Token::PathSep;
            if starts_path && top_modules.contains(name) {
                graph.add(ROOT, name, || format!("{} names `{name}::…`", root.display()));
            }
        }
    }

    // Every module file below the root: (file, its module path, folder of its children).
    let mut pending: Vec<(PathBuf, Vec<String>, PathBuf)> = top_modules
        .iter()
        .filter_map(|name| {
            let file = module_file(&root_dir, name, &exists)?;
            let children = if file.ends_with("mod.rs") { file.parent().unwrap().into() } else { root_dir.join(name) };
            Some((file, vec![name.clone()], children))
        })
        .collect();
    while let Some((file, path, children_dir)) = pending.pop() {
        let tokens = tokenize(&read(&file).unwrap_or_default());
        let node = path[0].clone();
        for name in declared_module_files(&tokens) {
            if let Some(child) = module_file(&children_dir, &name, &exists) {
                let grandchildren =
                    if child.ends_with("mod.rs") { child.parent().unwrap().into() } else { children_dir.join(&name) };
                let mut child_path = path.clone();
                child_path.push(name);
                pending.push((child, child_path, grandchildren));
            }
        }
        // Inline `mod name { … }` blocks change what `super` means inside them.
        let mut inline: Vec<(String, usize)> = Vec::new();
        let mut depth = 0usize;
        for i in 0..tokens.len() {
            match &tokens[i] {
                Token::Punct('{') => {
                    if let (Some(Token::Ident(keyword)), Some(Token::Ident(name))) =
                        (i.checked_sub(2).map(|k| &tokens[k]), i.checked_sub(1).map(|k| &tokens[k]))
                    {
                        if keyword == "mod" {
                            inline.push((name.clone(), depth));
                        }
                    }
                    depth += 1;
                    continue;
                }
                Token::Punct('}') => {
                    depth = depth.saturating_sub(1);
                    if inline.last().is_some_and(|(_, at)| *at == depth) {
                        inline.pop();
                    }
                    continue;
                }
                _ => {}
            }
            // Only where a path starts, not `a::crate` (which is no valid path anyway).
            if i > 0 && tokens[i - 1] == Token::PathSep {
                continue;
            }
            let mut here = path.clone();
            here.extend(inline.iter().map(|(name, _)| name.clone()));
            let Some((target, heads)) = relative_path_heads(&tokens, i, &here) else { continue };
            for head in heads {
                let to = match target.first() {
                    Some(module) => Some(module.clone()),
                    None if head == "*" || head == "self" => Some(ROOT.to_string()),
                    None => resolve_in_root(&head),
                };
                if let Some(to) = to {
                    let via = if to == head || to == ROOT { String::new() } else { format!(" (from `{to}`)") };
                    graph.add(&node, &to, || format!("{} names `{head}`{via}", file.display()));
                }
            }
        }
    }
    graph
}

/// Every cycle of the crate rooted at `root`, explained, or an empty string.
fn explain_cycles(root: &Path, read: &dyn Fn(&Path) -> Option<String>) -> String {
    let graph = crate_graph(root, read);
    let mut report = String::new();
    for cycle in graph.cycles() {
        writeln!(report, "{}: {}", root.display(), cycle.join(" -> ")).unwrap();
        for pair in cycle.windows(2) {
            writeln!(report, "    {} -> {}: {}", pair[0], pair[1], graph.edges[&pair[0]][&pair[1]]).unwrap();
        }
    }
    report
}

/// `lib.rs`, `main.rs` and `bin/*.rs` (or `bin/*/main.rs`) under every `crates/*/src`, and
/// the targets a manifest places elsewhere.
fn crate_roots(workspace: &Path) -> Vec<PathBuf> {
    let mut roots = Vec::new();
    let mut crates: Vec<PathBuf> = fs::read_dir(workspace.join("crates")).unwrap().map(|e| e.unwrap().path()).collect();
    crates.sort();
    for krate in crates {
        let src = krate.join("src");
        roots.extend([src.join("lib.rs"), src.join("main.rs")].into_iter().filter(|p| p.is_file()));
        // Targets placed elsewhere by their manifest (`[[bin]] path = "cli/main.rs"`).
        let manifest = fs::read_to_string(krate.join("Cargo.toml")).unwrap_or_default();
        for line in manifest.lines() {
            if let Some(path) = line.strip_prefix("path = \"").and_then(|p| p.strip_suffix("\"")) {
                let root = krate.join(path);
                if path.ends_with(".rs") && root.is_file() && !roots.contains(&root) {
                    roots.push(root);
                }
            }
        }
        if let Ok(bins) = fs::read_dir(src.join("bin")) {
            let mut bins: Vec<PathBuf> = bins.map(|e| e.unwrap().path()).collect();
            bins.sort();
            for bin in bins {
                if bin.extension().is_some_and(|e| e == "rs") {
                    roots.push(bin);
                } else if bin.join("main.rs").is_file() {
                    roots.push(bin.join("main.rs"));
                }
            }
        }
    }
    roots
}

#[test]
fn no_module_imports_a_module_that_imports_it_back() {
    let workspace = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..").canonicalize().unwrap();
    let roots = crate_roots(&workspace);
    assert!(roots.len() >= 8, "found only {} crate roots under {}", roots.len(), workspace.display());
    let read = |p: &Path| fs::read_to_string(p).ok();
    let report: String = roots.iter().map(|root| explain_cycles(root, &read)).collect();
    let report = report.replace(&format!("{}/", workspace.display()), "");
    assert!(report.is_empty(), "circles of imports between modules (issue 14):\n{report}");
}

/// The scanner itself, on a made-up crate with the circle issue 14 found in
/// vat-skin: `deform` uses `crate::Rig` (from `rig`) and `rig` uses
/// `crate::DEGENERATE_NORMAL`, which the root re-exported from `deform`.
#[test]
fn the_scanner_finds_a_circle_through_re_exports() {
    let files: BTreeMap<&str, &str> = [
        ("src/lib.rs", "mod deform; mod rig; mod sample;\npub use deform::{evaluate, DEGENERATE_NORMAL};\npub use rig::Rig;\npub use sample::Pose;\n"),
        ("src/deform.rs", "//! Uses crate::nothing in a comment.\nuse crate::{sample::Pose, Rig};\npub use vat_model::DEGENERATE_NORMAL;\n#[cfg(test)]\nmod tests { use super::*; }\n"),
        ("src/rig.rs", "use crate::{Pose, DEGENERATE_NORMAL};\nconst S: &str = \"crate::deform\";\nfn f<'a>(c: char) -> bool { c == '{' }\n"),
        ("src/sample.rs", "pub struct Pose;\n"),
    ]
    .into_iter()
    .collect();
    let read = |p: &Path| files.get(p.to_str().unwrap()).map(|s| s.to_string());
    let report = explain_cycles(Path::new("src/lib.rs"), &read);
    assert!(report.contains("deform -> rig -> deform"), "{report}");
    assert!(report.contains("src/rig.rs names `DEGENERATE_NORMAL` (from `deform`)"), "{report}");
    assert_eq!(report.lines().count(), 3, "{report}");

    // Taken from vat_model directly, the constant closes no loop.
    let fixed = |p: &Path| match p.to_str().unwrap() {
        "src/rig.rs" => Some("use vat_model::DEGENERATE_NORMAL;\nuse crate::Pose;\n".to_string()),
        "src/lib.rs" => Some(files["src/lib.rs"].replace("evaluate, DEGENERATE_NORMAL", "evaluate")),
        other => files.get(other).map(|s| s.to_string()),
    };
    assert_eq!(explain_cycles(Path::new("src/lib.rs"), &fixed), "");
}

/// A child using an item defined in the root while the root uses the child.
#[test]
fn the_scanner_finds_a_circle_through_the_root() {
    let files: BTreeMap<&str, &str> = [
        ("src/lib.rs", "mod draco;\npub const MAX_POINTS: usize = 4;\npub fn load() { draco::decode(); }\n"),
        ("src/draco.rs", "pub fn decode() -> usize { crate::MAX_POINTS }\n"),
    ]
    .into_iter()
    .collect();
    let read = |p: &Path| files.get(p.to_str().unwrap()).map(|s| s.to_string());
    let report = explain_cycles(Path::new("src/lib.rs"), &read);
    assert!(report.contains("crate -> draco -> crate"), "{report}");
}

#[test]
fn the_tokenizer_skips_comments_strings_and_characters() {
    let tokens = tokenize("/* a /* nested */ crate::x */ r#\"crate::y\"# b\"z\" '\\'' 'q' x::y<'a> 1.5 0..n");
    let idents: Vec<&str> = tokens
        .iter()
        .filter_map(|t| match t {
            Token::Ident(s) => Some(s.as_str()),
            _ => None,
        })
        .collect();
    assert_eq!(idents, ["x", "y", "n"]);
}
