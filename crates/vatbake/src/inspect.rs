//! `vatbake inspect`: what one shipped file holds, read without evaluating
//! anything. A description (`*.vat.json`) is summarized from its JSON and the
//! texture's size on disk; a texture (`*.vat.ktx2`) from its header and
//! key/value data alone, never inflating the image (a 16-bit PNG from its IHDR);
//! a rest mesh (`*.rest.glb`) from its accessors.

use std::collections::BTreeMap;
use std::io::Read;
use std::path::{Path, PathBuf};

use serde::Serialize;

use crate::description::{
    ClipEntry, Decimation, Description, ExportFile, Lod, Mesh, NormalsMode, Settings, Source, TexelFormat, Texture,
    TextureFormat,
};
use crate::error::Error;
use crate::shipped;

/// What kind of file `inspect` was given, and what it holds.
#[derive(Clone, Debug, Serialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Inspection {
    /// A description file.
    Description(Box<DescriptionSummary>),
    /// A texture file.
    Texture(TextureSummary),
    /// A rest-pose mesh.
    RestMesh(RestMeshSummary),
    /// A source model (`.glb` or `.gltf` that is not a `.rest.glb`): what a bake takes.
    Source(Box<SourceSummary>),
}

/// A source model before any bake: its size, scenes, meshes, skins and morph targets,
/// the extensions it uses, each clip with the slot a default bake (the built-in alias
/// table) gives it, and what that bake would write.
#[derive(Clone, Debug, Serialize)]
pub struct SourceSummary {
    /// The file inspected.
    pub file: PathBuf,
    /// Its size in bytes.
    pub bytes: u64,
    /// Scenes in the file (a bake takes the default one, or `--scene`).
    pub scenes: usize,
    /// The scene a bake with no `--scene` takes.
    pub scene: usize,
    /// Meshes in the file.
    pub meshes: usize,
    /// Each mesh with morph targets: how many, and their names when the file gives them.
    pub morphs: Vec<SourceMorphs>,
    /// The glTF extensions the file uses (`extensionsUsed`).
    pub extensions_used: Vec<String>,
    /// Those a reader must support to read it (`extensionsRequired`).
    pub extensions_required: Vec<String>,
    /// Nodes in the chosen scene's file.
    pub nodes: usize,
    /// Points a bake with `--points all` would bake (one texture column each).
    pub points: usize,
    /// Triangles.
    pub triangles: usize,
    /// Skins, and the joints of all of them.
    pub skins: usize,
    /// Joints over all skins.
    pub joints: usize,
    /// The clips in file order.
    pub clips: Vec<SourceClip>,
    /// What the loader worked around (the warnings a bake would print first).
    pub warnings: Vec<String>,
    /// What `vatbake bake` with no flags would write; `None` when it would fail.
    pub default_bake: Option<DefaultBake>,
    /// Why a bake with no flags would fail (what it would print), when it would.
    pub default_bake_error: Option<String>,
}

/// One mesh's morph targets.
#[derive(Clone, Debug, Serialize)]
pub struct SourceMorphs {
    /// The mesh's index in the file.
    pub mesh: usize,
    /// Its name, if it has one.
    pub name: Option<String>,
    /// Morph targets (of its first primitive; glTF gives every primitive the same count).
    pub targets: usize,
    /// Their names (the mesh's `extras.targetNames`, as exporters write them); empty: none given.
    pub target_names: Vec<String>,
}

/// What a bake with no flags would write, from a bake made in memory (the figures are a
/// real bake's, not an estimate; nothing is written).
#[derive(Clone, Debug, Serialize)]
pub struct DefaultBake {
    /// Points baked (texture columns): the default budget of 4000, or every point of a
    /// smaller model, or more to keep every uv island.
    pub points: u32,
    /// Rows of every clip stacked.
    pub rows: u32,
    /// Texture width in texels.
    pub width: u32,
    /// Texture height in texels (of all layers).
    pub height: u32,
    /// The KTX2 texture's bytes.
    pub texture_bytes: u64,
    /// The rest mesh's bytes.
    pub mesh_bytes: u64,
    /// GPU memory the texture takes (raw texel bytes).
    pub gpu_bytes: u64,
    /// Each baked clip (after takes split per node are merged), with its slot and rows.
    pub clips: Vec<DefaultClip>,
    /// The warnings the bake would print, by code and message.
    #[serde(serialize_with = "crate::findings::findings_json")]
    pub warnings: Vec<vat_model::Finding>,
}

