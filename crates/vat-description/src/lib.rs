//! The description file (`<stem>.vat.json`) that every vatbake bake writes beside its
//! texture and rest mesh: everything a runtime needs to play the texture, and nothing
//! it must guess.
//!
//! What it is for: one home for the file's types, shared by whoever writes it (the
//! bake), checks it (`vat-audit`) or reads it (a game's asset tool). The types are the
//! source of the JSON Schema published as `docs/vat.schema.json` ([`schema_json`];
//! `vatbake schema` prints it), and serialize to the exact bytes the bake writes. With
//! them: the names of a bake's files ([`description_file`], [`texture_file`],
//! [`mesh_file`]), the rule a name must follow ([`check_file_name`]), and how a file's
//! SHA-256 is spelled ([`sha256_hex`]).
//!
//! What it must not depend on: any crate of this workspace but `vat-model` (whose
//! `closed_set!` declares the closed sets of words the description records, and whose
//! `ColumnOrder` it records), a glTF or KTX2 reader, or anything that does I/O. It is
//! plain data with serde, schemars and sha2, so that every crate that needs the
//! description can depend on it without a circle.
//!
//! ```
//! let json = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/tests/Fox.vat.json"))?;
//! let description: vat_description::Description = serde_json::from_str(&json)?;
//! assert_eq!((description.points, description.rows, description.clips.len()), (1728, 162, 3));
//! assert_eq!(description.texture.file, vat_description::texture_file("Fox", vat_description::TextureFormat::Ktx2));
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

#![warn(missing_docs)]

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

pub mod impostor;

/// The value of `format`.
pub const FORMAT: &str = "vatbake.vat";
/// Bumped when a change could break a reader.
pub const FORMAT_VERSION: u32 = 1;

/// The most levels of detail a bake writes (`lods`, files `<name>.lod1.rest.glb` to
/// `<name>.lod8.rest.glb`).
pub const MAX_LODS: usize = 8;

/// A baked vertex animation texture and how to play it.
#[derive(Clone, Debug, Serialize, Deserialize, JsonSchema, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct Description {
    /// Always "vatbake.vat".
    pub format: String,
    /// Version of this file format; readers refuse versions they do not know.
    pub format_version: u32,
    /// The tool and version that wrote the file, e.g. "vatbake 0.1.0".
    pub generator: String,
    /// The source model: its file name, SHA-256 and size.
    pub source: Source,
    /// The files whose clips were played on the source's skeleton (`--animations`), in
    /// order, each recorded as the source is (file name, SHA-256, size, and its place
    /// relative to the description). Absent: every clip is the source's own.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub animations: Vec<Source>,
    /// The name map the `--animations` clips were bound with (`--animation-names`),
    /// recorded as the source is. Absent: none.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub animation_names: Option<Source>,
    /// The settings the bake ran with.
    pub settings: Settings,
    /// The coordinate system of the decoded positions and normals.
    pub axes: Axes,
    /// The engine the bake was made for (`--target`) and its converted texture; absent
    /// for `three`, whose space is the texture's own.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub target: Option<TargetSpace>,
    /// The files another tool's format put beside the bake (`--format openvat`, `vat3`,
    /// `playcanvas`, `babylon`), in the order they were written, each with its size and
    /// SHA-256 as written; absent when the bake wrote none.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub exports: Vec<ExportFile>,
    /// Points of the baked model: one texture column each (before wrapping into bands).
    pub points: u32,
    /// Rows of all clips stacked: the height of one band.
    pub rows: u32,
    /// The texture file and its shape.
    pub texture: Texture,
    /// How the RGB channels decode to positions.
    pub positions: Positions,
    /// How the alpha channel decodes to a normal.
    pub normals: Normals,
    /// The rest-pose mesh whose TEXCOORD_1 addresses the texture.
    pub mesh: Mesh,
    /// How the source was decimated to the baked points, and what it cost; null
    /// when every source point was baked.
    pub decimation: Option<Decimation>,
    /// Coarser rest meshes that play from the same texture (`--lods`), finest first
    /// after `mesh` (which is level 0): each one's points are a subset of the baked
    /// points, its TEXCOORD_1 their columns. Absent without `--lods`.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub lods: Vec<Lod>,
    /// Present on a bone bake (`--mode bones`) only: the texture holds joint
    /// matrices, not points, and the rest mesh is skinned by them.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub bones: Option<Bones>,
    /// Clips in the order their rows are stacked.
    pub clips: Vec<ClipEntry>,
    /// Per-row transforms of the joints named with `--sockets`, for attaching things
    /// (a sword to `hand_r`) without a skeleton; absent without `--sockets`.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub sockets: Vec<Socket>,
}

/// One file of another tool's format (`--format`), as the bake wrote it.
#[derive(Clone, Debug, Serialize, Deserialize, JsonSchema, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct ExportFile {
    /// File name, relative to the description file.
    pub file: String,
    /// Size of the file in bytes.
    pub bytes: u64,
    /// SHA-256 of the file's bytes, lowercase hex.
    pub sha256: String,
}

impl ExportFile {
    /// The record of the file `file` holding `bytes`.
    ///
    /// ```
    /// let record = vat_description::ExportFile::of("Fox.vat", b"abc");
    /// assert_eq!((record.file.as_str(), record.bytes), ("Fox.vat", 3));
    /// assert!(record.sha256.starts_with("ba7816bf"));
    /// ```
    pub fn of(file: &str, bytes: &[u8]) -> Self {
        ExportFile { file: file.to_string(), bytes: bytes.len() as u64, sha256: sha256_hex(bytes) }
    }
}

/// One joint's transform on every row of the band (`--sockets`).
#[derive(Clone, Debug, Serialize, Deserialize, JsonSchema, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct Socket {
    /// The joint's node name, as given to `--sockets`.
    pub name: String,
    /// Index of the joint's node in the source glTF's `nodes`.
    pub node: u32,
    /// One entry per row of the band (`rows` of them, the same row indexing as the
    /// texture: clip `c`'s row `k` is entry `c.row + k`): `[tx, ty, tz, qx, qy, qz, qw]`,
    /// the joint's world translation and rotation (a unit quaternion) in the space of
    /// the decoded positions (root motion taken out under `root_motion` "extract" or
    /// "zero"). The joint's scale is not recorded.
    pub rows: Vec<[f32; 7]>,
}

