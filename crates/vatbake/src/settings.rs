//! Flags turned into validated settings, once.

use std::path::PathBuf;

use serde::Deserialize;

use crate::description;
use crate::error::Error;
use crate::slots::Aliases;

pub use crate::pipeline::layers::{parse_bytes, Device, MaxSize};
pub use crate::pipeline::normals::NormalsMode;
pub use crate::pipeline::root_motion::{RootMotion, RootMotionChoice};

/// The point budget of a bake when none is given.
pub const DEFAULT_POINTS: u32 = 4000;

/// The point budget of a bake.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PointBudget {
    /// Bake every point of the source (`--points all`).
    All,
    /// Decimate to at most this many points (at least 1).
    Count(u32),
}

impl std::str::FromStr for PointBudget {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, String> {
        if s.eq_ignore_ascii_case("all") {
            return Ok(PointBudget::All);
        }
        match s.parse::<u32>() {
            Ok(0) => Err("the point budget must be at least 1 (or \"all\")".into()),
            Ok(n) => Ok(PointBudget::Count(n)),
            Err(_) => Err(format!("\"{s}\" is not a point count: give a whole number or \"all\"")),
        }
    }
}

impl std::fmt::Display for PointBudget {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            PointBudget::All => f.write_str("all"),
            PointBudget::Count(n) => write!(f, "{n}"),
        }
    }
}

/// The texture's file format.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum TextureFormat {
    /// KTX 2.0 with Zstandard supercompression.
    Ktx2,
    /// 16-bit RGBA PNG: a fallback for tools that read nothing else.
    Png,
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

impl TextureFormat {
    /// The description's `texture.container` for this format.
    pub fn container(self) -> &'static str {
        match self {
            TextureFormat::Ktx2 => "ktx2",
            TextureFormat::Png => "png",
        }
    }
}

/// What the texture holds (`--mode`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, strum::EnumIter, strum::IntoStaticStr, strum::Display)]
#[strum(serialize_all = "lowercase")]
pub enum BakeMode {
    /// Every point on every row: any motion, one column per point.
    #[default]
    Vertices,
    /// Every joint's matrix on every row: skinned motion, four texels per joint; the
    /// player skins the rest mesh (docs/FORMAT.md, "Bone bakes").
    Bones,
}

vat_model::named_from_str!(BakeMode, "a mode");

impl BakeMode {
    /// The mode's name, as `--mode` takes it.
    pub fn as_str(self) -> &'static str {
        self.into()
    }
}

/// `--format` and `--target`: the registries `vat-export` owns (docs/targets/).
pub use vat_export::{Format as OutputFormat, Target};

