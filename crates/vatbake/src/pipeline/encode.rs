//! Encode: the rest mesh, another tool's files (`--format`, `--target`) and the
//! description, as bytes; for a bone bake, its rest mesh with joints, Babylon.js's
//! file and its description.
//!
//! Owns: every byte of the files besides the texture, the description's construction.
//! Must not touch: the output folder (write stages what it gives), evaluation (it
//! takes what the stages before made: [`Made`], [`BoneMade`]).

use anyhow::{Context, Result};
use glam::Vec3;
use vat_bounds::Bounds;
use vat_model::Layout;

use super::bones_mesh::{self, BoneMesh};
use super::bones_palette::Palette;
use super::evaluate::Posed;
use super::load::{recorded_source, Source};
use super::measure::MatrixErrors;
use super::pack::{Matrices, PackedTexture};
use super::rest_mesh::{self, RestMesh};
use super::texels::Quantizing;
use crate::description::{self, Axes, Bones, Description, Mesh, Normals, Positions, Texture};
use crate::settings::{BakeSettings, OutputFormat, GENERATOR};

/// What encode gives write: the rest mesh, other tools' files and the description, as bytes.
pub(crate) struct Encoded {
    pub(crate) glb: Vec<u8>,
    /// The levels of detail's rest meshes (`--lods`), as (name, bytes), finest first.
    pub(crate) lods: Vec<(String, Vec<u8>)>,
    /// Another tool's files (`--format`, `--target`), as (name, bytes).
    pub(crate) exports: Vec<(String, Vec<u8>)>,
    /// Whether `exports` are staged before the rest mesh (a bone bake's Babylon.js
    /// file) or after it (a vertex bake's), which is the order the report lists them.
    pub(crate) exports_first: bool,
    pub(crate) description: Description,
    pub(crate) description_json: Vec<u8>,
}

/// What a vertex bake's stages made, for encode to write down.
pub(crate) struct Made<'a, 'm> {
    pub(crate) source: &'a Source,
    /// The evaluated points: the rig (over the baked model), the rest pose, the
    /// columns and the clip entries (its poses are no longer needed).
    pub(crate) posed: &'a Posed<'m>,
    pub(crate) layout: &'a Layout,
    pub(crate) quantizing: &'a Quantizing,
    /// The staged texture, with the plain texels other tools' files are made from.
    pub(crate) texture: &'a PackedTexture,
    /// The decimation and its error, when points were merged.
    pub(crate) decimation: Option<description::Decimation>,
    pub(crate) sockets: Vec<description::Socket>,
    /// The levels of detail (`--lods`) and their measured error.
    pub(crate) levels: &'a [super::lods::Level],
    pub(crate) level_errors: Vec<super::lods::LevelError>,
}

impl Made<'_, '_> {
    /// Corners of the box around every row and the rest pose: the rest meshes' bounds.
    fn mesh_bounds(&self) -> (Vec3, Vec3) {
        let bounds = &self.quantizing.bounds;
        let rest_bounds = Bounds::from_points(self.posed.rest.0.iter().copied());
        (bounds.min().min(rest_bounds.min()), bounds.max().max(rest_bounds.max()))
    }
}

/// Encode: the rest mesh (its bounds cover every row), another tool's files and the description.
pub(crate) fn encode(made: Made, settings: &BakeSettings) -> Result<Encoded> {
    let Made { posed, layout, texture, .. } = &made;
    let (model, columns, rest) = (posed.rig.model(), &posed.columns, &posed.rest);
    let bounds = &made.quantizing.bounds;
    let (rest_positions, rest_normals) = rest;
    let (bounds_min, bounds_max) = made.mesh_bounds();
    let glb = rest_mesh::write_glb(&RestMesh {
        name: &settings.name,
        generator: GENERATOR,
        model,
        positions: rest_positions,
        normals: rest_normals,
        layout,
        columns,
        bounds_min,
        bounds_max,
        uv1: None,
        corner_uv: None,
        merge_materials: false,
        encoding: settings.rest_mesh,
    })
    .context("cannot encode the rest mesh")?;
    let mut lods = Vec::with_capacity(made.levels.len());
    for (index, level) in made.levels.iter().enumerate() {
        let glb = super::lods::write_glb(
            level,
            &super::lods::LevelMesh {
                name: &settings.name,
                model,
                rest,
                layout,
                columns,
                bounds: (bounds_min, bounds_max),
                generator: GENERATOR,
                format_uv1: None,
            },
        )
        .context("cannot encode a level of detail's rest mesh")?;
        lods.push((settings.lod_file(index + 1), glb));
    }
    let mut description = describe(&made, &glb, settings);
    description.lods = super::lods::describe(made.levels, &made.level_errors, &lods, bounds);
    let mut exports = Vec::new();
    if let Some(texels) = texture.plain.as_deref() {
        let finished = crate::pipeline::export::Finished {
            model,
            texels,
            layout,
            columns,
            rest,
            center: bounds.center,
            half_extent: bounds.half_extent,
            entries: &description.clips,
            bounds_min,
            bounds_max,
            generator: GENERATOR,
            levels: made.levels,
        };
        exports = crate::pipeline::export::files(crate::pipeline::export::Bake::Vertices(&finished), settings)?;
        description.exports = exports.iter().map(|(name, bytes)| description::ExportFile::of(name, bytes)).collect();
        let (file, space) = crate::pipeline::export::target(&finished, settings);
        exports.extend(file);
        description.target = space;
    }
    let description_json = description_json(&description)?;
    Ok(Encoded { glb, lods, exports, exports_first: false, description, description_json })
}

