//! `vatbake impostor`: a finished bake drawn into an animated impostor, the crowd's
//! last level of detail. Every clip is sampled at a fixed rate of clip time, every
//! frame drawn from a ring (or rings) of directions around the unit by vat-preview's
//! rasterizer ([`vat_preview::render_cell`]), and the cells packed into two 8-bit
//! atlases (KTX 2.0 + Zstandard: base colour and coverage as `R8G8B8A8_SRGB`, normal
//! and depth as `R8G8B8A8_UNORM`) with a sidecar `<name>.impostor.json` that says where
//! each frame and view is ([`vat_description::impostor::Impostor`]).
//!
//! The poses are the shipped texture's, decoded as a player decodes them; the colour is
//! the rest mesh's material (base colour factor × texture through uv0). Cells are drawn
//! in parallel and placed in a fixed order: the same bytes at any thread count.
//!
//! ```no_run
//! use vatbake::impostor::{impostor, ImpostorSettings};
//! let report = impostor(&ImpostorSettings::new("out/Fox.vat.json"))?;
//! println!("{} cells into {} × {} texels", report.cells, report.size[0], report.size[1]);
//! # Ok::<(), vatbake::Error>(())
//! ```

use std::path::{Path, PathBuf};
use std::time::Instant;

use glam::Vec3;
use rayon::prelude::*;
use serde::{Deserialize, Serialize};
use vat_description::impostor::{
    impostor_file, Impostor, ImpostorClip, Views, IMPOSTOR_FORMAT, IMPOSTOR_FORMAT_VERSION,
};
use vat_description::ExportFile;

use crate::error::Error;
use crate::shipped::{read, Shipped};
use crate::staging::Staged;

/// With `--fps auto` (the default): the farthest, in cell texels, any point of a clip's
/// stored poses may be from where the frame shown for it draws that point. See
/// docs/IMPOSTORS.md ("Frames per clip") for the measurement behind it.
pub const DEFAULT_MOTION: f32 = 2.0;
/// Texels per side of a cell when none is given.
pub const DEFAULT_CELL: u32 = 64;
/// Directions around the unit per ring when none is given.
pub const DEFAULT_AZIMUTHS: u32 = 8;
/// The rings' elevations (degrees) when none are given.
pub const DEFAULT_ELEVATIONS: [f32; 1] = [0.0];
/// The widest and tallest atlas written: 4096 texels, what every WebGL 2 device samples.
pub const MAX_ATLAS_SIDE: u32 = 4096;

/// How to draw an impostor: `vatbake impostor`'s flags and a roster's `impostor` table
/// (docs/ROSTER.md), declared once here. Each field's comment is its `--help` text.
#[derive(Clone, Debug, PartialEq, Deserialize)]
#[serde(deny_unknown_fields, default)]
#[cfg_attr(feature = "cli", derive(clap::Args))]
pub struct ImpostorOptions {
    /// Directions around the unit on each ring (8 or 16 are usual).
    #[cfg_attr(feature = "cli", arg(long, default_value_t = DEFAULT_AZIMUTHS, value_name = "N"))]
    pub views: u32,
    /// The rings' elevations above the ground in degrees, lowest first (comma-separated; e.g. 45 for a strategy camera's pitch).
    #[cfg_attr(
        feature = "cli",
        arg(long, value_delimiter = ',', default_value = "0", value_name = "DEGREES", allow_negative_numbers = true)
    )]
    pub elevations: Vec<f32>,
    /// Frames per second of clip time: `auto` chooses each clip's by its motion (--motion), a number fixes one for all.
    #[cfg_attr(feature = "cli", arg(long, default_value_t = FrameRate::Auto, value_name = "N|auto"))]
    pub fps: FrameRate,
    /// With --fps auto: the farthest, in cell texels, any point of a stored pose may be from where the frame shown for it draws that point.
    #[cfg_attr(feature = "cli", arg(long, default_value_t = DEFAULT_MOTION, value_name = "TEXELS"))]
    pub motion: f32,
    /// Texels per side of one cell (one frame from one view).
    #[cfg_attr(feature = "cli", arg(long, default_value_t = DEFAULT_CELL, value_name = "PX"))]
    pub cell: u32,
}

