//! The KTX 2.0 byte layout: constants from the KTX 2.0 specification and the
//! Khronos Data Format Specification 1.4, the Data Format Descriptor and key/value
//! data we write, and the bounds-checked parse of the fixed-size header that both
//! the decoder and `read_header` start from.

use crate::error::Ktx2Error;

/// `VK_FORMAT_R16G16B16A16_UNORM`.
pub const VK_FORMAT_R16G16B16A16_UNORM: u32 = 91;
/// `supercompressionScheme` for uncompressed level data.
pub const SUPERCOMPRESSION_NONE: u32 = 0;
/// `supercompressionScheme` for Zstandard.
pub const SUPERCOMPRESSION_ZSTD: u32 = 2;

/// Largest image (in bytes of raw texels) either direction accepts: 1 GiB, e.g.
/// 16384 points × 8192 frames. Decoding checks a file's claimed size against this
/// before allocating, so a hostile header cannot make us reserve more.
pub const MAX_IMAGE_BYTES: u64 = 1 << 30;

/// `«KTX 20»\r\n\x1A\n`.
pub(crate) const IDENTIFIER: [u8; 12] = [0xAB, 0x4B, 0x54, 0x58, 0x20, 0x32, 0x30, 0xBB, 0x0D, 0x0A, 0x1A, 0x0A];
/// Identifier, nine `UInt32` header fields, then the index (four `UInt32`, two `UInt64`).
pub(crate) const HEADER_LEN: usize = 12 + 9 * 4 + 4 * 4 + 2 * 8;
/// One level index entry: `byteOffset`, `byteLength`, `uncompressedByteLength`, all `UInt64`.
pub(crate) const LEVEL_INDEX_ENTRY_LEN: usize = 3 * 8;
/// R, G, B, A, two bytes each.
pub(crate) const BYTES_PER_TEXEL: u64 = 8;
/// `typeSize` of an unpacked format with 16-bit components.
pub(crate) const TYPE_SIZE: u32 = 2;

// Khronos Data Format Specification 1.4 values for the basic descriptor block.
const KHR_DF_VENDORID_KHRONOS: u32 = 0;
const KHR_DF_KHR_DESCRIPTORTYPE_BASICFORMAT: u32 = 0;
/// `KHR_DF_VERSIONNUMBER_1_3`: the basic block layout KTX 2.0 requires.
const KHR_DF_VERSIONNUMBER_1_3: u16 = 2;
const KHR_DF_MODEL_RGBSDA: u8 = 1;
const KHR_DF_PRIMARIES_BT709: u8 = 1;
const KHR_DF_TRANSFER_LINEAR: u8 = 1;
const KHR_DF_FLAG_ALPHA_STRAIGHT: u8 = 0;
pub(crate) const KHR_DF_CHANNEL_RGBSDA_RED: u8 = 0;
pub(crate) const KHR_DF_CHANNEL_RGBSDA_GREEN: u8 = 1;
pub(crate) const KHR_DF_CHANNEL_RGBSDA_BLUE: u8 = 2;
pub(crate) const KHR_DF_CHANNEL_RGBSDA_ALPHA: u8 = 15;
/// Channel of each 16-bit sample, in memory order.
pub(crate) const SAMPLE_CHANNELS: [u8; 4] =
    [KHR_DF_CHANNEL_RGBSDA_RED, KHR_DF_CHANNEL_RGBSDA_GREEN, KHR_DF_CHANNEL_RGBSDA_BLUE, KHR_DF_CHANNEL_RGBSDA_ALPHA];
/// Basic block: 24 bytes of fields, then 16 bytes per sample.
const BASIC_BLOCK_LEN: usize = 24 + 16 * SAMPLE_CHANNELS.len();
/// `dfdTotalSize`: its own 4 bytes plus the one basic block.
pub(crate) const DFD_LEN: usize = 4 + BASIC_BLOCK_LEN;

pub(crate) fn put_u16(out: &mut Vec<u8>, value: u16) {
    out.extend_from_slice(&value.to_le_bytes());
}

pub(crate) fn put_u32(out: &mut Vec<u8>, value: u32) {
    out.extend_from_slice(&value.to_le_bytes());
}

