//! Materials and the textures they use, carried to the rest mesh as JSON plus image bytes.

use std::path::Path;

use serde_json::Value;
use vat_model::{ImageData, MaterialSet};

use crate::container;

fn array(json: &Value, key: &str) -> Vec<Value> {
    json.get(key).and_then(Value::as_array).cloned().unwrap_or_default()
}

/// Guesses a MIME type from the first bytes, for images that do not state one.
fn sniff_mime(bytes: &[u8]) -> &'static str {
    if bytes.starts_with(b"\x89PNG") {
        "image/png"
    } else if bytes.starts_with(&[0xFF, 0xD8]) {
        "image/jpeg"
    } else if bytes.len() >= 12 && &bytes[0..4] == b"RIFF" && &bytes[8..12] == b"WEBP" {
        "image/webp"
    } else if bytes.starts_with(b"\xABKTX 20\xBB") {
        "image/ktx2"
    } else {
        "application/octet-stream"
    }
}

fn view_bytes(json: &Value, view: usize, bin: Option<&[u8]>, buffers: &[Vec<u8>]) -> Option<Vec<u8>> {
    let view = json.get("bufferViews")?.get(view)?;
    let buffer = view.get("buffer")?.as_u64()? as usize;
    let offset = view.get("byteOffset").and_then(Value::as_u64).unwrap_or(0) as usize;
    let length = view.get("byteLength")?.as_u64()? as usize;
    let data = buffers.get(buffer).map(Vec::as_slice).or(bin.filter(|_| buffer == 0))?;
    data.get(offset..offset.checked_add(length)?).map(<[u8]>::to_vec)
}

/// Collects what the rest mesh needs to look like the source. An image that cannot
/// be read is replaced by nothing (its textures are dropped) with a warning: a
/// missing texture must not stop a bake.
pub(crate) fn carry(
    file: &Path,
    json: &Value,
    bin: Option<&[u8]>,
    buffers: &[Vec<u8>],
    warnings: &mut Vec<String>,
) -> MaterialSet {
    let mut images = Vec::new();
    let mut image_data = Vec::new();
    for (index, image) in array(json, "images").into_iter().enumerate() {
        let uri = image.get("uri").and_then(Value::as_str);
        let bytes = match (uri, image.get("bufferView").and_then(Value::as_u64)) {
            (Some(uri), _) => match container::decode_data_uri(file, uri) {
                Some(decoded) => decoded.ok(),
                None => container::read_external(file, uri, &format!("image {index}")).ok(),
            },
            (None, Some(view)) => view_bytes(json, view as usize, bin, buffers),
            (None, None) => None,
        };
        let bytes = bytes.unwrap_or_else(|| {
            warnings
                .push(format!("image {index} could not be read; the rest mesh carries an empty image in its place"));
            Vec::new()
        });
        let mime = image
            .get("mimeType")
            .and_then(Value::as_str)
            .map(str::to_string)
            .or_else(|| uri.and_then(container::data_uri_mime))
            .unwrap_or_else(|| sniff_mime(&bytes).to_string());
        let mut carried = image.clone();
        if let Some(object) = carried.as_object_mut() {
            object.remove("uri");
            object.remove("bufferView");
            object.insert("mimeType".into(), Value::String(mime.clone()));
        }
        images.push(carried);
        image_data.push(ImageData { mime_type: mime, bytes });
    }
    let used: Vec<String> =
        array(json, "extensionsUsed").iter().filter_map(|v| v.as_str().map(str::to_string)).collect();
    let required: Vec<String> =
        array(json, "extensionsRequired").iter().filter_map(|v| v.as_str().map(str::to_string)).collect();
    // Only extensions that live on materials, textures and images are meaningful in the rest mesh.
    let carried_ext =
        |e: &&String| e.starts_with("KHR_materials_") || e.starts_with("KHR_texture_") || e.starts_with("EXT_texture_");
    MaterialSet {
        materials: array(json, "materials"),
        textures: array(json, "textures"),
        samplers: array(json, "samplers"),
        images,
        image_data,
        extensions_used: used.iter().filter(carried_ext).cloned().collect(),
        extensions_required: required.iter().filter(carried_ext).cloned().collect(),
    }
}
