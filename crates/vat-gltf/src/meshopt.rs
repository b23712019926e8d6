//! `EXT_meshopt_compression`: buffer views whose bytes are meshoptimizer-encoded
//! in another buffer. Decoded once, up front, into the bytes the view stands for;
//! accessors then read them like any other view.

use std::borrow::Cow;
use std::path::Path;

use gltf::json::Root;
use serde_json::Value;

use crate::error::{ErrorKind, LoadError};

const EXTENSION: &str = "EXT_meshopt_compression";

/// A decoded view may not exceed this (the decoder allocates before it can tell
/// whether the compressed bytes are honest).
const MAX_DECODED_VIEW: usize = 256 << 20;
/// Nor may all of them together.
const MAX_DECODED_TOTAL: usize = 1 << 30;

/// Whether a buffer is a meshopt fallback: declared, but with no bytes of its own.
pub(crate) fn is_fallback(root: &Root, buffer: usize) -> bool {
    root.buffers
        .get(buffer)
        .and_then(|b| b.extensions.as_ref())
        .and_then(|e| e.others.get(EXTENSION))
        .and_then(|ext| ext.get("fallback"))
        .and_then(Value::as_bool)
        .unwrap_or(false)
}

fn field(ext: &Value, name: &str) -> Option<u64> {
    ext.get(name).and_then(Value::as_u64)
}

/// Decodes every compressed view; `None` for views that are stored plainly.
pub(crate) fn decode_views(
    file: &Path,
    root: &Root,
    buffers: &[Cow<'_, [u8]>],
) -> Result<Vec<Option<Vec<u8>>>, LoadError> {
    let mut total = 0usize;
    let mut out = Vec::with_capacity(root.buffer_views.len());
    for (index, view) in root.buffer_views.iter().enumerate() {
        let Some(ext) = view.extensions.as_ref().and_then(|e| e.others.get(EXTENSION)) else {
            out.push(None);
            continue;
        };
        let invalid =
            |m: String| LoadError::new(file, ErrorKind::Invalid, format!("buffer view {index} ({EXTENSION}): {m}"));
        let (Some(buffer), Some(length), Some(stride), Some(count)) =
            (field(ext, "buffer"), field(ext, "byteLength"), field(ext, "byteStride"), field(ext, "count"))
        else {
            return Err(invalid("buffer, byteLength, byteStride and count are required".into()));
        };
        let (buffer, length, stride, count) = (buffer as usize, length as usize, stride as usize, count as usize);
        let offset = field(ext, "byteOffset").unwrap_or(0) as usize;
        let mode = ext.get("mode").and_then(Value::as_str).unwrap_or("");
        let filter = ext.get("filter").and_then(Value::as_str).unwrap_or("NONE");
        let source = buffers
            .get(buffer)
            .and_then(|b| b.get(offset..offset.checked_add(length)?))
            .ok_or_else(|| invalid(format!("compressed bytes {offset}..+{length} are not inside buffer {buffer}")))?;
        let size = count.checked_mul(stride).filter(|&s| s <= MAX_DECODED_VIEW).ok_or_else(|| {
            invalid(format!(
                "{count} elements of {stride} bytes exceed the {} MiB cap per view",
                MAX_DECODED_VIEW >> 20
            ))
        })?;
        if size != view.byte_length.0 as usize {
            return Err(invalid(format!("decodes to {size} bytes but the view declares {}", view.byte_length.0)));
        }
        total += size;
        if total > MAX_DECODED_TOTAL {
            return Err(invalid(format!("decoded views exceed the {} MiB cap per model", MAX_DECODED_TOTAL >> 20)));
        }
        // u32 storage keeps the bytes 4-aligned for the in-place filters.
        let mut words = vec![0u32; size.div_ceil(4)];
        let destination = words.as_mut_ptr().cast::<std::ffi::c_void>();
        // SAFETY (all calls below): `destination` holds at least count × stride bytes,
        // the sizes and strides are checked against what each decoder asserts on, and
        // meshoptimizer's decoders are written to be safe on untrusted input.
        let status = match mode {
            "ATTRIBUTES" => {
                if stride == 0 || stride % 4 != 0 || stride > 256 {
                    return Err(invalid(format!("ATTRIBUTES byteStride {stride} is not a multiple of 4 up to 256")));
                }
                unsafe {
                    meshopt::ffi::meshopt_decodeVertexBuffer(destination, count, stride, source.as_ptr(), source.len())
                }
            }
            "TRIANGLES" | "INDICES" => {
                if stride != 2 && stride != 4 {
                    return Err(invalid(format!("{mode} byteStride {stride} must be 2 or 4")));
                }
                if mode == "TRIANGLES" {
                    if count % 3 != 0 {
                        return Err(invalid(format!("TRIANGLES count {count} is not a multiple of 3")));
                    }
                    unsafe {
                        meshopt::ffi::meshopt_decodeIndexBuffer(
                            destination,
                            count,
                            stride,
                            source.as_ptr(),
                            source.len(),
                        )
                    }
                } else {
                    unsafe {
                        meshopt::ffi::meshopt_decodeIndexSequence(
                            destination,
                            count,
                            stride,
                            source.as_ptr(),
                            source.len(),
                        )
                    }
                }
            }
            other => return Err(invalid(format!("unknown mode \"{other}\""))),
        };
        if status != 0 {
            return Err(invalid(format!("the compressed data does not decode (meshoptimizer error {status})"))
                .with_hint("the file is corrupt; compress it again with gltfpack"));
        }
        match (filter, mode) {
            ("NONE", _) => {}
            (_, m) if m != "ATTRIBUTES" => return Err(invalid(format!("filter {filter} on {m} data"))),
            ("OCTAHEDRAL", _) if stride == 4 || stride == 8 => unsafe {
                meshopt::ffi::meshopt_decodeFilterOct(destination, count, stride)
            },
            ("QUATERNION", _) if stride == 8 => unsafe {
                meshopt::ffi::meshopt_decodeFilterQuat(destination, count, stride)
            },
            ("EXPONENTIAL", _) => unsafe { meshopt::ffi::meshopt_decodeFilterExp(destination, count, stride) },
            ("COLOR", _) if stride == 4 || stride == 8 => unsafe {
                meshopt::ffi::meshopt_decodeFilterColor(destination, count, stride)
            },
            _ => return Err(invalid(format!("filter {filter} with byteStride {stride} is not defined"))),
        }
        let mut bytes: Vec<u8> = words.iter().flat_map(|w| w.to_ne_bytes()).collect();
        bytes.truncate(size);
        out.push(Some(bytes));
    }
    Ok(out)
}