/// Everything one bake needs to know.
#[derive(Clone, Debug)]
pub struct BakeSettings {
    /// The model to bake: a `.glb`, or a `.gltf` with its external files.
    pub input: PathBuf,
    /// Output folder, created if missing; nothing is written outside it.
    pub out_dir: PathBuf,
    /// Stem of the output files.
    pub name: String,
    /// Rows per second each clip is sampled at.
    pub fps: f32,
    /// Cap on rows per clip; a longer clip is resampled over the same duration.
    pub max_frames: Option<u32>,
    /// Widest texture allowed, in texels; more points wrap into bands.
    pub max_width: u32,
    /// The point budget: how many points the source is decimated to.
    pub points: PointBudget,
    /// The budget was given (`--points`): one that cannot keep every uv island is
    /// refused. The default is raised to the fewest points that keep them.
    pub points_given: bool,
    /// Clips to bake by name, in this order; `None`: every clip, in source order.
    pub clips: Option<Vec<String>>,
    /// Zstandard level of the texture's supercompression.
    pub zstd_level: i32,
    /// Zstandard's long-distance matching with a 128 MiB window (`--smallest`).
    pub zstd_long: bool,
    /// The texture's file format.
    pub texture_format: TextureFormat,
    /// Index of the scene to bake; `None`: the file's default scene.
    pub scene: Option<usize>,
    /// Refuse a model that comes out far from the size its skeleton gives it
    /// (off with `--no-size-guard`).
    pub size_guard: bool,
    /// Joint influences kept per point; `None`: every one the file has (up to 8).
    pub max_influences: Option<usize>,
    /// The table that gives each clip its slot.
    pub aliases: Aliases,
    /// Clip-name warnings are errors.
    pub strict: bool,
    /// Whether animations split per node are merged back into their take.
    pub merge_clips: vat_gltf::MergeClips,
    /// Sync the files and the folder to the disk around the renames (`--durable`).
    pub durable: bool,
    /// Which point each texture column holds.
    pub column_order: vat_model::ColumnOrder,
    /// The delta the texture's rows are stored under (`--delta`).
    pub delta: crate::delta::Delta,
    /// How finely positions are kept (`--tolerance`, `--bits`).
    pub precision: Precision,
    /// Another tool's files written beside the bake (`--format`).
    pub format: OutputFormat,
    /// What the texture holds (`--mode`).
    pub mode: BakeMode,
    /// The engine the bake is for (`--target`).
    pub target: Target,
    /// Append a copy of each looping clip's first row after its last (`--loop-rows`).
    pub loop_rows: bool,
    /// Joints whose per-row transforms the description records (`--sockets`).
    pub sockets: Vec<String>,
    /// What happens to each clip's root motion (`--root-motion`).
    pub root_motion: crate::pipeline::root_motion::RootMotionChoice,
    /// Tallest texture or array layer (`--max-size`, `--device`); `None`: no bound.
    pub max_height: Option<u32>,
    /// Where the normals go (`--normals`).
    pub normals: crate::pipeline::normals::NormalsMode,
    /// GPU memory per unit warned past, in bytes (`--gpu-budget`, `--device`).
    pub gpu_budget: Option<u64>,
}

/// How finely positions are kept: every 16-bit step (the default), or snapped to
/// a coarser grid the compressor squeezes better. The texels stay 16-bit UNORM
/// either way; a reader decodes them with the same formula.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub enum Precision {
    /// Every 16-bit step.
    #[default]
    Full,
    /// `--bits N`: N significant bits per axis (1–16).
    Bits(u32),
    /// `--tolerance DIST`: the coarsest power-of-two grid whose error stays within
    /// DIST model units (straight-line distance).
    Tolerance(f32),
}

impl Precision {
    /// The grid positions in `bounds` are snapped to.
    pub fn grid(&self, bounds: &vat_bounds::Bounds) -> vat_bounds::Grid {
        match *self {
            Precision::Full => vat_bounds::Grid::FULL,
            Precision::Bits(bits) => vat_bounds::Grid::of_bits(bits),
            Precision::Tolerance(tolerance) => vat_bounds::Grid::within(bounds, tolerance),
        }
    }
}

impl BakeSettings {
    /// The description's file name, `<name>.vat.json`.
    pub fn description_file(&self) -> String {
        description::description_file(&self.name)
    }

    /// The texture's file name, `<name>.vat.ktx2` (or `.vat.png`).
    pub fn texture_file(&self) -> String {
        description::texture_file(&self.name, self.texture_format.container())
    }

    /// The rest mesh's file name, `<name>.rest.glb`.
    pub fn mesh_file(&self) -> String {
        description::mesh_file(&self.name)
    }