/// A bone bake (`--mode bones`): per row, one matrix per joint; a player skins the
/// rest mesh (bind-space POSITION and NORMAL, JOINTS_0/WEIGHTS_0, and
/// JOINTS_1/WEIGHTS_1 when `influences` is 8) with them, as glTF skins.
#[derive(Clone, Debug, Serialize, Deserialize, JsonSchema, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct Bones {
    /// Matrices per row (the texture is 4 × joints texels wide, 2 × joints under
    /// "quat16"): every skin's joints in skin order, then one per node whose mesh moves unskinned.
    pub joints: u32,
    /// "float32": the texture is `R32G32B32A32_SFLOAT`, the matrices as they were
    /// computed; "quat16": `R16G16B16A16_UNORM`, each matrix as translation, uniform
    /// scale and rotation, 16 bits each, within `quantization`'s ranges.
    pub encoding: MatrixEncoding,
    /// The decode in words ([`BONES_DECODE`], or [`BONES_DECODE_QUAT16`]).
    pub decode: String,
    /// Under "quat16": the ranges the 16-bit values span; absent under "float32".
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub quantization: Option<BoneQuantization>,
    /// Where each matrix comes from, in texture order.
    pub sources: Vec<JointSource>,
    /// Influences per vertex in the rest mesh: 4 (JOINTS_0/WEIGHTS_0) or 8
    /// (JOINTS_1/WEIGHTS_1 as well), as many as the source uses.
    pub influences: u32,
    /// With 8 influences: what a player that reads only the strongest 4
    /// (renormalized) loses against all of them, over the measured rows; null with 4.
    pub four_influence_error: Option<InfluenceError>,
    /// Largest distance, over every row and point, between the rest mesh skinned by
    /// the texture's matrices and the bake's own evaluation, in model units.
    pub max_error: f32,
    /// The Babylon.js file (`--format babylon`), `<name>.babylon.json`, or null.
    pub babylon_file: Option<String>,
}

/// The ranges of a "quat16" bone bake's 16-bit values: value = min + code / 65535 × (max − min).
#[derive(Clone, Debug, Serialize, Deserialize, JsonSchema, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct BoneQuantization {
    /// The smallest translation of any matrix on any row, per axis.
    pub translation_min: [f32; 3],
    /// The largest, per axis.
    pub translation_max: [f32; 3],
    /// The smallest uniform scale (the cube root of the 3×3 part's determinant).
    pub scale_min: f32,
    /// The largest.
    pub scale_max: f32,
}

/// The source of one matrix of a bone bake.
#[derive(Clone, Debug, Serialize, Deserialize, JsonSchema, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct JointSource {
    /// The glTF node whose transform it is.
    pub node: u32,
    /// The node's name, or null.
    pub name: Option<String>,
    /// `[skin, joint]` for a skin joint (`world(joint) · inverseBindMatrix`); null
    /// for a node's world matrix (a mesh without skin, or skinned vertices with no weight).
    pub skin_joint: Option<[u32; 2]>,
}

/// Position error of skinning with fewer influences.
#[derive(Clone, Debug, Serialize, Deserialize, JsonSchema, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct InfluenceError {
    /// Largest distance, in model units.
    pub max: f32,
    /// Mean distance over the points with more than 4 influences, in model units.
    pub mean: f32,
    /// `max` over the bounds diagonal.
    pub max_fraction: f32,
    /// Rows measured.
    pub rows_measured: u32,
}

/// The words of [`Bones::decode`].
pub const BONES_DECODE: &str = "row r of the texture is frame r; texels 4*j .. 4*j+3 of the row are the \
    columns of joint j's 4x4 matrix (x axis, y axis, z axis, translation; w is 0, 0, 0, 1); \
    position = sum over the vertex's influences of weight * matrix[JOINTS] * (POSITION, 1); \
    normal = the same blend's inverse transpose times NORMAL, normalized";

/// The words of [`Bones::decode`] under "quat16".
pub const BONES_DECODE_QUAT16: &str = "row r of the texture is frame r; texels 2*j and 2*j+1 of the row are joint \
    j; each channel c is 16-bit unsigned normalized (v = c / 65535); texel 2*j: translation = \
    quantization.translation_min + v.rgb * (translation_max - translation_min), scale s = \
    quantization.scale_min + v.a * (scale_max - scale_min); texel 2*j+1: the unit quaternion \
    (x, y, z, w) = v * 2 - 1, normalized; matrix = translation * rotation(quaternion) * s; \
    position = sum over the vertex's influences of weight * matrix[JOINTS] * (POSITION, 1); \
    normal = the same blend's inverse transpose times NORMAL, normalized";

/// The model the texture was baked from.
#[derive(Clone, Debug, Serialize, Deserialize, JsonSchema, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct Source {
    /// File name of the source model, as given on the command line (its last component).
    pub file: String,
    /// SHA-256 of the source file's bytes, lowercase hex (external buffers not included).
    pub sha256: String,
    /// Size of the source file in bytes.
    pub bytes: u64,
    /// Where the source was, relative to the description's folder, with `/` between
    /// the parts and ending in `file` (`../fixtures/Fox/Fox.glb`), so that `verify`
    /// and `audit` find it after a bake into any folder; absent when there is no such
    /// path (another drive) and in files written before it was recorded, where the
    /// readers look beside the description and one folder up.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub path: Option<String>,
}

impl Source {
    /// The source's place relative to a description in `folder`: `path` when it is a
    /// relative path that ends in `file` (anything else in that field is ignored).
    pub fn recorded_path(&self, folder: &std::path::Path) -> Option<std::path::PathBuf> {
        let path = self.path.as_deref()?;
        let parts: Vec<&str> = path.split('/').collect();
        let plain = parts.iter().all(|p| !p.is_empty() && *p != "." && !p.contains(['\\', ':']));
        let relative = plain && !path.starts_with('/') && parts.last() == Some(&self.file.as_str());
        relative.then(|| parts.iter().fold(folder.to_path_buf(), |at, p| at.join(p)))
    }
}

