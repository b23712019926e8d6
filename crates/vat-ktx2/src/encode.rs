use std::io::{Cursor, Seek, SeekFrom, Write};

use zstd::zstd_safe::{self, zstd_sys::ZSTD_EndDirective, CCtx, CParameter, InBuffer, OutBuffer};

use crate::layout::{
    image_byte_len, key_value_data, put_u32, put_u64, rgba16_unorm_dfd, HEADER_LEN, IDENTIFIER, LEVEL_INDEX_ENTRY_LEN,
    SUPERCOMPRESSION_ZSTD, TYPE_SIZE, VK_FORMAT_R16G16B16A16_UNORM,
};
use crate::{Ktx2Error, Ktx2Options, Rgba16Image};

pub(crate) fn encode_ktx2(image: &Rgba16Image, options: &Ktx2Options) -> Result<Vec<u8>, Ktx2Error> {
    let mut out = Cursor::new(Vec::new());
    write_ktx2(image, options, &mut out)?;
    Ok(out.into_inner())
}

pub(crate) fn write_ktx2<W: Write + Seek>(
    image: &Rgba16Image,
    options: &Ktx2Options,
    mut out: W,
) -> Result<u64, Ktx2Error> {
    let raw_len = check_image(image)?;
    check_options(options)?;
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

    let start = out.stream_position().map_err(Ktx2Error::Io)?;
    let mut head = Vec::with_capacity(level_offset);
    head.extend_from_slice(&IDENTIFIER);
    put_u32(&mut head, VK_FORMAT_R16G16B16A16_UNORM);
    put_u32(&mut head, TYPE_SIZE);
    put_u32(&mut head, image.width);
    put_u32(&mut head, image.height);
    put_u32(&mut head, 0); // pixelDepth: not a 3D texture
    put_u32(&mut head, 0); // layerCount: not an array texture
    put_u32(&mut head, 1); // faceCount: not a cubemap
    put_u32(&mut head, 1); // levelCount: the base level only, and no mipmaps wanted
    put_u32(&mut head, SUPERCOMPRESSION_ZSTD);
    put_u32(&mut head, index_field(dfd_offset)?);
    put_u32(&mut head, index_field(dfd.len())?);
    put_u32(&mut head, index_field(kvd_offset)?);
    put_u32(&mut head, index_field(kvd.len())?);
    put_u64(&mut head, 0); // sgdByteOffset: must be 0 when sgdByteLength is 0
    put_u64(&mut head, 0); // sgdByteLength: Zstandard has no global data
    put_u64(&mut head, level_offset as u64);
    let level_length_at = head.len();
    put_u64(&mut head, 0); // byteLength: written once the level is compressed
    put_u64(&mut head, raw_len);
    debug_assert_eq!(head.len(), dfd_offset);
    head.extend_from_slice(&dfd);
    head.extend_from_slice(&kvd);
    debug_assert_eq!(head.len(), level_offset);
    out.write_all(&head).map_err(Ktx2Error::Io)?;

    let level_len = compress_level(&image.texels, raw_len, options, &mut out)?;
    out.seek(SeekFrom::Start(start + level_length_at as u64)).map_err(Ktx2Error::Io)?;
    out.write_all(&level_len.to_le_bytes()).map_err(Ktx2Error::Io)?;
    out.seek(SeekFrom::Start(start + level_offset as u64 + level_len)).map_err(Ktx2Error::Io)?;
    out.flush().map_err(Ktx2Error::Io)?;
    Ok(level_offset as u64 + level_len)
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

/// Compresses the whole level as one Zstandard frame, streamed into `out`;
/// returns the compressed length.
///
/// One frame, because consecutive rows are consecutive animation frames and
/// nearly identical: a single frame lets zstd match each row against the one
/// above it (`width * 8` bytes back). The frame records the content size, so
/// decoders can check it before inflating, and a checksum, which the KTX 2.0
/// specification says inflators should verify when present (4 bytes).
///
/// Always zstd's multithreaded mode, with at least one worker: its streaming
/// output is the same for any number of workers (single-threaded mode gives
/// other bytes), so the file does not depend on the machine's core count. The
/// workers compress independent jobs of a few MiB while this thread feeds them
/// and writes what they finish.
/// No explicit window log: zstd's level presets never exceed 27 (128 MiB), the
/// largest window decoders accept without being told to (`zstd -d`, the zstddec
/// WebAssembly decoder three.js uses), and shrink it to the input size.
/// No long-distance matching: it looks for matches beyond that window, while the
/// matches that matter here are one row (`width * 8` bytes, 128 KiB even for 16384
/// points) back. Measured with `examples/levels.rs`: within 0.1% at levels 19 and
/// 22, up to 1.6% larger at levels 3 and 9, and where it helps (level 1, up to 9%)
/// level 3 without it is smaller still.
fn compress_level<W: Write>(texels: &[u16], raw_len: u64, options: &Ktx2Options, mut out: W) -> Result<u64, Ktx2Error> {
    let zstd = |code: usize| Ktx2Error::Zstd(std::io::Error::other(zstd_safe::get_error_name(code)));
    let mut cctx = CCtx::try_create().ok_or_else(|| Ktx2Error::Zstd(std::io::Error::other("out of memory")))?;
    cctx.set_parameter(CParameter::CompressionLevel(options.zstd_level)).map_err(zstd)?;
    cctx.set_parameter(CParameter::NbWorkers(options.workers.max(1))).map_err(zstd)?;
    cctx.set_parameter(CParameter::ChecksumFlag(true)).map_err(zstd)?;
    cctx.set_parameter(CParameter::ContentSizeFlag(true)).map_err(zstd)?;
    cctx.set_pledged_src_size(Some(raw_len)).map_err(zstd)?;

    // KTX 2.0 image data is little-endian whatever the machine.
    let converted: Vec<u8>;
    let raw: &[u8] = if cfg!(target_endian = "little") {
        bytemuck::cast_slice(texels)
    } else {
        converted = texels.iter().flat_map(|texel| texel.to_le_bytes()).collect();
        &converted
    };
    // The last bytes go in with the end directive. Ending with no input left makes
    // zstd's multithreaded mode close the frame with an extra empty block or not,
    // depending on how far its workers have got: the bytes would vary from run to
    // run whenever the level is a whole number of jobs long.
    let (body, tail) = raw.split_at(raw.len() - raw.len().min(1 << 16));
    let mut buffer = vec![0u8; zstd_safe::CCtx::out_size()];
    let mut written = 0u64;
    let mut input = InBuffer::around(body);
    while input.pos < body.len() {
        let mut output = OutBuffer::around(&mut buffer[..]);
        cctx.compress_stream2(&mut output, &mut input, ZSTD_EndDirective::ZSTD_e_continue).map_err(zstd)?;
        out.write_all(output.as_slice()).map_err(Ktx2Error::Io)?;
        written += output.pos() as u64;
    }
    let mut input = InBuffer::around(tail);
    loop {
        let mut output = OutBuffer::around(&mut buffer[..]);
        let left = cctx.compress_stream2(&mut output, &mut input, ZSTD_EndDirective::ZSTD_e_end).map_err(zstd)?;
        out.write_all(output.as_slice()).map_err(Ktx2Error::Io)?;
        written += output.pos() as u64;
        if left == 0 {
            return Ok(written);
        }
    }
}
