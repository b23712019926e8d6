//! Write: the staged files renamed into place together, all or nothing.
//!
//! Owns: the order the files are staged in (the description last: the set's mark)
//! and their renaming into place. Must not touch: the files' bytes.

use std::path::PathBuf;

use anyhow::Result;

use super::encode::Encoded;
use crate::error::Error;
use crate::settings::BakeSettings;
use crate::staging::Staged;

/// Write: the encoded files staged beside the texture (the rest mesh, its levels of
/// detail and other tools' files, the description last: the set's mark), then all renamed into place together.
pub(crate) fn write(staged: Staged, encoded: &Encoded, settings: &BakeSettings) -> Result<Vec<PathBuf>> {
    let (mesh_file, description_file) = (settings.mesh_file(), settings.description_file());
    let mesh = (mesh_file.as_str(), encoded.glb.as_slice());
    let exports = encoded.exports.iter().map(|(name, bytes)| (name.as_str(), bytes.as_slice()));
    let lods = encoded.lods.iter().map(|(name, bytes)| (name.as_str(), bytes.as_slice()));
    let mut files: Vec<(&str, &[u8])> = Vec::new();
    if encoded.exports_first {
        files.extend(exports);
        files.push(mesh);
    } else {
        files.push(mesh);
        files.extend(lods);
        files.extend(exports);
    }
    files.push((&description_file, &encoded.description_json));
    commit(staged, &files)
}

/// Write: `files` staged beside the texture in order (the rest mesh, other files, the
/// description), then all renamed into place together.
fn commit(mut staged: Staged, files: &[(&str, &[u8])]) -> Result<Vec<PathBuf>> {
    let output = |e: anyhow::Error| Error::output(format!("{e:#}"));
    for &(name, bytes) in files {
        staged.write(name, bytes).map_err(output)?;
    }
    Ok(staged.commit().map_err(output)?)
}
