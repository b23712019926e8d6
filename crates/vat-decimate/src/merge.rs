//! The decimated model: one point per kept cluster, attributes averaged, triangles
//! remapped, degenerate and duplicate triangles removed.
//!
//! A point averages the distinct welded vertices (sites) of its cluster, each
//! counted once: a corner that a flat-shaded export repeats six times counts once.
//!
//! Where it lands:
//! - An interior point, whose plain average would sink below a curved surface or
//!   cut across a crease, settles where the planes of the triangles around it
//!   meet best.
//! - A border point (on a uv seam, a part edge or an open edge) must land exactly
//!   where the point on the other side of the seam lands, or a crack opens. The
//!   border clusters that share a seam vertex form one *seam cluster*; its
//!   position (settled on the border lines, so the seam keeps its corners) and its
//!   joint weights are computed once and given to every side.
//!
//! The uv and the morph deltas are the members' averages, carried along with the
//! point when it settles away from their centroid; the normal is their average.
//! Normals, uv and morph deltas are each side's own.

use crate::sets::{find, union, Groups};
use std::collections::HashSet;

use glam::{DMat3, DVec3, Vec2, Vec3};
use vat_model::{Model, MorphTarget, Part, Points, MAX_INFLUENCES};

use crate::cluster::Clustering;
use crate::weld::Sites;

/// The merged model and where each source point went.
pub(crate) struct Merged {
    pub model: Model,
    pub source_to_point: Vec<Option<u32>>,
    /// Parts that had triangles and have none left: (part index, triangles lost).
    pub vanished_parts: Vec<(usize, usize)>,
    /// Source points no source triangle uses (dropped whatever the budget).
    pub unused_points: usize,
}

/// Influences kept per merged point: 8 when some source point behind it uses
/// more than four, else 4 (what JOINTS_0/WEIGHTS_0 alone can carry).
fn influence_slots(weights: impl Iterator<Item = [f32; MAX_INFLUENCES]>) -> usize {
    let mut weights = weights;
    if weights.any(|w| w[4..].iter().any(|&x| x != 0.0)) {
        MAX_INFLUENCES
    } else {
        4
    }
}

/// Sum of weight per joint over some source points, strongest kept (ties to the
/// lower joint, for determinism), renormalized to sum 1; all zero when none of
/// them is skinned.
fn merge_weights(
    model: &Model,
    points: impl Iterator<Item = usize> + Clone,
) -> ([u16; MAX_INFLUENCES], [f32; MAX_INFLUENCES]) {
    let slots = influence_slots(points.clone().map(|p| model.points.weights[p]));
    let mut sums: Vec<(u16, f32)> = Vec::new();
    for point in points {
        for (&joint, &weight) in model.points.joints[point].iter().zip(&model.points.weights[point]) {
            if weight == 0.0 {
                continue;
            }
            match sums.iter_mut().find(|(j, _)| *j == joint) {
                Some((_, sum)) => *sum += weight,
                None => sums.push((joint, weight)),
            }
        }
    }
    sums.sort_by(|a, b| b.1.total_cmp(&a.1).then(a.0.cmp(&b.0)));
    sums.truncate(slots);
    let total: f32 = sums.iter().map(|&(_, w)| w).sum();
    let mut joints = [0u16; MAX_INFLUENCES];
    let mut weights = [0f32; MAX_INFLUENCES];
    if total > 0.0 {
        for (slot, &(joint, weight)) in sums.iter().enumerate() {
            joints[slot] = joint;
            weights[slot] = weight / total;
        }
    }
    (joints, weights)
}

