//! Write: the staged files renamed into place together, all or nothing.

use std::path::PathBuf;

use anyhow::Result;

use crate::error::Error;
use crate::staging::Staged;

/// Write: `files` staged beside the texture in order (the rest mesh, other files, the
/// description), then all renamed into place together.
pub(crate) fn commit(mut staged: Staged, files: &[(&str, &[u8])]) -> Result<Vec<PathBuf>> {
    let output = |e: anyhow::Error| Error::output(format!("{e:#}"));
    for &(name, bytes) in files {
        staged.write(name, bytes).map_err(output)?;
    }
    Ok(staged.commit().map_err(output)?)
}
