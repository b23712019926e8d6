//! Point-to-surface distance: from every point of a full-resolution pose to the
//! nearest triangle of a reduced one, with a uniform grid so each point tests
//! only the triangles near it.

use glam::{IVec3, Vec3};

/// Distances from a set of points to a surface: the largest and the mean.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct SurfaceDistance {
    /// Largest distance, in model units.
    pub max: f32,
    /// Mean distance, in model units.
    pub mean: f32,
    /// Points measured.
    pub points: usize,
}

impl SurfaceDistance {
    /// Both measurements together: the larger maximum, the mean over all their points.
    pub fn combine(self, other: SurfaceDistance) -> SurfaceDistance {
        let points = self.points + other.points;
        if points == 0 {
            return SurfaceDistance::default();
        }
        let sum = self.mean as f64 * self.points as f64 + other.mean as f64 * other.points as f64;
        SurfaceDistance { max: self.max.max(other.max), mean: (sum / points as f64) as f32, points }
    }
}

/// Distance from each point of `full` to the nearest point of the surface made by
/// `triangles` over `positions`: its maximum and mean. With no triangles the
/// distance is infinite.
///
/// # Panics
/// If a triangle indexes past `positions`.
///
/// ```
/// use glam::Vec3;
/// // One triangle in the z = 0 plane, and a point half a unit above it.
/// let triangle = [Vec3::ZERO, Vec3::X, Vec3::Y];
/// let d = vat_decimate::surface_distance(&[Vec3::new(0.25, 0.25, 0.5)], &triangle, &[[0, 1, 2]]);
/// assert!((d.max - 0.5).abs() < 1e-6 && d.points == 1);
/// ```
pub fn surface_distance(full: &[Vec3], positions: &[Vec3], triangles: &[[u32; 3]]) -> SurfaceDistance {
    if full.is_empty() {
        return SurfaceDistance::default();
    }
    if triangles.is_empty() {
        return SurfaceDistance { max: f32::INFINITY, mean: f32::INFINITY, points: full.len() };
    }
    let corners: Vec<[Vec3; 3]> = triangles.iter().map(|t| t.map(|i| positions[i as usize])).collect();
    let grid = Grid::new(&corners, full);
    let mut stamp = vec![u32::MAX; corners.len()];
    let (mut max, mut sum) = (0.0f32, 0.0f64);
    for (query, &point) in full.iter().enumerate() {
        let distance = grid.nearest_squared(point, &corners, &mut stamp, query as u32).sqrt();
        max = max.max(distance);
        sum += distance as f64;
    }
    SurfaceDistance { max, mean: (sum / full.len() as f64) as f32, points: full.len() }
}

/// Triangles binned by the grid cells their bounding boxes overlap.
struct Grid {
    origin: Vec3,
    cell: f32,
    dims: IVec3,
    /// Compact lists: the triangles of cell `i` are `items[starts[i]..starts[i + 1]]`.
    starts: Vec<u32>,
    items: Vec<u32>,
}

impl Grid {
    fn new(corners: &[[Vec3; 3]], queries: &[Vec3]) -> Grid {
        let bounds = |points: &mut dyn Iterator<Item = Vec3>| {
            points.fold((Vec3::INFINITY, Vec3::NEG_INFINITY), |(lo, hi), p| (lo.min(p), hi.max(p)))
        };
        // The grid covers the queries too, so every query starts inside it.
        let (lo, hi) = bounds(&mut corners.iter().flatten().chain(queries).copied());
        let extent = (hi - lo).max(Vec3::splat(f32::MIN_POSITIVE));
        // Cells half the size of a typical triangle (few triangles to test per
        // cell), never more than eight cells per triangle in all. Measured: twice
        // as fast as cells the size of a triangle.
        let typical = corners
            .iter()
            .map(|c| (c[0].max(c[1]).max(c[2]) - c[0].min(c[1]).min(c[2])).max_element() as f64)
            .sum::<f64>()
            / corners.len() as f64;
        let mut cell = (typical as f32 * 0.5).max(extent.max_element() / 1024.0);
        let max_cells = (8 * corners.len()).max(64) as f64;
        let dims_for = |cell: f32| (extent / cell).floor().as_ivec3() + IVec3::ONE;
        while dims_for(cell).as_dvec3().element_product() > max_cells {
            cell *= 1.25;
        }
        let dims = dims_for(cell);
        let mut grid = Grid { origin: lo, cell, dims, starts: Vec::new(), items: Vec::new() };

        let cell_count = dims.as_uvec3().element_product() as usize;
        let mut starts = vec![0u32; cell_count + 1];
        let ranges: Vec<(IVec3, IVec3)> = corners
            .iter()
            .map(|c| (grid.cell_of(c[0].min(c[1]).min(c[2])), grid.cell_of(c[0].max(c[1]).max(c[2]))))
            .collect();
        for (triangle, &(a, b)) in corners.iter().zip(&ranges) {
            grid.for_cells(triangle, a, b, |index| starts[index + 1] += 1);
        }
        for i in 0..cell_count {
            starts[i + 1] += starts[i];
        }
        let mut fill = starts.clone();
        let mut items = vec![0u32; starts[cell_count] as usize];
        for (triangle, &(a, b)) in ranges.iter().enumerate() {
            grid.for_cells(&corners[triangle], a, b, |index| {
                items[fill[index] as usize] = triangle as u32;
                fill[index] += 1;
            });
        }
        grid.starts = starts;
        grid.items = items;
        grid
    }

