//! Flags turned into validated settings, once.

use std::path::PathBuf;

use crate::description;
use crate::slots::Aliases;

/// The point budget of a bake when none is given.
pub const DEFAULT_POINTS: u32 = 4000;

/// The point budget of a bake.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PointBudget {
    All,
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
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum TextureFormat {
    /// KTX 2.0 with Zstandard supercompression.
    Ktx2,
    /// 16-bit RGBA PNG: a fallback for tools that read nothing else.
    Png,
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

/// Everything one bake needs to know.
#[derive(Clone, Debug)]
pub struct BakeSettings {
    pub input: PathBuf,
    pub out_dir: PathBuf,
    /// Stem of the output files.
    pub name: String,
    pub fps: f32,
    pub max_frames: Option<u32>,
    pub max_width: u32,
    pub points: PointBudget,
    /// The budget was given (`--points`): one that cannot keep every uv island is
    /// refused. The default is raised to the fewest points that keep them.
    pub points_given: bool,
    pub clips: Option<Vec<String>>,
    pub zstd_level: i32,
    pub texture_format: TextureFormat,
    pub scene: Option<usize>,
    pub size_guard: bool,
    /// Joint influences kept per point; `None`: every one the file has (up to 8).
    pub max_influences: Option<usize>,
    /// The table that gives each clip its slot.
    pub aliases: Aliases,
    /// Clip-name warnings are errors.
    pub strict: bool,
    /// Whether animations split per node are merged back into their take.
    pub merge_clips: vat_gltf::MergeClips,
}

impl BakeSettings {
    /// The description's file name, `<name>.vat.json`.
    pub fn description_file(&self) -> String {
        format!("{}.vat.json", self.name)
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
            scene: self.scene.map(|s| s as u32),
            max_influences: self.max_influences.map(|n| n as u32),
            aliases_sha256: self.aliases.sha256.clone(),
            merge_clips: self.merge_clips.as_str().to_string(),
        }
    }
}
