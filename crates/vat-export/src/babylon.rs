//! `--format babylon`: a bone bake as the JSON Babylon.js's
//! `VertexAnimationBaker.loadBakedVertexDataFromJSON` reads, `{vertexData, width,
//! height}`, for the rest mesh loaded with Babylon's glTF loader.
//!
//! The layout is Babylon's own skeleton buffer, frame after frame: `vertexData` is
//! base64 of little-endian f32s, `(bones + 1) · 16` per frame, matrix `j` at
//! `16 · j` (Babylon's `Matrix` array order, which is glTF's column-major order),
//! then one identity matrix, as `Skeleton.getTransformMatrices` ends every buffer;
//! `width` is `(bones + 1) · 4` texels and `height` the number of frames. The rest
//! mesh's skin lists one joint per matrix in texture order, and the loader gives
//! bone `j` the index of joint `j` (`skin.joints.indexOf`), so frame rows carry over
//! as they are. Its joints are all at the identity with no inverse bind matrices,
//! and the mesh sits at the scene root, so Babylon's skinning space is the glTF
//! scene's, which the matrices are in (its `__root__` node turns that left-handed).
//!
//! Babylon's loader reads nothing else; `clips` adds each clip's frame range for
//! `BakedVertexAnimationManager.setAnimationParameters(from, to, offset, rate)`.

use base64::Engine;
use glam::Mat4;
use serde_json::json;

use crate::types::{BakedBones, ClipSpan, ExportFile};

/// `<name>.babylon.json` of `bones`.
pub fn babylon(bones: &BakedBones) -> Vec<ExportFile> {
    let text = json(bones.rows, bones.clips, bones.mesh_file, bones.generator);
    vec![ExportFile { name: file_name(bones.name), bytes: text.into_bytes() }]
}

/// The file's name: `<name>.babylon.json`.
fn file_name(name: &str) -> String {
    format!("{name}.babylon.json")
}

/// The JSON text of `rows` (each row's matrices in texture order).
fn json(rows: &[Vec<Mat4>], clips: &[ClipSpan], mesh_file: &str, generator: &str) -> String {
    let bones = rows.first().map_or(0, Vec::len);
    let mut floats = Vec::with_capacity(rows.len() * (bones + 1) * 16);
    for row in rows {
        for matrix in row.iter().chain([&Mat4::IDENTITY]) {
            floats.extend(matrix.to_cols_array());
        }
    }
    let bytes: Vec<u8> = floats.iter().flat_map(|f| f.to_le_bytes()).collect();
    let clips: Vec<serde_json::Value> = clips
        .iter()
        .map(|clip| {
            json!({
                "name": clip.name,
                "slot": clip.slot,
                "from": clip.row,
                "to": clip.row + clip.rows - 1,
                "rate": clip.rate,
                "loop": clip.looping,
            })
        })
        .collect();
    let value = json!({
        "vertexData": base64::engine::general_purpose::STANDARD.encode(&bytes),
        "width": (bones + 1) * 4,
        "height": rows.len(),
        "mesh": mesh_file,
        "generator": generator,
        "clips": clips,
    });
    let mut text = serde_json::to_string(&value).expect("a JSON value always serializes");
    text.push('\n');
    text
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_row_is_its_matrices_then_an_identity_in_column_major_order() {
        let m = Mat4::from_translation(glam::Vec3::new(1.0, 2.0, 3.0));
        let clip = ClipSpan {
            name: "walk".into(),
            slot: Some("walk".into()),
            row: 0,
            rows: 2,
            duration: 1.0,
            rate: 1.0,
            looping: true,
        };
        let text = json(&[vec![m], vec![Mat4::IDENTITY]], &[clip], "a.rest.glb", "vatbake test");
        let value: serde_json::Value = serde_json::from_str(&text).unwrap();
        assert_eq!((value["width"].as_u64(), value["height"].as_u64()), (Some(8), Some(2)));
        let bytes = base64::engine::general_purpose::STANDARD.decode(value["vertexData"].as_str().unwrap()).unwrap();
        let floats: Vec<f32> = bytes.chunks_exact(4).map(|b| f32::from_le_bytes([b[0], b[1], b[2], b[3]])).collect();
        assert_eq!(floats.len(), 2 * 2 * 16);
        // Translation sits at 12, 13, 14 (Babylon's m[12..15]); the second matrix is the identity.
        assert_eq!(&floats[12..16], &[1.0, 2.0, 3.0, 1.0]);
        assert_eq!(&floats[16..32], &Mat4::IDENTITY.to_cols_array());
        assert_eq!((value["clips"][0]["from"].as_u64(), value["clips"][0]["to"].as_u64()), (Some(0), Some(1)));
    }
}
