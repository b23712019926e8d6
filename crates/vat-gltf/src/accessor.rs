//! Accessors to plain numbers, with every count, offset and stride checked against
//! the bytes that are really there before anything is allocated.

use std::borrow::Cow;
use std::path::Path;

use gltf::json::accessor::{ComponentType, Type};
use gltf::json::validation::Checked;
use gltf::json::Root;

use crate::error::{ErrorKind, LoadError};

/// Accessors without a buffer view allocate zeros; this caps what a hostile count can ask for.
const MAX_ZERO_FILLED_VALUES: usize = 1 << 26;

/// All accessor reads of one model together may produce at most this many numbers
/// (512 MiB as 4-byte values): one accessor named by thousands of mesh instances,
/// channels or morph targets must not multiply a small file into gigabytes.
pub(crate) const MAX_VALUES_READ: usize = 1 << 27;

/// Buffer views as bytes: buffers resolved, and (later) decompressed views substituted.
pub(crate) struct Reader<'a> {
    pub file: &'a Path,
    pub root: &'a Root,
    /// Buffer 0 of a GLB borrows the file's binary chunk; the others are owned.
    pub buffers: Vec<Cow<'a, [u8]>>,
    /// Bytes of views decoded from `EXT_meshopt_compression`, by view index.
    pub decoded: Vec<Option<Vec<u8>>>,
    /// Numbers produced so far, against [`MAX_VALUES_READ`].
    pub values_read: std::cell::Cell<usize>,
}

pub(crate) fn components(ty: Type) -> usize {
    match ty {
        Type::Scalar => 1,
        Type::Vec2 => 2,
        Type::Vec3 => 3,
        Type::Vec4 | Type::Mat2 => 4,
        Type::Mat3 => 9,
        Type::Mat4 => 16,
    }
}

fn type_name(ty: Type) -> &'static str {
    match ty {
        Type::Scalar => "SCALAR",
        Type::Vec2 => "VEC2",
        Type::Vec3 => "VEC3",
        Type::Vec4 => "VEC4",
        Type::Mat2 => "MAT2",
        Type::Mat3 => "MAT3",
        Type::Mat4 => "MAT4",
    }
}

/// Converts one component to f32, applying the glTF normalization rules.
#[inline]
pub(crate) fn component_f32(bytes: &[u8], ct: ComponentType, normalized: bool) -> f32 {
    match ct {
        ComponentType::F32 => f32::from_le_bytes([bytes[0], bytes[1], bytes[2], bytes[3]]),
        ComponentType::I8 => {
            let v = bytes[0] as i8 as f32;
            if normalized {
                (v / 127.0).max(-1.0)
            } else {
                v
            }
        }
        ComponentType::U8 => {
            let v = bytes[0] as f32;
            if normalized {
                v / 255.0
            } else {
                v
            }
        }
        ComponentType::I16 => {
            let v = i16::from_le_bytes([bytes[0], bytes[1]]) as f32;
            if normalized {
                (v / 32767.0).max(-1.0)
            } else {
                v
            }
        }
        ComponentType::U16 => {
            let v = u16::from_le_bytes([bytes[0], bytes[1]]) as f32;
            if normalized {
                v / 65535.0
            } else {
                v
            }
        }
        ComponentType::U32 => u32::from_le_bytes([bytes[0], bytes[1], bytes[2], bytes[3]]) as f32,
    }
}

#[inline]
fn component_u32(bytes: &[u8], ct: ComponentType) -> Option<u32> {
    Some(match ct {
        ComponentType::U8 => bytes[0] as u32,
        ComponentType::U16 => u16::from_le_bytes([bytes[0], bytes[1]]) as u32,
        ComponentType::U32 => u32::from_le_bytes([bytes[0], bytes[1], bytes[2], bytes[3]]),
        _ => return None,
    })
}

/// A checked window onto an accessor's elements.
struct Elements<'b> {
    bytes: &'b [u8],
    stride: usize,
    count: usize,
    component_type: ComponentType,
    component_size: usize,
    components: usize,
    normalized: bool,
}

