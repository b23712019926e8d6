//! A model prepared for evaluating many poses: each point's influences are
//! sorted out once, each row's matrices are computed once, and the per-point
//! work is a tight loop over a range of points that can run on any thread.

use std::ops::Range;

use glam::{Mat3A, Mat4, Vec3, Vec3A};
use vat_model::{Clip, Model, Part, DEGENERATE_NORMAL, MAX_INFLUENCES};

use crate::{sample_pose, world_matrices, Pose};

/// A model ready for evaluation: every point's live influences (weight ≠ 0,
/// joint inside its skin), in source order so blends sum in the same order as
/// the source lists them. Slots past a point's live influences hold joint 0
/// with weight 0.
pub struct Rig<'m> {
    model: &'m Model,
    /// Live influences of each point: the first `counts[i]` entries of
    /// `joints[i]` and `weights[i]`. Zero for unskinned points and for skinned
    /// points without weight, which follow their part's node.
    counts: Vec<u8>,
    joints: Vec<[u16; MAX_INFLUENCES]>,
    weights: Vec<[f32; MAX_INFLUENCES]>,
    /// The part of each point; `u32::MAX` for points of no part.
    part_of: Vec<u32>,
}

/// The transforms of one pose, as the per-point loop needs them.
#[derive(Clone, Debug, PartialEq)]
pub struct RowPose {
    /// Per skin: `world(joint) · inverse_bind` of each joint.
    joint_matrices: Vec<Vec<Mat4>>,
    /// Per part: its node's world matrix and the matrix its normals take.
    part_transforms: Vec<(Mat4, Mat3A)>,
    /// Morph weights of every node.
    morph_weights: Vec<Vec<f32>>,
}

impl RowPose {
    /// Moves the whole pose by `m` (applied after every world transform): how a
    /// bake takes root motion out of a row.
    pub fn premultiply(&mut self, m: Mat4) {
        for matrix in self.joint_matrices.iter_mut().flatten() {
            *matrix = m * *matrix;
        }
        for (matrix, normals) in &mut self.part_transforms {
            *matrix = m * *matrix;
            *normals = normal_matrix(matrix);
        }
    }

    /// `world(joint) · inverse_bind` of every joint of skin `skin`, in the skin's
    /// joint order (glTF 2.0 §3.7.3.3: the skinned mesh node's transform is not in it).
    pub fn joint_matrices(&self, skin: usize) -> &[Mat4] {
        self.joint_matrices.get(skin).map_or(&[], Vec::as_slice)
    }

    /// The world matrix of part `part`'s node: what its unskinned points take.
    pub fn part_matrix(&self, part: usize) -> Mat4 {
        self.part_transforms.get(part).map_or(Mat4::IDENTITY, |(matrix, _)| *matrix)
    }
}

impl<'m> Rig<'m> {
    /// Prepares `model` for evaluation: each skinned point's non-zero influences, gathered once.
    ///
    /// ```
    /// let model = vat_model::Model::default();
    /// let rig = vat_skin::Rig::new(&model);
    /// assert!(rig.model().points.is_empty());
    /// ```
    pub fn new(model: &'m Model) -> Self {
        let point_count = model.points.len();
        let mut counts = vec![0u8; point_count];
        let mut joints = vec![[0u16; MAX_INFLUENCES]; point_count];
        let mut weights = vec![[0f32; MAX_INFLUENCES]; point_count];
        let mut part_of = vec![u32::MAX; point_count];
        for (index, part) in model.parts.iter().enumerate() {
            for i in part.points().filter(|&i| i < point_count) {
                part_of[i] = index as u32;
            }
        }
        for part in &model.parts {
            let Some(skin) = part.skin.and_then(|skin| model.skins.get(skin)) else { continue };
            for i in part.points() {
                let (Some(source_joints), Some(source_weights)) =
                    (model.points.joints.get(i), model.points.weights.get(i))
                else {
                    continue;
                };
                let live = source_joints
                    .iter()
                    .zip(source_weights)
                    .filter(|&(&joint, &weight)| weight != 0.0 && usize::from(joint) < skin.joints.len());
                for (slot, (&joint, &weight)) in live.enumerate() {
                    joints[i][slot] = joint;
                    weights[i][slot] = weight;
                    counts[i] = slot as u8 + 1;
                }
            }
        }
        Rig { model, counts, joints, weights, part_of }
    }

