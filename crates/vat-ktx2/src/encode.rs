use crate::layout::{
    image_byte_len, key_value_data, put_u32, put_u64, rgba16_unorm_dfd, HEADER_LEN, IDENTIFIER, LEVEL_INDEX_ENTRY_LEN,
    SUPERCOMPRESSION_ZSTD, TYPE_SIZE, VK_FORMAT_R16G16B16A16_UNORM,
};
use crate::{Ktx2Error, Ktx2Options, Rgba16Image};

pub(crate) fn encode_ktx2(image: &Rgba16Image, options: &Ktx2Options) -> Result<Vec<u8>, Ktx2Error> {
    let raw_len = check_image(image)?;
    check_options(options)?;

    let raw = texels_to_le_bytes(&image.texels);
    let level = compress_level(&raw, options.zstd_level)?;
    let dfd = rgba16_unorm_dfd();
    let kvd = key_value_data(&options.writer);

    // Sections follow each other in the order the specification lists them. The
    // DFD offset (104) is 4-aligned and the DFD a multiple of 4 long, so the
    // key/value data is 4-aligned as its padding rules assume. There is no
    // supercompression global data for Zstandard, hence no 8-byte sgdPadding, and a
    // supercompressed level's required alignment is 1: the level follows the
    // key/value data directly.
    let dfd_offset = HEADER_LEN + LEVEL_INDEX_ENTRY_LEN;
    let kvd_offset = dfd_offset + dfd.len();
    let level_offset = kvd_offset + kvd.len();
    let index_field = |value: usize| {
        u32::try_from(value)
            .map_err(|_| Ktx2Error::InvalidOptions("the writer string makes the header too long".to_string()))
    };

    let mut out = Vec::with_capacity(level_offset + level.len());
    out.extend_from_slice(&IDENTIFIER);
    put_u32(&mut out, VK_FORMAT_R16G16B16A16_UNORM);
    put_u32(&mut out, TYPE_SIZE);
    put_u32(&mut out, image.width);
    put_u32(&mut out, image.height);
    put_u32(&mut out, 0); // pixelDepth: not a 3D texture
    put_u32(&mut out, 0); // layerCount: not an array texture
    put_u32(&mut out, 1); // faceCount: not a cubemap
    put_u32(&mut out, 1); // levelCount: the base level only, and no mipmaps wanted
    put_u32(&mut out, SUPERCOMPRESSION_ZSTD);
    put_u32(&mut out, index_field(dfd_offset)?);
    put_u32(&mut out, index_field(dfd.len())?);
    put_u32(&mut out, index_field(kvd_offset)?);
    put_u32(&mut out, index_field(kvd.len())?);
    put_u64(&mut out, 0); // sgdByteOffset: must be 0 when sgdByteLength is 0
    put_u64(&mut out, 0); // sgdByteLength: Zstandard has no global data
    put_u64(&mut out, level_offset as u64);
    put_u64(&mut out, level.len() as u64);
    put_u64(&mut out, raw_len);
    debug_assert_eq!(out.len(), dfd_offset);
    out.extend_from_slice(&dfd);
    out.extend_from_slice(&kvd);
    debug_assert_eq!(out.len(), level_offset);
    out.extend_from_slice(&level);
    Ok(out)
}

/// Checks the dimensions and the texel count; returns the raw byte length.
pub(crate) fn check_image(image: &Rgba16Image) -> Result<u64, Ktx2Error> {
    let (width, height) = (image.width, image.height);
    if width == 0 || height == 0 {
        return Err(Ktx2Error::EmptyImage { width, height });
    }
    let raw_len = image_byte_len(width, height)?;
    let expected = raw_len / 2;
    if image.texels.len() as u64 != expected {
        return Err(Ktx2Error::TexelCount { width, height, found: image.texels.len(), expected });
    }
    Ok(raw_len)
}

fn check_options(options: &Ktx2Options) -> Result<(), Ktx2Error> {
    let levels = zstd::compression_level_range();
    if !levels.contains(&options.zstd_level) {
        return Err(Ktx2Error::InvalidOptions(format!(
            "zstd_level {} is outside {}..={}",
            options.zstd_level,
            levels.start(),
            levels.end()
        )));
    }
    // The value is stored as a NUL-terminated string, so it cannot hold a NUL itself.
    if options.writer.is_empty() || options.writer.contains('\0') {
        return Err(Ktx2Error::InvalidOptions("writer must be non-empty and contain no NUL character".to_string()));
    }
    Ok(())
}

/// KTX 2.0 image data is little-endian whatever the machine.
pub(crate) fn texels_to_le_bytes(texels: &[u16]) -> Vec<u8> {
    texels.iter().flat_map(|texel| texel.to_le_bytes()).collect()
}

/// Compresses the whole level as one Zstandard frame.
///
/// One frame, because consecutive rows are consecutive animation frames and
/// nearly identical: a single frame lets zstd match each row against the one
/// above it (`width * 8` bytes back). The frame records the content size, so
/// decoders can check it before inflating, and a checksum, which the KTX 2.0
/// specification says inflators should verify when present (4 bytes).
///
/// No worker threads: multithreaded zstd is not guaranteed to give the same bytes.
/// No explicit window log: zstd's level presets never exceed 27 (128 MiB), the
/// largest window decoders accept without being told to (`zstd -d`, the zstddec
/// WebAssembly decoder three.js uses), and shrink it to the input size (a 64 MiB
/// level at level 22 gets a 64 MiB window, which both decode).
/// No long-distance matching: it looks for matches beyond that window, while the
/// matches that matter here are one row (`width * 8` bytes, 128 KiB even for 16384
/// points) back. Measured with `examples/levels.rs`: within 0.1% at levels 19 and
/// 22, up to 1.6% larger at levels 3 and 9, and where it helps (level 1, up to 9%)
/// level 3 without it is smaller still.
fn compress_level(raw: &[u8], level: i32) -> Result<Vec<u8>, Ktx2Error> {
    let mut compressor = zstd::bulk::Compressor::new(level).map_err(Ktx2Error::Zstd)?;
    compressor.include_checksum(true).map_err(Ktx2Error::Zstd)?;
    compressor.include_contentsize(true).map_err(Ktx2Error::Zstd)?;
    compressor.compress(raw).map_err(Ktx2Error::Zstd)
}
