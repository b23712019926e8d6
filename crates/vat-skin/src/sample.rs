//! Keyframe sampling: a clip at a time to the local transform and morph weights of
//! every node (glTF 2.0 §3.11 and Appendix C).

use glam::{Mat4, Quat, Vec3, Vec4};
use vat_model::{Channel, Clip, Interpolation, Local, Model, Property};

/// The animated state of every node at one instant, indexed like `Model::nodes`.
#[derive(Clone, Debug, PartialEq)]
pub struct Pose {
    /// Local matrix of every node.
    pub locals: Vec<Mat4>,
    /// Morph weights of the mesh on every node (empty where the node has none).
    pub morph_weights: Vec<Vec<f32>>,
}

/// Local transforms of every node plus morph weights per node, at `time` seconds
/// into `clip` (`None` = rest pose).
///
/// Each channel overrides one property of one node; everything the clip does not
/// animate keeps its rest value from `Node::rest` and `Node::morph_weights`. When
/// several channels target the same property the last one wins. Channels on
/// matrix nodes, on missing nodes, or with too few values are ignored.
///
/// ```
/// use glam::Vec3;
/// use vat_model::{Channel, Clip, Interpolation, Local, Model, Node, Property, Trs};
///
/// let node = Node { name: None, parent: None, children: vec![], rest: Local::Trs(Trs::default()), morph_weights: vec![] };
/// let model = Model { nodes: vec![node], scene_roots: vec![0], ..Model::default() };
/// // The node rises from the origin to y = 2 over one second.
/// let rise = Channel {
///     node: 0,
///     property: Property::Translation,
///     interpolation: Interpolation::Linear,
///     times: vec![0.0, 1.0],
///     values: vec![0.0, 0.0, 0.0, 0.0, 2.0, 0.0],
/// };
/// let clip = Clip { name: None, source_index: 0, merged_from: vec![], file: None, channels: vec![rise] };
/// let pose = vat_skin::sample_pose(&model, Some(&clip), 0.5);
/// let world = vat_skin::world_matrices(&model, &pose);
/// assert_eq!(world[0].w_axis.truncate(), Vec3::new(0.0, 1.0, 0.0));
/// ```
pub fn sample_pose(model: &Model, clip: Option<&Clip>, time: f32) -> Pose {
    let mut locals: Vec<Local> = model.nodes.iter().map(|node| node.rest).collect();
    let mut morph_weights: Vec<Vec<f32>> = model.nodes.iter().map(|node| node.morph_weights.clone()).collect();
    let channels = clip.map_or(&[][..], |clip| clip.channels.as_slice());
    let mut value = Vec::new();
    for channel in channels {
        if channel.node >= locals.len() {
            continue;
        }
        sample_channel_into(channel, time, &mut value);
        if value.is_empty() {
            continue;
        }
        match (channel.property, &mut locals[channel.node]) {
            (Property::Weights, _) => morph_weights[channel.node].clone_from(&value),
            // glTF 2.0 §5.25: a node with a matrix is never the target of a TRS channel.
            (_, Local::Matrix(_)) => {}
            (Property::Translation, Local::Trs(trs)) => trs.translation = Vec3::from_slice(&value),
            (Property::Rotation, Local::Trs(trs)) => trs.rotation = Quat::from_slice(&value),
            (Property::Scale, Local::Trs(trs)) => trs.scale = Vec3::from_slice(&value),
        }
    }
    Pose { locals: locals.iter().map(Local::matrix).collect(), morph_weights }
}

/// The value of one channel at `time`: 3 floats (translation, scale), 4 (rotation,
/// x y z w, always normalised) or one per morph target (weights).
///
/// Times before the first key give the first key's value, times after the last
/// give the last key's value. Returns an empty vector for a channel without keys
/// or with fewer values than its keys need.
pub fn sample_channel(channel: &Channel, time: f32) -> Vec<f32> {
    let mut value = Vec::new();
    sample_channel_into(channel, time, &mut value);
    value
}