/// One clip of a default bake.
#[derive(Clone, Debug, Serialize)]
pub struct DefaultClip {
    /// Its name.
    pub name: String,
    /// The slot it fills; null: none.
    pub slot: Option<String>,
    /// Its rows in the texture.
    pub rows: u32,
}

/// The glTF JSON of a model's bytes (a GLB's JSON chunk), for what the loader does not
/// keep: scenes, meshes, morph target names, extensions.
fn gltf_json(data: &[u8]) -> Option<serde_json::Value> {
    let json = if data.starts_with(b"glTF") { crate::shipped::glb_chunks(data).ok()?.0 } else { data };
    serde_json::from_slice(json).ok()
}

/// A dry bake of `path` with no flags: made in memory, nothing written.
fn default_bake(path: &Path) -> Result<DefaultBake, Error> {
    let folder = path.parent().unwrap_or(Path::new(".")).to_path_buf();
    let settings = crate::BakeOptions::default().settings(path.to_path_buf(), folder)?;
    let report = crate::bake::bake_dry(&settings, &crate::Unwatched)?;
    Ok(DefaultBake {
        points: report.points,
        rows: report.rows,
        width: report.width,
        height: report.height,
        texture_bytes: report.texture_bytes,
        mesh_bytes: report.mesh_bytes,
        gpu_bytes: report.gpu_bytes,
        clips: report
            .description
            .clips
            .iter()
            .map(|c| DefaultClip { name: c.name.clone(), slot: c.slot.clone(), rows: c.rows })
            .collect(),
        warnings: report.warnings,
    })
}

/// One clip of a source model.
#[derive(Clone, Debug, Serialize)]
pub struct SourceClip {
    /// Its name as the bake shows it (unnamed clips get one).
    pub name: String,
    /// Its duration in seconds.
    pub duration_s: f32,
    /// The slot the built-in alias table gives it; null when it fills none.
    pub slot: Option<String>,
}

/// Loads a source model and says what a bake would take from it.
fn source_summary(path: &Path, bytes: u64) -> Result<SourceSummary, Error> {
    let data = vat_gltf::read_file(path).map_err(Error::from)?;
    let loaded = vat_gltf::load(path, &data, &vat_gltf::Options::default()).map_err(Error::from)?;
    let model = &loaded.model;
    let clips: Vec<&vat_model::Clip> = model.clips.iter().collect();
    let names: Vec<Option<&str>> = clips.iter().map(|c| c.name.as_deref().filter(|n| !n.is_empty())).collect();
    let table = crate::slots::Aliases::load(None)?.table;
    let assignment = vat_audit::assign(&names, &table);
    let json = gltf_json(&data).unwrap_or_default();
    let list = |key: &str| json[key].as_array().map_or(&[][..], Vec::as_slice);
    let strings = |key: &str| list(key).iter().filter_map(|v| v.as_str().map(str::to_string)).collect();
    let morphs = list("meshes")
        .iter()
        .enumerate()
        .filter_map(|(index, mesh)| {
            let targets = mesh["primitives"][0]["targets"].as_array().map_or(0, Vec::len);
            (targets > 0).then(|| SourceMorphs {
                mesh: index,
                name: mesh["name"].as_str().map(str::to_string),
                targets,
                target_names: mesh["extras"]["targetNames"]
                    .as_array()
                    .map(|names| names.iter().filter_map(|n| n.as_str().map(str::to_string)).collect())
                    .unwrap_or_default(),
            })
        })
        .collect();
    let (default_bake, default_bake_error) = match default_bake(path) {
        Ok(bake) => (Some(bake), None),
        Err(e) => (None, Some(e.message)),
    };
    Ok(SourceSummary {
        file: path.to_path_buf(),
        bytes,
        scenes: list("scenes").len(),
        scene: json["scene"].as_u64().unwrap_or(0) as usize,
        meshes: list("meshes").len(),
        morphs,
        extensions_used: strings("extensionsUsed"),
        extensions_required: strings("extensionsRequired"),
        nodes: model.nodes.len(),
        points: model.points.len(),
        triangles: model.triangles.len(),
        skins: model.skins.len(),
        joints: model.skins.iter().map(|s| s.joints.len()).sum(),
        clips: clips
            .iter()
            .zip(&assignment.clips)
            .map(|(c, v)| SourceClip {
                name: c.display_name(),
                duration_s: c.duration(),
                slot: v.slot().map(str::to_string),
            })
            .collect(),
        warnings: loaded.warnings.iter().map(|w| w.message.clone()).collect(),
        default_bake,
        default_bake_error,
    })
}

