//! 16-bit RGBA texel grids to files and back: KTX 2.0 with Zstandard
//! supercompression, and a 16-bit PNG fallback.
//!
//! What it does: [`encode_ktx2`] writes one image as a KTX 2.0 file with
//! `vkFormat` `VK_FORMAT_R16G16B16A16_UNORM` (91), one mip level, no array layers,
//! one face, the whole level compressed as a single Zstandard frame
//! (`supercompressionScheme` 2), a Data Format Descriptor describing those texels,
//! and the `KTXorientation` = `rd` (row 0 is the top) and `KTXwriter` metadata;
//! [`write_ktx2`] streams the same bytes into a file, and [`Ktx2Writer`] takes the
//! image a few rows at a time, so a caller never needs to hold all of it. The bytes depend only on the
//! image, the level, the writer string and the zstd library version: no
//! timestamps, and the same bytes for any number of worker threads. [`decode_ktx2`] reads such files back (from us or
//! any other writer, uncompressed or Zstandard), checking every size before it
//! allocates and returning a [`Ktx2Error`] on anything it cannot vouch for; it
//! never panics. [`read_header`] gives the header facts and the key/value pairs
//! without inflating anything; [`read_header_from`] does the same from a file,
//! reading only the header and the key/value data, and [`read_texture_header`] tells
//! a KTX 2.0 file from a PNG by their headers alone. [`encode_png16`] / [`decode_png16`] do the same
//! texels as a 16-bit RGBA PNG for tools that cannot read KTX2.
//! [`encode_ktx2_rgba32f`] writes a bone bake's float texels, [`encode_ktx2_rgba8`] an
//! impostor's 8-bit atlases (`R8G8B8A8_SRGB` or `_UNORM`). [`compressed_size`] says
//! what Zstandard would make of some bytes, for a caller weighing two layouts.
//!
//! What it does not: know anything about animation, vertices or bounds (texels
//! are plain `u16`s, 0..=65535 meaning 0.0..=1.0); write mipmaps, arrays,
//! cubemaps, 3D textures, other formats, BasisLZ or ZLIB; convert colour spaces.
//!
//! Dependencies: no crate of this workspace, not even `vat-model` (texels are its
//! whole interface); only `ktx2`, `zstd`, `png`, `bytemuck` and `thiserror`. It must
//! stay that way: nothing about models, layouts or `vatbake` belongs here.
//!
//! ```
//! use vat_ktx2::{decode_ktx2, encode_ktx2, read_header, Ktx2Options, Rgba16Image};
//!
//! // Two texels, one row: (0, 1, 2, 3) and (65535, 4, 5, 6).
//! let image = Rgba16Image { width: 2, height: 1, texels: vec![0, 1, 2, 3, 65535, 4, 5, 6] };
//! let options = Ktx2Options { zstd_level: 19, writer: "vatbake 0.1.0".to_string(), workers: 2, long_window: false };
//! let bytes = encode_ktx2(&image, &options)?;
//!
//! let header = read_header(&bytes)?;
//! assert_eq!((header.width, header.height, header.vk_format), (2, 1, 91));
//! assert_eq!(header.value_str("KTXwriter"), Some("vatbake 0.1.0"));
//! assert_eq!(decode_ktx2(&bytes)?, image);
//! # Ok::<(), vat_ktx2::Ktx2Error>(())
//! ```

#![warn(missing_docs)]

mod decode;
mod encode;
mod error;
mod float32;
mod layout;
mod png16;
mod rgba8;
mod texture;
mod types;

pub use encode::{level_for, Ktx2Writer, SMALL_IMAGE_BYTES, SMALL_IMAGE_LEVEL};
pub use error::Ktx2Error;
pub use float32::{decode_ktx2_rgba32f, encode_ktx2_rgba32f, Rgba32fImage};
pub use layout::{
    MAX_IMAGE_BYTES, SUPERCOMPRESSION_NONE, SUPERCOMPRESSION_ZSTD, VK_FORMAT_R16G16B16A16_UNORM,
    VK_FORMAT_R32G32B32A32_SFLOAT, VK_FORMAT_R8G8B8A8_SRGB, VK_FORMAT_R8G8B8A8_UNORM,
};
pub use rgba8::{decode_ktx2_rgba8, encode_ktx2_rgba8, Rgba8Image};
pub use texture::{TextureFile, TextureHeader};
pub use types::{Ktx2Header, Ktx2Options, Rgba16Image, DEFAULT_ZSTD_LEVEL};

/// Encodes `image` as KTX 2.0: `vkFormat` `VK_FORMAT_R16G16B16A16_UNORM` (91),
/// one level, one layer, one face, Zstandard supercompression (scheme 2).
pub fn encode_ktx2(image: &Rgba16Image, options: &Ktx2Options) -> Result<Vec<u8>, Ktx2Error> {
    encode::encode_ktx2(image, options)
}

