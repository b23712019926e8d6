//! The KTX 2.0 byte layout: constants from the KTX 2.0 specification and the
//! Khronos Data Format Specification 1.4, the Data Format Descriptor and key/value
//! data we write, and the bounds-checked parse of the fixed-size header that both
//! the decoder and `read_header` start from.

use crate::error::Ktx2Error;

/// `VK_FORMAT_R16G16B16A16_UNORM`.
pub const VK_FORMAT_R16G16B16A16_UNORM: u32 = 91;
/// `VK_FORMAT_R32G32B32A32_SFLOAT`.
pub const VK_FORMAT_R32G32B32A32_SFLOAT: u32 = 109;
/// `VK_FORMAT_R8G8B8A8_UNORM`.
pub const VK_FORMAT_R8G8B8A8_UNORM: u32 = 37;
/// `VK_FORMAT_R8G8B8A8_SRGB`.
pub const VK_FORMAT_R8G8B8A8_SRGB: u32 = 43;
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
// Khronos Data Format Specification 1.4 values for the basic descriptor block.
const KHR_DF_VENDORID_KHRONOS: u32 = 0;
const KHR_DF_KHR_DESCRIPTORTYPE_BASICFORMAT: u32 = 0;
/// `KHR_DF_VERSIONNUMBER_1_3`: the basic block layout KTX 2.0 requires.
const KHR_DF_VERSIONNUMBER_1_3: u16 = 2;
const KHR_DF_MODEL_RGBSDA: u8 = 1;
const KHR_DF_PRIMARIES_BT709: u8 = 1;
const KHR_DF_TRANSFER_LINEAR: u8 = 1;
const KHR_DF_TRANSFER_SRGB: u8 = 2;
const KHR_DF_FLAG_ALPHA_STRAIGHT: u8 = 0;
pub(crate) const KHR_DF_CHANNEL_RGBSDA_RED: u8 = 0;
pub(crate) const KHR_DF_CHANNEL_RGBSDA_GREEN: u8 = 1;
pub(crate) const KHR_DF_CHANNEL_RGBSDA_BLUE: u8 = 2;
pub(crate) const KHR_DF_CHANNEL_RGBSDA_ALPHA: u8 = 15;
/// Channel of each sample, in memory order.
pub(crate) const SAMPLE_CHANNELS: [u8; 4] =
    [KHR_DF_CHANNEL_RGBSDA_RED, KHR_DF_CHANNEL_RGBSDA_GREEN, KHR_DF_CHANNEL_RGBSDA_BLUE, KHR_DF_CHANNEL_RGBSDA_ALPHA];
/// Basic block: 24 bytes of fields, then 16 bytes per sample.
const BASIC_BLOCK_LEN: usize = 24 + 16 * SAMPLE_CHANNELS.len();
/// `dfdTotalSize`: its own 4 bytes plus the one basic block.
pub(crate) const DFD_LEN: usize = 4 + BASIC_BLOCK_LEN;
/// Sample qualifiers (the channelType byte's high bits): `KHR_DF_SAMPLE_DATATYPE_FLOAT`, `_SIGNED`.
const KHR_DF_SAMPLE_DATATYPE_FLOAT: u8 = 0x80;
const KHR_DF_SAMPLE_DATATYPE_SIGNED: u8 = 0x40;
/// `KHR_DF_SAMPLE_DATATYPE_LINEAR`: the alpha sample of an sRGB format is not sRGB-encoded.
const KHR_DF_SAMPLE_DATATYPE_LINEAR: u8 = 0x10;

/// One of the texel formats written here: four samples R, G, B, A of `bits` each,
/// what the header's `vkFormat` and `typeSize` and the DFD's samples say about them.
#[derive(Clone, Copy, Debug)]
pub(crate) struct TexelFormat {
    pub vk_format: u32,
    /// Bits per sample.
    bits: u8,
    /// The qualifiers each sample's channelType carries.
    qualifiers: u8,
    /// `sampleLower` and `sampleUpper`: the raw values that mean 0.0 (−1.0 for floats) and 1.0.
    lower: u32,
    upper: u32,
    /// The transfer function of the colour samples (sRGB or linear).
    transfer: u8,
}