/// A description, with what follows from it.
#[derive(Clone, Debug, Serialize)]
pub struct DescriptionSummary {
    /// The file inspected.
    pub file: PathBuf,
    /// The tool that wrote it.
    pub generator: String,
    /// The source model it was baked from.
    pub source: Source,
    /// The settings of the bake.
    pub settings: Settings,
    /// Points (texture columns before wrapping into bands).
    pub points: u32,
    /// Rows of all clips stacked.
    pub rows: u32,
    /// GPU memory the texture takes (raw texel bytes of every array layer).
    pub gpu_bytes: u64,
    /// Names of the joints the description records per-row transforms of (`--sockets`); absent: none.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub sockets: Vec<String>,
    /// Where the normals are: "packed", "separate" or "none".
    pub normals: NormalsMode,
    /// The texture as recorded.
    pub texture: Texture,
    /// The texture's size on disk, when it is beside the description.
    pub texture_on_disk: Option<u64>,
    /// Bytes of the texels uncompressed: width × height × 8.
    pub raw_bytes: u64,
    /// The recorded texture bytes over `raw_bytes`.
    pub ratio_to_raw: f64,
    /// The rest mesh as recorded.
    pub mesh: Mesh,
    /// The other format's files as recorded (`--format`); absent: none.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub exports: Vec<ExportSummary>,
    /// The lowest corner of the bounds.
    pub bounds_min: [f32; 3],
    /// The highest corner of the bounds.
    pub bounds_max: [f32; 3],
    /// The length of the bounds' diagonal.
    pub diagonal: f32,
    /// The 16-bit position precision, in model units.
    pub precision: f32,
    /// The coarser grid positions were snapped to (`--tolerance`, `--bits`), in steps per axis.
    pub grid: Option<[u32; 3]>,
    /// The normal encoding's largest error, in degrees.
    pub normal_max_error_degrees: f32,
    /// The decimation and its error, if any.
    pub decimation: Option<Decimation>,
    /// The levels of detail as recorded (`--lods`), with each file's size on disk; absent: none.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub lods: Vec<LodSummary>,
    /// A bone bake's matrices (`--mode bones`); absent for a vertex bake.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub bones: Option<BoneSummary>,
    /// The clips, in row order.
    pub clips: Vec<ClipEntry>,
}

/// A bone bake's matrices as recorded, with the error as a share of the diagonal.
#[derive(Clone, Debug, Serialize)]
pub struct BoneSummary {
    /// Matrices per row.
    pub joints: u32,
    /// How they are stored: "float32" or "quat16".
    pub encoding: crate::description::MatrixEncoding,
    /// Texels a joint takes on a row: 4 (float32) or 2 (quat16).
    pub texels_per_joint: u32,
    /// `bones.max_error`: the largest distance of a skinned point from the bake's evaluation.
    pub max_error: f32,
    /// `max_error` over the bounds diagonal (the checks hold 1e-4).
    pub max_error_fraction: f32,
}

/// A texture's header facts.
#[derive(Clone, Debug, Serialize)]
pub struct TextureSummary {
    /// The file inspected.
    pub file: PathBuf,
    /// "ktx2" or "png".
    pub container: TextureFormat,
    /// The KTX2 `vkFormat` (null for a PNG).
    pub vk_format: Option<u32>,
    /// The format's name, when it is the one vatbake writes ("R16G16B16A16_UNORM"), else null.
    pub format: Option<TexelFormat>,
    /// Width in texels.
    pub width: u32,
    /// Height in texels.
    pub height: u32,
    /// Mip levels (KTX2; 1 for a PNG).
    pub levels: u32,
    /// Array layers (KTX2 `layerCount`; 1 for a plain 2D texture or a PNG); `height` is one layer's.
    pub layers: u32,
    /// "zstd", "none", "basislz" or "zlib".
    pub supercompression: &'static str,
    /// The KTX2 key/value pairs with text values (KTXwriter, KTXorientation, …).
    pub key_values: BTreeMap<String, String>,
    /// Size of the file in bytes.
    pub bytes: u64,
    /// Bytes of the texels uncompressed (width × height × 8), for 16-bit RGBA.
    pub raw_bytes: Option<u64>,
    /// `bytes` over `raw_bytes`.
    pub ratio_to_raw: Option<f64>,
}

