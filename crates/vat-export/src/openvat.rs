//! OpenVAT (sharpen3d/openvat): a 16-bit RGBA PNG whose RGB hold each vertex's offset
//! from its rest position in Blender's axes (Z up), normalized per axis over
//! `<name>-remap_info.json`'s `os-remap` `Min`/`Max`; one column per vertex, one row per
//! frame, frame 0 at the top; the mesh's second uv (`VAT_UV`, TEXCOORD_1 in glTF) at the
//! middle of the vertex's first texel. OpenVAT's own Godot shader decodes
//! `offset = Min + tex · (Max − Min)` and moves the rest vertex by
//! `(offset.x, offset.z, −offset.y)`; its separate normal texture holds `(n + 1) / 2` in the
//! same Blender axes. We write `<name>.png`, `<name>-vnrm.png`, `<name>-remap_info.json` and
//! ask for `<name>-mesh.glb` (OpenVAT names it `<name>.glb` in a folder of its own; beside
//! the bake that name is the source model's).

use glam::{DVec3, Vec2};
use serde_json::json;
use vat_ktx2::{encode_png16, Rgba16Image};

use crate::types::{json_indent4, unorm16, Baked, Export, ExportError, ExportFile, MeshRequest};

/// glTF / engine axes (Y up) to Blender's (Z up): the inverse of the shader's swizzle.
pub fn to_blender(v: DVec3) -> DVec3 {
    DVec3::new(v.x, -v.z, v.y)
}

/// The OpenVAT export of a bake.
pub fn openvat(bake: &Baked) -> Result<Export, ExportError> {
    let (points, rows, width, height) = (bake.points(), bake.rows, bake.width, bake.height());
    let offset =
        |point: usize, row: usize| to_blender(bake.position(point, row) - bake.rest_positions[point].as_dvec3());
    let (mut lo, mut hi) = (DVec3::splat(f64::INFINITY), DVec3::splat(f64::NEG_INFINITY));
    for point in 0..points {
        for row in 0..rows {
            let d = offset(point, row);
            (lo, hi) = (lo.min(d), hi.max(d));
        }
    }
    if points == 0 || rows == 0 {
        (lo, hi) = (DVec3::ZERO, DVec3::ZERO);
    }
    // The players read Min/Max as 32-bit floats: quantize against exactly those values,
    // rounded outwards so that every offset stays inside.
    let outward = |v: f64, down: bool| {
        let f = v as f32;
        match (down, (f as f64).partial_cmp(&v)) {
            (true, Some(std::cmp::Ordering::Greater)) => f.next_down() as f64,
            (false, Some(std::cmp::Ordering::Less)) => f.next_up() as f64,
            _ => f as f64,
        }
    };
    let lo = DVec3::from_array(lo.to_array().map(|v| outward(v, true)));
    let hi = DVec3::from_array(hi.to_array().map(|v| outward(v, false)));

    let mut positions = vec![0u16; width * height * 4];
    let mut normals = vec![0u16; width * height * 4];
    for point in 0..points {
        for row in 0..rows {
            let at = bake.texel_index(point, row);
            let d = offset(point, row);
            positions[at..at + 4].copy_from_slice(&[
                unorm16(d.x, lo.x, hi.x),
                unorm16(d.y, lo.y, hi.y),
                unorm16(d.z, lo.z, hi.z),
                65535,
            ]);
            let n = to_blender(bake.normal(point, row));
            let half = |v: f64| unorm16(v, -1.0, 1.0);
            normals[at..at + 4].copy_from_slice(&[half(n.x), half(n.y), half(n.z), 65535]);
        }
    }
    let png = |texels| encode_png16(&Rgba16Image { width: width as u32, height: height as u32, texels });
    let remap = json!({ "os-remap": { "Min": lo.to_array(), "Max": hi.to_array(), "Frames": rows } });
    let uv1 = (0..points)
        .map(|point| {
            let column = bake.point_columns[point] as usize;
            let (x, y) = (column % width, (column / width) * rows);
            Vec2::new((x as f32 + 0.5) / width as f32, (y as f32 + 0.5) / height as f32)
        })
        .collect();
    Ok(Export {
        files: vec![
            ExportFile { name: format!("{}.png", bake.name), bytes: png(positions)? },
            ExportFile { name: format!("{}-vnrm.png", bake.name), bytes: png(normals)? },
            ExportFile { name: format!("{}-remap_info.json", bake.name), bytes: json_indent4(&remap) },
        ],
        mesh: Some(MeshRequest {
            file: format!("{}-mesh.glb", bake.name),
            uv1,
            merge_materials: false,
            // OpenVAT's engine tools take any mesh whose VAT_UV points at the texture's
            // columns: a level is one more such mesh over a subset of the points.
            levels: (1..=bake.levels.len()).map(|k| format!("{}-lod{k}-mesh.glb", bake.name)).collect(),
        }),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn offsets_decode_with_openvats_formula_to_the_bakes_positions() {
        let owned = crate::types::test_bake::owned();
        let bake = owned.baked();
        let export = openvat(&bake).unwrap();
        let remap: serde_json::Value = serde_json::from_slice(&export.files[2].bytes).unwrap();
        let lo: Vec<f64> = remap["os-remap"]["Min"].as_array().unwrap().iter().map(|v| v.as_f64().unwrap()).collect();
        let hi: Vec<f64> = remap["os-remap"]["Max"].as_array().unwrap().iter().map(|v| v.as_f64().unwrap()).collect();
        assert_eq!(remap["os-remap"]["Frames"].as_u64(), Some(3));
        let image = vat_ktx2::decode_png16(&export.files[0].bytes).unwrap();
        let uv1 = &export.mesh.as_ref().unwrap().uv1;
        for (point, uv) in uv1.iter().enumerate() {
            for row in 0..3 {
                let x = (uv.x * 2.0) as usize;
                let y = (uv.y * 3.0) as usize + row;
                let t = &image.texels[(y * 2 + x) * 4..];
                let o: Vec<f64> = (0..3).map(|a| lo[a] + t[a] as f64 / 65535.0 * (hi[a] - lo[a])).collect();
                let engine = DVec3::new(o[0], o[2], -o[1]) + bake.rest_positions[point].as_dvec3();
                let want = bake.position(point, row);
                let step = DVec3::new(hi[0] - lo[0], hi[2] - lo[2], hi[1] - lo[1]) / 65535.0;
                assert!(
                    ((engine - want).abs() - step * 0.5).max_element() <= 1e-6,
                    "{point} {row}: {engine} vs {want}"
                );
            }
        }
    }
}