impl Reader<'_> {
    fn invalid(&self, message: String) -> LoadError {
        LoadError::new(self.file, ErrorKind::Invalid, message)
    }

    /// Counts `values` numbers about to be produced for `what` against [`MAX_VALUES_READ`].
    pub(crate) fn charge(&self, values: usize, what: &str) -> Result<(), LoadError> {
        let total = self.values_read.get().saturating_add(values);
        if total > MAX_VALUES_READ {
            return Err(LoadError::new(
                self.file,
                ErrorKind::Unsupported,
                format!(
                    "{what}: the model's accessor reads add up to more than {MAX_VALUES_READ} values \
                     (its meshes, instances, morph targets and keyframes together)"
                ),
            )
            .with_hint(
                "the model is too large to bake, or reuses one accessor thousands of times; split or simplify it",
            ));
        }
        self.values_read.set(total);
        Ok(())
    }

    /// The bytes of a buffer view, checked against its buffer, and its stride.
    pub(crate) fn view(&self, index: usize) -> Result<(&[u8], Option<usize>), LoadError> {
        let view = self.root.buffer_views.get(index).ok_or_else(|| {
            self.invalid(format!("buffer view {index} does not exist (the file has {})", self.root.buffer_views.len()))
        })?;
        if let Some(Some(bytes)) = self.decoded.get(index) {
            return Ok((bytes, view.byte_stride.map(|s| s.0)));
        }
        let buffer_index = view.buffer.value();
        let buffer = self.buffers.get(buffer_index).ok_or_else(|| {
            self.invalid(format!("buffer view {index} names buffer {buffer_index}, which does not exist"))
        })?;
        let offset = view.byte_offset.map_or(0, |o| o.0) as usize;
        let length = view.byte_length.0 as usize;
        let end = offset.checked_add(length).filter(|&end| end <= buffer.len()).ok_or_else(|| {
            self.invalid(format!(
                "buffer view {index} spans bytes {offset}..{} of buffer {buffer_index}, which has only {} bytes",
                offset as u128 + length as u128,
                buffer.len()
            ))
        })?;
        Ok((&buffer[offset..end], view.byte_stride.map(|s| s.0)))
    }

    fn elements(&self, index: usize, what: &str) -> Result<(Elements<'_>, &gltf::json::Accessor), LoadError> {
        let accessor = self.root.accessors.get(index).ok_or_else(|| {
            self.invalid(format!(
                "{what} uses accessor {index}, which does not exist (the file has {})",
                self.root.accessors.len()
            ))
        })?;
        let (Checked::Valid(ct), Checked::Valid(ty)) = (&accessor.component_type, &accessor.type_) else {
            return Err(self.invalid(format!("accessor {index} ({what}) has an unknown component type or type")));
        };
        let component_type = ct.0;
        let components = components(*ty);
        let component_size = component_type.size();
        if matches!(ty, Type::Mat2 | Type::Mat3) && component_size < 4 {
            return Err(LoadError::new(
                self.file,
                ErrorKind::Unsupported,
                format!("accessor {index} ({what}) is a padded {} of small integers", type_name(*ty)),
            ));
        }
        let count = accessor.count.0 as usize;
        let element_size = components * component_size;
        let normalized = accessor.normalized;
        let elements =
            |bytes, stride| Elements { bytes, stride, count, component_type, component_size, components, normalized };
        let Some(view_index) = accessor.buffer_view.map(|v| v.value()) else {
            if count.saturating_mul(components) > MAX_ZERO_FILLED_VALUES {
                return Err(self.invalid(format!("accessor {index} ({what}) asks for {count} elements with no data")));
            }
            self.charge(count * components, what)?;
            return Ok((elements(&[], 0), accessor));
        };
        let (view, stride) = self.view(view_index)?;
        let stride = stride.unwrap_or(element_size);
        if stride < element_size {
            return Err(self.invalid(format!(
                "accessor {index} ({what}): byteStride {stride} is smaller than one element ({element_size} bytes)"
            )));
        }
        let offset = accessor.byte_offset.map_or(0, |o| o.0) as usize;
        let needed = if count == 0 {
            Some(offset)
        } else {
            (count - 1)
                .checked_mul(stride)
                .and_then(|n| n.checked_add(element_size))
                .and_then(|n| n.checked_add(offset))
        };
        match needed {
            Some(n) if n <= view.len() => {}
            _ => {
                return Err(self.invalid(format!(
                    "accessor {index} ({what}) needs {count} × {stride}-byte elements from offset {offset}, \
                     more than the {} bytes of buffer view {view_index}",
                    view.len()
                )))
            }
        }
        self.charge(count * components, what)?;
        Ok((elements(&view[offset.min(view.len())..], stride), accessor))
    }

    /// Reads an accessor as floats (`count × components`), normalizing integers
    /// where the accessor says so, and applying sparse substitution.
    pub fn read_f32(&self, index: usize, what: &str) -> Result<(Vec<f32>, usize), LoadError> {
        let (el, accessor) = self.elements(index, what)?;
        self.floats(&el, accessor, index, what)
    }

    /// The floats of elements already checked and charged by [`Reader::elements`].
    fn floats(
        &self,
        el: &Elements<'_>,
        accessor: &gltf::json::Accessor,
        index: usize,
        what: &str,
    ) -> Result<(Vec<f32>, usize), LoadError> {
        let mut out = vec![0.0f32; el.count * el.components];
        if !el.bytes.is_empty() {
            for i in 0..el.count {
                let base = i * el.stride;
                for c in 0..el.components {
                    let at = base + c * el.component_size;
                    out[i * el.components + c] = component_f32(&el.bytes[at..], el.component_type, el.normalized);
                }
            }
        }
        if let Some(sparse) = &accessor.sparse {
            let indices = self.sparse_indices(index, sparse, el.count, what)?;
            let offset = sparse.values.byte_offset.0 as usize;
            let (view, _) = self.view(sparse.values.buffer_view.value())?;
            let element_size = el.components * el.component_size;
            let end = indices.len().checked_mul(element_size).and_then(|n| n.checked_add(offset));
            if end.is_none_or(|e| e > view.len()) {
                return Err(
                    self.invalid(format!("accessor {index} ({what}): sparse values run past their buffer view"))
                );
            }
            for (k, &target) in indices.iter().enumerate() {
                for c in 0..el.components {
                    let at = offset + k * element_size + c * el.component_size;
                    out[target * el.components + c] = component_f32(&view[at..], el.component_type, el.normalized);
                }
            }
        }
        Ok((out, el.components))
    }

    fn sparse_indices(
        &self,
        index: usize,
        sparse: &gltf::json::accessor::sparse::Sparse,
        count: usize,
        what: &str,
    ) -> Result<Vec<usize>, LoadError> {
        let n = sparse.count.0 as usize;
        // More substitutions than elements is invalid, and would cost work the read budget does not count.
        if n > count {
            return Err(self.invalid(format!("accessor {index} ({what}): {n} sparse values for {count} elements")));
        }
        let Checked::Valid(ct) = sparse.indices.component_type else {
            return Err(self.invalid(format!("accessor {index} ({what}): sparse indices have an unknown type")));
        };
        let size = ct.0.size();
        let offset = sparse.indices.byte_offset.0 as usize;
        let (view, _) = self.view(sparse.indices.buffer_view.value())?;
        let end = n.checked_mul(size).and_then(|b| b.checked_add(offset));
        if end.is_none_or(|e| e > view.len()) {
            return Err(self.invalid(format!("accessor {index} ({what}): sparse indices run past their buffer view")));
        }
        (0..n)
            .map(|k| {
                let v = component_u32(&view[offset + k * size..], ct.0).unwrap_or(u32::MAX) as usize;
                if v >= count {
                    Err(self.invalid(format!(
                        "accessor {index} ({what}): sparse index {v} is out of range (count {count})"
                    )))
                } else {
                    Ok(v)
                }
            })
            .collect()
    }

    /// Reads an unsigned-integer accessor (indices, joints) as u32.
    pub fn read_u32(&self, index: usize, what: &str) -> Result<(Vec<u32>, usize), LoadError> {
        let (el, accessor) = self.elements(index, what)?;
        if !matches!(el.component_type, ComponentType::U8 | ComponentType::U16 | ComponentType::U32) {
            return Err(self.invalid(format!("accessor {index} ({what}) must hold unsigned integers")));
        }
        if accessor.sparse.is_some() {
            // Sparse integer data is legal but unseen in practice: read via floats, which
            // represent every u16 exactly and u32 up to 2^24 (far past any joint or point count).
            // From the elements already charged: the budget counts this accessor once.
            let (values, comps) = self.floats(&el, accessor, index, what)?;
            return Ok((values.into_iter().map(|v| v as u32).collect(), comps));
        }
        let mut out = vec![0u32; el.count * el.components];
        if !el.bytes.is_empty() {
            for i in 0..el.count {
                for c in 0..el.components {
                    let at = i * el.stride + c * el.component_size;
                    out[i * el.components + c] = component_u32(&el.bytes[at..], el.component_type).unwrap_or(0);
                }
            }
        }
        Ok((out, el.components))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// KHR_mesh_quantization's component types, normalized or not, convert as glTF 2.0 §3.11 says.
    #[test]
    fn components_convert_by_the_gltf_rules() {
        let f = |bytes: &[u8], ct, normalized| component_f32(bytes, ct, normalized);
        assert_eq!(f(&[0x80], ComponentType::I8, true), -1.0); // -128 clamps to -1
        assert_eq!(f(&[0x81], ComponentType::I8, true), -1.0);
        assert_eq!(f(&[0x7F], ComponentType::I8, true), 1.0);
        assert_eq!(f(&[0xFF], ComponentType::U8, true), 1.0);
        assert_eq!(f(&[0x80], ComponentType::U8, true), 128.0 / 255.0);
        assert_eq!(f(&0x8000u16.to_le_bytes(), ComponentType::I16, true), -1.0);
        assert_eq!(f(&16383i16.to_le_bytes(), ComponentType::I16, true), 16383.0 / 32767.0);
        assert_eq!(f(&65535u16.to_le_bytes(), ComponentType::U16, true), 1.0);
        // Not normalized: the integer value itself (quantized positions; the node or
        // inverse bind matrices carry the dequantization scale).
        assert_eq!(f(&16383u16.to_le_bytes(), ComponentType::U16, false), 16383.0);
        assert_eq!(f(&(-5i16).to_le_bytes(), ComponentType::I16, false), -5.0);
        assert_eq!(f(&[0xFB], ComponentType::I8, false), -5.0);
        assert_eq!(f(&1.5f32.to_le_bytes(), ComponentType::F32, false), 1.5);
    }

    /// Four u16 values 0, 1, 2, 3 with one sparse substitution (index 2 → 9), in one buffer.
    fn sparse_u16_model() -> (Root, Vec<u8>) {
        let root: Root = serde_json::from_value(serde_json::json!({
            "asset": { "version": "2.0" },
            "buffers": [{ "byteLength": 16 }],
            "bufferViews": [
                { "buffer": 0, "byteOffset": 0, "byteLength": 8 },
                { "buffer": 0, "byteOffset": 8, "byteLength": 1 },
                { "buffer": 0, "byteOffset": 12, "byteLength": 2 }
            ],
            "accessors": [{
                "bufferView": 0, "componentType": 5123, "count": 4, "type": "SCALAR",
                "sparse": {
                    "count": 1,
                    "indices": { "bufferView": 1, "componentType": 5121 },
                    "values": { "bufferView": 2 }
                }
            }]
        }))
        .unwrap();
        let mut buffer = [0u16, 1, 2, 3].iter().flat_map(|v| v.to_le_bytes()).collect::<Vec<u8>>();
        buffer.extend_from_slice(&[2, 0, 0, 0]); // the sparse index, padded
        buffer.extend_from_slice(&9u16.to_le_bytes());
        buffer.extend_from_slice(&[0, 0]);
        (root, buffer)
    }

    /// A sparse accessor counts against the read budget once, whichever way it is read:
    /// with room for exactly its 4 values left, both reads succeed and use all of it.
    #[test]
    fn a_sparse_accessor_is_charged_once() {
        let (root, buffer) = sparse_u16_model();
        let file = Path::new("sparse.gltf");
        let reader = |already_read: usize| Reader {
            file,
            root: &root,
            buffers: vec![Cow::Borrowed(&buffer[..])],
            decoded: vec![None; 3],
            values_read: std::cell::Cell::new(already_read),
        };
        let full = reader(MAX_VALUES_READ - 4);
        assert_eq!(full.read_u32(0, "joints").unwrap(), (vec![0, 1, 9, 3], 1));
        assert_eq!(full.values_read.get(), MAX_VALUES_READ);
        let full = reader(MAX_VALUES_READ - 4);
        assert_eq!(full.read_f32(0, "weights").unwrap(), (vec![0.0, 1.0, 9.0, 3.0], 1));
        assert_eq!(full.values_read.get(), MAX_VALUES_READ);
        // One value less of room and the read is refused.
        let err = reader(MAX_VALUES_READ - 3).read_u32(0, "joints").unwrap_err();
        assert_eq!(err.kind, ErrorKind::Unsupported, "{err}");
        // From an empty budget, each read charges the accessor's 4 values.
        let fresh = reader(0);
        fresh.read_u32(0, "joints").unwrap();
        fresh.read_f32(0, "weights").unwrap();
        assert_eq!(fresh.values_read.get(), 8);
    }
}
