//! The 32-bit float OpenEXR of `--target godot|unity|unreal` (and of any format whose
//! players read floats), written with the `exr` crate.
//!
//! One part, scanlines top first, channels A B G R (the file's order; the crate sorts them
//! by name) as 32-bit floats, ZIP compression over blocks of 16 lines (`ZIP16`, OpenEXR's
//! `ZIP_COMPRESSION`), which three.js's `EXRLoader`, tinyexr (Godot) and the OpenEXR
//! library (Unity, Unreal) all read. A block that does not shrink is stored as it is.
//! The crate is built without its `rayon` feature: it compresses the blocks one after
//! another on the caller's thread, so the bytes do not depend on any thread count.

use exr::prelude::{
    ChannelDescription, Encoding, Image, LineOrder, SampleType, SpecificChannels, Vec2 as ExrVec2, WritableImage,
};

/// Scanlines per chunk of a ZIP-compressed OpenEXR file.
pub const EXR_ZIP_LINES: usize = 16;

/// An OpenEXR image of `width` × `height` RGBA values, each channel a 32-bit float:
/// `pixel(x, y)` gives the texel in column `x` of line `y` (line 0 at the top). The crate
/// asks for the texels line by line as it fills each block of [`EXR_ZIP_LINES`] lines, so
/// no full-size image is held besides the compressed file. Deterministic: the same values
/// give the same bytes.
///
/// Panics when a side is 0 or above `i32::MAX`: a bake's texture is never so, and a
/// caller's bug is no file error.
pub fn exr_rgba32f(width: usize, height: usize, pixel: impl Fn(usize, usize) -> [f32; 4] + Sync) -> Vec<u8> {
    let float = |name: &str| ChannelDescription::new(name, SampleType::F32, false);
    let pixels = |at: ExrVec2<usize>| {
        let [r, g, b, a] = pixel(at.x(), at.y());
        (r, g, b, a)
    };
    let channels = SpecificChannels::new((float("R"), float("G"), float("B"), float("A")), pixels);
    let encoding = Encoding {
        compression: exr::compression::Compression::ZIP16,
        blocks: exr::image::Blocks::ScanLines,
        line_order: LineOrder::Increasing,
    };
    let image = Image::from_encoded_channels((width, height), encoding, channels);
    let mut bytes = std::io::Cursor::new(Vec::new());
    image
        .write()
        .non_parallel()
        .to_buffered(&mut bytes)
        .unwrap_or_else(|error| panic!("a {width} × {height} float EXR in memory: {error}"));
    bytes.into_inner()
}

