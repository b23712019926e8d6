//! Bounds over every row of every clip, and the 16-bit encoding that uses them.
//!
//! Positions are stored as 16-bit UNORM about a centre and a half-size:
//! `p = (texel / 65535 · 2 − 1) · half_extent + center`. The bounds come from all
//! evaluated rows, never the rest pose alone, so a limb that swings outside the
//! resting box is not clipped. Normals are octahedral-encoded, 8 + 8 bits, packed
//! into the alpha channel (high byte x, low byte y).
//!
//! [`Quantizer`] and [`encode_texels`] are what the bake runs on every texel;
//! [`pack`] does the same for callers that hold [`Frames`]. Both encodings have
//! fixed error bounds ([`Bounds::precision`], [`NORMAL_MAX_ERROR_DEGREES`]), so
//! nothing is measured per texel.
//!
//! What it does not: decide where texels go (that is [`vat_model::Layout`]) or
//! write files (that is `vat-ktx2`).
//!
//! Dependencies: of this workspace, only `vat-model` (plus `glam` and `rayon`). It
//! must do no file I/O and must not depend on any other stage crate (`vat-gltf`,
//! `vat-skin`, `vat-ktx2`, `vat-decimate`, `vat-audit`) or on `vatbake`.
//!
//! ```
//! use glam::Vec3;
//! use vat_bounds::{Bounds, decode_position, encode_position};
//! let bounds = Bounds::from_points([Vec3::new(-1.0, 0.0, 2.0), Vec3::new(1.0, 2.0, 2.0)]);
//! let texel = encode_position(Vec3::new(0.5, 1.0, 2.0), &bounds);
//! let back = decode_position(texel, &bounds);
//! assert!((back - Vec3::new(0.5, 1.0, 2.0)).abs().max_element() <= bounds.step().max_element() / 2.0);
//! ```

#![warn(missing_docs)]

use glam::{Vec2, Vec3, Vec3A, Vec4};
use rayon::prelude::*;
use vat_model::{Frames, Layout};

/// An axis-aligned box as centre and half-size (each half-size ≥ 0).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Bounds {
    /// Centre of the box, in model units.
    pub center: Vec3,
    /// Half the box's size on each axis, in model units (≥ 0).
    pub half_extent: Vec3,
}

impl Bounds {
    /// The box around all points; a zero box at the origin when there are none.
    pub fn from_points(points: impl IntoIterator<Item = Vec3>) -> Self {
        let (min, max) = points
            .into_iter()
            .fold((Vec3::splat(f32::INFINITY), Vec3::splat(f32::NEG_INFINITY)), |(lo, hi), p| (lo.min(p), hi.max(p)));
        if min.x > max.x {
            return Bounds { center: Vec3::ZERO, half_extent: Vec3::ZERO };
        }
        Bounds { center: (min + max) * 0.5, half_extent: (max - min) * 0.5 }
    }

    /// The box around every row of every clip.
    pub fn of_frames<'a>(clips: impl IntoIterator<Item = &'a Frames>) -> Self {
        Self::from_points(clips.into_iter().flat_map(|f| f.positions.iter().copied()))
    }

    /// The box's lowest corner.
    pub fn min(&self) -> Vec3 {
        self.center - self.half_extent
    }
    /// The box's highest corner.
    pub fn max(&self) -> Vec3 {
        self.center + self.half_extent
    }
    /// Length of the box's diagonal.
    pub fn diagonal(&self) -> f32 {
        2.0 * self.half_extent.length()
    }
    /// One quantization step per axis, in model units.
    pub fn step(&self) -> Vec3 {
        self.half_extent * 2.0 / 65535.0
    }
    /// The largest possible quantization error of a position: half a step on every axis.
    pub fn precision(&self) -> f32 {
        (self.step() * 0.5).length()
    }
    /// The largest possible error of a position snapped to `grid` (steps per axis,
    /// see [`Grid`]): half a grid cell on every axis. [`Bounds::precision`] when
    /// the grid is every step.
    pub fn precision_on(&self, grid: &Grid) -> f32 {
        (self.step() * grid.cell() * 0.5).length()
    }
}

