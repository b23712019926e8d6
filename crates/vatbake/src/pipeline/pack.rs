//! Pack: every row evaluated again, in full, straight into 16-bit texels, delta-encoded
//! and compressed into the staged texture file as they come (a 16-bit PNG is made in
//! memory); for a bone bake, every row's joint matrices as float texels.
//!
//! Owns: the texture file (the only stage that makes texels and stages the texture),
//! its container, deltas and layers, the plain texels kept for other tools' files,
//! and the pack timings' three parts. Must not touch: the rest mesh, the
//! description, the other files, the poses (it reads them).

use std::time::Instant;

use anyhow::{Context, Result};
use glam::Mat4;
use rayon::prelude::*;
use vat_model::{Finding, Layout};

use super::bones_palette::{Palette, TEXELS_PER_JOINT};
use super::evaluate::Posed;
use super::texels::{self, Quantizing};
use super::*;
use crate::description::{self};
use crate::error::Error;
use crate::features::normals::NormalsMode;
use crate::settings::{BakeSettings, TextureFormat, GENERATOR};
use crate::staging::Staged;

/// Milliseconds spent evaluating, compressing and writing a texture.
pub(crate) type PartsMs = (f64, f64, f64);

/// The staged texture: its file name, size and how it is stored.
pub(crate) struct PackedTexture {
    pub(crate) name: String,
    pub(crate) bytes: u64,
    pub(crate) container: TextureFormat,
    pub(crate) supercompression: description::Supercompression,
    pub(crate) parts_ms: PartsMs,
    /// SHA-256 of the texture file, hex.
    pub(crate) sha256: String,
    /// The largest position error measured on a coarser grid (0 at full precision).
    pub(crate) max_error: f32,
    /// The plain texels (no deltas, normals packed in alpha), kept as they were packed
    /// when another tool's format or an engine's target is made from them.
    pub(crate) plain: Option<Vec<u16>>,
    /// The columns' references, when the first block of planes chose some: the layout
    /// is then "planes-ref" (`texture.delta.references`).
    pub(crate) references: Option<crate::delta::References>,
}

/// A file writer that counts the time spent in its writes and seeks (in
/// nanoseconds, into `spent`): the texture's write time, apart from compression.
pub(crate) struct TimedFile<'a> {
    pub(crate) file: &'a mut dyn crate::staging::Sink,
    pub(crate) spent: &'a std::sync::atomic::AtomicU64,
}

impl TimedFile<'_> {
    fn timed<T>(&mut self, work: impl FnOnce(&mut dyn crate::staging::Sink) -> T) -> T {
        let at = Instant::now();
        let out = work(self.file);
        self.spent.fetch_add(at.elapsed().as_nanos() as u64, std::sync::atomic::Ordering::Relaxed);
        out
    }
}

impl std::io::Write for TimedFile<'_> {
    fn write(&mut self, bytes: &[u8]) -> std::io::Result<usize> {
        self.timed(|f| f.write(bytes))
    }
    fn flush(&mut self) -> std::io::Result<()> {
        self.timed(|f| f.flush())
    }
}

impl std::io::Seek for TimedFile<'_> {
    fn seek(&mut self, to: std::io::SeekFrom) -> std::io::Result<u64> {
        self.timed(|f| f.seek(to))
    }
}

/// Nanoseconds to milliseconds, to the microsecond, as every reported time.
pub(crate) fn nanos_ms(nanos: u64) -> f64 {
    (nanos as f64 / 1e3).round() / 1e3
}

/// Another tool's format (`--format`) or an engine's target (`--target`) is made from
/// the plain texels, which pack then keeps.
pub(crate) fn keep_plain(settings: &BakeSettings) -> bool {
    settings.format.holds_positions() || settings.target.has_record()
}

