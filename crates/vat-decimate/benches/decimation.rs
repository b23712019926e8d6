//! Our cluster decimation against meshoptimizer's `simplify_sloppy` and `simplify`
//! at equal point counts, and its speed: the tables of docs/DECIMATION.md.
//!
//! ```text
//! cargo bench -p vat-decimate --bench decimation            # everything
//! cargo bench -p vat-decimate --bench decimation -- quality # the comparison only
//! cargo bench -p vat-decimate --bench decimation -- speed   # the timings only
//! ```
//!
//! The error of a reduction is measured the way the bake measures it: for the
//! rows `vat_decimate::measured_rows` picks (8 in all, shared between the clips,
//! clips sampled at 30 rows per second), the distance from every point of the full-resolution
//! model, evaluated, to the nearest triangle of the reduced model evaluated in the
//! same pose; maximum and mean over all those points and rows. meshoptimizer
//! returns an index buffer into the source points (it selects points, it does not
//! average them), so its reduced surface is the full model's evaluated points
//! under its indices. Its target index count is searched so that the points its
//! indices use are as many as ours without exceeding them.

use std::path::{Path, PathBuf};
use std::time::Instant;

use glam::Vec3;
use vat_decimate::{measured_rows, pose_error, surface_distance, SurfaceDistance, MEASURED_ROWS};
use vat_model::{ClipRows, Model};

const FPS: f32 = 30.0;

fn repo() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

fn load(path: &Path, bytes: &[u8]) -> Model {
    vat_gltf::load(path, bytes, &vat_gltf::Options::default()).expect("the model loads").model
}

fn load_file(relative: &str) -> Model {
    let path = repo().join(relative);
    let bytes = vat_gltf::read_file(&path).expect("the fixture reads");
    load(&path, &bytes)
}

/// A fixture subdivided to `points`, with 8 clips of `rows` rows in all at 30 fps
/// (SPEC §7: 320 rows), by the bench crate's generator.
fn big_model(source: &str, points: usize, rows: u32) -> Model {
    let mut plan = vat_bench::Preset::SPEC.plan();
    plan.points = points;
    plan.clips.rows = rows;
    plan.keep_images = false;
    let source = repo().join(source);
    let generated = vat_bench::generate(&source, &plan).expect("the generator runs");
    load(Path::new("generated.glb"), &generated.glb)
}

/// (clip, time) of every measured row: each clip at 30 rows per second, the rows
/// `measured_rows` picks, as the bake does.
fn measured_times(model: &Model) -> Vec<(usize, f32)> {
    let clip_rows: Vec<ClipRows> = model.clips.iter().map(|clip| ClipRows::new(clip.duration(), FPS, None)).collect();
    let rows: Vec<usize> = clip_rows.iter().map(|r| r.rows as usize).collect();
    let mut times = Vec::new();
    for (index, (clip_rows, picked)) in clip_rows.iter().zip(measured_rows(&rows, MEASURED_ROWS)).enumerate() {
        times.extend(picked.into_iter().map(|row| (index, clip_rows.time(row as u32))));
    }
    if times.is_empty() {
        times.push((usize::MAX, 0.0));
    }
    times
}

fn evaluate(model: &Model, clip: usize, time: f32) -> Vec<Vec3> {
    vat_skin::evaluate_clip(model, model.clips.get(clip), &[time]).positions
}

/// A model with its full-resolution evaluated rows, ready to measure reductions against.
struct Case {
    name: String,
    model: Model,
    space: Vec<Vec3>,
    times: Vec<(usize, f32)>,
    full_rows: Vec<Vec<Vec3>>,
    /// Points some triangle uses, in each row.
    surface_rows: Vec<Vec<Vec3>>,
    diagonal: f32,
}

impl Case {
    fn new(name: &str, model: Model) -> Case {
        let space = vat_skin::bind_pose_positions(&model);
        let times = measured_times(&model);
        let full_rows: Vec<Vec<Vec3>> = times.iter().map(|&(clip, time)| evaluate(&model, clip, time)).collect();
        let mut used = vec![false; model.points.len()];
        for &p in model.triangles.iter().flatten() {
            used[p as usize] = true;
        }
        let surface_rows: Vec<Vec<Vec3>> =
            full_rows.iter().map(|row| row.iter().zip(&used).filter(|(_, &u)| u).map(|(&p, _)| p).collect()).collect();
        let (lo, hi) = surface_rows
            .iter()
            .flatten()
            .fold((Vec3::INFINITY, Vec3::NEG_INFINITY), |(lo, hi), &p| (lo.min(p), hi.max(p)));
        Case { name: name.to_string(), model, space, times, full_rows, surface_rows, diagonal: lo.distance(hi) }
    }

