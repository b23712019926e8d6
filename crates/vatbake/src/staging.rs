//! Staging: the all-or-nothing writer of a bake's files. Every file goes to a
//! temporary name inside the bake's folder and is renamed into place only once all
//! of the bake's files are complete, so a failure never leaves a half-written or
//! mismatched set behind.
//!
//! A temporary file is named `.NAME.PID.RANDOM.tmp` (hidden, beside `NAME`, with the
//! writing process's id and ten random letters and digits) and created exclusively
//! (`O_CREAT|O_EXCL`): whatever is already at a name, a file or a link planted by
//! someone else who may write into the folder, is never opened or written through; a
//! name that is taken is drawn again. The final rename replaces a link at `NAME` (the
//! link itself, never the file it points at). An interrupt handler removes this
//! process's temporary files ([`remove_unfinished`]); what a killed process left behind
//! (SIGKILL, a power cut) is removed by the next bake into the same folder
//! ([`remove_abandoned`]), once the process is gone. Files of the older naming
//! `.NAME.PID.tmp` are removed the same way.

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

/// SHA-256 of a file's bytes, lowercase hex (as `vat_description::sha256_hex` spells
/// it), read in 1 MiB pieces: how the description's texture and mesh hashes are made
/// and checked.
pub fn sha256_file(path: &Path) -> std::io::Result<String> {
    use sha2::{Digest, Sha256};
    use std::io::Read;
    let mut file = fs::File::open(path)?;
    let mut hasher = Sha256::new();
    let mut buffer = vec![0; 1 << 20];
    loop {
        match file.read(&mut buffer) {
            Ok(0) => break,
            Ok(n) => hasher.update(&buffer[..n]),
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
            Err(e) => return Err(e),
        }
    }
    Ok(format!("{:x}", hasher.finalize()))
}

/// Random letters and digits in a temporary name: no one can know the name before the
/// file is there, so no one can plant a link or a file at it.
const RANDOM_CHARS: usize = 10;

/// Creates a new, empty temporary file for `name` in `dir`, named
/// `.NAME.PID.RANDOM.tmp`, exclusively (`O_CREAT|O_EXCL`: a link or file already at
/// the name is never opened; another name is drawn). Its permissions are those of a
/// file the user creates (0666 less the umask), as before temporary files had random
/// names; the file is kept (not removed when the handle is dropped).
fn create_temp(dir: &Path, name: &str) -> std::io::Result<(fs::File, PathBuf)> {
    let prefix = format!(".{name}.{}.", crate::host::process_id());
    let mut builder = tempfile::Builder::new();
    builder.prefix(&prefix).suffix(".tmp").rand_bytes(RANDOM_CHARS);
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        builder.permissions(fs::Permissions::from_mode(0o666));
    }
    let (file, path) = builder.tempfile_in(dir)?.into_parts();
    let path = path.keep().map_err(|e| e.error)?;
    Ok((file, path))
}

/// The process id in a temporary file name of our naming (`.NAME.PID.RANDOM.tmp`, or
/// the older `.NAME.PID.tmp`, with `NAME` a plain file name), or `None` for any other
/// name.
fn writer_of(file_name: &str) -> Option<u32> {
    let inner = file_name.strip_prefix('.')?.strip_suffix(".tmp")?;
    let digits = |s: &str| !s.is_empty() && s.bytes().all(|b| b.is_ascii_digit());
    let (rest, last) = inner.rsplit_once('.')?;
    let (name, pid) = match rest.rsplit_once('.') {
        Some((name, pid))
            if last.len() == RANDOM_CHARS && last.bytes().all(|b| b.is_ascii_alphanumeric()) && digits(pid) =>
        {
            (name, pid)
        }
        _ => (rest, last),
    };
    if !digits(pid) || check_file_name(name).is_err() {
        return None;
    }
    pid.parse().ok()
}

/// Whether process `pid` is known to be gone: only where the system lists its
/// processes (`/proc`), and not from WebAssembly; elsewhere nothing is known, and nothing is removed.
fn process_gone(pid: u32) -> bool {
    let proc = Path::new("/proc");
    crate::host::knows_processes() && proc.join("self").exists() && !proc.join(pid.to_string()).exists()
}

