//! `vatbake preview`: pictures of what a bake ships, drawn from the decoded texture
//! and the rest mesh with vat-preview's software rasterizer: a contact sheet (a row
//! of frames per clip, one camera framing the recorded bounds), optionally the
//! texture itself as 8-bit pictures and an animated PNG of one clip.
//!
//! A frozen, flipped, clipped or exploding unit is obvious in these pictures and
//! invisible in the description's numbers. Only the rows a picture shows are
//! decoded, so a sheet of a large unit costs a few rows, not the whole animation.
//!
//! ```no_run
//! use vatbake::preview::{preview, PreviewSettings};
//! let settings = PreviewSettings::new("out/Fox.vat.json", "out/Fox.sheet.png");
//! let report = preview(&settings)?;
//! println!("wrote {} files", report.files.len());
//! # Ok::<(), vatbake::Error>(())
//! ```

use std::path::{Path, PathBuf};
use std::time::Instant;

use glam::Vec3;
use serde::Serialize;
pub use vat_preview::View;

use crate::error::Error;
use crate::shipped::{RestMesh, Shipped};
use crate::staging::Staged;

/// What to draw and where.
#[derive(Clone, Debug)]
pub struct PreviewSettings {
    /// The description (`*.vat.json`) of the bake to draw.
    pub description: PathBuf,
    /// The contact sheet to write (PNG). The texture pictures and the animation go
    /// beside it, named after it (`<stem>.positions.png`, `<stem>.normals.png`,
    /// `<stem>.<clip>.apng.png`).
    pub sheet: PathBuf,
    /// Frames per clip on the sheet, spread evenly over the clip's rows, first and last included.
    pub frames: u32,
    /// Width of one frame, in pixels.
    pub width: u32,
    /// Height of one frame, in pixels.
    pub height: u32,
    /// The clips to draw, by name, in this order; `None`: every clip.
    pub clips: Option<Vec<String>>,
    /// Where the camera looks from.
    pub view: View,
    /// Also write the position and normal texture as 8-bit pictures.
    pub texture: bool,
    /// Also write every row of this clip as an animated PNG.
    pub animate: Option<String>,
}

impl PreviewSettings {
    /// Defaults: 6 frames of 160 × 160 pixels per clip, every clip, from the front.
    pub fn new(description: impl Into<PathBuf>, sheet: impl Into<PathBuf>) -> Self {
        PreviewSettings {
            description: description.into(),
            sheet: sheet.into(),
            frames: 6,
            width: 160,
            height: 160,
            clips: None,
            view: View::Front,
            texture: false,
            animate: None,
        }
    }
}

/// What a preview wrote, as `vatbake preview --json` prints it.
#[derive(Clone, Debug, Serialize)]
pub struct PreviewReport {
    /// The description drawn.
    pub description: PathBuf,
    /// Files written, sheet first.
    pub files: Vec<PathBuf>,
    /// Clips on the sheet.
    pub clips: usize,
    /// Frames drawn on the sheet.
    pub frames: usize,
    /// "front", "side" or "top".
    pub view: &'static str,
    /// Size of the sheet in pixels.
    pub sheet_size: [u32; 2],
    /// Where each frame is on the sheet, clip by clip.
    pub cells: Vec<PreviewCell>,
    /// Wall time in milliseconds.
    pub elapsed_ms: f64,
}

/// One frame on the sheet.
#[derive(Clone, Debug, Serialize)]
pub struct PreviewCell {
    /// The clip's name.
    pub clip: String,
    /// The texture row drawn (the clip's first row + the frame's row in the clip).
    pub row: u32,
    /// Left edge on the sheet, in pixels.
    pub x: u32,
    /// Top edge on the sheet, in pixels.
    pub y: u32,
    /// Width of the frame, in pixels.
    pub width: u32,
    /// Height of the frame, in pixels.
    pub height: u32,
    /// The level of detail drawn (`--lods`: 1, 2, …), absent for the rest mesh's rows.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub level: Option<u32>,
}

/// Frames of one shipped row, per rest-mesh vertex.
struct VertexFrame {
    positions: Vec<[f32; 3]>,
    normals: Vec<[f32; 3]>,
}

/// The rest mesh joined to the texture: triangles over vertices, each vertex reading
/// one texture column.
struct Drawable {
    mesh: vat_preview::Mesh,
    columns: Vec<usize>,
}

impl Drawable {
    fn new(rest: RestMesh, points: usize, file: &Path) -> Result<Self, Error> {
        let columns: Vec<usize> = rest.columns.iter().map(|&c| c as usize).collect();
        for triangle in &rest.triangles {
            for &v in triangle {
                let column = columns.get(v as usize).copied();
                if column.is_none_or(|c| c >= points) {
                    return Err(Error::input(format!(
                        "{}: a triangle's vertex {v} reads column {column:?}, past the texture's {points} points; \
                         re-bake the unit so the rest mesh and texture match",
                        file.display()
                    )));
                }
            }
        }
        Ok(Drawable { mesh: vat_preview::Mesh { triangles: rest.triangles }, columns })
    }

