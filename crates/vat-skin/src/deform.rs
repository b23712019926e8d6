//! Morphing and skinning: a pose applied to every point of a model.

use glam::Vec3;
use vat_model::Model;

use crate::{sample_pose, world_matrices, Pose, Rig};

/// Positions and normals of every point of the model for one pose, written into
/// `positions` and `normals` (one entry per point of `model.points`).
///
/// The evaluation of [`Rig::evaluate`] (morph targets, then skinning with up to
/// eight influences or the part node's world matrix; normals through the
/// inverse transpose), with normals normalised; see [`DEGENERATE_NORMAL`](vat_model::DEGENERATE_NORMAL).
/// Influences naming a joint the skin does not have are skipped. Points that
/// belong to no part are left untouched.
///
/// For many poses of one model, make the [`Rig`] once and use it directly.
///
/// # Panics
/// If `positions` or `normals` is not `model.points.len()` long, if a vector of
/// `model.points` is shorter than the parts' ranges, or if the pose does not
/// cover every node.
pub fn evaluate_pose(model: &Model, pose: &Pose, positions: &mut [Vec3], normals: &mut [Vec3]) {
    let rig = Rig::new(model);
    rig.evaluate_normalized(&rig.row_pose(pose), positions, normals);
}

/// Bind-pose positions as a viewer that ignores skins would show them: every
/// part's raw positions through its node's rest world matrix, no morph targets.
/// The decimation clusters in this space, so that one grid cell has one size in
/// the world across parts under differently scaled nodes.
pub fn bind_pose_positions(model: &Model) -> Vec<Vec3> {
    let worlds = world_matrices(model, &sample_pose(model, None, 0.0));
    let mut positions = model.points.positions.clone();
    for part in &model.parts {
        let world = worlds[part.node];
        for position in &mut positions[part.points()] {
            *position = world.transform_point3(*position);
        }
    }
    positions
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::test_models::{part, skinned_point_model, trs_node, with_nodes};
    use glam::{Mat4, Quat};
    use vat_model::{Local, Points, Trs, DEGENERATE_NORMAL, MAX_INFLUENCES};

    fn evaluate(model: &Model) -> (Vec<Vec3>, Vec<Vec3>) {
        let pose = sample_pose(model, None, 0.0);
        let mut positions = vec![Vec3::ZERO; model.points.len()];
        let mut normals = vec![Vec3::ZERO; model.points.len()];
        evaluate_pose(model, &pose, &mut positions, &mut normals);
        (positions, normals)
    }

    fn assert_close(got: Vec3, want: Vec3) {
        assert!(got.abs_diff_eq(want, 1e-5), "got {got}, want {want}");
    }

    fn set_scale(model: &mut Model, node: usize, scale: Vec3) {
        let Local::Trs(trs) = &mut model.nodes[node].rest else { unreachable!() };
        trs.scale = scale;
    }

    /// One unskinned part on node 0 with the given points and normals.
    fn rigid_model(rest: Trs, positions: Vec<Vec3>, normals: Vec<Vec3>) -> Model {
        let mut model = with_nodes(vec![trs_node(None, Vec3::ZERO)]);
        model.nodes[0].rest = Local::Trs(rest);
        let count = positions.len();
        model.points = Points {
            uv0: vec![glam::Vec2::ZERO; count],
            joints: vec![[0; MAX_INFLUENCES]; count],
            weights: vec![[0.0; MAX_INFLUENCES]; count],
            positions,
            normals,
        };
        model.parts = vec![part(0, None, count)];
        model
    }

    #[test]
    fn joint_matrices_carry_the_parent_joints_scale() {
        // Joint 0 (node 1) scales by 2; joint 1 (node 2) sits 1 up from it. The
        // point is bound fully to joint 1, whose inverse bind undoes the 1 up.
        let mut model = skinned_point_model(
            vec![trs_node(None, Vec3::ZERO), trs_node(None, Vec3::ZERO), trs_node(Some(1), Vec3::Y)],
            vec![1, 2],
            vec![Mat4::IDENTITY, Mat4::from_translation(-Vec3::Y)],
            &[(Vec3::new(1.0, 1.0, 0.0), [1, 0, 0, 0, 0, 0, 0, 0], [1.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0])],
        );
        set_scale(&mut model, 1, Vec3::splat(2.0));
        let (positions, _) = evaluate(&model);
        // inverse bind → (1, 0, 0); joint 1 local → (1, 1, 0); joint 0 scale → (2, 2, 0).
        assert_close(positions[0], Vec3::new(2.0, 2.0, 0.0));
    }

    #[test]
    fn half_and_half_weights_average_the_joint_transforms() {
        let model = skinned_point_model(
            vec![
                trs_node(None, Vec3::ZERO),
                trs_node(None, Vec3::new(2.0, 0.0, 0.0)),
                trs_node(None, Vec3::new(0.0, 4.0, 0.0)),
            ],
            vec![1, 2],
            vec![Mat4::IDENTITY; 2],
            &[(Vec3::ONE, [0, 1, 0, 0, 0, 0, 0, 0], [0.5, 0.5, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0])],
        );
        let (positions, normals) = evaluate(&model);
        assert_close(positions[0], Vec3::new(2.0, 3.0, 1.0));
        assert_close(normals[0], Vec3::Z);
    }

    #[test]
    fn all_eight_influences_count() {
        // Slots 0–3 (JOINTS_0) name joints that stay put, slots 4–7 (JOINTS_1) name
        // joints moved 8 along x; an eighth of the weight each gives +4.
        let mut nodes = vec![trs_node(None, Vec3::ZERO)];
        nodes.extend((0..8).map(|joint| trs_node(None, Vec3::new(if joint < 4 { 0.0 } else { 8.0 }, 0.0, 0.0))));
        let model = skinned_point_model(
            nodes,
            (1..9).collect(),
            vec![Mat4::IDENTITY; 8],
            &[(Vec3::new(1.0, 2.0, 3.0), [0, 1, 2, 3, 4, 5, 6, 7], [0.125; 8])],
        );
        let (positions, _) = evaluate(&model);
        assert_close(positions[0], Vec3::new(5.0, 2.0, 3.0));
    }

    #[test]
    fn morph_targets_apply_before_skinning() {
        let mut model = skinned_point_model(
            vec![trs_node(None, Vec3::ZERO), trs_node(None, Vec3::ZERO)],
            vec![1],
            vec![Mat4::IDENTITY],
            &[(Vec3::X, [0; 8], [1.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0])],
        );
        set_scale(&mut model, 1, Vec3::splat(2.0));
        model.parts[0].morph_targets =
            vec![vat_model::MorphTarget { positions: vec![Vec3::X], normals: vec![Vec3::new(1.0, -1.0, 0.0)] }];
        model.nodes[0].morph_weights = vec![0.5];
        let (positions, normals) = evaluate(&model);
        // (1 + 0.5) · 2 = 3; skinning first and morphing after would give 2.5.
        assert_close(positions[0], Vec3::new(3.0, 0.0, 0.0));
        // The morphed normal (0, 0, 1) + 0.5 · (1, −1, 0), normalised.
        assert_close(normals[0], Vec3::new(0.5, -0.5, 1.0).normalize());
        // In bind space, before the joint: 1 + 0.5 · 1, the same normal.
        let rig = Rig::new(&model);
        let (positions, morphed_normals) = rig.morphed(&rig.pose(None, 0.0));
        assert_eq!(positions, [Vec3::new(1.5, 0.0, 0.0)]);
        assert_eq!(morphed_normals, normals);
    }

    #[test]
    fn skinned_parts_ignore_their_own_node_transform() {
        let mut model = skinned_point_model(
            vec![trs_node(None, Vec3::new(50.0, 0.0, 0.0)), trs_node(None, Vec3::Y)],
            vec![1],
            vec![Mat4::IDENTITY],
            &[(Vec3::ZERO, [0; 8], [1.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0])],
        );
        let (positions, _) = evaluate(&model);
        assert_close(positions[0], Vec3::Y);
        // Without any weight the point falls back to the part node.
        model.points.weights[0] = [0.0; 8];
        let (positions, _) = evaluate(&model);
        assert_close(positions[0], Vec3::new(50.0, 0.0, 0.0));
    }

    #[test]
    fn normals_use_the_inverse_transpose_under_non_uniform_scale() {
        let rest = Trs { scale: Vec3::new(2.0, 1.0, 1.0), ..Trs::default() };
        let diagonal = Vec3::new(1.0, 1.0, 0.0).normalize();
        let model = rigid_model(rest, vec![Vec3::new(1.0, 1.0, 0.0)], vec![diagonal]);
        let (positions, normals) = evaluate(&model);
        assert_close(positions[0], Vec3::new(2.0, 1.0, 0.0));
        // diag(1/2, 1, 1) · (1, 1, 0) = (0.5, 1, 0) → (0.4472136, 0.8944272, 0).
        assert_close(normals[0], Vec3::new(0.447_213_6, 0.894_427_2, 0.0));

        // The same through a skin: a joint scaled (2, 1, 1).
        let mut skinned = skinned_point_model(
            vec![trs_node(None, Vec3::ZERO), trs_node(None, Vec3::ZERO)],
            vec![1],
            vec![Mat4::IDENTITY],
            &[(Vec3::new(1.0, 1.0, 0.0), [0; 8], [1.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0])],
        );
        set_scale(&mut skinned, 1, Vec3::new(2.0, 1.0, 1.0));
        skinned.points.normals[0] = diagonal;
        let (_, normals) = evaluate(&skinned);
        assert_close(normals[0], Vec3::new(0.447_213_6, 0.894_427_2, 0.0));
    }

    #[test]
    fn mirrored_parts_keep_outward_normals() {
        let rest = Trs { scale: Vec3::new(-1.0, 1.0, 1.0), ..Trs::default() };
        let model = rigid_model(rest, vec![Vec3::new(1.0, 2.0, 3.0)], vec![Vec3::X]);
        let (positions, normals) = evaluate(&model);
        assert_close(positions[0], Vec3::new(-1.0, 2.0, 3.0));
        assert_close(normals[0], -Vec3::X);
    }

    #[test]
    fn rotated_parts_rotate_their_normals() {
        let rest = Trs { rotation: Quat::from_rotation_z(90_f32.to_radians()), translation: Vec3::Z, ..Trs::default() };
        let model = rigid_model(rest, vec![Vec3::X], vec![Vec3::X]);
        let (positions, normals) = evaluate(&model);
        assert_close(positions[0], Vec3::new(0.0, 1.0, 1.0));
        assert_close(normals[0], Vec3::Y);
    }

    #[test]
    fn degenerate_normals_become_plus_y() {
        let flattened = Trs { scale: Vec3::new(0.0, 1.0, 1.0), ..Trs::default() };
        let model = rigid_model(flattened, vec![Vec3::ONE, Vec3::ONE, Vec3::ONE], vec![Vec3::Z, Vec3::X, Vec3::ZERO]);
        let (positions, normals) = evaluate(&model);
        assert_close(positions[0], Vec3::new(0.0, 1.0, 1.0));
        // Squashed flat along x, every surface faces ±x; a normal along z has nowhere to go.
        assert_eq!(normals, [DEGENERATE_NORMAL, Vec3::X, DEGENERATE_NORMAL]);
    }

    #[test]
    fn out_of_range_joints_are_skipped() {
        let model = skinned_point_model(
            vec![trs_node(None, Vec3::ZERO), trs_node(None, Vec3::X)],
            vec![1],
            vec![Mat4::IDENTITY],
            &[(Vec3::ZERO, [0, 9, 0, 0, 0, 0, 0, 0], [0.5, 0.5, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0])],
        );
        let (positions, _) = evaluate(&model);
        assert_close(positions[0], Vec3::new(0.5, 0.0, 0.0));
    }

    #[test]
    fn bind_pose_applies_the_part_node_whether_skinned_or_not() {
        let mut model = skinned_point_model(
            vec![trs_node(None, Vec3::new(0.0, 0.0, 7.0)), trs_node(None, Vec3::X)],
            vec![1],
            vec![Mat4::IDENTITY],
            &[(Vec3::ONE, [0; 8], [1.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0])],
        );
        assert_eq!(bind_pose_positions(&model), [Vec3::new(1.0, 1.0, 8.0)]);
        model.parts[0].skin = None;
        assert_eq!(bind_pose_positions(&model), [Vec3::new(1.0, 1.0, 8.0)]);
    }
}
