//! Sites: the points of a part welded where they are one vertex of the surface in
//! every attribute that must not be averaged away, and the triangle edges between them.
//!
//! A glTF exporter splits a vertex wherever any attribute differs: at a uv seam
//! (same position, different uv), at a hard edge (different normal), and a
//! flat-shaded export gives every triangle its own three vertices. Connectivity
//! has to see through the hard-edge splits (or a flat-shaded model could never
//! merge anything) but never through a seam. So two points are one site when they
//! share part, position, uv, skin influences and morph position deltas, bit for
//! bit; normals may differ (they are averaged).

use glam::{Vec2, Vec3};
use vat_model::{Model, MAX_INFLUENCES};

/// Welded points and the surface between them.
pub(crate) struct Sites {
    /// Site of every point; `u32::MAX` for points that belong to no part.
    pub site_of_point: Vec<u32>,
    /// Position of every site in the clustering space.
    pub position: Vec<Vec3>,
    /// For a site on a border (an edge only one triangle uses: a uv seam, where
    /// each side has its own vertices, the edge between two parts, or an open
    /// edge), its place on the seam: the same id for every border site at the
    /// same position whose positions and weights can be shared (same bind space,
    /// same skin), whatever its side. `u32::MAX` for interior sites.
    pub seam_vertex: Vec<u32>,
    /// Number of seam vertex ids.
    pub seam_vertices: usize,
    /// Triangles in site ids; triangles with two corners on one site (zero area in
    /// the source) are left out.
    pub triangles: Vec<[u32; 3]>,
    /// Edges of those triangles, each once, smaller id first.
    pub edges: Vec<[u32; 2]>,
    /// The edges clusters may grow along: between two interior sites, or along a
    /// border. Clusters never mix interior and border sites.
    pub joinable: Vec<[u32; 2]>,
    /// Edges only one triangle uses, smaller id first.
    pub border_edges: Vec<[u32; 2]>,
}

/// A float's bits with −0 folded into +0, so the two compare equal.
fn bits(x: f32) -> u32 {
    (x + 0.0).to_bits()
}

fn vec3_bits(v: Vec3) -> [u32; 3] {
    [bits(v.x), bits(v.y), bits(v.z)]
}

fn vec2_bits(v: Vec2) -> [u32; 2] {
    [bits(v.x), bits(v.y)]
}

/// One step of FNV-1a over a 32-bit word; collisions are resolved by a full comparison.
fn mix(hash: u64, word: u32) -> u64 {
    (hash ^ u64::from(word)).wrapping_mul(0x0000_0100_0000_01b3)
}

/// Influences as (joint, weight bits) with unused slots (weight 0) zeroed, so junk
/// joint indices behind a zero weight do not split a site.
fn influences(model: &Model, point: usize) -> [(u16, u32); MAX_INFLUENCES] {
    let joints = &model.points.joints[point];
    let weights = &model.points.weights[point];
    std::array::from_fn(|slot| if weights[slot] == 0.0 { (0, 0) } else { (joints[slot], bits(weights[slot])) })
}

fn weld_hash(model: &Model, part: usize, point: usize, local: usize) -> u64 {
    let mut hash = mix(0xcbf2_9ce4_8422_2325, part as u32);
    for word in vec3_bits(model.points.positions[point]) {
        hash = mix(hash, word);
    }
    for word in vec2_bits(model.points.uv0[point]) {
        hash = mix(hash, word);
    }
    for (joint, weight) in influences(model, point) {
        hash = mix(mix(hash, u32::from(joint)), weight);
    }
    for target in &model.parts[part].morph_targets {
        for word in vec3_bits(target.positions.get(local).copied().unwrap_or(Vec3::ZERO)) {
            hash = mix(hash, word);
        }
    }
    hash
}

/// Whether two points of one part are the same site.
fn same_site(model: &Model, part: usize, a: usize, b: usize) -> bool {
    let points = &model.points;
    let first = model.parts[part].first_point;
    vec3_bits(points.positions[a]) == vec3_bits(points.positions[b])
        && vec2_bits(points.uv0[a]) == vec2_bits(points.uv0[b])
        && influences(model, a) == influences(model, b)
        && model.parts[part].morph_targets.iter().all(|target| {
            let delta = |p: usize| vec3_bits(target.positions.get(p - first).copied().unwrap_or(Vec3::ZERO));
            delta(a) == delta(b)
        })
}

