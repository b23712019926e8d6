//! Animation sampling and skinning: a [`Model`], a clip and a time to the position
//! and normal of every point.
//!
//! What it does, following glTF 2.0 exactly:
//! - [`sample_pose`] samples a clip's channels (STEP, LINEAR with shortest-path
//!   slerp for rotations, CUBICSPLINE per Appendix C; clamped outside the keys)
//!   into a [`Pose`]: every node's local matrix and morph weights.
//! - [`world_matrices`] composes the hierarchy, whatever the node index order.
//! - [`evaluate_pose`] applies morph targets, then skinning (up to eight
//!   influences) or the part node's world matrix, to points and normals.
//! - [`Rig`] is the model prepared for many poses: [`Rig::pose`] computes a
//!   row's matrices once, [`Rig::positions`] and [`Rig::evaluate`] run the
//!   per-point loop over any range of points, so callers can split the work
//!   across threads and write results wherever they need them; [`Rig::morphed`]
//!   gives the bind-space mesh after morph targets alone, what a bone player skins.
//! - [`evaluate_clip`] evaluates many times at once, in parallel, into
//!   [`Frames`]; the result is bit-identical at any thread count.
//! - [`bind_pose_positions`] gives the positions a skin-unaware viewer would show (the
//!   decimation's grid); [`skeleton_size_ratio`] is the size check: the evaluated mesh
//!   against its skeleton, over the same in bind space.
//!
//! What it does not do: load files, decide which times to sample, resample or
//! loop clips, or quantize. It reads only `Model::nodes`, `scene_roots`, `skins`,
//! `parts` and `points`; triangles and materials are not its business.
//!
//! Dependencies: of this workspace, only `vat-model` (plus `glam` and `rayon`). It
//! must do no file I/O and must not depend on any other stage crate (`vat-gltf`,
//! `vat-bounds`, `vat-ktx2`, `vat-decimate`, `vat-audit`) or on `vatbake`.
//!
//! ```
//! use glam::{Vec2, Vec3};
//! use vat_model::{Channel, Clip, Interpolation, Local, Model, Node, Part, Points, Property, Trs};
//!
//! // One point at x = 1 on a node that a clip moves from the origin to y = 2.
//! let node = Node {
//!     name: None,
//!     parent: None,
//!     children: vec![],
//!     rest: Local::Trs(Trs::default()),
//!     morph_weights: vec![],
//! };
//! let part = Part {
//!     node: 0, mesh: 0, primitive: 0, material: None, skin: None,
//!     first_point: 0, point_count: 1, first_triangle: 0, triangle_count: 0,
//!     morph_targets: vec![],
//! };
//! let points = Points {
//!     positions: vec![Vec3::X],
//!     normals: vec![Vec3::Z],
//!     uv0: vec![Vec2::ZERO],
//!     joints: vec![[0; 8]],
//!     weights: vec![[0.0; 8]],
//! };
//! let model = Model { nodes: vec![node], scene_roots: vec![0], parts: vec![part], points, ..Model::default() };
//! let rise = Channel {
//!     node: 0,
//!     property: Property::Translation,
//!     interpolation: Interpolation::Linear,
//!     times: vec![0.0, 1.0],
//!     values: vec![0.0, 0.0, 0.0, 0.0, 2.0, 0.0],
//! };
//! let clip = Clip { name: None, source_index: 0, merged_from: Vec::new(), file: None, channels: vec![rise] };
//!
//! let frames = vat_skin::evaluate_clip(&model, Some(&clip), &[0.0, 0.5, 1.0]);
//! assert_eq!(frames.row_positions(1), [Vec3::new(1.0, 1.0, 0.0)]);
//! assert_eq!(frames.row_normals(2), [Vec3::Z]);
//! ```

#![warn(missing_docs)]

mod deform;
mod hierarchy;
mod rig;
mod sample;
mod size;
#[cfg(test)]
mod test_models;

use rayon::prelude::*;
use vat_model::{Clip, Frames, Model};

pub use deform::{bind_pose_positions, evaluate_pose};
pub use hierarchy::world_matrices;
pub use rig::{Rig, RowPose};
pub use sample::{sample_channel, sample_pose, Pose};
pub use size::{skeleton_size_ratio, spread};
pub use vat_model::DEGENERATE_NORMAL;