/// The pixel function of [`exr_rgba32f`] for 16-bit texels (`texels[(y · width + x) · 4 + c]`,
/// row 0 at the top): each channel `t / 65535`, exact in a float, so a texel's every bit,
/// which an engine imports as a float texture (Godot RGBAF, Unity RGBAFloat, Unreal HDR_F32).
///
/// Panics when `texels` holds fewer than `width · height · 4` values.
pub fn unorm16_pixels(texels: &[u16], width: usize, height: usize) -> impl Fn(usize, usize) -> [f32; 4] + Sync + '_ {
    assert!(texels.len() >= width * height * 4, "{width} × {height} texels need {} values", width * height * 4);
    move |x, y| {
        let i = (y * width + x) * 4;
        std::array::from_fn(|c| texels[i + c] as f32 / 65535.0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use exr::prelude::traits::*;

    /// Every texel back through the `exr` crate's reader, as RGBA floats rows top first.
    fn read(file: &[u8]) -> (usize, usize, Vec<[f32; 4]>) {
        let image = exr::prelude::read()
            .no_deep_data()
            .largest_resolution_level()
            .rgba_channels(
                |size, _| (size.width(), vec![[0f32; 4]; size.width() * size.height()]),
                |(width, pixels), at, (r, g, b, a): (f32, f32, f32, f32)| {
                    pixels[at.y() * *width + at.x()] = [r, g, b, a]
                },
            )
            .first_valid_layer()
            .all_attributes()
            .from_buffered(std::io::Cursor::new(file))
            .unwrap();
        let (width, pixels) = image.layer_data.channel_data.pixels;
        (width, pixels.len() / width, pixels)
    }

    #[test]
    fn the_crates_reader_finds_every_texel_as_t_over_65535() {
        // 3 × 37 texels: three blocks of 16, 16 and 5 lines; every value the 16 bits can take
        // at either end, and a scramble between.
        let (width, height) = (3, 37);
        let mut texels: Vec<u16> = (0..width * height * 4).map(|i| (i * 7919 % 65536) as u16).collect();
        texels[..8].copy_from_slice(&[0, 1, 2, 32767, 32768, 65533, 65534, 65535]);
        let file = exr_rgba32f(width, height, unorm16_pixels(&texels, width, height));
        assert_eq!(&file[..8], &[0x76, 0x2f, 0x31, 0x01, 2, 0, 0, 0], "magic, version 2, single-part scanlines");
        let (w, h, pixels) = read(&file);
        assert_eq!((w, h), (width, height));
        for (i, pixel) in pixels.iter().enumerate() {
            for c in 0..4 {
                assert_eq!(pixel[c], texels[i * 4 + c] as f32 / 65535.0, "texel {i} channel {c}");
                assert_eq!((pixel[c] * 65535.0).round() as u16, texels[i * 4 + c]);
            }
        }
    }

    #[test]
    fn floats_are_written_as_they_are() {
        let values = [0.5f32, -1.25, 3.0e-8, 1.0e6, f32::MIN_POSITIVE, -0.0, 7.0, 65535.0];
        let (w, h, pixels) = read(&exr_rgba32f(1, 2, |_, y| std::array::from_fn(|c| values[y * 4 + c])));
        assert_eq!((w, h), (1, 2));
        let bits: Vec<u32> = pixels.iter().flatten().map(|v| v.to_bits()).collect();
        assert_eq!(bits, values.map(f32::to_bits));
    }

    #[test]
    fn the_header_says_zip_blocks_of_16_lines_and_four_float_channels() {
        let texels: Vec<u16> = (0..5 * 40 * 4).map(|i| (i * 31 % 65536) as u16).collect();
        let file = exr_rgba32f(5, 40, unorm16_pixels(&texels, 5, 40));
        let meta = exr::meta::MetaData::read_from_buffered(std::io::Cursor::new(&file), true).unwrap();
        assert_eq!(meta.headers.len(), 1);
        let header = &meta.headers[0];
        assert_eq!(header.compression, exr::compression::Compression::ZIP16);
        assert_eq!(header.compression.scan_lines_per_block(), EXR_ZIP_LINES);
        assert_eq!(header.chunk_count, 40usize.div_ceil(EXR_ZIP_LINES));
        assert_eq!(header.line_order, LineOrder::Increasing);
        let channels: Vec<(String, SampleType)> =
            header.channels.list.iter().map(|c| (c.name.to_string(), c.sample_type)).collect();
        let want = ["A", "B", "G", "R"].map(|n| (n.to_string(), SampleType::F32));
        assert_eq!(channels, want);
    }

    #[test]
    fn the_same_texels_give_the_same_bytes_and_a_smooth_image_shrinks() {
        let smooth: Vec<u16> = (0..64 * 32 * 4).map(|i| (i / 4 % 64 * 100) as u16).collect();
        let file = exr_rgba32f(64, 32, unorm16_pixels(&smooth, 64, 32));
        assert_eq!(file, exr_rgba32f(64, 32, unorm16_pixels(&smooth, 64, 32)));
        // 32 KB of floats: the blocks are compressed, not stored.
        assert!(file.len() < 64 * 32 * 16 / 2, "{} bytes", file.len());
    }
}