/// The settings the bake ran with (after defaults were applied).
#[derive(Clone, Debug, Serialize, Deserialize, JsonSchema, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct Settings {
    /// Target sampling rate in rows per second; with `fps_tolerance` (`--fps auto`), the
    /// highest rate a clip may be given and the rate of the true pose it is held to.
    pub fps: f32,
    /// `--fps auto`: each clip got the lowest whole rate (1 to `fps` rows per second)
    /// at which the linear interpolation between its rows stays within this fraction of
    /// the animation bounds' diagonal of the true pose at every `1 / fps` s, over every
    /// point (`clips[i].auto_rate`). Absent: every clip at `fps`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub fps_tolerance: Option<f32>,
    /// Cap on rows per clip, if one was set.
    pub max_frames: Option<u32>,
    /// Widest texture allowed; wider point sets wrap into bands.
    pub max_width: u32,
    /// Point budget: a number, or "all".
    pub points: String,
    /// Clips asked for by name, or null for every clip.
    pub clips: Option<Vec<String>>,
    /// Zstandard level of the texture's supercompression.
    pub zstd_level: i32,
    /// Whether Zstandard's long-distance matching with a 128 MiB window was on
    /// (`--smallest`). Absent from files written before the setting existed: false.
    #[serde(default)]
    pub zstd_long: bool,
    /// Scene index baked, or null for the document's default scene.
    pub scene: Option<u32>,
    /// Joint influences kept per point (--max-influences); absent: every one the source has, up to 8.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_influences: Option<u32>,
    /// SHA-256 of the alias table that gave the clips their slots (the built-in table's
    /// bytes, or those of the file passed with --aliases), lowercase hex.
    pub aliases_sha256: String,
    /// How animations that one take was split into (one per node) were merged back:
    /// "auto" (the default: same take name or all unnamed, same time range, no shared
    /// target), "always" (`--merge-clips`: any names) or "never" (`--no-merge-clips`).
    /// Absent from files written before the setting existed, which merged nothing:
    /// read as "never".
    #[serde(default = "merge_clips_absent")]
    pub merge_clips: MergeClips,
    /// The order of the texture's columns asked for (`--column-order`): "spatial"
    /// (the default) or "source"; `texture.column_order` says the same. Absent from
    /// files written before the setting existed, which kept the source's order:
    /// read as "source".
    #[serde(default = "column_order_absent")]
    pub column_order: ColumnOrder,
    /// The delta the texture's rows are stored under (`--delta`): "second" (the
    /// default for KTX2), "row", or "none" (not written: the texels as a shader reads
    /// them; always so for a PNG); `texture.delta` says how to undo it.
    #[serde(default, skip_serializing_if = "is_no_delta")]
    pub delta: Delta,
    /// `--tolerance`: positions snapped to the coarsest grid within this distance, in
    /// model units (`positions.grid` is the grid it gave). Absent: full precision.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tolerance: Option<f32>,
    /// `--bits`: significant bits kept per position axis. Absent: 16, every step.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub bits: Option<u32>,
    /// The other tool's format written beside the bake (`--format`): "openvat", "vat3"
    /// or "playcanvas"; absent for the bake's own files alone (docs/targets/).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub format: Option<String>,
    /// `--loop-rows`: each looping clip whose last row is not already its first got a
    /// copy of its first row appended (`clips[i].loop_row`). Absent: false.
    #[serde(default, skip_serializing_if = "is_false")]
    pub loop_rows: bool,
    /// The joints asked for with `--sockets`, in that order; absent: none.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub sockets: Vec<String>,
    /// `--root-motion` for every clip not named in `root_motion_clips`: "keep" (the
    /// default, not written), "extract" or "zero".
    #[serde(default, skip_serializing_if = "is_keep")]
    pub root_motion: RootMotionMode,
    /// Per-clip `--root-motion CLIP=MODE` overrides, by clip name; absent: none.
    #[serde(default, skip_serializing_if = "std::collections::BTreeMap::is_empty")]
    pub root_motion_clips: std::collections::BTreeMap<String, RootMotionMode>,
    /// `--animation-translations`: which translation tracks of `--animations` clips play:
    /// "all" (the default, not written: as three.js plays them) or "root".
    #[serde(default, skip_serializing_if = "is_all")]
    pub animation_translations: AnimationTranslations,
    /// Tallest texture (or array layer) allowed (`--max-size WxH`, `--device`);
    /// taller textures are split into array layers (`texture.layers`). Absent: no bound.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_height: Option<u32>,
    /// `--normals`: "packed" (the default, not written), "separate" or "none".
    #[serde(default, skip_serializing_if = "is_packed")]
    pub normals: NormalsMode,
    /// What the texture holds (`--mode`): "vertices" (not written: every point on
    /// every row) or "bones" (joint matrices; `bones` in the description).
    #[serde(default, skip_serializing_if = "is_vertex_mode")]
    pub mode: BakeMode,
    /// `--lods`: the levels of detail asked for, points or fractions of the baked
    /// points, comma-separated (`"1000,250"`, `"0.5,0.25"`); absent: none.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub lods: Option<String>,
    /// `--rest-mesh`: how the rest GLB stores its vertices and triangles: "plain" (the
    /// default, not written: floats and plain indices) or "meshopt"
    /// (`EXT_meshopt_compression`, normals as normalized 16-bit integers under `KHR_mesh_quantization`).
    #[serde(default, skip_serializing_if = "is_plain_mesh")]
    pub rest_mesh: RestMeshEncoding,
    /// `--bone-encoding` of a bone bake: "float32" (the default, not written) or
    /// "quat16" (16-bit translation, scale and quaternion). What was asked for:
    /// `bones.encoding` says what the texture holds (float32 when a rig's matrices
    /// do not fit the 16-bit form).
    #[serde(default, skip_serializing_if = "is_float_bones")]
    pub bone_encoding: MatrixEncoding,
}

fn is_float_bones(encoding: &MatrixEncoding) -> bool {
    *encoding == MatrixEncoding::Float32
}

fn is_plain_mesh(encoding: &RestMeshEncoding) -> bool {
    *encoding == RestMeshEncoding::Plain
}

fn is_false(value: &bool) -> bool {
    !*value
}

fn is_keep(mode: &RootMotionMode) -> bool {
    *mode == RootMotionMode::Keep
}

fn is_packed(mode: &NormalsMode) -> bool {
    *mode == NormalsMode::Packed
}

fn is_vertex_mode(mode: &BakeMode) -> bool {
    *mode == BakeMode::Vertices
}

fn column_order_absent() -> ColumnOrder {
    ColumnOrder::Source
}

fn is_no_delta(delta: &Delta) -> bool {
    *delta == Delta::None
}

/// How to get the texels a shader reads back from a texture stored under a delta
/// (`--delta row|second`). Each band's rows are the clips' rows stacked; within
/// each clip of each band, pass `j` (1 to `order`) replaced every row from the
/// clip's row `j` on (counting from 0) by itself minus the row above it, per u16
/// channel, modulo 65536. Undo: for `j` from `order` down to 1, for each clip of
/// each band, for `k` from `j` to the clip's last row, in increasing order,
/// `row[k] = (row[k] + row[k − 1]) mod 65536` (a running sum), channel by channel.
/// The result is exactly the texels of a bake with `--delta none`.
#[derive(Clone, Debug, Serialize, Deserialize, JsonSchema, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct TextureDelta {
    /// "row" (order 1) or "second" (order 2).
    pub mode: Delta,
    /// How many running sums down each clip's rows undo it: 1 or 2.
    pub order: u32,
    /// The undo in words, for a reader of the file.
    pub decode: String,
    /// How the differences' bytes are arranged ([`DeltaLayout`]); absent: "interleaved",
    /// the differences as RGBA16 texels, which `decode` alone undoes.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub layout: Option<DeltaLayout>,
    /// With `layout` "planes" or "planes-ref": the rows of each block of planes (the
    /// last block of each image may be shorter).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub block_rows: Option<u32>,
    /// With `layout` "planes" or "planes-ref": its undo in words, done before `decode`'s.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub layout_decode: Option<String>,
    /// With `layout` "planes-ref": each column's reference columns, base64 (RFC 4648,
    /// with padding) of `2 * width` bytes: first, per texel column x, how many columns
    /// to its left the column is that R, G and B are predicted from (0: none); then the
    /// same for the alpha's two bytes. Every value is at most x and at most 16
    /// (`MAX_REFERENCE`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub references: Option<String>,
}

/// The farthest a "planes-ref" column's reference lies to its left.
pub const MAX_REFERENCE: u8 = 16;

/// The words of [`TextureDelta::decode`].
pub const DELTA_DECODE: &str = "for j = order down to 1: within each clip of each band, for k = j to clip.rows-1 \
    in increasing order, texture row band*rows+clip.row+k += the row above it, per u16 channel, modulo 65536";

/// The words of [`TextureDelta::decode`] with `layout` "planes": the RGB channels as
/// [`DELTA_DECODE`], the alpha's two bytes each by one running sum modulo 256.
pub const DELTA_DECODE_PLANES: &str = "R, G, B: for j = order down to 1: within each clip of each band, for k = j to \
    clip.rows-1 in increasing order, texture row band*rows+clip.row+k += the row above it, per u16 channel, modulo \
    65536; A: within each clip of each band, for k = 1 to clip.rows-1, its high byte and its low byte each += the \
    row above's, modulo 256";