    /// The settings as the description file records them.
    pub fn recorded(&self) -> description::Settings {
        description::Settings {
            fps: self.fps,
            max_frames: self.max_frames,
            max_width: self.max_width,
            points: self.points.to_string(),
            clips: self.clips.clone(),
            zstd_level: self.zstd_level,
            zstd_long: self.zstd_long,
            scene: self.scene.map(|s| s as u32),
            max_influences: self.max_influences.map(|n| n as u32),
            aliases_sha256: self.aliases.sha256.clone(),
            merge_clips: self.merge_clips.as_str().to_string(),
            column_order: self.column_order.as_str().to_string(),
            delta: self.delta.as_str().to_string(),
            tolerance: match self.precision {
                Precision::Tolerance(t) => Some(t),
                _ => None,
            },
            bits: match self.precision {
                Precision::Bits(b) => Some(b),
                _ => None,
            },
            format: (self.format != OutputFormat::Vatbake).then(|| self.format.as_str().to_string()),
            mode: self.mode.as_str().to_string(),
            loop_rows: self.loop_rows,
            sockets: self.sockets.clone(),
            root_motion: self.root_motion.default.as_str().to_string(),
            root_motion_clips: self
                .root_motion
                .clips
                .iter()
                .map(|(k, v)| (k.clone(), v.as_str().to_string()))
                .collect(),
            max_height: self.max_height,
            normals: self.normals.as_str().to_string(),
        }
    }
}

/// The generator string the files record: `vatbake` and its version.
pub const GENERATOR: &str = concat!("vatbake ", env!("CARGO_PKG_VERSION"));

/// Rows per second when none is given.
pub const DEFAULT_FPS: f32 = 30.0;
/// Widest texture when none is given: desktop GPUs' limit.
pub const DEFAULT_MAX_WIDTH: u32 = 16_384;
/// Zstandard level when none is given: chosen by measurement (docs/PERFORMANCE.md,
/// "Delta by default"). On second-order deltas, level 5 brings the median bundled
/// fixture from 0.53× to 0.48× of its 16-bit PNG; the bake stays within 1.5× of the
/// time the plain level-3 texture took before the spatial order and the delta.
pub const DEFAULT_ZSTD_LEVEL: i32 = 5;
/// Zstandard level of `--smallest` (with the long window): chosen by measurement
/// (docs/PERFORMANCE.md, "Texture size").
pub const SMALLEST_ZSTD_LEVEL: i32 = 19;

