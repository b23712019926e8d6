//! Every row of every clip, evaluated straight into texels.
//!
//! The box the positions are quantized against must cover every row before the
//! first texel can be written, so the points are evaluated twice: once for
//! their positions alone, to find the box, then again in full (positions and
//! normals), each image row encoded as soon as it is evaluated. No float copy
//! of the animation is kept: memory is a few chunks of texels and one row of
//! scratch per thread. Evaluating the positions twice is the cheaper way: on the
//! reference workload (docs/PERFORMANCE.md) the positions-only pass takes 50 ms
//! on one core, where allocating and first touching the 182 MB of float frames
//! that keeping them needs took 101 ms.
//!
//! Work is split by image rows (one row of one band); each depends only on its
//! own pose and points, so the bytes are the same at any thread count.

use std::sync::mpsc;
use std::time::{Duration, Instant};

use glam::{Vec3, Vec3A};
use rayon::prelude::*;
use vat_bounds::{Bounds, Grid, Quantizer};
use vat_model::{Clip, ClipRows, Columns, Layout};
use vat_skin::{Rig, RowPose};

/// The pose of every global row: the clips stacked in order, each clip's rows at
/// its row times.
pub fn row_poses(rig: &Rig, clips: &[&Clip], rows: &[ClipRows]) -> Vec<RowPose> {
    let samples: Vec<(&Clip, f32)> = clips
        .iter()
        .zip(rows)
        .flat_map(|(&clip, rows)| rows.times().into_iter().map(move |time| (clip, time)))
        .collect();
    samples.par_iter().map(|&(clip, time)| rig.pose(Some(clip), time)).collect()
}

/// The box around every point on every row, or `None` when a position is not
/// finite (a transform that overflows or degenerates).
pub fn bounds(rig: &Rig, poses: &[RowPose]) -> Option<Bounds> {
    let points = rig.model().points.len();
    let empty = || Extent { min: Vec3A::INFINITY, max: Vec3A::NEG_INFINITY, probe: Vec3A::ZERO };
    let extent = poses
        .par_iter()
        .map_init(
            || vec![Vec3A::ZERO; points],
            |scratch, pose| {
                rig.positions(pose, 0..points, scratch);
                scratch.iter().fold(empty(), |e, &p| Extent {
                    min: e.min.min(p),
                    max: e.max.max(p),
                    probe: e.probe + p * 0.0,
                })
            },
        )
        .reduce(empty, |a, b| Extent { min: a.min.min(b.min), max: a.max.max(b.max), probe: a.probe + b.probe });
    if !extent.probe.is_finite() {
        return None;
    }
    let bounds = Bounds::from_points(
        (points > 0 && !poses.is_empty())
            .then(|| [Vec3::from(extent.min), Vec3::from(extent.max)])
            .into_iter()
            .flatten(),
    );
    // Finite corners can still be too far apart for f32 (±3e38): the centre or the
    // half-size would overflow, and the description could not record them.
    (bounds.center.is_finite() && bounds.half_extent.is_finite()).then_some(bounds)
}

/// A running box, and a probe that turns NaN at the first position that is not
/// finite (`p · 0` is 0 for finite `p`, NaN for infinite or NaN): `min` and
/// `max` alone would skip a NaN.
struct Extent {
    min: Vec3A,
    max: Vec3A,
    probe: Vec3A,
}

/// How positions become texels: the box they are quantized against, and the
/// grid they are snapped to ([`Grid::FULL`]: every 16-bit step).
#[derive(Clone, Copy, Debug)]
pub struct Quantizing {
    /// The box around every row.
    pub bounds: Bounds,
    /// The grid positions are snapped to (`--tolerance`, `--bits`).
    pub grid: Grid,
}

impl Quantizing {
    /// Full precision against `bounds`.
    #[cfg(test)]
    pub fn full(bounds: Bounds) -> Self {
        Quantizing { bounds, grid: Grid::FULL }
    }
}