impl Default for ImpostorOptions {
    /// 8 azimuths on one level ring, each clip's frames chosen by its motion, 64-texel cells.
    fn default() -> Self {
        ImpostorOptions {
            views: DEFAULT_AZIMUTHS,
            elevations: DEFAULT_ELEVATIONS.to_vec(),
            fps: FrameRate::Auto,
            motion: DEFAULT_MOTION,
            cell: DEFAULT_CELL,
        }
    }
}

/// How many frames each clip gets: `auto` (by its motion) or a fixed rate of clip time.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum FrameRate {
    /// Each clip the fewest frames that keep every stored pose within `motion` texels
    /// of the frame shown for it ([`choose_steps`]).
    Auto,
    /// Frames per second of clip time, the same for every clip.
    Fixed(f32),
}

impl std::fmt::Display for FrameRate {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            FrameRate::Auto => f.write_str("auto"),
            FrameRate::Fixed(fps) => write!(f, "{fps}"),
        }
    }
}

impl std::str::FromStr for FrameRate {
    type Err = String;
    fn from_str(text: &str) -> Result<Self, String> {
        if text == "auto" {
            return Ok(FrameRate::Auto);
        }
        text.parse::<f32>()
            .map(FrameRate::Fixed)
            .map_err(|_| format!("{text:?}: give auto or a number of frames per second, like 10"))
    }
}

impl<'de> Deserialize<'de> for FrameRate {
    /// A roster's `fps = "auto"` or `fps = 10`.
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        #[derive(Deserialize)]
        #[serde(untagged)]
        enum Given {
            Number(f32),
            Text(String),
        }
        match Given::deserialize(deserializer)? {
            Given::Number(fps) => Ok(FrameRate::Fixed(fps)),
            Given::Text(text) => text.parse().map_err(serde::de::Error::custom),
        }
    }
}

/// A clip's frames: `steps` intervals over its duration (a looping clip shows `steps`
/// frames, another `steps + 1`), and the farthest any point of a stored pose is from
/// where the frame shown for it draws that point (model units).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Steps {
    /// Intervals between frames over the clip's duration.
    pub steps: u32,
    /// The largest displacement, in model units.
    pub motion: f32,
}

/// The frame a player shows at the time of stored row `k` of `rows` (0-based), when the
/// clip has `steps` intervals: the nearest one (a cross-fade of two frames, alpha-tested
/// at one half, shows the nearer one's silhouette), as a position in rows, the frame's
/// index within the clip.
fn shown_frame(k: usize, rows: usize, steps: u32, looping: bool) -> (f32, u32) {
    let intervals = (rows - 1) as f32;
    let frame = ((k as f32 * steps as f32 / intervals).round() as u32).min(steps);
    // A looping clip's frame `steps` is its frame 0 (time wraps).
    let frame = if looping && frame == steps { 0 } else { frame };
    (frame as f32 * intervals / steps as f32, frame)
}

/// The largest distance between a stored pose (`rows[k]`, positions per point) and the
/// pose of the frame a player shows at its time, over every row and point, when the clip
/// has `steps` intervals; stops early once past `limit`.
pub fn motion_at(rows: &[Vec<Vec3>], steps: u32, looping: bool, limit: f32) -> f32 {
    if rows.len() < 2 {
        return 0.0;
    }
    let mut worst = 0.0f32;
    for (k, row) in rows.iter().enumerate() {
        let (at, _) = shown_frame(k, rows.len(), steps, looping);
        let below = (at.floor() as usize).min(rows.len() - 1);
        let above = (below + 1).min(rows.len() - 1);
        let t = at - below as f32;
        for (p, point) in row.iter().enumerate() {
            let shown = rows[below][p].lerp(rows[above][p], t);
            worst = worst.max(point.distance(shown));
        }
        if worst > limit {
            return worst;
        }
    }
    worst
}

