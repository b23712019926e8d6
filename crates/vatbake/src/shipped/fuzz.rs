//! The bodies of the fuzz targets for the readers of a bake (`fuzz/fuzz_targets/`:
//! `description`, `rest_mesh`, `texture_header`), here so that libFuzzer and the
//! bounded run of every `cargo test` (`crates/vatbake/tests/fuzz_readers.rs`) exercise
//! the same code. Each takes any bytes, must return without a panic, and panics
//! itself when what a reader accepted breaks a promise the readers' users rely on.

use std::path::PathBuf;

use super::read;
use super::{columns_of, layout_of, rest_mesh_from_bytes, RecordedHashes, ShippedFiles};

/// Any bytes as a description ([`read::description_from_bytes`]); what it accepts has
/// every clip within the texture's rows, finite rates, lists within their caps, and a
/// texture limit within the hard cap.
pub fn description(data: &[u8]) {
    let Ok(d) = read::description_from_bytes(data) else { return };
    assert!(d.clips.len() <= read::MAX_CLIPS && d.sockets.len() <= read::MAX_SOCKETS);
    assert!(d.exports.len() <= read::MAX_EXPORTS);
    for clip in &d.clips {
        assert!(u64::from(clip.row) + u64::from(clip.rows) <= u64::from(d.rows));
        assert!(clip.rate.is_finite() && clip.rate > 0.0 && clip.duration.is_finite() && clip.duration > 0.0);
    }
    assert!(read::texture_limit(&d) <= read::TEXTURE_MAX_BYTES);
    if let Ok(layout) = layout_of(&d) {
        assert!(layout.width * layout.bands >= layout.points);
    }
    let _ = crate::features::layers::gpu_bytes(&d);
}

/// Any bytes as a rest mesh ([`rest_mesh_from_bytes`]); what it accepts has one
/// normal and one column per vertex and no triangle naming a vertex it lacks.
pub fn rest_mesh(data: &[u8]) {
    let Ok(mesh) = rest_mesh_from_bytes(data) else { return };
    assert_eq!(mesh.normals.len(), mesh.positions.len());
    assert_eq!(mesh.columns.len(), mesh.positions.len());
    assert!(mesh.triangles.iter().flatten().all(|&i| (i as usize) < mesh.positions.len()));
    // Never more triangles than the file has bytes for (an index takes a byte at least).
    assert!(mesh.triangles.len() * 3 <= data.len());
    let _ = columns_of(&mesh, mesh.positions.len());
}

/// A description and a texture: a little-endian `u32` length, that many bytes of
/// description, then the texture's bytes. A description that reads is given the
/// texture as `verify` and `preview` give it theirs: the header compared with the
/// description first, then the decode. What decodes is no larger than the description
/// lets a texture be ([`read::texture_limit`]) and has its shape.
pub fn texture_header(data: &[u8]) {
    let Some((len, rest)) = data.split_first_chunk::<4>() else { return };
    let len = (u32::from_le_bytes(*len) as usize).min(rest.len());
    let (description, texture) = rest.split_at(len);
    let Ok(description) = read::description_from_bytes(description) else { return };
    let files = ShippedFiles {
        path: PathBuf::from("fuzz/unit.vat.json"),
        hashes: RecordedHashes::default(),
        texture: PathBuf::from("fuzz/unit.vat.ktx2"),
        mesh: PathBuf::from("fuzz/unit.rest.glb"),
        description,
    };
    if files.check_header(texture).is_err() {
        return;
    }
    let Ok((image, normals)) = files.decode_texture_parts(texture) else { return };
    let limit = read::texture_limit(&files.description);
    assert!(image.texels.len() as u64 * 2 <= limit, "{} texels past the limit {limit}", image.texels.len());
    if let Some(normals) = normals {
        assert_eq!(normals.len(), image.texels.len());
    }
    let _ = files.check_shape(&image);
}