/// The words of [`TextureDelta::layout_decode`].
pub const LAYOUT_DECODE_PLANES: &str = "each image (the positions; with normals \"separate\" the normals) is cut from \
    its first row into blocks of block_rows rows (the last shorter); a block of n rows holds its n*width texels as \
    eight planes of n*width bytes, in order R high bytes, R low, G high, G low, B high, B low, A high, A low, texels \
    row by row; then per texel, R, G and B: v = (z >> 1) xor -(z & 1) (zigzag, u16), and A's two bytes each \
    b = (z >> 1) xor -(z & 1) (zigzag, u8); then per row, for x = 1 to width-1 in increasing order, R, G and B of \
    texel x += those of texel x-1, modulo 65536";

/// The words of [`TextureDelta::layout_decode`] with `layout` "planes-ref": as
/// [`LAYOUT_DECODE_PLANES`], each column predicted from the one its reference names.
pub const LAYOUT_DECODE_PLANES_REF: &str = "as \"planes\" up to the zigzag; then per row, for x = 1 to width-1 in \
    increasing order, with r = references[x] and a = references[width+x] (the base64 bytes): if r > 0, R, G and B of \
    texel x += those of texel x-r, modulo 65536; if a > 0, A's two bytes each += those of texel x-a, modulo 256";

vat_model::closed_set! {
    /// How a delta texture's bytes are arranged (`texture.delta.layout`).
    #[derive(Default)]
    pub enum DeltaLayout {
        /// RGBA16 texels holding the differences.
        #[default]
        Interleaved = "interleaved",
        /// The differences further predicted (R, G, B from the texel to the left; the
        /// alpha's two bytes apart), zigzagged, and their bytes in eight planes per
        /// block of rows: what a byte compressor sees as runs of alike bytes.
        Planes = "planes",
        /// As "planes", each column predicted from the column its reference names
        /// (`texture.delta.references`) instead of the one to its left: the point among
        /// the nearest columns that moves most alike.
        PlanesRef = "planes-ref",
    }
}

impl DeltaLayout {
    /// Whether the bytes are in planes ("planes" or "planes-ref").
    pub fn in_planes(self) -> bool {
        self != DeltaLayout::Interleaved
    }

    /// The words of [`TextureDelta::decode`] under this layout.
    pub fn delta_decode(self) -> &'static str {
        if self.in_planes() {
            DELTA_DECODE_PLANES
        } else {
            DELTA_DECODE
        }
    }

    /// The words of [`TextureDelta::layout_decode`]: none for "interleaved".
    pub fn layout_decode(self) -> Option<&'static str> {
        match self {
            DeltaLayout::Interleaved => None,
            DeltaLayout::Planes => Some(LAYOUT_DECODE_PLANES),
            DeltaLayout::PlanesRef => Some(LAYOUT_DECODE_PLANES_REF),
        }
    }
}

fn merge_clips_absent() -> MergeClips {
    MergeClips::Never
}

/// The coordinate system of the positions and normals in the texture.
#[derive(Clone, Debug, Serialize, Deserialize, JsonSchema, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct Axes {
    /// "+y": glTF's up axis, unchanged.
    pub up: Axis,
    /// "+z": the direction a glTF model faces.
    pub forward: Axis,
    /// "right": right-handed coordinates.
    pub handedness: Handedness,
    /// "metres" (glTF's unit), as the source scene has them.
    pub units: Units,
}

/// One engine's space (`--target`): how its glTF importer leaves the rest mesh, and the
/// texels converted to match.
#[derive(Clone, Debug, Serialize, Deserialize, JsonSchema, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct TargetSpace {
    /// "babylon", "playcanvas", "godot", "unity" or "unreal".
    pub name: String,
    /// Engine axis by engine axis, the glTF axis it is: ["-x", "+y", "+z"] for Unity,
    /// ["+x", "+z", "+y"] for Unreal.
    pub axes_from_gltf: [Axis; 3],
    /// Engine units per metre (100 for Unreal's centimetres).
    pub scale: f32,
    /// The engine's up axis ("+y", "+z").
    pub up: Axis,
    /// "right" or "left" (Babylon.js: right-handed object space under its glTF
    /// loader's `__root__` node, which turns the scene left-handed).
    pub handedness: Handedness,
    /// "metres" or "centimetres".
    pub units: Units,
    /// Where the engine's v = 0 is on an image: "top" or "bottom".
    pub uv_origin: UvOrigin,
    /// The file holding the converted texels (the bake's own texture when the conversion
    /// is the identity).
    pub texture: String,
    /// Its container: "exr" (32-bit floats holding t / 65535, every bit of the 16-bit
    /// texel) or the bake's own ("ktx2", or "png").
    pub container: TargetContainer,
    /// Decode inputs in the engine's space: position = (rgb · 2 − 1) · half_extent + center,
    /// rgb as 0…1.
    pub center: [f32; 3],
    /// Half the box's size along each engine axis.
    pub half_extent: [f32; 3],
    /// Low corner of every frame's box, in the engine's space.
    pub bounds_min: [f32; 3],
    /// High corner of every frame's box, in the engine's space.
    pub bounds_max: [f32; 3],
    /// SHA-256 of `texture` when it is a file of its own, lowercase hex.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sha256: Option<String>,
}

/// The texture file and its shape.
#[derive(Clone, Debug, Serialize, Deserialize, JsonSchema, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct Texture {
    /// File name, relative to the description file.
    pub file: String,
    /// "ktx2", or "png" for the 16-bit PNG fallback.
    pub container: TextureFormat,
    /// Vulkan format number: 91 (VK_FORMAT_R16G16B16A16_UNORM), or 109
    /// (VK_FORMAT_R32G32B32A32_SFLOAT) in a bone bake.
    pub vk_format: u32,
    /// "R16G16B16A16_UNORM" ("R32G32B32A32_SFLOAT" in a bone bake).
    pub format: TexelFormat,
    /// "zstd" for KTX2 with Zstandard supercompression, "none" otherwise.
    pub supercompression: Supercompression,
    /// Width in texels: one column per point, `ceil(points / bands)` with several bands.
    pub width: u32,
    /// Height in texels: `bands · rows`.
    pub height: u32,
    /// Bands the columns are wrapped into; 1 when the points fit in one row of texels.
    /// More bands share the columns evenly: `width = ceil(points / bands)`.
    pub bands: u32,
    /// Which point each column holds: "source" (column `i` is point `i`, the rest
    /// mesh's vertex `i`) or "spatial" (the points sorted by the Morton code of their
    /// rest-pose position, which compresses better). Either way each rest-mesh
    /// vertex's TEXCOORD_1 addresses its column: a player that samples by
    /// TEXCOORD_1 needs nothing else. Absent from files written before the field
    /// existed: read as "source". A bone bake's is "joints".
    #[serde(default = "column_order_absent")]
    pub column_order: ColumnOrder,
    /// The delta the rows are stored under, and how to undo it on load; absent: the
    /// texels are stored as a shader reads them. Stock KTX2 readers load either
    /// (it is an ordinary RGBA16 texture); only the undo turns a delta's texels
    /// into positions and normals.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub delta: Option<TextureDelta>,
    /// Array layers the logical texture (`width × height`) is split into, when it is
    /// taller than `settings.max_height`: logical row `y` is row `y mod layer_height` of
    /// layer `floor(y / layer_height)`; the last layer is padded with zero rows. The
    /// KTX2's `layerCount` is this (twice this with `normals.mode` "separate").
    /// Absent: 1 (a plain 2D texture).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub layers: Option<u32>,
    /// Rows per array layer (the KTX2's `pixelHeight`): `ceil(height / layers)`.
    /// Absent: `height`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub layer_height: Option<u32>,
    /// Size of the texture file in bytes.
    pub bytes: u64,
    /// SHA-256 of the texture file's bytes, lowercase hex: the description, renamed into
    /// place after the texture, names the texture it belongs to, so a texture left from
    /// another bake (a bake killed between its renames) is found out. Absent from
    /// descriptions that do not record it; then only the size and header are checked.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sha256: Option<String>,
}