/// A bake's settings as a caller gives them: every one optional (the defaults are
/// `vatbake bake`'s), named like the bake's flags (`max_frames` is `--max-frames`), so a
/// roster's TOML reads straight into it. [`BakeOptions::settings`] checks them once.
///
/// ```
/// let options = vatbake::BakeOptions { points: Some("all".parse().unwrap()), ..Default::default() };
/// let settings = options.settings("fixtures/Fox/Fox.glb".into(), "out".into()).unwrap();
/// assert_eq!((settings.name.as_str(), settings.fps), ("Fox", 30.0));
/// ```
#[derive(Clone, Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct BakeOptions {
    /// Rows per second to sample each clip at (default 30).
    pub fps: Option<f32>,
    /// Cap on rows per clip.
    pub max_frames: Option<u32>,
    /// Widest texture (default 16384).
    pub max_width: Option<u32>,
    /// Point budget (default 4000, raised to keep every uv island).
    #[serde(default, deserialize_with = "budget")]
    pub points: Option<PointBudget>,
    /// Clips to bake, by name, in this order (a list, or one comma-separated string).
    #[serde(default, deserialize_with = "names")]
    pub clips: Option<Vec<String>>,
    /// Stem of the output files (default: the input's file stem).
    pub name: Option<String>,
    /// Zstandard level (default 3).
    pub zstd_level: Option<i32>,
    /// The smallest texture, for release builds: Zstandard level 19 with a long window.
    #[serde(default)]
    pub smallest: bool,
    /// Texture container (default KTX2).
    pub texture_format: Option<TextureFormat>,
    /// Scene to bake (default: the file's default scene).
    pub scene: Option<usize>,
    /// Bake even when the size guard would refuse.
    #[serde(default)]
    pub no_size_guard: bool,
    /// Joint influences kept per point (1–8; default all).
    pub max_influences: Option<usize>,
    /// The game's alias table (TOML); default the built-in one.
    pub aliases: Option<PathBuf>,
    /// Clip-name findings are errors.
    #[serde(default)]
    pub strict: bool,
    /// Merge every set of animations with one time range and no shared target.
    #[serde(default)]
    pub merge_clips: bool,
    /// Keep every source animation its own clip.
    #[serde(default)]
    pub no_merge_clips: bool,
    /// Sync the files and the folder to the disk around the renames (`--durable`).
    #[serde(default)]
    pub durable: bool,
    /// Which point each texture column holds: spatial (default) or source.
    #[serde(default, deserialize_with = "parsed")]
    pub column_order: Option<vat_model::ColumnOrder>,
    /// The delta the texture's rows are stored under: none (default), row or second.
    #[serde(default, deserialize_with = "parsed")]
    pub delta: Option<crate::delta::Delta>,
    /// Snap positions to the coarsest grid within this distance (model units).
    pub tolerance: Option<f32>,
    /// Keep this many significant bits per position axis (1–16).
    pub bits: Option<u32>,
    /// Another tool's files to write beside the bake: vatbake (none, the default), openvat, vat3, playcanvas.
    #[serde(default, deserialize_with = "parsed")]
    pub format: Option<OutputFormat>,
    /// What the texture holds: vertices (default) or bones.
    #[serde(default, deserialize_with = "parsed")]
    pub mode: Option<BakeMode>,
    /// The engine the bake is for: three (the default), babylon, playcanvas, godot, unity or unreal.
    #[serde(default, deserialize_with = "parsed")]
    pub target: Option<Target>,
    /// Append a copy of each looping clip's first row after its last.
    #[serde(default)]
    pub loop_rows: bool,
    /// Joints whose per-row transforms to record (a list, or one comma-separated string).
    #[serde(default, deserialize_with = "names")]
    pub sockets: Option<Vec<String>>,
    /// Root motion: "keep" (default), "extract" or "zero", then `CLIP=MODE` overrides.
    #[serde(default, deserialize_with = "parsed")]
    pub root_motion: Option<crate::pipeline::root_motion::RootMotionChoice>,
    /// Largest texture, "WxH"; taller textures are split into array layers.
    #[serde(default, deserialize_with = "parsed")]
    pub max_size: Option<crate::pipeline::layers::MaxSize>,
    /// A size bound and GPU budget preset: web, mobile or desktop.
    #[serde(default, deserialize_with = "parsed")]
    pub device: Option<crate::pipeline::layers::Device>,
    /// Where the normals go: packed (default), separate or none.
    #[serde(default, deserialize_with = "parsed")]
    pub normals: Option<crate::pipeline::normals::NormalsMode>,
    /// GPU memory per unit to warn past ("256MiB").
    #[serde(default, deserialize_with = "bytes")]
    pub gpu_budget: Option<u64>,
}

/// True when `out_dir` is the folder `input` is in (compared after resolving both, when they exist).
fn same_folder(input: &std::path::Path, out_dir: &std::path::Path) -> bool {
    let folder = input.parent().map(|p| if p.as_os_str().is_empty() { std::path::Path::new(".") } else { p });
    let resolve = |p: &std::path::Path| p.canonicalize().unwrap_or_else(|_| p.to_path_buf());
    folder.is_some_and(|f| resolve(f) == resolve(out_dir))
}

/// Any setting from its text.
fn parsed<'de, D: serde::Deserializer<'de>, T: std::str::FromStr<Err = String>>(
    deserializer: D,
) -> Result<Option<T>, D::Error> {
    String::deserialize(deserializer)?.parse().map(Some).map_err(serde::de::Error::custom)
}

