//! The contact sheet: one row of frames per clip, labelled.

use crate::raster::Camera;
use crate::raster::{check_frame, draw_guides, rasterize, BACKGROUND};
use crate::text::{draw_text, fit, text_width, LINE_HEIGHT};
use crate::types::{check_size, Bounds, Error, Frame, Image, Mesh, View};

/// Around the sheet's edge, and between a label and its frames, in pixels.
const PAD: u32 = 8;
/// Between two frames, and between two clips' rows.
const GAP: u32 = 8;
/// Under each frame, for its row number.
const CAPTION: u32 = LINE_HEIGHT + 4;
/// Longest label line, in characters; longer names are cut.
const LABEL_CHARS: usize = 24;
/// The sheet around the frames.
const SHEET: [u8; 4] = [236, 236, 236, 255];
/// Between two clips' rows.
const RULE: [u8; 4] = [205, 205, 205, 255];
/// Labels.
const INK: [u8; 3] = [25, 25, 25];
/// Captions and the header's second line.
const DIM: [u8; 3] = [95, 95, 95];

/// One clip of a sheet: its name, its slot and every one of its rows, in order.
#[derive(Clone, Debug)]
pub struct Clip<'a> {
    /// The clip's name, written beside its row of frames.
    pub name: &'a str,
    /// The game slot it fills, if any (written as `slot: -` when none).
    pub slot: Option<&'a str>,
    /// All rows of the clip; the sheet picks its frames from these.
    pub rows: Vec<Frame<'a>>,
    /// The mesh this row of the sheet is drawn with instead of the sheet's (a level of
    /// detail over the same points); `None`: the sheet's.
    pub mesh: Option<&'a Mesh>,
}

/// How to draw a sheet.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SheetOptions {
    /// Which way the camera looks.
    pub view: View,
    /// Frames per clip, spread evenly over its rows, first and last included (a clip
    /// with fewer rows shows each once).
    pub frames: u32,
    /// Width of one frame, in pixels.
    pub width: u32,
    /// Height of one frame, in pixels.
    pub height: u32,
    /// A line written above everything else (e.g. the unit's name), if any.
    pub title: Option<String>,
}

impl Default for SheetOptions {
    /// The front view, 6 frames of 160 × 160 pixels, no title.
    fn default() -> Self {
        SheetOptions { view: View::Front, frames: 6, width: 160, height: 160, title: None }
    }
}

/// Where one frame of a sheet was drawn.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Cell {
    /// Index of the clip in the list given.
    pub clip: usize,
    /// Index of the row within the clip.
    pub row: usize,
    /// Left edge on the sheet, in pixels.
    pub x: u32,
    /// Top edge on the sheet, in pixels.
    pub y: u32,
}

/// A drawn sheet, and where its parts are.
#[derive(Clone, Debug)]
pub struct Sheet {
    /// The picture.
    pub image: Image,
    /// Every frame drawn, clip by clip, row by row; each is `width × height` of the
    /// options.
    pub cells: Vec<Cell>,
    /// The label box of each clip: `[x, y, width, height]` on the sheet.
    pub labels: Vec<[u32; 4]>,
}

/// The rows a sheet shows of a clip of `rows` rows with `frames` frames: evenly spread,
/// rounded to the nearest row, the first and the last included; every row once when
/// the clip has no more rows than frames.
///
/// ```
/// assert_eq!(vat_preview::pick_rows(22, 4), vec![0, 7, 14, 21]);
/// assert_eq!(vat_preview::pick_rows(3, 8), vec![0, 1, 2]);
/// assert_eq!(vat_preview::pick_rows(10, 1), vec![0]);
/// ```
pub fn pick_rows(rows: usize, frames: usize) -> Vec<usize> {
    match (rows, frames) {
        (0, _) | (_, 0) => Vec::new(),
        _ if frames >= rows => (0..rows).collect(),
        (_, 1) => vec![0],
        _ => (0..frames).map(|i| (i * (rows - 1) + (frames - 1) / 2) / (frames - 1)).collect(),
    }
}

