use std::io::{Read, Seek, SeekFrom};

use ktx2::dfd::{Basic, ChannelTypeQualifiers};
use zstd::zstd_safe;

use crate::error::Ktx2Error;
use crate::layout::{
    image_byte_len, parse_key_values, section, FixedHeader, BYTES_PER_TEXEL, HEADER_LEN, MAX_IMAGE_BYTES,
    SAMPLE_CHANNELS, SUPERCOMPRESSION_NONE, SUPERCOMPRESSION_ZSTD, TYPE_SIZE, VK_FORMAT_R16G16B16A16_UNORM,
};
use crate::types::{Ktx2Header, Rgba16Image};

pub(crate) fn read_header(bytes: &[u8]) -> Result<Ktx2Header, Ktx2Error> {
    let header = FixedHeader::parse(bytes)?;
    let kvd = section(bytes, header.kvd_byte_offset.into(), header.kvd_byte_length.into(), "the key/value data")?;
    header_facts(&header, kvd)
}

/// [`read_header`] from a file or any seekable source holding exactly one KTX 2.0 file
/// from offset 0: the fixed header, then (after a seek) the key/value data, and not a
/// byte more. Sizes are checked against the source's length before anything is
/// allocated, so the results and errors are those of [`read_header`] on the whole file.
pub(crate) fn read_header_from<R: Read + Seek>(mut source: R) -> Result<Ktx2Header, Ktx2Error> {
    let len = source.seek(SeekFrom::End(0)).map_err(Ktx2Error::Io)?;
    let mut read_at = |start: u64, count: u64| -> Result<Vec<u8>, Ktx2Error> {
        // `count` is at most `len` here: the bytes are there, so this allocation is too.
        let mut bytes = vec![0; count as usize];
        source.seek(SeekFrom::Start(start)).map_err(Ktx2Error::Io)?;
        source.read_exact(&mut bytes).map_err(Ktx2Error::Io)?;
        Ok(bytes)
    };
    // A file shorter than the header gets the errors of the slice reader on its bytes.
    let fixed = read_at(0, len.min(HEADER_LEN as u64))?;
    let header = FixedHeader::parse(&fixed)?;
    let (start, kvd_len) = (u64::from(header.kvd_byte_offset), u64::from(header.kvd_byte_length));
    let end = start + kvd_len; // two u32s: no overflow
    if end > len {
        return Err(Ktx2Error::Truncated { what: "the key/value data", start, end, len });
    }
    let kvd = read_at(start, kvd_len)?;
    header_facts(&header, &kvd)
}

fn header_facts(header: &FixedHeader, kvd: &[u8]) -> Result<Ktx2Header, Ktx2Error> {
    Ok(Ktx2Header {
        vk_format: header.vk_format,
        type_size: header.type_size,
        width: header.pixel_width,
        height: header.pixel_height,
        depth: header.pixel_depth,
        layer_count: header.layer_count,
        face_count: header.face_count,
        level_count: header.level_count,
        supercompression_scheme: header.supercompression_scheme,
        key_values: parse_key_values(kvd)?,
    })
}

pub(crate) fn decode_ktx2(bytes: &[u8]) -> Result<Rgba16Image, Ktx2Error> {
    // Our own checks come first: they give precise errors, and they keep inputs
    // away from the one panic found in the `ktx2` crate's parser (see below).
    let header = FixedHeader::parse(bytes)?;
    check_layout(&header)?;
    // An array texture's layers are decoded one after the other, as one image of
    // `pixelHeight · layerCount` rows: the order of their bytes in the level.
    let layers = header.layer_count.max(1);
    let width = header.pixel_width;
    let height = header
        .pixel_height
        .checked_mul(layers)
        .ok_or_else(|| Ktx2Error::Malformed(format!("{} layers of {} rows overflow", layers, header.pixel_height)))?;
    let expected = image_byte_len(width, height)?;
    let capacity = usize::try_from(expected).map_err(|_| Ktx2Error::TooLarge {
        width,
        height,
        bytes: expected.into(),
        limit: MAX_IMAGE_BYTES,
    })?;
    reject_dfd_ktx2_cannot_parse(bytes, &header)?;
    check_sections(bytes, &header)?;

    let reader = ktx2::Reader::new(bytes)?;
    check_dfd(reader.basic_dfd())?;
    let level =
        reader.levels().next().ok_or_else(|| Ktx2Error::Malformed("no level in the level index".to_string()))?;
    let level_length = |field, found| Ktx2Error::LevelLength { field, found, expected, width, height };
    if level.uncompressed_byte_length != expected {
        return Err(level_length("uncompressedByteLength", level.uncompressed_byte_length));
    }

    let texels = match header.supercompression_scheme {
        SUPERCOMPRESSION_NONE => {
            if level.data.len() as u64 != expected {
                return Err(level_length("byteLength", level.data.len() as u64));
            }
            le_bytes_to_texels(level.data)
        }
        SUPERCOMPRESSION_ZSTD => inflate(level.data, capacity)?,
        other => return Err(Ktx2Error::UnsupportedSupercompression(other)),
    };
    Ok(Rgba16Image { width, height, texels })
}

