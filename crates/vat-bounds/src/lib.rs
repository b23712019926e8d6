//! Bounds over every row of every clip, and the 16-bit encoding that uses them.
//!
//! Positions are stored as 16-bit UNORM about a centre and a half-size:
//! `p = (texel / 65535 · 2 − 1) · half_extent + center`. The bounds come from all
//! evaluated rows, never the rest pose alone, so a limb that swings outside the
//! resting box is not clipped. Normals are octahedral-encoded, 8 + 8 bits, packed
//! into the alpha channel (high byte x, low byte y).
//!
//! What it does not: decide where texels go (that is [`vat_model::Layout`]) or
//! write files (that is `vat-ktx2`).
//!
//! ```
//! use glam::Vec3;
//! use vat_bounds::{Bounds, decode_position, encode_position};
//! let bounds = Bounds::from_points([Vec3::new(-1.0, 0.0, 2.0), Vec3::new(1.0, 2.0, 2.0)]);
//! let texel = encode_position(Vec3::new(0.5, 1.0, 2.0), &bounds);
//! let back = decode_position(texel, &bounds);
//! assert!((back - Vec3::new(0.5, 1.0, 2.0)).abs().max_element() <= bounds.step().max_element() / 2.0);
//! ```

use glam::{Vec2, Vec3};
use rayon::prelude::*;
use vat_model::{Frames, Layout};

/// An axis-aligned box as centre and half-size (each half-size ≥ 0).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Bounds {
    pub center: Vec3,
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

    pub fn min(&self) -> Vec3 {
        self.center - self.half_extent
    }
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
}