/// How a texel holds a point's normal: the encoder's one choice besides the box.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum NormalEncoding {
    /// Octahedral 8 + 8 in A, beside the position in RGB: the texture of every bake.
    Packed8,
    /// Octahedral 16 + 16 in R and G, B = A = 0, no position: `--normals separate`'s layers.
    Separate16,
}

/// What streaming the texels measured.
#[derive(Clone, Copy, Debug)]
pub struct Streamed {
    /// Time spent evaluating (filling chunks).
    pub evaluating: Duration,
    /// The largest distance between an evaluated position and its decoded texel, in
    /// model units; measured only on a coarser grid than full precision (0 otherwise).
    pub max_error: f32,
}

/// RGBA16 texels of every image row: RGB the position against the box, A the
/// normal, each column the point `columns` puts there. Texels past the last
/// column of the last band are zero. Also the largest position error, as
/// [`Streamed::max_error`].
pub fn texels(rig: &Rig, poses: &[RowPose], layout: &Layout, columns: &Columns, q: &Quantizing) -> (Vec<u16>, f32) {
    let mut texels = vec![0u16; layout.texels() * 4];
    let worst = fill_rows(&Image { rig, poses, layout, columns, q }, 0, NormalEncoding::Packed8, &mut texels);
    (texels, worst)
}

/// Bytes of texels handed on at a time by [`stream_texels`]: one of zstd's jobs (1 MiB,
/// vat-ktx2's), so that the rows' delta and the first jobs' compression start while
/// the rest is evaluated.
const CHUNK_BYTES: usize = 1 << 20;

/// Chunks in flight: one being filled, one being compressed, one spare.
const CHUNKS: usize = 3;

/// The texels of [`texels`], handed to `sink` a few MiB of whole image rows at a
/// time, in order, without ever holding the whole image.
///
/// With more than one thread in the pool, `sink` runs on a thread of its own, so
/// compressing one chunk overlaps with evaluating the next; on one thread it is
/// called in line (a second thread would only take turns with the first). The
/// chunks are the same either way. The first error `sink` returns stops the
/// evaluation and is returned; otherwise what the stream measured.
pub fn stream_texels<E: Send>(
    rig: &Rig,
    poses: &[RowPose],
    layout: &Layout,
    columns: &Columns,
    q: &Quantizing,
    sink: impl FnMut(&[u16]) -> Result<(), E> + Send,
) -> Result<Streamed, E> {
    let image = Image { rig, poses, layout, columns, q };
    let (evaluating, max_error) = stream_chunks(&image, CHUNK_BYTES, NormalEncoding::Packed8, sink)?;
    Ok(Streamed { evaluating, max_error })
}

/// [`stream_texels`] of the normals alone, octahedral 16 + 16 in R and G (B = A = 0):
/// the separate normal layers of `--normals separate`; returns the time spent evaluating.
pub fn stream_normal_texels<E: Send>(
    rig: &Rig,
    poses: &[RowPose],
    layout: &Layout,
    columns: &Columns,
    q: &Quantizing,
    sink: impl FnMut(&[u16]) -> Result<(), E> + Send,
) -> Result<Duration, E> {
    let image = Image { rig, poses, layout, columns, q };
    Ok(stream_chunks(&image, CHUNK_BYTES, NormalEncoding::Separate16, sink)?.0)
}

/// What the image rows' texels are made of: the rig and every row's pose, the
/// texture's layout and column order, and the quantizing.
struct Image<'a> {
    rig: &'a Rig<'a>,
    poses: &'a [RowPose],
    layout: &'a Layout,
    columns: &'a Columns,
    q: &'a Quantizing,
}

