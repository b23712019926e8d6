use std::io::{Cursor, Seek, SeekFrom, Write};

use zstd::zstd_safe::{self, zstd_sys::ZSTD_EndDirective, CCtx, CParameter, InBuffer, OutBuffer};

use crate::error::Ktx2Error;
use crate::layout::{image_byte_len, LEVEL_LENGTH_AT, RGBA16_UNORM};
use crate::types::{Ktx2Options, Rgba16Image};

pub(crate) fn encode_ktx2(image: &Rgba16Image, options: &Ktx2Options) -> Result<Vec<u8>, Ktx2Error> {
    let mut out = Cursor::new(Vec::new());
    write_ktx2(image, options, &mut out)?;
    Ok(out.into_inner())
}

pub(crate) fn write_ktx2<W: Write + Seek>(
    image: &Rgba16Image,
    options: &Ktx2Options,
    out: W,
) -> Result<u64, Ktx2Error> {
    check_image(image)?;
    let mut writer = Ktx2Writer::new(out, image.width, image.height, options)?;
    writer.write_rows(&image.texels)?;
    writer.finish()
}

/// A KTX 2.0 file written row by row: the header when it is made, each run of rows
/// compressed as it comes (Zstandard on worker threads), the level length patched
/// into the header at the end.
///
/// The bytes are those [`crate::encode_ktx2`] gives for the whole image, however the
/// rows are split between calls and however many workers compress them.
///
/// ```
/// use vat_ktx2::{encode_ktx2, Ktx2Options, Ktx2Writer, Rgba16Image};
/// let options = Ktx2Options::default();
/// let mut writer = Ktx2Writer::new(std::io::Cursor::new(Vec::new()), 1, 2, &options)?;
/// writer.write_rows(&[0, 1, 2, 3])?; // row 0
/// writer.write_rows(&[4, 5, 6, 7])?; // row 1
/// let length = writer.finish()?;
/// let whole = Rgba16Image { width: 1, height: 2, texels: vec![0, 1, 2, 3, 4, 5, 6, 7] };
/// assert_eq!(length, encode_ktx2(&whole, &options)?.len() as u64);
/// # Ok::<(), vat_ktx2::Ktx2Error>(())
/// ```
pub struct Ktx2Writer<W: Write + Seek> {
    out: W,
    /// Where the file starts in `out`.
    start: u64,
    /// Offset of the level data.
    level_offset: u64,
    cctx: CCtx<'static>,
    buffer: Vec<u8>,
    /// Texels per row.
    row_len: usize,
    raw_len: u64,
    fed: u64,
    level_len: u64,
    /// The frame is ended: every byte fed is compressed and written.
    ended: bool,
}

impl<W: Write + Seek> Ktx2Writer<W> {
    /// Checks the shape and the options and writes the header at `out`'s current position.
    pub fn new(out: W, width: u32, height: u32, options: &Ktx2Options) -> Result<Self, Ktx2Error> {
        Self::with_layers(out, width, height, 1, options)
    }

    /// [`Ktx2Writer::new`] for an array texture of `layers` images of `width × height`
    /// (`layerCount` = `layers`; 0, a plain 2D texture, when `layers` is 1). The rows are
    /// fed layer after layer, `height · layers` of them in all.
    pub fn with_layers(
        mut out: W,
        width: u32,
        height: u32,
        layers: u32,
        options: &Ktx2Options,
    ) -> Result<Self, Ktx2Error> {
        if width == 0 || height == 0 || layers == 0 {
            return Err(Ktx2Error::EmptyImage { width, height: height.saturating_mul(layers) });
        }
        let raw_len = image_byte_len(
            width,
            height.checked_mul(layers).ok_or(Ktx2Error::TooLarge {
                width,
                height,
                bytes: u64::MAX.into(),
                limit: crate::layout::MAX_IMAGE_BYTES,
            })?,
        )?;
        check_options(options)?;
        let start = out.stream_position().map_err(Ktx2Error::Io)?;
        let head = RGBA16_UNORM.head(width, height, layers, raw_len, &options.writer)?;
        out.write_all(&head).map_err(Ktx2Error::Io)?;

        Ok(Ktx2Writer {
            out,
            start,
            level_offset: head.len() as u64,
            cctx: level_compressor(options, raw_len)?,
            buffer: vec![0u8; CCtx::out_size()],
            row_len: width as usize * 4,
            raw_len,
            fed: 0,
            level_len: 0,
            ended: false,
        })
    }

    /// Compresses whole rows of texels (`width · 4` values each, R G B A), the next
    /// rows of the image in order.
    pub fn write_rows(&mut self, texels: &[u16]) -> Result<(), Ktx2Error> {
        self.write_rows_reporting(texels, &mut |_| {})
    }

