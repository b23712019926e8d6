//! The size check: does the evaluated rest pose have the size the file gives it?
//!
//! A skinned mesh has no size of its own in the world: the glTF spec ignores its
//! node's transform, and its joints place it. What a file does fix is the mesh's
//! size *relative to its skeleton*: in bind space (the raw positions beside the
//! joints' bind positions, where each inverse bind matrix puts its joint) and,
//! after evaluation, in the world (the posed points beside the joints' world
//! positions). A correct rig keeps that proportion whatever its parents do (a
//! Mixamo armature scaled 0.01, a rotated and scaled root, a mesh node with its
//! own transform). Skinning or dequantization going wrong, or inverse bind
//! matrices that scale the mesh against its joints, change it.

use std::collections::BTreeSet;

use glam::Vec3;
use vat_model::Model;

use crate::{sample_pose, world_matrices};

/// The skinned points' size against their skeleton after evaluation, over the
/// same proportion in bind space: 1 for a well-formed rig evaluated in its bind
/// pose, near 1 in any rest pose. `rest_positions` is the evaluated rest pose of
/// every point of `model`.
///
/// 1 when the model has no skinned points, or when the joints that move them sit
/// at one place (a single joint, or joints stacked on one spot), so that a
/// skeleton gives no scale to compare with.
///
/// ```
/// use glam::{Mat4, Vec3};
/// # use vat_model::{Local, Model, Node, Part, Points, Skin, Trs};
/// # let node = |parent: Option<usize>, scale: f32, y: f32| Node {
/// #     name: None, parent, children: vec![], morph_weights: vec![],
/// #     rest: Local::Trs(Trs { translation: Vec3::new(0.0, y, 0.0), scale: Vec3::splat(scale), ..Trs::default() }),
/// # };
/// // An armature scaled 0.01 over two joints 100 cm apart, the mesh in centimetres.
/// let mut nodes = vec![node(None, 0.01, 0.0), node(Some(0), 1.0, 0.0), node(Some(1), 1.0, 100.0)];
/// nodes[0].children = vec![1];
/// nodes[1].children = vec![2];
/// let inverse_bind = vec![Mat4::IDENTITY, Mat4::from_translation(Vec3::new(0.0, -100.0, 0.0))];
/// let positions = vec![Vec3::new(10.0, 0.0, 0.0), Vec3::new(10.0, 100.0, 0.0)];
/// # let part = Part { node: 0, mesh: 0, primitive: 0, material: None, skin: Some(0), first_point: 0,
/// #     point_count: 2, first_triangle: 0, triangle_count: 0, morph_targets: vec![] };
/// # let points = Points { positions: positions.clone(), normals: vec![Vec3::Z; 2], uv0: vec![glam::Vec2::ZERO; 2],
/// #     joints: vec![[0; 8], [1, 0, 0, 0, 0, 0, 0, 0]], weights: vec![[1.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0]; 2] };
/// # let model = Model { nodes, scene_roots: vec![0], parts: vec![part], points,
/// #     skins: vec![Skin { name: None, joints: vec![1, 2], inverse_bind, skeleton: None }], ..Model::default() };
/// // The posed mesh is in metres, 100 times smaller than its raw positions, and in proportion.
/// let rest = [Vec3::new(0.1, 0.0, 0.0), Vec3::new(0.1, 1.0, 0.0)];
/// assert!((vat_skin::skeleton_size_ratio(&model, &rest) - 1.0).abs() < 1e-5);
/// ```
pub fn skeleton_size_ratio(model: &Model, rest_positions: &[Vec3]) -> f32 {
    let mut posed_mesh = Vec::new();
    let mut bind_mesh = Vec::new();
    let mut used = BTreeSet::new();
    for part in &model.parts {
        let Some(skin) = part.skin.filter(|&s| s < model.skins.len()) else { continue };
        for i in part.points() {
            posed_mesh.push(rest_positions[i]);
            bind_mesh.push(model.points.positions[i]);
            let influences = model.points.joints[i].iter().zip(&model.points.weights[i]);
            used.extend(influences.filter(|&(_, &w)| w > 0.0).map(|(&joint, _)| (skin, usize::from(joint))));
        }
    }
    if posed_mesh.is_empty() {
        return 1.0;
    }
    let worlds = world_matrices(model, &sample_pose(model, None, 0.0));
    let mut posed_joints = Vec::with_capacity(used.len());
    let mut bind_joints = Vec::with_capacity(used.len());
    for (skin, joint) in used {
        let skin = &model.skins[skin];
        let (Some(&node), Some(inverse_bind)) = (skin.joints.get(joint), skin.inverse_bind.get(joint)) else {
            continue;
        };
        let bind = inverse_bind.inverse().w_axis;
        if bind.is_finite() && bind.w.abs() > f32::EPSILON {
            posed_joints.push(worlds[node].w_axis.truncate());
            bind_joints.push(bind.truncate() / bind.w);
        }
    }
    let (posed_skeleton, bind_skeleton) = (spread(&posed_joints), spread(&bind_joints));
    let (posed, bind) = (spread(&posed_mesh), spread(&bind_mesh));
    // Joints stacked on one spot (relative to the mesh they move) give no scale.
    const FLAT: f32 = 1e-4;
    if posed_skeleton <= FLAT * posed || bind_skeleton <= FLAT * bind || bind <= 0.0 {
        return 1.0;
    }
    (posed / posed_skeleton) / (bind / bind_skeleton)
}

