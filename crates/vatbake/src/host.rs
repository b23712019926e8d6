//! What the bake asks of the system that WebAssembly (WASI preview 1, the npm
//! package's module in runtimes/cli) answers otherwise: a process id and resolved
//! paths. Natively these are `std::process::id`,
//! `Path::canonicalize`.

use std::path::{Path, PathBuf};

/// This process's id; 0 in WebAssembly, where there is none (a staged file's name
/// then says no writer whose end can be known, and no one removes it as abandoned).
pub(crate) fn process_id() -> u32 {
    #[cfg(not(target_family = "wasm"))]
    return std::process::id();
    #[cfg(target_family = "wasm")]
    return 0;
}

/// Whether this system can tell that another process has ended: not in WebAssembly,
/// where the host's `/proc`, if preopened, lists the host's processes, not ours.
pub(crate) fn knows_processes() -> bool {
    cfg!(not(target_family = "wasm"))
}

/// `path` made absolute with its links resolved: `Path::canonicalize` natively. WASI
/// preview 1 has no call that resolves a path, and Rust's `canonicalize` fails there:
/// the path made absolute (against the working folder the host gives) with `.` and
/// `..` taken out, when it exists. Links are not followed: a bake whose paths go
/// through links can name its files differently in WebAssembly.
pub(crate) fn canonicalize(path: &Path) -> std::io::Result<PathBuf> {
    #[cfg(not(target_family = "wasm"))]
    return path.canonicalize();
    #[cfg(target_family = "wasm")]
    {
        use std::path::Component;
        std::fs::metadata(path)?;
        let mut resolved = PathBuf::new();
        for part in std::path::absolute(path)?.components() {
            match part {
                Component::CurDir => {}
                Component::ParentDir => {
                    resolved.pop();
                }
                other => resolved.push(other),
            }
        }
        Ok(resolved)
    }
}
