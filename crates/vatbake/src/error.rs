//! The library's one error type: what went wrong, of which kind, in one paragraph
//! that names the file and says what to do. The binary maps each kind to its exit
//! code (docs/CLI.md); the library never exits or prints.

use serde::Serialize;

/// What kind of thing went wrong, so that a caller can react (and the binary can
/// pick an exit code) without reading the message.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum ErrorKind {
    /// A setting or argument is wrong (exit code 2).
    Usage,
    /// The model cannot be read, is invalid or unsupported, or would bake wrongly (exit code 3).
    Input,
    /// The results cannot be written (exit code 4).
    Output,
    /// A [`crate::Watch`] asked the work to stop.
    Cancelled,
}

/// An error of the pipeline: its kind and its one-paragraph message.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{message}")]
pub struct Error {
    /// What kind of error it is.
    pub kind: ErrorKind,
    /// The message, naming the file, the problem and what to do.
    pub message: String,
}

impl Error {
    /// A setting or argument is wrong.
    pub fn usage(message: impl Into<String>) -> Self {
        Error { kind: ErrorKind::Usage, message: message.into() }
    }
    /// The input cannot be baked as it is.
    pub fn input(message: impl Into<String>) -> Self {
        Error { kind: ErrorKind::Input, message: message.into() }
    }
    /// The results cannot be written.
    pub fn output(message: impl Into<String>) -> Self {
        Error { kind: ErrorKind::Output, message: message.into() }
    }
    /// An input file (a description, a texture, a roster, a model) that cannot be read:
    /// an input error (exit 3 in every command), with what to do for the common causes.
    pub fn unreadable(path: &std::path::Path, what: &str, error: &std::io::Error) -> Self {
        Error::input(format!("{}: cannot read {what}: {}", path.display(), io_remedy(path, error)))
    }
    /// The work was stopped by its watch.
    pub fn cancelled() -> Self {
        Error { kind: ErrorKind::Cancelled, message: "cancelled".into() }
    }
}

/// An I/O error's words and what to do: a folder where a file was expected, a path
/// that does not exist, a file without read permission.
pub(crate) fn io_remedy(path: &std::path::Path, error: &std::io::Error) -> String {
    use std::io::ErrorKind as Io;
    if path.is_dir() {
        return "it is a folder, not a file; give the file itself".to_string();
    }
    let remedy = match error.kind() {
        Io::NotFound => "check the path",
        Io::PermissionDenied => "check the file's permissions",
        _ => "check the file",
    };
    format!("{error}; {remedy}")
}

impl Error {
    /// What any error that reaches a caller is: an [`Error`] inside stays what it
    /// is; a loader error is an input error; anything else (a file that cannot be
    /// written) is an output error.
    pub fn classify(error: &anyhow::Error) -> Self {
        if let Some(e) = error.downcast_ref::<Error>() {
            return e.clone();
        }
        if let Some(e) = error.downcast_ref::<vat_gltf::LoadError>() {
            return Error::input(e.to_string());
        }
        Error::output(format!("{error:#}"))
    }
}

impl From<anyhow::Error> for Error {
    /// See [`Error::classify`].
    fn from(error: anyhow::Error) -> Self {
        Error::classify(&error)
    }
}

impl From<vat_gltf::LoadError> for Error {
    fn from(error: vat_gltf::LoadError) -> Self {
        Error::input(error.to_string())
    }
}
