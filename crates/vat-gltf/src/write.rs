//! Writing GLB files: one binary chunk that buffer views and accessors are added
//! to as the data comes, the materials a load carried, and the GLB container.
//! The rest mesh (`vatbake`) and the generated benchmark models (`vat-bench`)
//! are both written with it.

use serde_json::{json, Value};
use vat_model::MaterialSet;

/// glTF `componentType` of 32-bit floats.
pub const FLOAT: u32 = 5126;
/// glTF `componentType` of 16-bit signed integers.
pub const SHORT: u32 = 5122;
/// glTF `componentType` of 16-bit unsigned integers.
pub const UNSIGNED_SHORT: u32 = 5123;
/// glTF `componentType` of 32-bit unsigned integers.
pub const UNSIGNED_INT: u32 = 5125;
/// glTF buffer view `target` for vertex attributes.
pub const ARRAY_BUFFER: u32 = 34962;
/// glTF buffer view `target` for indices.
pub const ELEMENT_ARRAY_BUFFER: u32 = 34963;

/// "glTF", "JSON", "BIN\0" as little-endian words.
const GLB_MAGIC: u32 = 0x4654_6C67;
const CHUNK_JSON: u32 = 0x4E4F_534A;
const CHUNK_BIN: u32 = 0x004E_4942;

/// The binary chunk of a GLB being written, with its buffer views and accessors.
#[derive(Default)]
pub struct GlbBuffer {
    bytes: Vec<u8>,
    views: Vec<Value>,
    accessors: Vec<Value>,
    /// Bytes the `EXT_meshopt_compression` views decode to, laid out in a fallback
    /// buffer (buffer 1) that has no bytes of its own.
    fallback_len: usize,
}

/// How an `EXT_meshopt_compression` view was encoded: its `mode` and `filter`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum MeshoptMode {
    /// Vertex attributes (`meshopt_encodeVertexBuffer`), no filter.
    Attributes,
    /// Triangle indices (`meshopt_encodeIndexBuffer`).
    Triangles,
}

impl GlbBuffer {
    /// Appends `data` (4-byte aligned) as a new buffer view; returns its index.
    pub fn view(&mut self, data: &[u8], target: Option<u32>) -> usize {
        self.bytes.resize(self.bytes.len().next_multiple_of(4), 0);
        let mut view = json!({ "buffer": 0, "byteOffset": self.bytes.len(), "byteLength": data.len() });
        if let Some(target) = target {
            view["target"] = json!(target);
        }
        self.bytes.extend_from_slice(data);
        self.views.push(view);
        self.views.len() - 1
    }

    /// Appends `encoded`, the meshoptimizer encoding of `count` elements of `stride`
    /// bytes, as a new view under `EXT_meshopt_compression`: the view stands for the
    /// decoded bytes in the fallback buffer, the extension points at the encoded ones
    /// in the binary chunk. Returns the view's index.
    pub fn meshopt_view(
        &mut self,
        encoded: &[u8],
        count: usize,
        stride: usize,
        mode: MeshoptMode,
        target: Option<u32>,
    ) -> usize {
        self.bytes.resize(self.bytes.len().next_multiple_of(4), 0);
        self.fallback_len = self.fallback_len.next_multiple_of(4);
        let mode = match mode {
            MeshoptMode::Attributes => "ATTRIBUTES",
            MeshoptMode::Triangles => "TRIANGLES",
        };
        let mut view = json!({
            "buffer": 1,
            "byteOffset": self.fallback_len,
            "byteLength": count * stride,
            "extensions": { "EXT_meshopt_compression": {
                "buffer": 0,
                "byteOffset": self.bytes.len(),
                "byteLength": encoded.len(),
                "byteStride": stride,
                "count": count,
                "mode": mode,
            } },
        });
        if mode == "ATTRIBUTES" {
            view["byteStride"] = json!(stride);
        }
        if let Some(target) = target {
            view["target"] = json!(target);
        }
        self.bytes.extend_from_slice(encoded);
        self.fallback_len += count * stride;
        self.views.push(view);
        self.views.len() - 1
    }