/// Removes the temporary files of our naming in `dir` whose writer process is gone
/// (killed before it could clean up), and returns how many. Files of live processes,
/// this one's included, and every other file are left alone. A missing or unreadable
/// folder has none.
pub fn remove_abandoned(dir: &Path) -> usize {
    let Ok(entries) = fs::read_dir(dir) else { return 0 };
    let own = crate::host::process_id();
    entries
        .filter_map(Result::ok)
        .filter(|entry| entry.file_type().is_ok_and(|t| t.is_file()))
        .filter(|entry| {
            let name = entry.file_name();
            let pid = name.to_str().and_then(writer_of);
            pid.is_some_and(|pid| pid != own && process_gone(pid))
        })
        .filter(|entry| fs::remove_file(entry.path()).is_ok())
        .count()
}

/// Files staged for one bake.
pub struct Staged {
    dir: PathBuf,
    files: Vec<(PathBuf, PathBuf)>,
    durable: bool,
    /// A dry run's files, held in memory beside their would-be paths: nothing is
    /// written anywhere (`bake --dry-run`, `inspect` of a source).
    memory: Option<Vec<(PathBuf, Vec<u8>)>>,
}

/// What a staged file is written through: a temporary file beside its target, or
/// a dry run's buffer.
pub trait Sink: Write + std::io::Seek + Send {}
impl<T: Write + std::io::Seek + Send> Sink for T {}

/// Makes the folder's entries (created, renamed, removed files) durable; a no-op
/// where a folder cannot be opened as a file (Windows).
fn sync_folder(dir: &Path) -> Result<()> {
    if cfg!(unix) {
        fs::File::open(dir)
            .and_then(|folder| folder.sync_all())
            .with_context(|| format!("cannot sync the folder {}", dir.display()))?;
    }
    Ok(())
}

impl Staged {
    /// Nothing staged yet, for the bake's folder `dir`.
    pub fn new(dir: &Path) -> Self {
        Staged { dir: dir.to_path_buf(), files: Vec::new(), durable: false, memory: None }
    }

    /// A dry run for the bake's folder `dir`: every file is made in memory and
    /// [`Staged::commit`] names where each would go, writing nothing, anywhere.
    pub fn in_memory(dir: &Path) -> Self {
        Staged { dir: dir.to_path_buf(), files: Vec::new(), durable: false, memory: Some(Vec::new()) }
    }

    /// With `durable`, every file is synced to the disk when written, and the folder
    /// before and after the renames (`--durable`): a power cut then keeps the previous
    /// set or the new one, at the cost of waiting for the disk. Without it, the renames
    /// alone keep readers and killed processes from half-written sets.
    pub fn durable(mut self, durable: bool) -> Self {
        self.durable = durable;
        self
    }

    /// Writes `bytes` to a temporary file beside `name` in the bake's folder.
    pub fn write(&mut self, name: &str, bytes: &[u8]) -> Result<()> {
        self.write_with(name, |file| Ok(file.write_all(bytes)?))?;
        Ok(())
    }

    /// Lets `write` fill a temporary file beside `name` in the bake's folder, and
    /// returns the file's length. On an error the temporary file is removed.
    pub fn write_with(&mut self, name: &str, write: impl FnOnce(&mut dyn Sink) -> Result<()>) -> Result<u64> {
        check_file_name(name)?;
        if let Some(memory) = &mut self.memory {
            let mut buffer = std::io::Cursor::new(Vec::new());
            write(&mut buffer)?;
            let bytes = buffer.into_inner();
            let len = bytes.len() as u64;
            memory.push((self.dir.join(name), bytes));
            return Ok(len);
        }
        fs::create_dir_all(&self.dir).map_err(|e| {
            crate::Error::output(format!(
                "cannot create the output folder {}: {}",
                self.dir.display(),
                output_remedy(&self.dir, &e)
            ))
        })?;
        if self.files.is_empty() {
            // The bake's first file: what a killed bake left here goes first.
            remove_abandoned(&self.dir);
        }
        let target = self.dir.join(name);
        // No fsync: the rename is what keeps readers from a half-written file, and a
        // build step that bakes hundreds of units should not wait on the disk.
        let (mut file, temp) = create_temp(&self.dir, name).map_err(|e| {
            crate::Error::output(format!("cannot write {}: {}", target.display(), output_remedy(&self.dir, &e)))
        })?;
        track(&temp);
        let result = write(&mut file).and_then(|()| {
            if self.durable {
                file.sync_all()?;
            }
            Ok(file.metadata()?.len())
        });
        drop(file);
        match result {
            Ok(len) => {
                self.files.push((temp, target));
                Ok(len)
            }
            Err(e) => {
                let _ = fs::remove_file(&temp);
                untrack(&temp);
                match e.downcast_ref::<crate::Error>() {
                    Some(_) => Err(e),
                    None => Err(e.context(format!("cannot write {}", target.display()))),
                }
            }
        }
    }