/// [`sample_channel`] into a reused buffer, so sampling a pose allocates once.
fn sample_channel_into(channel: &Channel, time: f32, value: &mut Vec<f32>) {
    value.clear();
    let times = &channel.times;
    let key_count = times.len();
    let cubic = channel.interpolation == Interpolation::CubicSpline;
    // A cubic key stores [in-tangent, value, out-tangent]; the others store the value.
    let slots_per_key = if cubic { 3 } else { 1 };
    let value_slot = if cubic { 1 } else { 0 };
    let width = match channel.property {
        Property::Translation | Property::Scale => 3,
        Property::Rotation => 4,
        Property::Weights if key_count == 0 => 0,
        Property::Weights => channel.values.len() / (key_count * slots_per_key),
    };
    if key_count == 0 || width == 0 || channel.values.len() < key_count * slots_per_key * width {
        return;
    }
    let slot = |key: usize, slot: usize| {
        let start = (key * slots_per_key + slot) * width;
        &channel.values[start..start + width]
    };

    let last = key_count - 1;
    if time.is_nan() || time <= times[0] {
        value.extend_from_slice(slot(0, value_slot));
    } else if time >= times[last] {
        value.extend_from_slice(slot(last, value_slot));
    } else {
        // The key at or before `time`; clamped so unsorted times cannot index out of range.
        let key = times.partition_point(|&key_time| key_time <= time).saturating_sub(1).min(last - 1);
        let next = key + 1;
        let span = times[next] - times[key];
        let s = if span > 0.0 { ((time - times[key]) / span).clamp(0.0, 1.0) } else { 0.0 };
        match channel.interpolation {
            Interpolation::Step => value.extend_from_slice(slot(key, value_slot)),
            Interpolation::Linear if channel.property == Property::Rotation => {
                let from = Quat::from_slice(slot(key, 0));
                let to = Quat::from_slice(slot(next, 0));
                value.extend_from_slice(&slerp_shortest(from, to, s).to_array());
            }
            Interpolation::Linear => {
                value.extend(slot(key, 0).iter().zip(slot(next, 0)).map(|(&a, &b)| a * (1.0 - s) + b * s))
            }
            Interpolation::CubicSpline => {
                let (s2, s3) = (s * s, s * s * s);
                let from_value = 2.0 * s3 - 3.0 * s2 + 1.0;
                let from_out_tangent = (s3 - 2.0 * s2 + s) * span;
                let to_value = -2.0 * s3 + 3.0 * s2;
                let to_in_tangent = (s3 - s2) * span;
                let (v_k, b_k) = (slot(key, 1), slot(key, 2));
                let (a_next, v_next) = (slot(next, 0), slot(next, 1));
                value.extend((0..width).map(|i| {
                    from_value * v_k[i] + from_out_tangent * b_k[i] + to_value * v_next[i] + to_in_tangent * a_next[i]
                }));
            }
        }
    }
    if channel.property == Property::Rotation {
        let unit = normalized_rotation(Vec4::from_slice(value));
        value.copy_from_slice(&unit.to_array());
    }
}

/// Spherical interpolation on the shorter arc, normalised.
///
/// Written out rather than `Quat::slerp` because glam's uses approximate acos/sin;
/// the weights are computed in f64 so nearly equal keys stay accurate, with `libm`'s
/// functions: the same bits natively and in WebAssembly (std's are the C library's).
fn slerp_shortest(from: Quat, to: Quat, s: f32) -> Quat {
    let (from, mut to) = (Vec4::from(from), Vec4::from(to));
    let mut cos_angle = f64::from(from.dot(to));
    if cos_angle < 0.0 {
        to = -to;
        cos_angle = -cos_angle;
    }
    let angle = libm::acos(cos_angle.min(1.0));
    let sin_angle = libm::sin(angle);
    let s = f64::from(s);
    let (from_weight, to_weight) = if sin_angle < 1e-6 {
        // The keys (nearly) coincide: a straight line is the arc.
        (1.0 - s, s)
    } else {
        (libm::sin((1.0 - s) * angle) / sin_angle, libm::sin(s * angle) / sin_angle)
    };
    normalized_rotation(from * from_weight as f32 + to * to_weight as f32)
}