    /// The model the rig was prepared from.
    pub fn model(&self) -> &'m Model {
        self.model
    }

    /// Point `i`'s live influences (weight ≠ 0, joint inside its part's skin), in
    /// source order: joint indices into the skin and their weights, as the rig
    /// blends them. Empty for a point that follows its part's node.
    pub fn influences(&self, i: usize) -> (&[u16], &[f32]) {
        let count = usize::from(self.counts[i]);
        (&self.joints[i][..count], &self.weights[i][..count])
    }

    /// The transforms of `clip` (`None` = rest pose) at `time` seconds.
    pub fn pose(&self, clip: Option<&Clip>, time: f32) -> RowPose {
        self.row_pose(&sample_pose(self.model, clip, time))
    }

    /// The transforms of a sampled pose.
    pub fn row_pose(&self, pose: &Pose) -> RowPose {
        let model = self.model;
        let worlds = world_matrices(model, pose);
        let world = |node: usize| worlds.get(node).copied().unwrap_or(Mat4::IDENTITY);
        let joint_matrices = model
            .skins
            .iter()
            .map(|skin| {
                let inverse_bind = |joint: usize| skin.inverse_bind.get(joint).copied().unwrap_or(Mat4::IDENTITY);
                skin.joints.iter().enumerate().map(|(joint, &node)| world(node) * inverse_bind(joint)).collect()
            })
            .collect();
        let part_transforms = model
            .parts
            .iter()
            .map(|part| {
                let matrix = world(part.node);
                (matrix, normal_matrix(&matrix))
            })
            .collect();
        RowPose { joint_matrices, part_transforms, morph_weights: pose.morph_weights.clone() }
    }

    /// [`Rig::evaluate`] of every point into `Vec3`s, normals normalised
    /// ([`DEGENERATE_NORMAL`] where they have no direction): what a mesh stores.
    /// Points of no part are left as they are.
    ///
    /// # Panics
    /// If `positions` or `normals` is not `model.points.len()` long.
    pub fn evaluate_normalized(&self, pose: &RowPose, positions: &mut [Vec3], normals: &mut [Vec3]) {
        let count = self.model.points.len();
        assert_eq!((positions.len(), normals.len()), (count, count), "positions and normals slice lengths");
        let mut out_positions: Vec<Vec3A> = positions.iter().map(|&p| p.into()).collect();
        let mut out_normals: Vec<Vec3A> = normals.iter().map(|&n| n.into()).collect();
        self.evaluate(pose, 0..count, &mut out_positions, &mut out_normals);
        for part in &self.model.parts {
            for i in part.points() {
                positions[i] = out_positions[i].into();
                normals[i] = Vec3::from(out_normals[i]).normalize_or(DEGENERATE_NORMAL);
            }
        }
    }

    /// Every point after its part's morph targets at `pose`'s weights and before any
    /// transform: the bind-space mesh a player skins with the pose's matrices. Normals
    /// normalised ([`DEGENERATE_NORMAL`] where they have no direction); points of no part
    /// are left as the model has them.
    pub fn morphed(&self, pose: &RowPose) -> (Vec<Vec3>, Vec<Vec3>) {
        let mut positions = self.model.points.positions.clone();
        let mut normals = self.model.points.normals.clone();
        for (part_index, part) in self.model.parts.iter().enumerate() {
            let posed = self.part_pose(pose, part_index);
            for i in part.points() {
                let (mut position, mut normal) = (Vec3A::from(positions[i]), Vec3A::from(normals[i]));
                morph(&mut position, &mut normal, i - part.first_point, &posed.morphs, true);
                positions[i] = position.into();
                normals[i] = Vec3::from(normal).normalize_or(DEGENERATE_NORMAL);
            }
        }
        (positions, normals)
    }

    /// Positions of the points in `points` for one pose, into `positions`
    /// (`points.len()` long). Bit-identical to the positions [`Rig::evaluate`]
    /// gives: the bounds taken from these contain every evaluated point.
    pub fn positions(&self, pose: &RowPose, points: Range<usize>, positions: &mut [Vec3A]) {
        self.run::<false>(pose, points, positions, &mut []);
    }

    /// Positions and normal directions of the points in `points` for one pose.
    ///
    /// Per part: morph targets first (missing weights count as 0), then the
    /// transform. A skinned point blends its joint matrices by its weights and
    /// ignores its part node's transform (glTF 2.0 §3.7.3.3); a point without
    /// weight, and every point of an unskinned part, takes the part node's world
    /// matrix. Normals go through the inverse transpose of the 3×3 part (as its
    /// cofactor matrix, signed by the determinant) and are **not** normalised:
    /// callers normalise, or encode the direction as it is. Points of no part
    /// are left untouched.
    ///
    /// # Panics
    /// If `positions` or `normals` is not `points.len()` long, or `points` runs
    /// past the model's points.
    pub fn evaluate(&self, pose: &RowPose, points: Range<usize>, positions: &mut [Vec3A], normals: &mut [Vec3A]) {
        assert_eq!(normals.len(), points.len(), "normals slice length");
        self.run::<true>(pose, points, positions, normals);
    }

    /// [`Rig::evaluate`] of the points listed in `points`, in that order:
    /// `positions[k]` and `normals[k]` are point `points[k]`'s, bit for bit what
    /// [`Rig::evaluate`] gives it. Points of no part are left untouched.
    ///
    /// # Panics
    /// If `positions` or `normals` is not `points.len()` long, or a point is past
    /// the model's points.
    pub fn evaluate_points(&self, pose: &RowPose, points: &[u32], positions: &mut [Vec3A], normals: &mut [Vec3A]) {
        assert_eq!(
            (positions.len(), normals.len()),
            (points.len(), points.len()),
            "positions and normals slice lengths"
        );
        let parts: Vec<PartPose> = (0..self.model.parts.len()).map(|p| self.part_pose(pose, p)).collect();
        for (k, &i) in points.iter().enumerate() {
            let i = i as usize;
            let Some(part) = self.part_of.get(i).and_then(|&p| parts.get(p as usize)) else {
                assert!(i < self.model.points.len(), "point {i} past the model's points");
                continue;
            };
            (positions[k], normals[k]) = self.point::<true>(part, i);
        }
    }

    /// What the per-point loop needs of one part in one pose.
    fn part_pose<'p>(&'p self, pose: &'p RowPose, part_index: usize) -> PartPose<'p> {
        let part = &self.model.parts[part_index];
        let morph_weights = pose.morph_weights.get(part.node).map_or(&[][..], Vec::as_slice);
        let (node_matrix, node_normal) = &pose.part_transforms[part_index];
        PartPose {
            first_point: part.first_point,
            morphs: active_morphs(part, morph_weights),
            node_matrix,
            node_normal,
            joint_matrices: part.skin.and_then(|skin| pose.joint_matrices.get(skin)).map_or(&[][..], Vec::as_slice),
        }
    }

    /// Position and (with `NORMALS`, else zero) normal direction of point `i` of `part`.
    #[inline(always)]
    fn point<const NORMALS: bool>(&self, part: &PartPose, i: usize) -> (Vec3A, Vec3A) {
        let source = &self.model.points;
        let mut position = Vec3A::from(source.positions[i]);
        let mut normal = if NORMALS { Vec3A::from(source.normals[i]) } else { Vec3A::ZERO };
        if !part.morphs.is_empty() {
            morph(&mut position, &mut normal, i - part.first_point, &part.morphs, NORMALS);
        }
        let count = usize::from(self.counts[i]);
        if count == 0 {
            (part.node_matrix.transform_point3a(position), if NORMALS { *part.node_normal * normal } else { normal })
        } else {
            let matrix = blend(part.joint_matrices, &self.joints[i], &self.weights[i], count);
            (matrix.transform_point3a(position), if NORMALS { normal_matrix(&matrix) * normal } else { normal })
        }
    }

    fn run<const NORMALS: bool>(
        &self,
        pose: &RowPose,
        points: Range<usize>,
        positions: &mut [Vec3A],
        normals: &mut [Vec3A],
    ) {
        assert_eq!(positions.len(), points.len(), "positions slice length");
        assert!(points.end <= self.model.points.len(), "points {points:?} past the model's points");
        for (part_index, part) in self.model.parts.iter().enumerate() {
            let range = part.points();
            let (lo, hi) = (range.start.max(points.start), range.end.min(points.end));
            if lo >= hi {
                continue;
            }
            let part = self.part_pose(pose, part_index);
            for i in lo..hi {
                let out = i - points.start;
                let (position, normal) = self.point::<NORMALS>(&part, i);
                positions[out] = position;
                if NORMALS {
                    normals[out] = normal;
                }
            }
        }
    }
}