/// Builds the decimated model from a clustering of the sites.
pub(crate) fn merge(model: &Model, sites: &Sites, clustering: &Clustering) -> Merged {
    let point_count = model.points.len();
    let site_count = sites.position.len();
    let cluster_of_point = |point: usize| match sites.site_of_point[point] {
        u32::MAX => None,
        site => Some(clustering.cluster_of_site[site as usize]),
    };

    // Clusters some surviving triangle uses.
    let mut kept = vec![false; site_count];
    for triangle in &sites.triangles {
        let c = triangle.map(|site| clustering.cluster_of_site[site as usize]);
        if c[0] != c[1] && c[1] != c[2] && c[2] != c[0] {
            for cluster in c {
                kept[cluster as usize] = true;
            }
        }
    }

    // Number kept clusters in order of their first point: parts stay contiguous
    // and in order, and the numbering depends on nothing but the input.
    let mut point_of_cluster = vec![u32::MAX; site_count];
    let mut source_to_point = vec![None; point_count];
    let mut next = 0u32;
    for (point, slot) in source_to_point.iter_mut().enumerate() {
        let Some(cluster) = cluster_of_point(point) else { continue };
        if !kept[cluster as usize] {
            continue;
        }
        if point_of_cluster[cluster as usize] == u32::MAX {
            point_of_cluster[cluster as usize] = next;
            next += 1;
        }
        *slot = Some(point_of_cluster[cluster as usize]);
    }
    let merged_count = next as usize;

    let points_of_site = Groups::new(sites.site_of_point.iter().map(|&s| (s != u32::MAX).then_some(s)), site_count);
    let representative = |site: u32| points_of_site.get(site as usize)[0] as usize;
    let sites_of_point = Groups::new(
        clustering.cluster_of_site.iter().map(|&c| {
            let point = point_of_cluster[c as usize];
            (point != u32::MAX).then_some(point)
        }),
        merged_count,
    );
    let planes = surface_planes(model, &source_to_point, merged_count);
    let seams = Seams::new(
        model,
        sites,
        &|site| point_of_cluster[clustering.cluster_of_site[site as usize] as usize],
        &representative,
        merged_count,
    );

    let mut points = Points {
        positions: Vec::with_capacity(merged_count),
        normals: Vec::with_capacity(merged_count),
        uv0: Vec::with_capacity(merged_count),
        joints: Vec::with_capacity(merged_count),
        weights: Vec::with_capacity(merged_count),
    };
    let mut parts = Vec::with_capacity(model.parts.len());
    let mut triangles = Vec::new();
    let mut vanished_parts = Vec::new();
    let mut merged_point = 0usize;
    for (part_index, part) in model.parts.iter().enumerate() {
        let first_point = merged_point;
        let mut morph_targets = vec![MorphTarget::default(); part.morph_targets.len()];
        // Merged points of this part are the next ones in order, until one's first
        // site lies past the part.
        while merged_point < merged_count {
            let members = sites_of_point.get(merged_point);
            if !part.points().contains(&representative(members[0])) {
                break;
            }
            // Every point of a site has the same position, uv, influences and
            // morph position deltas; normals may differ and are averaged per site.
            let count = members.len() as f32;
            let positions: Vec<Vec3> = members.iter().map(|&s| model.points.positions[representative(s)]).collect();
            let centroid = positions.iter().sum::<Vec3>() / count;
            let (position, (joints, weights)) = match seams.of_site(members[0]) {
                Some(seam) => (seam.position, seam.influences),
                None => {
                    let radius = positions.iter().map(|p| p.distance(centroid)).fold(0.0, f32::max);
                    let position = planes[merged_point].settle(centroid, radius);
                    (position, merge_weights(model, members.iter().map(|&s| representative(s))))
                }
            };
            let carry = Carry::new(&positions, centroid, position);
            let site_mean = |value: &dyn Fn(usize) -> Vec3| -> Vec<Vec3> {
                members
                    .iter()
                    .map(|&s| {
                        let site_points = points_of_site.get(s as usize);
                        site_points.iter().map(|&p| value(p as usize)).sum::<Vec3>() / site_points.len() as f32
                    })
                    .collect()
            };

            points.positions.push(position);
            let uvs: Vec<Vec2> = members.iter().map(|&s| model.points.uv0[representative(s)]).collect();
            points.uv0.push(carry.vec2(&uvs));
            let normal = site_mean(&|p| model.points.normals[p]).iter().sum::<Vec3>();
            points.normals.push(normal.try_normalize().unwrap_or(model.points.normals[representative(members[0])]));
            points.joints.push(joints);
            points.weights.push(weights);
            for (source, target) in part.morph_targets.iter().zip(&mut morph_targets) {
                let local = |p: usize| p - part.first_point;
                let deltas: Vec<Vec3> = members.iter().map(|&s| source.positions[local(representative(s))]).collect();
                target.positions.push(carry.vec3(&deltas));
                if !source.normals.is_empty() {
                    target.normals.push(carry.vec3(&site_mean(&|p| source.normals[local(p)])));
                }
            }
            merged_point += 1;
        }

        let first_triangle = triangles.len();
        let mut seen: HashSet<[u32; 3]> = HashSet::new();
        for triangle in &model.triangles[part.triangles()] {
            let [Some(a), Some(b), Some(c)] = triangle.map(|p| source_to_point[p as usize]) else {
                continue;
            };
            if a == b || b == c || c == a {
                continue;
            }
            // Rotated so the smallest index comes first, winding kept: a triangle
            // and its mirror (both sides of a thin sheet) are different triangles.
            let canonical = if a < b && a < c {
                [a, b, c]
            } else if b < c {
                [b, c, a]
            } else {
                [c, a, b]
            };
            if seen.insert(canonical) {
                triangles.push([a, b, c]);
            }
        }
        if part.triangle_count > 0 && triangles.len() == first_triangle {
            vanished_parts.push((part_index, part.triangle_count));
        }
        parts.push(Part {
            node: part.node,
            mesh: part.mesh,
            primitive: part.primitive,
            material: part.material,
            skin: part.skin,
            first_point,
            point_count: merged_point - first_point,
            first_triangle,
            triangle_count: triangles.len() - first_triangle,
            morph_targets,
        });
    }

    let mut used = vec![false; point_count];
    for &point in model.triangles.iter().flatten() {
        used[point as usize] = true;
    }
    let unused_points = used.iter().filter(|&&u| !u).count();

    Merged {
        model: Model {
            nodes: model.nodes.clone(),
            scene_roots: model.scene_roots.clone(),
            skins: model.skins.clone(),
            parts,
            points,
            triangles,
            clips: model.clips.clone(),
            materials: model.materials.clone(),
        },
        source_to_point,
        vanished_parts,
        unused_points,
    }
}