/// Pack: every row evaluated again, in full, straight into texels, compressed into
/// the staged texture file as they come.
pub(crate) fn pack(
    posed: &Posed,
    layout: &Layout,
    quantizing: &Quantizing,
    settings: &BakeSettings,
    watch: &dyn Watch,
    staged: &mut Staged,
    found: &mut Found,
) -> Result<PackedTexture> {
    if layout.bands > 1 {
        found.notes.push(bands_note(posed.rig.model().points.len(), layout, settings));
    }
    match settings.texture_format {
        TextureFormat::Ktx2 => pack_ktx2(posed, layout, quantizing, settings, watch, staged),
        TextureFormat::Png => pack_png(posed, layout, quantizing, settings, staged, found),
    }
}

/// The note that the columns wrap into bands.
fn bands_note(points: usize, layout: &Layout, settings: &BakeSettings) -> Finding {
    Finding::new(
        "bands",
        format!(
            "{} points exceed --max-width {}: the columns wrap into {} bands of {} (the description's texture.bands)",
            points, settings.max_width, layout.bands, layout.width
        ),
    )
}

/// The texture as a KTX2, streamed: each logical image ([`Image`]) evaluated a chunk
/// of rows at a time through a [`Ktx2Stream`] into the staged file.
fn pack_ktx2(
    posed: &Posed,
    layout: &Layout,
    quantizing: &Quantizing,
    settings: &BakeSettings,
    watch: &dyn Watch,
    staged: &mut Staged,
) -> Result<PackedTexture> {
    let output = |e: anyhow::Error| Error::output(format!("{e:#}"));
    let name = settings.texture_file();
    let writing = std::sync::atomic::AtomicU64::new(0);
    let mut streamed = None;
    let bytes = staged
        .write_with(&name, |file| {
            let file = TimedFile { file, spent: &writing };
            let mut stream = Ktx2Stream::new(std::io::BufWriter::new(file), layout, settings, watch)?;
            for &image in Image::of(settings) {
                stream.image(image, posed, layout, quantizing, settings)?;
            }
            streamed = Some(stream.finish()?);
            Ok(())
        })
        .map_err(output)?;
    let streamed = streamed.expect("a staged texture was streamed");
    let writing = writing.into_inner();
    let parts_ms = (
        nanos_ms(streamed.evaluating.as_nanos() as u64),
        nanos_ms(streamed.in_writer.saturating_sub(writing)),
        nanos_ms(writing),
    );
    let sha256 = staged.sha256(&name).map_err(output)?;
    Ok(PackedTexture {
        name,
        bytes,
        container: settings.texture_format,
        supercompression: description::Supercompression::Zstd,
        parts_ms,
        sha256,
        max_error: streamed.max_error,
        plain: streamed.plain,
        references: streamed.references.filter(|r| !r.is_left()),
    })
}

/// One logical image of the KTX2, each delta-encoded alike and padded to whole layers:
/// the positions (normals packed in alpha, or none), then with `--normals separate`
/// the normals in layers of their own.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Image {
    Positions,
    Normals,
}

impl Image {
    /// The images `settings` make, in the order they are written.
    fn of(settings: &BakeSettings) -> &'static [Image] {
        if settings.normals == NormalsMode::Separate {
            &[Image::Positions, Image::Normals]
        } else {
            &[Image::Positions]
        }
    }
}

/// The KTX2 writer, and the nanoseconds spent in it (compressing and writing).
struct TimedWriter<W: std::io::Write + std::io::Seek> {
    writer: vat_ktx2::Ktx2Writer<W>,
    nanos: u64,
}

impl<W: std::io::Write + std::io::Seek> TimedWriter<W> {
    /// Writes `rows`, telling `compressed` the image bytes compressed so far as the
    /// compressor gets on ([`vat_ktx2::Ktx2Writer::write_rows_reporting`]).
    fn write_rows(&mut self, rows: &[u16], compressed: &mut dyn FnMut(u64)) -> Result<(), vat_ktx2::Ktx2Error> {
        let at = Instant::now();
        let out = self.writer.write_rows_reporting(rows, compressed);
        self.nanos += at.elapsed().as_nanos() as u64;
        out
    }

    /// [`TimedWriter::write_rows`] of rows already arranged as the file's bytes.
    fn write_bytes(&mut self, bytes: &[u8], compressed: &mut dyn FnMut(u64)) -> Result<(), vat_ktx2::Ktx2Error> {
        let at = Instant::now();
        let out = self.writer.write_bytes_reporting(bytes, compressed);
        self.nanos += at.elapsed().as_nanos() as u64;
        out
    }