/// Fills chunks of `chunk_bytes` (whole image rows) and hands them to `sink` in order;
/// returns the time spent evaluating and the largest position error [`fill_rows`] measured.
fn stream_chunks<E: Send>(
    image: &Image,
    chunk_bytes: usize,
    normal: NormalEncoding,
    mut sink: impl FnMut(&[u16]) -> Result<(), E> + Send,
) -> Result<(Duration, f32), E> {
    let layout = image.layout;
    let mut evaluating = Duration::ZERO;
    let mut worst = 0f32;
    let row_len = layout.width * 4;
    let rows_per_chunk = (chunk_bytes / (row_len * 2)).clamp(1, layout.height.max(1));
    if rayon::current_num_threads() <= 1 {
        let mut chunk = vec![0u16; rows_per_chunk * row_len];
        for first_row in (0..layout.height).step_by(rows_per_chunk) {
            let rows = rows_per_chunk.min(layout.height - first_row);
            let at = Instant::now();
            worst = worst.max(fill_rows(image, first_row, normal, &mut chunk[..rows * row_len]));
            evaluating += at.elapsed();
            sink(&chunk[..rows * row_len])?;
        }
        return Ok((evaluating, worst));
    }
    std::thread::scope(|scope| {
        let (filled, to_sink) = mpsc::sync_channel::<(usize, Vec<u16>)>(1);
        let (recycle, recycled) = mpsc::sync_channel::<Vec<u16>>(CHUNKS);
        let encoder = scope.spawn(move || {
            for (rows, chunk) in to_sink {
                sink(&chunk[..rows * row_len])?;
                // The filling side may have stopped already; the chunk is then dropped.
                let _ = recycle.send(chunk);
            }
            Ok(())
        });
        let mut allocated = 0;
        for first_row in (0..layout.height).step_by(rows_per_chunk) {
            let rows = rows_per_chunk.min(layout.height - first_row);
            let mut chunk = if allocated < CHUNKS {
                allocated += 1;
                vec![0u16; rows_per_chunk * row_len]
            } else {
                match recycled.recv() {
                    Ok(chunk) => chunk,
                    Err(_) => break, // the sink failed and its thread has ended
                }
            };
            let at = Instant::now();
            worst = worst.max(fill_rows(image, first_row, normal, &mut chunk[..rows * row_len]));
            evaluating += at.elapsed();
            if filled.send((rows, chunk)).is_err() {
                break;
            }
        }
        drop(filled);
        encoder.join().unwrap_or_else(|panic| std::panic::resume_unwind(panic)).map(|()| (evaluating, worst))
    })
}

/// Evaluates and encodes the image rows from `first_row` on into `texels` (whole
/// rows), in parallel by row, the normals as `normal` says. Texels past a band's
/// last column are set to zero. Returns, for positions on a grid coarser than full
/// precision, the largest distance between an evaluated position and its decoded
/// texel; 0 otherwise (the largest of the rows' own: the same at any thread count).
fn fill_rows(image: &Image, first_row: usize, normal: NormalEncoding, texels: &mut [u16]) -> f32 {
    let Image { rig, poses, layout, columns, q } = *image;
    let quantizer = &Quantizer::on_grid(&q.bounds, &q.grid);
    let measure = !q.grid.is_full() && normal == NormalEncoding::Packed8;
    assert_eq!(poses.len(), layout.rows, "one pose per row");
    assert_eq!(columns.len(), layout.points, "one column per point");
    let in_order = columns.is_identity();
    texels
        .par_chunks_mut(layout.width * 4)
        .enumerate()
        .map_init(
            || (vec![Vec3A::ZERO; layout.width], vec![Vec3A::ZERO; layout.width]),
            |(positions, normals), (k, line)| {
                let y = first_row + k;
                let band = layout.band_points(y / layout.rows);
                let count = band.len();
                let (positions, normals) = (&mut positions[..count], &mut normals[..count]);
                let pose = &poses[y % layout.rows];
                if in_order {
                    rig.evaluate(pose, band, positions, normals);
                } else {
                    rig.evaluate_points(pose, &columns.points()[band], positions, normals);
                }
                let (used, padding) = line.split_at_mut(count * 4);
                match normal {
                    NormalEncoding::Packed8 => vat_bounds::encode_texels(quantizer, positions, normals, used),
                    NormalEncoding::Separate16 => {
                        for (texel, &normal) in used.chunks_exact_mut(4).zip(normals.iter()) {
                            let [x, y] = crate::features::normals::encode_normal16(normal);
                            texel.copy_from_slice(&[x, y, 0, 0]);
                        }
                    }
                }
                padding.fill(0);
                if !measure {
                    return 0.0;
                }
                positions.iter().zip(used.chunks_exact(4)).fold(0f32, |w, (&p, texel)| {
                    let decoded = vat_bounds::decode_position([texel[0], texel[1], texel[2]], &q.bounds);
                    w.max(decoded.distance(Vec3::from(p)))
                })
            },
        )
        .reduce(|| 0.0, f32::max)
}

