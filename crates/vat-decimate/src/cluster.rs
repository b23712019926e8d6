//! Clusters: sites that share a grid cell and are joined by triangle edges inside it.
//!
//! A cluster is a connected piece of one part's surface within one cell of a
//! uniform grid. Requiring the connection to run inside the cell is what keeps
//! seams: the two sides of a uv seam meet only through their separate seam
//! vertices, never through an edge, so they stay two clusters even when they
//! share a cell; the same goes for two fingers that touch, or two islands.
//! Interior sites join along interior edges, border sites only along the border
//! (`Sites::joinable`), so a border cluster is a stretch of one seam.
//!
//! An island (a connected piece of surface: one uv island of one part) smaller
//! than a cell would collapse to a point or a line and leave a hole. Such an
//! island is clustered again with cells half the size, then a quarter, until it
//! keeps a triangle: every island survives, and a budget too small to hold them
//! all is an error.
//!
//! The cell size is searched (bisection on its logarithm, starting from the size
//! the surface area suggests) for the largest number of points that is still
//! within the budget. Only points some surviving (non-degenerate) triangle uses
//! are counted: the others would be texture columns no one draws, and are dropped.

use crate::sets::{find, union, Groups};
use glam::{Quat, Vec3};

use crate::weld::Sites;

/// Finest grid tried, as a fraction of the model's largest extent: 2⁻²⁰, far below
/// the 16-bit quantization step of the texture, so merging at this size loses nothing.
const FINEST: f32 = 1.0 / (1 << 20) as f32;

/// The bisection stops when the cell sizes bracketing the budget differ by less than this factor.
const BRACKET: f32 = 1.0 + 1.0e-3;

/// Factor between the sizes tried while looking for a bracket.
const STEP: f32 = 1.5;

/// The search stops once it keeps at least `budget − budget / CLOSE_ENOUGH` points.
const CLOSE_ENOUGH: usize = 500;

/// Sizes tried, from the finest to the coarsest, when the search finds nothing within budget.
const FLOOR_SCAN: usize = 64;

/// Safety cap on search steps (a search takes about 15).
const MAX_STEPS: usize = 80;

/// A clustering: each site's cluster (a representative site id) and how many
/// points surviving triangles use.
pub(crate) struct Clustering {
    /// Edge of the grid cells; 0 when only identical vertices merged.
    pub cell_size: f32,
    pub cluster_of_site: Vec<u32>,
    pub points: usize,
}

/// Reusable buffers for repeated clusterings of the same sites.
pub(crate) struct Clusterer<'a> {
    sites: &'a Sites,
    /// Site positions in the grid's frame.
    position: Vec<Vec3>,
    origin: Vec3,
    extent: f32,
    /// Total triangle area, to guess the first cell size.
    area: f32,
    /// Sites some triangle uses.
    used_sites: usize,
    island_of_triangle: Vec<u32>,
    island_sites: Groups,
    /// Joinable edges of each island.
    island_edges: Groups,
    island_triangles: Groups,
    parent: Vec<u32>,
    cell: Vec<u64>,
    mark: Vec<u32>,
    alive: Vec<bool>,
    generation: u32,
}

fn degenerate(roots: [u32; 3]) -> bool {
    roots[0] == roots[1] || roots[1] == roots[2] || roots[2] == roots[0]
}

