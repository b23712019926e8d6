//! PlayCanvas's `.vat` (engine `scripts/esm/vat`, format version 1): a container laid out
//! like a GLB (magic `PVAT`, version, length, a JSON chunk and a binary chunk) whose texture
//! holds one RGBA16U texel per vertex per frame at the flat index `vertex · frameCount +
//! frame`, wrapped at a power-of-two width of at most 4096. Positions are quantized over
//! the bounds exactly as ours (`min + q · size / 65535`), so xyz are copied as they are;
//! the octahedral normal is ours with its two bytes swapped (PlayCanvas keeps x in the low
//! byte). Each animation stores `frameCount + 1` frames, its last played towards: a clip of
//! `rows` rows is `frameCount = rows − 1` (a one-row clip stores its row twice).

use serde_json::json;

use crate::types::{Baked, Export, ExportError, ExportFile};

/// The container's magic, `PVAT` as a little-endian u32, and the version PlayCanvas reads.
const MAGIC: u32 = 0x5441_5650;
const VERSION: u32 = 1;
const CHUNK_JSON: u32 = 0x4e4f_534a;
const CHUNK_BIN: u32 = 0x004e_4942;
/// The widest (and tallest) texture the format uses.
const TEXTURE_LIMIT: usize = 4096;

/// The PlayCanvas `.vat` of a bake: `<name>.vat`.
pub fn playcanvas(bake: &Baked) -> Result<Export, ExportError> {
    let points = bake.points();
    // Frames each clip stores: its rows, at least two (the player blends towards frame + 1).
    let stored: Vec<usize> = bake.clips.iter().map(|c| c.rows.max(2)).collect();
    let frames: usize = stored.iter().sum();
    let texels = points * frames;
    let mut width = 1;
    while width < texels && width < TEXTURE_LIMIT {
        width *= 2;
    }
    let height = texels.div_ceil(width).max(1);
    if height > TEXTURE_LIMIT {
        return Err(ExportError::TooLarge(format!(
            "--format playcanvas: {points} points × {frames} frames need a {width}×{height} texture, but a PlayCanvas .vat \
             holds at most {TEXTURE_LIMIT}×{TEXTURE_LIMIT} texels: lower --fps, --max-frames or --points"
        )));
    }

    let mut vat = vec![0u16; width * height * 4];
    let mut animations = Vec::new();
    let mut start = 0;
    for (clip, &count) in bake.clips.iter().zip(&stored) {
        animations.push(json!({
            "name": clip.name,
            "frameStart": start,
            "frameCount": count - 1,
            "duration": clip.duration,
        }));
        for point in 0..points {
            for k in 0..count {
                let t = bake.texel(point, clip.row + k.min(clip.rows - 1));
                let at = (point * frames + start + k) * 4;
                vat[at..at + 4].copy_from_slice(&[t[0], t[1], t[2], t[3].swap_bytes()]);
            }
        }
        start += count;
    }

    let wide = points > 65535;
    let index_bytes = |triangles: &[[u32; 3]]| -> Vec<u8> {
        let mut bytes = Vec::with_capacity(triangles.len() * if wide { 12 } else { 6 });
        for &index in triangles.iter().flatten() {
            if wide {
                bytes.extend_from_slice(&index.to_le_bytes());
            } else {
                bytes.extend_from_slice(&(index as u16).to_le_bytes());
            }
        }
        bytes
    };
    let indices = index_bytes(bake.triangles);
    let uvs: Vec<u8> = bake.uv0.iter().flat_map(|uv| uv.to_array()).flat_map(f32::to_le_bytes).collect();
    let vat: Vec<u8> = vat.iter().flat_map(|v| v.to_le_bytes()).collect();

    // The chunks one after another, each starting on a 4-byte boundary.
    let mut binary = Vec::new();
    let mut accessor = |bytes: &[u8]| {
        let offset = binary.len();
        binary.extend_from_slice(bytes);
        binary.resize(binary.len().next_multiple_of(4), 0);
        json!({ "byteOffset": offset, "byteLength": bytes.len() })
    };
    let vat_accessor = accessor(&vat);
    let mut index_accessor = accessor(&indices);
    let uv_accessor = accessor(&uvs);
    let index_type = if wide { "uint32" } else { "uint16" };
    index_accessor["type"] = json!(index_type);
    index_accessor["count"] = json!(bake.triangles.len() * 3);
    // The levels of detail: PlayCanvas's shader reads a vertex's texels at its
    // gl_VertexID, so a level is another index buffer over the same vertices (those it
    // leaves out are never shaded), after the others in the binary chunk.
    let lods: Vec<serde_json::Value> = bake
        .levels
        .iter()
        .map(|triangles| {
            let mut indices = accessor(&index_bytes(triangles));
            indices["type"] = json!(index_type);
            indices["count"] = json!(triangles.len() * 3);
            json!({ "indices": indices })
        })
        .collect();

    let (c, h) = (bake.center, bake.half_extent);
    let min = [0, 1, 2].map(|a| c[a] as f64 - h[a] as f64);
    let max = [0, 1, 2].map(|a| c[a] as f64 + h[a] as f64);
    let mut json = json!({
        "version": VERSION,
        "generator": bake.generator,
        "fps": bake.fps,
        "vertexCount": points,
        "frameCount": frames,
        "texture": { "width": width, "height": height, "format": "rgba16u", "layout": "quant16" },
        "bounds": {
            "min": min,
            "max": max,
        },
        "animations": animations,
        "binary": { "byteLength": binary.len() },
        "vat": vat_accessor,
        "indices": index_accessor,
        "uvs": uv_accessor,
    });
    if !lods.is_empty() {
        // Written only with levels: a bake without them stays byte for byte what it was.
        json["lods"] = json!(lods);
    }
    let mut json = serde_json::to_vec(&json).expect("a JSON value always serializes");
    json.resize(json.len().next_multiple_of(4), b' ');

    let length = 12 + 8 + json.len() + 8 + binary.len();
    let mut bytes = Vec::with_capacity(length);
    for word in [MAGIC, VERSION, length as u32, json.len() as u32, CHUNK_JSON] {
        bytes.extend_from_slice(&word.to_le_bytes());
    }
    bytes.extend_from_slice(&json);
    for word in [binary.len() as u32, CHUNK_BIN] {
        bytes.extend_from_slice(&word.to_le_bytes());
    }
    bytes.extend_from_slice(&binary);
    Ok(Export { files: vec![ExportFile { name: format!("{}.vat", bake.name), bytes }], mesh: None })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn u32_at(b: &[u8], at: usize) -> u32 {
        u32::from_le_bytes(b[at..at + 4].try_into().unwrap())
    }

    #[test]
    fn the_container_holds_every_frame_of_every_vertex_at_its_flat_index() {
        let owned = crate::types::test_bake::owned();
        let bake = owned.baked();
        let export = playcanvas(&bake).unwrap();
        let b = &export.files[0].bytes;
        assert_eq!((u32_at(b, 0), u32_at(b, 4), u32_at(b, 8) as usize), (MAGIC, 1, b.len()));
        let json_len = u32_at(b, 12) as usize;
        assert_eq!(u32_at(b, 16), CHUNK_JSON);
        let json: serde_json::Value = serde_json::from_slice(&b[20..20 + json_len]).unwrap();
        assert_eq!(u32_at(b, 20 + json_len + 4), CHUNK_BIN);
        let bin = &b[28 + json_len..];
        // Clip "walk" stores its 2 rows, "pose" its 1 row twice: 4 frames per vertex, 8 texels.
        assert_eq!((json["frameCount"].as_u64(), json["vertexCount"].as_u64()), (Some(4), Some(2)));
        assert_eq!((json["texture"]["width"].as_u64(), json["texture"]["height"].as_u64()), (Some(8), Some(1)));
        assert_eq!(json["animations"][1]["frameStart"].as_u64(), Some(2));
        assert_eq!(json["animations"][1]["frameCount"].as_u64(), Some(1));
        assert_eq!(json["bounds"]["min"][1].as_f64(), Some(0.5));
        let offset = json["vat"]["byteOffset"].as_u64().unwrap() as usize;
        let texel = |i: usize| -> [u16; 4] {
            std::array::from_fn(|c| u16::from_le_bytes([bin[offset + i * 8 + c * 2], bin[offset + i * 8 + c * 2 + 1]]))
        };
        // Point 0 lives in column 1: row 1 of it is (4000, 5000, 6000, 0x7f7f).
        assert_eq!(texel(1), [4000, 5000, 6000, 0x7f7f]);
        // Point 1 (column 0), frame 0: x/y bytes of the normal swapped.
        assert_eq!(texel(4), [10, 20, 30, 0xff80]);
        // Point 1, clip "pose" stores row 2 twice.
        assert_eq!(texel(6), [7, 8, 9, 0x3412]);
        assert_eq!(texel(7), [7, 8, 9, 0x3412]);
        assert_eq!(json["indices"]["type"], "uint16");
        assert_eq!(json["indices"]["count"].as_u64(), Some(3));
    }

    #[test]
    fn each_level_is_an_index_buffer_over_the_same_vertices_after_the_others() {
        let owned = crate::types::test_bake::owned();
        let plain = playcanvas(&owned.baked()).unwrap().files.remove(0).bytes;
        let levels = vec![vec![[1, 0, 1], [0, 0, 1]]];
        let b = playcanvas(&Baked { levels: &levels, ..owned.baked() }).unwrap().files.remove(0).bytes;
        let json_len = u32_at(&b, 12) as usize;
        let json: serde_json::Value = serde_json::from_slice(&b[20..20 + json_len]).unwrap();
        let bin = &b[28 + json_len..];
        let lod = &json["lods"][0]["indices"];
        assert_eq!(
            (lod["type"].as_str(), lod["count"].as_u64(), lod["byteLength"].as_u64()),
            (Some("uint16"), Some(6), Some(12))
        );
        let at = lod["byteOffset"].as_u64().unwrap() as usize;
        assert!(at >= json["uvs"]["byteOffset"].as_u64().unwrap() as usize + 16, "after the uvs: {json}");
        let indices: Vec<u16> = bin[at..at + 12].chunks(2).map(|c| u16::from_le_bytes([c[0], c[1]])).collect();
        assert_eq!(indices, [1, 0, 1, 0, 0, 1]);
        assert_eq!(json["binary"]["byteLength"].as_u64(), Some(bin.len() as u64));
        // The texture and the base mesh are the ones a bake without levels writes.
        let plain_json_len = u32_at(&plain, 12) as usize;
        let plain_bin = &plain[28 + plain_json_len..];
        assert_eq!(&bin[..plain_bin.len()], plain_bin);
    }

    #[test]
    fn a_bake_past_4096_squared_texels_is_refused_with_what_to_change() {
        let owned = crate::types::test_bake::owned();
        let mut clips = owned.clips.clone();
        clips[0].rows = 10_000_000;
        let bake = Baked { clips: &clips, ..owned.baked() };
        let e = playcanvas(&bake).unwrap_err().to_string();
        assert!(e.contains("4096×4096") && e.contains("--max-frames"), "{e}");
    }
}