/// One part's share of a pose.
struct PartPose<'p> {
    first_point: usize,
    morphs: Vec<ActiveMorph<'p>>,
    node_matrix: &'p Mat4,
    node_normal: &'p Mat3A,
    joint_matrices: &'p [Mat4],
}

/// The weighted sum of a point's joint matrices, in influence order.
///
/// Up to four influences take one straight-line path that always sums four
/// (the unused slots hold joint 0 with weight 0, and adding `0 · M` changes no
/// sum): a loop whose length changes from point to point would cost a
/// mispredicted branch on most points.
#[inline(always)]
fn blend(
    joint_matrices: &[Mat4],
    joints: &[u16; MAX_INFLUENCES],
    weights: &[f32; MAX_INFLUENCES],
    count: usize,
) -> Mat4 {
    let term = |slot: usize| joint_matrices[usize::from(joints[slot])] * weights[slot];
    let mut blended = term(0) + term(1) + term(2) + term(3);
    if count > 4 {
        for slot in 4..count {
            blended += term(slot);
        }
    }
    blended
}

/// The inverse transpose of `m`'s 3×3 part, up to a positive scale (normals are
/// normalised or encoded as directions afterwards). The cofactor matrix is
/// `det · inverse transpose`: no division, so it stays finite when the
/// determinant is near zero; multiplying by the determinant's sign keeps
/// mirrored normals pointing the right way.
#[inline(always)]
pub(crate) fn normal_matrix(m: &Mat4) -> Mat3A {
    let (x, y, z) = (Vec3A::from_vec4(m.x_axis), Vec3A::from_vec4(m.y_axis), Vec3A::from_vec4(m.z_axis));
    let cofactor = Mat3A::from_cols(y.cross(z), z.cross(x), x.cross(y));
    if x.dot(cofactor.x_axis) < 0.0 {
        -cofactor
    } else {
        cofactor
    }
}