impl<'a> Clusterer<'a> {
    pub fn new(sites: &'a Sites) -> Self {
        let count = sites.position.len();
        // The grid is turned by a rotation of no special angle: a model built on an
        // axis-aligned lattice (a subdivided box, a terrain patch) would otherwise
        // fall into cells all at once as the size crosses the lattice spacing, and
        // the count would jump by thousands for a tiny change of size.
        let turn = Quat::from_axis_angle(Vec3::new(0.5773, 0.6123, 0.5401).normalize(), 0.7311);
        let position: Vec<Vec3> = sites.position.iter().map(|&p| turn * p).collect();
        let (min, max) =
            position.iter().fold((Vec3::INFINITY, Vec3::NEG_INFINITY), |(lo, hi), &p| (lo.min(p), hi.max(p)));
        // A model squeezed into one point still needs a positive cell size to search over.
        let extent = if count == 0 { 0.0 } else { (max - min).max_element() };
        let extent = if extent > 0.0 && extent.is_finite() { extent } else { 1.0 };
        let area = sites
            .triangles
            .iter()
            .map(|t| {
                let [a, b, c] = t.map(|s| sites.position[s as usize]);
                0.5 * (b - a).cross(c - a).length()
            })
            .sum();

        let mut used = vec![false; count];
        sites.triangles.iter().flatten().for_each(|&site| used[site as usize] = true);
        let used_sites = used.iter().filter(|&&u| u).count();

        // Islands: connected pieces of the welded surface.
        let mut parent: Vec<u32> = (0..count as u32).collect();
        for &[a, b] in &sites.edges {
            union(&mut parent, a, b);
        }
        let mut island_of_root = vec![u32::MAX; count];
        let mut island_of_site = vec![0u32; count];
        let mut islands = 0u32;
        for site in 0..count as u32 {
            let root = find(&mut parent, site) as usize;
            if island_of_root[root] == u32::MAX {
                island_of_root[root] = islands;
                islands += 1;
            }
            island_of_site[site as usize] = island_of_root[root];
        }
        let island_of_edge: Vec<u32> = sites.joinable.iter().map(|e| island_of_site[e[0] as usize]).collect();
        let island_of_triangle: Vec<u32> = sites.triangles.iter().map(|t| island_of_site[t[0] as usize]).collect();
        let islands = islands as usize;

        Clusterer {
            sites,
            position,
            origin: min,
            extent,
            area,
            used_sites,
            island_sites: Groups::of(&island_of_site, islands),
            island_edges: Groups::of(&island_of_edge, islands),
            island_triangles: Groups::of(&island_of_triangle, islands),
            island_of_triangle,
            parent,
            cell: vec![0; count],
            mark: vec![0; count],
            alive: vec![false; islands],
            generation: 0,
        }
    }

    fn finest(&self) -> f32 {
        self.extent * FINEST
    }

    /// One cell holds everything.
    fn coarsest(&self) -> f32 {
        self.extent * 2.0
    }

    /// Grid cell of a site, packed; coordinates stay below 2²¹ because
    /// `cell_size ≥ extent · 2⁻²⁰`.
    fn cell_of(&self, site: u32, inverse: f32) -> u64 {
        let c = ((self.position[site as usize] - self.origin) * inverse).floor().max(Vec3::ZERO).as_uvec3();
        (u64::from(c.x) << 42) | (u64::from(c.y) << 21) | u64::from(c.z)
    }

    /// Clusters every site at a cell size (0 = sites only).
    fn cluster_all(&mut self, cell_size: f32) {
        for (site, parent) in self.parent.iter_mut().enumerate() {
            *parent = site as u32;
        }
        if cell_size <= 0.0 {
            return;
        }
        let inverse = 1.0 / cell_size;
        for site in 0..self.cell.len() {
            self.cell[site] = self.cell_of(site as u32, inverse);
        }
        for &[a, b] in &self.sites.joinable {
            if self.cell[a as usize] == self.cell[b as usize] {
                union(&mut self.parent, a, b);
            }
        }
    }

    /// Clusters one island's sites again, at another cell size.
    fn cluster_island(&mut self, island: usize, cell_size: f32) {
        let inverse = if cell_size > 0.0 { 1.0 / cell_size } else { 0.0 };
        for i in 0..self.island_sites.get(island).len() {
            let site = self.island_sites.get(island)[i];
            self.parent[site as usize] = site;
            if cell_size > 0.0 {
                self.cell[site as usize] = self.cell_of(site, inverse);
            }
        }
        if cell_size <= 0.0 {
            return;
        }
        let Clusterer { sites, island_edges, parent, cell, .. } = self;
        for &edge in island_edges.get(island) {
            let [a, b] = sites.joinable[edge as usize];
            if cell[a as usize] == cell[b as usize] {
                union(parent, a, b);
            }
        }
    }

