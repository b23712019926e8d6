//! The bone bake's palette (`--mode bones`): the matrices a row stores (each skin's
//! joints, then the node of each part that follows its node) and each point's
//! influences on them; and the bind pose the matrices move. The rows' matrices are
//! the ones the vertex bake skins with ([`vat_skin::RowPose::joint_matrices`],
//! `world(joint) · inverseBind`, and the node world matrix of a mesh that moves
//! unskinned), so a player that skins the rest mesh with them draws what a vertex
//! bake of the same model stores.
//!
//! Owns the palette's order and the skinning a player does with it; must not touch
//! the texture's file, the description or the stages' order.

use anyhow::Result;
use glam::{Mat4, Vec3};
use vat_model::{Model, MAX_INFLUENCES};
use vat_skin::RowPose;

use crate::description::JointSource;
use crate::error::Error;
use crate::settings::BakeSettings;

/// Texels per matrix: its four columns.
pub const TEXELS_PER_JOINT: usize = 4;

/// One matrix of each row: a skin's joint, or the world matrix of a part's node.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Entry {
    Joint { skin: usize, joint: usize },
    Node { part: usize },
}

/// The matrices a bone bake stores per row, and each point's influences on them.
pub(crate) struct Palette {
    entries: Vec<Entry>,
    /// Per point: palette indices and weights, strongest first; `counts[i]` live.
    joints: Vec<[u16; MAX_INFLUENCES]>,
    weights: Vec<[f32; MAX_INFLUENCES]>,
    counts: Vec<u8>,
}

impl Palette {
    /// Every skin a part uses, its joints in skin order; then one entry per node
    /// whose part has points that follow the node (no skin, or no weight).
    pub(crate) fn new(rig: &vat_skin::Rig) -> Palette {
        let model = rig.model();
        let mut entries = Vec::new();
        let mut skin_offset = vec![None; model.skins.len()];
        for part in &model.parts {
            let Some(skin) = part.skin.filter(|&s| s < model.skins.len()) else { continue };
            if skin_offset[skin].is_none() {
                skin_offset[skin] = Some(entries.len());
                entries.extend((0..model.skins[skin].joints.len()).map(|joint| Entry::Joint { skin, joint }));
            }
        }
        let points = model.points.len();
        let mut joints = vec![[0u16; MAX_INFLUENCES]; points];
        let mut weights = vec![[0f32; MAX_INFLUENCES]; points];
        let mut counts = vec![0u8; points];
        let mut node_entry: Vec<(usize, usize)> = Vec::new(); // (node, palette index)
        for (part_index, part) in model.parts.iter().enumerate() {
            let offset = part.skin.and_then(|s| skin_offset.get(s).copied().flatten());
            // The part's node matrix, found or added at the first point that follows it.
            let mut node_matrix = None;
            for i in part.points().filter(|&i| i < points) {
                let (source_joints, source_weights) = rig.influences(i);
                if let (Some(offset), false) = (offset, source_joints.is_empty()) {
                    let count = source_joints.len();
                    // Strongest first (stable): a player that reads JOINTS_0 alone gets the strongest four.
                    let mut order: [usize; MAX_INFLUENCES] = std::array::from_fn(|k| k);
                    order[..count].sort_by(|&a, &b| source_weights[b].total_cmp(&source_weights[a]));
                    for (slot, &k) in order[..count].iter().enumerate() {
                        joints[i][slot] = (offset + usize::from(source_joints[k])) as u16;
                        weights[i][slot] = source_weights[k];
                    }
                    counts[i] = count as u8;
                } else {
                    let entry = *node_matrix.get_or_insert_with(|| {
                        match node_entry.iter().find(|&&(node, _)| node == part.node) {
                            Some(&(_, entry)) => entry,
                            None => {
                                entries.push(Entry::Node { part: part_index });
                                node_entry.push((part.node, entries.len() - 1));
                                entries.len() - 1
                            }
                        }
                    });
                    joints[i][0] = entry as u16;
                    weights[i][0] = 1.0;
                    counts[i] = 1;
                }
            }
        }
        Palette { entries, joints, weights, counts }
    }

    /// Matrices per row.
    pub(crate) fn len(&self) -> usize {
        self.entries.len()
    }

    /// Influences per point the rest mesh needs: 4, or 8 when a point has more than 4.
    pub(crate) fn influences(&self) -> usize {
        if self.counts.iter().any(|&c| c > 4) {
            8
        } else {
            4
        }
    }

    /// The matrices of one row, in palette order.
    pub(crate) fn row(&self, pose: &RowPose) -> Vec<Mat4> {
        self.entries
            .iter()
            .map(|entry| match *entry {
                Entry::Joint { skin, joint } => pose.joint_matrices(skin).get(joint).copied().unwrap_or(Mat4::IDENTITY),
                Entry::Node { part } => pose.part_matrix(part),
            })
            .collect()
    }