    /// An accessor of `count` elements of `kind` over view `view` (`normalized`
    /// integers read as `[0, 1]` or `[-1, 1]`); returns its index.
    pub fn accessor_on(
        &mut self,
        view: usize,
        component_type: u32,
        normalized: bool,
        count: usize,
        kind: &str,
    ) -> usize {
        let mut accessor = json!({ "bufferView": view, "componentType": component_type, "count": count, "type": kind });
        if normalized {
            accessor["normalized"] = json!(true);
        }
        self.accessors.push(accessor);
        self.accessors.len() - 1
    }

    /// Sets `min` and `max` of accessor `index` (glTF requires them on POSITION).
    pub fn set_bounds(&mut self, index: usize, min: &[f32], max: &[f32]) {
        self.accessors[index]["min"] = json!(min);
        self.accessors[index]["max"] = json!(max);
    }

    /// Appends `data` as a new view and an accessor of `count` elements of `kind`
    /// ("SCALAR", "VEC3", …) over it; returns the accessor's index.
    pub fn accessor(
        &mut self,
        data: &[u8],
        target: Option<u32>,
        component_type: u32,
        count: usize,
        kind: &str,
    ) -> usize {
        let view = self.view(data, target);
        self.accessors
            .push(json!({ "bufferView": view, "componentType": component_type, "count": count, "type": kind }));
        self.accessors.len() - 1
    }

    /// A float accessor of `values.len() / width` elements, with `min` and `max`
    /// per component when `bounds` (glTF requires them on POSITION and on
    /// animation inputs).
    pub fn floats(&mut self, values: &[f32], target: Option<u32>, kind: &str, width: usize, bounds: bool) -> usize {
        let bytes: Vec<u8> = values.iter().flat_map(|v| v.to_le_bytes()).collect();
        let index = self.accessor(&bytes, target, FLOAT, values.len() / width.max(1), kind);
        if bounds && !values.is_empty() {
            let mut min = vec![f32::INFINITY; width];
            let mut max = vec![f32::NEG_INFINITY; width];
            for element in values.chunks_exact(width) {
                for (c, &v) in element.iter().enumerate() {
                    min[c] = min[c].min(v);
                    max[c] = max[c].max(v);
                }
            }
            self.accessors[index]["min"] = json!(min);
            self.accessors[index]["max"] = json!(max);
        }
        index
    }

    /// Copies the materials, textures, samplers and extensions a load carried into
    /// `root`, with every image's bytes stored in this buffer.
    pub fn carry_materials(&mut self, root: &mut Value, set: &MaterialSet) {
        if set.materials.is_empty() {
            return;
        }
        root["materials"] = json!(set.materials);
        for (key, list) in [("textures", &set.textures), ("samplers", &set.samplers)] {
            if !list.is_empty() {
                root[key] = json!(list);
            }
        }
        // The loader keeps each image's JSON (with its mimeType) and its bytes side by side.
        let images: Vec<Value> = set
            .images
            .iter()
            .zip(&set.image_data)
            .map(|(image, data)| {
                let mut image = image.clone();
                image["bufferView"] = json!(self.view(&data.bytes, None));
                image
            })
            .collect();
        if !images.is_empty() {
            root["images"] = json!(images);
        }
        for (key, list) in [("extensionsUsed", &set.extensions_used), ("extensionsRequired", &set.extensions_required)]
        {
            if !list.is_empty() {
                root[key] = json!(list);
            }
        }
    }

