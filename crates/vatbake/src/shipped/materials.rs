//! A rest mesh's base colours read back for drawing: each material's
//! `baseColorFactor`, its base colour texture decoded (PNG or JPEG, from the GLB's
//! binary chunk) with its sampler's wrap modes and `KHR_texture_transform`, and
//! `alphaMode` `MASK`. What `vatbake impostor` colours its cells with.

use vat_preview::{Material, Texture, Wrap};

/// The materials of the rest mesh `bytes` (a GLB as a bake writes it) and the textures
/// they use, in the order [`Material::texture`] indexes them. The error says what is
/// missing or unreadable, without a file name.
pub fn base_colours(bytes: &[u8]) -> Result<(Vec<Material>, Vec<Texture>), String> {
    let (json, bin) = super::glb_chunks(bytes)?;
    let doc: serde_json::Value = serde_json::from_slice(json).map_err(|e| format!("its JSON: {e}"))?;
    let none = Vec::new();
    let list = |key: &str| doc[key].as_array().unwrap_or(&none);
    let mut textures: Vec<Texture> = Vec::new();
    // glTF texture index → index in `textures`, decoding each once.
    let mut decoded: Vec<(u64, usize)> = Vec::new();
    let mut materials = Vec::new();
    for (m, material) in list("materials").iter().enumerate() {
        let pbr = &material["pbrMetallicRoughness"];
        let mut factor = [1.0f32; 4];
        if let Some(values) = pbr["baseColorFactor"].as_array() {
            if values.len() != 4 {
                return Err(format!("material {m}'s baseColorFactor has {} values, not 4", values.len()));
            }
            for (k, v) in values.iter().enumerate() {
                factor[k] = v.as_f64().ok_or(format!("material {m}'s baseColorFactor is not numbers"))? as f32;
            }
        }
        let alpha_cutoff = match material["alphaMode"].as_str() {
            Some("MASK") => Some(material["alphaCutoff"].as_f64().unwrap_or(0.5) as f32),
            _ => None,
        };
        let mut result = Material { factor, alpha_cutoff, ..Material::default() };
        let info = &pbr["baseColorTexture"];
        if let Some(index) = info["index"].as_u64() {
            let transform = &info["extensions"]["KHR_texture_transform"];
            let coord = transform["texCoord"].as_u64().or(info["texCoord"].as_u64()).unwrap_or(0);
            if coord != 0 {
                return Err(format!(
                    "material {m}'s base colour texture reads TEXCOORD_{coord}; only TEXCOORD_0 is drawn"
                ));
            }
            let pair = |key: &str, default: f32| -> [f32; 2] {
                let v = &transform[key];
                [v[0].as_f64().unwrap_or(default as f64) as f32, v[1].as_f64().unwrap_or(default as f64) as f32]
            };
            result.uv_transform = vat_preview::uv_transform(
                pair("offset", 0.0),
                transform["rotation"].as_f64().unwrap_or(0.0) as f32,
                pair("scale", 1.0),
            );
            let slot = match decoded.iter().find(|(t, _)| *t == index) {
                Some(&(_, slot)) => slot,
                None => {
                    let texture = texture(&doc, bin, index).map_err(|e| format!("material {m}'s base colour {e}"))?;
                    textures.push(texture);
                    decoded.push((index, textures.len() - 1));
                    textures.len() - 1
                }
            };
            result.texture = Some(slot);
        }
        materials.push(result);
    }
    Ok((materials, textures))
}

/// Texture `index` of `doc`: its image's bytes from the binary chunk, decoded, with its sampler's wraps.
fn texture(doc: &serde_json::Value, bin: &[u8], index: u64) -> Result<Texture, String> {
    let entry = doc["textures"].get(index as usize).ok_or(format!("texture {index} is not in the file"))?;
    let source = entry["source"].as_u64().ok_or(format!("texture {index} has no image (source)"))?;
    let image =
        doc["images"].get(source as usize).ok_or(format!("texture {index}'s image {source} is not in the file"))?;
    let Some(view_index) = image["bufferView"].as_u64() else {
        return Err(format!(
            "texture {index}'s image {source} is not stored in the GLB (a uri), where a bake stores every image"
        ));
    };
    let view = doc["bufferViews"].get(view_index as usize).ok_or(format!("image {source}'s buffer view is missing"))?;
    let offset = view["byteOffset"].as_u64().unwrap_or(0) as usize;
    let length = view["byteLength"].as_u64().unwrap_or(0) as usize;
    let bytes = offset
        .checked_add(length)
        .and_then(|end| bin.get(offset..end))
        .ok_or(format!("image {source}'s bytes run past the binary chunk"))?;
    let mut texture = Texture::decode(bytes).map_err(|e| format!("texture {index} (image {source}): {e}"))?;
    let sampler = entry["sampler"].as_u64().and_then(|s| doc["samplers"].get(s as usize));
    let wrap = |key: &str| {
        let code = sampler.and_then(|s| s[key].as_u64());
        Wrap::from_gl(code).ok_or(format!("texture {index}'s sampler has {key} {code:?}, not a glTF wrap mode"))
    };
    texture.wrap = [wrap("wrapS")?, wrap("wrapT")?];
    Ok(texture)
}
