//! The 16-bit form of a bone bake's matrices (`--bone-encoding quat16`): each matrix
//! as translation, one uniform scale and a unit quaternion, every value 16-bit
//! unsigned normalized over the bake's ranges, two RGBA16 texels a joint
//! (`vat_description::BONES_DECODE_QUAT16`): a quarter of the float texture's bytes.
//! The encoder, and the decoder the bake measures with and `verify` reads with, so
//! both see what a player sees.
//!
//! Owns the texel layout of the form and the test of whether a matrix fits it (a
//! rotation times a uniform scale); must not decide what a bake does with a rig that
//! does not fit (the bone pack falls back to floats).

use glam::{Mat3, Mat4, Quat, Vec3};

use crate::description::BoneQuantization;

/// Texels per joint: (translation, scale) and the quaternion.
pub(crate) const TEXELS_PER_JOINT: usize = 2;

/// How far a matrix's 3×3 part may be from its uniform scale times its rotation, as
/// a share of that scale, and still count as fitting the form: above any float
/// rounding of a product of rotations, far below a visible squash or shear.
pub(crate) const FIT_TOLERANCE: f32 = 1e-3;

/// The 3×3 part of `m` as (uniform scale, rotation): the scale is the cube root of
/// the determinant (negative for a mirror, whose rotation is then proper), the
/// rotation the quaternion of what is left, with w ≥ 0. A part with no volume gives
/// scale 0 and the identity.
pub(crate) fn scale_rotation(m: &Mat4) -> (f32, Quat) {
    let linear = Mat3::from_mat4(*m);
    let scale = linear.determinant().cbrt();
    if scale == 0.0 || !scale.is_finite() {
        return (0.0, Quat::IDENTITY);
    }
    let q = Quat::from_mat3(&(linear * (1.0 / scale))).normalize();
    (scale, if q.w < 0.0 { -q } else { q })
}

/// How far `m`'s 3×3 part is from its scale times its rotation, over the scale
/// (0: the form holds it exactly, before the 16-bit steps).
pub(crate) fn misfit(m: &Mat4) -> f32 {
    let (scale, rotation) = scale_rotation(m);
    let rebuilt = Mat3::from_quat(rotation) * scale;
    let linear = Mat3::from_mat4(*m);
    let worst = (0..3).map(|c| (linear.col(c) - rebuilt.col(c)).abs().max_element()).fold(0.0, f32::max);
    if scale == 0.0 {
        if worst == 0.0 {
            0.0
        } else {
            f32::INFINITY
        }
    } else {
        worst / scale.abs()
    }
}

/// The ranges every row's matrices span: translations per axis, scales.
pub(crate) fn ranges(rows: &[Vec<Mat4>]) -> BoneQuantization {
    let mut q = BoneQuantization {
        translation_min: [f32::INFINITY; 3],
        translation_max: [f32::NEG_INFINITY; 3],
        scale_min: f32::INFINITY,
        scale_max: f32::NEG_INFINITY,
    };
    for m in rows.iter().flatten() {
        let t = m.w_axis.truncate();
        q.translation_min = Vec3::from_array(q.translation_min).min(t).to_array();
        q.translation_max = Vec3::from_array(q.translation_max).max(t).to_array();
        let (scale, _) = scale_rotation(m);
        q.scale_min = q.scale_min.min(scale);
        q.scale_max = q.scale_max.max(scale);
    }
    if q.scale_min > q.scale_max {
        // No matrix: nothing to span.
        q = BoneQuantization { translation_min: [0.0; 3], translation_max: [0.0; 3], scale_min: 1.0, scale_max: 1.0 };
    }
    q
}

/// `v` as a 16-bit step of `lo..hi` (0 when the range is one value).
fn code(v: f32, lo: f32, hi: f32) -> u16 {
    if hi > lo {
        ((v - lo) / (hi - lo) * 65535.0).round().clamp(0.0, 65535.0) as u16
    } else {
        0
    }
}

/// The value of step `c` of `lo..hi`, as the shader computes it.
fn value(c: u16, lo: f32, hi: f32) -> f32 {
    lo + f32::from(c) / 65535.0 * (hi - lo)
}