/// The fewest intervals (1 to one per stored row interval) for which every stored pose
/// of a clip is within `tolerance` (model units) of the frame a player shows at its time;
/// one per row interval (every row a frame) when none fewer is. `rows`: the clip's
/// decoded positions, one `Vec` per row.
///
/// Candidates are measured a thread pool's width at a time, in parallel, and the first
/// that passes is taken: the same answer at any thread count.
pub fn choose_steps(rows: &[Vec<Vec3>], looping: bool, tolerance: f32) -> Steps {
    let most = (rows.len().max(2) - 1) as u32;
    let width = rayon::current_num_threads().max(1) as u32;
    let mut first = 1;
    while first < most {
        let last = (first + width).min(most);
        let measured: Vec<(u32, f32)> =
            (first..last).into_par_iter().map(|steps| (steps, motion_at(rows, steps, looping, tolerance))).collect();
        if let Some(&(steps, motion)) = measured.iter().find(|(_, motion)| *motion <= tolerance) {
            return Steps { steps, motion };
        }
        first = last;
    }
    Steps { steps: most, motion: motion_at(rows, most, looping, f32::INFINITY) }
}

impl ImpostorOptions {
    /// A usage error naming the first setting out of range.
    pub fn check(&self) -> Result<(), Error> {
        let bad = |what: String| Err(Error::usage(what));
        if !(1..=64).contains(&self.views) {
            return bad(format!("--views {}: give 1 to 64 directions around the unit (8 or 16 are usual)", self.views));
        }
        if self.elevations.is_empty() || self.elevations.len() > 8 {
            return bad("--elevations: give 1 to 8 ring elevations in degrees, like 0 or 0,30,60".to_string());
        }
        if let Some(e) = self.elevations.iter().find(|e| !(-90.0..=90.0).contains(*e)) {
            return bad(format!("--elevations {e}: an elevation is −90 to 90 degrees"));
        }
        if self.elevations.windows(2).any(|w| w[0] >= w[1]) {
            return bad("--elevations: list the rings once each, lowest first, like 0,30,60".to_string());
        }
        if let FrameRate::Fixed(fps) = self.fps {
            if !(0.5..=60.0).contains(&fps) {
                return bad(format!("--fps {fps}: give auto or 0.5 to 60 frames per second of clip time"));
            }
        }
        if !(0.05..=64.0).contains(&self.motion) {
            return bad(format!("--motion {}: give 0.05 to 64 cell texels", self.motion));
        }
        if !(8..=512).contains(&self.cell) {
            return bad(format!("--cell {}: give 8 to 512 texels per side of a cell", self.cell));
        }
        Ok(())
    }
}

/// What to draw and where.
#[derive(Clone, Debug, PartialEq)]
pub struct ImpostorSettings {
    /// The description (`*.vat.json`) of a vertex bake.
    pub description: PathBuf,
    /// The folder to write into; `None`: the description's own.
    pub out: Option<PathBuf>,
    /// How to draw it.
    pub options: ImpostorOptions,
}

impl ImpostorSettings {
    /// The defaults ([`ImpostorOptions::default`]), written beside the description.
    pub fn new(description: impl Into<PathBuf>) -> Self {
        ImpostorSettings { description: description.into(), out: None, options: ImpostorOptions::default() }
    }
}

/// What `vatbake impostor` wrote, as `--json` prints it.
#[derive(Clone, Debug, Serialize)]
pub struct ImpostorReport {
    /// The description drawn.
    pub description: PathBuf,
    /// Files written: the sidecar, the colour atlas, the normal atlas.
    pub files: Vec<PathBuf>,
    /// Clips drawn.
    pub clips: usize,
    /// Frames over all clips.
    pub frames: u32,
    /// Views per frame (azimuths × rings).
    pub views: u32,
    /// Cells drawn (frames × views).
    pub cells: u32,
    /// Width and height of each atlas, in texels.
    pub size: [u32; 2],
    /// Bytes both atlases take on a GPU, uncompressed (width × height × 4 each): per unit type.
    pub gpu_bytes: u64,
    /// Bytes of both atlas files.
    pub file_bytes: u64,
    /// Wall time in milliseconds.
    pub elapsed_ms: f64,
}