    /// SHA-256 of the staged file that will become `name`, lowercase hex: for the
    /// description, which names the files it belongs to.
    pub fn sha256(&self, name: &str) -> Result<String> {
        let target = self.dir.join(name);
        if let Some(memory) = &self.memory {
            let (_, bytes) =
                memory.iter().find(|(t, _)| *t == target).with_context(|| format!("{name} is not staged"))?;
            return Ok(crate::description::sha256_hex(bytes));
        }
        let (temp, _) =
            self.files.iter().find(|(_, t)| *t == target).with_context(|| format!("{name} is not staged"))?;
        sha256_file(temp).with_context(|| format!("cannot read back {}", temp.display()))
    }

    /// Renames every staged file into place, in the order they were staged. The file
    /// staged last (the description) is the set's mark: its previous version is moved
    /// aside (to a temporary name) before the first rename and the new one renamed in
    /// last, so a process killed in between leaves a folder whose mark, if any,
    /// describes the files beside it: the whole previous set, the whole new one, or no
    /// mark at all (never an old description beside a new texture). When the first
    /// rename fails, nothing has changed and the previous mark is put back.
    pub fn commit(mut self) -> Result<Vec<PathBuf>> {
        if let Some(memory) = self.memory.take() {
            return Ok(memory.into_iter().map(|(target, _)| target).collect());
        }
        let files = std::mem::take(&mut self.files);
        if self.durable {
            sync_folder(&self.dir)?;
        }
        let aside = match files.split_last() {
            Some(((_, mark), rest)) if !rest.is_empty() => self.set_aside(mark)?,
            _ => None,
        };
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
        if let Some((aside, mark)) = aside {
            // Nothing replaced yet: the previous set is whole again. Else it is gone.
            if done.is_empty() {
                let _ = fs::rename(&aside, mark);
            } else {
                let _ = fs::remove_file(&aside);
            }
            untrack(&aside);
        }
        renamed?;
        if self.durable {
            sync_folder(&self.dir)?;
        }
        Ok(done)
    }