/// A unit quaternion; a zero (invalid) one becomes the identity instead of NaN.
fn normalized_rotation(xyzw: Vec4) -> Quat {
    Quat::from_vec4(xyzw.normalize_or(Vec4::W))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::test_models::{trs_node, with_nodes};

    fn channel(property: Property, interpolation: Interpolation, times: &[f32], values: &[f32]) -> Channel {
        Channel { node: 0, property, interpolation, times: times.to_vec(), values: values.to_vec() }
    }

    /// Translation keys x = 0, 10, 20 at t = 0, 1, 2 (y and z follow x / 10 and -x).
    fn translation_keys(interpolation: Interpolation) -> Channel {
        let values = [0.0, 0.0, 0.0, 10.0, 1.0, -10.0, 20.0, 2.0, -20.0];
        channel(Property::Translation, interpolation, &[0.0, 1.0, 2.0], &values)
    }

    #[test]
    fn step_holds_the_key_at_or_before_the_time() {
        let keys = translation_keys(Interpolation::Step);
        assert_eq!(sample_channel(&keys, 0.5), [0.0, 0.0, 0.0]);
        assert_eq!(sample_channel(&keys, 1.0), [10.0, 1.0, -10.0]);
        assert_eq!(sample_channel(&keys, 1.999), [10.0, 1.0, -10.0]);
        assert_eq!(sample_channel(&keys, 2.0), [20.0, 2.0, -20.0]);
    }

    #[test]
    fn linear_interpolates_between_keys_and_hits_keys_exactly() {
        let keys = translation_keys(Interpolation::Linear);
        assert_eq!(sample_channel(&keys, 0.5), [5.0, 0.5, -5.0]);
        assert_eq!(sample_channel(&keys, 1.0), [10.0, 1.0, -10.0]);
        assert_eq!(sample_channel(&keys, 1.25), [12.5, 1.25, -12.5]);
    }

    #[test]
    fn times_outside_the_keys_clamp_to_the_end_keys() {
        for interpolation in [Interpolation::Step, Interpolation::Linear] {
            let keys = translation_keys(interpolation);
            assert_eq!(sample_channel(&keys, -3.0), [0.0, 0.0, 0.0]);
            assert_eq!(sample_channel(&keys, f32::NAN), [0.0, 0.0, 0.0]);
            assert_eq!(sample_channel(&keys, 7.0), [20.0, 2.0, -20.0]);
        }
    }

    #[test]
    fn cubic_spline_follows_the_hermite_basis() {
        // Two keys 2 s apart; per key [in-tangent, value, out-tangent], x only.
        // The first in-tangent and the last out-tangent must not matter: set them huge.
        #[rustfmt::skip]
        let values = [
            100.0, 0.0, 0.0,   0.0, 0.0, 0.0,   1.0, 0.0, 0.0,
            3.0, 0.0, 0.0,     2.0, 0.0, 0.0,   -100.0, 0.0, 0.0,
        ];
        let keys = channel(Property::Translation, Interpolation::CubicSpline, &[0.0, 2.0], &values);
        // s = 0.5: 0.5·0 + 0.125·2·1 + 0.5·2 − 0.125·2·3 = 0.5
        assert_eq!(sample_channel(&keys, 1.0), [0.5, 0.0, 0.0]);
        // s = 0.25: 0.84375·0 + 0.140625·2·1 + 0.15625·2 − 0.046875·2·3 = 0.3125
        assert_eq!(sample_channel(&keys, 0.5), [0.3125, 0.0, 0.0]);
        assert_eq!(sample_channel(&keys, 0.0), [0.0, 0.0, 0.0]);
        assert_eq!(sample_channel(&keys, 2.0), [2.0, 0.0, 0.0]);
        assert_eq!(sample_channel(&keys, -1.0), [0.0, 0.0, 0.0]);
        assert_eq!(sample_channel(&keys, 9.0), [2.0, 0.0, 0.0]);
    }

    #[test]
    fn cubic_spline_rotation_is_normalised() {
        let half = std::f32::consts::FRAC_1_SQRT_2;
        #[rustfmt::skip]
        let values = [
            0.0, 0.0, 0.0, 0.0,   0.0, 0.0, 0.0, 1.0,     0.0, 0.0, 0.0, 0.0,
            0.0, 0.0, 0.0, 0.0,   0.0, 0.0, half, half,   0.0, 0.0, 0.0, 0.0,
        ];
        let keys = channel(Property::Rotation, Interpolation::CubicSpline, &[0.0, 1.0], &values);
        let rotation = Vec4::from_slice(&sample_channel(&keys, 0.5));
        assert!((rotation.length() - 1.0).abs() < 1e-6, "{rotation}");
        // Keys 0° and 90° about z with zero tangents: a symmetric blend, so the
        // mid-point is 45°.
        let expected = Quat::from_rotation_z(45_f32.to_radians());
        assert!(Vec4::from(expected).abs_diff_eq(rotation, 1e-6), "{rotation}");
    }

    fn rotation_keys(from: Quat, to: Quat) -> Channel {
        let values: Vec<f32> = from.to_array().into_iter().chain(to.to_array()).collect();
        channel(Property::Rotation, Interpolation::Linear, &[0.0, 1.0], &values)
    }

    fn z_angle_degrees(rotation: &[f32]) -> f32 {
        let turned = Quat::from_slice(rotation) * Vec3::X;
        turned.y.atan2(turned.x).to_degrees()
    }

    #[test]
    fn linear_rotation_is_a_true_slerp() {
        let keys = rotation_keys(Quat::IDENTITY, Quat::from_rotation_z(90_f32.to_radians()));
        // A quarter of the way is 22.5°; a normalised lerp would give about 21.6°.
        assert!((z_angle_degrees(&sample_channel(&keys, 0.25)) - 22.5).abs() < 1e-4);
        assert!((z_angle_degrees(&sample_channel(&keys, 0.5)) - 45.0).abs() < 1e-4);
    }

    #[test]
    fn linear_rotation_takes_the_short_way_round() {
        // 10° and the negated quaternion of 30°: the same rotations, so half way is 20°,
        // not a trip through 180°.
        let keys =
            rotation_keys(Quat::from_rotation_z(10_f32.to_radians()), -Quat::from_rotation_z(30_f32.to_radians()));
        let rotation = sample_channel(&keys, 0.5);
        assert!((z_angle_degrees(&rotation) - 20.0).abs() < 1e-4);
        assert!((Vec4::from_slice(&rotation).length() - 1.0).abs() < 1e-6);
    }

    #[test]
    fn rotation_keys_are_normalised_even_for_step() {
        let keys = channel(Property::Rotation, Interpolation::Step, &[0.0], &[0.0, 0.0, 0.0, 2.0]);
        assert_eq!(sample_channel(&keys, 0.0), [0.0, 0.0, 0.0, 1.0]);
        let zero = channel(Property::Rotation, Interpolation::Step, &[0.0], &[0.0; 4]);
        assert_eq!(sample_channel(&zero, 0.0), [0.0, 0.0, 0.0, 1.0]);
    }

    #[test]
    fn weights_width_is_the_target_count() {
        let linear = channel(Property::Weights, Interpolation::Linear, &[0.0, 1.0], &[0.0, 1.0, 1.0, 0.0]);
        assert_eq!(sample_channel(&linear, 0.25), [0.25, 0.75]);
        // Cubic: 3 targets × 3 slots × 2 keys = 18 values; the middle slot is the value.
        #[rustfmt::skip]
        let values = [
            0.0, 0.0, 0.0,   0.2, 0.4, 0.6,   0.0, 0.0, 0.0,
            0.0, 0.0, 0.0,   1.0, 1.0, 1.0,   0.0, 0.0, 0.0,
        ];
        let cubic = channel(Property::Weights, Interpolation::CubicSpline, &[0.0, 1.0], &values);
        assert_eq!(sample_channel(&cubic, 0.0), [0.2, 0.4, 0.6]);
        assert_eq!(sample_channel(&cubic, 1.0), [1.0, 1.0, 1.0]);
        // Zero tangents at s = 0.5: the plain average of the two values.
        let mid = sample_channel(&cubic, 0.5);
        for (got, want) in mid.iter().zip([0.6, 0.7, 0.8]) {
            assert!((got - want).abs() < 1e-6, "{mid:?}");
        }
    }

    #[test]
    fn key_search_finds_the_interval_among_many_keys() {
        let times: Vec<f32> = (0..5000).map(|k| k as f32 * 0.01).collect();
        let values: Vec<f32> = (0..5000).flat_map(|k| [k as f32, 0.0, 0.0]).collect();
        let keys = channel(Property::Translation, Interpolation::Linear, &times, &values);
        let x = sample_channel(&keys, 31.235)[0];
        assert!((x - 3123.5).abs() < 0.01, "{x}");
    }

    #[test]
    fn channels_with_missing_values_are_ignored() {
        let empty = channel(Property::Translation, Interpolation::Linear, &[], &[]);
        assert!(sample_channel(&empty, 0.0).is_empty());
        let short = channel(Property::Translation, Interpolation::Linear, &[0.0, 1.0], &[1.0, 2.0, 3.0]);
        assert!(sample_channel(&short, 0.0).is_empty());
    }

    #[test]
    fn pose_overrides_only_animated_properties() {
        let mut node = trs_node(None, Vec3::new(1.0, 2.0, 3.0));
        node.morph_weights = vec![0.5, 0.5];
        let Local::Trs(mut rest) = node.rest else { unreachable!() };
        rest.scale = Vec3::splat(2.0);
        node.rest = Local::Trs(rest);
        let matrix_node =
            vat_model::Node { rest: Local::Matrix(Mat4::from_translation(Vec3::Z)), ..trs_node(None, Vec3::ZERO) };
        let model = with_nodes(vec![node, matrix_node]);
        let mut on_matrix_node = translation_keys(Interpolation::Linear);
        on_matrix_node.node = 1;
        let clip = Clip {
            name: None,
            source_index: 0,
            merged_from: Vec::new(),
            file: None,
            channels: vec![translation_keys(Interpolation::Linear), on_matrix_node],
        };

        let pose = sample_pose(&model, Some(&clip), 0.5);
        // Translation animated, scale kept from rest; the matrix node keeps its matrix.
        let expected =
            Mat4::from_scale_rotation_translation(Vec3::splat(2.0), Quat::IDENTITY, Vec3::new(5.0, 0.5, -5.0));
        assert_eq!(pose.locals[0], expected);
        assert_eq!(pose.locals[1], Mat4::from_translation(Vec3::Z));
        assert_eq!(pose.morph_weights[0], [0.5, 0.5]);

        let rest_pose = sample_pose(&model, None, 0.5);
        let rest_matrix =
            Mat4::from_scale_rotation_translation(Vec3::splat(2.0), Quat::IDENTITY, Vec3::new(1.0, 2.0, 3.0));
        assert_eq!(rest_pose.locals[0], rest_matrix);
    }

    #[test]
    fn pose_takes_morph_weights_from_a_weights_channel() {
        let mut node = trs_node(None, Vec3::ZERO);
        node.morph_weights = vec![0.0, 0.0];
        let model = with_nodes(vec![node]);
        let weights = channel(Property::Weights, Interpolation::Linear, &[0.0, 2.0], &[0.0, 1.0, 1.0, 0.0]);
        let clip = Clip { name: None, source_index: 0, merged_from: Vec::new(), file: None, channels: vec![weights] };
        assert_eq!(sample_pose(&model, Some(&clip), 0.5).morph_weights[0], [0.25, 0.75]);
        assert_eq!(sample_pose(&model, None, 0.5).morph_weights[0], [0.0, 0.0]);
    }
}