/// A byte count from a number or a string with a unit ("256MiB").
fn bytes<'de, D: serde::Deserializer<'de>>(deserializer: D) -> Result<Option<u64>, D::Error> {
    #[derive(Deserialize)]
    #[serde(untagged)]
    enum Bytes {
        Count(u64),
        Text(String),
    }
    match Bytes::deserialize(deserializer)? {
        Bytes::Count(n) => Ok(Some(n)),
        Bytes::Text(t) => crate::pipeline::layers::parse_bytes(&t).map(Some).map_err(serde::de::Error::custom),
    }
}

/// A point budget from a number or a string (`4000`, `"4000"`, `"all"`).
fn budget<'de, D: serde::Deserializer<'de>>(deserializer: D) -> Result<Option<PointBudget>, D::Error> {
    #[derive(Deserialize)]
    #[serde(untagged)]
    enum Budget {
        Count(u64),
        Text(String),
    }
    let text = match Budget::deserialize(deserializer)? {
        Budget::Count(n) => n.to_string(),
        Budget::Text(t) => t,
    };
    text.parse().map(Some).map_err(serde::de::Error::custom)
}

/// Names from a list or from one comma-separated string.
fn names<'de, D: serde::Deserializer<'de>>(deserializer: D) -> Result<Option<Vec<String>>, D::Error> {
    #[derive(Deserialize)]
    #[serde(untagged)]
    enum Names {
        List(Vec<String>),
        Text(String),
    }
    Ok(Some(match Names::deserialize(deserializer)? {
        Names::List(list) => list,
        Names::Text(text) => text.split(',').map(str::to_string).collect(),
    }))
}