/// Every section the `ktx2` crate reads lies within the file: the key/value data, the
/// supercompression global data, the level index and each level's bytes. That crate
/// reports any of these as "unexpected end of buffer"; here the error names the part
/// and its bytes.
fn check_sections(bytes: &[u8], header: &FixedHeader) -> Result<(), Ktx2Error> {
    let long = |at: usize| bytes.get(at..at + 8).map_or(0, |b| u64::from_le_bytes(b.try_into().unwrap_or_default()));
    section(bytes, header.kvd_byte_offset.into(), header.kvd_byte_length.into(), "the key/value data")?;
    section(bytes, long(64), long(72), "the supercompression global data")?;
    let levels = u64::from(header.level_count.max(1));
    section(bytes, HEADER_LEN as u64, levels * 24, "the level index")?;
    for level in 0..levels as usize {
        let at = HEADER_LEN + level * 24;
        section(bytes, long(at), long(at + 8), "a level's data")?;
    }
    Ok(())
}

/// Format, `typeSize` and texture type: one 2D image of RGBA16 UNORM texels.
fn check_layout(header: &FixedHeader) -> Result<(), Ktx2Error> {
    if header.vk_format != VK_FORMAT_R16G16B16A16_UNORM {
        return Err(Ktx2Error::UnsupportedFormat(header.vk_format));
    }
    if ![SUPERCOMPRESSION_NONE, SUPERCOMPRESSION_ZSTD].contains(&header.supercompression_scheme) {
        return Err(Ktx2Error::UnsupportedSupercompression(header.supercompression_scheme));
    }
    if header.type_size != TYPE_SIZE {
        return Err(Ktx2Error::Malformed(format!(
            "typeSize is {} but VK_FORMAT_R16G16B16A16_UNORM needs {TYPE_SIZE}",
            header.type_size
        )));
    }
    let unsupported = |what: String| Err(Ktx2Error::UnsupportedLayout(what));
    if header.pixel_width == 0 {
        return Err(Ktx2Error::Malformed("pixelWidth is 0".to_string()));
    }
    if header.pixel_height == 0 {
        return unsupported("pixelHeight is 0 (a 1D texture)".to_string());
    }
    if header.pixel_depth != 0 {
        return unsupported(format!("pixelDepth is {} (a 3D texture)", header.pixel_depth));
    }
    // A one-element array holds exactly the bytes of a plain 2D texture; more
    // layers follow each other in the level and decode as one taller image.
    if header.face_count != 1 {
        return unsupported(format!("faceCount is {} (not 1)", header.face_count));
    }
    Ok(())
}

/// `ktx2` 0.5.0 panics while parsing a basic DFD block whose `texelBlockDimension`
/// byte is 255 (it computes `dim + 1` in a `u8`, then unwraps a `NonZeroU8`). No
/// real format has a 256-texel block, so such a file is malformed; find it first by
/// walking the DFD blocks exactly as that parser does.
fn reject_dfd_ktx2_cannot_parse(bytes: &[u8], header: &FixedHeader) -> Result<(), Ktx2Error> {
    let dfd =
        section(bytes, header.dfd_byte_offset.into(), header.dfd_byte_length.into(), "the data format descriptor")?;
    let mut blocks = dfd.get(4..).unwrap_or_default(); // after dfdTotalSize
    while let Some(block_header) = blocks.first_chunk::<8>() {
        let first_word = u32::from_le_bytes([block_header[0], block_header[1], block_header[2], block_header[3]]);
        let version = u16::from_le_bytes([block_header[4], block_header[5]]);
        let block_size = usize::from(u16::from_le_bytes([block_header[6], block_header[7]]));
        // vendorId 0 (Khronos), descriptorType 0 (basic), version 2: what `ktx2` parses.
        let is_basic = first_word == 0 && version == 2;
        if is_basic && blocks.get(12..16).is_some_and(|dims| dims.contains(&u8::MAX)) {
            return Err(Ktx2Error::Malformed("texelBlockDimension of 256 in the data format descriptor".to_string()));
        }
        if block_size < 8 {
            break; // `ktx2` reports this one as an error itself
        }
        blocks = blocks.get(block_size..).unwrap_or_default();
    }
    Ok(())
}