    /// Moves an existing `mark` to a temporary name of this process (removed by an
    /// interrupt, or by the next bake once this process is gone), and returns where.
    /// The name is first taken by an empty file created exclusively, so the rename
    /// replaces our own file, never one someone else put at a name they guessed.
    fn set_aside<'a>(&self, mark: &'a Path) -> Result<Option<(PathBuf, &'a Path)>> {
        let Some(name) = mark.file_name().map(|n| n.to_string_lossy().into_owned()) else { return Ok(None) };
        if fs::symlink_metadata(mark).is_err_and(|e| e.kind() == std::io::ErrorKind::NotFound) {
            return Ok(None);
        }
        let (_, aside) = create_temp(&self.dir, &format!("{name}.old"))
            .with_context(|| format!("cannot replace {}: cannot create a temporary file beside it", mark.display()))?;
        track(&aside);
        match fs::rename(mark, &aside) {
            Ok(()) => Ok(Some((aside, mark))),
            Err(e) => {
                let _ = fs::remove_file(&aside);
                untrack(&aside);
                if e.kind() == std::io::ErrorKind::NotFound {
                    Ok(None)
                } else {
                    Err(e).with_context(|| format!("cannot replace {}", mark.display()))
                }
            }
        }
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

/// An output folder's I/O error and what to do: a file where the folder should be
/// (the folder itself or a folder on its path), no permission, a read-only disk.
fn output_remedy(dir: &Path, error: &std::io::Error) -> String {
    use std::io::ErrorKind as Io;
    let file_on_path = dir.ancestors().find(|a| !a.as_os_str().is_empty() && a.is_file());
    if let Some(file) = file_on_path {
        return format!("{} is a file, not a folder; give -o a folder (it is created if missing)", file.display());
    }
    let remedy = match error.kind() {
        Io::PermissionDenied | Io::ReadOnlyFilesystem => "give -o a folder you can write to",
        Io::StorageFull | Io::QuotaExceeded => "free some space or give -o a folder on another disk",
        _ => "check the folder",
    };
    format!("{error}; {remedy}")
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The older naming, `.NAME.PID.tmp`, still recognised as ours.
    fn temp_name(name: &str, pid: u32) -> String {
        format!(".{name}.{pid}.tmp")
    }

    #[test]
    fn temporary_names_and_their_writers() {
        assert_eq!(writer_of(".Fox.vat.json.4242.tmp"), Some(4242));
        assert_eq!(writer_of(&temp_name("a", 7)), Some(7));
        assert_eq!(writer_of(".Fox.vat.json.4242.aB3dE5gH7j.tmp"), Some(4242));
        assert_eq!(writer_of(".Fox.vat.json.old.17.0123456789.tmp"), Some(17));
        for other in [
            ".Fox.vat.json.tmp",
            "Fox.vat.json.42.tmp",
            ".Fox.4x2.tmp",
            "..42.tmp",
            ".42.tmp",
            ".Fox.42",
            ".Fox.vat.json.12ab.tmp",
            ".Fox.vat.json.42.aB3dE5gH7.tmp",
            ".Fox.vat.json.42.aB3dE5-H7j.tmp",
        ] {
            assert_eq!(writer_of(other), None, "{other}");
        }
        let dir = tempfile::tempdir().unwrap();
        let (_, made) = create_temp(dir.path(), "Fox.vat.ktx2").unwrap();
        let made = made.file_name().unwrap().to_str().unwrap().to_string();
        assert_eq!(writer_of(&made), Some(std::process::id()), "{made}");
        assert!(made.starts_with(&format!(".Fox.vat.ktx2.{}.", std::process::id())), "{made}");
    }

    /// Links planted at every name a bake of this process could write to (the older
    /// predictable temporary names, the names of the set aside description, the final
    /// names) lead nowhere: no byte lands outside the folder, and every final name is a
    /// regular file of the new set.
    #[cfg(unix)]
    #[test]
    fn planted_links_are_never_written_through() {
        let outside = tempfile::tempdir().unwrap();
        let dir = tempfile::tempdir().unwrap();
        let pid = std::process::id();
        let names = ["u.vat.ktx2", "u.rest.glb", "u.vat.json"];
        let mut victims = Vec::new();
        let mut plant = |link: PathBuf| {
            let victim = outside.path().join(format!("victim{}", victims.len()));
            fs::write(&victim, b"keep me").unwrap();
            std::os::unix::fs::symlink(&victim, link).unwrap();
            victims.push(victim);
        };
        for name in names {
            plant(dir.path().join(temp_name(name, pid)));
            plant(dir.path().join(temp_name(&format!("{name}.old"), pid)));
        }
        // The old description is a link too: it is moved aside, not written through.
        plant(dir.path().join("u.vat.json"));
        plant(dir.path().join("u.vat.ktx2"));
        // A dangling link at a final name: the rename replaces it.
        std::os::unix::fs::symlink(outside.path().join("nothing"), dir.path().join("u.rest.glb")).unwrap();
        let mut staged = Staged::new(dir.path());
        for name in names {
            staged.write(name, name.as_bytes()).unwrap();
        }
        staged.commit().unwrap();
        for victim in &victims {
            assert_eq!(fs::read(victim).unwrap(), b"keep me", "{} was written through a link", victim.display());
        }
        assert!(!outside.path().join("nothing").exists());
        assert_eq!(fs::read_dir(outside.path()).unwrap().count(), victims.len());
        for name in names {
            let at = dir.path().join(name);
            assert!(fs::symlink_metadata(&at).unwrap().file_type().is_file(), "{name} is a regular file");
            assert_eq!(fs::read(&at).unwrap(), name.as_bytes());
        }
    }

    #[test]
    fn only_abandoned_files_of_our_naming_are_removed() {
        if !Path::new("/proc/self").exists() {
            return; // no process list: nothing is ever removed (remove_abandoned)
        }
        let dir = tempfile::tempdir().unwrap();
        // pid_max is at most 2^22 on Linux: no process has this id.
        let gone = dir.path().join(temp_name("Fox.vat.ktx2", 999_999_999));
        let own = dir.path().join(temp_name("Fox.vat.json", std::process::id()));
        let alive = dir.path().join(temp_name("Fox.rest.glb", 1));
        let others = [".notes.tmp", "Fox.vat.json", ".Fox.vat.json.12ab.tmp"].map(|n| dir.path().join(n));
        for file in [&gone, &own, &alive].into_iter().chain(&others) {
            fs::write(file, b"x").unwrap();
        }
        fs::create_dir(dir.path().join(temp_name("folder", 999_999_998))).unwrap();
        assert_eq!(remove_abandoned(dir.path()), 1);
        assert!(!gone.exists());
        assert!(own.exists() && alive.exists() && others.iter().all(|f| f.exists()));
        assert_eq!(remove_abandoned(&dir.path().join("missing")), 0);
    }

    /// A commit that stops between two renames (here a rename that fails; a kill is
    /// the same) leaves no description beside files it does not describe.
    #[test]
    fn a_commit_stopped_between_renames_leaves_no_stale_mark() {
        let dir = tempfile::tempdir().unwrap();
        let at = |name: &str| dir.path().join(name);
        fs::write(at("u.vat.ktx2"), b"old texture").unwrap();
        fs::write(at("u.vat.json"), b"old description").unwrap();
        // The mesh's place is taken by a folder that is not empty: its rename fails.
        fs::create_dir_all(at("u.rest.glb").join("in the way")).unwrap();
        let mut staged = Staged::new(dir.path());
        staged.write("u.vat.ktx2", b"new texture").unwrap();
        staged.write("u.rest.glb", b"new mesh").unwrap();
        staged.write("u.vat.json", b"new description").unwrap();
        assert!(staged.commit().is_err());
        assert_eq!(fs::read(at("u.vat.ktx2")).unwrap(), b"new texture");
        assert!(!at("u.vat.json").exists(), "the old description must not describe the new texture");
        let left: Vec<_> = fs::read_dir(dir.path()).unwrap().map(|e| e.unwrap().file_name()).collect();
        assert_eq!(left.len(), 2, "no temporary file is left: {left:?}");

        // A whole commit replaces the set, the mark last.
        fs::remove_dir_all(at("u.rest.glb")).unwrap();
        let mut staged = Staged::new(dir.path());
        for (name, bytes) in [("u.vat.ktx2", &b"t2"[..]), ("u.rest.glb", b"m2"), ("u.vat.json", b"d2")] {
            staged.write(name, bytes).unwrap();
        }
        let done = staged.commit().unwrap();
        assert_eq!(done.last(), Some(&at("u.vat.json")));
        assert_eq!(fs::read(at("u.vat.json")).unwrap(), b"d2");
    }

    #[test]
    fn a_durable_commit_writes_the_same_set() {
        let dir = tempfile::tempdir().unwrap();
        let mut staged = Staged::new(dir.path()).durable(true);
        staged.write("u.vat.ktx2", b"texture").unwrap();
        staged.write("u.vat.json", b"description").unwrap();
        let done = staged.commit().unwrap();
        assert_eq!(done, [dir.path().join("u.vat.ktx2"), dir.path().join("u.vat.json")]);
        assert_eq!(fs::read(dir.path().join("u.vat.json")).unwrap(), b"description");
        assert_eq!(fs::read_dir(dir.path()).unwrap().count(), 2);
    }
}