    fn ours(&self, reduced: &Model) -> SurfaceDistance {
        self.times
            .iter()
            .zip(&self.full_rows)
            .map(|(&(clip, time), full)| pose_error(&self.model, full, reduced, &evaluate(reduced, clip, time)))
            .fold(SurfaceDistance::default(), SurfaceDistance::combine)
    }

    /// Error of an index buffer into the full model's points.
    fn selected(&self, triangles: &[[u32; 3]]) -> SurfaceDistance {
        self.surface_rows
            .iter()
            .zip(&self.full_rows)
            .map(|(surface, full)| surface_distance(surface, full, triangles))
            .fold(SurfaceDistance::default(), SurfaceDistance::combine)
    }
}

#[derive(Clone, Copy, PartialEq)]
enum Meshopt {
    Sloppy,
    Simplify,
}

fn run_meshopt(kind: Meshopt, indices: &[u32], space: &[Vec3], target_indices: usize) -> Vec<u32> {
    let bytes = meshopt::typed_to_bytes(space);
    let vertices = meshopt::VertexDataAdapter::new(bytes, 12, 0).expect("tightly packed positions");
    match kind {
        Meshopt::Sloppy => meshopt::simplify_sloppy(indices, &vertices, target_indices, f32::MAX, None),
        Meshopt::Simplify => {
            meshopt::simplify(indices, &vertices, target_indices, f32::MAX, meshopt::SimplifyOptions::None, None)
        }
    }
}

fn referenced(indices: &[u32], point_count: usize) -> usize {
    let mut used = vec![false; point_count];
    indices.iter().for_each(|&i| used[i as usize] = true);
    used.iter().filter(|&&u| u).count()
}

/// meshoptimizer's reduction using as many points as possible, but at most
/// `points`: bisection on the target index count. `None` when it cannot get
/// that low (`simplify` stops where collapses would break topology).
fn meshopt_at(kind: Meshopt, model: &Model, space: &[Vec3], points: usize) -> Option<(Vec<[u32; 3]>, usize)> {
    let indices: Vec<u32> = model.triangles.iter().flatten().copied().collect();
    let n = model.points.len();
    let (mut lo, mut hi) = (0usize, indices.len() / 3);
    let mut best: Option<(Vec<u32>, usize)> = None;
    while lo <= hi {
        let mid = (lo + hi) / 2;
        let result = run_meshopt(kind, &indices, space, mid * 3);
        let count = referenced(&result, n);
        if count <= points {
            if best.as_ref().is_none_or(|b| count > b.1) {
                best = Some((result, count));
            }
            lo = mid + 1;
        } else {
            if mid == 0 {
                break;
            }
            hi = mid - 1;
        }
    }
    best.filter(|b| !b.0.is_empty())
        .map(|(result, count)| (result.chunks_exact(3).map(|t| [t[0], t[1], t[2]]).collect(), count))
}

fn cell(distance: SurfaceDistance, diagonal: f32) -> String {
    format!(
        "{:.4} / {:.4} ({:.2}% / {:.3}%)",
        distance.max,
        distance.mean,
        100.0 * distance.max / diagonal,
        100.0 * distance.mean / diagonal
    )
}

