//! One primitive's points and triangles, taken out of a loaded [`Model`], and
//! welded so that neighbouring triangles share their points.

use std::collections::HashMap;

use glam::{Vec2, Vec3};
use vat_model::Model;

/// Joint influences of a point: (joint index into the skin, weight), strongest
/// first; unused slots are (0, 0.0). Weights sum to 1, or are all 0 when unskinned.
pub type Influences = [(u16, f32); 4];

/// One mesh primitive, with indices local to it.
#[derive(Clone, Debug, Default)]
pub struct Primitive {
    /// The node that holds the mesh: positions are in its mesh space.
    pub node: usize,
    /// Index of the material in the source, if any.
    pub material: Option<usize>,
    /// Index of the skin in the source, if the node is skinned.
    pub skin: Option<usize>,
    /// Whether the source had TEXCOORD_0 (else `uv0` is zeros and is not written).
    pub has_uv: bool,
    /// Whether the source had NORMAL (else the loader computed them per index,
    /// which for an unindexed mesh means flat faces; see [`Primitive::weld`]).
    pub source_normals: bool,
    /// Positions, one per point.
    pub positions: Vec<Vec3>,
    /// Unit normals, one per point.
    pub normals: Vec<Vec3>,
    /// TEXCOORD_0, one per point.
    pub uv0: Vec<Vec2>,
    /// The strongest four (joint, weight) pairs, one set per point.
    pub influences: Vec<Influences>,
    /// Per morph target, one delta per point.
    pub morph_positions: Vec<Vec<Vec3>>,
    /// Per morph target, one delta per point, or empty when the target moves no normals.
    pub morph_normals: Vec<Vec<Vec3>>,
    /// Triangles as indices into this primitive's points.
    pub triangles: Vec<[u32; 3]>,
}

/// The primitives of `model`, one per part, in part order. `document` is the
/// source's glTF JSON, read for what the loader fills in when it is absent.
pub fn primitives_of(model: &Model, document: &serde_json::Value) -> Vec<Primitive> {
    model
        .parts
        .iter()
        .map(|part| {
            let range = part.points();
            let first = part.first_point as u32;
            let attributes =
                document.pointer(&format!("/meshes/{}/primitives/{}/attributes", part.mesh, part.primitive));
            let has = |name: &str| attributes.and_then(|a| a.get(name)).is_some();
            let points = &model.points;
            Primitive {
                node: part.node,
                material: part.material,
                skin: part.skin,
                has_uv: has("TEXCOORD_0"),
                source_normals: has("NORMAL"),
                positions: points.positions[range.clone()].to_vec(),
                normals: points.normals[range.clone()].to_vec(),
                uv0: points.uv0[range.clone()].to_vec(),
                influences: range
                    .clone()
                    .map(|i| strongest_four(&points.joints[i], &points.weights[i], part.skin.is_some()))
                    .collect(),
                morph_positions: part.morph_targets.iter().map(|t| t.positions.clone()).collect(),
                morph_normals: part.morph_targets.iter().map(|t| t.normals.clone()).collect(),
                triangles: model.triangles[part.triangles()]
                    .iter()
                    .map(|t| [t[0] - first, t[1] - first, t[2] - first])
                    .collect(),
            }
        })
        .collect()
}

/// The four strongest influences, renormalized; none for an unskinned point.
fn strongest_four(joints: &[u16], weights: &[f32], skinned: bool) -> Influences {
    let pairs: Vec<(u16, f32)> = joints.iter().copied().zip(weights.iter().copied()).collect();
    if skinned {
        normalized_top_four(pairs)
    } else {
        [(0, 0.0); 4]
    }
}

