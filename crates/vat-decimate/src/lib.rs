//! Cluster decimation: a [`Model`] and a point budget to a smaller `Model` with at
//! most that many points, and the surface distance that says what it cost.
//!
//! What it does ([`decimate`], [`decimate_in`]; docs/DECIMATION.md has the why
//! and the measurements):
//! - Welds the points of each part that are one vertex in everything but the
//!   normal (a flat-shaded export repeats every corner), then lays a uniform grid
//!   over the bind pose. A **cluster** is a piece of one part's surface inside one
//!   cell that is connected by triangle edges inside that cell; sites on a border
//!   (a uv seam, a part edge, an open edge) only join along the border. Each
//!   cluster becomes one point.
//! - Seams hold: the two sides of a uv seam meet only at their separate seam
//!   vertices, never along an edge, so they never share a cluster; neither do two
//!   uv islands, two touching fingers, or points of different parts. A part is one
//!   primitive, so one material, one skin, one node and one set of morph targets:
//!   clusters never cross a material boundary, a skin, or a morph target set. The
//!   border points on the two sides of a seam get one position and one set of
//!   weights, so no crack opens.
//! - An island that would collapse at the grid's size is clustered again on a
//!   finer grid until it keeps a triangle: no island leaves a hole.
//! - The cell size is searched (bisection on its logarithm) so the kept points are
//!   as many as possible but never more than the budget. Points no surviving
//!   triangle uses are dropped: they would be texture columns nobody draws.
//! - A merged point averages normal (renormalized), uv and morph deltas of its
//!   members, each distinct welded vertex counting once. Joint weights are summed
//!   per joint; the strongest 4 are kept (8 where the source uses more than 4) and
//!   renormalized to sum 1. Its position is the average settled onto the surface
//!   (the best fit of the planes of the triangles around it, or of the border
//!   lines), and uv and morph deltas move with it along the cluster's linear fit.
//! - Triangles are remapped; those that collapse, and repeats of a triangle with
//!   the same winding, are removed. Parts keep their order and stay contiguous;
//!   nodes, skins, clips and materials are carried over unchanged.
//! - Output depends only on the input: no hash-order or thread dependence.
//!
//! [`surface_distance`] measures one pose: the distance from every full-resolution
//! point to the nearest decimated triangle, maximum and mean. [`pose_error`] does
//! that for a full model and its decimation evaluated in the same pose.
//!
//! [`lod::Simplifier`] makes levels of detail that keep a subset of a model's own
//! points (meshoptimizer's edge collapse, borders locked, every uv island kept), for
//! LODs that play from the one texture of the finest bake.
//!
//! What it does not do: evaluate animation (the caller evaluates both models, see
//! `vat-skin`), touch files, or recompute normals.
//!
//! Dependencies: of this workspace, only `vat-model` (plus `glam`, `thiserror`, and
//! `meshopt` for the levels of detail).
//! It must do no file I/O and must not depend on any other stage crate
//! (`vat-gltf`, `vat-skin`, `vat-bounds`, `vat-ktx2`, `vat-audit`) or on `vatbake`;
//! `vat-gltf`, `vat-skin` and `vat-bench` appear only as dev-dependencies, for its
//! tests and benchmark.
//!
//! ```
//! use glam::{Vec2, Vec3};
//! use vat_model::{Model, Part, Points};
//!
//! // A 9 × 9 grid of points on the unit square, one part, 128 triangles.
//! let n = 9;
//! let positions: Vec<Vec3> =
//!     (0..n * n).map(|i| Vec3::new((i % n) as f32, (i / n) as f32, 0.0) / (n - 1) as f32).collect();
//! let mut triangles = Vec::new();
//! for y in 0..n - 1 {
//!     for x in 0..n - 1 {
//!         let i = (y * n + x) as u32;
//!         triangles.push([i, i + 1, i + n as u32]);
//!         triangles.push([i + 1, i + n as u32 + 1, i + n as u32]);
//!     }
//! }
//! let count = positions.len();
//! let model = Model {
//!     parts: vec![Part {
//!         node: 0, mesh: 0, primitive: 0, material: None, skin: None,
//!         first_point: 0, point_count: count, first_triangle: 0, triangle_count: triangles.len(),
//!         morph_targets: vec![],
//!     }],
//!     points: Points {
//!         uv0: positions.iter().map(|p| Vec2::new(p.x, p.y)).collect(),
//!         normals: vec![Vec3::Z; count],
//!         joints: vec![[0; 8]; count],
//!         weights: vec![[0.0; 8]; count],
//!         positions,
//!     },
//!     triangles,
//!     ..Model::default()
//! };
//!
//! let decimation = vat_decimate::decimate(&model, 30)?;
//! let reduced = &decimation.model;
//! assert!(reduced.points.len() <= 30 && reduced.points.len() >= 20);
//! // The square stays a square: every source point lies within 1% of its size
//! // of the reduced surface (corners are kept; the weak pull of each merged point
//! // towards its cluster's centroid moves them by a hair).
//! let error = vat_decimate::surface_distance(&model.points.positions, &reduced.points.positions, &reduced.triangles);
//! assert!(error.max < 0.01, "{error:?}");
//! # Ok::<(), vat_decimate::DecimateError>(())
//! ```

