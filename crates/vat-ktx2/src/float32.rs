//! RGBA 32-bit float texels as KTX 2.0 (`VK_FORMAT_R32G32B32A32_SFLOAT`, Zstandard):
//! the texture of a bone bake, one joint matrix in four texels. Small (joints × rows),
//! so it is made in memory, not streamed.

use std::io::Cursor;

use crate::error::Ktx2Error;
use crate::layout::{
    FixedHeader, LEVEL_LENGTH_AT, RGBA32_SFLOAT, SUPERCOMPRESSION_ZSTD, VK_FORMAT_R32G32B32A32_SFLOAT,
};
use crate::types::Ktx2Options;

/// A grid of RGBA float texels, row 0 first, `width · height · 4` values.
#[derive(Clone, Debug, PartialEq)]
pub struct Rgba32fImage {
    /// Texels per row.
    pub width: u32,
    /// Rows.
    pub height: u32,
    /// R, G, B, A of every texel, row by row.
    pub texels: Vec<f32>,
}

/// Encodes `image` as KTX 2.0 with `vkFormat` 109, one level, Zstandard
/// supercompression at `options.zstd_level` (one frame, checksummed; the same
/// bytes on every machine), `KTXorientation` `rd` and `KTXwriter`.
///
/// ```
/// use vat_ktx2::{decode_ktx2_rgba32f, encode_ktx2_rgba32f, Ktx2Options, Rgba32fImage};
/// let image = Rgba32fImage { width: 1, height: 2, texels: vec![1.0, 0.0, 0.0, 0.0, 0.5, -2.0, 3.25, 1.0] };
/// let bytes = encode_ktx2_rgba32f(&image, &Ktx2Options::default())?;
/// assert_eq!(decode_ktx2_rgba32f(&bytes)?, image);
/// # Ok::<(), vat_ktx2::Ktx2Error>(())
/// ```
pub fn encode_ktx2_rgba32f(image: &Rgba32fImage, options: &Ktx2Options) -> Result<Vec<u8>, Ktx2Error> {
    let (width, height) = (image.width, image.height);
    let raw_len = float_byte_len(width, height)?;
    if image.texels.len() as u64 * 4 != raw_len {
        return Err(Ktx2Error::InvalidOptions(format!(
            "a {width}x{height} RGBA32F image needs {} floats, not {}",
            raw_len / 4,
            image.texels.len()
        )));
    }
    let raw: Vec<u8> = image.texels.iter().flat_map(|value| value.to_le_bytes()).collect();
    let mut encoder =
        zstd::stream::Encoder::new(Cursor::new(Vec::new()), options.zstd_level).map_err(Ktx2Error::Zstd)?;
    encoder.include_checksum(true).map_err(Ktx2Error::Zstd)?;
    encoder.set_pledged_src_size(Some(raw_len)).map_err(Ktx2Error::Zstd)?;
    std::io::Write::write_all(&mut encoder, &raw).map_err(Ktx2Error::Zstd)?;
    let level = encoder.finish().map_err(Ktx2Error::Zstd)?.into_inner();

    let mut out = RGBA32_SFLOAT.head(width, height, 1, raw_len, &options.writer)?;
    out[LEVEL_LENGTH_AT..LEVEL_LENGTH_AT + 8].copy_from_slice(&(level.len() as u64).to_le_bytes());
    out.extend_from_slice(&level);
    Ok(out)
}

