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
            ("OCTAHEDRAL", _) if stride == 4 => decode_octahedral_8(bytemuck_bytes(&mut words, size)),
            ("OCTAHEDRAL", _) if stride == 8 => decode_octahedral_16(bytemuck_bytes(&mut words, size)),
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

/// The first `size` bytes of `words`, as bytes.
fn bytemuck_bytes(words: &mut [u32], size: usize) -> &mut [u8] {
    // SAFETY: u32 storage reinterpreted as its bytes (no padding, any bit pattern valid).
    let bytes = unsafe { std::slice::from_raw_parts_mut(words.as_mut_ptr().cast::<u8>(), words.len() * 4) };
    &mut bytes[..size]
}

/// EXT_meshopt_compression's OCTAHEDRAL filter, decoded here rather than by
/// meshoptimizer: its SSE path scales 8-bit normals by `_mm_rsqrt_ps`, an approximation
/// whose bits depend on the CPU, so the decoded normals (and a bake's bytes) differed
/// from one x86 machine to another and from WebAssembly's exact path. Here: IEEE
/// operations only, the same bits everywhere. Per element, x and y are the octahedral
/// coordinates, z the scale (1.0 in the element's fixed point), w kept as it is.
fn octahedral(x: f32, y: f32, one: f32, max: f32) -> [i32; 3] {
    let z = one - x.abs() - y.abs();
    // The lower half folds over the diagonals.
    let t = z.min(0.0);
    let x = x + if x >= 0.0 { t } else { -t };
    let y = y + if y >= 0.0 { t } else { -t };
    let scale = max / (x * x + y * y + z * z).sqrt();
    // Rounded half away from zero, as meshoptimizer's scalar decoder does.
    let round = |v: f32| (v * scale + if v >= 0.0 { 0.5 } else { -0.5 }) as i32;
    [round(x), round(y), round(z)]
}

/// OCTAHEDRAL with byteStride 4: i8 x, y, scale, w.
fn decode_octahedral_8(bytes: &mut [u8]) {
    for element in bytes.chunks_exact_mut(4) {
        let [x, y, one] = [0, 1, 2].map(|k| f32::from(element[k] as i8));
        let decoded = octahedral(x, y, one, 127.0);
        for (k, v) in decoded.into_iter().enumerate() {
            element[k] = v.clamp(-128, 127) as i8 as u8;
        }
    }
}

/// OCTAHEDRAL with byteStride 8: i16 x, y, scale, w (little-endian).
fn decode_octahedral_16(bytes: &mut [u8]) {
    for element in bytes.chunks_exact_mut(8) {
        let read = |k: usize| f32::from(i16::from_le_bytes([element[2 * k], element[2 * k + 1]]));
        let decoded = octahedral(read(0), read(1), read(2), 32767.0);
        for (k, v) in decoded.into_iter().enumerate() {
            element[2 * k..2 * k + 2].copy_from_slice(&(v.clamp(-32768, 32767) as i16).to_le_bytes());
        }
    }
}

#[cfg(test)]
mod octahedral_tests {
    use super::*;

    #[test]
    fn octahedral_filter_decodes_axes_and_the_lower_half() {
        // +X: (127, 0, scale 127) → (127, 0, 0); -Z folds to x = y = 0: (0, 127) → (0, 0, -127)
        // once its corner is read; a diagonal in the upper half gives equal x, y, z.
        let mut bytes = [127u8, 0, 127, 9, 0, 127, 127, 0, 64, 0, 127, 0, 0, 0, 127, 0];
        decode_octahedral_8(&mut bytes);
        assert_eq!(&bytes[0..4], &[127, 0, 0, 9]);
        assert_eq!(&bytes[4..8], &[0, 127, 0, 0]);
        // (64, 0): z = 63, length sqrt(64² + 63²) = 89.8: 64·127/89.8 = 90.5, 63·127/89.8 = 89.1.
        assert_eq!(&bytes[8..12], &[91, 0, 89, 0]);
        assert_eq!(&bytes[12..16], &[0, 0, 127, 0]);
        let fold = |x: i8, y: i8| {
            let mut e = [x as u8, y as u8, 127, 0];
            decode_octahedral_8(&mut e);
            [e[0] as i8, e[1] as i8, e[2] as i8]
        };
        // (127, 127) is past the diagonal: z = -127, t = -127, x = y = 0: straight down.
        assert_eq!(fold(127, 127), [0, 0, -127]);
        assert_eq!(fold(-127, 0), [-127, 0, 0]);
        let mut wide = [0u8; 8];
        wide[0..2].copy_from_slice(&32767i16.to_le_bytes());
        wide[4..6].copy_from_slice(&32767i16.to_le_bytes());
        wide[6..8].copy_from_slice(&(-5i16).to_le_bytes());
        decode_octahedral_16(&mut wide);
        assert_eq!(wide, [0xff, 0x7f, 0, 0, 0, 0, 0xfb, 0xff]);
    }
}
