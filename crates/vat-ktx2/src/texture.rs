//! What a texture file is, from its first bytes: a KTX 2.0 header or a PNG's IHDR
//! chunk, and the file's size. Never the image.

use std::io::{Read, Seek, SeekFrom};

use crate::error::Ktx2Error;

/// A PNG's signature and IHDR chunk: its first 33 bytes.
const PNG_PREFIX: usize = 33;
const PNG_SIGNATURE: &[u8] = b"\x89PNG\r\n\x1a\n";

/// The header of a texture file, KTX 2.0 or PNG.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum TextureHeader {
    /// A KTX 2.0 file's header.
    Ktx2 {
        /// `vkFormat`.
        vk_format: u32,
        /// Width in texels.
        width: u32,
        /// Height in texels.
        height: u32,
        /// `supercompressionScheme` (0 none, 2 Zstandard).
        supercompression_scheme: u32,
    },
    /// A PNG file's IHDR chunk.
    Png {
        /// Width in pixels.
        width: u32,
        /// Height in pixels.
        height: u32,
        /// Bits per channel.
        bit_depth: u8,
        /// PNG colour type (6: RGBA).
        colour_type: u8,
    },
}

/// A texture file's header and size.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TextureFile {
    /// What its header says.
    pub header: TextureHeader,
    /// The file's size in bytes.
    pub bytes: u64,
}

pub(crate) fn read_texture_header<R: Read + Seek>(mut source: R) -> Result<TextureFile, Ktx2Error> {
    let bytes = source.seek(SeekFrom::End(0)).map_err(Ktx2Error::Io)?;
    source.seek(SeekFrom::Start(0)).map_err(Ktx2Error::Io)?;
    let mut prefix = Vec::with_capacity(PNG_PREFIX);
    (&mut source).take(PNG_PREFIX as u64).read_to_end(&mut prefix).map_err(Ktx2Error::Io)?;
    if prefix.starts_with(PNG_SIGNATURE) {
        if prefix.len() < PNG_PREFIX || &prefix[12..16] != b"IHDR" {
            return Err(Ktx2Error::PngHeader("a PNG without its IHDR header".into()));
        }
        let be = |at: usize| u32::from_be_bytes([prefix[at], prefix[at + 1], prefix[at + 2], prefix[at + 3]]);
        let header =
            TextureHeader::Png { width: be(16), height: be(20), bit_depth: prefix[24], colour_type: prefix[25] };
        return Ok(TextureFile { header, bytes });
    }
    // Exactly the KTX2 header and its key/value data, however long: never the image.
    let h = crate::decode::read_header_from(source)?;
    let header = TextureHeader::Ktx2 {
        vk_format: h.vk_format,
        width: h.width,
        height: h.height,
        supercompression_scheme: h.supercompression_scheme,
    };
    Ok(TextureFile { header, bytes })
}