/// The description of a vertex bake whose rest mesh is `glb`.
fn describe(made: &Made, glb: &[u8], settings: &BakeSettings) -> Description {
    let Made { source, posed, layout, quantizing, texture, .. } = made;
    let model = posed.rig.model();
    let (bounds, grid) = (&quantizing.bounds, &quantizing.grid);
    let (decimation, entries, sockets) = (made.decimation.clone(), posed.entries.clone(), made.sockets.clone());
    Description {
        format: description::FORMAT.into(),
        format_version: description::FORMAT_VERSION,
        generator: GENERATOR.into(),
        source: recorded_source(source, settings),
        animations: source.animations.clone(),
        animation_names: source.animation_names.clone(),
        settings: settings.recorded(),
        axes: gltf_axes(),
        target: None,
        exports: Vec::new(),
        points: layout.points as u32,
        rows: layout.rows as u32,
        texture: Texture {
            file: texture.name.clone(),
            container: texture.container,
            vk_format: vat_ktx2::VK_FORMAT_R16G16B16A16_UNORM,
            format: description::TexelFormat::R16G16B16A16Unorm,
            supercompression: texture.supercompression,
            width: layout.width as u32,
            height: layout.height as u32,
            bands: layout.bands as u32,
            column_order: settings.column_order,
            delta: crate::delta::layout_of(settings.delta, texture.references.is_some()).map(|delta_layout| {
                description::TextureDelta {
                    mode: settings.delta,
                    order: settings.delta.order() as u32,
                    decode: delta_layout.delta_decode().into(),
                    layout: Some(delta_layout),
                    block_rows: delta_layout.in_planes().then(|| crate::delta::block_rows(layout.width) as u32),
                    layout_decode: delta_layout.layout_decode().map(Into::into),
                    references: texture.references.as_ref().map(crate::delta::References::to_base64),
                }
            }),
            layers: layers_of(layout, settings).map(|l| l.count),
            layer_height: layers_of(layout, settings).map(|l| l.height),
            bytes: texture.bytes,
            sha256: Some(texture.sha256.clone()),
        },
        positions: Positions {
            channels: description::PositionChannels::Rgb,
            encoding: description::PositionEncoding::Unorm16,
            center: bounds.center.to_array(),
            half_extent: bounds.half_extent.to_array(),
            precision: bounds.precision_on(grid),
            grid: (!grid.is_full()).then_some(grid.0),
            max_error: (!grid.is_full()).then_some(texture.max_error),
        },
        normals: crate::features::normals::normals_entry(
            settings.normals,
            layers_of(layout, settings).map_or(1, |l| l.count),
        ),
        mesh: Mesh {
            file: settings.mesh_file(),
            points: model.points.len() as u32,
            triangles: model.triangles.len() as u32,
            sha256: Some(description::sha256_hex(glb)),
        },
        decimation,
        lods: Vec::new(),
        bones: None,
        clips: entries,
        sockets,
    }
}

/// The description as its file holds it: pretty JSON and a newline.
pub(crate) fn description_json(description: &Description) -> Result<Vec<u8>> {
    let mut description_json = serde_json::to_vec_pretty(description).context("cannot serialize the description")?;
    description_json.push(b'\n');
    Ok(description_json)
}

/// What a bone bake's stages made, for encode to write down.
pub(crate) struct BoneMade<'a, 'm> {
    pub(crate) source: &'a Source,
    /// The evaluated rows: the rig (over the source model) and the clip entries.
    pub(crate) posed: &'a Posed<'m>,
    pub(crate) palette: &'a Palette,
    /// Bind-space positions and normals: what the rest mesh holds and the matrices move.
    pub(crate) bind: &'a (Vec<Vec3>, Vec<Vec3>),
    pub(crate) bounds: &'a Bounds,
    pub(crate) matrices: &'a Matrices,
    pub(crate) errors: MatrixErrors,
}