/// Positions of every point for one pose.
pub fn positions(rig: &Rig, pose: &RowPose) -> Vec<Vec3> {
    let points = rig.model().points.len();
    let mut scratch = vec![Vec3A::ZERO; points];
    rig.positions(pose, 0..points, &mut scratch);
    scratch.into_iter().map(Vec3::from).collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use glam::{Vec2, Vec3};
    use vat_model::{Channel, Clip, ColumnOrder, Interpolation, Local, Model, Node, Part, Points, Property, Trs};

    /// 10 points on a node that a clip slides 2 along x and turns about z.
    fn model() -> (Model, Clip) {
        let node = Node {
            name: None,
            parent: None,
            children: vec![],
            rest: Local::Trs(Trs::default()),
            morph_weights: vec![],
        };
        let part = Part {
            node: 0,
            mesh: 0,
            primitive: 0,
            material: None,
            skin: None,
            first_point: 0,
            point_count: 10,
            first_triangle: 0,
            triangle_count: 0,
            morph_targets: vec![],
        };
        let positions: Vec<Vec3> = (0..10).map(|i| Vec3::new(i as f32 * 0.1, (i % 3) as f32, 0.5)).collect();
        let points = Points {
            normals: (0..10).map(|i| Vec3::new(0.0, (i as f32).cos(), (i as f32).sin())).collect(),
            uv0: vec![Vec2::ZERO; 10],
            joints: vec![[0; 8]; 10],
            weights: vec![[0.0; 8]; 10],
            positions,
        };
        let model = Model { nodes: vec![node], scene_roots: vec![0], parts: vec![part], points, ..Model::default() };
        let slide = Channel {
            node: 0,
            property: Property::Translation,
            interpolation: Interpolation::Linear,
            times: vec![0.0, 1.0],
            values: vec![0.0, 0.0, 0.0, 2.0, 0.0, 0.0],
        };
        let turn = Channel {
            node: 0,
            property: Property::Rotation,
            interpolation: Interpolation::Linear,
            times: vec![0.0, 1.0],
            values: vec![
                0.0,
                0.0,
                0.0,
                1.0,
                0.0,
                0.0,
                std::f32::consts::FRAC_1_SQRT_2,
                std::f32::consts::FRAC_1_SQRT_2,
            ],
        };
        (model, Clip { name: None, source_index: 0, merged_from: Vec::new(), file: None, channels: vec![slide, turn] })
    }

    fn in_pool<T: Send>(threads: usize, run: impl FnOnce() -> T + Send) -> T {
        rayon::ThreadPoolBuilder::new().num_threads(threads).build().unwrap().install(run)
    }

    #[test]
    fn streamed_chunks_are_the_whole_image_at_any_thread_count() {
        let (model, clip) = model();
        let rig = Rig::new(&model);
        let rows = [ClipRows::new(1.0, 30.0, None)];
        let poses = row_poses(&rig, &[&clip], &rows);
        // 10 points at 4 columns: three bands of 4 (the last 2 short) × 31 rows.
        let layout = Layout::new(10, 31, 4);
        let bounds = bounds(&rig, &poses).unwrap();
        // The same box as the float frames give.
        let frames = vat_skin::evaluate_clip(&model, Some(&clip), &rows[0].times());
        assert_eq!(bounds, Bounds::of_frames([&frames]));
        // Columns in an order that is neither the source's nor its reverse.
        let columns = Columns::from_points(vec![3, 9, 0, 7, 1, 8, 2, 6, 4, 5]).unwrap();
        let q = Quantizing::full(bounds);
        let in_source_order =
            texels(&rig, &poses, &layout, &Columns::new(ColumnOrder::Source, &[Vec3::ZERO; 10]), &q).0;
        let whole = texels(&rig, &poses, &layout, &columns, &q).0;
        assert_eq!(whole.len(), 4 * 93 * 4);
        // Each point's texels are the same values, in its own column.
        let at = |texels: &[u16], column: usize, row: usize| {
            let (x, y) = layout.texel(column, row);
            texels[(y * 4 + x) * 4..(y * 4 + x) * 4 + 4].to_vec()
        };
        for point in 0..10 {
            for row in 0..31 {
                assert_eq!(
                    at(&whole, columns.column(point), row),
                    at(&in_source_order, point, row),
                    "point {point} row {row}"
                );
            }
        }
        assert_ne!(whole, in_source_order);
        // The padding of the last band is zero, the rest is not.
        assert!(whole[(62 * 4 + 2) * 4..(63 * 4) * 4].iter().all(|&v| v == 0));
        assert!(whole[(62 * 4 + 1) * 4..(62 * 4 + 2) * 4].iter().any(|&v| v != 0));
        for threads in [1, 2, 3] {
            // 5 rows of 32 bytes a chunk: 19 chunks, the last of 3 rows, recycled buffers included.
            let streamed = in_pool(threads, || {
                let mut streamed = Vec::new();
                stream_chunks(
                    &Image { rig: &rig, poses: &poses, layout: &layout, columns: &columns, q: &q },
                    5 * 32,
                    NormalEncoding::Packed8,
                    |rows: &[u16]| {
                        assert_eq!(rows.len() % 16, 0, "whole rows");
                        streamed.extend_from_slice(rows);
                        Ok::<(), ()>(())
                    },
                )
                .unwrap();
                streamed
            });
            assert_eq!(streamed, whole, "{threads} threads");
        }
    }

    #[test]
    fn a_failing_sink_stops_the_stream_with_its_error() {
        let (model, clip) = model();
        let rig = Rig::new(&model);
        let poses = row_poses(&rig, &[&clip], &[ClipRows::new(1.0, 30.0, None)]);
        let layout = Layout::new(10, 31, 4);
        let bounds = bounds(&rig, &poses).unwrap();
        let columns = Columns::new(ColumnOrder::Spatial, &model.points.positions);
        for threads in [1, 2] {
            let mut calls = 0;
            let result = in_pool(threads, || {
                stream_chunks(
                    &Image {
                        rig: &rig,
                        poses: &poses,
                        layout: &layout,
                        columns: &columns,
                        q: &Quantizing::full(bounds),
                    },
                    32,
                    NormalEncoding::Packed8,
                    |_: &[u16]| {
                        calls += 1;
                        if calls == 3 {
                            Err("disk full")
                        } else {
                            Ok(())
                        }
                    },
                )
            });
            assert_eq!(result.map(|_| ()), Err("disk full"), "{threads} threads");
            assert_eq!(calls, 3, "nothing is handed on after the error ({threads} threads)");
        }
    }

    #[test]
    fn a_box_too_large_for_f32_has_no_bounds() {
        let (mut model, clip) = model();
        model.points.positions[0] = Vec3::new(3e38, 0.0, 0.0);
        model.points.positions[1] = Vec3::new(-3e38, 0.0, 0.0);
        let rig = Rig::new(&model);
        let poses = row_poses(&rig, &[&clip], &[ClipRows::new(1.0, 30.0, None)]);
        assert_eq!(bounds(&rig, &poses), None);
    }

    #[test]
    fn a_position_that_is_not_finite_has_no_bounds() {
        let (mut model, clip) = model();
        model.points.positions[7] = Vec3::new(f32::NAN, 0.0, 0.0);
        let rig = Rig::new(&model);
        let poses = row_poses(&rig, &[&clip], &[ClipRows::new(1.0, 30.0, None)]);
        assert_eq!(bounds(&rig, &poses), None);
    }
}