pub(crate) fn put_u64(out: &mut Vec<u8>, value: u64) {
    out.extend_from_slice(&value.to_le_bytes());
}

/// The Data Format Descriptor of `VK_FORMAT_R16G16B16A16_UNORM`, as the KTX-Software
/// reference (`vk2dfd`) produces it.
///
/// `bytesPlane0` is 8 even though the level is supercompressed: KTX 2.0 document
/// revision 4 (2025) requires a supercompressed file's DFD to keep the
/// pre-deflation `bytesPlane` values; earlier revisions wanted 0 ("unsized"), and
/// readers must still accept those, which `decode_ktx2` does.
pub(crate) fn rgba16_unorm_dfd() -> Vec<u8> {
    let mut dfd = Vec::with_capacity(DFD_LEN);
    put_u32(&mut dfd, DFD_LEN as u32); // dfdTotalSize
    put_u32(&mut dfd, KHR_DF_VENDORID_KHRONOS | (KHR_DF_KHR_DESCRIPTORTYPE_BASICFORMAT << 17));
    put_u16(&mut dfd, KHR_DF_VERSIONNUMBER_1_3);
    put_u16(&mut dfd, BASIC_BLOCK_LEN as u16); // descriptorBlockSize
    dfd.extend_from_slice(&[
        KHR_DF_MODEL_RGBSDA,
        KHR_DF_PRIMARIES_BT709,
        KHR_DF_TRANSFER_LINEAR,
        KHR_DF_FLAG_ALPHA_STRAIGHT,
    ]);
    // texelBlockDimension0..3 are stored minus one: a 1x1x1x1 block is all zeros.
    dfd.extend_from_slice(&[0, 0, 0, 0]);
    // bytesPlane0..7: one plane of 8-byte texels.
    dfd.extend_from_slice(&[BYTES_PER_TEXEL as u8, 0, 0, 0, 0, 0, 0, 0]);
    for (index, channel) in SAMPLE_CHANNELS.into_iter().enumerate() {
        put_u16(&mut dfd, 16 * index as u16); // bitOffset
        dfd.push(16 - 1); // bitLength, stored minus one
        dfd.push(channel); // channelType in the low nibble, no qualifiers (unsigned integer)
        dfd.extend_from_slice(&[0, 0, 0, 0]); // samplePosition0..3: the texel's origin
        put_u32(&mut dfd, 0); // sampleLower: 0 is 0.0
        put_u32(&mut dfd, u32::from(u16::MAX)); // sampleUpper: 65535 is 1.0 (UNORM)
    }
    debug_assert_eq!(dfd.len(), DFD_LEN);
    dfd
}

/// Key/value data: `KTXorientation` = `rd` (S to the right, T down: row 0 is the
/// top) and `KTXwriter`, both NUL-terminated strings, sorted by key as the
/// specification requires, each entry padded to 4 bytes. The caller places it at
/// a 4-byte-aligned offset, so padding relative to the section is padding in the file.
pub(crate) fn key_value_data(writer: &str) -> Vec<u8> {
    let mut entries: [(&str, &str); 2] = [("KTXwriter", writer), ("KTXorientation", "rd")];
    // The specification sorts by Unicode code points; UTF-8 byte order is the same order.
    entries.sort_by(|a, b| a.0.as_bytes().cmp(b.0.as_bytes()));
    let mut kvd = Vec::new();
    for (key, value) in entries {
        let key_and_value_len = key.len() + 1 + value.len() + 1;
        put_u32(&mut kvd, key_and_value_len as u32);
        kvd.extend_from_slice(key.as_bytes());
        kvd.push(0);
        kvd.extend_from_slice(value.as_bytes());
        kvd.push(0);
        kvd.resize(kvd.len().next_multiple_of(4), 0); // valuePadding
    }
    kvd
}

/// Raw byte length of a `width` × `height` RGBA16 image, if within [`MAX_IMAGE_BYTES`].
pub(crate) fn image_byte_len(width: u32, height: u32) -> Result<u64, Ktx2Error> {
    // u32 × u32 × 8 can exceed u64, never u128.
    let bytes = u128::from(width) * u128::from(height) * u128::from(BYTES_PER_TEXEL);
    if bytes > u128::from(MAX_IMAGE_BYTES) {
        return Err(Ktx2Error::TooLarge { width, height, bytes, limit: MAX_IMAGE_BYTES });
    }
    Ok(bytes as u64)
}

