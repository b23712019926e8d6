//! RGBA 32-bit float texels as KTX 2.0 (`VK_FORMAT_R32G32B32A32_SFLOAT`, Zstandard):
//! the texture of a bone bake, one joint matrix in four texels. Small (joints × rows),
//! so it is made in memory, not streamed.

use std::io::Cursor;

use crate::error::Ktx2Error;
use crate::layout::{
    key_value_data, put_u16, put_u32, put_u64, FixedHeader, HEADER_LEN, IDENTIFIER, LEVEL_INDEX_ENTRY_LEN,
    MAX_IMAGE_BYTES, SAMPLE_CHANNELS, SUPERCOMPRESSION_ZSTD,
};
use crate::types::Ktx2Options;

/// `VK_FORMAT_R32G32B32A32_SFLOAT`.
pub const VK_FORMAT_R32G32B32A32_SFLOAT: u32 = 109;

/// R, G, B, A: four bytes each.
const BYTES_PER_FLOAT_TEXEL: u64 = 16;
/// Basic block: 24 bytes of fields, then 16 bytes per sample.
const BASIC_BLOCK_LEN: usize = 24 + 16 * 4;
/// `dfdTotalSize`: its own 4 bytes plus the one basic block.
const DFD_LEN: usize = 4 + BASIC_BLOCK_LEN;
/// The sample qualifiers of a signed float channel (KHR_DF_SAMPLE_DATATYPE_FLOAT | _SIGNED).
const FLOAT_SIGNED: u8 = 0x80 | 0x40;

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

/// The Data Format Descriptor of `VK_FORMAT_R32G32B32A32_SFLOAT` (as KTX-Software's
/// `vk2dfd` gives it): four signed float samples, lower −1.0 and upper 1.0.
fn rgba32f_dfd() -> Vec<u8> {
    let mut dfd = Vec::with_capacity(DFD_LEN);
    put_u32(&mut dfd, DFD_LEN as u32);
    put_u32(&mut dfd, 0); // vendorId Khronos, descriptorType basic
    put_u16(&mut dfd, 2); // versionNumber 1.3
    put_u16(&mut dfd, BASIC_BLOCK_LEN as u16);
    dfd.extend_from_slice(&[1, 1, 1, 0]); // RGBSDA, BT.709, linear, alpha straight
    dfd.extend_from_slice(&[0, 0, 0, 0]); // a 1×1×1×1 block
    dfd.extend_from_slice(&[BYTES_PER_FLOAT_TEXEL as u8, 0, 0, 0, 0, 0, 0, 0]);
    for (index, channel) in SAMPLE_CHANNELS.into_iter().enumerate() {
        put_u16(&mut dfd, 32 * index as u16);
        dfd.push(32 - 1);
        dfd.push(channel | FLOAT_SIGNED);
        dfd.extend_from_slice(&[0, 0, 0, 0]);
        put_u32(&mut dfd, (-1.0f32).to_bits());
        put_u32(&mut dfd, 1.0f32.to_bits());
    }
    debug_assert_eq!(dfd.len(), DFD_LEN);
    dfd
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

    let dfd = rgba32f_dfd();
    let kvd = key_value_data(&options.writer);
    let dfd_offset = HEADER_LEN + LEVEL_INDEX_ENTRY_LEN;
    let kvd_offset = dfd_offset + dfd.len();
    let level_offset = kvd_offset + kvd.len();
    let mut out = Vec::with_capacity(level_offset + level.len());
    out.extend_from_slice(&IDENTIFIER);
    put_u32(&mut out, VK_FORMAT_R32G32B32A32_SFLOAT);
    put_u32(&mut out, 4); // typeSize: 32-bit components
    put_u32(&mut out, width);
    put_u32(&mut out, height);
    put_u32(&mut out, 0); // pixelDepth
    put_u32(&mut out, 0); // layerCount
    put_u32(&mut out, 1); // faceCount
    put_u32(&mut out, 1); // levelCount
    put_u32(&mut out, SUPERCOMPRESSION_ZSTD);
    put_u32(&mut out, dfd_offset as u32);
    put_u32(&mut out, dfd.len() as u32);
    put_u32(&mut out, kvd_offset as u32);
    put_u32(&mut out, kvd.len() as u32);
    put_u64(&mut out, 0);
    put_u64(&mut out, 0);
    put_u64(&mut out, level_offset as u64);
    put_u64(&mut out, level.len() as u64);
    put_u64(&mut out, raw_len);
    out.extend_from_slice(&dfd);
    out.extend_from_slice(&kvd);
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

/// Raw byte length of a `width` × `height` RGBA32F image, if within [`MAX_IMAGE_BYTES`].
fn float_byte_len(width: u32, height: u32) -> Result<u64, Ktx2Error> {
    if width == 0 || height == 0 {
        return Err(Ktx2Error::EmptyImage { width, height });
    }
    let bytes = u128::from(width) * u128::from(height) * u128::from(BYTES_PER_FLOAT_TEXEL);
    if bytes > u128::from(MAX_IMAGE_BYTES) {
        return Err(Ktx2Error::TooLarge { width, height, bytes, limit: MAX_IMAGE_BYTES });
    }
    Ok(bytes as u64)
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
    fn a_wrong_texel_count_is_refused() {
        let image = Rgba32fImage { width: 2, height: 2, texels: vec![0.0; 15] };
        let error = encode_ktx2_rgba32f(&image, &Ktx2Options::default()).unwrap_err();
        assert_eq!(error.to_string(), "invalid option: a 2x2 RGBA32F image needs 16 floats, not 15");
    }
}