    fn frame(&self, shipped: &Shipped, row: usize, scratch: &mut (Vec<Vec3>, Vec<Vec3>)) -> VertexFrame {
        let (positions, normals) = scratch;
        shipped.decode_columns(row, positions, normals);
        // Vertices that no triangle uses (the rest mesh's two bounds corners) may read
        // any column; they are never drawn, so a column past the end reads point 0.
        let at = |c: usize| if c < positions.len() { c } else { 0 };
        VertexFrame {
            positions: self.columns.iter().map(|&c| positions[at(c)].to_array()).collect(),
            normals: self.columns.iter().map(|&c| normals[at(c)].to_array()).collect(),
        }
    }
}

fn view_name(view: View) -> &'static str {
    match view {
        View::Front => "front",
        View::Side => "side",
        View::Top => "top",
    }
}

/// Draws the pictures `settings` asks for and writes them, all or nothing.
pub fn preview(settings: &PreviewSettings) -> Result<PreviewReport, Error> {
    let started = Instant::now();
    let shipped = Shipped::open(&settings.description)?;
    let description = &shipped.description;
    let drawable = Drawable::new(shipped.rest_mesh()?, shipped.points(), &shipped.files.mesh)?;
    // The levels of detail (`--lods`): each a row of the sheet, the first clip shown
    // through the level's own mesh (its vertices reading their own columns).
    let folder = settings.description.parent().unwrap_or(Path::new("."));
    let levels: Vec<Drawable> = description
        .lods
        .iter()
        .map(|lod| {
            let path = folder.join(&lod.file);
            Drawable::new(crate::shipped::read_rest_mesh(&path)?, shipped.points(), &path)
        })
        .collect::<Result<_, _>>()?;

    let chosen: Vec<&crate::description::ClipEntry> = match &settings.clips {
        None => description.clips.iter().collect(),
        Some(names) => {
            names.iter().map(|name| find_clip(&settings.description, description, name)).collect::<Result<_, _>>()?
        }
    };
    let animated =
        settings.animate.as_ref().map(|name| find_clip(&settings.description, description, name)).transpose()?;

    let p = description.positions.center;
    let h = description.positions.half_extent;
    let bounds = vat_preview::Bounds::from_center_half_extent(p, h);
    let options = vat_preview::SheetOptions {
        view: settings.view,
        frames: settings.frames,
        width: settings.width,
        height: settings.height,
        title: Some(format!("{}: {} points, {} rows", description.source.file, description.points, description.rows)),
    };

    // A sheet taller or larger than a picture may be is refused before any row is
    // decoded (the frames alone of that many clips can take gigabytes): its cells alone
    // (clips × frame height; clips × frames × frame pixels) are a lower bound of it.
    let (cells_high, cells_area) = (
        chosen.len() as u64 * u64::from(settings.height),
        chosen.len() as u64 * u64::from(settings.frames) * u64::from(settings.width) * u64::from(settings.height),
    );
    if cells_high > u64::from(vat_preview::MAX_SIDE) || cells_area > vat_preview::MAX_PIXELS {
        return Err(Error::input(format!(
            "{}: {} clips of {} frames of {}×{} pixels do not fit one sheet (each side at most {} pixels, \
             at most {} pixels): pick fewer with --clips, or draw smaller frames",
            settings.description.display(),
            chosen.len(),
            settings.frames,
            settings.width,
            settings.height,
            vat_preview::MAX_SIDE,
            vat_preview::MAX_PIXELS
        )));
    }
    // Decode only the rows the sheet shows.
    let mut scratch = (vec![Vec3::ZERO; shipped.points()], vec![Vec3::ZERO; shipped.points()]);
    let picks: Vec<Vec<usize>> =
        chosen.iter().map(|c| vat_preview::pick_rows(c.rows as usize, settings.frames as usize)).collect();
    let decoded: Vec<Vec<VertexFrame>> = chosen
        .iter()
        .zip(&picks)
        .map(|(clip, picks)| {
            picks.iter().map(|&k| drawable.frame(&shipped, clip.row as usize + k, &mut scratch)).collect()
        })
        .collect();
    let mut clips: Vec<vat_preview::Clip> = chosen
        .iter()
        .zip(picks.iter().zip(&decoded))
        .map(|(clip, (picks, frames))| {
            // Rows the sheet does not show are never drawn: any decoded frame stands in.
            let rows = (0..clip.rows as usize)
                .map(|k| frames.get(picks.iter().position(|&p| p == k).unwrap_or(0)).map(as_frame))
                .collect::<Option<Vec<_>>>()
                .unwrap_or_default();
            vat_preview::Clip { name: &clip.name, slot: clip.slot.as_deref(), rows, mesh: None }
        })
        .collect();
    let level_frames: Vec<Vec<VertexFrame>> = match (chosen.first(), picks.first()) {
        (Some(clip), Some(picks)) => levels
            .iter()
            .map(|level| picks.iter().map(|&k| level.frame(&shipped, clip.row as usize + k, &mut scratch)).collect())
            .collect(),
        _ => Vec::new(),
    };
    let level_names: Vec<String> =
        description.lods.iter().enumerate().map(|(k, lod)| format!("lod{} ({} points)", k + 1, lod.points)).collect();
    if let (Some(first), Some(picks)) = (chosen.first(), picks.first()) {
        for ((level, frames), name) in levels.iter().zip(&level_frames).zip(&level_names) {
            let rows = (0..first.rows as usize)
                .map(|k| frames.get(picks.iter().position(|&p| p == k).unwrap_or(0)).map(as_frame))
                .collect::<Option<Vec<_>>>()
                .unwrap_or_default();
            clips.push(vat_preview::Clip { name, slot: Some(first.name.as_str()), rows, mesh: Some(&level.mesh) });
        }
    }
    let sheet = vat_preview::contact_sheet(&drawable.mesh, &clips, &bounds, &options)
        .map_err(|e| drawing(&settings.description, e))?;
    let sheet_png = sheet.image.to_png().map_err(|e| drawing(&settings.description, e))?;

    let folder = settings.sheet.parent().filter(|p| !p.as_os_str().is_empty()).unwrap_or(Path::new("."));
    let name = settings.sheet.file_name().and_then(|n| n.to_str()).ok_or_else(|| {
        Error::usage(format!("{}: give a file name for the sheet, like sheet.png", settings.sheet.display()))
    })?;
    let stem = name.strip_suffix(".png").unwrap_or(name);
    let mut staged = Staged::new(folder);
    staged.write(name, &sheet_png).map_err(written)?;

    if settings.texture {
        let image = &shipped.image;
        let scale = (256 / image.width.max(image.height).max(1)).clamp(1, 8);
        for (suffix, picture) in [
            ("positions", vat_preview::position_texture_image(&image.texels, image.width, image.height)),
            ("normals", vat_preview::normal_texture_image(&image.texels, image.width, image.height)),
        ] {
            let picture = picture
                .and_then(|p| p.scaled(scale))
                .and_then(|p| p.to_png())
                .map_err(|e| drawing(&settings.description, e))?;
            staged.write(&format!("{stem}.{suffix}.png"), &picture).map_err(written)?;
        }
    }
    if let Some(clip) = animated {
        let frames: Vec<VertexFrame> =
            (0..clip.rows as usize).map(|k| drawable.frame(&shipped, clip.row as usize + k, &mut scratch)).collect();
        let rows: Vec<vat_preview::Frame> = frames.iter().map(as_frame).collect();
        let apng = vat_preview::animate(
            &drawable.mesh,
            &rows,
            &bounds,
            settings.view,
            settings.width,
            settings.height,
            clip.rate,
        )
        .map_err(|e| drawing(&settings.description, e))?;
        staged.write(&format!("{stem}.{}.apng.png", file_safe(&clip.name)), &apng).map_err(written)?;
    }
    let files = staged.commit().map_err(written)?;
    Ok(PreviewReport {
        description: settings.description.clone(),
        files,
        clips: chosen.len(),
        frames: sheet.cells.len(),
        view: view_name(settings.view),
        sheet_size: [sheet.image.width, sheet.image.height],
        cells: sheet
            .cells
            .iter()
            .map(|cell| {
                // Past the clips: the levels of detail's rows, each of the first clip.
                let level = cell.clip.checked_sub(chosen.len()).map(|k| k as u32 + 1);
                let clip = chosen[if level.is_some() { 0 } else { cell.clip }];
                PreviewCell {
                    clip: clip.name.clone(),
                    row: clip.row + cell.row as u32,
                    x: cell.x,
                    y: cell.y,
                    width: settings.width,
                    height: settings.height,
                    level,
                }
            })
            .collect(),
        elapsed_ms: crate::pipeline::ms(started),
    })
}

