use thiserror::Error;

/// Why an image could not be written or a file could not be read.
#[derive(Debug, Error)]
#[non_exhaustive]
pub enum Ktx2Error {
    /// The image has a zero width or height.
    #[error("image is {width}x{height}; both sides must be at least 1")]
    EmptyImage {
        /// Width in texels.
        width: u32,
        /// Height in texels.
        height: u32,
    },

    /// `texels.len()` is not `width * height * 4`.
    #[error("image is {width}x{height} but has {found} u16 values instead of {expected}")]
    TexelCount {
        /// Width in texels.
        width: u32,
        /// Height in texels.
        height: u32,
        /// `u16` values given.
        found: usize,
        /// `u16` values the size needs.
        expected: u64,
    },

    /// The image (or the image a file claims to hold) is larger than [`crate::MAX_IMAGE_BYTES`].
    #[error("a {width}x{height} RGBA16 image needs {bytes} bytes, more than the {limit}-byte limit")]
    TooLarge {
        /// Width in texels.
        width: u32,
        /// Height in texels.
        height: u32,
        /// Bytes the image would take.
        bytes: u128,
        /// The limit, in bytes.
        limit: u64,
    },

    /// An option is out of range.
    #[error("invalid option: {0}")]
    InvalidOptions(String),

    /// The first 12 bytes are not the KTX 2.0 identifier.
    #[error("not a KTX 2.0 file: the identifier «KTX 20»\\r\\n\\x1A\\n is missing")]
    BadIdentifier,

    /// A part of the file lies (partly) beyond its end.
    #[error("file is truncated: {what} needs bytes {start}..{end} but the file has {len}")]
    Truncated {
        /// Which part of the file.
        what: &'static str,
        /// Its first byte offset.
        start: u64,
        /// Its end byte offset (exclusive).
        end: u64,
        /// The file's length in bytes.
        len: u64,
    },

    /// The file breaks the KTX 2.0 rules in a way that makes it unreadable.
    #[error("malformed KTX 2.0 file: {0}")]
    Malformed(String),

    /// The `ktx2` crate rejected the container.
    #[error("malformed KTX 2.0 container: {0}")]
    Container(#[from] ktx2::ParseError),

    /// Valid KTX 2.0, but not `VK_FORMAT_R16G16B16A16_UNORM`.
    #[error("vkFormat {0} is not supported; only VK_FORMAT_R16G16B16A16_UNORM (91) is")]
    UnsupportedFormat(u32),

    /// Valid KTX 2.0, but neither uncompressed nor Zstandard.
    #[error("supercompressionScheme {0} is not supported; only 0 (none) and 2 (Zstandard) are")]
    UnsupportedSupercompression(u32),

    /// Valid KTX 2.0, but not a single 2D image (1D, 3D, array, cubemap).
    #[error("unsupported texture layout: {0}")]
    UnsupportedLayout(String),

    /// A level length in the level index disagrees with the image size.
    #[error("level 0 {field} is {found} bytes, but a {width}x{height} RGBA16 image is {expected}")]
    LevelLength {
        /// Which length field of the level index.
        field: &'static str,
        /// The length the file gives, in bytes.
        found: u64,
        /// The length the image needs, in bytes.
        expected: u64,
        /// Width in texels.
        width: u32,
        /// Height in texels.
        height: u32,
    },

    /// The Zstandard data inflates (or declares it inflates) to the wrong size.
    #[error("level 0 inflates to {found} bytes but uncompressedByteLength is {expected}")]
    InflatedLength {
        /// Bytes the data inflates (or claims to inflate) to.
        found: u64,
        /// `uncompressedByteLength` from the level index.
        expected: u64,
    },

    /// Writing the file failed, or reading it in [`crate::read_header_from`]. Transparent:
    /// the I/O error's message once ("No space left on device" was printed twice, as this
    /// error's message and again as its source's).
    #[error(transparent)]
    Io(std::io::Error),

    /// Zstandard refused to compress or to inflate (the message already holds the
    /// Zstandard error's, so it is not repeated as a source).
    #[error("Zstandard: {0}")]
    Zstd(std::io::Error),

    /// The PNG encoder failed.
    #[error("PNG encoding: {0}")]
    PngEncode(#[from] png::EncodingError),

    /// The PNG decoder failed (corrupt or truncated PNG, or over the size limit).
    #[error("PNG decoding: {0}")]
    PngDecode(#[from] png::DecodingError),

    /// A readable PNG that is not a 16-bit RGBA still image.
    #[error("PNG is not a 16-bit RGBA still image: {0}")]
    PngFormat(String),

    /// A file that starts as a PNG but has no readable header (IHDR chunk).
    #[error("{0}")]
    PngHeader(String),
}

#[cfg(test)]
mod tests {
    use super::*;

    /// "No space left on device" was printed twice: once as this error's message, again
    /// as its source's.
    #[test]
    fn an_io_error_is_told_once() {
        for error in [
            Ktx2Error::Io(std::io::Error::from_raw_os_error(28)),
            Ktx2Error::Zstd(std::io::Error::from_raw_os_error(28)),
        ] {
            let mut chain = error.to_string();
            let mut source = std::error::Error::source(&error);
            while let Some(inner) = source {
                chain += &format!(": {inner}");
                source = inner.source();
            }
            assert_eq!(chain.matches("os error 28").count(), 1, "{chain}");
        }
    }
}