/// [`encode_ktx2`] straight into `out`, starting at its current position: the
/// header first, then the Zstandard frame as the workers finish it, then the
/// level length patched into the header. No copy of the texels or of the
/// compressed level is held in memory. Returns the bytes written; `out` is left
/// positioned after them. On an error, what was written is incomplete.
///
/// ```
/// use vat_ktx2::{encode_ktx2, write_ktx2, Ktx2Options, Rgba16Image};
/// let image = Rgba16Image { width: 1, height: 2, texels: vec![0, 1, 2, 3, 4, 5, 6, 7] };
/// let mut out = std::io::Cursor::new(Vec::new());
/// let written = write_ktx2(&image, &Ktx2Options::default(), &mut out)?;
/// assert_eq!(out.get_ref().len() as u64, written);
/// assert_eq!(out.into_inner(), encode_ktx2(&image, &Ktx2Options::default())?);
/// # Ok::<(), vat_ktx2::Ktx2Error>(())
/// ```
pub fn write_ktx2<W: std::io::Write + std::io::Seek>(
    image: &Rgba16Image,
    options: &Ktx2Options,
    out: W,
) -> Result<u64, Ktx2Error> {
    encode::write_ktx2(image, options, out)
}

/// Decodes a KTX 2.0 file with `vkFormat` 91 and supercompression none or Zstandard
/// (level 0 if the file has mipmaps). The `ktx2` crate parses the container, `zstd`
/// inflates; sizes, format, Data Format Descriptor and level lengths are checked
/// against `width * height * 8` and [`MAX_IMAGE_BYTES`] before anything is allocated.
pub fn decode_ktx2(bytes: &[u8]) -> Result<Rgba16Image, Ktx2Error> {
    decode::decode_ktx2(bytes)
}

/// How many bytes Zstandard makes of `bytes` at `level`, as one frame on one thread
/// (no checksum, no content size): a cheap trial for a caller choosing between two
/// arrangements of the same texels before it writes either.
pub fn compressed_size(bytes: &[u8], level: i32) -> Result<usize, Ktx2Error> {
    Ok(zstd::bulk::compress(bytes, level).map_err(Ktx2Error::Zstd)?.len())
}

/// Just the header facts and the key/value pairs, for cheap audits: nothing is
/// inflated and the format is not required to be ours.
pub fn read_header(bytes: &[u8]) -> Result<Ktx2Header, Ktx2Error> {
    decode::read_header(bytes)
}

/// [`read_header`] from a file (or any `Read + Seek` source holding one KTX 2.0 file
/// from offset 0), reading exactly the 80-byte header and then, after a seek, exactly
/// the key/value data: never the data format descriptor or the image, however long
/// the key/value data is. The same results and errors as [`read_header`] on the whole
/// file; an I/O failure is [`Ktx2Error::Io`].
///
/// ```
/// # use vat_ktx2::{encode_ktx2, read_header_from, Ktx2Options, Rgba16Image};
/// let image = Rgba16Image { width: 1, height: 1, texels: vec![1, 2, 3, 4] };
/// let bytes = encode_ktx2(&image, &Ktx2Options::default())?;
/// let header = read_header_from(std::io::Cursor::new(&bytes))?;
/// assert_eq!(header.value_str("KTXorientation"), Some("rd"));
/// # Ok::<(), vat_ktx2::Ktx2Error>(())
/// ```
pub fn read_header_from<R: std::io::Read + std::io::Seek>(source: R) -> Result<Ktx2Header, Ktx2Error> {
    decode::read_header_from(source)
}

/// What a texture file is (KTX 2.0 or PNG) and its size, from its first bytes: a KTX
/// 2.0 file's header and key/value data, exactly as [`read_header_from`] reads them,
/// or a PNG's signature and IHDR chunk (33 bytes). Never the image, so it is cheap on
/// the largest texture. Any other file is a KTX 2.0 error
/// ([`Ktx2Error::BadIdentifier`]); a PNG cut short of its IHDR is [`Ktx2Error::PngHeader`].
///
/// ```
/// use vat_ktx2::{encode_png16, read_texture_header, Rgba16Image, TextureHeader};
/// let image = Rgba16Image { width: 3, height: 2, texels: vec![7; 24] };
/// let png = encode_png16(&image)?;
/// let file = read_texture_header(std::io::Cursor::new(&png))?;
/// assert_eq!(file.header, TextureHeader::Png { width: 3, height: 2, bit_depth: 16, colour_type: 6 });
/// assert_eq!(file.bytes, png.len() as u64);
/// # Ok::<(), vat_ktx2::Ktx2Error>(())
/// ```
pub fn read_texture_header<R: std::io::Read + std::io::Seek>(source: R) -> Result<TextureFile, Ktx2Error> {
    texture::read_texture_header(source)
}

/// Encodes `image` as a 16-bit RGBA PNG (best compression, adaptive filtering).
///
/// ```
/// use vat_ktx2::{decode_png16, encode_png16, Rgba16Image};
/// let image = Rgba16Image { width: 1, height: 1, texels: vec![1, 2, 3, 65535] };
/// let png = encode_png16(&image)?;
/// assert_eq!(decode_png16(&png)?, image);
/// # Ok::<(), vat_ktx2::Ktx2Error>(())
/// ```
pub fn encode_png16(image: &Rgba16Image) -> Result<Vec<u8>, Ktx2Error> {
    png16::encode_png16(image)
}

/// Decodes a 16-bit RGBA PNG; any other colour type or bit depth is an error.
pub fn decode_png16(bytes: &[u8]) -> Result<Rgba16Image, Ktx2Error> {
    png16::decode_png16(bytes)
}