/// A position to three 16-bit UNORM values. An axis with zero extent stores the
/// middle value, and decodes to the centre whatever is stored.
#[inline]
pub fn encode_position(p: Vec3, bounds: &Bounds) -> [u16; 3] {
    let axis = |v: f32, c: f32, h: f32| -> u16 {
        if h <= 0.0 {
            return 32768;
        }
        let unit = ((v - c) / h * 0.5 + 0.5).clamp(0.0, 1.0);
        // Adding ½ and truncating rounds (the value is ≥ 0) without a libm call.
        (unit * 65535.0 + 0.5) as u16
    };
    [
        axis(p.x, bounds.center.x, bounds.half_extent.x),
        axis(p.y, bounds.center.y, bounds.half_extent.y),
        axis(p.z, bounds.center.z, bounds.half_extent.z),
    ]
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

fn oct_project(n: Vec3) -> Vec2 {
    let p = Vec2::new(n.x, n.y) / (n.x.abs() + n.y.abs() + n.z.abs());
    if n.z >= 0.0 {
        p
    } else {
        (Vec2::ONE - Vec2::new(p.y.abs(), p.x.abs())) * sign_not_zero(p)
    }
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

/// A unit normal to 16 bits: octahedral x in the high byte, y in the low byte.
/// Of the four nearest codes, the one closest in angle is kept.
pub fn encode_normal(n: Vec3) -> u16 {
    encode_normal_with_cos(n).0
}

/// The code and the cosine of the angle between the normal and its decoded value.
fn encode_normal_with_cos(n: Vec3) -> (u16, f32) {
    let l1 = n.x.abs() + n.y.abs() + n.z.abs();
    if !(l1 > 0.0 && l1.is_finite()) {
        return encode_normal_with_cos(Vec3::Z);
    }
    // The octahedral projection divides by the L1 norm, so n need not be normalized.
    let p = (oct_project(n) * 0.5 + Vec2::splat(0.5)) * 255.0;
    // Nearest code: adding ½ and truncating rounds (p ≥ 0) without a libm call.
    let (x, y) = (((p.x + 0.5) as u16).min(255), ((p.y + 0.5) as u16).min(255));
    // The decode without its final normalize: the cosine divides by both lengths instead.
    let (ox, oy) = (byte_to_unit(x), byte_to_unit(y));
    let mut v = Vec3::new(ox, oy, 1.0 - ox.abs() - oy.abs());
    if v.z < 0.0 {
        v.x = (1.0 - oy.abs()) * if ox >= 0.0 { 1.0 } else { -1.0 };
        v.y = (1.0 - ox.abs()) * if oy >= 0.0 { 1.0 } else { -1.0 };
    }
    ((x << 8) | y, v.dot(n) / (v.length_squared() * n.length_squared()).sqrt())
}

/// The decode a shader applies to the alpha channel.
pub fn decode_normal(code: u16) -> Vec3 {
    oct_unproject(Vec2::new(byte_to_unit(code >> 8), byte_to_unit(code & 0xFF)))
}

/// What packing measured: the largest position error after the 16-bit round trip.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Quantization {
    pub max_position_error: f32,
    pub max_normal_error_degrees: f32,
}

/// Packs clips (stacked in order, rows as the layout counts them) into RGBA16
/// texels: RGB the position, A the normal. Texels past the last point stay zero.
/// Image rows are packed in parallel; every texel depends only on its own point
/// and row, so the bytes are the same at any thread count.
pub fn pack(layout: &Layout, bounds: &Bounds, clips: &[Frames]) -> (Vec<u16>, Quantization) {
    let mut texels = vec![0u16; layout.width * layout.height * 4];
    // (clip, local row) of every global row.
    let rows: Vec<(usize, usize)> =
        clips.iter().enumerate().flat_map(|(c, frames)| (0..frames.rows).map(move |r| (c, r))).collect();
    assert_eq!(rows.len(), layout.rows, "frames and layout disagree on the row count");
    assert!(clips.iter().all(|f| f.points == layout.points), "frames and layout disagree on the point count");
    let (max_err, min_cos) = texels
        .par_chunks_mut(layout.width * 4)
        .enumerate()
        .map(|(y, line)| {
            let band = y / layout.rows;
            let (clip, row) = rows[y % layout.rows];
            let first = band * layout.width;
            let count = layout.points.saturating_sub(first).min(layout.width);
            let positions = &clips[clip].row_positions(row)[first..first + count];
            let normals = &clips[clip].row_normals(row)[first..first + count];
            let mut max_err = 0.0f32;
            let mut min_cos = 1.0f32;
            for ((texel, &position), &normal) in line.chunks_exact_mut(4).zip(positions).zip(normals) {
                let rgb = encode_position(position, bounds);
                let (code, cos) = encode_normal_with_cos(normal);
                texel.copy_from_slice(&[rgb[0], rgb[1], rgb[2], code]);
                max_err = max_err.max((decode_position(rgb, bounds) - position).length());
                min_cos = min_cos.min(cos);
            }
            (max_err, min_cos)
        })
        .reduce(|| (0.0, 1.0), |a, b| (a.0.max(b.0), a.1.min(b.1)));
    let quantization = Quantization {
        max_position_error: max_err,
        max_normal_error_degrees: min_cos.clamp(-1.0, 1.0).acos().to_degrees(),
    };
    (texels, quantization)
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

    #[test]
    fn pack_places_points_by_the_layout() {
        let mut frames = Frames::new(3, 2);
        for (i, p) in frames.positions.iter_mut().enumerate() {
            *p = Vec3::splat(i as f32);
        }
        frames.normals.fill(Vec3::Y);
        let layout = Layout::new(3, 2, 2); // two bands: columns 0-1, then point 2
        let bounds = Bounds::of_frames([&frames]);
        let (texels, q) = pack(&layout, &bounds, std::slice::from_ref(&frames));
        assert_eq!(texels.len(), 2 * 4 * 4);
        // point 2, row 1 → band 1, column 0, image row 2 + 1 = 3; its value is 5 (the max).
        let at = (3 * 2) * 4;
        assert_eq!(&texels[at..at + 3], &[65535, 65535, 65535]);
        // point 0, row 0 is the min.
        assert_eq!(&texels[0..3], &[0, 0, 0]);
        assert!(q.max_position_error <= bounds.precision());
    }
}