/// A coarser grid for positions: each axis keeps only multiples of a power of
/// two of 16-bit steps (and 65,535, the top of the range), so a compressor sees
/// fewer distinct values. `[1, 1, 1]`, every step, is full precision.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Grid(pub [u32; 3]);

impl Grid {
    /// Every 16-bit step: full precision.
    pub const FULL: Grid = Grid([1, 1, 1]);

    /// The grid of `bits` significant bits on every axis (1–16): cells of
    /// 2^(16 − bits) steps.
    pub fn of_bits(bits: u32) -> Grid {
        Grid([1 << (16 - bits.clamp(1, 16)); 3])
    }

    /// The coarsest grid whose error stays within `tolerance` (model units,
    /// straight-line distance): per axis the largest power-of-two cell whose half
    /// is at most `tolerance / √3`, at most 2^15 steps. An axis with zero extent
    /// keeps one step (its values never change).
    pub fn within(bounds: &Bounds, tolerance: f32) -> Grid {
        let per_axis = tolerance / 3f32.sqrt();
        Grid(bounds.step().to_array().map(|step| {
            // Cells of at least 2 steps fit (NaN, from no tolerance, does not); a flat
            // axis (no step) keeps 1.
            let cells = 2.0 * per_axis / step;
            if step > 0.0 && cells >= 2.0 {
                1u32 << (cells.log2().floor() as u32).min(15)
            } else {
                1
            }
        }))
    }

    /// Whether this is every step (full precision).
    pub fn is_full(&self) -> bool {
        *self == Grid::FULL
    }

    /// The cell size per axis, in 16-bit steps.
    pub fn cell(&self) -> Vec3 {
        Vec3::new(self.0[0] as f32, self.0[1] as f32, self.0[2] as f32)
    }
}

/// A position to three 16-bit UNORM values. An axis with zero extent stores the
/// middle value, and decodes to the centre whatever is stored.
#[inline]
pub fn encode_position(p: Vec3, bounds: &Bounds) -> [u16; 3] {
    Quantizer::new(bounds).encode(Vec3A::from(p))
}

/// [`encode_position`] with the per-axis factors worked out once, for encoding
/// many positions against one box.
#[derive(Clone, Copy, Debug)]
pub struct Quantizer {
    center: Vec3A,
    /// `0.5 / half_extent`, or 0 on a flat axis (every value lands on 0.5).
    scale: Vec3A,
    /// The grid's cell per axis in steps, `None` for every step.
    grid: Option<([f32; 3], [u32; 3])>,
}

impl Quantizer {
    /// The quantizer for positions inside `bounds`.
    ///
    /// ```
    /// use glam::Vec3;
    /// use vat_bounds::{Bounds, Quantizer};
    /// let bounds = Bounds::from_points([Vec3::ZERO, Vec3::ONE]);
    /// let quantizer = Quantizer::new(&bounds);
    /// assert_eq!(quantizer.encode(Vec3::new(0.0, 0.5, 1.0).into()), [0, 32768, 65535]);
    /// ```
    pub fn new(bounds: &Bounds) -> Self {
        let h = Vec3A::from(bounds.half_extent);
        let scale = Vec3A::select(h.cmpgt(Vec3A::ZERO), Vec3A::splat(0.5) / h, Vec3A::ZERO);
        Quantizer { center: Vec3A::from(bounds.center), scale, grid: None }
    }

    /// The quantizer for positions inside `bounds`, snapped to `grid`: per axis
    /// the nearest multiple of the cell to the full-precision value (computed
    /// from the position, not from its rounded code), or 65,535 where that
    /// multiple would be 65,536. The error is at most half a cell per axis.
    ///
    /// ```
    /// use glam::Vec3;
    /// use vat_bounds::{Bounds, Grid, Quantizer};
    /// let bounds = Bounds::from_points([Vec3::ZERO, Vec3::ONE]);
    /// let quantizer = Quantizer::on_grid(&bounds, &Grid::of_bits(12));
    /// assert_eq!(quantizer.encode(Vec3::new(0.0, 0.5, 1.0).into()), [0, 32768, 65535]);
    /// assert_eq!(quantizer.encode(Vec3::new(0.1, 0.2, 0.3).into()), [6560, 13104, 19664]);
    /// ```
    pub fn on_grid(bounds: &Bounds, grid: &Grid) -> Self {
        let quantizer = Quantizer::new(bounds);
        if grid.is_full() {
            return quantizer;
        }
        Quantizer { grid: Some((grid.0.map(|cell| 1.0 / cell as f32), grid.0)), ..quantizer }
    }