/// Draws a contact sheet: a header naming the view, then for each clip its name, slot
/// and row count beside a row of frames chosen by [`pick_rows`], each captioned with
/// its row number. Every frame is drawn with one camera framing `bounds` (see
/// [`render_frame`](crate::render_frame) for what a frame shows), so motion, offset and
/// scale compare across the whole sheet.
///
/// A clip with no rows gets its label and `(no rows)`. Errors when `options.frames` is
/// zero, a frame or the whole sheet is too large or empty, the bounds are not a box, or
/// a row does not fit the mesh (see [`render_frame`](crate::render_frame)).
///
/// ```
/// use vat_preview::{contact_sheet, Bounds, Clip, Frame, Mesh, SheetOptions};
/// let positions = [[0.0, 0.0, 0.0], [1.0, 0.0, 0.0], [0.0, 1.0, 0.0]];
/// let normals = [[0.0, 0.0, 1.0]; 3];
/// let row = Frame { positions: &positions, normals: &normals };
/// let clips = [Clip { name: "Idle", slot: Some("idle"), rows: vec![row; 10], mesh: None }];
/// let bounds = Bounds::of_points(&positions).unwrap();
/// let options = SheetOptions { frames: 4, width: 64, height: 64, ..SheetOptions::default() };
/// let sheet = contact_sheet(&Mesh { triangles: vec![[0, 1, 2]] }, &clips, &bounds, &options)?;
/// assert_eq!(sheet.cells.iter().map(|c| c.row).collect::<Vec<_>>(), [0, 3, 6, 9]);
/// let png = sheet.image.to_png()?;
/// # Ok::<(), vat_preview::Error>(())
/// ```
pub fn contact_sheet(mesh: &Mesh, clips: &[Clip<'_>], bounds: &Bounds, options: &SheetOptions) -> Result<Sheet, Error> {
    if options.frames == 0 {
        return Err(Error::NoFrames);
    }
    let (w, h) = (options.width, options.height);
    let camera = Camera::framing(bounds, options.view, w, h)?;
    for clip in clips {
        for &row in &clip.rows {
            check_frame(clip.mesh.unwrap_or(mesh), row)?;
        }
    }

    // Text first: it decides the label column's width.
    let mut header: Vec<(String, [u8; 3])> = Vec::new();
    if let Some(title) = &options.title {
        header.push((fit(title, 80), INK));
    }
    header.push((options.view.describe().to_owned(), DIM));
    let labels: Vec<[String; 3]> = clips
        .iter()
        .map(|clip| {
            [
                fit(clip.name, LABEL_CHARS),
                fit(&format!("slot: {}", clip.slot.unwrap_or("-")), LABEL_CHARS),
                format!("{} rows", clip.rows.len()),
            ]
        })
        .collect();
    let label_text = labels.iter().flatten().map(|line| text_width(line)).max().unwrap_or(0);
    let label_width = PAD as u64 + label_text as u64 + PAD as u64;
    let header_height = PAD as u64 + header.len() as u64 * LINE_HEIGHT as u64 + PAD as u64;
    let row_height = (h as u64 + CAPTION as u64).max(3 * LINE_HEIGHT as u64 + 4);
    let frames = options.frames as u64;
    let cells_width = frames * w as u64 + (frames - 1) * GAP as u64;
    let header_width =
        PAD as u64 + header.iter().map(|(line, _)| text_width(line) as u64).max().unwrap_or(0) + PAD as u64;
    let sheet_width = (label_width + cells_width + PAD as u64).max(header_width);
    let body =
        if clips.is_empty() { LINE_HEIGHT as u64 } else { clips.len() as u64 * (row_height + GAP as u64) - GAP as u64 };
    let sheet_height = header_height + body + PAD as u64;
    check_size(sheet_width, sheet_height)?;

    let mut image = Image::filled(sheet_width as u32, sheet_height as u32, SHEET)?;
    for (i, (line, colour)) in header.iter().enumerate() {
        draw_text(&mut image, PAD as i64, (PAD + i as u32 * LINE_HEIGHT) as i64, line, *colour);
    }
    if clips.is_empty() {
        draw_text(&mut image, PAD as i64, header_height as i64, "(no clips)", INK);
    }
    let mut blank = Image::filled(w, h, BACKGROUND)?;
    draw_guides(&mut blank, &camera, bounds);

    let mut cells = Vec::new();
    let mut label_boxes = Vec::new();
    for (i, (clip, label)) in clips.iter().zip(&labels).enumerate() {
        let top = header_height + i as u64 * (row_height + GAP as u64);
        if i > 0 {
            image.fill_rect(0, (top - GAP as u64 / 2) as i64, sheet_width as i64, 1, RULE);
        }
        for (line, text) in label.iter().enumerate() {
            let colour = if line == 0 { INK } else { DIM };
            draw_text(&mut image, PAD as i64, (top + line as u64 * LINE_HEIGHT as u64) as i64, text, colour);
        }
        label_boxes.push([PAD, top as u32, label_text, 3 * LINE_HEIGHT]);
        if clip.rows.is_empty() {
            draw_text(&mut image, label_width as i64, top as i64, "(no rows)", DIM);
        }
        for (j, row) in pick_rows(clip.rows.len(), options.frames as usize).into_iter().enumerate() {
            let x = label_width + j as u64 * (w as u64 + GAP as u64);
            let mut frame = blank.clone();
            rasterize(&mut frame, &camera, clip.mesh.unwrap_or(mesh), clip.rows[row]);
            image.blit(&frame, x as i64, top as i64);
            draw_text(&mut image, x as i64, (top + h as u64 + 2) as i64, &format!("#{row}"), DIM);
            cells.push(Cell { clip: i, row, x: x as u32, y: top as u32 });
        }
    }
    Ok(Sheet { image, cells, labels: label_boxes })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn picks_are_even_and_keep_both_ends() {
        assert_eq!(pick_rows(104, 6), vec![0, 21, 41, 62, 82, 103]);
        assert_eq!(pick_rows(2, 6), vec![0, 1]);
        assert_eq!(pick_rows(5, 5), vec![0, 1, 2, 3, 4]);
        assert_eq!(pick_rows(0, 5), Vec::<usize>::new());
        for rows in 1..40 {
            for frames in 1..12 {
                let picks = pick_rows(rows, frames);
                assert_eq!(picks.len(), frames.min(rows));
                assert_eq!(picks[0], 0);
                if frames > 1 {
                    assert_eq!(*picks.last().unwrap(), rows - 1);
                }
                assert!(picks.windows(2).all(|p| p[0] < p[1]), "{rows} rows, {frames} frames: {picks:?}");
            }
        }
    }
}
