//! The file level: GLB container, data URIs, external files confined to the model's folder.

use std::path::{Component, Path, PathBuf};

use base64::Engine;

use crate::error::{ErrorKind, LoadError};

const GLB_MAGIC: &[u8; 4] = b"glTF";
const CHUNK_JSON: u32 = 0x4E4F_534A;
const CHUNK_BIN: u32 = 0x004E_4942;

/// The JSON text and the GLB binary chunk, if any.
pub(crate) struct Container<'a> {
    pub json: &'a [u8],
    pub bin: Option<&'a [u8]>,
}

fn le_u32(bytes: &[u8], at: usize) -> u32 {
    u32::from_le_bytes([bytes[at], bytes[at + 1], bytes[at + 2], bytes[at + 3]])
}

/// Splits a GLB into its chunks, or takes the bytes as glTF JSON.
pub(crate) fn split<'a>(file: &Path, bytes: &'a [u8]) -> Result<Container<'a>, LoadError> {
    if !bytes.starts_with(GLB_MAGIC) {
        return Ok(Container { json: bytes, bin: None });
    }
    let bad = |message: String| LoadError::new(file, ErrorKind::NotGltf, message);
    if bytes.len() < 20 {
        return Err(bad(format!(
            "GLB file is truncated: {} bytes, shorter than its 12-byte header and first chunk header",
            bytes.len()
        )));
    }
    let version = le_u32(bytes, 4);
    if version != 2 {
        return Err(bad(format!("GLB container version {version}; only glTF 2.0 is read"))
            .with_hint("re-export the model as glTF 2.0"));
    }
    let declared = le_u32(bytes, 8) as usize;
    if declared > bytes.len() {
        return Err(bad(format!(
            "GLB file is truncated: its header declares {declared} bytes but the file has {}",
            bytes.len()
        ))
        .with_hint("the file was cut short (an interrupted copy or download?); export or copy it again"));
    }
    let body = &bytes[..declared];
    let mut at = 12;
    let mut json = None;
    let mut bin = None;
    while at + 8 <= body.len() {
        let length = le_u32(body, at) as usize;
        let kind = le_u32(body, at + 4);
        let start = at + 8;
        let end = start
            .checked_add(length)
            .filter(|&e| e <= body.len())
            .ok_or_else(|| bad(format!("GLB chunk at byte {at} declares {length} bytes, past the end of the file")))?;
        match kind {
            CHUNK_JSON if json.is_none() => json = Some(&body[start..end]),
            CHUNK_BIN if bin.is_none() && json.is_some() => bin = Some(&body[start..end]),
            _ => {} // unknown chunks are skipped, as the spec asks
        }
        // Chunks are 4-byte aligned by their writers; tolerate files that are not.
        at = end;
    }
    let json = json.ok_or_else(|| bad("GLB file has no JSON chunk".into()))?;
    Ok(Container { json, bin })
}

/// Decodes a `data:` URI; `None` when the URI is not a data URI.
pub(crate) fn decode_data_uri(file: &Path, uri: &str) -> Option<Result<Vec<u8>, LoadError>> {
    let rest = uri.strip_prefix("data:")?;
    let Some((header, payload)) = rest.split_once(',') else {
        return Some(Err(LoadError::new(
            file,
            ErrorKind::Invalid,
            "a data URI has no ',' separating its header from its payload",
        )));
    };
    if !header.ends_with(";base64") {
        return Some(Ok(percent_decode(payload).into_bytes()));
    }
    Some(
        base64::engine::general_purpose::STANDARD
            .decode(payload.trim())
            .map_err(|e| LoadError::new(file, ErrorKind::Invalid, format!("a base64 data URI does not decode: {e}"))),
    )
}

/// The MIME type of a `data:` URI, if it states one.
pub(crate) fn data_uri_mime(uri: &str) -> Option<String> {
    let header = uri.strip_prefix("data:")?.split(',').next()?;
    let mime = header.split(';').next()?;
    (!mime.is_empty()).then(|| mime.to_string())
}

fn percent_decode(text: &str) -> String {
    let bytes = text.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] == b'%' && i + 2 < bytes.len() {
            let hex = std::str::from_utf8(&bytes[i + 1..i + 3]).ok();
            if let Some(v) = hex.and_then(|h| u8::from_str_radix(h, 16).ok()) {
                out.push(v);
                i += 3;
                continue;
            }
        }
        out.push(bytes[i]);
        i += 1;
    }
    String::from_utf8_lossy(&out).into_owned()
}

