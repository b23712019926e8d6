//! Levels of detail that share their model's points: edge collapse onto surviving
//! points (meshoptimizer's `simplify`), so every level's triangles index the model's
//! own points and a level needs no point the model does not have.
//!
//! Points at one position with one uv (that differ only in the normal: a hard edge, a
//! flat-shaded export's repeated corners) are welded for the collapse, and each
//! corner of a kept triangle is then the point of its weld whose normal is nearest
//! the triangle's. The model's open borders are locked (`LockBorder`): a part's edge
//! stays where it is. The two sides of a plain uv seam collapse only along the seam,
//! together, as meshoptimizer keeps seams, so no crack opens; a point where three or
//! more uvs meet moves with all its uvs together (`Permissive`), each to the target's
//! uv along the same edge. A uv island (triangles connected through shared points) that would
//! vanish at the coarsest level has its points locked, so every island keeps a
//! triangle at every level.

use glam::Vec3;
use meshopt::{SimplifyOptions, SimplifyVertex};
use vat_model::Model;

/// One level of detail of a model: a subset of its triangles' surface, over its points.
#[derive(Clone, Debug, PartialEq)]
pub struct Lod {
    /// Triangles, as indices into the model's points, grouped by part in part order.
    pub triangles: Vec<[u32; 3]>,
    /// Triangles of each part of the model, in part order (0 for a part left with none).
    pub part_triangles: Vec<usize>,
    /// The points the triangles use, ascending: the level's vertices.
    pub points: Vec<u32>,
}

/// Why a level cannot be made at a budget.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum LodError {
    /// The model has no triangles to simplify.
    #[error("the model has no triangles, so it has no coarser level")]
    NoTriangles,
    /// The budget is not below the model's points.
    #[error("a level of {budget} points is not below the model's {points} points")]
    NotBelow {
        /// The budget asked for.
        budget: usize,
        /// Points the model's triangles use.
        points: usize,
    },
    /// The budget is below what keeps the borders and every uv island.
    #[error(
        "a level of {budget} points cannot keep every uv island and every open border (fewer would leave a hole): \
         the smallest level keeps {smallest} points"
    )]
    TooSmall {
        /// The budget asked for.
        budget: usize,
        /// Points of the coarsest level that keeps every island and border.
        smallest: usize,
    },
}

/// A model prepared for simplification to any number of points.
pub struct Simplifier {
    /// The triangles over the welded points (each point replaced by the first of its
    /// part at its position with its uv), those that collapse to a line left out.
    indices: Vec<u32>,
    positions: Vec<[f32; 3]>,
    /// Per point: locked (its island would vanish at the coarsest level), protected (a
    /// plain uv seam, two sides only: it collapses along itself), or free.
    locks: Vec<SimplifyVertex>,
    /// The points each welded point stands for (its own index first).
    members: Vec<Vec<u32>>,
    normals: Vec<Vec3>,
    /// The part of each point.
    part_of: Vec<u32>,
    parts: usize,
    /// The island of each welded point (its union-find root).
    island_of: Vec<u32>,
    /// Points the model's triangles use.
    used: usize,
    /// Points of the coarsest level.
    smallest: usize,
}

impl Simplifier {
    /// `model` to be simplified in `space` (one position per point, e.g. the bind pose).
    ///
    /// # Errors
    /// [`LodError::NoTriangles`] when the model has none.
    ///
    /// # Panics
    /// If `space` does not have one position per point, or a triangle indexes past the points.
    pub fn new(model: &Model, space: &[Vec3]) -> Result<Simplifier, LodError> {
        assert_eq!(space.len(), model.points.len(), "one position per point");
        if model.triangles.is_empty() {
            return Err(LodError::NoTriangles);
        }
        let count = model.points.len();
        let mut part_of = vec![0u32; count];
        for (index, part) in model.parts.iter().enumerate() {
            part_of[part.points()].fill(index as u32);
        }
        let welded = weld(model, space);
        let mut members = vec![Vec::new(); count];
        for (p, &w) in welded.iter().enumerate() {
            members[w as usize].push(p as u32);
        }
        let triangles: Vec<[u32; 3]> = model
            .triangles
            .iter()
            .map(|t| t.map(|p| welded[p as usize]))
            .filter(|t| t[0] != t[1] && t[1] != t[2] && t[2] != t[0])
            .collect();
        let island_of = islands(count, &triangles);
        let mut used_points = vec![false; count];
        for &p in model.triangles.iter().flatten() {
            used_points[p as usize] = true;
        }
        let mut simplifier = Simplifier {
            indices: triangles.iter().flatten().copied().collect(),
            positions: space.iter().map(|p| p.to_array()).collect(),
            locks: seams(model, space, &welded),
            members,
            normals: model.points.normals.clone(),
            part_of,
            parts: model.parts.len(),
            island_of,
            used: used_points.iter().filter(|&&u| u).count(),
            smallest: 0,
        };
        // Lock the points of every island the coarsest level loses, until it loses none:
        // each round locks at least one more island, so this ends.
        loop {
            let coarsest = simplifier.collapse(0);
            let mut kept = vec![false; count];
            for &p in &coarsest {
                kept[simplifier.island_of[p as usize] as usize] = true;
            }
            let mut lost = false;
            for &p in &simplifier.indices {
                let island = simplifier.island_of[p as usize] as usize;
                if !kept[island] && !simplifier.locks[p as usize].contains(SimplifyVertex::Lock) {
                    simplifier.locks[p as usize] |= SimplifyVertex::Lock;
                    lost = true;
                }
            }
            if !lost {
                simplifier.smallest = simplifier.level(&coarsest).points.len();
                break;
            }
        }
        Ok(simplifier)
    }