/// The fixed 80-byte header, fields named as in the specification.
#[derive(Clone, Copy, Debug)]
pub(crate) struct FixedHeader {
    pub vk_format: u32,
    pub type_size: u32,
    pub pixel_width: u32,
    pub pixel_height: u32,
    pub pixel_depth: u32,
    pub layer_count: u32,
    pub face_count: u32,
    pub level_count: u32,
    pub supercompression_scheme: u32,
    pub dfd_byte_offset: u32,
    pub dfd_byte_length: u32,
    pub kvd_byte_offset: u32,
    pub kvd_byte_length: u32,
}

impl FixedHeader {
    /// Checks the identifier and reads the header. A short file that is a prefix of
    /// the identifier is "truncated"; anything else not starting with it is not KTX 2.0.
    pub(crate) fn parse(bytes: &[u8]) -> Result<Self, Ktx2Error> {
        let prefix = &bytes[..bytes.len().min(IDENTIFIER.len())];
        if prefix != &IDENTIFIER[..prefix.len()] {
            return Err(Ktx2Error::BadIdentifier);
        }
        let header = section(bytes, 0, HEADER_LEN as u64, "the header")?;
        let word = |index: usize| {
            let at = IDENTIFIER.len() + 4 * index;
            u32::from_le_bytes([header[at], header[at + 1], header[at + 2], header[at + 3]])
        };
        Ok(Self {
            vk_format: word(0),
            type_size: word(1),
            pixel_width: word(2),
            pixel_height: word(3),
            pixel_depth: word(4),
            layer_count: word(5),
            face_count: word(6),
            level_count: word(7),
            supercompression_scheme: word(8),
            dfd_byte_offset: word(9),
            dfd_byte_length: word(10),
            kvd_byte_offset: word(11),
            kvd_byte_length: word(12),
        })
    }
}

/// `bytes[start..start + len]`, or a [`Ktx2Error::Truncated`] naming `what`.
pub(crate) fn section<'a>(bytes: &'a [u8], start: u64, len: u64, what: &'static str) -> Result<&'a [u8], Ktx2Error> {
    let end = start.saturating_add(len);
    usize::try_from(start)
        .ok()
        .zip(usize::try_from(end).ok())
        .and_then(|(start, end)| bytes.get(start..end))
        .ok_or(Ktx2Error::Truncated { what, start, end, len: bytes.len() as u64 })
}

/// Parses key/value data strictly: every length must stay inside `kvdByteLength`,
/// every key must be non-empty UTF-8 ended by NUL, and the padding must fit.
pub(crate) fn parse_key_values(kvd: &[u8]) -> Result<Vec<(String, Vec<u8>)>, Ktx2Error> {
    let malformed = |what: &str| Ktx2Error::Malformed(format!("key/value data: {what}"));
    let mut pairs = Vec::new();
    let mut rest = kvd;
    while !rest.is_empty() {
        let (length, after_length) =
            rest.split_first_chunk::<4>().ok_or_else(|| malformed("entry length cut off by kvdByteLength"))?;
        let length = u32::from_le_bytes(*length) as usize;
        let entry = after_length.get(..length).ok_or_else(|| malformed("entry runs past kvdByteLength"))?;
        let nul = entry.iter().position(|&byte| byte == 0).ok_or_else(|| malformed("key without NUL terminator"))?;
        if nul == 0 {
            return Err(malformed("empty key"));
        }
        let key = std::str::from_utf8(&entry[..nul]).map_err(|_| malformed("key is not UTF-8"))?.to_string();
        pairs.push((key, entry[nul + 1..].to_vec()));
        // valuePadding is part of kvdByteLength, so it must fit too.
        let padded = (4 + length).next_multiple_of(4);
        rest = rest.get(padded..).ok_or_else(|| malformed("valuePadding runs past kvdByteLength"))?;
    }
    Ok(pairs)
}