/// `VK_FORMAT_R16G16B16A16_UNORM`: unsigned integers, 65535 is 1.0.
pub(crate) const RGBA16_UNORM: TexelFormat = TexelFormat {
    vk_format: VK_FORMAT_R16G16B16A16_UNORM,
    bits: 16,
    qualifiers: 0,
    lower: 0,
    upper: u16::MAX as u32,
    transfer: KHR_DF_TRANSFER_LINEAR,
};
/// `VK_FORMAT_R8G8B8A8_UNORM`: bytes, 255 is 1.0, linear.
pub(crate) const RGBA8_UNORM: TexelFormat = TexelFormat {
    vk_format: VK_FORMAT_R8G8B8A8_UNORM,
    bits: 8,
    qualifiers: 0,
    lower: 0,
    upper: u8::MAX as u32,
    transfer: KHR_DF_TRANSFER_LINEAR,
};
/// `VK_FORMAT_R8G8B8A8_SRGB`: bytes, the colour sRGB-encoded, the alpha linear.
pub(crate) const RGBA8_SRGB: TexelFormat = TexelFormat {
    vk_format: VK_FORMAT_R8G8B8A8_SRGB,
    bits: 8,
    qualifiers: 0,
    lower: 0,
    upper: u8::MAX as u32,
    transfer: KHR_DF_TRANSFER_SRGB,
};
/// `VK_FORMAT_R32G32B32A32_SFLOAT`: signed floats, lower −1.0 and upper 1.0 as KTX-Software's `vk2dfd` gives them.
pub(crate) const RGBA32_SFLOAT: TexelFormat = TexelFormat {
    vk_format: VK_FORMAT_R32G32B32A32_SFLOAT,
    bits: 32,
    qualifiers: KHR_DF_SAMPLE_DATATYPE_FLOAT | KHR_DF_SAMPLE_DATATYPE_SIGNED,
    lower: (-1.0f32).to_bits(),
    upper: 1.0f32.to_bits(),
    transfer: KHR_DF_TRANSFER_LINEAR,
};
/// R, G, B, A, two bytes each.
pub(crate) const BYTES_PER_TEXEL: u64 = RGBA16_UNORM.bytes_per_texel();
/// `typeSize` of an unpacked format with 16-bit components.
pub(crate) const TYPE_SIZE: u32 = RGBA16_UNORM.type_size();

impl TexelFormat {
    /// `typeSize`: the bytes of one component.
    pub(crate) const fn type_size(&self) -> u32 {
        self.bits as u32 / 8
    }

    /// Four components.
    pub(crate) const fn bytes_per_texel(&self) -> u64 {
        4 * self.type_size() as u64
    }

    /// Raw byte length of a `width` × `height` image, if within [`MAX_IMAGE_BYTES`].
    pub(crate) fn byte_len(&self, width: u32, height: u32) -> Result<u64, Ktx2Error> {
        // u32 × u32 × 16 can exceed u64, never u128.
        let bytes = u128::from(width) * u128::from(height) * u128::from(self.bytes_per_texel());
        if bytes > u128::from(MAX_IMAGE_BYTES) {
            return Err(Ktx2Error::TooLarge { width, height, bytes, limit: MAX_IMAGE_BYTES });
        }
        Ok(bytes as u64)
    }