    /// Point `i` skinned by `matrices` with its strongest `limit` influences
    /// (renormalized when that drops some), in the order the player sums them.
    pub(crate) fn skin(&self, matrices: &[Mat4], i: usize, position: Vec3, limit: usize) -> Vec3 {
        let count = usize::from(self.counts[i]).min(limit);
        let total: f32 = self.weights[i][..count].iter().sum();
        let scale = if count < usize::from(self.counts[i]) && total > 0.0 { 1.0 / total } else { 1.0 };
        let mut blended = Mat4::ZERO;
        for slot in 0..count {
            blended += matrices[usize::from(self.joints[i][slot])] * (self.weights[i][slot] * scale);
        }
        blended.transform_point3(position)
    }

    /// Influences point `i` has (at most [`MAX_INFLUENCES`]).
    pub(crate) fn count(&self, i: usize) -> usize {
        usize::from(self.counts[i])
    }

    /// Per point: palette indices, strongest first (the rest mesh's JOINTS_n).
    pub(crate) fn joints(&self) -> &[[u16; MAX_INFLUENCES]] {
        &self.joints
    }

    /// Per point: the weights of [`Palette::joints`] (the rest mesh's WEIGHTS_n).
    pub(crate) fn weights(&self) -> &[[f32; MAX_INFLUENCES]] {
        &self.weights
    }

    /// Where each matrix comes from, for the description.
    pub(crate) fn sources(&self, model: &Model) -> Vec<JointSource> {
        self.entries
            .iter()
            .map(|entry| {
                let (node, skin_joint) = match *entry {
                    Entry::Joint { skin, joint } => {
                        (model.skins[skin].joints[joint], Some([skin as u32, joint as u32]))
                    }
                    Entry::Node { part } => (model.parts[part].node, None),
                };
                JointSource { node: node as u32, name: model.nodes.get(node).and_then(|n| n.name.clone()), skin_joint }
            })
            .collect()
    }
}

/// The palette of `rig`, refused when its matrices make a texture wider than
/// `--max-width` (found right after evaluate, before anything is packed).
pub(crate) fn fitting_palette(rig: &vat_skin::Rig, settings: &BakeSettings) -> Result<Palette> {
    let palette = Palette::new(rig);
    let width = palette.len() * TEXELS_PER_JOINT;
    if width > settings.max_width as usize {
        return Err(Error::input(format!(
            "{}: {} joint matrices make a texture {width} texels wide, more than --max-width {}; \
             bake it with --mode vertices, or raise --max-width",
            settings.input.display(),
            palette.len(),
            settings.max_width
        ))
        .into());
    }
    Ok(palette)
}

/// Bind-space positions and normals with each part's rest morph weights applied:
/// what the rest mesh holds and the matrices move.
pub(crate) fn bind_pose(rig: &vat_skin::Rig) -> (Vec<Vec3>, Vec<Vec3>) {
    rig.morphed(&rig.pose(None, 0.0))
}

#[cfg(test)]
mod tests {
    use super::*;
    use glam::{Quat, Vec3A};
    use vat_bounds::Bounds;
    use vat_model::ClipRows;

    /// A fixture's rig, every row's pose at 30 rows a second, its palette and bind pose.
    fn fixture(path: &str) -> (Model, Vec<(Option<usize>, f32)>) {
        let file = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../fixtures").join(path);
        let bytes = std::fs::read(&file).unwrap();
        let model = vat_gltf::load(&file, &bytes, &Default::default()).unwrap().model;
        let times = model
            .clips
            .iter()
            .enumerate()
            .flat_map(|(c, clip)| {
                ClipRows::new(clip.duration(), 30.0, None).times().into_iter().map(move |t| (Some(c), t))
            })
            .collect();
        (model, times)
    }

    /// f32 rounded to the nearest half float (normal range; ties to even).
    fn half(x: f32) -> f32 {
        let bits = x.to_bits();
        let dropped = bits & 0x1fff;
        let kept = bits & !0x1fff;
        let halfway = 0x1000;
        let up = dropped > halfway || (dropped == halfway && kept & 0x2000 != 0);
        f32::from_bits(if up { kept + 0x2000 } else { kept })
    }

