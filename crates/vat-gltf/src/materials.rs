//! Materials and the textures they use, carried to the rest mesh as JSON plus image bytes.

use std::borrow::Cow;
use std::path::Path;

use serde_json::Value;
use vat_model::{ImageData, MaterialSet};

use crate::container;

/// A 1×1 mid-grey PNG that stands in for an image the source names but does not have.
const PLACEHOLDER_PNG: [u8; 69] = [
    0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A, 0x00, 0x00, 0x00, 0x0D, 0x49, 0x48, 0x44, 0x52, 0x00, 0x00, 0x00,
    0x01, 0x00, 0x00, 0x00, 0x01, 0x08, 0x02, 0x00, 0x00, 0x00, 0x90, 0x77, 0x53, 0xDE, 0x00, 0x00, 0x00, 0x0C, 0x49,
    0x44, 0x41, 0x54, 0x78, 0xDA, 0x63, 0x68, 0x68, 0x68, 0x00, 0x00, 0x03, 0x04, 0x01, 0x81, 0x75, 0x2E, 0x01, 0xBC,
    0x00, 0x00, 0x00, 0x00, 0x49, 0x45, 0x4E, 0x44, 0xAE, 0x42, 0x60, 0x82,
];

/// Image bytes carried to the rest mesh, all images together: many images naming one
/// big buffer view must not multiply it. Images past this get the placeholder.
const MAX_CARRIED_IMAGE_BYTES: usize = 1 << 30;

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

fn view_bytes(json: &Value, view: usize, bin: Option<&[u8]>, buffers: &[Cow<'_, [u8]>]) -> Option<Vec<u8>> {
    let view = json.get("bufferViews")?.get(view)?;
    let buffer = view.get("buffer")?.as_u64()? as usize;
    let offset = view.get("byteOffset").and_then(Value::as_u64).unwrap_or(0) as usize;
    let length = view.get("byteLength")?.as_u64()? as usize;
    let data = buffers.get(buffer).map(|b| &**b).or(bin.filter(|_| buffer == 0))?;
    data.get(offset..offset.checked_add(length)?).map(<[u8]>::to_vec)
}

/// Collects what the rest mesh needs to look like the source. An image that cannot
/// be read is replaced by a 1×1 grey PNG, with a warning: a missing texture must not
/// stop a bake, and keeping every index keeps the materials valid.
pub(crate) fn carry(
    file: &Path,
    json: &Value,
    bin: Option<&[u8]>,
    buffers: &[Cow<'_, [u8]>],
    warnings: &mut Vec<vat_model::Finding>,
) -> MaterialSet {
    let mut images = Vec::new();
    let mut image_data = Vec::new();
    let mut carried_bytes = 0usize;
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
        let over_cap = bytes.as_ref().is_some_and(|b| carried_bytes + b.len() > MAX_CARRIED_IMAGE_BYTES);
        if over_cap {
            warnings.push(vat_model::Finding::new(
                "image-placeholder",
                format!(
                    "image {index}: the images add up to more than {} MiB; the rest mesh carries a 1×1 grey placeholder in its place",
                    MAX_CARRIED_IMAGE_BYTES >> 20
                ),
            ));
        }
        let bytes = bytes.filter(|_| !over_cap);
        carried_bytes += bytes.as_ref().map_or(0, Vec::len);
        let (bytes, mime) = match bytes.filter(|b| !b.is_empty()) {
            Some(bytes) => {
                let mime = image
                    .get("mimeType")
                    .and_then(Value::as_str)
                    .map(str::to_string)
                    .or_else(|| uri.and_then(container::data_uri_mime))
                    .unwrap_or_else(|| sniff_mime(&bytes).to_string());
                (bytes, mime)
            }
            None if over_cap => (PLACEHOLDER_PNG.to_vec(), "image/png".to_string()),
            None => {
                let source = uri.filter(|u| !u.starts_with("data:")).map(|u| format!(" (\"{u}\")")).unwrap_or_default();
                warnings.push(vat_model::Finding::new(
                    "image-placeholder",
                    format!("image {index}{source} could not be read; the rest mesh carries a 1×1 grey placeholder in its place"),
                ));
                (PLACEHOLDER_PNG.to_vec(), "image/png".to_string())
            }
        };
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