/// Evaluate a clip (`None` = rest pose) at the given times, one row each, into
/// `Frames` of `times.len()` rows × `model.points.len()` points.
///
/// Rows are computed in parallel with rayon; each row depends only on its own
/// time, so the result is bit-identical at any thread count.
pub fn evaluate_clip(model: &Model, clip: Option<&Clip>, times: &[f32]) -> Frames {
    let point_count = model.points.len();
    let mut frames = Frames::new(point_count, times.len());
    if point_count == 0 {
        return frames;
    }
    let rig = Rig::new(model);
    let Frames { positions, normals, .. } = &mut frames;
    positions.par_chunks_mut(point_count).zip(normals.par_chunks_mut(point_count)).zip(times.par_iter()).for_each(
        |((row_positions, row_normals), &time)| {
            rig.evaluate_normalized(&rig.pose(clip, time), row_positions, row_normals)
        },
    );
    frames
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::test_models::{part, trs_node, with_nodes};
    use glam::{Mat4, Vec2, Vec3};
    use vat_model::{Channel, Interpolation, Points, Property, Skin};

    /// Positions and normals of one pose.
    fn evaluate_at(model: &Model, clip: Option<&Clip>, time: f32) -> (Vec<Vec3>, Vec<Vec3>) {
        let mut positions = vec![Vec3::ZERO; model.points.len()];
        let mut normals = vec![Vec3::ZERO; model.points.len()];
        let pose = sample_pose(model, clip, time);
        evaluate_pose(model, &pose, &mut positions, &mut normals);
        (positions, normals)
    }

    /// fixtures/SimpleSkin/SimpleSkin.gltf, typed in from its decoded buffers:
    /// node 0 holds the skinned mesh and is the parent of joint node 1 (at y = 1),
    /// whose child joint node 2 the one clip rotates about z. Both inverse bind
    /// matrices translate by (−0.5, −1, 0). The file has no normals; a loader
    /// computes +Z for this flat strip.
    fn simple_skin() -> (Model, Clip) {
        let mut model =
            with_nodes(vec![trs_node(None, Vec3::ZERO), trs_node(Some(0), Vec3::Y), trs_node(Some(1), Vec3::ZERO)]);
        let inverse_bind = Mat4::from_translation(Vec3::new(-0.5, -1.0, 0.0));
        model.skins =
            vec![Skin { name: None, joints: vec![1, 2], inverse_bind: vec![inverse_bind; 2], skeleton: None }];
        let positions: Vec<Vec3> =
            (0..10).map(|point| Vec3::new((point % 2) as f32, (point / 2) as f32 * 0.5, 0.0)).collect();
        let joint_weights = [1.0, 1.0, 0.75, 0.75, 0.5, 0.5, 0.25, 0.25, 0.0, 0.0];
        model.points = Points {
            normals: vec![Vec3::Z; positions.len()],
            uv0: vec![Vec2::ZERO; positions.len()],
            joints: vec![[0, 1, 0, 0, 0, 0, 0, 0]; positions.len()],
            weights: joint_weights.iter().map(|&w| [w, 1.0 - w, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0]).collect(),
            positions,
        };
        model.parts = vec![part(0, Some(0), 10)];

        let times: Vec<f32> = (0..12).map(|key| key as f32 * 0.5).collect();
        let z_of_keys = [0.0, 0.383, 0.707, 0.707, 0.383, 0.0, 0.0, -0.383, -0.707, -0.707, -0.383, 0.0];
        let w_of_keys = [1.0, 0.924, 0.707, 0.707, 0.924, 1.0, 1.0, 0.924, 0.707, 0.707, 0.924, 1.0];
        let values = z_of_keys.iter().zip(w_of_keys).flat_map(|(&z, w)| [0.0, 0.0, z, w]).collect();
        let rotation =
            Channel { node: 2, property: Property::Rotation, interpolation: Interpolation::Linear, times, values };
        (model, Clip { name: None, source_index: 0, merged_from: Vec::new(), file: None, channels: vec![rotation] })
    }

    fn assert_positions(got: &[Vec3], want: &[[f32; 2]]) {
        assert_eq!(got.len(), want.len());
        for (point, (got, want)) in got.iter().zip(want).enumerate() {
            let want = Vec3::new(want[0], want[1], 0.0);
            assert!(got.abs_diff_eq(want, 2e-6), "point {point}: got {got}, want {want}");
        }
    }

    // Expected SimpleSkin positions were computed independently by a pure-Python
    // script (double precision) that decodes the fixture's base64 buffers, samples
    // the rotation with its own shortest-path slerp, and skins with 4×4 matrices.

    #[test]
    fn simple_skin_at_the_first_key_and_past_the_end_is_the_bind_strip_shifted() {
        let (model, clip) = simple_skin();
        let rest_strip: Vec<[f32; 2]> =
            (0..10).map(|point| [(point % 2) as f32 - 0.5, (point / 2) as f32 * 0.5]).collect();
        for time in [0.0, 9.0] {
            let (positions, normals) = evaluate_at(&model, Some(&clip), time);
            assert_positions(&positions, &rest_strip);
            assert!(normals.iter().all(|&normal| normal == Vec3::Z));
        }
        assert_positions(&evaluate_at(&model, None, 0.0).0, &rest_strip);
    }

    #[test]
    fn simple_skin_between_keys_matches_the_reference() {
        let (model, clip) = simple_skin();
        let (positions, normals) = evaluate_at(&model, Some(&clip), 0.25);
        #[rustfmt::skip]
        assert_positions(&positions, &[
            [-0.5, 0.0], [0.5, 0.0],
            [-0.4426017, 0.4616598], [0.5383402, 0.5573983],
            [-0.4809419, 0.9042616], [0.4809419, 1.0957384],
            [-0.6150205, 1.3278052], [0.3278052, 1.6150205],
            [-0.8448375, 1.7322907], [0.0789301, 2.1152444],
        ]);
        // A rotation about z leaves the strip's +Z normals alone.
        assert!(normals.iter().all(|normal| normal.abs_diff_eq(Vec3::Z, 1e-6)));

        let (positions, _) = evaluate_at(&model, Some(&clip), 3.75);
        #[rustfmt::skip]
        assert_positions(&positions, &[
            [-0.5, 0.0], [0.5, 0.0],
            [-0.5383089, 0.6926773], [0.3073227, 0.4616911],
            [-0.3456316, 1.2309861], [0.3456316, 0.7690139],
            [0.0780319, 1.6149266], [0.6149266, 0.9219681],
            [0.7326814, 1.8444986], [1.1152078, 0.920554],
        ]);

        // Between two equal keys of (0, 0, 0.707, 0.707): exactly 90° about z.
        let (positions, _) = evaluate_at(&model, Some(&clip), 1.25);
        assert_positions(&positions[8..], &[[-1.0, 0.5], [-1.0, 1.5]]);
    }

    #[test]
    fn simple_skin_bind_pose_is_the_raw_mesh() {
        let (model, _) = simple_skin();
        assert_eq!(bind_pose_positions(&model), model.points.positions);
    }

    #[test]
    fn clip_rows_match_single_poses() {
        let (model, clip) = simple_skin();
        let times = [0.0, 0.25, 3.75, 9.0];
        let frames = evaluate_clip(&model, Some(&clip), &times);
        assert_eq!((frames.rows, frames.points), (4, 10));
        for (row, &time) in times.iter().enumerate() {
            let (positions, normals) = evaluate_at(&model, Some(&clip), time);
            assert_eq!(frames.row_positions(row), positions);
            assert_eq!(frames.row_normals(row), normals);
        }
    }

    #[test]
    fn clip_is_bit_identical_at_any_thread_count() {
        let (model, clip) = simple_skin();
        let times: Vec<f32> = (0..200).map(|row| row as f32 * 0.0277).collect();
        let bits = |threads: usize| {
            let pool = rayon::ThreadPoolBuilder::new().num_threads(threads).build().expect("thread pool");
            let frames = pool.install(|| evaluate_clip(&model, Some(&clip), &times));
            let floats = frames.positions.iter().chain(&frames.normals).flat_map(|v| v.to_array());
            floats.map(f32::to_bits).collect::<Vec<u32>>()
        };
        let single = bits(1);
        assert_eq!(single.len(), 200 * 10 * 3 * 2);
        assert_eq!(bits(4), single);
        assert_eq!(bits(7), single);
    }

    #[test]
    fn an_empty_model_gives_empty_rows() {
        let model = with_nodes(vec![]);
        let frames = evaluate_clip(&model, None, &[0.0, 1.0]);
        assert_eq!((frames.rows, frames.points, frames.positions.len()), (2, 0, 0));
    }
}