    /// Ends the file; returns the nanoseconds spent in the writer, this included.
    fn finish(self) -> Result<u64, vat_ktx2::Ktx2Error> {
        let at = Instant::now();
        self.writer.finish()?;
        Ok(self.nanos + at.elapsed().as_nanos() as u64)
    }
}

/// The KTX2 as its rows are streamed in: the writer, the image rows compressed so far
/// (told to the watch, which may stop it), the plain texels kept for other tools'
/// files, and what the evaluation measured.
struct Ktx2Stream<'a, W: std::io::Write + std::io::Seek> {
    out: TimedWriter<W>,
    watch: &'a dyn Watch,
    /// u16s per image row.
    row_len: usize,
    /// Image rows the watch is told of: those compressed, of `total_rows` (every
    /// image's, padding excluded). Compression runs behind the evaluation, so the rows
    /// are counted as the compressor consumes them, never as they are fed.
    total_rows: usize,
    /// The last layer's rows past the texture, written as zeros after each image.
    padding_rows: usize,
    /// Rows changed before they are written (the alpha zeroed) when not in planes.
    stored: Vec<u16>,
    /// With a delta in planes: the block of rows being filled and changed, its rows
    /// per block, and a piece of one of its byte planes.
    block: Vec<u16>,
    block_rows: usize,
    bytes: Vec<u8>,
    /// The columns' references, chosen on the first block ("planes"' own when none pay).
    references: Option<crate::delta::References>,
    /// The plain position texels, when [`keep_plain`].
    plain: Option<Vec<u16>>,
    evaluating: std::time::Duration,
    max_error: f32,
}

/// What streaming the KTX2 measured and kept.
struct Ktx2Streamed {
    evaluating: std::time::Duration,
    max_error: f32,
    /// Nanoseconds in the writer, the file's writes included.
    in_writer: u64,
    plain: Option<Vec<u16>>,
    references: Option<crate::delta::References>,
}

impl<'a, W: std::io::Write + std::io::Seek + Send> Ktx2Stream<'a, W> {
    /// A KTX2 of `layout`'s texture in array layers, one set per image.
    fn new(out: W, layout: &Layout, settings: &BakeSettings, watch: &'a dyn Watch) -> Result<Self> {
        let options = vat_ktx2::Ktx2Options {
            zstd_level: settings.zstd_level,
            writer: GENERATOR.to_string(),
            workers: zstd_workers(),
            long_window: settings.zstd_long,
        };
        let layers = crate::features::layers::Layers::of(layout, settings.max_height);
        let images = Image::of(settings).len();
        let writer = vat_ktx2::Ktx2Writer::with_layers(
            out,
            layout.width as u32,
            layers.height,
            layers.count * images as u32,
            &options,
        )?;
        Ok(Ktx2Stream {
            out: TimedWriter { writer, nanos: 0 },
            watch,
            row_len: layout.width * 4,
            total_rows: layout.height * images,
            padding_rows: layers.rows() - layout.height,
            stored: Vec::new(),
            block: Vec::new(),
            block_rows: crate::delta::block_rows(layout.width),
            bytes: Vec::new(),
            references: None,
            plain: keep_plain(settings).then(|| Vec::with_capacity(layout.texels() * 4)),
            evaluating: std::time::Duration::ZERO,
            max_error: 0.0,
        })
    }