/// One frame to draw: a clip's pose at one time, decoded.
struct Pose {
    positions: Vec<[f32; 3]>,
    normals: Vec<[f32; 3]>,
}

/// Draws the impostor `settings` asks for and writes its three files, all or nothing.
pub fn impostor(settings: &ImpostorSettings) -> Result<ImpostorReport, Error> {
    let started = Instant::now();
    let options = &settings.options;
    options.check()?;
    let path = &settings.description;
    let files = crate::shipped::ShippedFiles::read(path)?;
    if files.description.bones.is_some() {
        return Err(Error::usage(format!(
            "{}: a bone bake (--mode bones): its texture holds joint matrices, not points; bake the unit with \
             --mode vertices to make its impostor",
            path.display()
        )));
    }
    let folder = files.folder().to_path_buf();
    let mesh_bytes =
        read::read_regular(&files.mesh, Some(&folder), read::REST_MESH_MAX_BYTES, "bytes a rest mesh may have")
            .map_err(|e| Error::input(format!("{e}; give the .rest.glb file a bake wrote")))?;
    let description_bytes = read::read_regular(path, None, read::DESCRIPTION_MAX_BYTES, "bytes a description may have")
        .map_err(Error::input)?;
    let mesh_file = files.mesh.clone();
    let shipped = Shipped::from_files(files).map_err(Error::input)?;
    let rest = crate::shipped::rest_mesh_from_bytes(&mesh_bytes)
        .map_err(|why| Error::usage(format!("{}: not a vatbake rest mesh ({why})", mesh_file.display())))?;
    let (materials, textures) = crate::shipped::materials::base_colours(&mesh_bytes).map_err(|why| {
        Error::input(format!(
            "{}: cannot read its base colour ({why}); re-bake the unit from a source whose textures are PNG or JPEG",
            mesh_file.display()
        ))
    })?;
    if materials.iter().any(|m| m.texture.is_some()) && rest.uv0.len() != rest.positions.len() {
        return Err(Error::input(format!(
            "{}: a material is textured but the mesh has no TEXCOORD_0 to sample it through; re-bake the unit",
            mesh_file.display()
        )));
    }
    if let Some(m) = rest.triangle_materials.iter().flatten().find(|&&m| m as usize >= materials.len()) {
        return Err(Error::input(format!(
            "{}: a primitive names material {m}, and the file has {}; re-bake the unit",
            mesh_file.display(),
            materials.len()
        )));
    }
    let points = shipped.points();
    // The vertices no triangle uses (the bounds corners) may read any column: as preview does.
    let columns: Vec<usize> = rest.columns.iter().map(|&c| c as usize).collect();
    for triangle in &rest.triangles {
        if let Some(&v) = triangle.iter().find(|&&v| columns.get(v as usize).is_none_or(|&c| c >= points)) {
            return Err(Error::input(format!(
                "{}: a triangle's vertex {v} reads a column past the texture's {points} points; re-bake the unit \
                 so the rest mesh and texture match",
                mesh_file.display()
            )));
        }
    }

    let description = &shipped.description;
    let views_per_frame = options.views * options.elevations.len() as u32;
    // One cell frames the bounds over every row from any direction: the sphere around
    // the recorded box.
    let center = Vec3::from(description.positions.center);
    let half = Vec3::from(description.positions.half_extent);
    let size = (2.0 * half.length()).max(1e-6);
    let texels_per_unit = options.cell as f32 / size;

    // Every clip's frames: a looping clip's last frame is followed by its first.
    let mut clips = Vec::with_capacity(description.clips.len());
    let mut first_frame = 0u32;
    let mut scratch =
        (vec![Vec3::ZERO; points], vec![Vec3::ZERO; points], vec![Vec3::ZERO; points], vec![Vec3::ZERO; points]);
    for clip in &description.clips {
        let rows: Vec<Vec<Vec3>> = (0..clip.rows as usize)
            .map(|k| {
                shipped.decode_columns(clip.row as usize + k, &mut scratch.0, &mut scratch.1);
                scratch.0.clone()
            })
            .collect();
        let chosen = match options.fps {
            FrameRate::Auto => choose_steps(&rows, clip.looping, options.motion / texels_per_unit),
            FrameRate::Fixed(fps) => {
                let steps = (clip.duration * fps).round().max(1.0) as u32;
                Steps { steps, motion: motion_at(&rows, steps, clip.looping, f32::INFINITY) }
            }
        };
        let frames = if clip.looping || clip.rows <= 1 { chosen.steps } else { chosen.steps + 1 };
        clips.push(ImpostorClip {
            name: clip.name.clone(),
            first_frame,
            frames,
            duration: clip.duration,
            looping: clip.looping,
            fps: chosen.steps as f32 / clip.duration,
            motion: (chosen.motion * texels_per_unit * 1000.0).round() / 1000.0,
        });
        first_frame += frames;
    }
    let total_frames = first_frame;
    let cells = u64::from(total_frames) * u64::from(views_per_frame);
    let per_row = u64::from(MAX_ATLAS_SIDE / options.cell);
    let columns_n = (cells as f64).sqrt().ceil().max(1.0) as u64;
    let columns_n = columns_n.min(per_row);
    let rows_n = cells.div_ceil(columns_n);
    if rows_n > per_row {
        return Err(Error::usage(format!(
            "{}: {} frames × {views_per_frame} views of {} texels make {cells} cells, more than a {MAX_ATLAS_SIDE} × \
             {MAX_ATLAS_SIDE} atlas holds ({}); lower --fps, --cell, --views or --elevations",
            path.display(),
            total_frames,
            options.cell,
            per_row * per_row
        )));
    }
    let (width, height) = ((columns_n as u32) * options.cell, (rows_n as u32) * options.cell);

    // Decode every frame's pose (in clip order), then draw every cell in parallel.
    let mut poses = Vec::with_capacity(total_frames as usize);
    for (entry, clip) in description.clips.iter().zip(&clips) {
        for f in 0..clip.frames {
            let intervals = if clip.looping { clip.frames } else { (clip.frames - 1).max(1) };
            let time = f as f32 * clip.duration / intervals as f32;
            poses.push(pose(&shipped, entry, time, &columns, &mut scratch));
        }
    }
    let surface = vat_preview::Surface {
        triangles: &rest.triangles,
        material_of: &rest.triangle_materials,
        uv0: &rest.uv0,
        materials: &materials,
        textures: &textures,
    };
    let cameras: Vec<vat_preview::CellCamera> = options
        .elevations
        .iter()
        .flat_map(|&e| {
            (0..options.views).map(move |a| vat_preview::CellCamera {
                azimuth: (a as f32 / options.views as f32) * std::f32::consts::TAU,
                elevation: e.to_radians(),
                pivot: center.to_array(),
                size,
            })
        })
        .collect();
    let drawn: Vec<vat_preview::ImpostorCell> = (0..cells as usize)
        .into_par_iter()
        .map(|c| {
            let pose = &poses[c / views_per_frame as usize];
            let frame = vat_preview::Frame { positions: &pose.positions, normals: &pose.normals };
            vat_preview::render_cell(&surface, frame, &cameras[c % views_per_frame as usize], options.cell)
        })
        .collect::<Result<_, _>>()
        .map_err(|e| Error::input(format!("{}: cannot draw it: {e}", path.display())))?;

    let (mut colour, mut normal) = (vec![0u8; (width * height * 4) as usize], vec![0u8; (width * height * 4) as usize]);
    let side = options.cell as usize;
    for (c, cell) in drawn.iter().enumerate() {
        let (cx, cy) = (c % columns_n as usize * side, c / columns_n as usize * side);
        for y in 0..side {
            let at = ((cy + y) * width as usize + cx) * 4;
            colour[at..at + side * 4].copy_from_slice(&cell.colour[y * side * 4..(y + 1) * side * 4]);
            normal[at..at + side * 4].copy_from_slice(&cell.normal[y * side * 4..(y + 1) * side * 4]);
        }
    }
    let ktx2 = vat_ktx2::Ktx2Options { writer: crate::GENERATOR.to_string(), ..Default::default() };
    let encode = |texels: Vec<u8>, srgb: bool| {
        vat_ktx2::encode_ktx2_rgba8(&vat_ktx2::Rgba8Image { width, height, srgb, texels }, &ktx2)
            .map_err(|e| Error::output(format!("{}: cannot encode the atlas: {e}", path.display())))
    };
    let colour_bytes = encode(colour, true)?;
    let normal_bytes = encode(normal, false)?;

    let description_name = path.file_name().and_then(|n| n.to_str()).unwrap_or_default().to_string();
    let stem = description_name.strip_suffix(".vat.json").unwrap_or(&description_name).to_string();
    let (colour_name, normal_name) = (format!("{stem}.impostor.color.ktx2"), format!("{stem}.impostor.normal.ktx2"));
    let out = settings.out.clone().unwrap_or(folder);
    // The description as the sidecar names it: relative to the folder written into.
    let description_ref = if out == path.parent().filter(|p| !p.as_os_str().is_empty()).unwrap_or(Path::new(".")) {
        description_name.clone()
    } else {
        std::path::absolute(path).unwrap_or(path.clone()).display().to_string()
    };
    let record = Impostor {
        format: IMPOSTOR_FORMAT.to_string(),
        format_version: IMPOSTOR_FORMAT_VERSION,
        description: ExportFile { file: description_ref, ..ExportFile::of("", &description_bytes) },
        cell: options.cell,
        columns: columns_n as u32,
        width,
        height,
        views: Views { azimuths: options.views, elevations: options.elevations.clone() },
        pivot: center.to_array(),
        size,
        fps: match options.fps {
            FrameRate::Auto => None,
            FrameRate::Fixed(fps) => Some(fps),
        },
        motion: (options.fps == FrameRate::Auto).then_some(options.motion),
        frames: total_frames,
        clips,
        colour: ExportFile::of(&colour_name, &colour_bytes),
        normal: ExportFile::of(&normal_name, &normal_bytes),
    };
    let mut json = serde_json::to_vec_pretty(&record).map_err(|e| Error::output(e.to_string()))?;
    json.push(b'\n');
    std::fs::create_dir_all(&out).map_err(|e| Error::output(format!("{}: cannot create it: {e}", out.display())))?;
    let mut staged = Staged::new(&out);
    staged.write(&impostor_file(&stem), &json).map_err(written)?;
    staged.write(&colour_name, &colour_bytes).map_err(written)?;
    staged.write(&normal_name, &normal_bytes).map_err(written)?;
    let files = staged.commit().map_err(written)?;
    Ok(ImpostorReport {
        description: path.clone(),
        files,
        clips: record.clips.len(),
        frames: total_frames,
        views: views_per_frame,
        cells: cells as u32,
        size: [width, height],
        gpu_bytes: 2 * u64::from(width) * u64::from(height) * 4,
        file_bytes: (colour_bytes.len() + normal_bytes.len()) as u64,
        elapsed_ms: crate::pipeline::ms(started),
    })
}

