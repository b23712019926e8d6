//! Midpoint subdivision to a point count.
//!
//! Whole levels split every triangle into four at its edge midpoints (each edge's
//! midpoint is made once and shared by the triangles on both sides). A whole level
//! roughly quadruples a closed mesh, so once another one would overshoot the
//! target, a last partial level splits only the longest edges, just enough of them
//! to reach it: a triangle with one split edge becomes two, with two becomes three
//! (the quad cut along its shorter diagonal), with three becomes four. Every
//! triangle on both sides of a split edge is split at the same point, so no crack
//! or T-junction appears. Edges on a uv seam (two index pairs, one position pair)
//! are split together for the same reason.

use std::collections::{HashMap, HashSet};

use crate::mesh::Primitive;

/// Point counts along the way.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct SubdivisionReport {
    /// Points after welding, before any split.
    pub welded_points: usize,
    /// Points after each whole level.
    pub levels: Vec<usize>,
    /// Edges split by the partial level (0 when none was needed).
    pub partial_edges: usize,
    /// Points of the finished mesh.
    pub final_points: usize,
}

type Edge = (u32, u32);

fn edge(a: u32, b: u32) -> Edge {
    (a.min(b), a.max(b))
}

/// Every edge of a primitive once, in order of first appearance.
fn edges(p: &Primitive) -> Vec<Edge> {
    let mut seen = HashSet::with_capacity(p.triangles.len() * 2);
    let mut out = Vec::with_capacity(p.triangles.len() * 2);
    for t in &p.triangles {
        for k in 0..3 {
            let e = edge(t[k], t[(k + 1) % 3]);
            if seen.insert(e) {
                out.push(e);
            }
        }
    }
    out
}

/// Subdivides until the primitives together have at least `target` points (they
/// are left alone if they already do).
pub fn subdivide_to(primitives: &mut [Primitive], target: usize) -> SubdivisionReport {
    let count = |ps: &[Primitive]| ps.iter().map(Primitive::len).sum::<usize>();
    let mut report = SubdivisionReport { welded_points: count(primitives), ..Default::default() };
    loop {
        let points = count(primitives);
        if points >= target {
            break;
        }
        let edge_count: usize = primitives.iter().map(|p| edges(p).len()).sum();
        if edge_count == 0 {
            break;
        }
        if points + edge_count <= target {
            for p in primitives.iter_mut() {
                let all: HashSet<Edge> = edges(p).into_iter().collect();
                *p = refine(p, &all);
            }
            report.levels.push(count(primitives));
        } else {
            let chosen = longest_edges(primitives, target - points);
            report.partial_edges = chosen.iter().map(HashSet::len).sum();
            for (p, split) in primitives.iter_mut().zip(&chosen) {
                *p = refine(p, split);
            }
            break;
        }
    }
    report.final_points = count(primitives);
    report
}

/// Per primitive, the edges to split so that at least `needed` points are added:
/// longest first, an edge and its seam twins together.
fn longest_edges(primitives: &[Primitive], needed: usize) -> Vec<HashSet<Edge>> {
    // Key: the node (edges of one mesh space) and the two end positions, ordered.
    type GroupKey = (usize, [u32; 3], [u32; 3]);
    let mut groups: HashMap<GroupKey, Vec<(usize, Edge)>> = HashMap::new();
    let mut lengths: HashMap<GroupKey, f32> = HashMap::new();
    for (index, p) in primitives.iter().enumerate() {
        for e in edges(p) {
            let (a, b) = (p.positions[e.0 as usize], p.positions[e.1 as usize]);
            let (ka, kb) = (a.to_array().map(f32::to_bits), b.to_array().map(f32::to_bits));
            let key = (p.node, ka.min(kb), ka.max(kb));
            groups.entry(key).or_default().push((index, e));
            lengths.insert(key, a.distance(b));
        }
    }
    let mut order: Vec<GroupKey> = groups.keys().copied().collect();
    order.sort_by(|x, y| lengths[y].total_cmp(&lengths[x]).then(x.cmp(y)));
    let mut chosen = vec![HashSet::new(); primitives.len()];
    let mut added = 0;
    for key in order {
        if added >= needed {
            break;
        }
        for &(index, e) in &groups[&key] {
            chosen[index].insert(e);
            added += 1;
        }
    }
    chosen
}