    /// Evaluates and writes every row of `image`, then its padding.
    fn image(
        &mut self,
        image: Image,
        posed: &Posed,
        layout: &Layout,
        quantizing: &Quantizing,
        settings: &BakeSettings,
    ) -> Result<(), vat_ktx2::Ktx2Error> {
        let first = crate::delta::clip_starts(posed.entries.iter().map(|c| c.row as usize), layout.rows);
        // The encoder's steps are the same in "planes" and "planes-ref" (the references
        // come in at write_block).
        let delta_layout = crate::delta::layout_of(settings.delta, false);
        let no_alpha = image == Image::Positions && settings.normals != NormalsMode::Packed;
        let mut delta =
            crate::delta::Encoder::new(settings.delta, delta_layout, self.row_len, first).without_alpha(no_alpha);
        let plain = settings.delta == crate::delta::Delta::None && !no_alpha;
        self.watch.rows(self.row_counter()(self.out.writer.compressed()), self.total_rows);
        let sink = |rows: &[u16]| self.rows(rows, image, (!plain).then_some(&mut delta));
        let (rig, poses, columns) = (&posed.rig, &posed.poses, &posed.columns);
        let evaluating = match image {
            Image::Positions => {
                let streamed = texels::stream_texels(rig, poses, layout, columns, quantizing, sink)?;
                self.max_error = streamed.max_error;
                streamed.evaluating
            }
            Image::Normals => texels::stream_normal_texels(rig, poses, layout, columns, quantizing, sink)?,
        };
        self.evaluating += evaluating;
        self.write_block()?;
        let padding = vec![0u16; self.row_len];
        for _ in 0..self.padding_rows {
            let (watch, total, rows) = (self.watch, self.total_rows, self.row_counter());
            self.out.write_rows(&padding, &mut |bytes| watch.rows(rows(bytes), total))?;
        }
        Ok(())
    }

    /// The image rows that `bytes` compressed hold, at most the total, as a function
    /// that borrows nothing (the writer calls it while it is borrowed).
    fn row_counter(&self) -> impl Fn(u64) -> usize {
        let (row_bytes, total) = (self.row_len as u64 * 2, self.total_rows);
        move |bytes| ((bytes / row_bytes) as usize).min(total)
    }

    /// Writes whole rows of `image`, first changed by `change` (the delta encoder, which
    /// zeroes the alpha where asked) when given; stops when the watch asks.
    fn rows(
        &mut self,
        rows: &[u16],
        image: Image,
        change: Option<&mut crate::delta::Encoder>,
    ) -> Result<(), vat_ktx2::Ktx2Error> {
        if let Some(plain) = self.plain.as_mut().filter(|_| image == Image::Positions) {
            plain.extend_from_slice(rows);
        }
        let rows = match change {
            None => rows,
            Some(delta) if delta.planes() => {
                // Whole blocks of rows in planes, changed as they go in: the rest waits
                // for the next rows.
                let block_len = self.block_rows * self.row_len;
                if self.block.capacity() == 0 {
                    self.block.reserve_exact(block_len.min(self.total_rows * self.row_len));
                }
                let mut fed = 0;
                while fed < rows.len() {
                    let take = (block_len - self.block.len()).min(rows.len() - fed);
                    let start = self.block.len();
                    self.block.resize(start + take, 0);
                    // The delta and its layout count as compression (pack_compress).
                    let at = Instant::now();
                    delta.encode_into(&rows[fed..fed + take], &mut self.block[start..]);
                    self.out.nanos += at.elapsed().as_nanos() as u64;
                    fed += take;
                    if self.block.len() == block_len {
                        self.write_block()?;
                    }
                }
                return self.check_cancelled();
            }
            Some(delta) => {
                self.stored.resize(rows.len(), 0);
                delta.encode_into(rows, &mut self.stored);
                &self.stored[..]
            }
        };
        let (watch, total, counted) = (self.watch, self.total_rows, self.row_counter());
        self.out.write_rows(rows, &mut |bytes| watch.rows(counted(bytes), total))?;
        self.check_cancelled()
    }