    /// [`Ktx2Writer::write_rows`], telling `compressed` how many bytes of the image
    /// the compressor has consumed so far ([`Ktx2Writer::compressed`]) after each step:
    /// with workers, the rows are taken at once and compressed later, and the call that
    /// feeds the last rows waits for all of them, telling as they finish.
    pub fn write_rows_reporting(&mut self, texels: &[u16], compressed: &mut dyn FnMut(u64)) -> Result<(), Ktx2Error> {
        if !texels.len().is_multiple_of(self.row_len) {
            return Err(self.count_error(self.fed + texels.len() as u64 * 2));
        }
        // KTX 2.0 image data is little-endian whatever the machine.
        #[cfg(target_endian = "little")]
        let raw: &[u8] = bytemuck::cast_slice(texels);
        #[cfg(target_endian = "big")]
        let converted: Vec<u8> = texels.iter().flat_map(|texel| texel.to_le_bytes()).collect();
        #[cfg(target_endian = "big")]
        let raw: &[u8] = &converted;
        self.write_bytes_reporting(raw, compressed)
    }

    /// [`Ktx2Writer::write_rows_reporting`] given the image's next bytes as the file
    /// holds them (each u16 little-endian, or any arrangement of whole rows' bytes a
    /// caller has made of them, `width · 8` bytes a row), in pieces of any length: the
    /// frame is the same however they are cut.
    pub fn write_bytes_reporting(&mut self, raw: &[u8], compressed: &mut dyn FnMut(u64)) -> Result<(), Ktx2Error> {
        let bytes = raw.len() as u64;
        if self.fed + bytes > self.raw_len {
            return Err(self.count_error(self.fed + bytes));
        }
        self.fed += bytes;
        let last = self.fed == self.raw_len;
        // The last bytes of the image go in with the end directive. Ending with no
        // input left makes zstd's multithreaded mode close the frame with an extra
        // empty block or not, depending on how far its workers have got: the bytes
        // would vary from run to run whenever the level is a whole number of jobs long.
        let (body, tail) = if last { raw.split_at(raw.len() - raw.len().min(1 << 16)) } else { (raw, &[][..]) };
        let mut input = InBuffer::around(body);
        while input.pos < body.len() {
            self.compress(&mut input, ZSTD_EndDirective::ZSTD_e_continue)?;
            compressed(self.compressed());
        }
        if last {
            let mut input = InBuffer::around(tail);
            while self.compress(&mut input, ZSTD_EndDirective::ZSTD_e_end)? != 0 {
                compressed(self.compressed());
            }
            self.ended = true;
        }
        compressed(self.compressed());
        Ok(())
    }

    /// Bytes of the image the compressor has consumed: every byte fed once the frame
    /// is ended, fewer while workers are still at it.
    pub fn compressed(&self) -> u64 {
        if self.ended {
            return self.raw_len;
        }
        self.cctx.get_frame_progression().consumed.min(self.fed)
    }

    /// Patches the level length into the header; returns the file's length. `out`
    /// is left positioned after the file, and flushed.
    pub fn finish(mut self) -> Result<u64, Ktx2Error> {
        if self.fed != self.raw_len {
            return Err(self.count_error(self.fed));
        }
        let level_len = self.level_len;
        self.out.seek(SeekFrom::Start(self.start + LEVEL_LENGTH_AT as u64)).map_err(Ktx2Error::Io)?;
        self.out.write_all(&level_len.to_le_bytes()).map_err(Ktx2Error::Io)?;
        self.out.seek(SeekFrom::Start(self.start + self.level_offset + level_len)).map_err(Ktx2Error::Io)?;
        self.out.flush().map_err(Ktx2Error::Io)?;
        Ok(self.level_offset + level_len)
    }

    /// One call into zstd, its output written on; returns what zstd says is left to flush.
    fn compress(&mut self, input: &mut InBuffer, directive: ZSTD_EndDirective) -> Result<usize, Ktx2Error> {
        let mut output = OutBuffer::around(&mut self.buffer[..]);
        let left = self.cctx.compress_stream2(&mut output, input, directive).map_err(zstd_error)?;
        let produced = output.pos();
        self.out.write_all(&self.buffer[..produced]).map_err(Ktx2Error::Io)?;
        self.level_len += produced as u64;
        Ok(left)
    }