/// How RGB decode to positions: `p = (rgb / 65535 · 2 − 1) · half_extent + center`.
#[derive(Clone, Debug, Serialize, Deserialize, JsonSchema, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct Positions {
    /// "rgb" ("none" in a bone bake).
    pub channels: PositionChannels,
    /// "unorm16" ("bones" in a bone bake: the rest mesh skinned by the matrices).
    pub encoding: PositionEncoding,
    /// Centre of the bounds over every row of every clip.
    pub center: [f32; 3],
    /// Half-size of those bounds per axis (0 on a flat axis).
    pub half_extent: [f32; 3],
    /// Largest position error the 16-bit encoding can make with these bounds (half a
    /// step on every axis: `|half_extent| / 65535`, or half a grid cell on every axis
    /// with `grid`), in model units.
    pub precision: f32,
    /// With `--tolerance` or `--bits`: the grid positions were snapped to, in 16-bit
    /// steps per axis (powers of two): every stored value is a multiple of its axis's
    /// cell, or 65535. Decoding is unchanged. Absent: every step.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub grid: Option<[u32; 3]>,
    /// With `grid`: the largest distance measured between an evaluated position and
    /// its decoded texel over every point and row, in model units (at most `precision`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_error: Option<f32>,
}

/// Where the normals are and how they decode.
#[derive(Clone, Debug, Serialize, Deserialize, JsonSchema, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct Normals {
    /// "packed" (octahedral 8 + 8 in the position texels' alpha), "separate" (octahedral
    /// 16 + 16 in the R and G of their own array layers) or "none" (not stored: the
    /// alpha holds 0 and a runtime uses the rest mesh's NORMAL or flat normals).
    /// Absent: "packed".
    #[serde(default, skip_serializing_if = "is_packed")]
    pub mode: NormalsMode,
    /// "a" (packed), "rg" (separate) or "none" (also a bone bake's).
    pub channel: NormalsChannel,
    /// "octahedral_8_8" (packed): high byte octahedral x, low byte y, each
    /// `b / 255 · 2 − 1`; "octahedral_16_16" (separate): R is x, G is y, each
    /// `v / 65535 · 2 − 1`; "none"; "bones" (a bone bake: the rest mesh's NORMAL, skinned).
    pub encoding: NormalsEncoding,
    /// Largest angle the encoding can put between a normal and its decoded value, in
    /// degrees (0.96 for octahedral 8 + 8 with nearest rounding, 0.004 for 16 + 16;
    /// 0 with no normals stored).
    pub max_error_degrees: f32,
    /// "separate": the first KTX2 array layer holding normals (`texture.layers`, or 1):
    /// normal layer `l` holds the normals of position layer `l − first_layer`, texel
    /// for texel. Absent otherwise.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub first_layer: Option<u32>,
}

/// The rest-pose mesh whose TEXCOORD_1 addresses the texture.
#[derive(Clone, Debug, Serialize, Deserialize, JsonSchema, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct Mesh {
    /// File name of the GLB, relative to the description file.
    pub file: String,
    /// Points that map to texture columns (the GLB adds two unreferenced bounds corners after them).
    pub points: u32,
    /// Triangles of the rest-pose mesh.
    pub triangles: u32,
    /// SHA-256 of the GLB file's bytes, lowercase hex, as for the texture; absent from
    /// descriptions that do not record it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sha256: Option<String>,
}

/// The decimation of the source to the baked points (`vat-decimate`), and its
/// error: the distance from every point of the full-resolution model to the
/// surface of the baked one, both evaluated at the same times.
#[derive(Clone, Debug, Serialize, Deserialize, JsonSchema, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct Decimation {
    /// Points of the source model.
    pub source_points: u32,
    /// Points baked (the same as `points`).
    pub points: u32,
    /// Triangles of the source model.
    pub source_triangles: u32,
    /// Edge of the clustering grid's cells in the bind pose, in model units; 0
    /// when only identical vertices were merged.
    pub cell_size: f32,
    /// Largest distance from a full-resolution point to the baked surface over
    /// the measured rows, in model units.
    pub max_error: f32,
    /// Mean of those distances, in model units.
    pub mean_error: f32,
    /// `max_error` over the diagonal of the animation bounds.
    pub max_error_fraction: f32,
    /// `mean_error` over the diagonal of the animation bounds.
    pub mean_error_fraction: f32,
    /// Rows the error was measured on: 8 shared evenly between the clips (at
    /// least one each), at the middles of equal spans of each clip (see
    /// `vat_decimate::measured_rows`).
    pub rows_measured: u32,
}

/// One coarser level of the rest mesh (`--lods`): a simplification of the baked mesh
/// whose vertices are a subset of its points, so it plays from the same texture
/// through its own TEXCOORD_1 (each vertex's column, as in `mesh`); no texel of its own.
#[derive(Clone, Debug, Serialize, Deserialize, JsonSchema, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct Lod {
    /// File name of the GLB, relative to the description file: `<name>.lod<N>.rest.glb`,
    /// N from 1 (`mesh.file` is level 0).
    pub file: String,
    /// Points the level keeps, each one texture column of the bake (the GLB adds two
    /// unreferenced bounds corners after them).
    pub points: u32,
    /// Triangles of the level.
    pub triangles: u32,
    /// SHA-256 of the GLB file's bytes, lowercase hex.
    pub sha256: String,
    /// Largest distance between the level's surface and the finest bake's over every
    /// row of every clip, in model units: each baked point to the level's nearest
    /// triangle, and each level triangle's corners, edge midpoints and centroid to the
    /// finest surface's nearest triangle (the larger of the two), positions as the
    /// texture decodes them.
    pub max_error: f32,
    /// Mean of those distances, in model units.
    pub mean_error: f32,
    /// `max_error` over the diagonal of the animation bounds.
    pub max_error_fraction: f32,
    /// `mean_error` over the diagonal of the animation bounds.
    pub mean_error_fraction: f32,
    /// Rows the error was measured on: every row of every clip.
    pub rows_measured: u32,
    /// When the level may be shown, at the stated pixel tolerance.
    pub switch: LodSwitch,
}