    /// Writes the block of rows filled so far, each row predicted by the references
    /// (chosen on the first block), then arranged in planes, a piece of a plane at a time
    /// (none: nothing).
    fn write_block(&mut self) -> Result<(), vat_ktx2::Ktx2Error> {
        if self.block.is_empty() {
            return Ok(());
        }
        let at = Instant::now();
        let width = self.row_len / 4;
        let references = self.references.get_or_insert_with(|| crate::delta::References::for_bake(&self.block, width));
        crate::delta::predict_rows(&mut self.block, width, references);
        self.out.nanos += at.elapsed().as_nanos() as u64;
        let texels = self.block.len() / 4;
        let (watch, total, counted) = (self.watch, self.total_rows, self.row_counter());
        for plane in 0..8 {
            for first in (0..texels).step_by(PLANE_PIECE_TEXELS) {
                let piece = &self.block[first * 4..(first + PLANE_PIECE_TEXELS).min(texels) * 4];
                let at = Instant::now();
                self.bytes.resize(piece.len() / 4, 0);
                crate::delta::byte_plane(piece, plane, &mut self.bytes);
                self.out.nanos += at.elapsed().as_nanos() as u64;
                self.out.write_bytes(&self.bytes, &mut |bytes| watch.rows(counted(bytes), total))?;
            }
        }
        self.block.clear();
        Ok(())
    }

    /// Stops when the watch asks.
    fn check_cancelled(&self) -> Result<(), vat_ktx2::Ktx2Error> {
        if self.watch.cancelled() {
            let stop = std::io::Error::new(std::io::ErrorKind::Interrupted, "cancelled");
            return Err(vat_ktx2::Ktx2Error::Io(stop));
        }
        Ok(())
    }

    /// Ends the file.
    fn finish(self) -> Result<Ktx2Streamed, vat_ktx2::Ktx2Error> {
        let in_writer = self.out.finish()?;
        Ok(Ktx2Streamed {
            evaluating: self.evaluating,
            max_error: self.max_error,
            in_writer,
            plain: self.plain,
            references: self.references,
        })
    }
}

/// The texels of a piece of a byte plane the pack stage hands the compressor at a time:
/// small enough to stay in cache, large enough that each call costs nothing.
const PLANE_PIECE_TEXELS: usize = 1 << 16;

/// The texture as a 16-bit PNG, made whole in memory; refused when it needs array layers.
fn pack_png(
    posed: &Posed,
    layout: &Layout,
    quantizing: &Quantizing,
    settings: &BakeSettings,
    staged: &mut Staged,
    found: &mut Found,
) -> Result<PackedTexture> {
    if crate::features::layers::Layers::of(layout, settings.max_height).count > 1 {
        return Err(Error::usage(format!(
            "{}: the texture is {} rows tall, more than --max-size allows ({}), and a PNG cannot hold array layers; \
             bake a KTX2, or lower --fps, --max-frames or the clips",
            settings.input.display(),
            layout.height,
            settings.max_height.unwrap_or_default()
        ))
        .into());
    }
    found.warnings.push(
        Finding::new("png-texture", "--texture-format png: browsers' image decoders reduce a 16-bit PNG to 8 bits")
            .advice("ship the KTX2 unless a tool can read nothing else"),
    );
    let name = settings.texture_file();
    let ((max_error, plain), png, parts_ms) = stage_in_memory(
        staged,
        &name,
        || texels::texels(&posed.rig, &posed.poses, layout, &posed.columns, quantizing),
        |(texels, max_error)| {
            let plain = keep_plain(settings).then(|| texels.clone());
            let image = vat_ktx2::Rgba16Image { width: layout.width as u32, height: layout.height as u32, texels };
            Ok((vat_ktx2::encode_png16(&image).context("cannot encode the texture")?, (max_error, plain)))
        },
    )?;
    let sha256 = description::sha256_hex(&png);
    let bytes = png.len() as u64;
    Ok(PackedTexture {
        name,
        bytes,
        container: settings.texture_format,
        supercompression: description::Supercompression::None,
        parts_ms,
        sha256,
        max_error,
        plain,
        references: None,
    })
}