    /// `round(clamp((p − center) / half_extent · ½ + ½, 0, 1) · 65535)` per axis,
    /// rounding to the nearest integer (halves to even).
    #[inline(always)]
    pub fn encode(&self, p: Vec3A) -> [u16; 3] {
        let unit = ((p - self.center) * self.scale + Vec3A::splat(0.5)).clamp(Vec3A::ZERO, Vec3A::ONE);
        if let Some((inverse, cell)) = &self.grid {
            let v = (unit * 65535.0).to_array();
            return std::array::from_fn(|axis| snap(v[axis], inverse[axis], cell[axis]));
        }
        let [x, y, z] = (unit * 65535.0 + Vec3A::splat(ROUNDING_BIAS)).to_array();
        [low_bits(x), low_bits(y), low_bits(z)]
    }

    /// [`Quantizer::encode`] of four positions at once, an axis at a time, with the
    /// same operations in the same order: the same values.
    #[inline(always)]
    fn encode4(&self, p: &[Vec3A; 4]) -> [[u16; 3]; 4] {
        if self.grid.is_some() {
            return p.map(|p| self.encode(p));
        }
        let axis = |v: Vec4, center: f32, scale: f32| {
            let unit = ((v - Vec4::splat(center)) * scale + Vec4::splat(0.5)).clamp(Vec4::ZERO, Vec4::ONE);
            (unit * 65535.0 + Vec4::splat(ROUNDING_BIAS)).to_array().map(low_bits)
        };
        let x = axis(Vec4::new(p[0].x, p[1].x, p[2].x, p[3].x), self.center.x, self.scale.x);
        let y = axis(Vec4::new(p[0].y, p[1].y, p[2].y, p[3].y), self.center.y, self.scale.y);
        let z = axis(Vec4::new(p[0].z, p[1].z, p[2].z, p[3].z), self.center.z, self.scale.z);
        std::array::from_fn(|i| [x[i], y[i], z[i]])
    }
}

/// 2²³: added to a float in [0, 2²³) it leaves that float's nearest integer in
/// the low mantissa bits (the float's unit in the last place becomes 1), which
/// rounds without a branch or a saturating conversion.
const ROUNDING_BIAS: f32 = 8_388_608.0;

/// The integer [`ROUNDING_BIAS`] left in the low 16 bits of `biased`; exact for
/// values up to 65,535.
#[inline(always)]
fn low_bits(biased: f32) -> u16 {
    (biased.to_bits() & 0xFFFF) as u16
}

/// `value` (a position in steps, 0–65,535) to the nearest multiple of `cell`
/// (`inverse` = 1 / `cell`, both powers of two, so the scaling is exact), kept
/// within 65,535.
#[inline(always)]
fn snap(value: f32, inverse: f32, cell: u32) -> u16 {
    let cells = low_bits(value * inverse + ROUNDING_BIAS) as u32;
    (cells * cell).min(65535) as u16
}

/// The decode formula a shader applies.
#[inline]
pub fn decode_position(texel: [u16; 3], bounds: &Bounds) -> Vec3 {
    let unit = Vec3::new(texel[0] as f32, texel[1] as f32, texel[2] as f32) / 65535.0;
    (unit * 2.0 - Vec3::ONE) * bounds.half_extent + bounds.center
}

fn sign_not_zero(v: Vec2) -> Vec2 {
    Vec2::new(if v.x >= 0.0 { 1.0 } else { -1.0 }, if v.y >= 0.0 { 1.0 } else { -1.0 })
}

fn oct_unproject(p: Vec2) -> Vec3 {
    let mut n = Vec3::new(p.x, p.y, 1.0 - p.x.abs() - p.y.abs());
    if n.z < 0.0 {
        let folded = (Vec2::ONE - Vec2::new(p.y.abs(), p.x.abs())) * sign_not_zero(p);
        n.x = folded.x;
        n.y = folded.y;
    }
    n.normalize_or(Vec3::Z)
}

