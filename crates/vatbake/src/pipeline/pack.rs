//! Pack: every row evaluated again, in full, straight into 16-bit texels, delta-encoded
//! and compressed into the staged texture file as they come.

use std::time::Instant;

use anyhow::{Context, Result};
use vat_model::{Finding, Layout};

use super::evaluate::Posed;
use super::texels::{self, Quantizing};
use super::*;
use crate::description::{self};
use crate::error::Error;
use crate::settings::{BakeSettings, TextureFormat, GENERATOR};
use crate::staging::Staged;

/// Milliseconds spent evaluating, compressing and writing a texture.
pub(crate) type PartsMs = (f64, f64, f64);

/// The staged texture: its file name, size and how it is stored.
pub(crate) struct PackedTexture {
    pub(crate) name: String,
    pub(crate) bytes: u64,
    pub(crate) container: &'static str,
    pub(crate) supercompression: &'static str,
    pub(crate) parts_ms: PartsMs,
    /// SHA-256 of the texture file, hex.
    pub(crate) sha256: String,
    /// The largest position error measured on a coarser grid (0 at full precision).
    pub(crate) max_error: f32,
    /// The plain texels (no deltas, normals packed in alpha), kept as they were packed
    /// when another tool's format or an engine's target is made from them.
    pub(crate) plain: Option<Vec<u16>>,
}

/// A file writer that counts the time spent in its writes and seeks (in
/// nanoseconds, into `spent`): the texture's write time, apart from compression.
pub(crate) struct TimedFile<'a> {
    pub(crate) file: &'a mut std::fs::File,
    pub(crate) spent: &'a std::sync::atomic::AtomicU64,
}