/// Where a seam cluster's points go, and the weights they all get.
struct SeamPoint {
    position: Vec3,
    influences: ([u16; MAX_INFLUENCES], [f32; MAX_INFLUENCES]),
}

/// Seam clusters: the border clusters, of any side, joined wherever they hold
/// the same seam vertex.
struct Seams<'a> {
    sites: &'a Sites,
    /// Seam cluster of every seam vertex (an index into `points`).
    cluster_of_vertex: Vec<u32>,
    points: Vec<SeamPoint>,
}

impl<'a> Seams<'a> {
    /// `point_of_site`: the merged point of a site (`u32::MAX` when dropped);
    /// `representative`: a source point of a site.
    fn new(
        model: &Model,
        sites: &'a Sites,
        point_of_site: &dyn Fn(u32) -> u32,
        representative: &dyn Fn(u32) -> usize,
        merged_count: usize,
    ) -> Seams<'a> {
        let vertices = sites.seam_vertices;
        // A source point at every seam vertex (the lowest site's), for its position and weights.
        let mut source = vec![usize::MAX; vertices];
        let mut parent: Vec<u32> = (0..vertices as u32).collect();
        // The first seam vertex seen of every merged point.
        let mut anchor = vec![u32::MAX; merged_count];
        for site in 0..sites.position.len() as u32 {
            let vertex = sites.seam_vertex[site as usize];
            if vertex == u32::MAX {
                continue;
            }
            if source[vertex as usize] == usize::MAX {
                source[vertex as usize] = representative(site);
            }
            let point = point_of_site(site);
            if point == u32::MAX {
                continue;
            }
            // Join the seam vertices of one border cluster.
            match anchor[point as usize] {
                u32::MAX => anchor[point as usize] = vertex,
                first => union(&mut parent, first, vertex),
            }
        }