    /// `root` with this buffer's accessors, views and buffer, as a GLB: the 12-byte
    /// header, the JSON chunk padded with spaces and the BIN chunk padded with
    /// zeros, both to four bytes. An error when the file would pass 4 GiB.
    pub fn into_glb(self, mut root: Value) -> Result<Vec<u8>, std::io::Error> {
        root["accessors"] = Value::Array(self.accessors);
        root["bufferViews"] = Value::Array(self.views);
        root["buffers"] = json!([{ "byteLength": self.bytes.len() }]);
        if self.fallback_len > 0 {
            root["buffers"] = json!([
                { "byteLength": self.bytes.len() },
                {
                    "byteLength": self.fallback_len,
                    "extensions": { "EXT_meshopt_compression": { "fallback": true } },
                },
            ]);
        }
        let mut json = serde_json::to_vec(&root).map_err(std::io::Error::other)?;
        json.resize(json.len().next_multiple_of(4), b' ');
        let mut bin = self.bytes;
        bin.resize(bin.len().next_multiple_of(4), 0);
        let total = u32::try_from(12 + 8 + json.len() + 8 + bin.len())
            .map_err(|_| std::io::Error::other("the GLB would be over 4 GiB, more than the format can hold"))?;
        let mut out = Vec::with_capacity(total as usize);
        for word in [GLB_MAGIC, 2, total, json.len() as u32, CHUNK_JSON] {
            out.extend_from_slice(&word.to_le_bytes());
        }
        out.extend_from_slice(&json);
        for word in [bin.len() as u32, CHUNK_BIN] {
            out.extend_from_slice(&word.to_le_bytes());
        }
        out.extend_from_slice(&bin);
        Ok(out)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_glb_is_laid_out_as_the_specification_says() {
        let mut buffer = GlbBuffer::default();
        let index = buffer.floats(&[1.0, -2.0, 3.0, 0.5, 4.0, -1.0], Some(ARRAY_BUFFER), "VEC3", 3, true);
        buffer.view(&[7], None);
        let glb = buffer.into_glb(json!({ "asset": { "version": "2.0" } })).unwrap();
        assert_eq!(&glb[0..4], b"glTF");
        assert_eq!(u32::from_le_bytes(glb[8..12].try_into().unwrap()) as usize, glb.len());
        let json_len = u32::from_le_bytes(glb[12..16].try_into().unwrap()) as usize;
        assert_eq!((&glb[16..20], json_len % 4), (&b"JSON"[..], 0));
        let root: Value = serde_json::from_slice(&glb[20..20 + json_len]).unwrap();
        assert_eq!(root["accessors"][index]["min"], json!([0.5, -2.0, -1.0]));
        assert_eq!(root["accessors"][index]["max"], json!([1.0, 4.0, 3.0]));
        // The second view starts 4-aligned after the 24 bytes of floats.
        assert_eq!(root["bufferViews"][1]["byteOffset"], 24);
        assert_eq!(root["buffers"][0]["byteLength"], 25);
        let bin = &glb[20 + json_len..];
        assert_eq!((u32::from_le_bytes(bin[0..4].try_into().unwrap()), &bin[4..8]), (28, &b"BIN\0"[..]));
        assert_eq!(bin[8 + 24], 7);
    }

    #[test]
    fn a_meshopt_view_stands_for_its_decoded_bytes_in_a_fallback_buffer() {
        let mut buffer = GlbBuffer::default();
        buffer.view(&[1, 2, 3], None);
        let vertices = buffer.meshopt_view(&[0xa0; 10], 5, 8, MeshoptMode::Attributes, Some(ARRAY_BUFFER));
        let indices = buffer.meshopt_view(&[0xe1; 7], 6, 2, MeshoptMode::Triangles, Some(ELEMENT_ARRAY_BUFFER));
        let glb = buffer.into_glb(json!({ "asset": { "version": "2.0" } })).unwrap();
        let json_len = u32::from_le_bytes(glb[12..16].try_into().unwrap()) as usize;
        let root: Value = serde_json::from_slice(&glb[20..20 + json_len]).unwrap();
        let ext = |view: usize| root["bufferViews"][view]["extensions"]["EXT_meshopt_compression"].clone();
        // The encoded bytes follow the plain view in buffer 0, 4-aligned.
        assert_eq!(
            ext(vertices),
            json!({ "buffer": 0, "byteOffset": 4, "byteLength": 10, "byteStride": 8, "count": 5, "mode": "ATTRIBUTES" })
        );
        assert_eq!(ext(indices)["byteOffset"], 16);
        assert_eq!(ext(indices)["mode"], "TRIANGLES");
        // The views are the decoded bytes, laid out in buffer 1, which has no bytes of its own.
        assert_eq!(root["bufferViews"][vertices]["buffer"], 1);
        assert_eq!(root["bufferViews"][vertices]["byteStride"], 8);
        assert_eq!(root["bufferViews"][indices]["byteOffset"], 40);
        assert_eq!(root["bufferViews"][indices].get("byteStride"), None);
        assert_eq!(root["buffers"][0]["byteLength"], 23);
        assert_eq!(
            root["buffers"][1],
            json!({ "byteLength": 52, "extensions": { "EXT_meshopt_compression": { "fallback": true } } })
        );
    }
}
