//! Flags turned into validated settings, once.

use std::path::PathBuf;

use serde::Deserialize;

use crate::description;
use crate::error::Error;
use crate::slots::Aliases;

pub use crate::features::animations::{AnimationNames, AnimationTranslations};
pub use crate::features::layers::{parse_bytes, Device, MaxSize};
pub use crate::features::normals::NormalsMode;
pub use crate::features::rates::{Fps, AUTO_CEILING, DEFAULT_FPS_TOLERANCE};
pub use crate::features::root_motion::{RootMotion, RootMotionChoice};
pub use vat_description::{MatrixEncoding, RestMeshEncoding};

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

/// One level of `--lods`: a number of points, or a fraction of the baked points.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum LodBudget {
    /// At most this many points (at least 1).
    Points(u32),
    /// This fraction of the baked points, rounded (above 0, below 1).
    Ratio(f32),
}

impl LodBudget {
    /// The points this level may keep, of a bake of `points` points.
    pub fn of(self, points: usize) -> usize {
        match self {
            LodBudget::Points(n) => n as usize,
            LodBudget::Ratio(r) => ((r as f64 * points as f64).round() as usize).max(1),
        }
    }
}

impl std::fmt::Display for LodBudget {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            LodBudget::Points(n) => write!(f, "{n}"),
            LodBudget::Ratio(r) => write!(f, "{r}"),
        }
    }
}

/// `--lods`: the coarser levels of the rest mesh, finest first, each a number of
/// points (`1000,250`) or a fraction of the baked points (`0.5,0.25`).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct LodChain(pub Vec<LodBudget>);

impl std::str::FromStr for LodChain {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, String> {
        let mut levels = Vec::new();
        for text in s.split(',').map(str::trim) {
            let level = if text.contains(['.', 'e', 'E']) {
                match text.parse::<f32>() {
                    Ok(r) if r > 0.0 && r < 1.0 => LodBudget::Ratio(r),
                    _ => {
                        return Err(format!(
                            "\"{text}\" is not a level: give a number of points (e.g. 1000) or a fraction of the \
                             baked points between 0 and 1 (e.g. 0.5)"
                        ))
                    }
                }
            } else {
                match text.parse::<u32>() {
                    Ok(n) if n > 0 => LodBudget::Points(n),
                    _ => {
                        return Err(format!(
                            "\"{text}\" is not a level: give a number of points of at least 1 (e.g. 1000) or a \
                             fraction of the baked points (e.g. 0.5)"
                        ))
                    }
                }
            };
            if levels.len() == vat_description::MAX_LODS {
                return Err(format!("more than {} levels: give at most {0}", vat_description::MAX_LODS));
            }
            // Two levels of one kind are compared here; points against a fraction, at the bake.
            if let Some(&before) = levels.last() {
                let decreasing = match (before, level) {
                    (LodBudget::Points(a), LodBudget::Points(b)) => b < a,
                    (LodBudget::Ratio(a), LodBudget::Ratio(b)) => b < a,
                    _ => true,
                };
                if !decreasing {
                    return Err(format!(
                        "{level} after {before}: each level must keep fewer points than the one before; \
                         list them finest first, e.g. 1000,250"
                    ));
                }
            }
            levels.push(level);
        }
        Ok(LodChain(levels))
    }
}

impl std::fmt::Display for LodChain {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let texts: Vec<String> = self.0.iter().map(LodBudget::to_string).collect();
        f.write_str(&texts.join(","))
    }
}

/// The texture's file format (`--texture-format`); the description's `texture.container`.
pub use vat_description::TextureFormat;

/// What the texture holds (`--mode`); the description's `settings.mode`.
pub use vat_description::BakeMode;

/// `--format` and `--target`: the registries `vat-export` owns (docs/targets/).
pub use vat_export::{Format as OutputFormat, Target};

