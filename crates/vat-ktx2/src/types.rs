//! The plain data of the public API: images, write options and header facts. A
//! leaf module: it names nothing else of this crate, so the encoder, the decoder
//! and the PNG fallback can all use it without closing a circle with the root.

/// Zstandard level used by [`Ktx2Options::default`] and by `vatbake bake`: zstd's own
/// default. Measured on real bakes (docs/PERFORMANCE.md), level 9 is 3–7% smaller for
/// 2.5–4× the encode time and level 19 10% smaller for 25–50×; a build step that
/// bakes hundreds of units wants the fast end, and `--zstd-level` is there for the rest.
pub const DEFAULT_ZSTD_LEVEL: i32 = 3;

/// A grid of RGBA texels, 16 bits per channel.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Rgba16Image {
    /// Width in texels (≥ 1 to encode).
    pub width: u32,
    /// Height in texels (≥ 1 to encode).
    pub height: u32,
    /// `width * height * 4` values, row-major, R G B A per texel, row 0 = top.
    pub texels: Vec<u16>,
}

/// How [`encode_ktx2`](crate::encode_ktx2) writes a file.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Ktx2Options {
    /// Zstandard compression level, from zstd's minimum (negative, fastest) to 22.
    pub zstd_level: i32,
    /// Value of the `KTXwriter` key, e.g. `"vatbake 0.1.0"`: non-empty, no NUL.
    pub writer: String,
    /// Zstandard worker threads (0 counts as 1). The bytes are the same for any
    /// number: zstd's multithreaded mode is used even with one worker.
    pub workers: u32,
    /// Zstandard's long-distance matching with a 128 MiB window (window log 27, the
    /// largest decoders accept without being told to): smaller on large textures,
    /// slower to write. Off: the level's own window.
    pub long_window: bool,
}

impl Default for Ktx2Options {
    fn default() -> Self {
        Self {
            zstd_level: DEFAULT_ZSTD_LEVEL,
            writer: concat!("vat-ktx2 ", env!("CARGO_PKG_VERSION")).to_string(),
            long_window: false,
            workers: 1,
        }
    }
}

/// The header facts of a KTX 2.0 file, as stored (no validation of the format).
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub struct Ktx2Header {
    /// `vkFormat` (91: `VK_FORMAT_R16G16B16A16_UNORM`).
    pub vk_format: u32,
    /// `typeSize`: bytes per channel value for endianness conversion.
    pub type_size: u32,
    /// `pixelWidth`.
    pub width: u32,
    /// 0 for a 1D texture.
    pub height: u32,
    /// 0 unless the texture is 3D.
    pub depth: u32,
    /// 0 unless the texture is an array.
    pub layer_count: u32,
    /// `faceCount`: 6 for a cubemap, else 1.
    pub face_count: u32,
    /// 0 means "base level only, generate the rest if needed".
    pub level_count: u32,
    /// 0 none, 1 BasisLZ, 2 Zstandard, 3 ZLIB.
    pub supercompression_scheme: u32,
    /// Key/value pairs in file order; values are raw bytes, string values
    /// usually including their NUL terminator (see [`Ktx2Header::value_str`]).
    pub key_values: Vec<(String, Vec<u8>)>,
}

impl Ktx2Header {
    /// The value of `key` as UTF-8 without its NUL terminator, if present and textual.
    pub fn value_str(&self, key: &str) -> Option<&str> {
        let (_, value) = self.key_values.iter().find(|(k, _)| k == key)?;
        let text = value.strip_suffix(&[0]).unwrap_or(value);
        std::str::from_utf8(text).ok()
    }
}