#![warn(missing_docs)]

mod cluster;
mod distance;
pub mod lod;
mod merge;
mod sets;
mod weld;

use glam::Vec3;
use vat_model::{Finding, Model};

pub use distance::{surface_distance, SurfaceDistance};

/// A decimated model and how it was made.
#[derive(Clone, Debug)]
pub struct Decimation {
    /// The smaller model: points, parts, triangles and morph targets remapped;
    /// nodes, skins, clips and materials as in the source.
    pub model: Model,
    /// For each source point, the point it merged into; `None` for a point no
    /// remaining triangle uses (dropped).
    pub source_to_point: Vec<Option<u32>>,
    /// Edge of the grid cells, in the units of the clustering positions; 0 when
    /// only identical vertices were welded (or nothing was done).
    pub cell_size: f32,
    /// Whether anything was done: false when the budget covers every point.
    pub decimated: bool,
    /// What the user should know: a no-op, dropped unused points, parts whose
    /// triangles were all degenerate.
    pub notes: Vec<Finding>,
}

/// Why a model cannot be decimated to a budget.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum DecimateError {
    /// The budget is 0.
    #[error("a point budget of 0 leaves nothing to bake: give at least one point, or turn decimation off")]
    ZeroBudget,
    #[error(
        "the model has {points} points but no triangles, so there is no surface to decimate: \
         turn decimation off to bake every point"
    )]
    /// The model has points but no triangles.
    NoTriangles {
        /// Points of the model.
        points: usize,
    },
    #[error(
        "a point budget of {budget} is too small to keep every piece of the surface (each uv island of \
         each part needs at least a triangle, or it leaves a hole): the smallest budget that keeps them all is {smallest}"
    )]
    /// The budget cannot keep a triangle of every uv island of every part.
    TooSmall {
        /// The budget asked for.
        budget: usize,
        /// The smallest budget that keeps every island.
        smallest: usize,
    },
}

/// Decimates `model` to at most `budget` points, clustering in the model's own
/// point positions (`model.points.positions`).
///
/// Use [`decimate_in`] when parts live in different spaces (unskinned parts under
/// scaled nodes), so the grid has one cell size in the world.
///
/// # Errors
/// See [`DecimateError`]. A budget at or above the point count is not an error:
/// the model comes back unchanged, with a note.
///
/// # Panics
/// If a triangle indexes past the points, or the per-point vectors differ in length.
pub fn decimate(model: &Model, budget: usize) -> Result<Decimation, DecimateError> {
    decimate_in(model, &model.points.positions, budget)
}

