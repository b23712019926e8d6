//! `--format` and `--target`: the bake's results handed to `vat-export`, which re-packs
//! them for another tool's players through the format's writer, and converts them into the
//! target engine's space; the files it returns (and the rest mesh it asks for) are staged
//! beside the bake's own and renamed into place with them.

use anyhow::{Context, Result};
use glam::{Mat4, Vec2, Vec3};
use vat_export::Writer;
use vat_model::{Columns, Layout, Model};

use crate::description::ClipEntry;
use crate::error::Error;
use crate::pipeline::rest_mesh::{self, RestMesh};
use crate::settings::BakeSettings;

/// A finished bake of either kind, as a format's writer is handed it.
pub(crate) enum Bake<'a> {
    /// A vertex bake (`--mode vertices`).
    Vertices(&'a Finished<'a>),
    /// A bone bake (`--mode bones`): every row's matrices, in texture order, and the clips.
    Bones { rows: &'a [Vec<Mat4>], entries: &'a [ClipEntry] },
}

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
    /// The levels of detail (`--lods`), finest first.
    pub levels: &'a [crate::pipeline::lods::Level],
}

/// `finished` as `vat-export` takes it.
fn with_baked<R>(finished: &Finished, settings: &BakeSettings, then: impl FnOnce(&vat_export::Baked) -> R) -> R {
    let model = finished.model;
    let points = model.points.len();
    let point_columns: Vec<u32> = (0..points).map(|p| finished.columns.column(p) as u32).collect();
    let clips = spans(finished.entries);
    let levels: Vec<Vec<[u32; 3]>> = finished.levels.iter().map(|l| l.lod.triangles.clone()).collect();
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
        levels: &levels,
    })
}

/// The clips, as the writers take them.
fn spans(entries: &[ClipEntry]) -> Vec<vat_export::ClipSpan> {
    entries
        .iter()
        .map(|c| vat_export::ClipSpan {
            name: c.name.clone(),
            slot: c.slot.clone(),
            row: c.row as usize,
            rows: c.rows as usize,
            duration: c.duration,
            rate: c.rate,
            looping: c.looping,
        })
        .collect()
}

/// `settings.target` (none for `three`): the converted texture as (name, bytes) when the
/// target has a file of its own, and the description's record of the engine's space.
pub(crate) fn target(
    finished: &Finished,
    settings: &BakeSettings,
) -> (Option<(String, Vec<u8>)>, Option<crate::description::TargetSpace>) {
    if !settings.target.has_record() {
        return (None, None);
    }
    let convention = settings.target.convention();
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

/// The files of `settings.format` written from `bake`, as (name, bytes): none for the
/// bake's own format (the settings refuse a format with the other kind of bake).
pub(crate) fn files(bake: Bake, settings: &BakeSettings) -> Result<Vec<(String, Vec<u8>)>> {
    let export = match (settings.format.writer(), bake) {
        (Writer::Vertices(write), Bake::Vertices(finished)) => {
            let export = with_baked(finished, settings, write).map_err(|e| match e {
                vat_export::ExportError::TooLarge(message) => Error::usage(message),
                other => Error::output(format!("--format {}: {other}", settings.format)),
            })?;
            let mut files = named(export.files);
            if let Some(mesh) = export.mesh {
                files.push((mesh.file.clone(), mesh_glb(finished, &mesh, settings)?));
                for (level, file) in finished.levels.iter().zip(&mesh.levels) {
                    let glb = crate::pipeline::lods::write_glb(
                        level,
                        &crate::pipeline::lods::LevelMesh {
                            name: &settings.name,
                            model: finished.model,
                            rest: finished.rest,
                            layout: finished.layout,
                            columns: finished.columns,
                            bounds: (finished.bounds_min, finished.bounds_max),
                            generator: finished.generator,
                            format_uv1: Some((&mesh.uv1, mesh.merge_materials)),
                        },
                    )
                    .with_context(|| format!("cannot encode a level of detail's {} mesh", settings.format))?;
                    files.push((file.clone(), glb));
                }
            }
            files
        }
        (Writer::Bones(write), Bake::Bones { rows, entries }) => named(write(&vat_export::BakedBones {
            name: &settings.name,
            generator: crate::settings::GENERATOR,
            rows,
            clips: &spans(entries),
            mesh_file: &settings.mesh_file(),
        })),
        _ => Vec::new(),
    };
    Ok(export)
}

fn named(files: Vec<vat_export::ExportFile>) -> Vec<(String, Vec<u8>)> {
    files.into_iter().map(|f| (f.name, f.bytes)).collect()
}

/// The rest mesh a format asks for, with its second uv set.
fn mesh_glb(finished: &Finished, mesh: &vat_export::MeshRequest, settings: &BakeSettings) -> Result<Vec<u8>> {
    let uv1: &[Vec2] = &mesh.uv1;
    rest_mesh::write_glb(&RestMesh {
        name: &settings.name,
        generator: finished.generator,
        model: finished.model,
        positions: &finished.rest.0,
        normals: &finished.rest.1,
        layout: finished.layout,
        columns: finished.columns,
        bounds_min: finished.bounds_min,
        bounds_max: finished.bounds_max,
        uv1: Some(uv1),
        corner_uv: None,
        merge_materials: mesh.merge_materials,
        encoding: vat_description::RestMeshEncoding::Plain,
    })
    .with_context(|| format!("cannot encode the {} mesh", settings.format))
}