fn byte_to_unit(b: u16) -> f32 {
    b as f32 / 255.0 * 2.0 - 1.0
}

/// The largest angle, in degrees, between a direction and the decode of its
/// [`encode_normal`] code: the bound of the octahedral 8 + 8 encoding with
/// nearest rounding. A test searches the sphere densely and checks that this
/// holds and is within 0.02° of the worst it finds (0.952°).
pub const NORMAL_MAX_ERROR_DEGREES: f32 = 0.96;

/// A normal direction to 16 bits: octahedral x in the high byte, y in the low
/// byte, each rounded to the nearest code. The direction need not be unit
/// length (the projection divides by its L1 norm); one with no direction
/// (zero, or not finite) encodes as [`vat_model::DEGENERATE_NORMAL`], +Y.
///
/// ```
/// use glam::Vec3;
/// let n = Vec3::new(0.0, 0.6, 0.8);
/// let back = vat_bounds::decode_normal(vat_bounds::encode_normal(n));
/// assert!(back.angle_between(n).to_degrees() <= vat_bounds::NORMAL_MAX_ERROR_DEGREES);
/// ```
#[inline]
pub fn encode_normal(n: Vec3) -> u16 {
    encode_direction(Vec3A::from(n))
}

/// [`encode_normal`] of a `Vec3A`.
#[inline(always)]
pub fn encode_direction(n: Vec3A) -> u16 {
    let l1 = n.abs().element_sum();
    if !(l1 > 0.0 && l1 < f32::INFINITY) {
        return encode_direction(Vec3A::from(vat_model::DEGENERATE_NORMAL));
    }
    // One reciprocal for both: x and y may land an ulp past ±1, which still
    // rounds to code 255 or 0.
    let inverse = 1.0 / l1;
    let (x, y) = (n.x * inverse, n.y * inverse);
    // The lower half folds over the diagonals; selects, not branches, as the sign
    // of z is as good as random from one point to the next.
    let lower = n.z < 0.0;
    let x_code = if lower { (1.0 - y.abs()).copysign(x) } else { x };
    let y_code = if lower { (1.0 - x.abs()).copysign(y) } else { y };
    // [-1, 1] to [0, 255], rounded to the nearest code.
    let code = |v: f32| low_bits((v * 127.5 + 127.5) + ROUNDING_BIAS).min(255);
    (code(x_code) << 8) | code(y_code)
}

/// [`encode_direction`] of four directions at once, lane by lane with the same
/// operations in the same order, so the codes are the same bits; a group with a
/// direction that has none (zero, or not finite) goes through the one-at-a-time path.
#[inline(always)]
fn encode_directions4(n: &[Vec3A; 4]) -> [u16; 4] {
    let x = Vec4::new(n[0].x, n[1].x, n[2].x, n[3].x);
    let y = Vec4::new(n[0].y, n[1].y, n[2].y, n[3].y);
    let z = Vec4::new(n[0].z, n[1].z, n[2].z, n[3].z);
    let l1 = (x.abs() + y.abs()) + z.abs();
    if !(l1.cmpgt(Vec4::ZERO) & l1.cmplt(Vec4::INFINITY)).all() {
        return n.map(encode_direction);
    }
    let inverse = Vec4::ONE / l1;
    let (x, y) = (x * inverse, y * inverse);
    let lower = z.cmplt(Vec4::ZERO);
    let x_code = Vec4::select(lower, (Vec4::ONE - y.abs()).copysign(x), x);
    let y_code = Vec4::select(lower, (Vec4::ONE - x.abs()).copysign(y), y);
    let code = |v: Vec4| ((v * 127.5 + Vec4::splat(127.5)) + Vec4::splat(ROUNDING_BIAS)).to_array().map(low_bits);
    let (x_code, y_code) = (code(x_code), code(y_code));
    std::array::from_fn(|i| (x_code[i].min(255) << 8) | y_code[i].min(255))
}

/// The decode a shader applies to the alpha channel.
pub fn decode_normal(code: u16) -> Vec3 {
    oct_unproject(Vec2::new(byte_to_unit(code >> 8), byte_to_unit(code & 0xFF)))
}