/// The pose of `clip` at `time` seconds, per rest-mesh vertex: the two rows around it
/// decoded and blended linearly (normals renormalized), as a player interpolates.
fn pose(
    shipped: &Shipped,
    clip: &vat_description::ClipEntry,
    time: f32,
    columns: &[usize],
    scratch: &mut (Vec<Vec3>, Vec<Vec3>, Vec<Vec3>, Vec<Vec3>),
) -> Pose {
    let last = clip.rows.saturating_sub(1) as f32;
    let at = (time * clip.rate).clamp(0.0, last);
    let (below, t) = (at.floor(), at - at.floor());
    let (row_a, row_b) =
        (clip.row as usize + below as usize, clip.row as usize + (below as usize + 1).min(last as usize));
    let (pa, na, pb, nb) = scratch;
    shipped.decode_columns(row_a, pa, na);
    shipped.decode_columns(row_b, pb, nb);
    let column = |c: usize| if c < pa.len() { c } else { 0 };
    let positions = columns.iter().map(|&c| pa[column(c)].lerp(pb[column(c)], t).to_array()).collect();
    let normals = columns
        .iter()
        .map(|&c| {
            let n = na[column(c)].lerp(nb[column(c)], t);
            n.try_normalize().unwrap_or(n).to_array()
        })
        .collect();
    Pose { positions, normals }
}