/// Decodes a file [`encode_ktx2_rgba32f`] wrote (`vkFormat` 109, one level,
/// Zstandard or no supercompression).
pub fn decode_ktx2_rgba32f(bytes: &[u8]) -> Result<Rgba32fImage, Ktx2Error> {
    let header = FixedHeader::parse(bytes)?;
    if header.vk_format != VK_FORMAT_R32G32B32A32_SFLOAT {
        return Err(Ktx2Error::UnsupportedFormat(header.vk_format));
    }
    let (width, height) = (header.pixel_width, header.pixel_height);
    let raw_len = float_byte_len(width, height)?;
    let reader = ktx2::Reader::new(bytes)?;
    let level =
        reader.levels().next().ok_or_else(|| Ktx2Error::Malformed("no level in the level index".to_string()))?;
    let raw = match header.supercompression_scheme {
        SUPERCOMPRESSION_ZSTD => zstd::bulk::decompress(level.data, raw_len as usize).map_err(Ktx2Error::Zstd)?,
        0 => level.data.to_vec(),
        other => return Err(Ktx2Error::UnsupportedSupercompression(other)),
    };
    if raw.len() as u64 != raw_len {
        return Err(Ktx2Error::Malformed(format!(
            "level 0 holds {} bytes, a {width}x{height} RGBA32F image {raw_len}",
            raw.len()
        )));
    }
    let texels = raw.chunks_exact(4).map(|b| f32::from_le_bytes([b[0], b[1], b[2], b[3]])).collect();
    Ok(Rgba32fImage { width, height, texels })
}

/// Raw byte length of a `width` × `height` RGBA32F image, if neither side is 0 and it is
/// within [`crate::MAX_IMAGE_BYTES`].
fn float_byte_len(width: u32, height: u32) -> Result<u64, Ktx2Error> {
    if width == 0 || height == 0 {
        return Err(Ktx2Error::EmptyImage { width, height });
    }
    RGBA32_SFLOAT.byte_len(width, height)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_header_says_rgba32f_and_the_texels_round_trip_bit_for_bit() {
        let texels: Vec<f32> = (0..3 * 2 * 4).map(|i| (i as f32 - 7.5) * 1.0e-3 + f32::EPSILON).collect();
        let image = Rgba32fImage { width: 3, height: 2, texels };
        let bytes = encode_ktx2_rgba32f(&image, &Ktx2Options::default()).unwrap();
        let header = crate::decode::read_header(&bytes).unwrap();
        assert_eq!((header.vk_format, header.type_size, header.width, header.height), (109, 4, 3, 2));
        assert_eq!(header.supercompression_scheme, 2);
        assert_eq!(header.value_str("KTXorientation"), Some("rd"));
        let back = decode_ktx2_rgba32f(&bytes).unwrap();
        let bits = |i: &Rgba32fImage| i.texels.iter().map(|v| v.to_bits()).collect::<Vec<u32>>();
        assert_eq!(bits(&back), bits(&image));
        // Deterministic: the same image gives the same bytes.
        assert_eq!(encode_ktx2_rgba32f(&image, &Ktx2Options::default()).unwrap(), bytes);
    }

    #[test]
    fn the_dfd_is_the_one_the_ktx2_crate_builds_for_rgba32f() {
        // `ktx2` builds DFDs from a format table modelled on KTX-Software's `vk2dfd`: not ours.
        let (basic, type_size) = ktx2::dfd::Basic::from_format(ktx2::Format::R32G32B32A32_SFLOAT).unwrap();
        assert_eq!(type_size, 4);
        let image = Rgba32fImage { width: 2, height: 1, texels: vec![0.5; 8] };
        let bytes = encode_ktx2_rgba32f(&image, &Ktx2Options::default()).unwrap();
        let dfd_at = crate::layout::HEADER_LEN + crate::layout::LEVEL_INDEX_ENTRY_LEN;
        assert_eq!(u32::from_le_bytes(bytes[dfd_at..dfd_at + 4].try_into().unwrap()), 92, "dfdTotalSize");
        assert_eq!(&bytes[dfd_at + 4..dfd_at + 92], &ktx2::dfd::Block::Basic(basic).to_vec()[..]);
    }

    #[test]
    fn a_wrong_texel_count_is_refused() {
        let image = Rgba32fImage { width: 2, height: 2, texels: vec![0.0; 15] };
        let error = encode_ktx2_rgba32f(&image, &Ktx2Options::default()).unwrap_err();
        assert_eq!(error.to_string(), "invalid option: a 2x2 RGBA32F image needs 16 floats, not 15");
    }
}