/// Everything one bake needs to know.
#[derive(Clone, Debug, PartialEq)]
pub struct BakeSettings {
    /// The model to bake: a `.glb`, or a `.gltf` with its external files.
    pub input: PathBuf,
    /// Output folder, created if missing; nothing is written outside it.
    pub out_dir: PathBuf,
    /// Stem of the output files.
    pub name: String,
    /// Rows per second each clip is sampled at; with `fps_tolerance`, the highest a clip may get.
    pub fps: f32,
    /// `--fps auto`: the largest off-row error each clip's rate is chosen within, as a
    /// fraction of the animation bounds' diagonal; `None`: every clip at `fps`.
    pub fps_tolerance: Option<f32>,
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
    /// Sync the files and the folder to the disk around the renames (on unless
    /// `--no-durable`). It changes no byte, so the description does not record it.
    pub durable: bool,
    /// Keep the files of an earlier bake of the same name that this bake does not
    /// write, each named in a `stale-kept` warning (`--keep-stale`); by default they
    /// are removed (`stale-removed`). Not recorded either.
    pub keep_stale: bool,
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
    pub root_motion: crate::features::root_motion::RootMotionChoice,
    /// Tallest texture or array layer (`--max-size`, `--device`); `None`: no bound.
    pub max_height: Option<u32>,
    /// Where the normals go (`--normals`).
    pub normals: crate::features::normals::NormalsMode,
    /// GPU memory per unit warned past, in bytes (`--gpu-budget`, `--device`).
    pub gpu_budget: Option<u64>,
    /// Files whose clips play on the model's skeleton (`--animations`), in order.
    pub animations: Vec<PathBuf>,
    /// The name map binding them (`--animation-names`).
    pub animation_names: AnimationNames,
    /// Which of their translation tracks play (`--animation-translations`).
    pub animation_translations: AnimationTranslations,
    /// The coarser levels of the rest mesh (`--lods`); empty: none.
    pub lods: LodChain,
    /// How the rest GLB stores its mesh (`--rest-mesh`).
    pub rest_mesh: RestMeshEncoding,
    /// How a bone bake stores its matrices (`--bone-encoding`).
    pub bone_encoding: MatrixEncoding,
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
        description::texture_file(&self.name, self.texture_format)
    }

    /// The rest mesh's file name, `<name>.rest.glb`.
    pub fn mesh_file(&self) -> String {
        description::mesh_file(&self.name)
    }

    /// The file name of level `level` (from 1) of the rest mesh, `<name>.lod<level>.rest.glb`.
    pub fn lod_file(&self, level: usize) -> String {
        description::lod_file(&self.name, level)
    }

    /// The settings as the description file records them.
    pub fn recorded(&self) -> description::Settings {
        description::Settings {
            fps: self.fps,
            fps_tolerance: self.fps_tolerance,
            max_frames: self.max_frames,
            max_width: self.max_width,
            points: self.points.to_string(),
            clips: self.clips.clone(),
            zstd_level: self.zstd_level,
            zstd_long: self.zstd_long,
            scene: self.scene.map(|s| s as u32),
            max_influences: self.max_influences.map(|n| n as u32),
            aliases_sha256: self.aliases.sha256.clone(),
            merge_clips: self.merge_clips,
            column_order: self.column_order,
            delta: self.delta,
            tolerance: match self.precision {
                Precision::Tolerance(t) => Some(t),
                _ => None,
            },
            bits: match self.precision {
                Precision::Bits(b) => Some(b),
                _ => None,
            },
            format: (self.format != OutputFormat::Vatbake).then(|| self.format.as_str().to_string()),
            mode: self.mode,
            loop_rows: self.loop_rows,
            sockets: self.sockets.clone(),
            root_motion: self.root_motion.default,
            root_motion_clips: self.root_motion.clips.clone(),
            max_height: self.max_height,
            normals: self.normals,
            animation_translations: self.animation_translations,
            lods: (!self.lods.0.is_empty()).then(|| self.lods.to_string()),
            rest_mesh: self.rest_mesh,
            bone_encoding: self.bone_encoding,
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
/// fixture from 0.53× to 0.48× of a 16-bit PNG of its texels in source order (0.86× of
/// one in the bake's own column order: "Texture size: honest baselines"); the bake stays
/// within 1.5× of the time the plain level-3 texture took before the spatial order and the delta.
pub const DEFAULT_ZSTD_LEVEL: i32 = 5;
/// Zstandard level of `--smallest` (with the long window): chosen by measurement
/// (docs/PERFORMANCE.md, "Texture size").
pub const SMALLEST_ZSTD_LEVEL: i32 = 19;

/// `--format` and `--target` take their names and each name's help line from the
/// registry (vat-export), so `--help` and the shell completions list every member as the
/// registry has it; a wrong name gets the registry's own error, as in a roster.
#[cfg(feature = "cli")]
fn registry<T>(about: fn(T) -> &'static str) -> Registry<T> {
    Registry { about }
}

#[cfg(feature = "cli")]
#[derive(Clone)]
struct Registry<T> {
    about: fn(T) -> &'static str,
}

#[cfg(feature = "cli")]
impl<T> clap::builder::TypedValueParser for Registry<T>
where
    T: strum::IntoEnumIterator + Into<&'static str> + std::str::FromStr<Err = String> + Copy + Send + Sync + 'static,
{
    type Value = T;

    fn parse_ref(
        &self,
        cmd: &clap::Command,
        arg: Option<&clap::Arg>,
        value: &std::ffi::OsStr,
    ) -> Result<T, clap::Error> {
        clap::builder::StringValueParser::new().try_map(|text| text.parse::<T>()).parse_ref(cmd, arg, value)
    }

    fn possible_values(&self) -> Option<Box<dyn Iterator<Item = clap::builder::PossibleValue> + '_>> {
        Some(Box::new(
            T::iter().map(|member| clap::builder::PossibleValue::new(member.into()).help((self.about)(member))),
        ))
    }
}

/// A bake's settings as a caller gives them, declared once: the roster's TOML keys
/// (serde) and, with the `cli` feature, `vatbake bake`'s flags (clap), each named after
/// its field (`max_frames` is `--max-frames`), each doc comment the flag's help. Every
/// one is optional: `None` (or `false`) is "not given", and [`BakeOptions::settings`]
/// applies the defaults and checks the values, once. [`BakeOptions::from_recorded`]
/// is the way back from a description.
///
/// ```
/// let options = vatbake::BakeOptions { points: Some("all".parse().unwrap()), ..Default::default() };
/// let settings = options.settings("fixtures/Fox/Fox.glb".into(), "out".into()).unwrap();
/// assert_eq!((settings.name.as_str(), settings.fps), ("Fox", 30.0));
/// ```
// The field comments are `vatbake bake --help` as a terminal shows it (`<name>`,
// `clips[i]`), not markdown, so rustdoc's markup lints do not apply to them.
#[allow(rustdoc::invalid_html_tags, rustdoc::broken_intra_doc_links)]
#[derive(Clone, Debug, Default, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
#[cfg_attr(feature = "cli", derive(clap::Args))]
pub struct BakeOptions {
    /// Rows per second to sample each clip at, or auto: each clip at the lowest whole rate (1 to 60) whose
    /// interpolation between rows stays within --fps-tolerance of its pose at 60 Hz (clips[i].auto_rate)
    /// [default: 30]
    #[serde(default, deserialize_with = "fps")]
    #[cfg_attr(feature = "cli", arg(long, value_name = "FPS|auto", allow_negative_numbers = true))]
    pub fps: Option<Fps>,
    /// With --fps auto: the largest error between rows, as a fraction of the animation bounds' diagonal
    /// (0.0037: 3.7 mm on a unit 1 m across) [default: 0.0037]
    #[cfg_attr(feature = "cli", arg(long, value_name = "FRACTION", allow_negative_numbers = true))]
    pub fps_tolerance: Option<f32>,
    /// Cap on rows per clip; longer clips are resampled evenly (their duration and rate are recorded).
    #[cfg_attr(feature = "cli", arg(long, value_name = "N"))]
    pub max_frames: Option<u32>,
    /// Widest texture to write; more points wrap into bands (WebGL in headless Chromium: 8192; many phones: 4096)
    /// [default: 16384]
    #[cfg_attr(feature = "cli", arg(long, value_name = "TEXELS"))]
    pub max_width: Option<u32>,
    /// Point budget: decimate to at most N points, nearby points merged, never across a uv seam or a
    /// material (the texture has one column per point); "all" bakes every point.
    /// [default: 4000, raised to the fewest points that keep every uv island when that is more]
    #[serde(default, deserialize_with = "budget")]
    #[cfg_attr(feature = "cli", arg(long, value_name = "N|all"))]
    pub points: Option<PointBudget>,
    /// Bake only these clips, by name (unnamed clips are "animation_<index>"), in this order.
    #[serde(default, deserialize_with = "names")]
    #[cfg_attr(feature = "cli", arg(long, value_delimiter = ',', value_name = "A,B"))]
    pub clips: Option<Vec<String>>,
    /// Stem of the output file names (default: the input's file stem).
    #[cfg_attr(feature = "cli", arg(long, value_name = "STEM"))]
    pub name: Option<String>,
    /// Zstandard level for the texture (1–22: higher is smaller and slower; -1 to -7: zstd's fastest modes;
    /// at least 9 for a texture of at most 64 KiB) [default: 5]
    #[cfg_attr(feature = "cli", arg(long, value_name = "LEVEL", allow_negative_numbers = true))]
    pub zstd_level: Option<i32>,
    /// The smallest texture, for release builds: Zstandard level 19 with long-distance matching over a
    /// 128 MiB window (slower to bake; any KTX2 reader still decodes it).
    #[serde(default)]
    #[cfg_attr(feature = "cli", arg(long, conflicts_with = "zstd_level"))]
    pub smallest: bool,
    /// Texture file format: ktx2, or png, a 16-bit fallback for tools that cannot read KTX2 [default: ktx2]
    #[cfg_attr(feature = "cli", arg(long, value_name = "ktx2|png"))]
    pub texture_format: Option<TextureFormat>,
    /// Scene to bake (default: the file's default scene).
    #[cfg_attr(feature = "cli", arg(long, value_name = "INDEX"))]
    pub scene: Option<usize>,
    /// Bake even when the evaluated mesh is far from the size its skeleton gives it in the bind pose.
    #[serde(default)]
    #[cfg_attr(feature = "cli", arg(long))]
    pub no_size_guard: bool,
    /// Joint influences kept per point, the strongest, renormalized (1–8; default: every one the file has).
    /// 4 bakes what a runtime that reads only JOINTS_0/WEIGHTS_0 (three.js's SkinnedMesh) shows.
    #[cfg_attr(feature = "cli", arg(long, value_name = "N"))]
    pub max_influences: Option<usize>,
    /// Alias table (TOML) of the game's slots and the clip names each accepts; replaces the built-in table.
    #[cfg_attr(feature = "cli", arg(long, value_name = "FILE"))]
    pub aliases: Option<PathBuf>,
    /// Also bake the clips of these animation files (a library made for the same skeleton: Mixamo, KayKit,
    /// Quaternius), each track bound to the model's node of the same name as three.js binds it (Mixamo's
    /// mixamorig prefix ignored)
    #[serde(default)]
    #[cfg_attr(feature = "cli", arg(long, value_name = "FILE", num_args = 1..))]
    pub animations: Option<Vec<PathBuf>>,
    /// A JSON object from the animation files' node names to the model's, for the names binding by name misses
    #[cfg_attr(feature = "cli", arg(long, value_name = "FILE"))]
    pub animation_names: Option<PathBuf>,
    /// Which translation tracks of --animations clips play: all (as three.js plays them) or root (the
    /// other joints keep the model's bone lengths) [default: all]
    #[serde(default, deserialize_with = "parsed")]
    #[cfg_attr(feature = "cli", arg(long, value_name = "all|root"))]
    pub animation_translations: Option<AnimationTranslations>,
    /// Make clip-name warnings errors: unassigned or unnamed clips, two clips for one slot, lookalikes, the fallback.
    #[serde(default)]
    #[cfg_attr(feature = "cli", arg(long))]
    pub strict: bool,
    /// Merge every set of animations with the same time range and no shared node property into one
    /// clip, whatever their names (default: only animations of one take split per node, or unnamed ones).
    #[serde(default)]
    #[cfg_attr(feature = "cli", arg(long, conflicts_with = "no_merge_clips"))]
    pub merge_clips: bool,
    /// Keep every source animation its own clip, even one take split into one animation per node.
    #[serde(default)]
    #[cfg_attr(feature = "cli", arg(long))]
    pub no_merge_clips: bool,
    /// Which point each texture column holds: spatial (the points sorted along a Z-order curve through
    /// their rest positions: a smaller texture) or source (column i is vertex i). TEXCOORD_1 follows either way
    /// [default: spatial]
    #[serde(default, deserialize_with = "parsed")]
    #[cfg_attr(feature = "cli", arg(long, value_name = "spatial|source"))]
    pub column_order: Option<vat_model::ColumnOrder>,
    /// Store each clip's rows as differences down the clip: row (each row minus the one before) or second
    /// (that twice over), for a much smaller texture; the player undoes it on load with running sums
    /// (texture.delta in the description, docs/FORMAT.md). none: the texels as a shader reads them,
    /// for players that cannot undo it. [default: second; none with --texture-format png]
    #[serde(default, deserialize_with = "parsed")]
    #[cfg_attr(feature = "cli", arg(long, value_name = "none|row|second"))]
    pub delta: Option<crate::delta::Delta>,
    /// Keep positions only this close (model units): each axis snapped to the coarsest power-of-two grid of
    /// 16-bit steps within the distance, for a smaller texture. The texels stay 16-bit; the description
    /// records the grid and the largest error measured. [default: every step]
    #[cfg_attr(
        feature = "cli",
        arg(long, value_name = "DIST", conflicts_with = "bits", allow_negative_numbers = true)
    )]
    pub tolerance: Option<f32>,
    /// Keep N significant bits per position axis (1–16), the low bits of each 16-bit value zero.
    /// [default: 16]
    #[cfg_attr(feature = "cli", arg(long, value_name = "N"))]
    pub bits: Option<u32>,
    /// Also write another tool's files beside the bake, for its players [default: vatbake]
    #[serde(default, deserialize_with = "parsed")]
    #[cfg_attr(feature = "cli", arg(long, value_name = "FORMAT", value_parser = registry(OutputFormat::about)))]
    pub format: Option<OutputFormat>,
    /// The engine the bake is for: other than three, a target record in the description, and for some
    /// a texture in the engine's space (docs/targets/) [default: three]
    #[serde(default, deserialize_with = "parsed")]
    #[cfg_attr(feature = "cli", arg(long, value_name = "TARGET", value_parser = registry(Target::about)))]
    pub target: Option<Target>,
    /// For each looping clip, append a copy of its first row after its last (unless it already ends on it),
    /// so a player interpolating between rows wraps with no jump (clips[i].loop_row).
    #[serde(default)]
    #[cfg_attr(feature = "cli", arg(long))]
    pub loop_rows: bool,
    /// Record these joints' world transforms (position + rotation quaternion) on every row, for attaching
    /// things without a skeleton (the description's sockets).
    #[serde(default, deserialize_with = "names")]
    #[cfg_attr(feature = "cli", arg(long, value_delimiter = ',', value_name = "JOINT,JOINT"))]
    pub sockets: Option<Vec<String>>,
    /// What to do with the root's horizontal motion: keep it in the texels, extract it (play in place,
    /// the motion recorded per row) or zero it; CLIP=MODE overrides one clip (e.g. extract,Idle=keep).
    /// The root is the skin's skeleton node, else its joints' common ancestor.
    #[serde(default, deserialize_with = "parsed")]
    #[cfg_attr(feature = "cli", arg(long, value_name = "MODE[,CLIP=MODE]"))]
    pub root_motion: Option<RootMotionChoice>,
    /// Largest texture, WIDTHxHEIGHT: more points wrap into bands (as --max-width), and a texture taller
    /// than HEIGHT is split into KTX2 array layers of at most HEIGHT rows.
    #[serde(default, deserialize_with = "parsed")]
    #[cfg_attr(feature = "cli", arg(long, value_name = "WxH", conflicts_with_all = ["max_width", "device"]))]
    pub max_size: Option<MaxSize>,
    /// A target's size bound and GPU memory budget: web (8192x8192, 128 MiB), mobile (4096x4096, 32 MiB)
    /// or desktop (16384x16384, 512 MiB).
    #[serde(default, deserialize_with = "parsed")]
    #[cfg_attr(feature = "cli", arg(long, value_name = "web|mobile|desktop"))]
    pub device: Option<Device>,
    /// Warn when a unit's texture takes more GPU memory (raw texel bytes) than this, e.g. 64MiB.
    #[serde(default, deserialize_with = "bytes")]
    #[cfg_attr(feature = "cli", arg(long, value_name = "BYTES", value_parser = parse_bytes))]
    pub gpu_budget: Option<u64>,
    /// Where the normals go: packed (octahedral 8+8 in the alpha), separate (octahedral 16+16 in their own
    /// array layers) or none (the alpha holds 0; the player uses rest or flat normals).
    #[serde(default, deserialize_with = "parsed")]
    #[cfg_attr(feature = "cli", arg(long, value_name = "packed|separate|none"))]
    pub normals: Option<NormalsMode>,
    /// What the texture holds: vertices (every point on every row) or bones (every joint's matrix on every
    /// row, 32-bit floats; the rest mesh keeps its joints and weights and the player skins it: far fewer
    /// texels for a detailed character; morph-target animation cannot be a bone bake). [default: vertices;
    /// bones with --format babylon]
    #[serde(default, deserialize_with = "parsed")]
    #[cfg_attr(feature = "cli", arg(long, value_name = "vertices|bones"))]
    pub mode: Option<BakeMode>,
    /// Coarser rest meshes that play from the same texture, finest first: numbers of points (1000,250) or
    /// fractions of the baked points (0.5,0.25). Each is <name>.lodN.rest.glb, a simplification whose points are
    /// baked points (no texture column of its own), its error over every row and the distance it may be shown
    /// from recorded in the description's lods. [default: none]
    #[serde(default, deserialize_with = "parsed")]
    #[cfg_attr(feature = "cli", arg(long, value_name = "N,N|R,R"))]
    pub lods: Option<LodChain>,
    /// How the rest GLB stores its mesh: plain (floats, every glTF reader) or meshopt (EXT_meshopt_compression,
    /// normals as 16-bit integers under KHR_mesh_quantization; positions and the column uv exact), for web builds whose
    /// loader has a meshopt decoder (three.js's GLTFLoader with MeshoptDecoder) [default: plain]
    #[serde(default, deserialize_with = "parsed")]
    #[cfg_attr(feature = "cli", arg(long, value_name = "plain|meshopt"))]
    pub rest_mesh: Option<RestMeshEncoding>,
    /// How a bone bake stores its matrices: float32 (4 RGBA32F texels a joint, exact) or quat16 (translation,
    /// uniform scale and a unit quaternion, 16 bits each: 2 RGBA16 texels a joint, a quarter of the GPU memory,
    /// within 4.4e-5 of the diagonal on the bundled models). A rig whose matrices that form cannot hold within 1e-4
    /// of the diagonal (non-uniform scale, shear) is baked in float32 with a warning [default: float32]
    #[serde(default, deserialize_with = "parsed")]
    #[cfg_attr(feature = "cli", arg(long, value_name = "float32|quat16"))]
    pub bone_encoding: Option<MatrixEncoding>,
    /// Do not sync the files and their folder to the disk around the renames. Synced by default, so that
    /// after a power cut the folder holds the earlier bake or this one, whole (docs/PERFORMANCE.md, "Durable
    /// writes", measures the cost); the renames alone already keep killed processes and readers from half a set.
    #[serde(default)]
    #[cfg_attr(feature = "cli", arg(long))]
    pub no_durable: bool,
    /// Keep the files an earlier bake of this name wrote that this bake does not (a --target EXR, a --format
    /// export, a level of detail), warning about each (stale-kept), instead of removing them (stale-removed).
    #[serde(default)]
    #[cfg_attr(feature = "cli", arg(long))]
    pub keep_stale: bool,
}