fn written(e: anyhow::Error) -> Error {
    Error::output(format!("{e:#}"))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `rows` rows of one point moving `speed` units per row along x.
    fn moving(rows: usize, speed: f32) -> Vec<Vec<Vec3>> {
        (0..rows).map(|k| vec![Vec3::new(k as f32 * speed, 0.0, 0.0), Vec3::ONE]).collect()
    }

    #[test]
    fn a_held_pose_gets_one_interval() {
        let held = vec![vec![Vec3::new(1.0, 2.0, 3.0)]; 31];
        assert_eq!(choose_steps(&held, true, 0.01), Steps { steps: 1, motion: 0.0 });
        assert_eq!(choose_steps(&held, false, 0.01), Steps { steps: 1, motion: 0.0 });
        // One row: one frame, nothing to measure.
        assert_eq!(choose_steps(&held[..1], false, 0.01), Steps { steps: 1, motion: 0.0 });
    }

    #[test]
    fn a_steady_motion_gets_frames_no_farther_apart_than_twice_the_tolerance() {
        // 31 rows, 1 unit a row: 10 intervals put a frame every 3 rows, each row within
        // 1 unit of its nearest frame; 9 put them 3.33 rows apart (row 5 is 1.67 from
        // the frame at 6.67), 8 at 3.75 (row 2 is 1.75 from 3.75).
        let rows = moving(31, 1.0);
        assert!((motion_at(&rows, 9, false, f32::INFINITY) - 5.0 / 3.0).abs() < 1e-6);
        assert_eq!(motion_at(&rows, 8, false, f32::INFINITY), 1.75);
        assert_eq!(choose_steps(&rows, false, 1.01), Steps { steps: 10, motion: 1.0 });
        // Twice as fast: twice the frames.
        assert_eq!(choose_steps(&moving(31, 2.0), false, 1.01), Steps { steps: 20, motion: 1.0 });
        // A looser tolerance: fewer.
        assert_eq!(choose_steps(&rows, false, 2.0), Steps { steps: 6, motion: 2.0 });
    }

    #[test]
    fn past_every_rows_worth_the_rows_are_the_frames() {
        // 4 units a row, tolerance 1: no count under one a row meets it; one a row shows
        // every stored pose exactly.
        assert_eq!(choose_steps(&moving(11, 4.0), false, 1.0), Steps { steps: 10, motion: 0.0 });
    }

    #[test]
    fn a_looping_clips_last_frame_is_its_first() {
        // A loop out and back (x = 0, 1, 2, 1, 0): with 2 intervals, rows 3 and 4 show
        // frame 0 (x = 0), row 1 frame 1 (x = 2).
        let rows: Vec<Vec<Vec3>> = [0.0, 1.0, 2.0, 1.0, 0.0].iter().map(|&x| vec![Vec3::new(x, 0.0, 0.0)]).collect();
        assert_eq!(shown_frame(4, 5, 2, true), (0.0, 0));
        assert_eq!(shown_frame(4, 5, 2, false), (4.0, 2));
        assert_eq!(motion_at(&rows, 2, true, f32::INFINITY), 1.0);
    }

    #[test]
    fn fps_reads_auto_or_a_number() {
        assert_eq!("auto".parse::<FrameRate>(), Ok(FrameRate::Auto));
        assert_eq!("12.5".parse::<FrameRate>(), Ok(FrameRate::Fixed(12.5)));
        assert!("fast".parse::<FrameRate>().unwrap_err().contains("give auto or a number"));
        let options: ImpostorOptions = toml::from_str("fps = \"auto\"\nmotion = 0.5").unwrap();
        assert_eq!((options.fps, options.motion), (FrameRate::Auto, 0.5));
        let options: ImpostorOptions = toml::from_str("fps = 12").unwrap();
        assert_eq!(options.fps, FrameRate::Fixed(12.0));
    }
}