    /// A matrix stored as translation (16 bits within `bounds`), rotation (16 bits a
    /// component in −1..1) and scale (16 bits within 0..`max_scale`), then rebuilt.
    fn trs16(m: &Mat4, bounds: &Bounds, max_scale: f32) -> Mat4 {
        let (scale, rotation, translation) = m.to_scale_rotation_translation();
        let q16 = |v: f32, lo: f32, hi: f32| {
            if hi <= lo {
                return lo;
            }
            let code = ((v - lo) / (hi - lo) * 65535.0).round().clamp(0.0, 65535.0);
            lo + code / 65535.0 * (hi - lo)
        };
        let (lo, hi) = (bounds.min(), bounds.max());
        let t =
            Vec3::new(q16(translation.x, lo.x, hi.x), q16(translation.y, lo.y, hi.y), q16(translation.z, lo.z, hi.z));
        let r = Quat::from_array(rotation.to_array().map(|c| q16(c, -1.0, 1.0))).normalize();
        let s = scale.to_array().map(|c| q16(c, 0.0, max_scale));
        Mat4::from_scale_rotation_translation(Vec3::from(s), r, t)
    }

    /// Largest distance (over every row and point) from the evaluation to the bind pose
    /// skinned with the palette's matrices passed through `store`, over the bounds diagonal.
    /// A row's matrices as some encoding stores them: given the row, the bounds of every
    /// translation and the largest scale.
    type Store = dyn Fn(&[Mat4], &Bounds, f32) -> Vec<Mat4>;

    fn error_fraction(path: &str, store: &Store) -> f32 {
        let (model, times) = fixture(path);
        let rig = vat_skin::Rig::new(&model);
        let poses: Vec<RowPose> = times.iter().map(|&(c, t)| rig.pose(c.map(|c| &model.clips[c]), t)).collect();
        let palette = Palette::new(&rig);
        let (bind, _) = bind_pose(&rig);
        let rows: Vec<Vec<Mat4>> = poses.iter().map(|p| palette.row(p)).collect();
        let translations = Bounds::from_points(rows.iter().flatten().map(|m| m.w_axis.truncate()));
        let max_scale =
            rows.iter().flatten().map(|m| m.to_scale_rotation_translation().0.max_element()).fold(0.0, f32::max);
        let bounds = crate::pipeline::texels::bounds(&rig, &poses).unwrap();
        let mut worst = 0.0f32;
        for (pose, row) in poses.iter().zip(&rows) {
            let stored = store(row, &translations, max_scale * 1.01);
            let mut evaluated = vec![Vec3A::ZERO; bind.len()];
            rig.positions(pose, 0..bind.len(), &mut evaluated);
            for (i, p) in evaluated.iter().enumerate() {
                worst = worst.max(palette.skin(&stored, i, bind[i], MAX_INFLUENCES).distance(Vec3::from(*p)));
            }
        }
        worst / bounds.diagonal()
    }

    #[test]
    fn float32_holds_the_vertex_tolerance_and_half_float_does_not() {
        // The measurement behind `bones.encoding` (docs/PERFORMANCE.md, "Bone mode").
        for path in ["Fox/Fox.glb", "CesiumMan/glTF-Binary/CesiumMan.glb", "Kenney-PlatformerCharacter/character.glb"] {
            let full = error_fraction(path, &|row, _, _| row.to_vec());
            let halves = error_fraction(path, &|row, _, _| {
                row.iter().map(|m| Mat4::from_cols_array(&m.to_cols_array().map(half))).collect()
            });
            let trs = error_fraction(path, &|row, bounds, scale| row.iter().map(|m| trs16(m, bounds, scale)).collect());
            eprintln!("{path}: max error / diagonal: float32 {full:.2e}, half {halves:.2e}, 16-bit TRS {trs:.2e}");
            assert!(full < 1e-5, "{path}: float32 {full}");
            assert!(halves > full * 10.0, "{path}: half {halves}");
        }
    }

    #[test]
    fn bind_pose_skinned_by_a_row_is_the_rigs_evaluation() {
        let (model, times) = fixture("variants/mesh-outside-armature.glb");
        let rig = vat_skin::Rig::new(&model);
        let palette = Palette::new(&rig);
        let (bind, _) = bind_pose(&rig);
        let (clip, time) = times[times.len() / 2];
        let pose = rig.pose(clip.map(|c| &model.clips[c]), time);
        let row = palette.row(&pose);
        let evaluated = crate::pipeline::texels::positions(&rig, &pose);
        let worst = evaluated
            .iter()
            .enumerate()
            .map(|(i, p)| palette.skin(&row, i, bind[i], MAX_INFLUENCES).distance(*p))
            .fold(0.0, f32::max);
        assert!(worst < 1e-5, "{worst}");
        // A mesh outside the armature moves with its node: one matrix more than the skin's joints.
        let joints: usize = model.skins.iter().map(|s| s.joints.len()).sum();
        assert!(palette.len() >= joints, "{} matrices for {joints} joints", palette.len());
    }
}