/// When a level may replace the finer ones: its `max_error` projects to at most
/// `pixels` on a screen `screen_height` pixels tall.
#[derive(Clone, Debug, Serialize, Deserialize, JsonSchema, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct LodSwitch {
    /// The largest projected error allowed, in pixels.
    pub pixels: f32,
    /// The screen's height in pixels the tolerance is stated at.
    pub screen_height: u32,
    /// The vertical field of view `distance` is stated at, in degrees.
    pub vertical_fov_degrees: f32,
    /// The level may be shown while the animation bounds' diagonal covers at most this
    /// fraction of the screen's height, at any field of view:
    /// `pixels / (screen_height × max_error_fraction)`.
    pub screen_fraction: f32,
    /// The nearest distance from the camera, in model units, at which the level may be
    /// shown with a perspective camera of `vertical_fov_degrees`:
    /// `max_error × screen_height / (2 × pixels × tan(fov / 2))`.
    pub distance: f32,
}

/// One clip's rows in the texture.
#[derive(Clone, Debug, Serialize, Deserialize, JsonSchema, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct ClipEntry {
    /// The source clip's name (`animation_<n>` when it has none).
    pub name: String,
    /// Index of the animation in the source file (the first one, for a merged take).
    pub source_index: u32,
    /// For a clip merged from several source animations (one take split per node):
    /// the index of each in the source file, in source order, `source_index` first.
    /// Absent for a clip that is one source animation. A player of the source plays
    /// all of them together to see this clip.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub merged_from: Vec<u32>,
    /// The file the clip comes from: an index into the description's `animations`
    /// (`source_index` is then that file's animation). Absent: the source.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub animations_file: Option<u32>,
    /// The game slot this clip fills, or null when unassigned.
    pub slot: Option<String>,
    /// First row of the clip (within a band).
    pub row: u32,
    /// Number of rows.
    pub rows: u32,
    /// Length of the clip in seconds; always > 0.
    pub duration: f32,
    /// Rows per second: row k shows time k / rate; always > 0.
    pub rate: f32,
    /// Whether the clip ends where it starts (last row within 1% of the bounds diagonal of the first).
    #[serde(rename = "loop")]
    pub looping: bool,
    /// `--loop-rows`: the clip's last row is a bit-for-bit copy of its first, appended
    /// one row period after the source's last sampled row (`t` = the source's
    /// duration), so a player wrapping `t mod duration` interpolates from the source's
    /// end pose into its first with no jump. `rows` counts it, `duration` includes its
    /// `1 / rate` and `rate = (rows − 1) / duration` still holds. Absent: false.
    #[serde(default, skip_serializing_if = "is_false")]
    pub loop_row: bool,
    /// The root's motion taken out of the texels (`--root-motion extract|zero`);
    /// absent: kept in the texels.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub root_motion: Option<RootMotion>,
    /// `--fps auto`: the rate chosen for this clip and what it keeps; absent: the clip
    /// is at `settings.fps`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub auto_rate: Option<AutoRate>,
}

/// One clip's rate under `--fps auto` (`settings.fps_tolerance`).
#[derive(Clone, Debug, Serialize, Deserialize, JsonSchema, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct AutoRate {
    /// The rate the row rule was given for this clip (`rows = round(duration × fps) + 1`,
    /// then `--max-frames`): the lowest whole rate within the tolerance, at most
    /// `settings.fps`. `rate` is what the rule made of it.
    pub fps: f32,
    /// The largest distance, in model units, between the linear interpolation of the
    /// clip's rows (as evaluated, before 16-bit quantization) and the true pose, over
    /// every point at every `1 / settings.fps` s of the clip: within the tolerance, unless
    /// even `settings.fps` rows per second are not.
    pub max_error: f32,
}

/// A clip's root motion, taken out of its texels. The root is the skin's `skeleton`
/// node, else the nearest common ancestor of its joints (the first skin's). Its
/// horizontal (x, z) world translation relative to the clip's first row is
/// subtracted from every point on every row, so the clip plays in place.
#[derive(Clone, Debug, Serialize, Deserialize, JsonSchema, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct RootMotion {
    /// "extract" (recorded below) or "zero" (dropped).
    pub mode: RootMotionMode,
    /// The root's node index in the source glTF.
    pub node: u32,
    /// "extract": one `[x, 0, z]` per row of the clip (`rows` of them): what was
    /// subtracted; a decoded position plus its row's translation is the position the
    /// source has. A player moves the instance by it. Absent for "zero".
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub translation: Option<Vec<[f32; 3]>>,
    /// Rotation about +y per row, in radians; null: not extracted (this version
    /// takes out translation only).
    pub yaw: Option<Vec<f32>>,
}

// The closed sets of words the description records: each an enum with its words spelt
// once (`vat_model::closed_set!`), shared with the bake that writes them.

pub use vat_model::ColumnOrder;

vat_model::closed_set! {
    /// The texture's container (`--texture-format`, `texture.container`).
    pub enum TextureFormat {
        /// KTX 2.0 with Zstandard supercompression.
        Ktx2 = "ktx2",
        /// 16-bit RGBA PNG: a fallback for tools that read nothing else.
        Png = "png",
    }
}

impl std::str::FromStr for TextureFormat {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, String> {
        match s {
            "ktx2" => Ok(TextureFormat::Ktx2),
            "png" => Ok(TextureFormat::Png),
            _ => Err(format!("\"{s}\" is not a texture format: give ktx2 or png")),
        }
    }
}

vat_model::closed_set! {
    /// The texture's supercompression (`texture.supercompression`).
    pub enum Supercompression {
        /// Zstandard (a KTX2 texture).
        Zstd = "zstd",
        /// None (a PNG, which has its own deflate).
        None = "none",
    }
}

vat_model::closed_set! {
    /// The texels' format (`texture.format`), by its Vulkan name.
    pub enum TexelFormat {
        /// 16-bit unsigned normalized RGBA: a vertex bake's positions and normals, or a
        /// "quat16" bone bake's joints.
        R16G16B16A16Unorm = "R16G16B16A16_UNORM",
        /// 32-bit float RGBA: a bone bake's joint matrices.
        R32G32B32A32Sfloat = "R32G32B32A32_SFLOAT",
    }
}

vat_model::closed_set! {
    /// Which delta the texture's rows are stored under (`--delta`, `settings.delta`,
    /// `texture.delta.mode`).
    #[derive(Default)]
    pub enum Delta {
        /// The texels as a shader reads them (any KTX2 reader plays them).
        #[default]
        None = "none",
        /// Each row minus the row before, within each clip.
        Row = "row",
        /// The row delta applied twice: a second-order difference.
        Second = "second",
    }
}

impl Delta {
    /// How many times the row delta is applied (and the running sum undoes it):
    /// `texture.delta.order`.
    pub fn order(self) -> usize {
        match self {
            Delta::None => 0,
            Delta::Row => 1,
            Delta::Second => 2,
        }
    }

    /// The mode of `order` row deltas, if there is one.
    pub fn of_order(order: u32) -> Option<Delta> {
        [Delta::None, Delta::Row, Delta::Second].into_iter().find(|d| d.order() == order as usize)
    }
}

impl std::str::FromStr for Delta {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, String> {
        match s {
            "none" => Ok(Delta::None),
            "row" => Ok(Delta::Row),
            "second" => Ok(Delta::Second),
            _ => Err(format!("unknown delta {s:?}: give none, row or second")),
        }
    }
}

vat_model::closed_set! {
    /// Where the normals go (`--normals`, `settings.normals`, `normals.mode`).
    #[derive(Default)]
    pub enum NormalsMode {
        /// Octahedral 8 + 8 in the position texels' alpha (the default).
        #[default]
        Packed = "packed",
        /// Octahedral 16 + 16 in R and G of their own array layers after the positions'.
        Separate = "separate",
        /// Not stored: the alpha holds 0; a runtime uses rest or flat normals.
        None = "none",
    }
}

