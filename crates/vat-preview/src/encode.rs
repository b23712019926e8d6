//! PNG and animated PNG, with fixed settings so that bytes depend on pixels only.

use png::{BitDepth, ColorType, DeflateCompression, Encoder, Filter};

use crate::raster::Camera;
use crate::raster::{check_frame, rasterize, BACKGROUND};
use crate::types::{Bounds, Error, Frame, Image, Mesh, View};

/// An encoder for `width × height` 8-bit RGBA with the fixed settings: one filter for
/// every row (Paeth), zlib level 6, no metadata chunks.
fn encoder(out: &mut Vec<u8>, width: u32, height: u32) -> Encoder<'static, &mut Vec<u8>> {
    let mut encoder = Encoder::new(out, width, height);
    encoder.set_color(ColorType::Rgba);
    encoder.set_depth(BitDepth::Eight);
    encoder.set_filter(Filter::Paeth);
    encoder.set_deflate_compression(DeflateCompression::Level(6));
    encoder
}

pub(crate) fn png(image: &Image) -> Result<Vec<u8>, Error> {
    let mut out = Vec::new();
    let mut writer = encoder(&mut out, image.width, image.height).write_header()?;
    writer.write_image_data(&image.pixels)?;
    writer.finish()?;
    Ok(out)
}

/// An animated PNG of one clip: every row in `rows`, in order, drawn as
/// [`render_frame`](crate::render_frame) draws it (one camera framing `bounds` for all),
/// each shown for `1 / rate` seconds (rounded to the millisecond), looping forever.
/// Viewers without APNG support show the first row.
///
/// Errors when `rows` is empty, `rate` is not a positive finite number, or as
/// `render_frame` does.
///
/// ```
/// use vat_preview::{animate, Bounds, Frame, Mesh, View};
/// let positions = [[0.0, 0.0, 0.0], [1.0, 0.0, 0.0], [0.0, 1.0, 0.0]];
/// let normals = [[0.0, 0.0, 1.0]; 3];
/// let row = Frame { positions: &positions, normals: &normals };
/// let mesh = Mesh { triangles: vec![[0, 1, 2]] };
/// let bounds = Bounds::of_points(&positions).unwrap();
/// let apng = animate(&mesh, &[row, row], &bounds, View::Front, 32, 32, 30.0)?;
/// // An animation control chunk: two frames.
/// let at = apng.windows(4).position(|w| w == b"acTL").unwrap();
/// assert_eq!(&apng[at + 4..at + 8], &2u32.to_be_bytes());
/// # Ok::<(), vat_preview::Error>(())
/// ```
pub fn animate(
    mesh: &Mesh,
    rows: &[Frame<'_>],
    bounds: &Bounds,
    view: View,
    width: u32,
    height: u32,
    rate: f32,
) -> Result<Vec<u8>, Error> {
    if !(rate.is_finite() && rate > 0.0) {
        return Err(Error::Rate(rate));
    }
    if rows.is_empty() {
        return Err(Error::NoRows);
    }
    let camera = Camera::framing(bounds, view, width, height)?;
    for &row in rows {
        check_frame(mesh, row)?;
    }
    let frame_count = u32::try_from(rows.len()).map_err(|_| Error::NoRows)?;
    let delay_ms = (1000.0 / rate).round().clamp(1.0, u16::MAX as f32) as u16;
    // Each frame starts from the same background and guides.
    let mut blank = Image::filled(width, height, BACKGROUND)?;
    crate::raster::draw_guides(&mut blank, &camera, bounds);

    let mut out = Vec::new();
    let mut encoder = encoder(&mut out, width, height);
    encoder.set_animated(frame_count, 0)?;
    encoder.set_frame_delay(delay_ms, 1000)?;
    let mut writer = encoder.write_header()?;
    for &row in rows {
        let mut image = blank.clone();
        rasterize(&mut image, &camera, mesh, row);
        writer.write_image_data(&image.pixels)?;
    }
    writer.finish()?;
    Ok(out)
}

impl Image {
    /// The picture as PNG bytes: 8-bit RGBA, fixed filter and compression settings, no
    /// time stamp or other metadata, so the same picture always gives the same bytes.
    ///
    /// ```
    /// let png = vat_preview::Image::filled(4, 4, [255, 0, 0, 255])?.to_png()?;
    /// assert_eq!(&png[..8], b"\x89PNG\r\n\x1a\n");
    /// # Ok::<(), vat_preview::Error>(())
    /// ```
    pub fn to_png(&self) -> Result<Vec<u8>, Error> {
        self.check()?;
        png(self)
    }
}