/// A rest mesh's contents.
#[derive(Clone, Debug, Serialize)]
pub struct RestMeshSummary {
    /// The file inspected.
    pub file: PathBuf,
    /// The tool that wrote it.
    pub generator: Option<String>,
    /// Vertices, the two bounds corners included.
    pub vertices: usize,
    /// Texture columns the vertices read (the baked points).
    pub columns: usize,
    /// Triangles over every primitive.
    pub triangles: usize,
    /// Primitives of the mesh.
    pub primitives: usize,
    /// Materials carried over from the source.
    pub materials: usize,
    /// `POSITION` min: the box around the animation and the rest pose.
    pub bounds_min: [f32; 3],
    /// `POSITION` max.
    pub bounds_max: [f32; 3],
    /// Size of the file in bytes.
    pub bytes: u64,
}

/// What the file's first bytes say it is.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Kind {
    Description,
    Ktx2,
    Png,
    Glb,
}

const KTX2_MAGIC: &[u8] = b"\xABKTX 20\xBB\r\n\x1A\n";
const PNG_MAGIC: &[u8] = b"\x89PNG\r\n\x1a\n";

/// Inspects a description, texture or rest mesh; the kind comes from the file's
/// name (`.json`, `.ktx2`, `.png`, `.glb`), or from its first bytes for any
/// other name. A file that is not what its name says, or none of them, is a
/// usage error naming the file.
///
/// ```no_run
/// match vatbake::inspect::inspect("out/Fox.vat.ktx2".as_ref())? {
///     vatbake::inspect::Inspection::Texture(t) => println!("{}×{} {}", t.width, t.height, t.supercompression),
///     other => println!("{other:?}"),
/// }
/// # Ok::<(), vatbake::Error>(())
/// ```
pub fn inspect(path: &Path) -> Result<Inspection, Error> {
    if let Err(e) = std::fs::symlink_metadata(path) {
        return Err(Error::unreadable(path, "it", &e));
    }
    // A regular file only: a FIFO or a device is refused before anything is read.
    let (mut file, bytes) = shipped::read::open_regular(path, None).map_err(Error::input)?;
    let mut head = Vec::new();
    (&mut file).take(33).read_to_end(&mut head).map_err(|e| Error::unreadable(path, "it", &e))?;
    let sniffed = if head.starts_with(KTX2_MAGIC) {
        Some(Kind::Ktx2)
    } else if head.starts_with(PNG_MAGIC) {
        Some(Kind::Png)
    } else if head.starts_with(b"glTF") {
        Some(Kind::Glb)
    } else if head.iter().find(|b| !b.is_ascii_whitespace()) == Some(&b'{') {
        Some(Kind::Description)
    } else {
        None
    };
    let name = path.file_name().map(|n| n.to_string_lossy().to_lowercase()).unwrap_or_default();
    // A model that is not a rest mesh is a source: what a bake would take from it.
    let is_rest_mesh = name.ends_with(".rest.glb");
    if name.ends_with(".gltf") || (name.ends_with(".glb") && !is_rest_mesh && sniffed == Some(Kind::Glb)) {
        return source_summary(path, bytes).map(|s| Inspection::Source(Box::new(s)));
    }
    let claimed = [(".json", Kind::Description), (".ktx2", Kind::Ktx2), (".png", Kind::Png), (".glb", Kind::Glb)]
        .into_iter()
        .find(|(ending, _)| name.ends_with(ending))
        .map(|(_, kind)| kind);
    let what = |kind: Kind| match kind {
        Kind::Description => "a description (JSON)",
        Kind::Ktx2 => "a KTX2 texture",
        Kind::Png => "a PNG texture",
        Kind::Glb => "a GLB rest mesh",
    };
    let kind = match (claimed, sniffed) {
        (Some(c), Some(s)) if c == s => c,
        (Some(c), Some(s)) => {
            return Err(Error::usage(format!(
                "{}: named like {} but its bytes are {}; rename it or give the right file",
                path.display(),
                what(c),
                what(s)
            )))
        }
        (Some(c), None) => {
            return Err(Error::usage(format!(
                "{}: named like {} but its first bytes are not; it is damaged or not a vatbake output",
                path.display(),
                what(c)
            )))
        }
        (None, Some(s)) => s,
        (None, None) => {
            return Err(Error::usage(format!(
                "{}: not a vatbake output; give a .vat.json, .vat.ktx2 or .rest.glb file",
                path.display()
            )))
        }
    };
    match kind {
        Kind::Description => describe(path).map(|d| Inspection::Description(Box::new(d))),
        Kind::Ktx2 => {
            file = shipped::read::open_regular(path, None).map_err(Error::input)?.0;
            let header = vat_ktx2::read_header_from(&mut file).map_err(|e| {
                Error::usage(format!("{}: not a readable KTX2 texture: {e}; re-bake the unit", path.display()))
            })?;
            Ok(Inspection::Texture(ktx2_summary(path, &header, bytes)))
        }
        Kind::Png => png_summary(path, &head, bytes).map(Inspection::Texture),
        Kind::Glb => {
            let mesh = shipped::read_rest_mesh(path)?;
            Ok(Inspection::RestMesh(RestMeshSummary {
                file: path.to_path_buf(),
                generator: mesh.generator,
                vertices: mesh.positions.len(),
                // The distinct columns the vertices read: the baked points, or a level of
                // detail's subset of them (the two bounds corners read one of theirs, and
                // an optimizer may have dropped them).
                columns: {
                    let mut read: Vec<u32> = mesh.columns.clone();
                    read.sort_unstable();
                    read.dedup();
                    read.len()
                },
                triangles: mesh.triangles.len(),
                primitives: mesh.primitives,
                materials: mesh.materials,
                bounds_min: mesh.min.to_array(),
                bounds_max: mesh.max.to_array(),
                bytes,
            }))
        }
    }
}

