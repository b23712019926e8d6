//! A choice among named values (`--format`, `--target`, `--mode`, `--root-motion`,
//! `--normals`), with the error that lists every name.

/// The choice among `all` named `s`, or an error that lists every name (`what`: "a target").
pub(crate) fn named<T: Copy>(all: &[T], name: impl Fn(T) -> &'static str, s: &str, what: &str) -> Result<T, String> {
    all.iter().copied().find(|&t| name(t) == s).ok_or_else(|| {
        let names: Vec<&str> = all.iter().map(|&t| name(t)).collect();
        format!("\"{s}\" is not {what}: give one of {}", names.join(", "))
    })
}