/// Decimates `model` to at most `budget` points, clustering in `space`: one
/// position per point, e.g. the bind pose in world space. The merged points'
/// attributes are still averaged from `model.points`, in each part's own space.
/// Parts whose points are their own clustering positions (skinned parts, whose
/// mesh space is the bind space) share their seams with each other: the points
/// on both sides of the edge between two such parts of one skin land together.
///
/// # Errors
/// As [`decimate`].
///
/// # Panics
/// As [`decimate`], and if `space` does not have one position per point.
pub fn decimate_in(model: &Model, space: &[Vec3], budget: usize) -> Result<Decimation, DecimateError> {
    let point_count = model.points.len();
    assert_eq!(space.len(), point_count, "one clustering position per point");
    if budget == 0 {
        return Err(DecimateError::ZeroBudget);
    }
    if budget >= point_count {
        return Ok(Decimation {
            model: model.clone(),
            source_to_point: (0..point_count as u32).map(Some).collect(),
            cell_size: 0.0,
            decimated: false,
            notes: vec![Finding::new(
                "nothing-to-decimate",
                format!("the budget of {budget} points is at or above the model's {point_count} points: nothing to decimate"),
            )],
        });
    }

    let sites = weld::weld(model, space);
    if sites.triangles.is_empty() {
        return Err(DecimateError::NoTriangles { points: point_count });
    }
    let mut clusterer = cluster::Clusterer::new(&sites);
    let clustering = clusterer.search(budget).map_err(|smallest| DecimateError::TooSmall { budget, smallest })?;
    let merged = merge::merge(model, &sites, &clustering);
    debug_assert_eq!(merged.model.points.len(), clustering.points);

    let mut notes = Vec::new();
    if merged.unused_points > 0 {
        notes.push(Finding::new(
            "unused-points-dropped",
            format!("{} points that no triangle uses were dropped", merged.unused_points),
        ));
    }
    for (part, lost) in &merged.vanished_parts {
        let p = &model.parts[*part];
        notes.push(Finding::new(
            "part-vanished",
            format!(
                "part {part} (mesh {} primitive {}) has none of its {lost} triangles left: all were degenerate",
                p.mesh, p.primitive
            ),
        ));
    }
    Ok(Decimation {
        model: merged.model,
        source_to_point: merged.source_to_point,
        cell_size: clustering.cell_size,
        decimated: true,
        notes,
    })
}

/// Rows a bake measures the decimation error on, shared between the clips (one
/// per clip at least, so more with more than 8 clips; see [`measured_rows`]):
/// measuring one row of a 30,000-point model takes about 12 ms on one core,
/// more than decimating it, so the error is measured on a sample of rows.
pub const MEASURED_ROWS: usize = 8;

/// Which rows of each clip to measure the error on, given each clip's row count:
/// `total` rows shared evenly between the clips, at least one each, each clip's
/// taken at the middles of equal spans of it (the middle row for one, the
/// quarter and three-quarter rows for two, …), never more than the clip has.
///
/// ```
/// // Eight clips share sixteen rows: two each.
/// assert_eq!(vat_decimate::measured_rows(&[41; 8], 16)[0], [10, 30]);
/// // One clip gets all sixteen, or every row it has.
/// assert_eq!(vat_decimate::measured_rows(&[3], 16), [[0, 1, 2]]);
/// assert_eq!(vat_decimate::measured_rows(&[1, 5], 1), [vec![0], vec![2]]);
/// ```
pub fn measured_rows(clip_rows: &[usize], total: usize) -> Vec<Vec<usize>> {
    let per_clip = (total / clip_rows.len().max(1)).max(1);
    clip_rows
        .iter()
        .map(|&rows| {
            let taken = per_clip.min(rows);
            (0..taken).map(|i| ((i as f64 + 0.5) * rows as f64 / taken as f64 - 0.5).round() as usize).collect()
        })
        .collect()
}

/// The distance from a full-resolution pose to its decimated pose: every point of
/// `full` that a triangle uses, to the nearest triangle of `decimated`.
/// `full_positions` and `decimated_positions` are the two models evaluated at the
/// same time, one position per point.
///
/// # Panics
/// If a position slice does not match its model's point count.
pub fn pose_error(
    full: &Model,
    full_positions: &[Vec3],
    decimated: &Model,
    decimated_positions: &[Vec3],
) -> SurfaceDistance {
    assert_eq!(full_positions.len(), full.points.len(), "one full position per point");
    assert_eq!(decimated_positions.len(), decimated.points.len(), "one decimated position per point");
    let mut used = vec![false; full.points.len()];
    for &point in full.triangles.iter().flatten() {
        used[point as usize] = true;
    }
    let surface: Vec<Vec3> = full_positions.iter().zip(&used).filter(|(_, &u)| u).map(|(&p, _)| p).collect();
    surface_distance(&surface, decimated_positions, &decimated.triangles)
}