/// One file of another tool's format, as the description records it.
#[derive(Clone, Debug, Serialize)]
pub struct ExportSummary {
    /// The file as recorded: name, bytes, SHA-256.
    #[serde(flatten)]
    pub record: ExportFile,
    /// Its size on disk, when it is beside the description.
    pub on_disk: Option<u64>,
}

/// One level of detail, as the description records it.
#[derive(Clone, Debug, Serialize)]
pub struct LodSummary {
    /// The level as recorded: file, points, triangles, error, switch.
    #[serde(flatten)]
    pub record: Lod,
    /// Its size on disk, when it is beside the description.
    pub on_disk: Option<u64>,
}

fn describe(path: &Path) -> Result<DescriptionSummary, Error> {
    let d: Description = shipped::read_description(path)?;
    let bounds = shipped::bounds_of(&d);
    let folder = path.parent().filter(|p| !p.as_os_str().is_empty()).unwrap_or(Path::new("."));
    let texture_on_disk = crate::description::check_file_name(&d.texture.file)
        .ok()
        .and_then(|()| std::fs::metadata(folder.join(&d.texture.file)).ok())
        .map(|m| m.len());
    // RGBA16 texels, or a bone bake's joint matrices: RGBA32F, or RGBA16 under "quat16".
    let texel_bytes = d.bones.as_ref().map_or(8, |b| b.encoding.texel_bytes());
    // Saturating: an edited description's shape must not overflow.
    let raw_bytes = (u64::from(d.texture.width) * u64::from(d.texture.height)).saturating_mul(texel_bytes);
    let gpu_bytes = crate::features::layers::gpu_bytes(&d);
    let bones = d.bones.as_ref().map(|b| BoneSummary {
        joints: b.joints,
        encoding: b.encoding,
        texels_per_joint: b.encoding.texels_per_joint(),
        max_error: b.max_error,
        max_error_fraction: b.max_error / bounds.diagonal().max(f32::MIN_POSITIVE),
    });
    let on_disk = crate::shipped::exports::sizes_on_disk(folder, &d.exports);
    let exports = d
        .exports
        .iter()
        .zip(on_disk)
        .map(|(record, on_disk)| ExportSummary { record: record.clone(), on_disk })
        .collect();
    Ok(DescriptionSummary {
        file: path.to_path_buf(),
        generator: d.generator,
        source: d.source,
        settings: d.settings,
        points: d.points,
        rows: d.rows,
        gpu_bytes,
        sockets: d.sockets.iter().map(|s| s.name.clone()).collect(),
        normals: d.normals.mode,
        texture_on_disk,
        raw_bytes,
        ratio_to_raw: if raw_bytes > 0 { d.texture.bytes as f64 / raw_bytes as f64 } else { 0.0 },
        texture: d.texture,
        mesh: d.mesh,
        exports,
        bounds_min: bounds.min().to_array(),
        bounds_max: bounds.max().to_array(),
        diagonal: bounds.diagonal(),
        precision: d.positions.precision,
        grid: d.positions.grid,
        normal_max_error_degrees: d.normals.max_error_degrees,
        decimation: d.decimation,
        lods: d
            .lods
            .into_iter()
            .map(|record| {
                let on_disk = crate::description::check_file_name(&record.file)
                    .ok()
                    .and_then(|()| std::fs::metadata(folder.join(&record.file)).ok())
                    .map(|m| m.len());
                LodSummary { record, on_disk }
            })
            .collect(),
        bones,
        clips: d.clips,
    })
}