    fn count_error(&self, found_bytes: u64) -> Ktx2Error {
        let texels = self.row_len as u64 / 4;
        Ktx2Error::TexelCount {
            width: texels as u32,
            height: (self.raw_len / (texels * 8)) as u32,
            found: (found_bytes / 2) as usize,
            expected: self.raw_len / 2,
        }
    }
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

/// The Zstandard compressor of the level: one frame for the whole level.
///
/// One frame, because consecutive rows are consecutive animation frames and
/// nearly identical: a single frame lets zstd match each row against the one
/// above it (`width * 8` bytes back). The frame records the content size, so
/// decoders can check it before inflating, and a checksum, which the KTX 2.0
/// specification says inflators should verify when present (4 bytes).
///
/// The bytes of the image each of zstd's jobs compresses: 1 MiB, an eighth of its
/// default at level 5 (4 × the window: 8 MiB), so that a texture of a few MiB is compressed by
/// every worker, and its first jobs while the rest is still being made, instead of by
/// one worker after the last row. The frame depends on it (never on the workers'
/// number); docs/PERFORMANCE.md, "Bake time at default", measured it against zstd's
/// own: the default bake 0.80–0.97× the time on the six models of more than 1 MiB of
/// texels, their files 0.994–1.000× the bytes (each job starts its entropy tables
/// afresh, which the byte planes suit). Up to level [`JOB_BYTES_UP_TO_LEVEL`]: above it
/// zstd's own jobs, whose longer overlap the slower levels' matches need (1 MiB jobs
/// made the generated 4,000-point model 2.6–3.2% larger at levels 9–15, 0.0–0.3%
/// smaller at levels 1–8).
const JOB_BYTES: u32 = 1 << 20;
/// The highest level compressed in jobs of [`JOB_BYTES`].
const JOB_BYTES_UP_TO_LEVEL: i32 = 8;

/// Images of at most this many bytes are compressed at [`SMALL_IMAGE_LEVEL`] at least.
pub const SMALL_IMAGE_BYTES: u64 = 64 << 10;
/// The lowest level of an image of at most [`SMALL_IMAGE_BYTES`]: there every level up
/// to 12 compresses in well under a millisecond, and the frame is most of a file whose
/// container is a fixed 248 bytes: level 9 makes the smallest bundled texture
/// (AnimatedMorphCube, 24 KiB of texels) 888 → 822 bytes for 0.04 ms (docs/PERFORMANCE.md,
/// "Small textures").
pub const SMALL_IMAGE_LEVEL: i32 = 9;

/// The level an image of `raw_len` bytes is compressed at when `level` is asked for.
pub fn level_for(level: i32, raw_len: u64) -> i32 {
    if raw_len <= SMALL_IMAGE_BYTES {
        level.max(SMALL_IMAGE_LEVEL)
    } else {
        level
    }
}

/// Always zstd's multithreaded mode, with at least one worker: its streaming
/// output is the same for any number of workers (single-threaded mode gives
/// other bytes), so the file does not depend on the machine's core count. The
/// workers compress independent jobs of [`JOB_BYTES`] while the caller feeds them
/// and writes what they finish.
/// No explicit window log: zstd's level presets never exceed 27 (128 MiB), the
/// largest window decoders accept without being told to (`zstd -d`, the zstddec
/// WebAssembly decoder three.js uses), and shrink it to the input size.
/// No long-distance matching: it looks for matches beyond that window, while the
/// matches that matter here are one row (`width * 8` bytes, 128 KiB even for 16384
/// points) back. Measured with `examples/levels.rs`: within 0.1% at levels 19 and
/// 22, up to 1.6% larger at levels 3 and 9, and where it helps (level 1, up to 9%)
/// level 3 without it is smaller still.
fn level_compressor(options: &Ktx2Options, raw_len: u64) -> Result<CCtx<'static>, Ktx2Error> {
    let mut cctx = CCtx::try_create().ok_or_else(|| Ktx2Error::Zstd(std::io::Error::other("out of memory")))?;
    cctx.set_parameter(CParameter::CompressionLevel(level_for(options.zstd_level, raw_len))).map_err(zstd_error)?;
    cctx.set_parameter(CParameter::NbWorkers(options.workers.max(1))).map_err(zstd_error)?;
    if level_for(options.zstd_level, raw_len) <= JOB_BYTES_UP_TO_LEVEL && !options.long_window {
        cctx.set_parameter(CParameter::JobSize(JOB_BYTES)).map_err(zstd_error)?;
    }
    if options.long_window {
        cctx.set_parameter(CParameter::EnableLongDistanceMatching(true)).map_err(zstd_error)?;
        cctx.set_parameter(CParameter::WindowLog(27)).map_err(zstd_error)?;
    }
    cctx.set_parameter(CParameter::ChecksumFlag(true)).map_err(zstd_error)?;
    cctx.set_parameter(CParameter::ContentSizeFlag(true)).map_err(zstd_error)?;
    cctx.set_pledged_src_size(Some(raw_len)).map_err(zstd_error)?;
    Ok(cctx)
}

fn zstd_error(code: usize) -> Ktx2Error {
    Ktx2Error::Zstd(std::io::Error::other(zstd_safe::get_error_name(code)))
}