    /// Points the model's triangles use: the finest level.
    pub fn points(&self) -> usize {
        self.used
    }

    /// Points of the coarsest level that keeps every open border and uv island.
    pub fn smallest(&self) -> usize {
        self.smallest
    }

    /// The level with as many points as meshoptimizer's collapses give up to `budget`.
    ///
    /// # Errors
    /// [`LodError::NotBelow`] for a budget at or above the model's points,
    /// [`LodError::TooSmall`] below [`Simplifier::smallest`].
    pub fn simplify(&self, budget: usize) -> Result<Lod, LodError> {
        if budget >= self.used {
            return Err(LodError::NotBelow { budget, points: self.used });
        }
        if budget < self.smallest {
            return Err(LodError::TooSmall { budget, smallest: self.smallest });
        }
        // The largest triangle target whose level fits the budget: bisection over the
        // target (points grow with it, not always strictly).
        let (mut fits, mut over) = (0usize, self.indices.len() / 3);
        let mut best = self.level(&self.collapse(0));
        while over - fits > 1 {
            let middle = fits + (over - fits) / 2;
            let level = self.level(&self.collapse(middle * 3));
            if level.points.len() <= budget {
                fits = middle;
                best = level;
            } else {
                over = middle;
            }
        }
        Ok(best)
    }

    /// meshoptimizer's simplification of the welded triangles to `target` indices, no
    /// error bound.
    fn collapse(&self, target: usize) -> Vec<u32> {
        meshopt::simplify_with_locks_decoder(
            &self.indices,
            &self.positions,
            &self.locks,
            target,
            f32::MAX,
            SimplifyOptions::LockBorder | SimplifyOptions::Permissive,
            None,
        )
    }

    /// The level of welded `indices`: each corner the point of its welded point whose
    /// normal is nearest the triangle's (a hard edge stays hard), triangles grouped by
    /// part, stable within each.
    fn level(&self, indices: &[u32]) -> Lod {
        let mut by_part: Vec<Vec<[u32; 3]>> = vec![Vec::new(); self.parts];
        for t in indices.chunks_exact(3) {
            let [a, b, c] = [t[0], t[1], t[2]].map(|p| Vec3::from(self.positions[p as usize]));
            let facing = (b - a).cross(c - a).normalize_or_zero();
            let corner = |w: u32| {
                let members = &self.members[w as usize];
                let mut best = members[0];
                for &p in &members[1..] {
                    if self.normals[p as usize].dot(facing) > self.normals[best as usize].dot(facing) {
                        best = p;
                    }
                }
                best
            };
            by_part[self.part_of[t[0] as usize] as usize].push([corner(t[0]), corner(t[1]), corner(t[2])]);
        }
        let part_triangles = by_part.iter().map(Vec::len).collect();
        let triangles: Vec<[u32; 3]> = by_part.into_iter().flatten().collect();
        let mut points: Vec<u32> = triangles.iter().flatten().copied().collect();
        points.sort_unstable();
        points.dedup();
        Lod { triangles, part_triangles, points }
    }
}