fn ratio(bytes: u64, raw: Option<u64>) -> Option<f64> {
    raw.filter(|&r| r > 0).map(|r| bytes as f64 / r as f64)
}

fn ktx2_summary(path: &Path, header: &vat_ktx2::Ktx2Header, bytes: u64) -> TextureSummary {
    let ours = header.vk_format == vat_ktx2::VK_FORMAT_R16G16B16A16_UNORM;
    let layers = header.layer_count.max(1);
    let raw =
        ours.then(|| (u64::from(header.width) * u64::from(header.height.max(1))).saturating_mul(u64::from(layers) * 8));
    let key_values = header
        .key_values
        .iter()
        .map(|(key, value)| {
            // Each entry's own value, as `value_str` reads it (looking each key up again
            // made a file of many entries take quadratic time).
            let text = value.strip_suffix(&[0]).unwrap_or(value);
            let value = std::str::from_utf8(text).map_or_else(|_| "(binary)".to_string(), str::to_string);
            (key.clone(), value)
        })
        .collect();
    TextureSummary {
        file: path.to_path_buf(),
        container: TextureFormat::Ktx2,
        vk_format: Some(header.vk_format),
        format: ours.then_some(TexelFormat::R16G16B16A16Unorm),
        width: header.width,
        height: header.height,
        levels: header.level_count,
        layers,
        supercompression: match header.supercompression_scheme {
            0 => "none",
            1 => "basislz",
            2 => "zstd",
            3 => "zlib",
            _ => "unknown",
        },
        key_values,
        bytes,
        raw_bytes: raw,
        ratio_to_raw: ratio(bytes, raw),
    }
}

fn png_summary(path: &Path, head: &[u8], bytes: u64) -> Result<TextureSummary, Error> {
    if head.len() < 33 || &head[12..16] != b"IHDR" {
        return Err(Error::usage(format!("{}: a PNG without its IHDR header: damaged", path.display())));
    }
    let be = |at: usize| u32::from_be_bytes([head[at], head[at + 1], head[at + 2], head[at + 3]]);
    let (width, height, depth, colour) = (be(16), be(20), head[24], head[25]);
    let ours = depth == 16 && colour == 6;
    let raw = ours.then(|| u64::from(width) * u64::from(height) * 8);
    Ok(TextureSummary {
        file: path.to_path_buf(),
        container: TextureFormat::Png,
        vk_format: None,
        format: ours.then_some(TexelFormat::R16G16B16A16Unorm),
        width,
        height,
        levels: 1,
        layers: 1,
        supercompression: "none",
        key_values: BTreeMap::new(),
        bytes,
        raw_bytes: raw,
        ratio_to_raw: ratio(bytes, raw),
    })
}