/// Sums weights by joint, keeps the four strongest (ties: lower joint first) and
/// renormalizes them to sum to 1.
pub fn normalized_top_four(pairs: impl IntoIterator<Item = (u16, f32)>) -> Influences {
    let mut merged: Vec<(u16, f32)> = Vec::with_capacity(8);
    for (joint, weight) in pairs {
        if weight <= 0.0 {
            continue;
        }
        match merged.iter_mut().find(|m| m.0 == joint) {
            Some(m) => m.1 += weight,
            None => merged.push((joint, weight)),
        }
    }
    merged.sort_by(|a, b| b.1.total_cmp(&a.1).then(a.0.cmp(&b.0)));
    merged.truncate(4);
    let sum: f32 = merged.iter().map(|m| m.1).sum();
    let mut out = [(0, 0.0); 4];
    if sum > 0.0 {
        for (slot, m) in out.iter_mut().zip(&merged) {
            *slot = (m.0, m.1 / sum);
        }
    }
    out
}

impl Primitive {
    /// Number of points.
    pub fn len(&self) -> usize {
        self.positions.len()
    }

    /// True when the primitive has no points.
    pub fn is_empty(&self) -> bool {
        self.positions.is_empty()
    }

    /// Merges points whose attributes are bit-for-bit identical (position, uv,
    /// influences, morph deltas, and the normal when the source shipped normals),
    /// so that triangles which meet at an edge share its two points and subdivision
    /// keeps the surface connected. Points on a uv seam stay separate. Triangles
    /// that collapse are dropped.
    ///
    /// When the source had no normals, the loader's were computed per index — flat
    /// for an unindexed mesh like the Fox — so they are recomputed here, smooth and
    /// area-weighted over every triangle that touches the position.
    pub fn weld(&mut self) {
        let mut index_of: HashMap<Vec<u32>, u32> = HashMap::with_capacity(self.len());
        let mut remap = Vec::with_capacity(self.len());
        let mut welded = self.empty_like();
        for i in 0..self.len() {
            let key = self.weld_key(i);
            let next = welded.len() as u32;
            let index = *index_of.entry(key).or_insert_with(|| {
                welded.push_copy(self, i);
                next
            });
            remap.push(index);
        }
        welded.triangles = self
            .triangles
            .iter()
            .map(|t| t.map(|i| remap[i as usize]))
            .filter(|t| t[0] != t[1] && t[1] != t[2] && t[2] != t[0])
            .collect();
        if !self.source_normals {
            welded.normals = welded.smooth_normals();
        }
        *self = welded;
    }

    fn weld_key(&self, i: usize) -> Vec<u32> {
        let mut key: Vec<u32> = self.positions[i].to_array().iter().map(|v| v.to_bits()).collect();
        key.extend(self.uv0[i].to_array().iter().map(|v| v.to_bits()));
        for (joint, weight) in self.influences[i] {
            key.extend([u32::from(joint), weight.to_bits()]);
        }
        if self.source_normals {
            key.extend(self.normals[i].to_array().iter().map(|v| v.to_bits()));
        }
        for target in self.morph_positions.iter().chain(self.morph_normals.iter().filter(|t| !t.is_empty())) {
            key.extend(target[i].to_array().iter().map(|v| v.to_bits()));
        }
        key
    }

    /// Area-weighted normals, summed over every point at the same position.
    fn smooth_normals(&self) -> Vec<Vec3> {
        let mut by_position: HashMap<[u32; 3], Vec3> = HashMap::new();
        let key = |p: Vec3| p.to_array().map(f32::to_bits);
        for t in &self.triangles {
            let [a, b, c] = t.map(|i| self.positions[i as usize]);
            let face = (b - a).cross(c - a);
            for p in [a, b, c] {
                *by_position.entry(key(p)).or_insert(Vec3::ZERO) += face;
            }
        }
        self.positions
            .iter()
            .zip(&self.normals)
            .map(|(&p, &fallback)| by_position.get(&key(p)).map_or(fallback, |n| n.normalize_or(fallback)))
            .collect()
    }

    /// Same kind of primitive with no points or triangles.
    pub(crate) fn empty_like(&self) -> Primitive {
        Primitive {
            node: self.node,
            material: self.material,
            skin: self.skin,
            has_uv: self.has_uv,
            source_normals: self.source_normals,
            morph_positions: vec![Vec::new(); self.morph_positions.len()],
            morph_normals: vec![Vec::new(); self.morph_normals.len()],
            ..Primitive::default()
        }
    }