/// Each point's welded point: the first point of its part at its position with its
/// uv. Points that differ only in the normal (a hard edge, a flat-shaded export's
/// repeated corners) weld, so they collapse together; points at one position with
/// different uvs stay apart, a uv seam that meshoptimizer collapses only along itself,
/// both sides together, so no crack opens and no island's uvs meet another's.
fn weld(model: &Model, space: &[Vec3]) -> Vec<u32> {
    let mut welded: Vec<u32> = (0..space.len() as u32).collect();
    for part in &model.parts {
        let key = |p: usize| (space[p].to_array().map(f32::to_bits), model.points.uv0[p].to_array().map(f32::to_bits));
        let mut order: Vec<usize> = part.points().collect();
        order.sort_by_key(|&p| (key(p), p));
        for run in order.chunk_by(|&a, &b| key(a) == key(b)) {
            for &p in run {
                welded[p] = run[0] as u32;
            }
        }
    }
    welded
}

/// The welded points on a plain uv seam (their position has exactly two uvs),
/// protected: meshoptimizer collapses them along the seam only, both sides together.
/// A position with three or more uvs (where islands meet) is left free: it moves
/// with all its uvs together (meshoptimizer's complex collapse, each uv to the
/// target's along the same edge), so no crack opens.
fn seams(model: &Model, space: &[Vec3], welded: &[u32]) -> Vec<SimplifyVertex> {
    let mut flags = vec![SimplifyVertex::None; space.len()];
    for part in &model.parts {
        let key = |p: usize| space[p].to_array().map(f32::to_bits);
        let mut order: Vec<usize> = part.points().filter(|&p| welded[p] == p as u32).collect();
        order.sort_by_key(|&p| (key(p), p));
        for run in order.chunk_by(|&a, &b| key(a) == key(b)) {
            if run.len() == 2 {
                for &p in run {
                    flags[p] = SimplifyVertex::Protect;
                }
            }
        }
    }
    flags
}

/// The island of each point: the smallest point connected to it through triangles.
fn islands(count: usize, triangles: &[[u32; 3]]) -> Vec<u32> {
    let mut parent: Vec<u32> = (0..count as u32).collect();
    fn root(parent: &mut [u32], mut p: u32) -> u32 {
        while parent[p as usize] != p {
            parent[p as usize] = parent[parent[p as usize] as usize];
            p = parent[p as usize];
        }
        p
    }
    for t in triangles {
        for k in 1..3 {
            let (a, b) = (root(&mut parent, t[0]), root(&mut parent, t[k]));
            if a != b {
                let (low, high) = (a.min(b), a.max(b));
                parent[high as usize] = low;
            }
        }
    }
    (0..count as u32).map(|p| root(&mut parent, p)).collect()
}

/// The open edges of a surface, its points welded by position: each edge used by
/// one triangle only, as its two positions' bit patterns, sorted. A level whose open
/// edges are its model's has no hole the model does not have.
pub fn open_edges(positions: &[Vec3], triangles: &[[u32; 3]]) -> Vec<[[u32; 3]; 2]> {
    let key = |p: u32| positions[p as usize].to_array().map(f32::to_bits);
    let mut edges: Vec<[[u32; 3]; 2]> = triangles
        .iter()
        .flat_map(|t| [(t[0], t[1]), (t[1], t[2]), (t[2], t[0])])
        .map(|(a, b)| {
            let (a, b) = (key(a), key(b));
            if a <= b {
                [a, b]
            } else {
                [b, a]
            }
        })
        .filter(|[a, b]| a != b)
        .collect();
    edges.sort_unstable();
    let mut open = Vec::new();
    let mut i = 0;
    while i < edges.len() {
        let mut j = i + 1;
        while j < edges.len() && edges[j] == edges[i] {
            j += 1;
        }
        if j - i == 1 {
            open.push(edges[i]);
        }
        i = j;
    }
    open
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn islands_join_through_triangles() {
        let islands = islands(7, &[[0, 1, 2], [4, 5, 6], [2, 3, 1]]);
        assert_eq!(islands, [0, 0, 0, 0, 4, 4, 4]);
    }

    #[test]
    fn open_edges_of_a_square_are_its_four_sides() {
        let positions = [Vec3::ZERO, Vec3::X, Vec3::new(1.0, 1.0, 0.0), Vec3::Y];
        assert_eq!(open_edges(&positions, &[[0, 1, 2], [0, 2, 3]]).len(), 4);
        // The same square with its diagonal's two points doubled (a seam): still four.
        let seamed = [Vec3::ZERO, Vec3::X, Vec3::new(1.0, 1.0, 0.0), Vec3::Y, Vec3::ZERO, Vec3::new(1.0, 1.0, 0.0)];
        assert_eq!(open_edges(&seamed, &[[0, 1, 2], [4, 5, 3]]).len(), 4);
    }
}
