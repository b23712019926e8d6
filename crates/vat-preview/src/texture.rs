//! The baked texture itself as viewable 8-bit pictures.

use crate::types::{check_size, Error, Image};

/// Errors unless `texels` holds `width × height` RGBA texels and the size is allowed.
fn check(texels: &[u16], width: u32, height: u32) -> Result<(), Error> {
    check_size(width as u64, height as u64)?;
    if texels.len() as u64 != width as u64 * height as u64 * 4 {
        return Err(Error::TextureSize { len: texels.len(), width, height });
    }
    Ok(())
}

/// A 16-bit value to 8 bits, rounded to the nearest.
fn to_8(v: u16) -> u8 {
    ((v as u32 * 255 + 32_767) / 65_535) as u8
}

/// The position channels (RGB) of a 16-bit RGBA texture as an opaque 8-bit picture, one
/// pixel per texel: rows are the texture's rows (the frames, band after band as the
/// texture stores them), columns its points.
///
/// `texels` holds four values per texel, row by row from the top. Errors when its
/// length is not `width × height × 4` or the size is out of range.
///
/// ```
/// let image = vat_preview::position_texture_image(&[0, 32_768, 65_535, 0], 1, 1)?;
/// assert_eq!(image.pixel(0, 0), Some([0, 128, 255, 255]));
/// # Ok::<(), vat_preview::Error>(())
/// ```
pub fn position_texture_image(texels: &[u16], width: u32, height: u32) -> Result<Image, Error> {
    check(texels, width, height)?;
    let pixels = texels.chunks_exact(4).flat_map(|t| [to_8(t[0]), to_8(t[1]), to_8(t[2]), 255]).collect();
    Ok(Image { width, height, pixels })
}

/// The normal channel (A, octahedral 8 + 8 bits: x in the high byte, y in the low) of a
/// 16-bit RGBA texture as an opaque 8-bit picture: each texel's unit normal `n`
/// ([`vat_bounds::decode_normal`], the bake's own decode) drawn as the colour
/// `(n + 1) / 2` (so +X is red, +Y green, +Z blue, and a model seen from the front is
/// mostly blue-violet).
///
/// Errors as [`position_texture_image`] does.
///
/// ```
/// // The code of +Z is 0x8080: drawn light blue-violet.
/// let image = vat_preview::normal_texture_image(&[0, 0, 0, 0x8080], 1, 1)?;
/// assert_eq!(image.pixel(0, 0), Some([128, 128, 255, 255]));
/// # Ok::<(), vat_preview::Error>(())
/// ```
pub fn normal_texture_image(texels: &[u16], width: u32, height: u32) -> Result<Image, Error> {
    check(texels, width, height)?;
    let colour = |c: f32| ((c + 1.0) * 127.5).round().clamp(0.0, 255.0) as u8;
    let pixels = texels
        .chunks_exact(4)
        .flat_map(|t| {
            let n = vat_bounds::decode_normal(t[3]).to_array();
            [colour(n[0]), colour(n[1]), colour(n[2]), 255]
        })
        .collect();
    Ok(Image { width, height, pixels })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rows_and_columns_stay_in_place() {
        // 2 columns × 3 rows; red counts columns, green rows.
        let texels: Vec<u16> =
            (0..3u16).flat_map(|row| (0..2u16).flat_map(move |col| [col * 65_535, row * 30_000, 0, 0x8080])).collect();
        let image = position_texture_image(&texels, 2, 3).unwrap();
        assert_eq!(image.pixel(1, 0), Some([255, 0, 0, 255]));
        assert_eq!(image.pixel(0, 2), Some([0, to_8(60_000), 0, 255]));
        assert_eq!(to_8(60_000), 233);
        assert_eq!(to_8(257), 1);
        assert_eq!(to_8(128), 0);
        assert_eq!(to_8(129), 1);
    }

    #[test]
    fn normals_decode_to_the_axis_colours() {
        // +X: x code 255, y code 128 (the middle); -Z: the folded corner (0, 0); +Y: (128, 255).
        let texels = [0, 0, 0, 0xFF80, 0, 0, 0, 0x0000, 0, 0, 0, 0x80FF];
        let image = normal_texture_image(&texels, 3, 1).unwrap();
        assert_eq!(image.pixel(0, 0), Some([255, 128, 127, 255]));
        assert_eq!(image.pixel(1, 0), Some([128, 128, 0, 255]));
        assert_eq!(image.pixel(2, 0), Some([128, 255, 127, 255]));
    }

    #[test]
    fn a_small_texture_picture_scales_up_pixel_by_pixel() {
        let texels = [65_535, 0, 0, 0, 0, 65_535, 0, 0];
        let image = position_texture_image(&texels, 2, 1).unwrap().scaled(4).unwrap();
        assert_eq!((image.width, image.height), (8, 4));
        assert_eq!(image.pixel(3, 3), Some([255, 0, 0, 255]));
        assert_eq!(image.pixel(4, 0), Some([0, 255, 0, 255]));
        assert!(matches!(image.scaled(0), Err(Error::Size { .. })));
        let broken = Image { width: 3, height: 3, pixels: vec![0; 5] };
        assert!(matches!(broken.scaled(2), Err(Error::PixelCount { len: 5, width: 3, height: 3 })));
        assert!(matches!(broken.to_png(), Err(Error::PixelCount { .. })));
    }

    #[test]
    fn wrong_lengths_and_sizes_are_errors() {
        assert!(matches!(position_texture_image(&[0; 7], 1, 2), Err(Error::TextureSize { len: 7, .. })));
        assert!(matches!(normal_texture_image(&[], 0, 0), Err(Error::Size { .. })));
    }
}