/// Size of a point cloud as its root-mean-square distance from its centroid:
/// unlike a bounding-box height, it does not change when a rig's root turns
/// Z-up into Y-up.
pub fn spread(points: &[Vec3]) -> f32 {
    let n = points.len().max(1) as f32;
    let centroid = points.iter().copied().sum::<Vec3>() / n;
    (points.iter().map(|p| p.distance_squared(centroid)).sum::<f32>() / n).sqrt()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::test_models::{skinned_point_model, trs_node};
    use crate::Rig;
    use glam::{Mat4, Quat};
    use vat_model::{Local, Trs};

    fn rest(model: &Model) -> Vec<Vec3> {
        let rig = Rig::new(model);
        let mut positions = vec![Vec3::ZERO; model.points.len()];
        let mut normals = vec![Vec3::ZERO; model.points.len()];
        rig.evaluate_normalized(&rig.pose(None, 0.0), &mut positions, &mut normals);
        positions
    }

    /// A skinned mesh node (0) beside a root (1) over two joints (2, 3) one unit
    /// apart; four points, two on each joint.
    fn two_joint_model(root: Trs, inverse_bind_scale: f32) -> Model {
        let mut nodes = vec![trs_node(None, Vec3::ZERO), trs_node(None, Vec3::ZERO), trs_node(Some(1), Vec3::ZERO)];
        nodes.push(trs_node(Some(2), Vec3::Y));
        nodes[1].rest = Local::Trs(root);
        let one = [1.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0];
        let scale = Mat4::from_scale(Vec3::splat(inverse_bind_scale));
        skinned_point_model(
            nodes,
            vec![2, 3],
            vec![scale, scale * Mat4::from_translation(-Vec3::Y)],
            &[
                (Vec3::new(0.2, 0.0, 0.0), [0; 8], one),
                (Vec3::new(-0.2, 0.0, 0.0), [0; 8], one),
                (Vec3::new(0.2, 1.0, 0.0), [1, 0, 0, 0, 0, 0, 0, 0], one),
                (Vec3::new(-0.2, 1.0, 0.0), [1, 0, 0, 0, 0, 0, 0, 0], one),
            ],
        )
    }

    #[test]
    fn a_scaled_and_turned_root_keeps_the_proportion() {
        let root = Trs {
            translation: Vec3::new(3.0, 0.0, 1.0),
            rotation: Quat::from_rotation_x(1.2),
            scale: Vec3::splat(0.01),
        };
        let model = two_joint_model(root, 1.0);
        let ratio = skeleton_size_ratio(&model, &rest(&model));
        assert!((ratio - 1.0).abs() < 1e-4, "{ratio}");
    }

    #[test]
    fn inverse_bind_matrices_that_scale_the_mesh_show_their_factor() {
        // Each point moves 100× farther from its joint: x ±0.2 → ±20 around joints one unit apart.
        let model = two_joint_model(Trs::default(), 100.0);
        let ratio = skeleton_size_ratio(&model, &rest(&model));
        let want = (20.0f32 * 20.0 + 0.25).sqrt() / (0.2f32 * 0.2 + 0.25).sqrt();
        assert!((ratio / want - 1.0).abs() < 1e-4, "{ratio} vs {want}");
    }

    #[test]
    fn one_joint_gives_no_scale() {
        let mut model = two_joint_model(Trs::default(), 100.0);
        for joints in &mut model.points.joints {
            joints[0] = 0;
        }
        assert_eq!(skeleton_size_ratio(&model, &rest(&model)), 1.0);
    }
}