fn quality() {
    let mut cases: Vec<(Case, Vec<usize>)> = Vec::new();
    let fixtures = [
        ("Fox", "fixtures/Fox/Fox.glb"),
        ("Fox (gltfpack)", "fixtures/Fox/gltfpack/Fox.meshopt.glb"),
        ("CesiumMan", "fixtures/CesiumMan/glTF-Binary/CesiumMan.glb"),
        ("MorphStressTest", "fixtures/MorphStressTest/MorphStressTest.gltf"),
        ("Kenney mini character", "fixtures/Kenney-MiniCharacters/character-female-a.glb"),
        ("Kenney platformer", "fixtures/Kenney-PlatformerCharacter/character.glb"),
        ("RiggedSimple", "fixtures/RiggedSimple/rigged-simple.gltf"),
        ("AnimatedMorphCube", "fixtures/AnimatedMorphCube/AnimatedMorphCube.gltf"),
        ("SimpleSkin", "fixtures/SimpleSkin/SimpleSkin.gltf"),
    ];
    for (name, file) in fixtures {
        let case = Case::new(name, load_file(file));
        let n = case.model.points.len();
        cases.push((case, vec![n / 2, n / 5]));
    }
    cases.push((
        Case::new("Fox subdivided (SPEC §7)", big_model("fixtures/Fox/Fox.glb", 30_000, 320)),
        vec![8000, 4000, 2000],
    ));
    cases.push((
        Case::new("CesiumMan subdivided", big_model("fixtures/CesiumMan/glTF-Binary/CesiumMan.glb", 30_000, 488)),
        vec![8000, 4000, 2000],
    ));

    println!("| model | points | budget | ours: points | ours: max / mean error | ours, seams ignored: points | max / mean error | simplify_sloppy: points | max / mean error | simplify: points | max / mean error |");
    println!("|---|---:|---:|---:|---|---:|---|---:|---|---:|---|");
    for (case, budgets) in &cases {
        for &budget in budgets {
            let row_start = format!("| {} | {} | {} |", case.name, case.model.points.len(), budget);
            let ours = match vat_decimate::decimate_in(&case.model, &case.space, budget) {
                Ok(d) => d,
                Err(e) => {
                    println!("{row_start} error: {e} | | | | | | | |");
                    continue;
                }
            };
            let points = ours.model.points.len();
            let mut line = format!(
                "{row_start} {} ({:.1}%) | {} |",
                points,
                100.0 * points as f64 / budget as f64,
                cell(case.ours(&ours.model), case.diagonal)
            );
            // The same decimation with every uv set to zero: no seams to keep, so
            // clusters may cross them as meshoptimizer's do.
            let mut seamless = case.model.clone();
            seamless.points.uv0.fill(glam::Vec2::ZERO);
            match vat_decimate::decimate_in(&seamless, &case.space, points) {
                Ok(d) => line += &format!(" {} | {} |", d.model.points.len(), cell(case.ours(&d.model), case.diagonal)),
                Err(e) => line += &format!(" – | {e} |"),
            }
            for kind in [Meshopt::Sloppy, Meshopt::Simplify] {
                match meshopt_at(kind, &case.model, &case.space, points) {
                    Some((triangles, count)) => {
                        line += &format!(" {count} | {} |", cell(case.selected(&triangles), case.diagonal))
                    }
                    None => line += " – | cannot reach it |",
                }
            }
            println!("{line}");
        }
    }
    println!();
    println!(
        "errors in model units, and as a percentage of the diagonal of the full model's bounds over the measured rows"
    );
}

/// Median and fastest of `runs` timed calls, in milliseconds, after one untimed call.
fn time_ms(runs: usize, mut f: impl FnMut()) -> (f64, f64) {
    f();
    let mut samples: Vec<f64> = (0..runs)
        .map(|_| {
            let at = Instant::now();
            f();
            at.elapsed().as_secs_f64() * 1e3
        })
        .collect();
    samples.sort_by(f64::total_cmp);
    (samples[samples.len() / 2], samples[0])
}

fn speed() {
    println!("| source points | budget | kept | decimate: median (fastest), ms | fastest per 1,000 source points, ms | measure one row: median (fastest), ms |");
    println!("|---:|---:|---:|---:|---:|---:|");
    for points in [7_500, 15_000, 30_000, 60_000, 120_000] {
        let model = big_model("fixtures/Fox/Fox.glb", points, 320);
        let space = vat_skin::bind_pose_positions(&model);
        let budget = points * 4_000 / 30_000;
        let reduced = vat_decimate::decimate_in(&model, &space, budget).expect("decimates").model;
        let (decimate, decimate_fastest) = time_ms(21, || {
            std::hint::black_box(vat_decimate::decimate_in(&model, &space, budget).expect("decimates"));
        });
        let full = evaluate(&model, 0, 0.3);
        let small = evaluate(&reduced, 0, 0.3);
        let (measure, measure_fastest) = time_ms(11, || {
            std::hint::black_box(pose_error(&model, &full, &reduced, &small));
        });
        println!(
            "| {} | {budget} | {} | {decimate:.1} ({decimate_fastest:.1}) | {:.2} | {measure:.1} ({measure_fastest:.1}) |",
            model.points.len(),
            reduced.points.len(),
            decimate_fastest * 1000.0 / model.points.len() as f64,
        );
    }
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).filter(|a| !a.starts_with("--")).collect();
    let wants = |what: &str| args.is_empty() || args.iter().any(|a| a == what);
    if wants("quality") {
        quality();
        println!();
    }
    if wants("speed") {
        speed();
    }
}