/// A bone bake's texture: every row's joint matrices, as float texels or in the
/// 16-bit form (`--bone-encoding quat16`).
pub(crate) struct Matrices {
    /// Every row's matrices, in palette order, as computed.
    pub(crate) rows: Vec<Vec<Mat4>>,
    /// Under "quat16": the matrices the texture decodes to; `None`: `rows` themselves.
    pub(crate) decoded: Option<Vec<Vec<Mat4>>>,
    /// How the texture stores them (float32 when quat16 was asked for and the rig does not fit).
    pub(crate) encoding: description::MatrixEncoding,
    /// The 16-bit ranges, under "quat16".
    pub(crate) quantization: Option<description::BoneQuantization>,
    /// Under "quat16": the largest distance of a skinned point from the evaluation,
    /// measured while choosing the form.
    pub(crate) max_error: Option<f32>,
    /// Texels per row: [`TEXELS_PER_JOINT`] per matrix (2 under "quat16").
    pub(crate) width: usize,
    /// The staged KTX2's bytes.
    pub(crate) ktx2: Vec<u8>,
    pub(crate) parts_ms: PartsMs,
}

impl Matrices {
    /// The matrices a player gets from the texture.
    pub(crate) fn stored(&self) -> &[Vec<Mat4>] {
        self.decoded.as_deref().unwrap_or(&self.rows)
    }
}

/// The largest error, as a share of the bounds diagonal, a bone bake's 16-bit form may
/// put on a point before the rig is baked in floats instead: the tolerance the vertex
/// bakes and the checks against three.js's SkinnedMesh hold.
pub(crate) const QUAT16_TOLERANCE: f32 = 1e-4;

/// What the rows become under the 16-bit form, or why the rig keeps floats.
enum Form {
    Float,
    Quat16 { ranges: description::BoneQuantization, texels: Vec<u16>, decoded: Vec<Vec<Mat4>>, max_error: f32 },
}

/// The 16-bit form of `rows`, when every point skinned by its decoded matrices is
/// within [`QUAT16_TOLERANCE`] of the diagonal; otherwise a warning naming the worst
/// matrix and [`Form::Float`].
fn quat16_form(
    posed: &Posed,
    palette: &Palette,
    rows: &[Vec<Mat4>],
    bind: &[glam::Vec3],
    diagonal: f32,
    found: &mut Found,
) -> Form {
    let ranges = bones_quat16::ranges(rows);
    let texels = bones_quat16::encode(rows, &ranges);
    let decoded = bones_quat16::decode(&texels, palette.len(), &ranges);
    let max_error = super::measure::decode_error(&posed.rig, &posed.poses, &decoded, palette, bind);
    let fraction = max_error / diagonal.max(f32::MIN_POSITIVE);
    if fraction <= QUAT16_TOLERANCE {
        return Form::Quat16 { ranges, texels, decoded, max_error };
    }
    // The matrix furthest from a uniform scale times a rotation, for the message.
    let (misfit, joint, row) = rows
        .iter()
        .enumerate()
        .flat_map(|(r, row)| row.iter().enumerate().map(move |(j, m)| (bones_quat16::misfit(m), j, r)))
        .fold((0.0f32, 0, 0), |best, m| if m.0 > best.0 { m } else { best });
    let model = posed.rig.model();
    let source = &palette.sources(model)[joint];
    let name = source.name.clone().unwrap_or_else(|| format!("node {}", source.node));
    let why = if misfit > bones_quat16::FIT_TOLERANCE {
        format!(
            "matrix {joint} ({name}) on row {row} is not a rotation times a uniform scale (off by {:.1}% of its \
             scale: a non-uniform scale or a shear), which the 16-bit form cannot hold",
            100.0 * misfit
        )
    } else {
        "its translations or scales span too wide a range for 16-bit steps".to_string()
    };
    found.warnings.push(
        Finding::new(
            "bones-float32",
            format!(
                "--bone-encoding quat16 would put points {max_error:.3e} ({:.4}% of the bounds diagonal, over the \
                 {:.2}% tolerance) from the evaluation: {why}; the matrices are stored as 32-bit floats \
                 (bones.encoding float32)",
                100.0 * fraction,
                100.0 * QUAT16_TOLERANCE
            ),
        )
        .advice("the float texture is exact; the 16-bit form needs a rig without squash and stretch"),
    );
    Form::Float
}