        // Number the seam clusters in order of their lowest vertex.
        let mut cluster_of_vertex = vec![u32::MAX; vertices];
        let mut members: Vec<Vec<u32>> = Vec::new();
        for vertex in 0..vertices as u32 {
            let root = find(&mut parent, vertex) as usize;
            if cluster_of_vertex[root] == u32::MAX {
                cluster_of_vertex[root] = members.len() as u32;
                members.push(Vec::new());
            }
            cluster_of_vertex[vertex as usize] = cluster_of_vertex[root];
            members[cluster_of_vertex[root] as usize].push(vertex);
        }

        // The border lines around each seam cluster: every border edge, once per
        // pair of seam vertices, counted for the clusters at its two ends.
        let empty = Planes { a: DMat3::ZERO, b: DVec3::ZERO };
        let mut lines = vec![empty; members.len()];
        let mut seam_edges: Vec<[u32; 2]> = sites
            .border_edges
            .iter()
            .map(|&[a, b]| {
                let (va, vb) = (sites.seam_vertex[a as usize], sites.seam_vertex[b as usize]);
                [va.min(vb), va.max(vb)]
            })
            .collect();
        seam_edges.sort_unstable();
        seam_edges.dedup();
        for [va, vb] in seam_edges {
            let (p, q) = (
                model.points.positions[source[va as usize]].as_dvec3(),
                model.points.positions[source[vb as usize]].as_dvec3(),
            );
            let length = p.distance(q);
            if length <= 0.0 {
                continue;
            }
            let d = (q - p) / length;
            let across = (DMat3::IDENTITY - DMat3::from_cols(d * d.x, d * d.y, d * d.z)) * length;
            let (ca, cb) = (cluster_of_vertex[va as usize], cluster_of_vertex[vb as usize]);
            for cluster in [Some(ca), (cb != ca).then_some(cb)].into_iter().flatten() {
                lines[cluster as usize].a += across;
                lines[cluster as usize].b += across * p;
            }
        }

        let points = members
            .iter()
            .zip(&lines)
            .map(|(vertices, lines)| {
                let positions: Vec<Vec3> =
                    vertices.iter().map(|&v| model.points.positions[source[v as usize]]).collect();
                let centroid = positions.iter().sum::<Vec3>() / positions.len() as f32;
                let radius = positions.iter().map(|p| p.distance(centroid)).fold(0.0, f32::max);
                SeamPoint {
                    position: lines.settle(centroid, radius),
                    influences: merge_weights(model, vertices.iter().map(|&v| source[v as usize])),
                }
            })
            .collect();
        Seams { sites, cluster_of_vertex, points }
    }

    /// The seam point of a border site; `None` for an interior site.
    fn of_site(&self, site: u32) -> Option<&SeamPoint> {
        match self.sites.seam_vertex[site as usize] {
            u32::MAX => None,
            vertex => Some(&self.points[self.cluster_of_vertex[vertex as usize] as usize]),
        }
    }
}

/// A quadric of planes (`Σ w (n·x − d)²`) or of lines (`Σ w·d(x, line)²`) around
/// a merged point, `w` a triangle's area or an edge's length.
#[derive(Clone, Copy)]
struct Planes {
    a: DMat3,
    b: DVec3,
}

/// How strongly a settled point is held at its cluster's centroid, relative to
/// the pull of the planes or lines (their total area or length). Small, so
/// creases and corners win; non-zero, so directions nothing constrains (along a
/// flat patch, along a straight border) keep the average. Chosen by measurement
/// (docs/DECIMATION.md).
const CENTROID_PULL: f64 = 0.002;