/// Encodes one run of texels: RGB the position against the quantizer's box, A
/// the normal direction. `texels` holds four values per position.
///
/// # Panics
/// If the three slices disagree on the count.
#[inline]
pub fn encode_texels(quantizer: &Quantizer, positions: &[Vec3A], normals: &[Vec3A], texels: &mut [u16]) {
    assert_eq!(positions.len(), normals.len(), "positions and normals disagree on the count");
    assert_eq!(texels.len(), positions.len() * 4, "texels and positions disagree on the count");
    let quads = positions.len() / 4;
    let (texel_quads, texel_rest) = texels.split_at_mut(quads * 16);
    for ((texels, positions), normals) in
        texel_quads.chunks_exact_mut(16).zip(positions.chunks_exact(4)).zip(normals.chunks_exact(4))
    {
        let codes = encode_directions4(normals.try_into().expect("four normals"));
        let rgbs = quantizer.encode4(positions.try_into().expect("four positions"));
        for ((texel, [r, g, b]), code) in texels.chunks_exact_mut(4).zip(rgbs).zip(codes) {
            texel.copy_from_slice(&[r, g, b, code]);
        }
    }
    let rest = quads * 4..positions.len();
    for ((texel, &position), &normal) in
        texel_rest.chunks_exact_mut(4).zip(&positions[rest.clone()]).zip(&normals[rest])
    {
        let [r, g, b] = quantizer.encode(position);
        texel.copy_from_slice(&[r, g, b, encode_direction(normal)]);
    }
}