impl BakeOptions {
    /// The settings of a bake of `input` into `out_dir`, every value checked; an
    /// error names the setting by its flag.
    pub fn settings(self, input: PathBuf, out_dir: PathBuf) -> Result<BakeSettings, Error> {
        let fps = self.fps.unwrap_or(DEFAULT_FPS);
        if !(fps.is_finite() && fps > 0.0 && fps <= 1000.0) {
            return Err(Error::usage(format!("--fps {fps}: give a rate between 0 and 1000 rows per second")));
        }
        if self.max_frames == Some(0) {
            return Err(Error::usage("--max-frames 0: a clip needs at least one row"));
        }
        if self.max_size.is_some() && self.device.is_some() {
            return Err(Error::usage("--max-size and --device: both bound the texture's size; give one or the other"));
        }
        // --max-width is --max-size's width alone, kept as it was; with --max-size it
        // must agree, with --device it can only narrow the preset.
        let given_width = self.max_width.filter(|&w| w != DEFAULT_MAX_WIDTH);
        let bound = self.max_size.or(self.device.map(crate::pipeline::layers::Device::max_size));
        let max_width = match (self.max_size, self.device) {
            (Some(size), _) => match given_width {
                Some(w) if w != size.width => {
                    return Err(Error::usage(format!(
                        "--max-width {w} with --max-size {}x{}: --max-size bounds the width too; drop --max-width",
                        size.width, size.height
                    )))
                }
                _ => size.width,
            },
            (None, Some(device)) => given_width.map_or(device.max_size().width, |w| w.min(device.max_size().width)),
            (None, None) => self.max_width.unwrap_or(DEFAULT_MAX_WIDTH),
        };
        if max_width == 0 {
            return Err(Error::usage("--max-width 0: give the widest texture your target GPU accepts, e.g. 4096"));
        }
        if let Some(n) = self.max_influences.filter(|n| !(1..=vat_model::MAX_INFLUENCES).contains(n)) {
            return Err(Error::usage(format!(
                "--max-influences {n}: give 1 to {} joint influences per point",
                vat_model::MAX_INFLUENCES
            )));
        }
        if self.smallest && self.zstd_level.is_some() {
            return Err(Error::usage(
                "--smallest and --zstd-level: --smallest sets the level (19); give one or the other",
            ));
        }
        let zstd_level =
            self.zstd_level.unwrap_or(if self.smallest { SMALLEST_ZSTD_LEVEL } else { DEFAULT_ZSTD_LEVEL });
        if !(-7..=22).contains(&zstd_level) {
            return Err(Error::usage(format!(
                "--zstd-level {zstd_level}: Zstandard levels run from 1 to 22, and -1 to -7 for its fastest modes"
            )));
        }
        if self.merge_clips && self.no_merge_clips {
            return Err(Error::usage("--merge-clips and --no-merge-clips: give one or the other"));
        }
        let texture_format = self.texture_format.unwrap_or(TextureFormat::Ktx2);
        // Second-order deltas by default, where the container allows them: a third to
        // half the bytes of the plain texels (docs/PERFORMANCE.md).
        let delta = self.delta.unwrap_or(match texture_format {
            TextureFormat::Ktx2 => crate::delta::Delta::Second,
            TextureFormat::Png => crate::delta::Delta::None,
        });
        if delta != crate::delta::Delta::None && texture_format != TextureFormat::Ktx2 {
            return Err(Error::usage(format!(
                "--delta {delta} with --texture-format png: the delta modes are for the KTX2 texture (a PNG has its own row filters); drop one"
            )));
        }
        let precision = match (self.tolerance, self.bits) {
            (Some(_), Some(_)) => {
                return Err(Error::usage("--tolerance and --bits: both set the position grid; give one or the other"))
            }
            (Some(t), None) if !(t.is_finite() && t > 0.0) => {
                return Err(Error::usage(format!(
                    "--tolerance {t}: give the largest position error you accept, in model units, above 0"
                )))
            }
            (Some(t), None) => Precision::Tolerance(t),
            (None, Some(b)) if !(1..=16).contains(&b) => {
                return Err(Error::usage(format!(
                    "--bits {b}: give 1 to 16 significant bits per axis (16: every step)"
                )))
            }
            (None, Some(16)) | (None, None) => Precision::Full,
            (None, Some(b)) => Precision::Bits(b),
        };
        let format = self.format.unwrap_or_default();
        let mode = match (self.mode, format.needs_bones()) {
            (Some(BakeMode::Vertices), true) => {
                return Err(Error::usage(format!(
                    "--format {format} with --mode vertices: {} plays joint matrices; \
                     give --mode bones (or leave --mode out)",
                    format.players()
                )))
            }
            (None, true) => BakeMode::Bones,
            (mode, _) => mode.unwrap_or_default(),
        };
        if mode == BakeMode::Bones {
            bone_mode_checks(&self, format, precision, texture_format)?;
        }
        let delta = if mode == BakeMode::Bones { crate::delta::Delta::None } else { delta };
        let extracting = self.root_motion.as_ref().is_some_and(|r| {
            r.default == crate::pipeline::root_motion::RootMotion::Extract
                || r.clips.values().any(|&m| m == crate::pipeline::root_motion::RootMotion::Extract)
        });
        if extracting && format.holds_positions() {
            return Err(Error::usage(format!(
                "--root-motion extract with --format {format}: the motion taken out of the texels is kept only in \
                 vatbake's description, which that format's players do not read, so the character would walk in \
                 place; give --root-motion zero to play in place, or leave --root-motion out to keep the motion"
            )));
        }
        if let Some(files) = format.clobbers().filter(|_| same_folder(&input, &out_dir)) {
            return Err(Error::usage(format!(
                "--format {format} into {}, the folder of the model: its {files} could overwrite \
                 the source's own files; give -o a folder of its own",
                out_dir.display()
            )));
        }
        let target = self.target.unwrap_or_default();
        let name = match self.name {
            Some(n) => n,
            None => input.file_stem().map(|s| s.to_string_lossy().into_owned()).ok_or_else(|| {
                Error::usage(format!("{}: no file name to name the outputs after; pass --name", input.display()))
            })?,
        };
        description::check_file_name(&name).map_err(|e| Error::usage(format!("--name: {e}")))?;
        Ok(BakeSettings {
            input,
            out_dir,
            name,
            fps,
            max_frames: self.max_frames,
            max_width,
            // A bone bake keeps every point (bone_mode_checks refuses a count).
            points: if mode == BakeMode::Bones {
                PointBudget::All
            } else {
                self.points.unwrap_or(PointBudget::Count(DEFAULT_POINTS))
            },
            points_given: self.points.is_some(),
            clips: self.clips,
            zstd_level,
            zstd_long: self.smallest,
            texture_format,
            scene: self.scene,
            size_guard: !self.no_size_guard,
            max_influences: self.max_influences,
            aliases: Aliases::load(self.aliases.as_deref())?,
            strict: self.strict,
            merge_clips: match (self.merge_clips, self.no_merge_clips) {
                (true, _) => vat_gltf::MergeClips::Always,
                (_, true) => vat_gltf::MergeClips::Never,
                _ => vat_gltf::MergeClips::Auto,
            },
            durable: self.durable,
            column_order: self.column_order.unwrap_or_default(),
            delta,
            precision,
            format,
            mode,
            target,
            loop_rows: self.loop_rows,
            sockets: self.sockets.unwrap_or_default(),
            root_motion: self.root_motion.unwrap_or_default(),
            max_height: bound.map(|b| b.height),
            normals: self.normals.unwrap_or_default(),
            gpu_budget: self.gpu_budget.or(self.device.map(crate::pipeline::layers::Device::gpu_budget)),
        })
    }
}