/// Welds the model's points into sites; `space` gives each point's position for
/// clustering (one entry per point).
pub(crate) fn weld(model: &Model, space: &[Vec3]) -> Sites {
    let point_count = model.points.len();
    let mut part_of_point = vec![u32::MAX; point_count];
    for (index, part) in model.parts.iter().enumerate() {
        part_of_point[part.points()].fill(index as u32);
    }

    // Sort (hash, point) pairs; within a run of equal hashes, a point joins the
    // first earlier point of the run it fully equals. Runs are short (the points
    // of one flat-shaded corner), so the quadratic scan inside a run is cheap.
    let mut keyed: Vec<(u64, u32)> = (0..point_count)
        .filter(|&point| part_of_point[point] != u32::MAX)
        .map(|point| {
            let part = part_of_point[point] as usize;
            let local = point - model.parts[part].first_point;
            (weld_hash(model, part, point, local), point as u32)
        })
        .collect();
    keyed.sort_unstable();
    let mut representative: Vec<u32> = (0..point_count as u32).collect();
    let mut run_start = 0;
    while run_start < keyed.len() {
        let mut run_end = run_start + 1;
        while run_end < keyed.len() && keyed[run_end].0 == keyed[run_start].0 {
            run_end += 1;
        }
        for i in run_start + 1..run_end {
            let point = keyed[i].1 as usize;
            let part = part_of_point[point];
            let twin = keyed[run_start..i].iter().map(|&(_, p)| p as usize).find(|&earlier| {
                representative[earlier] == earlier as u32
                    && part_of_point[earlier] == part
                    && same_site(model, part as usize, earlier, point)
            });
            if let Some(twin) = twin {
                representative[point] = twin as u32;
            }
        }
        run_start = run_end;
    }

    // Number the sites in order of their first point.
    let mut site_of_point = vec![u32::MAX; point_count];
    let mut part = Vec::new();
    let mut position = Vec::new();
    let mut first_point = Vec::new();
    for point in 0..point_count {
        if part_of_point[point] == u32::MAX {
            continue;
        }
        let first = representative[point] as usize;
        if first == point {
            site_of_point[point] = part.len() as u32;
            part.push(part_of_point[point]);
            position.push(space[point]);
            first_point.push(point as u32);
        } else {
            site_of_point[point] = site_of_point[first];
        }
    }

    let mut triangles = Vec::with_capacity(model.triangles.len());
    let mut edges = Vec::with_capacity(model.triangles.len() * 3);
    for triangle in &model.triangles {
        let corners = triangle.map(|point| site_of_point[point as usize]);
        // A triangle whose corners lie in different parts breaks the model's
        // contract (each part owns its triangles); it is left out like a degenerate one.
        if corners.contains(&u32::MAX)
            || corners[0] == corners[1]
            || corners[1] == corners[2]
            || corners[2] == corners[0]
            || part[corners[0] as usize] != part[corners[1] as usize]
            || part[corners[1] as usize] != part[corners[2] as usize]
        {
            continue;
        }
        triangles.push(corners);
        for (a, b) in [(corners[0], corners[1]), (corners[1], corners[2]), (corners[2], corners[0])] {
            edges.push([a.min(b), a.max(b)]);
        }
    }
    sort_edges(&mut edges, part.len());
    let mut border_edge = Vec::with_capacity(edges.len() / 2);
    for run in edges.chunk_by(|a, b| a == b) {
        border_edge.push(run.len() != 2);
    }
    edges.dedup();
    let mut border = vec![false; part.len()];
    let mut border_edges = Vec::new();
    for (&[a, b], _) in edges.iter().zip(&border_edge).filter(|(_, &on_border)| on_border) {
        border[a as usize] = true;
        border[b as usize] = true;
        border_edges.push([a, b]);
    }
    let joinable = edges
        .iter()
        .zip(&border_edge)
        .filter(|&(&[a, b], &on_border)| on_border || (!border[a as usize] && !border[b as usize]))
        .map(|(&edge, _)| edge)
        .collect();
    let (seam_vertex, seam_vertices) = seam_vertices(model, space, &part, &border, &first_point);
    Sites { site_of_point, position, seam_vertex, seam_vertices, triangles, edges, joinable, border_edges }
}

/// Seam vertex ids of the border sites (see [`Sites::seam_vertex`]). Parts whose
/// points are their own clustering positions (skinned parts: their bind space)
/// share one space; any other part (an unskinned part under a transformed node)
/// only shares with itself. Within a space, sites share a seam vertex when they
/// have the same position and the same skin.
fn seam_vertices(
    model: &Model,
    space: &[Vec3],
    part: &[u32],
    border: &[bool],
    first_point: &[u32],
) -> (Vec<u32>, usize) {
    let shared_space: Vec<bool> = model
        .parts
        .iter()
        .map(|p| p.points().all(|point| vec3_bits(space[point]) == vec3_bits(model.points.positions[point])))
        .collect();
    let group = |site: usize| {
        let part_index = part[site] as usize;
        let owner = if shared_space[part_index] { u32::MAX } else { part_index as u32 };
        let skin = model.parts[part_index].skin.map_or(u32::MAX, |s| s as u32);
        (owner, skin)
    };
    let mut keyed: Vec<((u32, u32), [u32; 3], u32)> = (0..part.len())
        .filter(|&site| border[site])
        .map(|site| (group(site), vec3_bits(model.points.positions[first_point[site] as usize]), site as u32))
        .collect();
    keyed.sort_unstable();
    let mut seam_vertex = vec![u32::MAX; part.len()];
    let mut count = 0u32;
    for run in keyed.chunk_by(|a, b| (a.0, a.1) == (b.0, b.1)) {
        for &(_, _, site) in run {
            seam_vertex[site as usize] = count;
        }
        count += 1;
    }
    (seam_vertex, count as usize)
}

/// Sorts edges (smaller id first) by their first site with a counting sort, then
/// each short run by the second: linear in the edge count, where a comparison
/// sort of the hundred thousand edges of a 30,000-point model is most of a weld.
fn sort_edges(edges: &mut Vec<[u32; 2]>, sites: usize) {
    let mut starts = vec![0u32; sites + 1];
    for &[a, _] in edges.iter() {
        starts[a as usize + 1] += 1;
    }
    for site in 0..sites {
        starts[site + 1] += starts[site];
    }
    let mut sorted = vec![[0u32; 2]; edges.len()];
    let mut fill = starts.clone();
    for &edge in edges.iter() {
        sorted[fill[edge[0] as usize] as usize] = edge;
        fill[edge[0] as usize] += 1;
    }
    for site in 0..sites {
        sorted[starts[site] as usize..starts[site + 1] as usize].sort_unstable();
    }
    *edges = sorted;
}