    fn cell_of(&self, p: Vec3) -> IVec3 {
        ((p - self.origin) / self.cell).floor().as_ivec3().clamp(IVec3::ZERO, self.dims - IVec3::ONE)
    }

    fn index(&self, c: IVec3) -> usize {
        (c.x + self.dims.x * (c.y + self.dims.y * c.z)) as usize
    }

    /// Calls `f` with every cell from `a` to `b` that the triangle's plane passes
    /// through: a slanted triangle's bounding box holds many cells it misses.
    fn for_cells(&self, triangle: &[Vec3; 3], a: IVec3, b: IVec3, mut f: impl FnMut(usize)) {
        let normal = (triangle[1] - triangle[0]).cross(triangle[2] - triangle[0]).normalize_or_zero();
        let offset = normal.dot(triangle[0]);
        // Half the cell's extent along the normal, with a margin for rounding.
        let reach = 0.5 * self.cell * normal.abs().element_sum() * 1.001 + f32::EPSILON * offset.abs();
        for z in a.z..=b.z {
            for y in a.y..=b.y {
                for x in a.x..=b.x {
                    let c = IVec3::new(x, y, z);
                    let centre = self.origin + (c.as_vec3() + 0.5) * self.cell;
                    if normal == Vec3::ZERO || (normal.dot(centre) - offset).abs() <= reach {
                        f(self.index(c));
                    }
                }
            }
        }
    }

    /// Squared distance from `p` to the nearest triangle: rings of cells around
    /// p's cell, outwards, until no unvisited cell can be nearer than the best so far.
    fn nearest_squared(&self, p: Vec3, corners: &[[Vec3; 3]], stamp: &mut [u32], query: u32) -> f32 {
        let centre = self.cell_of(p);
        let mut best = f32::INFINITY;
        let mut ring = 0i32;
        loop {
            let mut visit = |c: IVec3| {
                if c.cmplt(IVec3::ZERO).any() || c.cmpge(self.dims).any() {
                    return;
                }
                // A cell no nearer than the best triangle so far cannot hold a nearer one.
                let lo = self.origin + c.as_vec3() * self.cell;
                let outside = (lo - p).max(p - (lo + Vec3::splat(self.cell))).max(Vec3::ZERO);
                if outside.length_squared() >= best {
                    return;
                }
                let index = self.index(c);
                for &triangle in &self.items[self.starts[index] as usize..self.starts[index + 1] as usize] {
                    if stamp[triangle as usize] == query {
                        continue;
                    }
                    stamp[triangle as usize] = query;
                    best = best.min(point_triangle_squared(p, &corners[triangle as usize]));
                }
            };
            for dz in -ring..=ring {
                for dy in -ring..=ring {
                    if dz.abs() == ring || dy.abs() == ring {
                        for dx in -ring..=ring {
                            visit(centre + IVec3::new(dx, dy, dz));
                        }
                    } else {
                        visit(centre + IVec3::new(-ring, dy, dz));
                        if ring > 0 {
                            visit(centre + IVec3::new(ring, dy, dz));
                        }
                    }
                }
            }
            // Every cell within `ring` is visited: an unvisited triangle lies
            // wholly beyond one of the faces of that box that is inside the grid.
            let low = centre - IVec3::splat(ring);
            let high = centre + IVec3::splat(ring + 1);
            let mut bound = f32::INFINITY;
            for axis in 0..3 {
                if low[axis] > 0 {
                    bound = bound.min(p[axis] - (self.origin[axis] + low[axis] as f32 * self.cell));
                }
                if high[axis] < self.dims[axis] {
                    bound = bound.min(self.origin[axis] + high[axis] as f32 * self.cell - p[axis]);
                }
            }
            if bound == f32::INFINITY || best <= bound.max(0.0) * bound.max(0.0) {
                return best;
            }
            ring += 1;
        }
    }
}