impl TimedFile<'_> {
    fn timed<T>(&mut self, work: impl FnOnce(&mut std::fs::File) -> T) -> T {
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
    let model = posed.rig.model();
    if layout.bands > 1 {
        found.notes.push(Finding::new(
            "bands",
            format!(
                "{} points exceed --max-width {}: the columns wrap into {} bands of {} (the description's texture.bands)",
                model.points.len(),
                settings.max_width,
                layout.bands,
                layout.width
            ),
        ));
    }
    let output = |e: anyhow::Error| Error::output(format!("{e:#}"));
    let name = settings.texture_file();
    let container = settings.texture_format.container();
    match settings.texture_format {
        TextureFormat::Ktx2 => {
            let options = vat_ktx2::Ktx2Options {
                zstd_level: settings.zstd_level,
                writer: GENERATOR.to_string(),
                workers: zstd_workers(),
                long_window: settings.zstd_long,
            };
            let width = layout.width as u32;
            let layers = crate::pipeline::layers::Layers::of(layout, settings.max_height);
            let (writing, in_writer) = (std::sync::atomic::AtomicU64::new(0), std::sync::atomic::AtomicU64::new(0));
            let (mut evaluating, mut max_error) = (std::time::Duration::ZERO, 0f32);
            let mut kept = keep_plain(settings).then(|| Vec::with_capacity(layout.texels() * 4));
            let bytes = staged
                .write_with(&name, |file| {
                    let file = TimedFile { file, spent: &writing };
                    let timed = |work: &mut dyn FnMut() -> Result<(), vat_ktx2::Ktx2Error>| {
                        let at = Instant::now();
                        let out = work();
                        in_writer.fetch_add(at.elapsed().as_nanos() as u64, std::sync::atomic::Ordering::Relaxed);
                        out
                    };
                    let separate = settings.normals == crate::pipeline::normals::NormalsMode::Separate;
                    let mut writer = vat_ktx2::Ktx2Writer::with_layers(
                        std::io::BufWriter::new(file),
                        width,
                        layers.height,
                        layers.count * if separate { 2 } else { 1 },
                        &options,
                    )?;
                    let (mut done, row_len) = (0, layout.width * 4);
                    let total_rows = layout.height * if separate { 2 } else { 1 };
                    let first = || crate::delta::clip_starts(posed.entries.iter().map(|c| c.row as usize), layout.rows);
                    let mut stored = Vec::new();
                    // Positions, then (separate normals) the normals: each its own
                    // logical image, delta-encoded alike, padded to whole layers.
                    for normal_layers in [false, true].into_iter().take(if separate { 2 } else { 1 }) {
                        let mut delta = crate::delta::Encoder::new(settings.delta, row_len, first());
                        let no_alpha =
                            !normal_layers && settings.normals != crate::pipeline::normals::NormalsMode::Packed;
                        watch.rows(done, total_rows);
                        let sink = |rows: &[u16]| {
                            if let Some(kept) = kept.as_mut().filter(|_| !normal_layers) {
                                kept.extend_from_slice(rows);
                            }
                            let rows = if settings.delta == crate::delta::Delta::None && !no_alpha {
                                rows
                            } else {
                                stored.clear();
                                stored.extend_from_slice(rows);
                                if no_alpha {
                                    stored.chunks_exact_mut(4).for_each(|texel| texel[3] = 0);
                                }
                                delta.encode(&mut stored);
                                &stored[..]
                            };
                            timed(&mut || writer.write_rows(rows))?;
                            done += rows.len() / row_len;
                            watch.rows(done, total_rows);
                            if watch.cancelled() {
                                let stop = std::io::Error::new(std::io::ErrorKind::Interrupted, "cancelled");
                                return Err(vat_ktx2::Ktx2Error::Io(stop));
                            }
                            Ok::<(), vat_ktx2::Ktx2Error>(())
                        };
                        let (rig, poses, columns) = (&posed.rig, &posed.poses, &posed.columns);
                        evaluating += if normal_layers {
                            texels::stream_normal_texels(rig, poses, layout, columns, quantizing, sink)?
                        } else {
                            let streamed = texels::stream_texels(rig, poses, layout, columns, quantizing, sink)?;
                            max_error = streamed.max_error;
                            streamed.evaluating
                        };
                        // The last layer's rows past the texture: zero.
                        let padding = vec![0u16; row_len];
                        for _ in layout.height..layers.rows() {
                            timed(&mut || writer.write_rows(&padding))?;
                        }
                    }
                    let mut writer = Some(writer);
                    timed(&mut || writer.take().map_or(Ok(()), |w| w.finish().map(drop)))?;
                    Ok(())
                })
                .map_err(output)?;
            let (writing, in_writer) = (writing.into_inner(), in_writer.into_inner());
            let parts_ms = (
                nanos_ms(evaluating.as_nanos() as u64),
                nanos_ms(in_writer.saturating_sub(writing)),
                nanos_ms(writing),
            );
            let sha256 = staged.sha256(&name).map_err(output)?;
            Ok(PackedTexture {
                name,
                bytes,
                container,
                supercompression: "zstd",
                parts_ms,
                sha256,
                max_error,
                plain: kept,
            })
        }
        TextureFormat::Png if crate::pipeline::layers::Layers::of(layout, settings.max_height).count > 1 => {
            Err(Error::usage(format!(
            "{}: the texture is {} rows tall, more than --max-size allows ({}), and a PNG cannot hold array layers; \
             bake a KTX2, or lower --fps, --max-frames or the clips",
            settings.input.display(),
            layout.height,
            settings.max_height.unwrap_or_default()
        ))
            .into())
        }
        TextureFormat::Png => {
            found.warnings.push(
                Finding::new(
                    "png-texture",
                    "--texture-format png: browsers' image decoders reduce a 16-bit PNG to 8 bits",
                )
                .advice("ship the KTX2 unless a tool can read nothing else"),
            );
            let ((max_error, plain), png, parts_ms) = stage_in_memory(
                staged,
                &name,
                || texels::texels(&posed.rig, &posed.poses, layout, &posed.columns, quantizing),
                |(texels, max_error)| {
                    let plain = keep_plain(settings).then(|| texels.clone());
                    let image =
                        vat_ktx2::Rgba16Image { width: layout.width as u32, height: layout.height as u32, texels };
                    Ok((vat_ktx2::encode_png16(&image).context("cannot encode the texture")?, (max_error, plain)))
                },
            )?;
            let sha256 = description::sha256_hex(&png);
            let bytes = png.len() as u64;
            Ok(PackedTexture { name, bytes, container, supercompression: "none", parts_ms, sha256, max_error, plain })
        }
    }
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
