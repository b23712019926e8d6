//! Encode: the rest mesh, another tool's files (`--format`, `--target`) and the
//! description, as bytes.

use anyhow::{Context, Result};
use glam::Vec3;
use vat_bounds::Bounds;
use vat_model::{Columns, Layout, Model};

use super::load::{recorded_source, Source};
use super::pack::PackedTexture;
use super::rest_mesh::{self, RestMesh};
use super::texels::Quantizing;
use crate::description::{self, Axes, ClipEntry, Description, Mesh, Positions, Texture};
use crate::settings::{BakeSettings, GENERATOR};

/// The rest mesh and the description, encoded.
pub(crate) struct Encoded {
    pub(crate) glb: Vec<u8>,
    /// Another tool's files (`--format`), as (name, bytes).
    pub(crate) exports: Vec<(String, Vec<u8>)>,
    pub(crate) description: Description,
    pub(crate) description_json: Vec<u8>,
}

/// Encode: the rest mesh (its bounds cover every row) and the description.
#[allow(clippy::too_many_arguments)]
pub(crate) fn encode(
    source: &Source,
    model: &Model,
    rest: &(Vec<Vec3>, Vec<Vec3>),
    columns: &Columns,
    entries: Vec<ClipEntry>,
    layout: &Layout,
    quantizing: &Quantizing,
    texture: &PackedTexture,
    decimation: Option<description::Decimation>,
    plain: Option<&[u16]>,
    sockets: Vec<description::Socket>,
    settings: &BakeSettings,
) -> Result<Encoded> {
    let (bounds, grid) = (&quantizing.bounds, &quantizing.grid);
    let (rest_positions, rest_normals) = rest;
    let rest_bounds = Bounds::from_points(rest_positions.iter().copied());
    let glb = rest_mesh::write_glb(&RestMesh {
        name: &settings.name,
        generator: GENERATOR,
        model,
        positions: rest_positions,
        normals: rest_normals,
        layout,
        columns,
        bounds_min: bounds.min().min(rest_bounds.min()),
        bounds_max: bounds.max().max(rest_bounds.max()),
        uv1: None,
        merge_materials: false,
    })
    .context("cannot encode the rest mesh")?;
    let mut description = Description {
        format: description::FORMAT.into(),
        format_version: description::FORMAT_VERSION,
        generator: GENERATOR.into(),
        source: recorded_source(source, settings),
        settings: settings.recorded(),
        axes: gltf_axes(),
        target: None,
        exports: Vec::new(),
        points: layout.points as u32,
        rows: layout.rows as u32,
        texture: Texture {
            file: texture.name.clone(),
            container: texture.container.into(),
            vk_format: vat_ktx2::VK_FORMAT_R16G16B16A16_UNORM,
            format: "R16G16B16A16_UNORM".into(),
            supercompression: texture.supercompression.into(),
            width: layout.width as u32,
            height: layout.height as u32,
            bands: layout.bands as u32,
            column_order: settings.column_order.as_str().into(),
            delta: (settings.delta != crate::delta::Delta::None).then(|| description::TextureDelta {
                mode: settings.delta.as_str().into(),
                order: settings.delta.order() as u32,
                decode: description::DELTA_DECODE.into(),
            }),
            layers: layers_of(layout, settings).map(|l| l.count),
            layer_height: layers_of(layout, settings).map(|l| l.height),
            bytes: texture.bytes,
            sha256: Some(texture.sha256.clone()),
        },
        positions: Positions {
            channels: "rgb".into(),
            encoding: "unorm16".into(),
            center: bounds.center.to_array(),
            half_extent: bounds.half_extent.to_array(),
            precision: bounds.precision_on(grid),
            grid: (!grid.is_full()).then_some(grid.0),
            max_error: (!grid.is_full()).then_some(texture.max_error),
        },
        normals: crate::pipeline::normals::normals_entry(
            settings.normals,
            layers_of(layout, settings).map_or(1, |l| l.count),
        ),
        mesh: Mesh {
            file: settings.mesh_file(),
            points: model.points.len() as u32,
            triangles: model.triangles.len() as u32,
            sha256: Some(description::sha256_hex(&glb)),
        },
        decimation,
        bones: None,
        clips: entries,
        sockets,
    };
    let mut exports = Vec::new();
    if let Some(texels) = plain {
        let finished = crate::pipeline::export::Finished {
            model,
            texels,
            layout,
            columns,
            rest,
            center: bounds.center,
            half_extent: bounds.half_extent,
            entries: &description.clips,
            bounds_min: bounds.min().min(rest_bounds.min()),
            bounds_max: bounds.max().max(rest_bounds.max()),
            generator: GENERATOR,
        };
        exports = crate::pipeline::export::files(crate::pipeline::export::Bake::Vertices(&finished), settings)?;
        description.exports = exports.iter().map(|(name, bytes)| description::ExportFile::of(name, bytes)).collect();
        let (file, space) = crate::pipeline::export::target(&finished, settings);
        exports.extend(file);
        description.target = space;
    }
    let mut description_json = serde_json::to_vec_pretty(&description).context("cannot serialize the description")?;
    description_json.push(b'\n');
    Ok(Encoded { glb, exports, description, description_json })
}

/// The array layers of a layered texture; `None` for a plain one.
pub(crate) fn layers_of(layout: &Layout, settings: &BakeSettings) -> Option<crate::pipeline::layers::Layers> {
    Some(crate::pipeline::layers::Layers::of(layout, settings.max_height)).filter(|l| l.count > 1)
}

/// glTF's axes, which every bake's positions are in: +Y up, +Z forward, right-handed, metres.
pub(crate) fn gltf_axes() -> Axes {
    Axes { up: "+y".into(), forward: "+z".into(), handedness: "right".into(), units: "metres".into() }
}
