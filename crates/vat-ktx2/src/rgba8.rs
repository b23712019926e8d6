//! RGBA 8-bit texels as KTX 2.0 (`VK_FORMAT_R8G8B8A8_SRGB` or `_UNORM`, Zstandard): the
//! impostor atlases, pictures every web and engine path samples as they are (no
//! transcoder). Made in memory, like the bone bake's texture: an atlas is a few MiB.

use std::io::Cursor;

use crate::error::Ktx2Error;
use crate::layout::{
    FixedHeader, TexelFormat, LEVEL_LENGTH_AT, RGBA8_SRGB, RGBA8_UNORM, SUPERCOMPRESSION_ZSTD, VK_FORMAT_R8G8B8A8_SRGB,
    VK_FORMAT_R8G8B8A8_UNORM,
};
use crate::types::Ktx2Options;

/// A grid of RGBA 8-bit texels, row 0 first, `width · height · 4` bytes.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Rgba8Image {
    /// Texels per row.
    pub width: u32,
    /// Rows.
    pub height: u32,
    /// Whether the colour bytes are sRGB-encoded (`VK_FORMAT_R8G8B8A8_SRGB`: a sampler
    /// decodes them to linear); the alpha is linear either way.
    pub srgb: bool,
    /// R, G, B, A of every texel, row by row.
    pub texels: Vec<u8>,
}

fn format_of(srgb: bool) -> TexelFormat {
    if srgb {
        RGBA8_SRGB
    } else {
        RGBA8_UNORM
    }
}

/// Encodes `image` as KTX 2.0 with `vkFormat` 43 (sRGB) or 37 (linear), one level,
/// Zstandard supercompression at `options.zstd_level` (one frame, checksummed, on one
/// thread: the same bytes on every machine), `KTXorientation` `rd` and `KTXwriter`.
///
/// ```
/// use vat_ktx2::{decode_ktx2_rgba8, encode_ktx2_rgba8, read_header, Ktx2Options, Rgba8Image};
/// let image = Rgba8Image { width: 2, height: 1, srgb: true, texels: vec![255, 128, 0, 255, 1, 2, 3, 0] };
/// let bytes = encode_ktx2_rgba8(&image, &Ktx2Options::default())?;
/// assert_eq!(read_header(&bytes)?.vk_format, 43);
/// assert_eq!(decode_ktx2_rgba8(&bytes)?, image);
/// # Ok::<(), vat_ktx2::Ktx2Error>(())
/// ```
pub fn encode_ktx2_rgba8(image: &Rgba8Image, options: &Ktx2Options) -> Result<Vec<u8>, Ktx2Error> {
    let (width, height) = (image.width, image.height);
    let raw_len = byte_len(width, height)?;
    if image.texels.len() as u64 != raw_len {
        return Err(Ktx2Error::InvalidOptions(format!(
            "a {width}x{height} RGBA8 image needs {raw_len} bytes, not {}",
            image.texels.len()
        )));
    }
    let mut encoder =
        zstd::stream::Encoder::new(Cursor::new(Vec::new()), options.zstd_level).map_err(Ktx2Error::Zstd)?;
    encoder.include_checksum(true).map_err(Ktx2Error::Zstd)?;
    encoder.set_pledged_src_size(Some(raw_len)).map_err(Ktx2Error::Zstd)?;
    std::io::Write::write_all(&mut encoder, &image.texels).map_err(Ktx2Error::Zstd)?;
    let level = encoder.finish().map_err(Ktx2Error::Zstd)?.into_inner();

    let mut out = format_of(image.srgb).head(width, height, 1, raw_len, &options.writer)?;
    out[LEVEL_LENGTH_AT..LEVEL_LENGTH_AT + 8].copy_from_slice(&(level.len() as u64).to_le_bytes());
    out.extend_from_slice(&level);
    Ok(out)
}

