//! Benchmark harness for vatbake: the large test characters and the measurements
//! behind `scripts/bench.sh` and `docs/PERFORMANCE.md`.
//!
//! What it does:
//! - [`generate`] builds a large, valid, skinned and animated GLB from a real
//!   fixture (by default `fixtures/Fox/Fox.glb`): the mesh is welded (points with
//!   identical attributes merged, so neighbouring triangles share their edges) and
//!   subdivided — every triangle split into four at its edge midpoints, repeated,
//!   then a last partial pass that splits only the longest edges so the point
//!   count lands on the target. Every attribute is interpolated: positions, normals
//!   (renormalized), uvs, joint weights (merged by joint, strongest four kept,
//!   renormalized) and morph target deltas. Skin, nodes, materials and clips are
//!   copied, and time-scaled copies of the clips are added until the clip count and
//!   the total row count match a [`Preset`] (the Blender reference workload, or the
//!   SPEC §7 design size).
//! - [`stats`] and [`runner`] are the pieces of the `bench` binary: medians, and
//!   timing `vatbake` as a process (with `hyperfine` when it is installed).
//!
//! Binaries: `gen-big-model` (writes a generated model) and `bench` (times
//! `vatbake` on the fixtures and the generated models, prints
//! docs/PERFORMANCE.md's tables; run it through `scripts/bench.sh`). The stage
//! breakdown comes from `vatbake bake --json` (`timings_ms`).
//!
//! What it does not: change the bake, or depend on vatbake's private code. The GLB
//! is written here with `serde_json` and a hand-packed binary chunk.
//!
//! Dependencies: of this workspace, `vat-model`, `vat-gltf` (loading the fixture;
//! its GLB buffer helpers) and `vat-ktx2` (the `bench` binary's texture sizes);
//! `vat-skin` only for its tests. It must not depend on `vatbake` (the bench runs
//! it as a separate process) or on `vat-decimate`, whose tests depend on this crate.
//!
//! ```no_run
//! use vat_bench::{generate, Preset};
//! let source = std::path::Path::new("fixtures/Fox/Fox.glb");
//! let generated = generate(source, &Preset::REFERENCE.plan())?;
//! std::fs::write("target/fox-28k.glb", &generated.glb)?;
//! println!("{} points, {} rows", generated.points, generated.rows());
//! # Ok::<(), anyhow::Error>(())
//! ```

#![warn(missing_docs)]

pub mod clips;
pub mod glb;
pub mod mesh;
pub mod runner;
pub mod stats;
pub mod subdivide;

use std::path::Path;

use anyhow::{bail, Context, Result};

pub use clips::{clip_rows, ClipPlan};
pub use mesh::Primitive;
pub use subdivide::SubdivisionReport;

/// A named workload: how many points, clips and rows the generated model has.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Preset {
    /// The name `--preset` takes.
    pub name: &'static str,
    /// Points of the generated model (at least).
    pub points: usize,
    /// Number of clips.
    pub clips: usize,
    /// Total rows of all clips at `fps`, each clip `round(duration · fps) + 1` rows.
    pub rows: u32,
    /// Sampling rate, rows per second.
    pub fps: f32,
}

impl Preset {
    /// The workload the seed project timed Blender 3.4 on (~5.5 s for import and
    /// sampling): 28,374 points, 7 clips, 268 rows at 30 fps.
    pub const REFERENCE: Preset = Preset { name: "reference", points: 28_374, clips: 7, rows: 268, fps: 30.0 };
    /// SPEC §7's design size: a 30,000-point character with 8 clips at 30 fps. The
    /// spec gives no row count; 320 rows (40 per clip, 1.3 s on average) is ours.
    pub const SPEC: Preset = Preset { name: "spec", points: 30_000, clips: 8, rows: 320, fps: 30.0 };

    /// Every preset.
    pub const ALL: [Preset; 2] = [Preset::REFERENCE, Preset::SPEC];

    /// The preset called `name`, if any.
    ///
    /// ```
    /// assert_eq!(vat_bench::Preset::by_name("spec"), Some(vat_bench::Preset::SPEC));
    /// ```
    pub fn by_name(name: &str) -> Option<Preset> {
        Preset::ALL.into_iter().find(|p| p.name == name)
    }

    /// The generation plan for this preset, images kept.
    pub fn plan(&self) -> GeneratePlan {
        GeneratePlan {
            points: self.points,
            clips: ClipPlan { clips: self.clips, rows: self.rows, fps: self.fps },
            keep_images: true,
        }
    }
}

/// What to generate.
#[derive(Clone, Debug, PartialEq)]
pub struct GeneratePlan {
    /// Subdivide until the model has at least this many points.
    pub points: usize,
    /// The clips to add and their total rows.
    pub clips: ClipPlan,
    /// Carry the source's images (the Fox's is 26 KB); without them materials are dropped.
    pub keep_images: bool,
}

/// A generated model and what was done to make it.
#[derive(Clone, Debug)]
pub struct Generated {
    /// The GLB file's bytes.
    pub glb: Vec<u8>,
    /// Points of the generated model.
    pub points: usize,
    /// Triangles of the generated model.
    pub triangles: usize,
    /// What welding and subdivision did.
    pub subdivision: SubdivisionReport,
    /// Name, duration (s) and rows at the plan's rate, in file order.
    pub clips: Vec<(String, f32, u32)>,
}

impl Generated {
    /// Total rows of all clips at the plan's rate.
    pub fn rows(&self) -> u32 {
        self.clips.iter().map(|c| c.2).sum()
    }
}

/// Builds the large model described by `plan` from the fixture at `source`.
pub fn generate(source: &Path, plan: &GeneratePlan) -> Result<Generated> {
    let bytes = vat_gltf::read_file(source)?;
    let loaded = vat_gltf::load(source, &bytes, &vat_gltf::Options::default())
        .with_context(|| format!("{}: cannot load the source model", source.display()))?;
    let model = loaded.model;
    if model.points.is_empty() {
        bail!("{}: the source model has no points to subdivide", source.display());
    }
    let (_, document) = vat_gltf::parse_document(source, &bytes)?;

    let mut primitives = mesh::primitives_of(&model, &document);
    for primitive in &mut primitives {
        primitive.weld();
    }
    let subdivision = subdivide::subdivide_to(&mut primitives, plan.points);
    let clips = clips::plan_clips(&model.clips, &plan.clips)
        .with_context(|| format!("{}: cannot make the clips the plan asks for", source.display()))?;

    let glb = glb::write_glb(&glb::GlbInput {
        model: &model,
        primitives: &primitives,
        clips: &clips,
        keep_images: plan.keep_images,
        copyright: document.pointer("/asset/copyright").and_then(|v| v.as_str()),
        source_name: &source.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default(),
    })?;
    let fps = plan.clips.fps;
    Ok(Generated {
        glb,
        points: primitives.iter().map(|p| p.positions.len()).sum(),
        triangles: primitives.iter().map(|p| p.triangles.len()).sum(),
        subdivision,
        clips: clips.iter().map(|c| (c.display_name(), c.duration(), clip_rows(c.duration(), fps))).collect(),
    })
}
