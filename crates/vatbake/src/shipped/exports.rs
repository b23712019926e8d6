//! The files of another tool's format (`--format`) that a description records
//! (`exports`), checked against the folder: `roster` rebakes a unit whose files are
//! not the recorded ones, `verify` reports each.

use std::path::Path;

use crate::description::{check_file_name, ExportFile};

/// What is wrong with one recorded export file, as a `verify` finding: its code and
/// message (naming the file); `None` when it is there with the recorded size and SHA-256.
pub(crate) fn problem(folder: &Path, record: &ExportFile) -> Option<(&'static str, String)> {
    if let Err(e) = check_file_name(&record.file) {
        return Some(("export-missing", format!("the description names the export file {:?}: {e}", record.file)));
    }
    let path = folder.join(&record.file);
    let shown = path.display();
    if let Err(e) = std::fs::metadata(&path) {
        return Some((
            "export-missing",
            format!("{shown}: cannot read the export file the description records: {e}; bake again"),
        ));
    }
    // A regular file in the folder only; a FIFO, a device or a link out is not read.
    let on_disk = match super::read::open_regular(&path, Some(folder)) {
        Ok((_, len)) => len,
        Err(e) => {
            return Some(("export-missing", format!("{e}; the description records it as an export file: bake again")));
        }
    };
    if on_disk != record.bytes {
        return Some((
            "export-bytes",
            format!(
                "{shown}: {on_disk} bytes, the description says {}: edited, or written by another bake",
                record.bytes
            ),
        ));
    }
    match super::read::sha256_regular(&path, Some(folder), record.bytes) {
        Ok(found) if found == record.sha256 => None,
        Ok(_) => Some((
            "export-sha256",
            format!("{shown}: its SHA-256 is not the one the description records: edited, or written by another bake"),
        )),
        Err(e) => Some(("export-missing", format!("{e}; the description records it as an export file"))),
    }
}

/// The size on disk of each recorded export file beside `folder`, `None` where it is
/// missing (what `inspect` shows).
pub(crate) fn sizes_on_disk(folder: &Path, records: &[ExportFile]) -> Vec<Option<u64>> {
    records
        .iter()
        .map(|r| {
            check_file_name(&r.file).ok().and_then(|()| std::fs::metadata(folder.join(&r.file)).ok()).map(|m| m.len())
        })
        .collect()
}