/// Pack, for a bone bake: every row's matrices in `palette`'s order, a KTX2 made
/// whole in memory and staged: float texels, or the 16-bit form when it is asked
/// for and holds every point of the bind pose `bind` within the tolerance of the
/// bounds' `diagonal`.
pub(crate) fn pack_matrices(
    posed: &Posed,
    palette: &Palette,
    bind: &[glam::Vec3],
    diagonal: f32,
    settings: &BakeSettings,
    found: &mut Found,
    staged: &mut Staged,
) -> Result<Matrices> {
    let joints = palette.len();
    let quat16 = settings.bone_encoding == description::MatrixEncoding::Quat16;
    let ((rows, form), ktx2, parts_ms) = stage_in_memory(
        staged,
        &settings.texture_file(),
        || {
            let rows = posed.poses.par_iter().map(|pose| palette.row(pose)).collect::<Vec<Vec<Mat4>>>();
            let form = if quat16 { quat16_form(posed, palette, &rows, bind, diagonal, found) } else { Form::Float };
            (rows, form)
        },
        |(rows, form)| {
            let options = vat_ktx2::Ktx2Options {
                zstd_level: settings.zstd_level,
                writer: GENERATOR.to_string(),
                ..Default::default()
            };
            let height = rows.len() as u32;
            let file = match &form {
                Form::Float => {
                    let width = (joints * TEXELS_PER_JOINT) as u32;
                    let image = vat_ktx2::Rgba32fImage { width, height, texels: matrix_texels(&rows) };
                    vat_ktx2::encode_ktx2_rgba32f(&image, &options)
                }
                Form::Quat16 { texels, .. } => {
                    let width = (joints * bones_quat16::TEXELS_PER_JOINT) as u32;
                    let image = vat_ktx2::Rgba16Image { width, height, texels: texels.clone() };
                    vat_ktx2::encode_ktx2(&image, &options)
                }
            }
            .context("cannot encode the texture")?;
            Ok((file, (rows, form)))
        },
    )?;
    Ok(match form {
        Form::Float => Matrices {
            rows,
            decoded: None,
            encoding: description::MatrixEncoding::Float32,
            quantization: None,
            max_error: None,
            width: joints * TEXELS_PER_JOINT,
            ktx2,
            parts_ms,
        },
        Form::Quat16 { ranges, decoded, max_error, .. } => Matrices {
            rows,
            decoded: Some(decoded),
            encoding: description::MatrixEncoding::Quat16,
            quantization: Some(ranges),
            max_error: Some(max_error),
            width: joints * bones_quat16::TEXELS_PER_JOINT,
            ktx2,
            parts_ms,
        },
    })
}

/// The texture's floats: every row's matrices, columns in order, rows stacked.
fn matrix_texels(rows: &[Vec<Mat4>]) -> Vec<f32> {
    rows.iter().flat_map(|row| row.iter().flat_map(|m| m.to_cols_array())).collect()
}

/// A texture made whole in memory (the 16-bit PNG, a bone bake's float KTX2) and staged
/// as `name`: `evaluate` makes its content, `encode` the file's bytes from it and what
/// the caller keeps of it. Returns that, the file, and the milliseconds spent evaluating,
/// encoding and writing.
pub(crate) fn stage_in_memory<T, K>(
    staged: &mut Staged,
    name: &str,
    evaluate: impl FnOnce() -> T,
    encode: impl FnOnce(T) -> Result<(Vec<u8>, K)>,
) -> Result<(K, Vec<u8>, PartsMs)> {
    let at = Instant::now();
    let content = evaluate();
    let evaluated = ms(at);
    let at = Instant::now();
    let (file, kept) = encode(content)?;
    let encoded = ms(at);
    let at = Instant::now();
    staged.write(name, &file).map_err(|e| Error::output(format!("{e:#}")))?;
    Ok((kept, file, (evaluated, encoded, ms(at))))
}

/// Zstandard worker threads for one texture: the pool's threads (at most 8) when
/// the bake has the machine to itself, one when it runs on a pool thread itself,
/// as a roster's units do (they already fill the cores, and a worker each per
/// thread per unit would multiply the threads). The bytes are the same for any count.
pub(crate) fn zstd_workers() -> u32 {
    if rayon::current_thread_index().is_some() {
        1
    } else {
        rayon::current_num_threads().clamp(1, 8) as u32
    }
}