/// True when `out_dir` is the folder `input` is in (compared after resolving both, when they exist).
fn same_folder(input: &std::path::Path, out_dir: &std::path::Path) -> bool {
    let folder = input.parent().map(|p| if p.as_os_str().is_empty() { std::path::Path::new(".") } else { p });
    let resolve = |p: &std::path::Path| crate::host::canonicalize(p).unwrap_or_else(|_| p.to_path_buf());
    folder.is_some_and(|f| resolve(f) == resolve(out_dir))
}

/// Any setting from its text.
fn parsed<'de, D: serde::Deserializer<'de>, T: std::str::FromStr<Err = String>>(
    deserializer: D,
) -> Result<Option<T>, D::Error> {
    String::deserialize(deserializer)?.parse().map(Some).map_err(serde::de::Error::custom)
}

/// `fps` from a number or a string (`30`, `"30"`, `"auto"`).
fn fps<'de, D: serde::Deserializer<'de>>(deserializer: D) -> Result<Option<Fps>, D::Error> {
    #[derive(Deserialize)]
    #[serde(untagged)]
    enum Given {
        Rate(f32),
        Text(String),
    }
    match Given::deserialize(deserializer)? {
        Given::Rate(rate) => Ok(Some(Fps::Rate(rate))),
        Given::Text(text) => text.parse().map(Some).map_err(serde::de::Error::custom),
    }
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
        Bytes::Text(t) => crate::features::layers::parse_bytes(&t).map(Some).map_err(serde::de::Error::custom),
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
        let (fps, fps_tolerance) = match (self.fps, self.fps_tolerance) {
            (Some(Fps::Auto), tolerance) => (AUTO_CEILING, Some(tolerance.unwrap_or(DEFAULT_FPS_TOLERANCE))),
            (_, Some(tolerance)) => {
                return Err(Error::usage(format!(
                    "--fps-tolerance {tolerance}: it is the error --fps auto chooses each clip's rate by; \
                     add --fps auto, or drop --fps-tolerance"
                )))
            }
            (Some(Fps::Rate(fps)), None) => (fps, None),
            (None, None) => (DEFAULT_FPS, None),
        };
        if !(fps.is_finite() && fps > 0.0 && fps <= 1000.0) {
            return Err(Error::usage(format!(
                "--fps {fps}: give a rate above 0 and at most 1000 rows per second (e.g. 30), or auto"
            )));
        }
        if let Some(t) = fps_tolerance.filter(|t| !(t.is_finite() && *t > 0.0 && *t < 1.0)) {
            return Err(Error::usage(format!(
                "--fps-tolerance {t}: give the largest error between rows as a fraction of the animation's \
                 bounds diagonal, above 0 and below 1 (e.g. 0.0037)"
            )));
        }
        if self.max_frames == Some(0) {
            return Err(Error::usage("--max-frames 0: a clip needs at least one row"));
        }
        if self.max_size.is_some() && self.device.is_some() {
            return Err(Error::usage("--max-size and --device: both bound the texture's size; give one or the other"));
        }
        // --max-width is --max-size's width alone, kept as it was; with --max-size it
        // must agree, with --device it can only narrow the preset. A width given is
        // given, the default's value too.
        let bound = self.max_size.or(self.device.map(crate::features::layers::Device::max_size));
        let max_width = match (self.max_size, self.device) {
            (Some(size), _) => match self.max_width {
                Some(w) if w != size.width => {
                    return Err(Error::usage(format!(
                        "--max-width {w} with --max-size {}x{}: --max-size bounds the width too; drop --max-width",
                        size.width, size.height
                    )))
                }
                _ => size.width,
            },
            (None, Some(device)) => self.max_width.map_or(device.max_size().width, |w| w.min(device.max_size().width)),
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
        } else if let Some(encoding) = self.bone_encoding.filter(|&e| e != MatrixEncoding::Float32) {
            return Err(Error::usage(format!(
                "--bone-encoding {encoding} with --mode vertices: it says how a bone bake stores its joint matrices; \
                 give --mode bones, or drop --bone-encoding"
            )));
        }
        let delta = if mode == BakeMode::Bones { crate::delta::Delta::None } else { delta };
        let extracting = self.root_motion.as_ref().is_some_and(|r| {
            r.default == crate::features::root_motion::RootMotion::Extract
                || r.clips.values().any(|&m| m == crate::features::root_motion::RootMotion::Extract)
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
        if input.is_dir() {
            return Err(Error::input(format!(
                "{}: a folder, not a model; give a .glb or .gltf file (for every model in a folder, a roster's \
                 glob: docs/ROSTER.md)",
                input.display()
            )));
        }
        let given = self.name.is_some();
        let name = match self.name {
            Some(n) => n,
            None => input.file_stem().map(|s| s.to_string_lossy().into_owned()).ok_or_else(|| {
                Error::usage(format!("{}: no file name to name the outputs after; pass --name", input.display()))
            })?,
        };
        description::check_file_name(&name).map_err(|e| match given {
            true => Error::usage(format!("--name: {e}")),
            false => Error::usage(format!(
                "{}: its file name cannot name the outputs ({e}); pass --name NAME",
                input.display()
            )),
        })?;
        Ok(BakeSettings {
            input,
            out_dir,
            name,
            fps,
            fps_tolerance,
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
            durable: !self.no_durable,
            keep_stale: self.keep_stale,
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
            gpu_budget: self.gpu_budget.or(self.device.map(crate::features::layers::Device::gpu_budget)),
            animations: self.animations.unwrap_or_default(),
            animation_names: AnimationNames::load(self.animation_names.as_deref())?,
            animation_translations: self.animation_translations.unwrap_or_default(),
            lods: self.lods.unwrap_or_default(),
            rest_mesh: self.rest_mesh.unwrap_or_default(),
            bone_encoding: self.bone_encoding.unwrap_or_default(),
        })
    }
}

impl BakeOptions {
    /// The options that bake again what a description records, the way back from
    /// [`BakeSettings::recorded`]: `recorded` is the description's `settings`, `container`
    /// its `texture.container` and `target` its `target.name` (none: three). Each value is
    /// given as the flag would give it, and left out where the record is the default (so
    /// a bone bake's options pass its checks); an error names the record that cannot be
    /// read.
    ///
    /// What a description does not record comes back as not given: the name (the
    /// caller's), the alias table's file (the description has its SHA-256), the size
    /// guard and `strict` (they decide whether to bake, not what), the GPU budget (a
    /// warning's threshold) and `device` (recorded as the size bound it gave). The
    /// point budget comes back as given: the record does not say whether it was.
    pub fn from_recorded(
        recorded: &description::Settings,
        container: TextureFormat,
        target: Option<&str>,
    ) -> Result<BakeOptions, Error> {
        fn read<T: std::str::FromStr<Err = String>>(key: &str, text: &str) -> Result<T, Error> {
            text.parse().map_err(|e: String| Error::usage(format!("{key}: {e}")))
        }
        let s = recorded;
        let (merge_clips, no_merge_clips) = match s.merge_clips {
            description::MergeClips::Auto => (false, false),
            description::MergeClips::Always => (true, false),
            description::MergeClips::Never => (false, true),
        };
        let root_motion = RootMotionChoice { default: s.root_motion, clips: s.root_motion_clips.clone() };
        let normals = s.normals;
        Ok(BakeOptions {
            fps: Some(if s.fps_tolerance.is_some() { Fps::Auto } else { Fps::Rate(s.fps) }),
            fps_tolerance: s.fps_tolerance,
            max_frames: s.max_frames,
            // With a height bound, the width is --max-size's.
            max_width: s.max_height.is_none().then_some(s.max_width),
            points: Some(read("points", &s.points)?),
            clips: s.clips.clone(),
            name: None,
            zstd_level: (!s.zstd_long).then_some(s.zstd_level),
            smallest: s.zstd_long,
            texture_format: Some(container),
            scene: s.scene.map(|n| n as usize),
            no_size_guard: false,
            max_influences: s.max_influences.map(|n| n as usize),
            aliases: None,
            strict: false,
            merge_clips,
            no_merge_clips,
            column_order: Some(s.column_order),
            delta: Some(s.delta),
            tolerance: s.tolerance,
            bits: s.bits,
            format: s.format.as_deref().map(|f| read("format", f)).transpose()?,
            target: target.map(|t| read("target", t)).transpose()?,
            loop_rows: s.loop_rows,
            sockets: (!s.sockets.is_empty()).then(|| s.sockets.clone()),
            root_motion: (root_motion != RootMotionChoice::default()).then_some(root_motion),
            max_size: s.max_height.map(|height| MaxSize { width: s.max_width, height }),
            device: None,
            gpu_budget: None,
            normals: (normals != NormalsMode::default()).then_some(normals),
            mode: Some(s.mode),
            // The files are the description's `animations`, found again beside the source
            // by whoever bakes again (verify); the name map's record is its SHA-256.
            animations: None,
            animation_names: None,
            animation_translations: (s.animation_translations != AnimationTranslations::default())
                .then_some(s.animation_translations),
            lods: s.lods.as_deref().map(|l| read("lods", l)).transpose()?,
            rest_mesh: (s.rest_mesh != RestMeshEncoding::default()).then_some(s.rest_mesh),
            bone_encoding: (s.bone_encoding != MatrixEncoding::default()).then_some(s.bone_encoding),
            // How the files are written changes no byte of them: whoever bakes again decides.
            no_durable: false,
            keep_stale: false,
        })
    }

    /// [`BakeOptions::from_recorded`] with what `description` records.
    pub fn from_description(description: &description::Description) -> Result<BakeOptions, Error> {
        BakeOptions::from_recorded(
            &description.settings,
            description.texture.container,
            description.target.as_ref().map(|t| t.name.as_str()),
        )
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
        (options.lods.is_some(), "--lods"),
        (options.rest_mesh.is_some_and(|m| m != RestMeshEncoding::Plain), "--rest-mesh"),
    ];
    if let Some((_, flag)) = playback.iter().find(|(given, _)| *given) {
        if format.needs_bones() {
            // The format chose the bone bake: --mode vertices is no way out there.
            return Err(Error::usage(format!(
                "{flag} with --format {format}: {} plays joint matrices (a bone bake), and {flag} is a vertex \
                 bake's feature; drop {flag}, or leave --format out for a vertex bake that has it",
                format.players()
            )));
        }
        return refuse(
            (*flag).into(),
            "that is a vertex bake's feature, not written for bone bakes yet; give --mode vertices",
        );
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::BTreeSet;
    use vat_model::ColumnOrder;

    use crate::delta::Delta;

    /// A table with other bytes than the built-in one's.
    /// Written once per process: tests on other threads read it meanwhile.
    fn alias_file() -> PathBuf {
        static FILE: std::sync::OnceLock<PathBuf> = std::sync::OnceLock::new();
        FILE.get_or_init(|| {
            let file = std::env::temp_dir().join(format!("vatbake-settings-test-aliases-{}.toml", std::process::id()));
            std::fs::write(&file, format!("{}\n# the game's own copy\n", vat_audit::BUILTIN_TABLE)).unwrap();
            file
        })
        .clone()
    }

    /// A vertex bake with every option given, each away from its default where the others
    /// allow it. A struct literal without `..`: an option added to [`BakeOptions`] does not
    /// compile here until it is given a value.
    fn every_option() -> BakeOptions {
        BakeOptions {
            fps: Some(Fps::Auto),
            fps_tolerance: Some(0.005),
            max_frames: Some(12),
            max_width: Some(2048),
            points: Some(PointBudget::Count(123)),
            clips: Some(vec!["Walk".into(), "Idle".into()]),
            name: Some("unit".into()),
            zstd_level: Some(9),
            smallest: false,
            texture_format: Some(TextureFormat::Ktx2),
            scene: Some(1),
            no_size_guard: true,
            max_influences: Some(4),
            aliases: Some(alias_file()),
            strict: true,
            merge_clips: true,
            no_merge_clips: false,
            column_order: Some(ColumnOrder::Source),
            delta: Some(Delta::Row),
            tolerance: Some(0.01),
            bits: None,
            format: Some(OutputFormat::Vat3),
            target: Some(Target::Unity),
            loop_rows: true,
            sockets: Some(vec!["hand_r".into(), "head".into()]),
            root_motion: Some("zero,Idle=keep".parse().unwrap()),
            max_size: None,
            device: Some(Device::Mobile),
            gpu_budget: Some(1 << 20),
            normals: Some(NormalsMode::Separate),
            mode: Some(BakeMode::Vertices),
            animations: Some(vec!["library.glb".into()]),
            animation_names: Some(name_map_file()),
            animation_translations: Some(AnimationTranslations::Root),
            lods: Some("1000,250".parse().unwrap()),
            rest_mesh: Some(RestMeshEncoding::Meshopt),
            // A bone bake's (bone_options gives it).
            bone_encoding: None,
            no_durable: true,
            keep_stale: true,
        }
    }

    /// A name map for `--animation-names`.
    /// Written once per process, as [`alias_file`].
    fn name_map_file() -> PathBuf {
        static FILE: std::sync::OnceLock<PathBuf> = std::sync::OnceLock::new();
        FILE.get_or_init(|| {
            let file = std::env::temp_dir().join(format!("vatbake-settings-test-names-{}.json", std::process::id()));
            std::fs::write(&file, r#"{"mixamorig:Hips": "Hips"}"#).unwrap();
            file
        })
        .clone()
    }

    /// The options [`every_option`] cannot hold beside the others: `--smallest`, a PNG,
    /// `--no-merge-clips`, `--bits`, `--max-size`, another format and target.
    fn the_other_options() -> BakeOptions {
        BakeOptions {
            max_width: None,
            zstd_level: None,
            smallest: true,
            texture_format: Some(TextureFormat::Png),
            merge_clips: false,
            no_merge_clips: true,
            delta: Some(Delta::None),
            tolerance: None,
            bits: Some(8),
            format: Some(OutputFormat::Openvat),
            target: Some(Target::Godot),
            root_motion: Some("Walk=zero".parse().unwrap()),
            max_size: Some(MaxSize { width: 1024, height: 512 }),
            device: None,
            normals: Some(NormalsMode::None),
            lods: Some("0.5,0.125".parse().unwrap()),
            ..every_option()
        }
    }

    /// A bone bake: what a vertex bake's options would refuse left out.
    fn bone_options() -> BakeOptions {
        BakeOptions {
            points: Some(PointBudget::All),
            delta: None,
            tolerance: None,
            format: Some(OutputFormat::Babylon),
            target: None,
            loop_rows: false,
            sockets: None,
            root_motion: None,
            device: None,
            normals: None,
            lods: None,
            rest_mesh: None,
            mode: Some(BakeMode::Bones),
            bone_encoding: Some(MatrixEncoding::Quat16),
            ..every_option()
        }
    }

    fn settings_of(options: BakeOptions) -> BakeSettings {
        options.settings("models/model.glb".into(), "out".into()).unwrap()
    }

    /// [`FIELDS`], every field of [`BakeSettings`], and `differing(a, b)`, the fields in
    /// which two settings differ.
    macro_rules! settings_fields {
        ($($field:ident),* $(,)?) => {
            const FIELDS: &[&str] = &[$(stringify!($field)),*];

            fn differing(a: &BakeSettings, b: &BakeSettings) -> BTreeSet<&'static str> {
                // Every field named, no `..`: a field added to BakeSettings does not
                // compile here until it is listed.
                let BakeSettings { $($field),* } = a;
                let mut fields = BTreeSet::new();
                $(if *$field != b.$field {
                    fields.insert(stringify!($field));
                })*
                fields
            }
        };
    }

    settings_fields!(
        input,
        out_dir,
        name,
        fps,
        fps_tolerance,
        max_frames,
        max_width,
        points,
        points_given,
        clips,
        zstd_level,
        zstd_long,
        texture_format,
        scene,
        size_guard,
        max_influences,
        aliases,
        strict,
        merge_clips,
        durable,
        keep_stale,
        column_order,
        delta,
        precision,
        format,
        mode,
        target,
        loop_rows,
        sockets,
        root_motion,
        max_height,
        normals,
        gpu_budget,
        animations,
        animation_names,
        animation_translations,
        lods,
        rest_mesh,
        bone_encoding,
    );

    /// What a description cannot give back, by nature, and why.
    const NOT_RECORDED: &[(&str, &str)] = &[
        ("name", "the description's file names carry it; whoever bakes again names the bake"),
        ("aliases", "the description records the table's SHA-256, not the file it was read from"),
        ("size_guard", "it decides whether to bake, not what is baked"),
        ("strict", "it decides whether to bake, not what is baked"),
        ("gpu_budget", "a warning's threshold (--device's is recorded as the size bound it gave)"),
        ("points_given", "the description records the budget, not whether it was given"),
        ("durable", "whether the files are synced (--no-durable): no byte changes"),
        ("keep_stale", "whether an earlier bake's files are kept (--keep-stale): no byte of this bake changes"),
    ];

    /// Fields no option sets: the caller's.
    const NOT_OPTIONS: &[(&str, &str)] = &[
        ("input", "the model: an argument of BakeOptions::settings"),
        ("out_dir", "the folder: an argument of BakeOptions::settings"),
    ];

    #[test]
    fn every_setting_comes_back_from_what_the_description_records() {
        let defaults = settings_of(BakeOptions::default());
        let mut varied = BTreeSet::new();
        for options in [every_option(), the_other_options(), bone_options()] {
            let settings = settings_of(options.clone());
            varied.extend(differing(&defaults, &settings));
            // The description has no target record for three.
            let target = (settings.target != Target::Three).then(|| settings.target.as_str());
            let recorded = settings.recorded();
            let mut back = BakeOptions::from_recorded(&recorded, settings.texture_format, target).unwrap();
            // The table's file is given again by whoever bakes again; the record's SHA-256
            // says whether it is the same table.
            back.aliases = options.aliases;
            // So are the animation files and the name map (the description's
            // `animations` and `animation_names`, found again where it records them).
            back.animations = options.animations;
            back.animation_names = options.animation_names;
            let again = settings_of(back);
            assert_eq!(again.recorded(), recorded);
            let lost = differing(&settings, &again);
            let allowed: BTreeSet<&str> = NOT_RECORDED.iter().map(|(field, _)| *field).collect();
            assert!(lost.is_subset(&allowed), "lost on the way back: {:?}", lost.difference(&allowed));
        }
        // Every field an option sets was away from its default in one of the sets, so
        // each one's way back was tried.
        let fixed: BTreeSet<&str> = NOT_OPTIONS.iter().map(|(field, _)| *field).collect();
        let untried: Vec<&str> = FIELDS.iter().copied().filter(|f| !varied.contains(f) && !fixed.contains(f)).collect();
        assert!(untried.is_empty(), "no set of options moves {untried:?} from its default");
    }

    #[test]
    fn a_width_given_is_given_even_at_the_default_value() {
        let options = |toml: &str| toml::from_str::<BakeOptions>(toml).unwrap();
        let error = settings_of_err(options("max_size = \"4096x4096\"\nmax_width = 16384"));
        assert_eq!(
            error.message,
            "--max-width 16384 with --max-size 4096x4096: --max-size bounds the width too; drop --max-width"
        );
        let agreeing = settings_of(options("max_size = \"16384x4096\"\nmax_width = 16384"));
        assert_eq!((agreeing.max_width, agreeing.max_height), (16_384, Some(4096)));
        // --device's width can only be narrowed.
        let device = settings_of(options("device = \"mobile\"\nmax_width = 16384"));
        assert_eq!((device.max_width, device.max_height), (4096, Some(4096)));
        let narrowed = settings_of(options("device = \"mobile\"\nmax_width = 1024"));
        assert_eq!((narrowed.max_width, narrowed.max_height), (1024, Some(4096)));
    }

    fn settings_of_err(options: BakeOptions) -> Error {
        options.settings("models/model.glb".into(), "out".into()).unwrap_err()
    }

    #[test]
    fn options_left_out_take_the_documented_defaults() {
        let s = settings_of(BakeOptions::default());
        assert_eq!(
            (s.fps, s.max_width, s.max_height, s.points, s.points_given, s.zstd_level, s.zstd_long),
            (30.0, 16_384, None, PointBudget::Count(4000), false, 5, false)
        );
        assert_eq!((s.fps, s.max_width, s.zstd_level), (DEFAULT_FPS, DEFAULT_MAX_WIDTH, DEFAULT_ZSTD_LEVEL));
        assert_eq!((s.texture_format, s.delta, s.precision), (TextureFormat::Ktx2, Delta::Second, Precision::Full));
        assert_eq!((s.format, s.target, s.mode), (OutputFormat::Vatbake, Target::Three, BakeMode::Vertices));
        assert_eq!((s.column_order, s.normals), (ColumnOrder::Spatial, NormalsMode::Packed));
        // Synced to the disk, and an earlier bake's files removed, unless asked otherwise.
        assert_eq!((s.durable, s.keep_stale), (true, false));
        let png = settings_of(BakeOptions { texture_format: Some(TextureFormat::Png), ..BakeOptions::default() });
        assert_eq!(png.delta, Delta::None);
        let smallest = settings_of(BakeOptions { smallest: true, ..BakeOptions::default() });
        assert_eq!((smallest.zstd_level, smallest.zstd_long), (SMALLEST_ZSTD_LEVEL, true));
    }

    #[test]
    fn lods_are_points_or_fractions_finest_first() {
        let chain: LodChain = "1000, 250".parse().unwrap();
        assert_eq!(chain.0, [LodBudget::Points(1000), LodBudget::Points(250)]);
        assert_eq!(chain.to_string(), "1000,250");
        let ratios: LodChain = "0.5,0.25".parse().unwrap();
        assert_eq!(ratios.0.iter().map(|b| b.of(3273)).collect::<Vec<_>>(), [1637, 818]);
        assert_eq!(ratios.to_string(), "0.5,0.25");
        assert_eq!(
            "250,1000".parse::<LodChain>().unwrap_err(),
            "1000 after 250: each level must keep fewer points than the one before; list them finest first, e.g. 1000,250"
        );
        assert!("0.5,0.5".parse::<LodChain>().unwrap_err().starts_with("0.5 after 0.5:"));
        for bad in ["0", "1.0", "-3", "half", ""] {
            let error = bad.parse::<LodChain>().unwrap_err();
            assert!(error.starts_with(&format!("\"{bad}\" is not a level")), "{bad}: {error}");
        }
        let error = settings_of_err(BakeOptions { lods: Some(chain), format: None, ..bone_options() });
        assert_eq!(
            error.message,
            "--lods with --mode bones: that is a vertex bake's feature, not written for bone bakes yet; give --mode vertices"
        );
        // With a format that is a bone bake, --mode vertices is no way out: drop --lods.
        let error = settings_of_err(BakeOptions { lods: Some("0.5".parse().unwrap()), ..bone_options() });
        assert!(
            error.message.starts_with("--lods with --format babylon: ")
                && error.message.ends_with("drop --lods, or leave --format out for a vertex bake that has it"),
            "{}",
            error.message
        );
    }
}