/// Every row's matrices as RGBA16 texels (`rows.len()` rows of
/// [`TEXELS_PER_JOINT`] × joints texels), over `ranges`.
pub(crate) fn encode(rows: &[Vec<Mat4>], ranges: &BoneQuantization) -> Vec<u16> {
    let (lo, hi) = (ranges.translation_min, ranges.translation_max);
    rows.iter()
        .flatten()
        .flat_map(|m| {
            let t = m.w_axis.truncate().to_array();
            let (scale, q) = scale_rotation(m);
            let unit = |c: f32| ((c + 1.0) * 0.5 * 65535.0).round().clamp(0.0, 65535.0) as u16;
            [
                code(t[0], lo[0], hi[0]),
                code(t[1], lo[1], hi[1]),
                code(t[2], lo[2], hi[2]),
                code(scale, ranges.scale_min, ranges.scale_max),
                unit(q.x),
                unit(q.y),
                unit(q.z),
                unit(q.w),
            ]
        })
        .collect()
}

/// The matrices the texels decode to: `joints` a row, as a player rebuilds them.
pub(crate) fn decode(texels: &[u16], joints: usize, ranges: &BoneQuantization) -> Vec<Vec<Mat4>> {
    let (lo, hi) = (ranges.translation_min, ranges.translation_max);
    let per_row = joints * TEXELS_PER_JOINT * 4;
    if per_row == 0 {
        return Vec::new();
    }
    texels
        .chunks_exact(per_row)
        .map(|row| {
            row.chunks_exact(8)
                .map(|j| {
                    let t = Vec3::new(value(j[0], lo[0], hi[0]), value(j[1], lo[1], hi[1]), value(j[2], lo[2], hi[2]));
                    let scale = value(j[3], ranges.scale_min, ranges.scale_max);
                    let unit = |c: u16| f32::from(c) / 65535.0 * 2.0 - 1.0;
                    let q = Quat::from_xyzw(unit(j[4]), unit(j[5]), unit(j[6]), unit(j[7]));
                    let q = if q.length_squared() > 0.0 { q.normalize() } else { Quat::IDENTITY };
                    Mat4::from_scale_rotation_translation(Vec3::splat(scale), q, t)
                })
                .collect()
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_scaled_rotation_comes_back_within_the_steps_and_a_squash_does_not_fit() {
        let m = Mat4::from_scale_rotation_translation(
            Vec3::splat(0.01),
            Quat::from_euler(glam::EulerRot::XYZ, 0.3, -1.2, 2.9),
            Vec3::new(1.0, -2.0, 0.5),
        );
        let rows = vec![vec![m, Mat4::IDENTITY]];
        let ranges = ranges(&rows);
        assert_eq!((ranges.scale_min, ranges.scale_max), (0.01, 1.0));
        let texels = encode(&rows, &ranges);
        assert_eq!(texels.len(), 2 * TEXELS_PER_JOINT * 4);
        let back = decode(&texels, 2, &ranges);
        let p = Vec3::new(30.0, 40.0, -10.0);
        // A point 50 units out moves by its scale (0.01) times the quaternion's steps and
        // the translation's half step of a 3-unit range.
        let d = back[0][0].transform_point3(p).distance(m.transform_point3(p));
        assert!(d < 2e-5 * 50.0 * 0.01 + 3.0 / 65535.0, "{d}");
        assert!(back[0][1].abs_diff_eq(Mat4::IDENTITY, 1e-4), "{:?}", back[0][1]);
        assert!(misfit(&m) < 1e-6, "{}", misfit(&m));
        // A mirror keeps a proper rotation and a negative scale.
        let mirror = Mat4::from_scale(Vec3::splat(-2.0));
        assert_eq!(scale_rotation(&mirror).0, -2.0);
        assert!(misfit(&mirror) < 1e-6);
        let squash = Mat4::from_scale(Vec3::new(1.0, 0.5, 1.0));
        assert!(misfit(&squash) > 0.1, "{}", misfit(&squash));
        let shear =
            Mat4::from_cols_array(&[1.0, 0.0, 0.0, 0.0, 0.3, 1.0, 0.0, 0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 0.0, 1.0]);
        assert!(misfit(&shear) > 0.1, "{}", misfit(&shear));
    }
}