/// Squared distance from a point to a triangle (Ericson, Real-Time Collision
/// Detection, §5.1.5: the closest point by Voronoi region).
fn point_triangle_squared(p: Vec3, [a, b, c]: &[Vec3; 3]) -> f32 {
    let (a, b, c) = (*a, *b, *c);
    let ab = b - a;
    let ac = c - a;
    let ap = p - a;
    let d1 = ab.dot(ap);
    let d2 = ac.dot(ap);
    if d1 <= 0.0 && d2 <= 0.0 {
        return ap.length_squared();
    }
    let bp = p - b;
    let d3 = ab.dot(bp);
    let d4 = ac.dot(bp);
    if d3 >= 0.0 && d4 <= d3 {
        return bp.length_squared();
    }
    let vc = d1 * d4 - d3 * d2;
    if vc <= 0.0 && d1 >= 0.0 && d3 <= 0.0 {
        let v = d1 / (d1 - d3);
        return (p - (a + ab * v)).length_squared();
    }
    let cp = p - c;
    let d5 = ab.dot(cp);
    let d6 = ac.dot(cp);
    if d6 >= 0.0 && d5 <= d6 {
        return cp.length_squared();
    }
    let vb = d5 * d2 - d1 * d6;
    if vb <= 0.0 && d2 >= 0.0 && d6 <= 0.0 {
        let w = d2 / (d2 - d6);
        return (p - (a + ac * w)).length_squared();
    }
    let va = d3 * d6 - d5 * d4;
    if va <= 0.0 && (d4 - d3) >= 0.0 && (d5 - d6) >= 0.0 {
        let w = (d4 - d3) / ((d4 - d3) + (d5 - d6));
        return (p - (b + (c - b) * w)).length_squared();
    }
    let denom = va + vb + vc;
    if denom.abs() <= f32::MIN_POSITIVE {
        // Degenerate (zero-area) triangle: the nearest of its three edges.
        return segment_squared(p, a, b).min(segment_squared(p, b, c)).min(segment_squared(p, c, a));
    }
    let v = vb / denom;
    let w = vc / denom;
    (p - (a + ab * v + ac * w)).length_squared()
}

fn segment_squared(p: Vec3, a: Vec3, b: Vec3) -> f32 {
    let ab = b - a;
    let t = if ab.length_squared() > 0.0 { ((p - a).dot(ab) / ab.length_squared()).clamp(0.0, 1.0) } else { 0.0 };
    (p - (a + ab * t)).length_squared()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn point_to_triangle_regions() {
        let t = [Vec3::ZERO, Vec3::X, Vec3::Y];
        assert_eq!(point_triangle_squared(Vec3::new(0.25, 0.25, 2.0), &t), 4.0);
        assert_eq!(point_triangle_squared(Vec3::new(-1.0, -1.0, 0.0), &t), 2.0);
        assert_eq!(point_triangle_squared(Vec3::new(0.5, -3.0, 0.0), &t), 9.0);
        assert!((point_triangle_squared(Vec3::new(1.0, 1.0, 0.0), &t) - 0.5).abs() < 1e-6);
        assert_eq!(point_triangle_squared(Vec3::new(3.0, 0.0, 0.0), &t), 4.0);
    }

    #[test]
    fn grid_search_matches_brute_force() {
        // A bumpy sheet of triangles and points scattered above and beside it.
        let n = 24;
        let height = |x: f32, y: f32| (x * 0.7).sin() * (y * 0.4).cos();
        let positions: Vec<Vec3> = (0..n * n)
            .map(|i| Vec3::new((i % n) as f32, (i / n) as f32, height((i % n) as f32, (i / n) as f32)))
            .collect();
        let mut triangles = Vec::new();
        for y in 0..n - 1 {
            for x in 0..n - 1 {
                let i = (y * n + x) as u32;
                triangles.push([i, i + 1, i + n as u32]);
                triangles.push([i + 1, i + n as u32 + 1, i + n as u32]);
            }
        }
        let mut seed = 12345u32;
        let mut random = || {
            seed = seed.wrapping_mul(1_664_525).wrapping_add(1_013_904_223);
            (seed >> 8) as f32 / (1 << 24) as f32
        };
        let queries: Vec<Vec3> =
            (0..500).map(|_| Vec3::new(random() * 40.0 - 8.0, random() * 40.0 - 8.0, random() * 6.0 - 3.0)).collect();
        let measured = surface_distance(&queries, &positions, &triangles);
        let corners: Vec<[Vec3; 3]> = triangles.iter().map(|t| t.map(|i| positions[i as usize])).collect();
        let brute: Vec<f32> = queries
            .iter()
            .map(|&q| corners.iter().map(|c| point_triangle_squared(q, c)).fold(f32::INFINITY, f32::min).sqrt())
            .collect();
        let max = brute.iter().copied().fold(0.0, f32::max);
        let mean = brute.iter().sum::<f32>() / brute.len() as f32;
        assert_eq!(measured.max, max);
        assert!((measured.mean - mean).abs() <= 1e-4 * mean, "{} vs {mean}", measured.mean);
        assert_eq!(measured.points, 500);
    }

    #[test]
    fn combining_weighs_by_points() {
        let a = SurfaceDistance { max: 1.0, mean: 0.5, points: 1 };
        let b = SurfaceDistance { max: 2.0, mean: 0.2, points: 4 };
        let both = a.combine(b);
        assert_eq!((both.max, both.points), (2.0, 5));
        assert!((both.mean - 0.26).abs() < 1e-6);
        assert_eq!(SurfaceDistance::default().combine(a), a);
    }
}