vat_model::named_from_str!(NormalsMode, "a normals mode");

vat_model::closed_set! {
    /// How the rest GLB stores its mesh (`--rest-mesh`, `settings.rest_mesh`).
    #[derive(Default)]
    pub enum RestMeshEncoding {
        /// Float positions, normals and uvs, plain indices: every glTF reader reads it.
        #[default]
        Plain = "plain",
        /// Vertex and index views under `EXT_meshopt_compression`, normals as normalized
        /// 16-bit integers (`KHR_mesh_quantization`), uvs of the material in `[0, 1]` as normalized
        /// 16-bit; positions and the column uv stay exact floats.
        Meshopt = "meshopt",
    }
}

vat_model::named_from_str!(RestMeshEncoding, "a rest mesh encoding");

impl NormalsMode {
    /// The channels the mode stores normals in (`normals.channel`).
    pub fn channel(self) -> NormalsChannel {
        match self {
            NormalsMode::Packed => NormalsChannel::A,
            NormalsMode::Separate => NormalsChannel::Rg,
            NormalsMode::None => NormalsChannel::None,
        }
    }

    /// The mode's encoding (`normals.encoding`).
    pub fn encoding(self) -> NormalsEncoding {
        match self {
            NormalsMode::Packed => NormalsEncoding::Octahedral8x8,
            NormalsMode::Separate => NormalsEncoding::Octahedral16x16,
            NormalsMode::None => NormalsEncoding::None,
        }
    }
}

vat_model::closed_set! {
    /// The channels holding the normals (`normals.channel`).
    pub enum NormalsChannel {
        /// The position texels' alpha (packed).
        A = "a",
        /// R and G of the normal layers (separate).
        Rg = "rg",
        /// None: no normals stored.
        None = "none",
    }
}

vat_model::closed_set! {
    /// How a normal is encoded (`normals.encoding`).
    pub enum NormalsEncoding {
        /// Octahedral x and y, 8 bits each, in one 16-bit channel (high byte x).
        Octahedral8x8 = "octahedral_8_8",
        /// Octahedral x and y, 16 bits each, in R and G.
        Octahedral16x16 = "octahedral_16_16",
        /// None: no normals stored.
        None = "none",
        /// A bone bake's: none in the texture; the rest mesh's NORMAL, skinned by the
        /// joint matrices.
        Bones = "bones",
    }
}

vat_model::closed_set! {
    /// The channels holding a position (`positions.channels`).
    pub enum PositionChannels {
        /// R, G and B: x, y and z.
        Rgb = "rgb",
        /// None: a bone bake's texture holds joint matrices.
        None = "none",
    }
}

vat_model::closed_set! {
    /// How a position's channels are encoded (`positions.encoding`).
    pub enum PositionEncoding {
        /// 16-bit unsigned normalized, within the bounds.
        Unorm16 = "unorm16",
        /// A bone bake's: the rest mesh's POSITION skinned by the joint matrices.
        Bones = "bones",
    }
}

vat_model::closed_set! {
    /// How a bone bake's matrices are stored (`--bone-encoding`, `settings.bone_encoding`,
    /// `bones.encoding`).
    #[derive(Default)]
    pub enum MatrixEncoding {
        /// 32-bit floats, as they were computed: `R32G32B32A32_SFLOAT`, 4 texels a joint.
        #[default]
        Float32 = "float32",
        /// Translation, uniform scale and a unit quaternion, 16 bits each:
        /// `R16G16B16A16_UNORM`, 2 texels a joint, a quarter of the bytes
        /// ([`BONES_DECODE_QUAT16`]; the ranges in `bones.quantization`).
        Quat16 = "quat16",
    }
}

vat_model::named_from_str!(MatrixEncoding, "a bone encoding");

impl MatrixEncoding {
    /// Texels per joint on a row: a float matrix's four columns, or the two texels of
    /// the 16-bit form.
    pub fn texels_per_joint(self) -> u32 {
        match self {
            MatrixEncoding::Float32 => 4,
            MatrixEncoding::Quat16 => 2,
        }
    }

    /// Bytes of one texel: RGBA32F or RGBA16.
    pub fn texel_bytes(self) -> u64 {
        match self {
            MatrixEncoding::Float32 => 16,
            MatrixEncoding::Quat16 => 8,
        }
    }
}

vat_model::closed_set! {
    /// What the texture holds (`--mode`, `settings.mode`).
    #[derive(Default)]
    pub enum BakeMode {
        /// Every point on every row: any motion, one column per point.
        #[default]
        Vertices = "vertices",
        /// Every joint's matrix on every row: skinned motion, four texels per joint; the
        /// player skins the rest mesh (docs/FORMAT.md, "Bone bakes").
        Bones = "bones",
    }
}

vat_model::named_from_str!(BakeMode, "a mode");

vat_model::closed_set! {
    /// Whether animations split per node are merged back into takes
    /// (`--merge-clips`, `--no-merge-clips`, `settings.merge_clips`).
    #[derive(Default)]
    pub enum MergeClips {
        /// Merge animations that share a take name (or are all unnamed), a time range
        /// and no (node, property) target.
        #[default]
        Auto = "auto",
        /// Merge every set of animations that share a time range and no target, whatever their names.
        Always = "always",
        /// Keep every animation its own clip.
        Never = "never",
    }
}

vat_model::closed_set! {
    /// Which translation tracks of clips from `--animations` files play
    /// (`settings.animation_translations`).
    #[derive(Default)]
    pub enum AnimationTranslations {
        /// Every one, as three.js's AnimationMixer plays them.
        #[default]
        All = "all",
        /// The root's alone: the other joints keep the character's bone lengths.
        Root = "root",
    }
}

vat_model::named_from_str!(AnimationTranslations, "an animation translations mode");

fn is_all(t: &AnimationTranslations) -> bool {
    *t == AnimationTranslations::All
}

vat_model::closed_set! {
    /// What `--root-motion` does with a clip's root motion (`settings.root_motion`,
    /// `clips[i].root_motion.mode`).
    #[derive(Default)]
    pub enum RootMotionMode {
        /// Leave it in the texels (the default).
        #[default]
        Keep = "keep",
        /// Take the root's horizontal translation out of the texels and record it per row.
        Extract = "extract",
        /// Take it out and record nothing.
        Zero = "zero",
    }
}

vat_model::named_from_str!(RootMotionMode, "a root motion mode");

vat_model::closed_set! {
    /// A signed coordinate axis (`axes.up`, `axes.forward`, `target.up`, `target.axes_from_gltf`).
    pub enum Axis {
        /// +x.
        PlusX = "+x",
        /// −x.
        MinusX = "-x",
        /// +y.
        PlusY = "+y",
        /// −y.
        MinusY = "-y",
        /// +z.
        PlusZ = "+z",
        /// −z.
        MinusZ = "-z",
    }
}