/// What a bone bake cannot take: a point budget (the texture has no column per
/// point, so decimating saves nothing there), a delta (the matrices are floats), a
/// PNG, a position grid, another tool's vertex format, and the vertex playback
/// features (loop rows, sockets, root motion, normals modes, layers).
fn bone_mode_checks(
    options: &BakeOptions,
    format: OutputFormat,
    precision: Precision,
    texture_format: TextureFormat,
) -> Result<(), Error> {
    let refuse = |what: String, why: &str| Err(Error::usage(format!("{what} with --mode bones: {why}")));
    if let Some(PointBudget::Count(n)) = options.points {
        return refuse(
            format!("--points {n}"),
            "a bone bake keeps every point (its texture has a column per joint, not per point); drop --points",
        );
    }
    if let Some(delta) = options.delta.filter(|&d| d != crate::delta::Delta::None) {
        return refuse(
            format!("--delta {delta}"),
            "a bone bake stores float matrices, which have no row deltas; drop --delta",
        );
    }
    if texture_format == TextureFormat::Png {
        return refuse(
            "--texture-format png".into(),
            "a bone bake's matrices are 32-bit floats, which a 16-bit PNG cannot hold; drop --texture-format",
        );
    }
    if precision != Precision::Full {
        return refuse(
            "--tolerance/--bits".into(),
            "the grid is for vertex positions; a bone bake's matrices are exact floats",
        );
    }
    if let Some(target) = options.target.filter(|&t| t.has_record()) {
        return refuse(
            format!("--target {target}"),
            "a bone bake's matrices are in glTF's space; load its rest mesh with the engine's glTF importer and \
             leave --target out",
        );
    }
    if format.holds_positions() {
        return refuse(format!("--format {format}"), "that format holds vertex positions; give --mode vertices");
    }
    let playback = [
        (options.loop_rows, "--loop-rows"),
        (options.sockets.as_ref().is_some_and(|s| !s.is_empty()), "--sockets"),
        (options.root_motion.is_some(), "--root-motion"),
        (options.normals.is_some(), "--normals"),
        (options.max_size.is_some() || options.device.is_some(), "--max-size/--device"),
    ];
    if let Some((_, flag)) = playback.iter().find(|(given, _)| *given) {
        return refuse(
            (*flag).into(),
            "that is a vertex bake's feature, not written for bone bakes yet; give --mode vertices",
        );
    }
    Ok(())
}