/// A morph target with a non-zero weight, with its normal deltas when it has them
/// for every point of the part.
struct ActiveMorph<'a> {
    weight: f32,
    positions: &'a [glam::Vec3],
    normals: Option<&'a [glam::Vec3]>,
}

fn active_morphs<'a>(part: &'a Part, weights: &[f32]) -> Vec<ActiveMorph<'a>> {
    part.morph_targets
        .iter()
        .zip(weights)
        .filter(|&(_, &weight)| weight != 0.0)
        .map(|(target, &weight)| ActiveMorph {
            weight,
            positions: if target.positions.len() == part.point_count { &target.positions } else { &[] },
            normals: (target.normals.len() == part.point_count).then_some(target.normals.as_slice()),
        })
        .collect()
}

/// Adds the part's `k`-th point's morph deltas, weighted.
fn morph(position: &mut Vec3A, normal: &mut Vec3A, k: usize, morphs: &[ActiveMorph], normals: bool) {
    for morph in morphs {
        if let Some(&delta) = morph.positions.get(k) {
            *position += Vec3A::from(delta) * morph.weight;
        }
        if normals {
            if let Some(&delta) = morph.normals.and_then(|deltas| deltas.get(k)) {
                *normal += Vec3A::from(delta) * morph.weight;
            }
        }
    }
}