    /// The Data Format Descriptor, as the KTX-Software reference (`vk2dfd`) produces it.
    ///
    /// `bytesPlane0` is the texel's size even though the level is supercompressed: KTX 2.0
    /// document revision 4 (2025) requires a supercompressed file's DFD to keep the
    /// pre-deflation `bytesPlane` values; earlier revisions wanted 0 ("unsized"), and
    /// readers must still accept those, which `decode_ktx2` does.
    pub(crate) fn dfd(&self) -> Vec<u8> {
        let mut dfd = Vec::with_capacity(DFD_LEN);
        put_u32(&mut dfd, DFD_LEN as u32); // dfdTotalSize
        put_u32(&mut dfd, KHR_DF_VENDORID_KHRONOS | (KHR_DF_KHR_DESCRIPTORTYPE_BASICFORMAT << 17));
        put_u16(&mut dfd, KHR_DF_VERSIONNUMBER_1_3);
        put_u16(&mut dfd, BASIC_BLOCK_LEN as u16); // descriptorBlockSize
        dfd.extend_from_slice(&[
            KHR_DF_MODEL_RGBSDA,
            KHR_DF_PRIMARIES_BT709,
            self.transfer,
            KHR_DF_FLAG_ALPHA_STRAIGHT,
        ]);
        // texelBlockDimension0..3 are stored minus one: a 1x1x1x1 block is all zeros.
        dfd.extend_from_slice(&[0, 0, 0, 0]);
        // bytesPlane0..7: one plane of whole texels.
        dfd.extend_from_slice(&[self.bytes_per_texel() as u8, 0, 0, 0, 0, 0, 0, 0]);
        for (index, channel) in SAMPLE_CHANNELS.into_iter().enumerate() {
            put_u16(&mut dfd, u16::from(self.bits) * index as u16); // bitOffset
            dfd.push(self.bits - 1); // bitLength, stored minus one
                                     // An sRGB format's alpha is stored linear, and its sample says so.
            let linear = if self.transfer == KHR_DF_TRANSFER_SRGB && channel == KHR_DF_CHANNEL_RGBSDA_ALPHA {
                KHR_DF_SAMPLE_DATATYPE_LINEAR
            } else {
                0
            };
            dfd.push(channel | self.qualifiers | linear); // channelType in the low nibble, qualifiers above
            dfd.extend_from_slice(&[0, 0, 0, 0]); // samplePosition0..3: the texel's origin
            put_u32(&mut dfd, self.lower); // sampleLower
            put_u32(&mut dfd, self.upper); // sampleUpper
        }
        debug_assert_eq!(dfd.len(), DFD_LEN);
        dfd
    }

    /// Everything before the level data of a one-level file with Zstandard supercompression:
    /// the header, the level index (its `byteLength` 0, for the caller to patch at
    /// [`LEVEL_LENGTH_AT`]), the DFD and the key/value data. `layers` is 1 for a plain 2D
    /// texture (`layerCount` 0).
    pub(crate) fn head(
        &self,
        width: u32,
        height: u32,
        layers: u32,
        raw_len: u64,
        writer: &str,
    ) -> Result<Vec<u8>, Ktx2Error> {
        let dfd = self.dfd();
        let kvd = key_value_data(writer);
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
        let mut head = Vec::with_capacity(level_offset);
        head.extend_from_slice(&IDENTIFIER);
        put_u32(&mut head, self.vk_format);
        put_u32(&mut head, self.type_size());
        put_u32(&mut head, width);
        put_u32(&mut head, height);
        put_u32(&mut head, 0); // pixelDepth: not a 3D texture
        put_u32(&mut head, if layers > 1 { layers } else { 0 }); // layerCount: 0 unless an array texture
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
        debug_assert_eq!(head.len(), LEVEL_LENGTH_AT);
        put_u64(&mut head, 0); // byteLength: patched in once the level is compressed
        put_u64(&mut head, raw_len);
        debug_assert_eq!(head.len(), dfd_offset);
        head.extend_from_slice(&dfd);
        head.extend_from_slice(&kvd);
        debug_assert_eq!(head.len(), level_offset);
        Ok(head)
    }
}

pub(crate) fn put_u16(out: &mut Vec<u8>, value: u16) {
    out.extend_from_slice(&value.to_le_bytes());
}

pub(crate) fn put_u32(out: &mut Vec<u8>, value: u32) {
    out.extend_from_slice(&value.to_le_bytes());
}

pub(crate) fn put_u64(out: &mut Vec<u8>, value: u64) {
    out.extend_from_slice(&value.to_le_bytes());
}

/// Offset of the level index's `byteLength` field: after the header and the level's `byteOffset`.
pub(crate) const LEVEL_LENGTH_AT: usize = HEADER_LEN + 8;

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
    RGBA16_UNORM.byte_len(width, height)
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
