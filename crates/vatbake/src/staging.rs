//! Staging: the all-or-nothing writer of a bake's files. Every file goes to a
//! temporary name inside the bake's folder and is renamed into place only once all
//! of the bake's files are complete, so a failure never leaves a half-written or
//! mismatched set behind.

use std::fs;
use std::io::Write;
use std::path::{Path, PathBuf};

use anyhow::{Context, Result};
use vat_description::check_file_name;

/// The temporary files of every bake in this process that are being written or
/// wait to be renamed: what an interrupt has to clean up.
static IN_PROGRESS: std::sync::Mutex<Vec<PathBuf>> = std::sync::Mutex::new(Vec::new());

fn track(temp: &Path) {
    if let Ok(mut files) = IN_PROGRESS.lock() {
        files.push(temp.to_path_buf());
    }
}

fn untrack(temp: &Path) {
    if let Ok(mut files) = IN_PROGRESS.lock() {
        files.retain(|file| file != temp);
    }
}

/// Removes every temporary file of every bake in this process still being
/// written or waiting to be renamed, and returns how many. For an interrupt
/// handler: finished files are never touched (they are renamed into place whole
/// or not at all).
pub fn remove_unfinished() -> usize {
    let files = IN_PROGRESS.lock().map(|files| files.clone()).unwrap_or_default();
    files.iter().filter(|file| fs::remove_file(file).is_ok()).count()
}

/// Files staged for one bake.
pub struct Staged {
    dir: PathBuf,
    files: Vec<(PathBuf, PathBuf)>,
}

impl Staged {
    /// Nothing staged yet, for the bake's folder `dir`.
    pub fn new(dir: &Path) -> Self {
        Staged { dir: dir.to_path_buf(), files: Vec::new() }
    }

    /// Writes `bytes` to a temporary file beside `name` in the bake's folder.
    pub fn write(&mut self, name: &str, bytes: &[u8]) -> Result<()> {
        self.write_with(name, |file| Ok(file.write_all(bytes)?))?;
        Ok(())
    }

    /// Lets `write` fill a temporary file beside `name` in the bake's folder, and
    /// returns the file's length. On an error the temporary file is removed.
    pub fn write_with(&mut self, name: &str, write: impl FnOnce(&mut fs::File) -> Result<()>) -> Result<u64> {
        check_file_name(name)?;
        fs::create_dir_all(&self.dir)
            .with_context(|| format!("cannot create the output folder {}", self.dir.display()))?;
        let target = self.dir.join(name);
        let temp = self.dir.join(format!(".{name}.{}.tmp", std::process::id()));
        // No fsync: the rename is what keeps readers from a half-written file, and a
        // build step that bakes hundreds of units should not wait on the disk.
        track(&temp);
        let result = fs::File::create(&temp).map_err(anyhow::Error::from).and_then(|mut file| {
            write(&mut file)?;
            Ok(file.metadata()?.len())
        });
        match result {
            Ok(len) => {
                self.files.push((temp, target));
                Ok(len)
            }
            Err(e) => {
                let _ = fs::remove_file(&temp);
                untrack(&temp);
                Err(e.context(format!("cannot write {}", target.display())))
            }
        }
    }

    /// Renames every staged file into place.
    pub fn commit(mut self) -> Result<Vec<PathBuf>> {
        let files = std::mem::take(&mut self.files);
        let mut done = Vec::new();
        let renamed = files.iter().try_for_each(|(temp, target)| {
            fs::rename(temp, target)
                .with_context(|| format!("cannot move the finished file into {}", target.display()))?;
            untrack(temp);
            done.push(target.clone());
            Ok::<(), anyhow::Error>(())
        });
        // What could not be renamed is removed, as for any bake that fails.
        for (temp, _) in &files[done.len()..] {
            let _ = fs::remove_file(temp);
            untrack(temp);
        }
        renamed.map(|()| done)
    }
}

impl Drop for Staged {
    /// Anything not committed (an error on the way) is removed.
    fn drop(&mut self) {
        for (temp, _) in &self.files {
            let _ = fs::remove_file(temp);
            untrack(temp);
        }
    }
}