    /// Clusters at a cell size, rescues islands that lost every triangle, and
    /// counts the points kept.
    fn run(&mut self, cell_size: f32) -> usize {
        self.cluster_all(cell_size);
        // Every parent is a smaller id than its child (unions keep the smaller
        // root), so one pass in id order points every site straight at its root.
        for site in 0..self.parent.len() {
            self.parent[site] = self.parent[self.parent[site] as usize];
        }
        let sites = self.sites;
        self.generation += 1;
        let generation = self.generation;
        self.alive.fill(false);
        let mut points = 0;
        for (triangle, &island) in sites.triangles.iter().zip(&self.island_of_triangle) {
            let roots = triangle.map(|site| self.parent[site as usize]);
            if degenerate(roots) {
                continue;
            }
            self.alive[island as usize] = true;
            for root in roots {
                if self.mark[root as usize] != generation {
                    self.mark[root as usize] = generation;
                    points += 1;
                }
            }
        }
        for island in 0..self.alive.len() {
            if self.alive[island] {
                continue;
            }
            let mut size = cell_size;
            loop {
                size = if size * 0.5 < self.finest() { 0.0 } else { size * 0.5 };
                self.cluster_island(island, size);
                let Clusterer { island_triangles, parent, .. } = self;
                let alive = island_triangles.get(island).iter().any(|&t| {
                    let triangle = sites.triangles[t as usize];
                    !degenerate(triangle.map(|s| find(parent, s)))
                });
                // Sites alone always keep a triangle (site triangles are never degenerate).
                if alive || size == 0.0 {
                    break;
                }
            }
            let Clusterer { island_triangles, parent, mark, .. } = self;
            for &t in island_triangles.get(island) {
                let roots = sites.triangles[t as usize].map(|s| find(parent, s));
                if degenerate(roots) {
                    continue;
                }
                for root in roots {
                    if mark[root as usize] != generation {
                        mark[root as usize] = generation;
                        points += 1;
                    }
                }
            }
        }
        points
    }

    /// The clustering the last run made, with every site mapped to its cluster's root.
    fn snapshot(&mut self, cell_size: f32, points: usize) -> Clustering {
        let cluster_of_site = (0..self.parent.len() as u32).map(|site| find(&mut self.parent, site)).collect();
        Clustering { cell_size, cluster_of_site, points }
    }

    /// The clustering that keeps the most points without exceeding `budget`;
    /// `Err` with the fewest points any cell size keeps (every island reduced to
    /// about its smallest; a budget that works) when none fits the budget.
    pub fn search(&mut self, budget: usize) -> Result<Clustering, usize> {
        // Every site a triangle uses is kept when nothing but identical vertices merge.
        if self.used_sites <= budget {
            let points = self.run(0.0);
            return Ok(self.snapshot(0.0, points));
        }
        let close_enough = budget - budget / CLOSE_ENOUGH;
        let mut best: Option<Clustering> = None;
        // Runs a size and keeps its clustering when it is the best within budget so far.
        let try_size = |this: &mut Self, best: &mut Option<Clustering>, size: f32| {
            let count = this.run(size);
            if count <= budget && best.as_ref().is_none_or(|b| count > b.points) {
                *best = Some(this.snapshot(size, count));
            }
            count
        };

        // Bracket the budget, starting where the area puts it: about one point per h².
        let (finest, coarsest) = (self.finest(), self.coarsest());
        let guess = (self.area / budget as f32).sqrt().clamp(finest, coarsest);
        let mut steps = 0;
        let count = try_size(self, &mut best, guess);
        let (mut lo, mut hi) = (finest, coarsest);
        if count > budget {
            lo = guess;
            let mut size = guess;
            while size < coarsest && steps < MAX_STEPS {
                steps += 1;
                size = (size * STEP).min(coarsest);
                let count = try_size(self, &mut best, size);
                if count <= budget {
                    hi = size;
                    break;
                }
                lo = size;
            }
        } else {
            hi = guess;
            let mut size = guess;
            while size > finest && steps < MAX_STEPS {
                steps += 1;
                size = (size / STEP).max(finest);
                let count = try_size(self, &mut best, size);
                if count > budget {
                    lo = size;
                    break;
                }
                hi = size;
            }
        }
        // count(lo) > budget ≥ count(hi). The count is not strictly monotonic in
        // the cell size (grid alignment), so keep the best feasible size seen.
        while hi > lo * BRACKET && steps < MAX_STEPS && best.as_ref().is_none_or(|b| b.points < close_enough) {
            steps += 1;
            let mid = (lo * hi).sqrt();
            if try_size(self, &mut best, mid) <= budget {
                hi = mid;
            } else {
                lo = mid;
            }
        }
        if let Some(best) = best {
            return Ok(best);
        }
        // Nothing the bisection tried fits: a tiny budget near the floor, where
        // the count jumps about. Try sizes all the way up, and if none fits, say
        // the smallest count any of them keeps (a budget that then works).
        let mut smallest = usize::MAX;
        let mut best: Option<Clustering> = None;
        for step in 0..=FLOOR_SCAN {
            let size = finest * (coarsest / finest).powf(step as f32 / FLOOR_SCAN as f32);
            let count = try_size(self, &mut best, size);
            if count > 0 {
                smallest = smallest.min(count);
            }
        }
        best.ok_or(smallest)
    }
}