impl Axis {
    /// Axis `index` (0 x, 1 y, 2 z; taken modulo 3), negated when `negated`.
    ///
    /// ```
    /// assert_eq!(vat_description::Axis::of(0, true).as_str(), "-x");
    /// ```
    pub fn of(index: usize, negated: bool) -> Axis {
        const AXES: [[Axis; 2]; 3] =
            [[Axis::PlusX, Axis::MinusX], [Axis::PlusY, Axis::MinusY], [Axis::PlusZ, Axis::MinusZ]];
        AXES[index % 3][usize::from(negated)]
    }
}

vat_model::closed_set! {
    /// The handedness of a space (`axes.handedness`, `target.handedness`).
    pub enum Handedness {
        /// Right-handed.
        Right = "right",
        /// Left-handed.
        Left = "left",
        /// Babylon.js: the vertex data right-handed as glTF has it, under the glTF
        /// loader's `__root__` node (rotation 180° about Y, z scaled by −1), which turns
        /// the scene left-handed.
        RightUnderRoot = "right (object space under the loader's __root__ node)",
    }
}

vat_model::closed_set! {
    /// The unit of a space (`axes.units`, `target.units`).
    pub enum Units {
        /// Metres (glTF's).
        Metres = "metres",
        /// Centimetres (Unreal's).
        Centimetres = "centimetres",
    }
}

vat_model::closed_set! {
    /// Where an engine's v = 0 lies on an image (`target.uv_origin`).
    pub enum UvOrigin {
        /// The image's top row (glTF, DirectX).
        Top = "top",
        /// The image's bottom row (OpenGL, Unity).
        Bottom = "bottom",
    }
}

vat_model::closed_set! {
    /// The container of a target's texture (`target.container`).
    pub enum TargetContainer {
        /// OpenEXR, 32-bit floats holding t / 65535.
        Exr = "exr",
        /// The bake's own KTX2.
        Ktx2 = "ktx2",
        /// The bake's own 16-bit PNG.
        Png = "png",
    }
}

impl From<TextureFormat> for TargetContainer {
    fn from(format: TextureFormat) -> Self {
        match format {
            TextureFormat::Ktx2 => TargetContainer::Ktx2,
            TextureFormat::Png => TargetContainer::Png,
        }
    }
}

/// The JSON Schema of the description file, pretty-printed.
pub fn schema_json() -> String {
    let schema = schemars::schema_for!(Description);
    let mut text = serde_json::to_string_pretty(&schema).expect("a schema always serializes");
    text.push('\n');
    text
}

/// A description's JSON that does not read as a [`Description`]: the field it stops at,
/// by its path (`texture.container`, `clips[2].root_motion.mode`), and why.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{}{message}", if field.is_empty() { String::new() } else { format!("{field}: ") })]
pub struct ReadError {
    /// The path of the field, empty when the error is the whole file's.
    pub field: String,
    /// What is wrong with it, as serde words it.
    pub message: String,
}

/// A description's JSON read into a [`Description`], the error naming the field.
///
/// ```
/// let json = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/tests/Fox.vat.json"))?;
/// let mut value: serde_json::Value = serde_json::from_str(&json)?;
/// assert!(vat_description::from_value(value.clone()).is_ok());
/// value["texture"]["container"] = "webp".into();
/// let error = vat_description::from_value(value).unwrap_err();
/// assert_eq!(error.field, "texture.container");
/// assert_eq!(error.to_string(), "texture.container: unknown variant `webp`, expected `ktx2` or `png`");
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn from_value(value: serde_json::Value) -> Result<Description, ReadError> {
    serde_path_to_error::deserialize(value).map_err(|e| {
        let field = e.path().to_string();
        ReadError { field: if field == "." { String::new() } else { field }, message: e.into_inner().to_string() }
    })
}

/// [`from_value`] straight from a description file's bytes, without the intermediate
/// `serde_json::Value` (which takes many times the file's size in memory): the same
/// errors, naming the field, without the line and column.
///
/// ```
/// let error = vat_description::from_slice(br#"{"format": 1}"#).unwrap_err();
/// assert_eq!(error.field, "format");
/// assert_eq!(error.to_string(), "format: invalid type: integer `1`, expected a string");
/// ```
pub fn from_slice(bytes: &[u8]) -> Result<Description, ReadError> {
    let mut json = serde_json::Deserializer::from_slice(bytes);
    let without_place = |e: serde_json::Error| {
        let message = e.to_string();
        let place = format!(" at line {} column {}", e.line(), e.column());
        message.strip_suffix(&place).map_or(message.clone(), str::to_string)
    };
    let description = serde_path_to_error::deserialize(&mut json).map_err(|e| {
        let field = e.path().to_string();
        ReadError { field: if field == "." { String::new() } else { field }, message: without_place(e.into_inner()) }
    })?;
    json.end().map_err(|e| ReadError { field: String::new(), message: without_place(e) })?;
    Ok(description)
}

/// SHA-256 of `bytes` as lowercase hex: how the description records the source's and
/// the alias table's hashes, and how they are compared.
///
/// ```
/// assert_eq!(
///     vat_description::sha256_hex(b"abc"),
///     "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"
/// );
/// ```
pub fn sha256_hex(bytes: &[u8]) -> String {
    use sha2::{Digest, Sha256};
    format!("{:x}", Sha256::digest(bytes))
}

/// The end of every description file's name: `<stem>.vat.json`.
pub const DESCRIPTION_SUFFIX: &str = ".vat.json";

/// The description's file name for the stem `name`: `<name>.vat.json`.
pub fn description_file(name: &str) -> String {
    format!("{name}{DESCRIPTION_SUFFIX}")
}

/// The texture's file name for the stem `name` and its `container`:
/// `<name>.vat.ktx2`, `<name>.vat.png`.
pub fn texture_file(name: &str, container: TextureFormat) -> String {
    format!("{name}.vat.{container}")
}

/// The file name of level `level` (from 1) of the rest mesh for the stem `name`:
/// `<name>.lod<level>.rest.glb`.
///
/// ```
/// assert_eq!(vat_description::lod_file("Fox", 2), "Fox.lod2.rest.glb");
/// ```
pub fn lod_file(name: &str, level: usize) -> String {
    format!("{name}.lod{level}.rest.glb")
}

/// The rest mesh's file name for the stem `name`: `<name>.rest.glb`.
pub fn mesh_file(name: &str) -> String {
    format!("{name}.rest.glb")
}

/// A name that is not a plain file name (see [`check_file_name`]).
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("\"{0}\" is not a plain file name: use letters, digits, '-', '_' or '.', with no folder separators")]
pub struct FileNameError(pub String);

/// Checks that `name` is a plain file name, one that cannot leave the folder it is
/// joined to: not empty, no folder separator or NUL, not `.` or `..`, and not hidden
/// (a leading `.` is kept for the bake's temporary files). Every file name a
/// description records, and every stem a bake is given, passes it.
///
/// ```
/// use vat_description::check_file_name;
/// assert!(check_file_name("Fox.vat.ktx2").is_ok());
/// assert!(check_file_name("../Fox.glb").is_err());
/// assert!(check_file_name(".Fox.vat.json.12.tmp").is_err());
/// ```
pub fn check_file_name(name: &str) -> Result<(), FileNameError> {
    let ok =
        !name.is_empty() && name != "." && name != ".." && !name.contains(['/', '\\', '\0']) && !name.starts_with('.');
    if ok {
        Ok(())
    } else {
        Err(FileNameError(name.to_string()))
    }
}