/// Resolves a relative URI against the model's folder, refusing anything that could
/// reach outside it: absolute paths, `..` past the folder, schemes such as `http:`.
pub(crate) fn resolve_uri(model_file: &Path, uri: &str) -> Result<PathBuf, LoadError> {
    let refuse = |why: &str| {
        LoadError::new(model_file, ErrorKind::Unsupported, format!("the URI \"{uri}\" {why}")).with_hint(
            "external files must sit in the model's folder or below it; \
             embed them (export as .glb) or move them next to the model",
        )
    };
    if uri.contains("://") || uri.split('/').next().is_some_and(|s| s.ends_with(':') && s.len() > 2) {
        return Err(refuse("names a network or other non-file location"));
    }
    let decoded = percent_decode(uri);
    let relative = Path::new(&decoded);
    let mut depth: i32 = 0;
    let mut clean = PathBuf::new();
    for component in relative.components() {
        match component {
            Component::Normal(part) => {
                depth += 1;
                clean.push(part);
            }
            Component::CurDir => {}
            Component::ParentDir => {
                depth -= 1;
                if depth < 0 {
                    return Err(refuse("escapes the model's folder"));
                }
                clean.pop();
            }
            Component::RootDir | Component::Prefix(_) => {
                return Err(refuse("is an absolute path"));
            }
        }
    }
    if decoded.contains('\\') || decoded.contains('\0') {
        return Err(refuse("contains a backslash or NUL"));
    }
    let folder = model_file.parent().unwrap_or(Path::new("."));
    Ok(folder.join(clean))
}

/// `std::fs::read` of a regular file only: anything else (a FIFO, a device, a socket,
/// a folder) is an error of kind `InvalidInput` saying what it is, before it is opened.
pub(crate) fn read_regular(path: &Path) -> std::io::Result<Vec<u8>> {
    let meta = std::fs::metadata(path)?;
    if !meta.is_file() {
        let what = if meta.is_dir() { "a folder" } else { "not a regular file (a FIFO, a device or a socket)" };
        return Err(std::io::Error::new(std::io::ErrorKind::InvalidInput, format!("{what}: refused")));
    }
    std::fs::read(path)
}

/// Reads a file a URI names; the error names the model, the URI and the file.
pub(crate) fn read_external(model_file: &Path, uri: &str, what: &str) -> Result<Vec<u8>, LoadError> {
    let path = resolve_uri(model_file, uri)?;
    read_regular(&path).map_err(|e| {
        LoadError::new(model_file, ErrorKind::Io, format!("cannot read {what} \"{uri}\" ({}): {e}", path.display()))
            .with_hint("copy the file next to the model, or export as a single .glb")
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn uris_stay_in_the_model_folder() {
        let model = Path::new("/models/unit/a.gltf");
        assert_eq!(resolve_uri(model, "a.bin").unwrap(), Path::new("/models/unit/a.bin"));
        assert_eq!(resolve_uri(model, "sub/../a%20b.bin").unwrap(), Path::new("/models/unit/a b.bin"));
        for bad in ["../a.bin", "/etc/passwd", "sub/../../x", "http://host/a.bin", "file:///etc/passwd", "%2e%2e/x"] {
            let err = resolve_uri(model, bad).unwrap_err();
            assert_eq!(err.kind, ErrorKind::Unsupported, "{bad}");
        }
    }

    #[test]
    fn data_uris_decode() {
        let file = Path::new("m.gltf");
        assert_eq!(decode_data_uri(file, "data:application/octet-stream;base64,AAEC").unwrap().unwrap(), vec![0, 1, 2]);
        assert!(decode_data_uri(file, "a.bin").is_none());
        assert!(decode_data_uri(file, "data:;base64,@@").unwrap().is_err());
        assert_eq!(data_uri_mime("data:image/png;base64,AA").as_deref(), Some("image/png"));
    }

    #[test]
    fn glb_header_is_checked() {
        let file = Path::new("m.glb");
        let mut glb = b"glTF".to_vec();
        glb.extend_from_slice(&2u32.to_le_bytes());
        glb.extend_from_slice(&1000u32.to_le_bytes());
        glb.extend_from_slice(&[0; 12]);
        let err = split(file, &glb).err().unwrap();
        assert!(err.message.contains("truncated"), "{err}");
        assert!(split(file, b"glTF").is_err());
    }
}