/// The DFD must describe what `vkFormat` 91 says: four unsigned 16-bit samples
/// R, G, B, A at bit offsets 0, 16, 32, 48 in a 1×1×1×1 block of one 8-byte plane
/// (or of an "unsized" plane: pre-2025 writers put 0 there for supercompressed data).
fn check_dfd(basic: Option<&Basic>) -> Result<(), Ktx2Error> {
    let mismatch = |what: String| {
        Err(Ktx2Error::Malformed(format!("the data format descriptor does not describe R16G16B16A16_UNORM: {what}")))
    };
    let Some(basic) = basic else {
        return mismatch("no basic descriptor block".to_string());
    };
    if basic.texel_block_dimensions.iter().any(|dim| dim.get() != 1) {
        return mismatch(format!("texel block {:?}", basic.texel_block_dimensions.map(|dim| dim.get())));
    }
    let plane0 = u64::from(basic.bytes_planes[0]);
    if (plane0 != BYTES_PER_TEXEL && plane0 != 0) || basic.bytes_planes[1..].iter().any(|&b| b != 0) {
        return mismatch(format!("bytesPlane {:?}", basic.bytes_planes));
    }
    let samples = &basic.sample_information;
    if samples.len() != SAMPLE_CHANNELS.len() {
        return mismatch(format!("{} samples instead of 4", samples.len()));
    }
    // LINEAR may be set on a sample (the alpha of a non-linear transfer), the others change the type.
    let type_changing = ChannelTypeQualifiers::SIGNED | ChannelTypeQualifiers::FLOAT | ChannelTypeQualifiers::EXPONENT;
    for (index, (sample, channel)) in samples.iter().zip(SAMPLE_CHANNELS).enumerate() {
        if u32::from(sample.bit_offset) != 16 * index as u32
            || sample.bit_length.get() != 16
            || sample.channel_type != channel
            || sample.channel_type_qualifiers.intersects(type_changing)
        {
            return mismatch(format!("sample {index} is {sample:?}"));
        }
    }
    Ok(())
}

/// Inflates the level into exactly `expected` bytes.
///
/// The frames' declared content sizes are checked first, so a frame announcing the
/// wrong size is refused before anything is allocated. Then the output buffer is
/// allocated at `expected` bytes (already checked against `width * height * 8`,
/// `uncompressedByteLength` and [`crate::MAX_IMAGE_BYTES`]) and zstd may not write
/// past it: a frame inflating to more fails instead of growing the buffer.
/// The texels are inflated in place into their own buffer: no byte copy of the image.
fn inflate(compressed: &[u8], expected: usize) -> Result<Vec<u16>, Ktx2Error> {
    let expected_u64 = expected as u64;
    if let Some(declared) = declared_content_size(compressed)? {
        if declared != expected_u64 {
            return Err(Ktx2Error::InflatedLength { found: declared, expected: expected_u64 });
        }
    }
    // `expected` is width × height × 8, so even.
    let mut texels = vec![0u16; expected / 2];
    // Inflates every frame in turn (skipping skippable ones) and verifies checksums.
    let mut decompressor = zstd::bulk::Decompressor::new().map_err(Ktx2Error::Zstd)?;
    let found = decompressor
        .decompress_to_buffer(compressed, bytemuck::cast_slice_mut::<u16, u8>(&mut texels))
        .map_err(Ktx2Error::Zstd)?;
    if found != expected {
        return Err(Ktx2Error::InflatedLength { found: found as u64, expected: expected_u64 });
    }
    // The level is little-endian; on a big-endian machine each value is swapped in place.
    for texel in &mut texels {
        *texel = u16::from_le(*texel);
    }
    Ok(texels)
}

/// Sum of the content sizes the frames declare, or `None` if a frame leaves it out.
/// Level data may hold several frames, skippable ones declaring 0.
fn declared_content_size(mut frames: &[u8]) -> Result<Option<u64>, Ktx2Error> {
    let corrupt = || Ktx2Error::Malformed("level 0 is not a sequence of Zstandard frames".into());
    if frames.is_empty() {
        return Err(corrupt());
    }
    let mut total: u64 = 0;
    while !frames.is_empty() {
        let frame_len = zstd_safe::find_frame_compressed_size(frames).map_err(|_| corrupt())?;
        let frame = frames.get(..frame_len).ok_or_else(corrupt)?;
        match zstd_safe::get_frame_content_size(frame).map_err(|_| corrupt())? {
            Some(size) => total = total.saturating_add(size),
            None => return Ok(None),
        }
        frames = &frames[frame_len..];
    }
    Ok(Some(total))
}

fn le_bytes_to_texels(bytes: &[u8]) -> Vec<u16> {
    bytes.chunks_exact(2).map(|pair| u16::from_le_bytes([pair[0], pair[1]])).collect()
}