/// Encode, for a bone bake: the rest mesh with its joints, and the description; with
/// `babylon`, Babylon.js's file (`--format babylon`) as (JSON, file name), staged before them.
pub(crate) fn encode_bones(made: &BoneMade, settings: &BakeSettings) -> Result<Encoded> {
    let BoneMade { posed, palette, bind: (bind_positions, bind_normals), matrices, errors, .. } = made;
    let (model, entries, rows) = (posed.rig.model(), &posed.entries, &matrices.rows);
    let (max_error, four) = (errors.max_error, &errors.four);
    let glb = bones_mesh::write_glb(&BoneMesh {
        name: &settings.name,
        generator: GENERATOR,
        model,
        positions: bind_positions,
        normals: bind_normals,
        joints: palette.joints(),
        weights: palette.weights(),
        influences: palette.influences(),
        joint_names: palette.sources(model).iter().map(|s| s.name.clone()).collect(),
    })
    .context("cannot encode the rest mesh")?;
    let exports = crate::pipeline::export::files(crate::pipeline::export::Bake::Bones { rows, entries }, settings)?;
    let babylon_file =
        exports.first().map(|(name, _)| name.clone()).filter(|_| settings.format == OutputFormat::Babylon);
    let bones = Bones {
        joints: palette.len() as u32,
        encoding: matrices.encoding,
        decode: match matrices.encoding {
            description::MatrixEncoding::Float32 => description::BONES_DECODE,
            description::MatrixEncoding::Quat16 => description::BONES_DECODE_QUAT16,
        }
        .into(),
        quantization: matrices.quantization.clone(),
        sources: palette.sources(model),
        influences: palette.influences() as u32,
        four_influence_error: four.clone(),
        max_error,
        babylon_file: babylon_file.clone(),
    };
    let mut description = describe_bones(made, &glb, bones, settings);
    description.exports = exports.iter().map(|(name, bytes)| description::ExportFile::of(name, bytes)).collect();
    let description_json = description_json(&description)?;
    Ok(Encoded { glb, lods: Vec::new(), exports, exports_first: true, description, description_json })
}

/// The description of a bone bake whose rest mesh is `glb`.
fn describe_bones(made: &BoneMade, glb: &[u8], bones: Bones, settings: &BakeSettings) -> Description {
    let BoneMade { source, posed, bounds, matrices, .. } = made;
    let (model, entries) = (posed.rig.model(), &posed.entries);
    let (ktx2, width, height) = (&matrices.ktx2, matrices.width, matrices.rows.len());
    Description {
        format: description::FORMAT.into(),
        format_version: description::FORMAT_VERSION,
        generator: GENERATOR.into(),
        source: recorded_source(source, settings),
        animations: source.animations.clone(),
        animation_names: source.animation_names.clone(),
        settings: settings.recorded(),
        axes: gltf_axes(),
        points: model.points.len() as u32,
        rows: height as u32,
        texture: description::Texture {
            file: settings.texture_file(),
            container: description::TextureFormat::Ktx2,
            vk_format: match matrices.encoding {
                description::MatrixEncoding::Float32 => vat_ktx2::VK_FORMAT_R32G32B32A32_SFLOAT,
                description::MatrixEncoding::Quat16 => vat_ktx2::VK_FORMAT_R16G16B16A16_UNORM,
            },
            format: match matrices.encoding {
                description::MatrixEncoding::Float32 => description::TexelFormat::R32G32B32A32Sfloat,
                description::MatrixEncoding::Quat16 => description::TexelFormat::R16G16B16A16Unorm,
            },
            supercompression: description::Supercompression::Zstd,
            width: width as u32,
            height: height as u32,
            bands: 1,
            column_order: description::ColumnOrder::Joints,
            delta: None,
            layers: None,
            layer_height: None,
            bytes: ktx2.len() as u64,
            sha256: Some(description::sha256_hex(ktx2)),
        },
        positions: Positions {
            channels: description::PositionChannels::None,
            encoding: description::PositionEncoding::Bones,
            center: bounds.center.to_array(),
            half_extent: bounds.half_extent.to_array(),
            precision: bones.max_error,
            grid: None,
            max_error: None,
        },
        // "packed", the default, is not written: a bone bake's normals are the rest
        // mesh's, skinned by the player.
        normals: Normals {
            mode: description::NormalsMode::Packed,
            channel: description::NormalsChannel::None,
            encoding: description::NormalsEncoding::Bones,
            max_error_degrees: 0.0,
            first_layer: None,
        },
        mesh: Mesh {
            file: settings.mesh_file(),
            points: model.points.len() as u32,
            triangles: model.triangles.len() as u32,
            sha256: Some(description::sha256_hex(glb)),
        },
        decimation: None,
        lods: Vec::new(),
        bones: Some(bones),
        sockets: Vec::new(),
        target: None,
        exports: Vec::new(),
        clips: entries.to_vec(),
    }
}

/// The array layers of a layered texture; `None` for a plain one.
pub(crate) fn layers_of(layout: &Layout, settings: &BakeSettings) -> Option<crate::features::layers::Layers> {
    Some(crate::features::layers::Layers::of(layout, settings.max_height)).filter(|l| l.count > 1)
}

/// glTF's axes, which every bake's positions are in: +Y up, +Z forward, right-handed, metres.
pub(crate) fn gltf_axes() -> Axes {
    Axes {
        up: description::Axis::PlusY,
        forward: description::Axis::PlusZ,
        handedness: description::Handedness::Right,
        units: description::Units::Metres,
    }
}
