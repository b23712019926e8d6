//! `--format`: the bake's results handed to `vat-export`, which re-packs them for another
//! tool's players; the files it returns (and the rest mesh it asks for) are staged beside
//! the bake's own and renamed into place with them.

use anyhow::{Context, Result};
use glam::{Vec2, Vec3};
use vat_model::{Columns, Layout, Model};

use crate::description::ClipEntry;
use crate::error::Error;
use crate::pipeline::rest_mesh::{self, RestMesh};
use crate::settings::{BakeSettings, OutputFormat};

/// A finished bake, as the exporters need it.
pub(crate) struct Finished<'a> {
    pub model: &'a Model,
    /// Plain texels (no delta), as a shader reads them.
    pub texels: &'a [u16],
    pub layout: &'a Layout,
    pub columns: &'a Columns,
    pub rest: &'a (Vec<Vec3>, Vec<Vec3>),
    pub center: Vec3,
    pub half_extent: Vec3,
    pub entries: &'a [ClipEntry],
    pub bounds_min: Vec3,
    pub bounds_max: Vec3,
    pub generator: &'a str,
}

/// `finished` as `vat-export` takes it.
fn with_baked<R>(finished: &Finished, settings: &BakeSettings, then: impl FnOnce(&vat_export::Baked) -> R) -> R {
    let model = finished.model;
    let points = model.points.len();
    let point_columns: Vec<u32> = (0..points).map(|p| finished.columns.column(p) as u32).collect();
    let clips: Vec<vat_export::ClipSpan> = finished
        .entries
        .iter()
        .map(|c| vat_export::ClipSpan {
            name: c.name.clone(),
            row: c.row as usize,
            rows: c.rows as usize,
            duration: c.duration,
        })
        .collect();
    then(&vat_export::Baked {
        name: &settings.name,
        generator: finished.generator,
        fps: settings.fps,
        texels: finished.texels,
        width: finished.layout.width,
        rows: finished.layout.rows,
        bands: finished.layout.bands,
        point_columns: &point_columns,
        center: finished.center.to_array(),
        half_extent: finished.half_extent.to_array(),
        rest_positions: &finished.rest.0,
        uv0: &model.points.uv0,
        triangles: &model.triangles,
        clips: &clips,
    })
}

/// `settings.target` (none for `three`): the converted texture as (name, bytes) when the
/// target has a file of its own, and the description's record of the engine's space.
pub(crate) fn target(
    finished: &Finished,
    settings: &BakeSettings,
) -> (Option<(String, Vec<u8>)>, Option<crate::description::TargetSpace>) {
    if settings.target == crate::settings::Target::Three {
        return (None, None);
    }
    let convention = vat_export::convention(settings.target.as_str()).expect("every --target has its conventions");
    let converted = with_baked(finished, settings, |baked| vat_export::convert(baked, &convention));
    let corners = [finished.bounds_min, finished.bounds_max].map(|c| convention.point(c.as_dvec3()).as_vec3());
    let (texture, container, sha256) = match (&converted.file, convention.container) {
        (Some(file), Some(container)) => {
            (file.name.clone(), container, Some(crate::description::sha256_hex(&file.bytes)))
        }
        _ => (settings.texture_file(), settings.texture_format.into(), None),
    };
    let space = crate::description::TargetSpace {
        name: convention.name.into(),
        axes_from_gltf: convention.axis_words(),
        scale: convention.scale,
        up: convention.up,
        handedness: convention.handedness,
        units: convention.units,
        uv_origin: convention.uv_origin,
        texture,
        container,
        center: converted.center,
        half_extent: converted.half_extent,
        bounds_min: corners[0].min(corners[1]).to_array(),
        bounds_max: corners[0].max(corners[1]).to_array(),
        sha256,
    };
    (converted.file.map(|f| (f.name, f.bytes)), Some(space))
}

/// The files of `settings.format` (none for the bake's own format), as (name, bytes).
pub(crate) fn files(finished: &Finished, settings: &BakeSettings) -> Result<Vec<(String, Vec<u8>)>> {
    let writer = match settings.format {
        // A bone bake writes Babylon's JSON itself (bones.rs).
        OutputFormat::Vatbake | OutputFormat::Babylon => return Ok(Vec::new()),
        OutputFormat::Openvat => vat_export::openvat,
        OutputFormat::Vat3 => vat_export::vat3,
        OutputFormat::Playcanvas => vat_export::playcanvas,
    };
    let model = finished.model;
    let export = with_baked(finished, settings, writer).map_err(|e| match e {
        vat_export::ExportError::TooLarge(message) => Error::usage(message),
        other => Error::output(format!("--format {}: {other}", settings.format)),
    })?;
    let mut files: Vec<(String, Vec<u8>)> = export.files.into_iter().map(|f| (f.name, f.bytes)).collect();
    if let Some(mesh) = export.mesh {
        let uv1: &[Vec2] = &mesh.uv1;
        let glb = rest_mesh::write_glb(&RestMesh {
            name: &settings.name,
            generator: finished.generator,
            model,
            positions: &finished.rest.0,
            normals: &finished.rest.1,
            layout: finished.layout,
            columns: finished.columns,
            bounds_min: finished.bounds_min,
            bounds_max: finished.bounds_max,
            uv1: Some(uv1),
            merge_materials: mesh.merge_materials,
        })
        .with_context(|| format!("cannot encode the {} mesh", settings.format))?;
        files.push((mesh.file, glb));
    }
    Ok(files)
}