/// A clip name as part of a file name: letters, digits, '-' and '_' kept, the rest '_'.
fn file_safe(name: &str) -> String {
    name.chars().map(|c| if c.is_ascii_alphanumeric() || c == '-' || c == '_' { c } else { '_' }).collect()
}

/// The clip named `name`, or a usage error listing the clips there are.
fn find_clip<'a>(
    file: &Path,
    description: &'a crate::description::Description,
    name: &str,
) -> Result<&'a crate::description::ClipEntry, Error> {
    description.clips.iter().find(|c| c.name == name).ok_or_else(|| no_clip(file, name, description))
}

fn no_clip(file: &Path, name: &str, description: &crate::description::Description) -> Error {
    let names: Vec<&str> = description.clips.iter().map(|c| c.name.as_str()).collect();
    Error::usage(format!("{}: no clip named \"{name}\"; its clips are: {}", file.display(), names.join(", ")))
}

fn drawing(file: &Path, e: vat_preview::Error) -> Error {
    Error::input(format!("{}: cannot draw it: {e}", file.display()))
}

fn written(e: anyhow::Error) -> Error {
    Error::output(format!("{e:#}"))
}

fn as_frame(frame: &VertexFrame) -> vat_preview::Frame<'_> {
    vat_preview::Frame { positions: &frame.positions, normals: &frame.normals }
}
