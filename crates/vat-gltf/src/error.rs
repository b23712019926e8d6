use std::fmt;
use std::path::PathBuf;

/// What kind of problem stopped the load; callers map it to exit codes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ErrorKind {
    /// A file could not be read (missing, unreadable, or a referenced buffer is missing).
    Io,
    /// The bytes are not a glTF 2.0 document at all (bad JSON, bad GLB container).
    NotGltf,
    /// A glTF document that breaks the specification (indices, sizes, NaN keys, …).
    Invalid,
    /// Valid glTF that uses something this tool does not read.
    Unsupported,
}

/// A load failure: the file, what is wrong, and what to do about it.
#[derive(Clone, Debug)]
pub struct LoadError {
    /// The file being loaded.
    pub file: PathBuf,
    /// The category of failure.
    pub kind: ErrorKind,
    /// What is wrong, in one line.
    pub message: String,
    /// What to do about it.
    pub hint: String,
}

impl LoadError {
    pub(crate) fn new(file: impl Into<PathBuf>, kind: ErrorKind, message: impl Into<String>) -> Self {
        let hint = match kind {
            ErrorKind::Io => "check that the file and the buffers it names exist next to it",
            ErrorKind::NotGltf => "pass a .glb or .gltf file exported as glTF 2.0",
            ErrorKind::Invalid => {
                "the file breaks the glTF 2.0 specification; re-export it, or run it through \
                 the Khronos glTF validator to see every problem"
            }
            ErrorKind::Unsupported => "re-export the model without this feature",
        };
        LoadError { file: file.into(), kind, message: message.into(), hint: hint.to_string() }
    }

    pub(crate) fn with_hint(mut self, hint: impl Into<String>) -> Self {
        self.hint = hint.into();
        self
    }
}

impl fmt::Display for LoadError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}; {}", self.file.display(), self.message, self.hint)
    }
}

impl std::error::Error for LoadError {}