/// One refinement step: splits the edges in `split`, re-triangulating each
/// triangle by how many of its edges are split. Keeps the winding.
fn refine(p: &Primitive, split: &HashSet<Edge>) -> Primitive {
    let mut out = p.clone();
    out.triangles = Vec::with_capacity(p.triangles.len() * 4);
    let mut midpoints: HashMap<Edge, u32> = HashMap::with_capacity(split.len());
    for t in &p.triangles {
        let mut mid = [None; 3];
        for k in 0..3 {
            let e = edge(t[k], t[(k + 1) % 3]);
            if split.contains(&e) {
                mid[k] = Some(*midpoints.entry(e).or_insert_with(|| out.push_midpoint(e.0, e.1)));
            }
        }
        // Edge k runs from corner k to corner k+1.
        match mid.iter().filter(|m| m.is_some()).count() {
            0 => out.triangles.push(*t),
            1 => {
                let k = mid.iter().position(Option::is_some).unwrap_or(0);
                let (a, b, c, m) = (t[k], t[(k + 1) % 3], t[(k + 2) % 3], mid[k].unwrap_or(0));
                out.triangles.extend([[a, m, c], [m, b, c]]);
            }
            2 => {
                // Rotate so the unsplit edge is c→a: a b c with ab and bc split.
                let k = mid.iter().position(Option::is_none).unwrap_or(0);
                let (c, a, b) = (t[k], t[(k + 1) % 3], t[(k + 2) % 3]);
                let (m_ab, m_bc) = (mid[(k + 1) % 3].unwrap_or(0), mid[(k + 2) % 3].unwrap_or(0));
                out.triangles.push([m_ab, b, m_bc]);
                let at = |i: u32| out.positions[i as usize];
                if at(a).distance_squared(at(m_bc)) <= at(m_ab).distance_squared(at(c)) {
                    out.triangles.extend([[a, m_ab, m_bc], [a, m_bc, c]]);
                } else {
                    out.triangles.extend([[a, m_ab, c], [m_ab, m_bc, c]]);
                }
            }
            _ => {
                let [a, b, c] = *t;
                let [m_ab, m_bc, m_ca] = mid.map(|m| m.unwrap_or(0));
                out.triangles.extend([[a, m_ab, m_ca], [m_ab, b, m_bc], [m_ca, m_bc, c], [m_ab, m_bc, m_ca]]);
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use glam::{Vec2, Vec3};

    /// A regular tetrahedron: 4 points, 6 edges, 4 faces, closed.
    fn tetrahedron() -> Primitive {
        let positions = vec![
            Vec3::new(1.0, 1.0, 1.0),
            Vec3::new(1.0, -1.0, -1.0),
            Vec3::new(-1.0, 1.0, -1.0),
            Vec3::new(-1.0, -1.0, 1.0),
        ];
        Primitive {
            normals: positions.iter().map(|p| p.normalize()).collect(),
            uv0: vec![Vec2::ZERO; 4],
            influences: vec![[(0, 0.0); 4]; 4],
            positions,
            triangles: vec![[0, 1, 2], [0, 3, 1], [0, 2, 3], [1, 3, 2]],
            ..Primitive::default()
        }
    }

    /// Every edge of a closed, crack-free surface is used by exactly two triangles.
    fn is_closed(p: &Primitive) -> bool {
        let mut uses: HashMap<Edge, usize> = HashMap::new();
        for t in &p.triangles {
            for k in 0..3 {
                *uses.entry(edge(t[k], t[(k + 1) % 3])).or_default() += 1;
            }
        }
        uses.values().all(|&n| n == 2)
    }

    #[test]
    fn whole_levels_follow_euler() {
        let mut ps = [tetrahedron()];
        let report = subdivide_to(&mut ps, 34);
        // V' = V + E, E' = 2E + 3F, F' = 4F: 4 → 10 → 34 points.
        assert_eq!(report.levels, [10, 34]);
        assert_eq!(report.partial_edges, 0);
        assert_eq!(ps[0].triangles.len(), 64);
        assert!(is_closed(&ps[0]));
    }

    #[test]
    fn a_partial_level_lands_on_the_target_without_cracks() {
        let mut ps = [tetrahedron()];
        let report = subdivide_to(&mut ps, 20);
        assert_eq!(report.levels, [10]);
        assert_eq!(report.partial_edges, 10);
        assert_eq!(ps[0].len(), 20);
        assert!(is_closed(&ps[0]));
        // Every point is still on the surface's scale: midpoints of unit-ish edges.
        assert!(ps[0].positions.iter().all(|p| p.abs().max_element() <= 1.0));
    }
}