    /// Appends a copy of point `i` of `from`.
    pub(crate) fn push_copy(&mut self, from: &Primitive, i: usize) {
        self.positions.push(from.positions[i]);
        self.normals.push(from.normals[i]);
        self.uv0.push(from.uv0[i]);
        self.influences.push(from.influences[i]);
        for (to, from) in self.morph_positions.iter_mut().zip(&from.morph_positions) {
            to.push(from[i]);
        }
        for (to, from) in self.morph_normals.iter_mut().zip(&from.morph_normals) {
            if !from.is_empty() {
                to.push(from[i]);
            }
        }
    }

    /// Appends the midpoint of points `a` and `b`, every attribute interpolated,
    /// and returns its index. Symmetric in `a` and `b`, so both sides of a uv seam
    /// get bit-identical positions.
    pub(crate) fn push_midpoint(&mut self, a: u32, b: u32) -> u32 {
        let (a, b) = (a as usize, b as usize);
        let mid3 = |v: &[Vec3]| (v[a] + v[b]) * 0.5;
        let position = mid3(&self.positions);
        let normal = mid3(&self.normals).normalize_or(self.normals[a]);
        let uv = (self.uv0[a] + self.uv0[b]) * 0.5;
        let influences = if self.skin.is_some() {
            normalized_top_four(self.influences[a].iter().chain(&self.influences[b]).map(|&(j, w)| (j, w * 0.5)))
        } else {
            [(0, 0.0); 4]
        };
        for target in &mut self.morph_positions {
            let delta = mid3(target);
            target.push(delta);
        }
        for target in &mut self.morph_normals {
            if !target.is_empty() {
                let delta = mid3(target);
                target.push(delta);
            }
        }
        self.positions.push(position);
        self.normals.push(normal);
        self.uv0.push(uv);
        self.influences.push(influences);
        (self.positions.len() - 1) as u32
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn influences_merge_by_joint_and_keep_the_four_strongest() {
        let a = [(3, 0.5), (1, 0.3), (2, 0.2), (0, 0.0)];
        let b = [(3, 0.4), (5, 0.3), (6, 0.2), (7, 0.1)];
        let merged = normalized_top_four(a.iter().chain(&b).map(|&(j, w)| (j, w * 0.5)));
        // Joint 3: 0.45; 1 and 5: 0.15; 6 and 2: 0.1 (2 wins the tie); 7: 0.05 dropped.
        let kept: Vec<u16> = merged.iter().map(|m| m.0).collect();
        assert_eq!(kept, [3, 1, 5, 2]);
        let sum: f32 = merged.iter().map(|m| m.1).sum();
        assert!((sum - 1.0).abs() < 1e-6);
        assert!((merged[0].1 - 0.45 / 0.85).abs() < 1e-6);
    }

    #[test]
    fn welding_shares_points_of_an_unindexed_quad() {
        // Two unindexed triangles of a unit quad: 6 points, 4 distinct.
        let corners = [Vec3::ZERO, Vec3::X, Vec3::new(1.0, 1.0, 0.0), Vec3::ZERO, Vec3::new(1.0, 1.0, 0.0), Vec3::Y];
        let mut p = Primitive {
            positions: corners.to_vec(),
            normals: vec![Vec3::Z; 6],
            uv0: corners.iter().map(|c| c.truncate()).collect(),
            influences: vec![[(0, 0.0); 4]; 6],
            triangles: vec![[0, 1, 2], [3, 4, 5]],
            ..Primitive::default()
        };
        p.weld();
        assert_eq!(p.len(), 4);
        assert_eq!(p.triangles, [[0, 1, 2], [0, 2, 3]]);
        assert!(p.normals.iter().all(|n| (*n - Vec3::Z).length() < 1e-6));
    }
}