impl Planes {
    /// Where the merged point goes: the position that best fits the planes (on a
    /// crease or a corner of the surface, or on the surface of a curved patch,
    /// where the plain average would sink below it) or the lines (on the corner
    /// of a border), pulled weakly towards the centroid, and never further from
    /// it than `radius`, the cluster's size.
    fn settle(&self, centroid: Vec3, radius: f32) -> Vec3 {
        let c = centroid.as_dvec3();
        let total = self.a.x_axis.x + self.a.y_axis.y + self.a.z_axis.z;
        if radius <= 0.0 || total <= 0.0 {
            return centroid;
        }
        let pull = CENTROID_PULL * total;
        let fitted = (self.a + DMat3::from_diagonal(DVec3::splat(pull))).inverse() * (self.b + c * pull);
        let offset = fitted - c;
        let limit = f64::from(radius);
        let settled = if offset.length() > limit { c + offset * (limit / offset.length()) } else { fitted };
        if settled.is_finite() {
            settled.as_vec3()
        } else {
            centroid
        }
    }
}

/// The members' average of an attribute (uv, morph delta), carried along with
/// the point when it settles away from their centroid: each attribute is taken
/// to vary linearly with position over the cluster (a least-squares fit;
/// directions the members barely spread along, such as the surface normal, are
/// damped), so the texture and the morphs stay where the surface went. A cluster
/// is one piece of one uv island, so the fit never spans a seam. With the point
/// at the centroid this is the plain average.
struct Carry {
    /// Each member's share of the attribute's change: `mean + Σ shares[i]·(aᵢ − mean)`.
    shares: Vec<f32>,
}

impl Carry {
    fn new(positions: &[Vec3], centroid: Vec3, settled: Vec3) -> Carry {
        let offsets: Vec<DVec3> = positions.iter().map(|&p| (p - centroid).as_dvec3()).collect();
        let spread_matrix = offsets.iter().fold(DMat3::ZERO, |m, x| m + DMat3::from_cols(*x * x.x, *x * x.y, *x * x.z));
        let spread = spread_matrix.x_axis.x + spread_matrix.y_axis.y + spread_matrix.z_axis.z;
        let moved = (settled - centroid).as_dvec3();
        let step = if spread > 0.0 && moved != DVec3::ZERO {
            (spread_matrix + DMat3::from_diagonal(DVec3::splat(CARRY_DAMPING * spread))).inverse() * moved
        } else {
            DVec3::ZERO
        };
        let shares = offsets.iter().map(|x| x.dot(step) as f32).map(|s| if s.is_finite() { s } else { 0.0 }).collect();
        Carry { shares }
    }

    fn vec3(&self, values: &[Vec3]) -> Vec3 {
        let mean = values.iter().sum::<Vec3>() / values.len() as f32;
        mean + values.iter().zip(&self.shares).map(|(&v, &share)| (v - mean) * share).sum::<Vec3>()
    }

    fn vec2(&self, values: &[Vec2]) -> Vec2 {
        let mean = values.iter().sum::<Vec2>() / values.len() as f32;
        mean + values.iter().zip(&self.shares).map(|(&v, &share)| (v - mean) * share).sum::<Vec2>()
    }
}

/// Damping of the carry fit, relative to the members' total spread.
const CARRY_DAMPING: f64 = 0.01;
/// The plane quadric of every merged point, from the source triangles that touch its members.
fn surface_planes(model: &Model, source_to_point: &[Option<u32>], merged_count: usize) -> Vec<Planes> {
    // Not `Default`: glam's default matrix is the identity.
    let empty = Planes { a: DMat3::ZERO, b: DVec3::ZERO };
    let mut planes = vec![empty; merged_count];
    for triangle in &model.triangles {
        let [p0, p1, p2] = triangle.map(|p| model.points.positions[p as usize].as_dvec3());
        let cross = (p1 - p0).cross(p2 - p0);
        let area = cross.length();
        if area <= 0.0 {
            continue;
        }
        let n = cross / area;
        let d = n.dot(p0);
        let quadric = DMat3::from_cols(n * n.x, n * n.y, n * n.z) * area;
        let corners = triangle.map(|p| source_to_point[p as usize]);
        for (k, corner) in corners.iter().enumerate() {
            let Some(point) = *corner else { continue };
            if corners[..k].contains(corner) {
                continue;
            }
            let plane = &mut planes[point as usize];
            plane.a += quadric;
            plane.b += n * (d * area);
        }
    }
    planes
}