/// Decodes a file [`encode_ktx2_rgba8`] wrote (`vkFormat` 43 or 37, one level, Zstandard or
/// no supercompression); sizes are checked before anything is allocated.
pub fn decode_ktx2_rgba8(bytes: &[u8]) -> Result<Rgba8Image, Ktx2Error> {
    let header = FixedHeader::parse(bytes)?;
    let srgb = match header.vk_format {
        VK_FORMAT_R8G8B8A8_SRGB => true,
        VK_FORMAT_R8G8B8A8_UNORM => false,
        other => return Err(Ktx2Error::UnsupportedFormat(other)),
    };
    let (width, height) = (header.pixel_width, header.pixel_height);
    let raw_len = byte_len(width, height)?;
    let reader = ktx2::Reader::new(bytes)?;
    let level =
        reader.levels().next().ok_or_else(|| Ktx2Error::Malformed("no level in the level index".to_string()))?;
    let texels = match header.supercompression_scheme {
        SUPERCOMPRESSION_ZSTD => zstd::bulk::decompress(level.data, raw_len as usize).map_err(Ktx2Error::Zstd)?,
        0 => level.data.to_vec(),
        other => return Err(Ktx2Error::UnsupportedSupercompression(other)),
    };
    if texels.len() as u64 != raw_len {
        return Err(Ktx2Error::Malformed(format!(
            "level 0 holds {} bytes, a {width}x{height} RGBA8 image {raw_len}",
            texels.len()
        )));
    }
    Ok(Rgba8Image { width, height, srgb, texels })
}

/// Raw byte length of a `width` × `height` RGBA8 image, if neither side is 0 and it is
/// within [`crate::MAX_IMAGE_BYTES`].
fn byte_len(width: u32, height: u32) -> Result<u64, Ktx2Error> {
    if width == 0 || height == 0 {
        return Err(Ktx2Error::EmptyImage { width, height });
    }
    RGBA8_UNORM.byte_len(width, height)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_dfds_are_the_ones_the_ktx2_crate_builds_for_rgba8() {
        // `ktx2` builds DFDs from a format table modelled on KTX-Software's `vk2dfd`: not ours.
        for (srgb, format, vk) in [(true, ktx2::Format::R8G8B8A8_SRGB, 43), (false, ktx2::Format::R8G8B8A8_UNORM, 37)] {
            let (basic, type_size) = ktx2::dfd::Basic::from_format(format).unwrap();
            assert_eq!(type_size, 1);
            let image = Rgba8Image { width: 3, height: 2, srgb, texels: (0..24).collect() };
            let bytes = encode_ktx2_rgba8(&image, &Ktx2Options::default()).unwrap();
            let header = crate::decode::read_header(&bytes).unwrap();
            assert_eq!((header.vk_format, header.type_size, header.supercompression_scheme), (vk, 1, 2));
            let dfd_at = crate::layout::HEADER_LEN + crate::layout::LEVEL_INDEX_ENTRY_LEN;
            assert_eq!(u32::from_le_bytes(bytes[dfd_at..dfd_at + 4].try_into().unwrap()), 92, "dfdTotalSize");
            assert_eq!(&bytes[dfd_at + 4..dfd_at + 92], &ktx2::dfd::Block::Basic(basic).to_vec()[..], "srgb {srgb}");
            assert_eq!(decode_ktx2_rgba8(&bytes).unwrap(), image);
            assert_eq!(encode_ktx2_rgba8(&image, &Ktx2Options::default()).unwrap(), bytes);
        }
    }

    #[test]
    fn a_wrong_byte_count_or_another_format_is_refused() {
        let image = Rgba8Image { width: 2, height: 2, srgb: false, texels: vec![0; 15] };
        let error = encode_ktx2_rgba8(&image, &Ktx2Options::default()).unwrap_err();
        assert_eq!(error.to_string(), "invalid option: a 2x2 RGBA8 image needs 16 bytes, not 15");
        let float = crate::encode_ktx2_rgba32f(
            &crate::Rgba32fImage { width: 1, height: 1, texels: vec![0.0; 4] },
            &Ktx2Options::default(),
        )
        .unwrap();
        assert!(matches!(decode_ktx2_rgba8(&float), Err(Ktx2Error::UnsupportedFormat(109))));
    }
}