/// Packs clips (stacked in order, rows as the layout counts them) into RGBA16
/// texels: RGB the position, A the normal. Texels past the last point stay zero.
/// Image rows are packed in parallel; every texel depends only on its own point
/// and row, so the bytes are the same at any thread count.
///
/// The bake does not go through [`Frames`]; it evaluates rows straight into
/// texels with [`encode_texels`]. This is the same encoding for callers that
/// hold frames.
///
/// ```
/// use glam::Vec3;
/// use vat_model::{Frames, Layout};
///
/// // Two points on one row, at the two corners of their box.
/// let mut frames = Frames::new(2, 1);
/// frames.positions = vec![Vec3::ZERO, Vec3::ONE];
/// frames.normals = vec![Vec3::Y, Vec3::Y];
/// let bounds = vat_bounds::Bounds::of_frames([&frames]);
/// let layout = Layout::new(2, 1, 4096);
/// let texels = vat_bounds::pack(&layout, &bounds, &[frames]);
/// assert_eq!(texels.len(), layout.texels() * 4);
/// assert_eq!((&texels[0..3], &texels[4..7]), (&[0, 0, 0][..], &[65535, 65535, 65535][..]));
/// ```
pub fn pack(layout: &Layout, bounds: &Bounds, clips: &[Frames]) -> Vec<u16> {
    let mut texels = vec![0u16; layout.width * layout.height * 4];
    // (clip, local row) of every global row.
    let rows: Vec<(usize, usize)> =
        clips.iter().enumerate().flat_map(|(c, frames)| (0..frames.rows).map(move |r| (c, r))).collect();
    assert_eq!(rows.len(), layout.rows, "frames and layout disagree on the row count");
    assert!(clips.iter().all(|f| f.points == layout.points), "frames and layout disagree on the point count");
    let quantizer = Quantizer::new(bounds);
    texels.par_chunks_mut(layout.width * 4).enumerate().for_each_init(
        || (Vec::with_capacity(layout.width), Vec::with_capacity(layout.width)),
        |(positions, normals): &mut (Vec<Vec3A>, Vec<Vec3A>), (y, line)| {
            let (band, global_row) = layout.band_and_row(y);
            let points = layout.band_points(band);
            let (clip, row) = rows[global_row];
            positions.clear();
            positions.extend(clips[clip].row_positions(row)[points.clone()].iter().map(|&p| Vec3A::from(p)));
            normals.clear();
            normals.extend(clips[clip].row_normals(row)[points.clone()].iter().map(|&n| Vec3A::from(n)));
            encode_texels(&quantizer, positions, normals, &mut line[..points.len() * 4]);
        },
    );
    texels
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn positions_round_trip_within_half_a_step() {
        let bounds = Bounds { center: Vec3::new(0.1, 0.9, -0.3), half_extent: Vec3::new(0.4, 0.9, 0.25) };
        let mut worst = Vec3::ZERO;
        for i in 0..=1000 {
            let t = i as f32 / 1000.0;
            let p = bounds.min() + (bounds.max() - bounds.min()) * Vec3::new(t, (t * 7.3).fract(), (t * 3.1).fract());
            let back = decode_position(encode_position(p, &bounds), &bounds);
            worst = worst.max((back - p).abs());
        }
        // Half a step, plus the f32 rounding of the decode itself (a few ulps of the coordinate).
        let half_step = bounds.step() * 0.5 + bounds.max().abs().max(bounds.min().abs()) * 4.0 * f32::EPSILON;
        assert!(worst.cmple(half_step).all(), "{worst} vs {half_step}");
        assert_eq!(encode_position(bounds.min(), &bounds), [0, 0, 0]);
        assert_eq!(encode_position(bounds.max(), &bounds), [65535, 65535, 65535]);
    }

    #[test]
    fn a_flat_axis_does_not_divide_by_zero() {
        let bounds = Bounds::from_points([Vec3::new(0.0, 1.0, 5.0), Vec3::new(2.0, 1.0, 5.0)]);
        assert_eq!(bounds.half_extent, Vec3::new(1.0, 0.0, 0.0));
        let texel = encode_position(Vec3::new(1.0, 1.0, 5.0), &bounds);
        assert_eq!(texel, [32768, 32768, 32768]);
        assert_eq!(decode_position(texel, &bounds), Vec3::new(1.0000153, 1.0, 5.0));
    }

    #[test]
    fn normals_round_trip_within_a_degree() {
        let mut worst: f32 = 0.0;
        for i in 0..2000 {
            // Fibonacci sphere: directions spread evenly, both hemispheres and the poles.
            let z = 1.0 - 2.0 * (i as f32 + 0.5) / 2000.0;
            let r = (1.0 - z * z).sqrt();
            let a = i as f32 * 2.399_963;
            let n = Vec3::new(r * a.cos(), r * a.sin(), z);
            worst = worst.max(decode_normal(encode_normal(n)).dot(n).clamp(-1.0, 1.0).acos().to_degrees());
        }
        assert!(worst < 1.0, "worst normal error {worst}°");
        for axis in [Vec3::X, Vec3::Y, Vec3::Z, -Vec3::X, -Vec3::Y, -Vec3::Z] {
            assert!(decode_normal(encode_normal(axis)).dot(axis) > 0.9999, "{axis}");
        }
    }

    /// The worst angle over a dense Fibonacci sphere, refined around the worst sample.
    fn worst_normal_error(samples: usize) -> f32 {
        let angle = |n: Vec3| decode_normal(encode_normal(n)).dot(n.normalize()).clamp(-1.0, 1.0).acos().to_degrees();
        let mut worst = (0.0f32, Vec3::Z);
        for i in 0..samples {
            let z = 1.0 - 2.0 * (i as f32 + 0.5) / samples as f32;
            let r = (1.0 - z * z).max(0.0).sqrt();
            let a = i as f32 * 2.399_963;
            let n = Vec3::new(r * a.cos(), r * a.sin(), z);
            let e = angle(n);
            if e > worst.0 {
                worst = (e, n);
            }
        }
        // Local search: the true maximum sits at a cell corner near the worst sample.
        let mut step = 2e-3;
        for _ in 0..40 {
            for dx in [-1.0, 0.0, 1.0] {
                for dy in [-1.0, 0.0, 1.0] {
                    for dz in [-1.0, 0.0, 1.0] {
                        let n = (worst.1 + Vec3::new(dx, dy, dz) * step).normalize();
                        let e = angle(n);
                        if e > worst.0 {
                            worst = (e, n);
                        }
                    }
                }
            }
            step *= 0.8;
        }
        worst.0
    }

    #[test]
    fn the_normal_error_bound_holds_and_is_tight() {
        let worst = worst_normal_error(400_000);
        assert!(worst <= NORMAL_MAX_ERROR_DEGREES, "worst {worst}° over the bound");
        assert!(worst > NORMAL_MAX_ERROR_DEGREES - 0.02, "worst {worst}°: the bound is loose");
    }

    #[test]
    fn four_at_a_time_gives_the_same_codes_as_one_at_a_time() {
        // A spread of directions, unnormalised, both hemispheres, axes, signed zeros, and no direction.
        let mut state = 0x9E37_79B9_7F4A_7C15u64;
        let mut next = || {
            state = state.wrapping_mul(6_364_136_223_846_793_005).wrapping_add(1_442_695_040_888_963_407);
            ((state >> 40) as f32 / (1u64 << 24) as f32) * 2.0 - 1.0
        };
        let mut directions: Vec<Vec3A> = (0..40_000).map(|_| Vec3A::new(next(), next(), next()) * 3.0).collect();
        directions.extend([Vec3A::X, -Vec3A::X, Vec3A::Y, -Vec3A::Y, Vec3A::Z, -Vec3A::Z]);
        directions.extend([Vec3A::new(-0.0, 0.5, -0.5), Vec3A::new(0.5, -0.0, -0.5), Vec3A::new(0.0, 0.0, -0.0)]);
        directions.extend([Vec3A::ZERO, Vec3A::splat(f32::NAN), Vec3A::new(1e-30, -1e-30, 1e-30)]);
        let quantizer =
            Quantizer::new(&Bounds { center: Vec3::new(0.1, -0.2, 0.3), half_extent: Vec3::new(2.0, 0.0, 3.0) });
        for quad in directions.chunks_exact(4) {
            let quad: &[Vec3A; 4] = quad.try_into().unwrap();
            assert_eq!(encode_directions4(quad), quad.map(encode_direction), "{quad:?}");
            // As positions too: inside, outside (clamped) and on a flat axis.
            assert_eq!(quantizer.encode4(quad), quad.map(|p| quantizer.encode(p)), "{quad:?}");
        }
        // encode_texels takes both paths: 7 texels are a group of four and three more.
        let quantizer = Quantizer::new(&Bounds { center: Vec3::ZERO, half_extent: Vec3::splat(3.0) });
        let mut texels = [0u16; 28];
        encode_texels(&quantizer, &directions[..7], &directions[..7], &mut texels);
        for (i, texel) in texels.chunks_exact(4).enumerate() {
            let [r, g, b] = quantizer.encode(directions[i]);
            assert_eq!(texel, [r, g, b, encode_direction(directions[i])], "texel {i}");
        }
    }

    #[test]
    fn codes_worked_out_by_hand_from_the_documented_formula() {
        // Upper half: x, y as they are. 0 → 127.5 → 128 (halves round to even), 1 → 255.
        assert_eq!(encode_normal(Vec3::Z), 0x8080);
        assert_eq!(encode_normal(Vec3::X), 0xFF80);
        // Lower half, folded: (0, 0, −1) → x = y = 1 − 0 → 255, 255; with the zeros
        // negative (−Z negated) the signs fold the other way, to 0, 0: the same normal.
        assert_eq!(encode_normal(Vec3::new(0.0, 0.0, -1.0)), 0xFFFF);
        assert_eq!(encode_normal(-Vec3::Z), 0x0000);
        assert!(decode_normal(0xFFFF).abs_diff_eq(-Vec3::Z, 1e-6) && decode_normal(0x0000).abs_diff_eq(-Vec3::Z, 1e-6));
        // (−1, 0, −1): x, y = −½, 0 → x = −(1 − 0) → 0, y = +(1 − ½) → 191.25 → 191.
        assert_eq!(encode_normal(Vec3::new(-1.0, 0.0, -1.0)), 0x00BF);
    }

    #[test]
    fn normals_encode_as_directions() {
        let n = Vec3::new(0.3, -0.5, -0.81);
        assert_eq!(encode_normal(n), encode_normal(n * 7.5));
        for nothing in [Vec3::ZERO, Vec3::splat(f32::NAN), Vec3::new(f32::INFINITY, 0.0, 0.0)] {
            assert_eq!(encode_normal(nothing), encode_normal(Vec3::Y), "{nothing}");
        }
    }

    #[test]
    fn pack_places_points_by_the_layout() {
        let mut frames = Frames::new(3, 2);
        for (i, p) in frames.positions.iter_mut().enumerate() {
            *p = Vec3::splat(i as f32);
        }
        frames.normals.fill(Vec3::Y);
        let layout = Layout::new(3, 2, 2); // two bands: columns 0-1, then point 2
        let bounds = Bounds::of_frames([&frames]);
        let texels = pack(&layout, &bounds, std::slice::from_ref(&frames));
        assert_eq!(texels.len(), 2 * 4 * 4);
        // point 2, row 1 → band 1, column 0, image row 2 + 1 = 3; its value is 5 (the max).
        let at = (3 * 2) * 4;
        assert_eq!(&texels[at..at + 3], &[65535, 65535, 65535]);
        // point 0, row 0 is the min.
        assert_eq!(&texels[0..3], &[0, 0, 0]);
        // Every normal is +Y: octahedral (0, 1) is code x = 128, y = 255.
        assert!(texels.chunks_exact(4).take(2).all(|texel| texel[3] == (128 << 8) | 255));
    }

    #[test]
    fn a_grid_keeps_multiples_of_its_cell_within_half_a_cell() {
        let bounds = Bounds { center: Vec3::new(0.1, 0.9, -0.3), half_extent: Vec3::new(0.4, 0.9, 0.25) };
        let grid = Grid([16, 64, 1]);
        let on_grid = Quantizer::on_grid(&bounds, &grid);
        let mut worst = Vec3::ZERO;
        for i in 0..=5000 {
            let t = i as f32 / 5000.0;
            let p = bounds.min() + (bounds.max() - bounds.min()) * Vec3::new(t, (t * 7.3).fract(), (t * 3.1).fract());
            let code = on_grid.encode(Vec3A::from(p));
            for axis in 0..3 {
                let cell = grid.0[axis] as u16;
                assert!(code[axis].is_multiple_of(cell) || code[axis] == 65535, "{code:?} on {grid:?}");
            }
            worst = worst.max((decode_position(code, &bounds) - p).abs());
        }
        let half_cell =
            bounds.step() * grid.cell() * 0.5 + bounds.max().abs().max(bounds.min().abs()) * 4.0 * f32::EPSILON;
        assert!(worst.cmple(half_cell).all(), "{worst} vs {half_cell}");
        // Coarser than a step where the grid is: the worst error is well past half a step.
        assert!(worst.x > bounds.step().x * 4.0 && worst.y > bounds.step().y * 16.0, "{worst}");
        assert!(bounds.precision_on(&grid) >= worst.length() * 0.999);
        // The full grid is the plain quantizer.
        let p = Vec3A::new(0.3, 1.1, -0.2);
        assert_eq!(Quantizer::on_grid(&bounds, &Grid::FULL).encode(p), Quantizer::new(&bounds).encode(p));
        assert_eq!(bounds.precision_on(&Grid::FULL), bounds.precision());
    }

    #[test]
    fn the_grid_within_a_tolerance_is_the_coarsest_that_keeps_it() {
        // Steps of 2/65535 on x, 20/65535 on y, none on z (flat).
        let bounds = Bounds { center: Vec3::ZERO, half_extent: Vec3::new(1.0, 10.0, 0.0) };
        let tolerance = 0.001;
        let grid = Grid::within(&bounds, tolerance);
        assert_eq!(grid, Grid([32, 2, 1]));
        assert!(bounds.precision_on(&grid) <= tolerance);
        // One power of two more on x or y would break it.
        assert!(bounds.precision_on(&Grid([64, 2, 1])) > tolerance / 3f32.sqrt());
        assert!((bounds.step() * Vec3::new(32.0, 4.0, 1.0) * 0.5).y > tolerance / 3f32.sqrt());
        // Below a step: full precision; huge: capped at 2^15 steps.
        assert_eq!(Grid::within(&bounds, 1e-9), Grid::FULL);
        assert_eq!(Grid::within(&bounds, 1e9), Grid([32768, 32768, 1]));
        assert_eq!(Grid::of_bits(12), Grid([16; 3]));
        assert_eq!(Grid::of_bits(16), Grid::FULL);
    }
}
