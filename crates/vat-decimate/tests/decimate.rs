//! Decimation on real fixtures and on small hand-built models: the budget, seams,
//! weights, triangles, determinism, and the bad budgets.

use std::path::Path;

use glam::{Vec2, Vec3};
use vat_decimate::{decimate, decimate_in, DecimateError, Decimation};
use vat_model::{Model, MorphTarget, Part, Points};

fn fixture(relative: &str) -> Model {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../fixtures").join(relative);
    let bytes = vat_gltf::read_file(&path).expect("fixture reads");
    vat_gltf::load(&path, &bytes, &vat_gltf::Options::default()).expect("fixture loads").model
}

/// Decimates in the bind pose, as the bake does.
fn bake_decimate(model: &Model, budget: usize) -> Decimation {
    decimate_in(model, &vat_skin::bind_pose_positions(model), budget).expect("decimates")
}

const FIXTURES: [&str; 6] = [
    "Fox/gltfpack/Fox.meshopt.glb",
    "CesiumMan/glTF-Binary/CesiumMan.glb",
    "MorphStressTest/MorphStressTest.gltf",
    "Kenney-MiniCharacters/character-female-a.glb",
    "Kenney-PlatformerCharacter/character.glb",
    "RiggedSimple/rigged-simple.gltf",
];

/// A plane of `columns × rows` quads in z = 0 from x = 0 to `columns`, one part.
/// Columns left of `seam` are uv island 0 (u in 0..0.4), the others island 1
/// (u in 0.6..1); the points of the seam column exist twice, once per island, at
/// the same position: how a glTF exporter writes a uv seam.
fn two_islands(columns: usize, rows: usize, seam: usize) -> (Model, Vec<usize>) {
    // Island 0 holds columns 0..=seam, island 1 columns seam..=columns, each column
    // rows + 1 points from y = 0 up.
    let id = |x: usize, y: usize, side: usize| {
        let column = if side == 0 { x } else { seam + 1 + x - seam };
        (column * (rows + 1) + y) as u32
    };
    let mut positions = Vec::new();
    let mut uv = Vec::new();
    let mut island = Vec::new();
    for (side, range) in [(0, 0..=seam), (1, seam..=columns)] {
        for x in range {
            for y in 0..=rows {
                positions.push(Vec3::new(x as f32, y as f32, 0.0));
                let u = if side == 0 {
                    0.4 * x as f32 / seam as f32
                } else {
                    0.6 + 0.4 * (x - seam) as f32 / (columns - seam).max(1) as f32
                };
                uv.push(Vec2::new(u, y as f32 / rows as f32));
                island.push(side);
            }
        }
    }
    let mut triangles = Vec::new();
    for x in 0..columns {
        let side = usize::from(x >= seam);
        for y in 0..rows {
            let [a, b, c, d] = [id(x, y, side), id(x + 1, y, side), id(x, y + 1, side), id(x + 1, y + 1, side)];
            triangles.push([a, b, c]);
            triangles.push([b, d, c]);
        }
    }
    let count = positions.len();
    let model = Model {
        parts: vec![part(0, count, 0, triangles.len(), None)],
        points: Points {
            normals: vec![Vec3::Z; count],
            uv0: uv,
            joints: vec![[0; 8]; count],
            weights: vec![[0.0; 8]; count],
            positions,
        },
        triangles,
        ..Model::default()
    };
    (model, island)
}

fn part(
    first_point: usize,
    point_count: usize,
    first_triangle: usize,
    triangle_count: usize,
    material: Option<usize>,
) -> Part {
    Part {
        node: 0,
        mesh: 0,
        primitive: 0,
        material,
        skin: None,
        first_point,
        point_count,
        first_triangle,
        triangle_count,
        morph_targets: vec![],
    }
}

/// Points of the decimated model and the source points behind each.
fn members(d: &Decimation) -> Vec<Vec<usize>> {
    let mut members = vec![Vec::new(); d.model.points.len()];
    for (source, point) in d.source_to_point.iter().enumerate() {
        if let Some(point) = point {
            members[*point as usize].push(source);
        }
    }
    members
}

#[test]
fn the_budget_is_respected_and_nearly_used() {
    for file in FIXTURES {
        let model = fixture(file);
        for budget in [model.points.len() / 3, model.points.len() / 6] {
            let d = bake_decimate(&model, budget);
            let points = d.model.points.len();
            assert!(points <= budget, "{file}: {points} points for a budget of {budget}");
            assert!(points * 100 >= budget * 90, "{file}: only {points} points for a budget of {budget}");
            assert!(d.decimated);
        }
    }
}

#[test]
fn two_uv_islands_meeting_at_a_seam_are_never_averaged_together() {
    let (model, island) = two_islands(24, 12, 10);
    let d = decimate(&model, 60).expect("decimates");
    assert!(d.model.points.len() <= 60 && d.model.points.len() >= 50, "{}", d.model.points.len());
    for (point, sources) in members(&d).iter().enumerate() {
        let islands: Vec<usize> = sources.iter().map(|&s| island[s]).collect();
        assert!(islands.iter().all(|&i| i == islands[0]), "point {point} merges both islands");
        // Its uv stays inside its island's range: nothing smeared across the gap.
        let u = d.model.points.uv0[point].x;
        if islands[0] == 0 {
            assert!((-1e-6..=0.4 + 1e-6).contains(&u), "point {point}: u = {u}");
        } else {
            assert!((0.6 - 1e-6..=1.0 + 1e-6).contains(&u), "point {point}: u = {u}");
        }
    }
    // The seam's twin points (same position, one per island) stay separate points,
    // and land on exactly the same place: no crack opens along the seam.
    let mut twins = 0;
    for a in 0..model.points.len() {
        for b in a + 1..model.points.len() {
            if model.points.positions[a] == model.points.positions[b] {
                let (pa, pb) = (d.source_to_point[a], d.source_to_point[b]);
                if let (Some(pa), Some(pb)) = (pa, pb) {
                    assert_ne!(pa, pb, "seam twins {a} and {b} merged");
                    assert_eq!(d.model.points.positions[pa as usize], d.model.points.positions[pb as usize]);
                    twins += 1;
                }
            }
        }
    }
    assert!(twins >= 13, "only {twins} seam twins kept");
}

#[test]
fn seams_stay_closed_on_real_models() {
    // Every pair of source points at one position in one skinned part group ends
    // up at one position (or is dropped): decimation opens no crack.
    for file in FIXTURES {
        let model = fixture(file);
        let d = bake_decimate(&model, model.points.len() / 4);
        let part_of = |p: usize| model.parts.iter().position(|part| part.points().contains(&p)).unwrap();
        let mut by_position: Vec<usize> = (0..model.points.len()).collect();
        by_position
            .sort_by_key(|&p| (model.parts[part_of(p)].skin, model.points.positions[p].to_array().map(f32::to_bits)));
        let mut checked = 0;
        for run in by_position.chunk_by(|&a, &b| {
            model.parts[part_of(a)].skin == model.parts[part_of(b)].skin
                && model.points.positions[a] == model.points.positions[b]
        }) {
            // Unskinned parts under different nodes live in different spaces.
            if model.parts[part_of(run[0])].skin.is_none() && run.iter().any(|&p| part_of(p) != part_of(run[0])) {
                continue;
            }
            let landed: Vec<Vec3> = run
                .iter()
                .filter_map(|&p| d.source_to_point[p])
                .map(|q| d.model.points.positions[q as usize])
                .collect();
            if let Some(first) = landed.first() {
                assert!(
                    landed.iter().all(|p| p == first),
                    "{file}: points at {} split to {landed:?}",
                    model.points.positions[run[0]]
                );
                checked += usize::from(landed.len() > 1);
            }
        }
        assert!(checked > 0 || file.contains("RiggedSimple"), "{file}: no seam checked");
    }
}

#[test]
fn weights_sum_to_one_and_are_sorted() {
    for file in FIXTURES {
        let model = fixture(file);
        let d = bake_decimate(&model, model.points.len() / 4);
        for part in &d.model.parts {
            for point in part.points() {
                let weights = d.model.points.weights[point];
                let sum: f32 = weights.iter().sum();
                if part.skin.is_some() {
                    assert!((sum - 1.0).abs() < 1e-5, "{file}: point {point} weights sum to {sum}");
                    assert!(weights.windows(2).all(|w| w[0] >= w[1]), "{file}: point {point}: {weights:?}");
                } else {
                    assert_eq!(sum, 0.0, "{file}: unskinned point {point} has weights");
                }
            }
        }
    }
}

#[test]
fn eight_influences_are_kept_where_the_source_has_eight() {
    let (mut model, _) = two_islands(12, 6, 6);
    let count = model.points.len();
    model.parts[0].skin = Some(0);
    for (point, (joints, weights)) in model.points.joints.iter_mut().zip(&mut model.points.weights).enumerate() {
        *joints = std::array::from_fn(|slot| ((point + slot) % 10) as u16);
        *weights = [0.125; 8];
    }
    let d = decimate(&model, count / 3).expect("decimates");
    let most = d.model.points.weights.iter().map(|w| w.iter().filter(|&&x| x > 0.0).count()).max().unwrap();
    assert_eq!(most, 8);
    for weights in &d.model.points.weights {
        assert!((weights.iter().sum::<f32>() - 1.0).abs() < 1e-5);
    }
}

#[test]
fn every_triangle_is_valid_and_in_its_part() {
    for file in FIXTURES {
        let model = fixture(file);
        let d = bake_decimate(&model, model.points.len() / 5);
        let m = &d.model;
        assert_eq!(m.parts.len(), model.parts.len());
        let mut next_point = 0;
        let mut next_triangle = 0;
        for (part, source) in m.parts.iter().zip(&model.parts) {
            assert_eq!(
                (part.first_point, part.first_triangle),
                (next_point, next_triangle),
                "{file}: parts stay contiguous"
            );
            assert_eq!((part.node, part.material, part.skin), (source.node, source.material, source.skin));
            next_point += part.point_count;
            next_triangle += part.triangle_count;
            let mut seen = std::collections::HashSet::new();
            for t in &m.triangles[part.triangles()] {
                assert!(t.iter().all(|&p| part.points().contains(&(p as usize))), "{file}: {t:?} outside its part");
                assert!(t[0] != t[1] && t[1] != t[2] && t[2] != t[0], "{file}: degenerate {t:?}");
                let rotation = (0..3).map(|k| [t[k], t[(k + 1) % 3], t[(k + 2) % 3]]).min().unwrap();
                assert!(seen.insert(rotation), "{file}: duplicate {t:?}");
            }
            for target in &part.morph_targets {
                assert_eq!(target.positions.len(), part.point_count);
                assert!(target.normals.is_empty() || target.normals.len() == part.point_count);
            }
            assert_eq!(part.morph_targets.len(), source.morph_targets.len());
        }
        assert_eq!((next_point, next_triangle), (m.points.len(), m.triangles.len()));
        // Every point is used by a triangle: no texture column goes unseen.
        let mut used = vec![false; m.points.len()];
        m.triangles.iter().flatten().for_each(|&p| used[p as usize] = true);
        assert!(used.iter().all(|&u| u), "{file}: unused points");
        // Every source point maps into its own part.
        for (source_part, part) in model.parts.iter().zip(&m.parts) {
            for p in source_part.points() {
                if let Some(q) = d.source_to_point[p] {
                    assert!(part.points().contains(&(q as usize)), "{file}: point {p} left its part");
                }
            }
        }
    }
}

#[test]
fn points_of_different_materials_never_merge() {
    // Two parts (two materials) on the same plane, interleaved in space.
    let (left, _) = two_islands(20, 10, 20);
    let mut model = left.clone();
    let offset = model.points.len();
    model.points.positions.extend(left.points.positions.iter().map(|p| *p + Vec3::new(0.5, 0.5, 0.0)));
    model.points.normals.extend(&left.points.normals);
    model.points.uv0.extend(&left.points.uv0);
    model.points.joints.extend(&left.points.joints);
    model.points.weights.extend(&left.points.weights);
    model.triangles.extend(left.triangles.iter().map(|t| t.map(|p| p + offset as u32)));
    model.parts = vec![
        part(0, offset, 0, left.triangles.len(), Some(0)),
        part(offset, offset, left.triangles.len(), left.triangles.len(), Some(1)),
    ];
    let d = decimate(&model, 100).expect("decimates");
    for (point, sources) in members(&d).iter().enumerate() {
        let parts: Vec<bool> = sources.iter().map(|&s| s < offset).collect();
        assert!(parts.iter().all(|&p| p == parts[0]), "point {point} merges two materials");
    }
}

#[test]
fn morph_deltas_are_averaged() {
    let (mut model, _) = two_islands(16, 8, 16);
    let count = model.points.len();
    model.parts[0].morph_targets = vec![MorphTarget {
        positions: model.points.positions.iter().map(|p| Vec3::new(0.0, 0.0, p.x)).collect(),
        normals: vec![],
    }];
    let d = decimate(&model, count / 4).expect("decimates");
    let target = &d.model.parts[0].morph_targets[0];
    // The delta grows with x: a merged point's delta is near its own x.
    for (point, delta) in target.positions.iter().enumerate() {
        assert!((delta.z - d.model.points.positions[point].x).abs() < 1.0, "point {point}: {delta}");
    }
}

#[test]
fn the_output_is_deterministic() {
    for file in ["CesiumMan/glTF-Binary/CesiumMan.glb", "Kenney-MiniCharacters/character-female-a.glb"] {
        let model = fixture(file);
        let bits = |d: &Decimation| {
            let m = &d.model;
            let floats = m.points.positions.iter().chain(&m.points.normals).flat_map(|v| v.to_array());
            let floats = floats.chain(m.points.uv0.iter().flat_map(|v| v.to_array()));
            let floats = floats.chain(m.points.weights.iter().flatten().copied());
            (
                floats.map(f32::to_bits).collect::<Vec<u32>>(),
                m.triangles.clone(),
                m.points.joints.clone(),
                d.source_to_point.clone(),
            )
        };
        let first = bits(&bake_decimate(&model, 700));
        let pool = rayon_free_thread(|| bits(&bake_decimate(&model, 700)));
        assert_eq!(first, pool, "{file}");
    }
}

/// Runs `f` on another thread, so nothing thread-local can make two runs agree by accident.
fn rayon_free_thread<T: Send>(f: impl FnOnce() -> T + Send) -> T {
    std::thread::scope(|scope| scope.spawn(f).join().expect("the thread finishes"))
}

#[test]
fn a_zero_budget_is_an_error() {
    let model = fixture("RiggedSimple/rigged-simple.gltf");
    assert_eq!(decimate(&model, 0).unwrap_err(), DecimateError::ZeroBudget);
}

#[test]
fn a_budget_at_or_above_the_point_count_changes_nothing() {
    let model = fixture("RiggedSimple/rigged-simple.gltf");
    for budget in [model.points.len(), model.points.len() + 1000] {
        let d = decimate(&model, budget).expect("a no-op");
        assert!(!d.decimated);
        assert_eq!(d.model.points.positions, model.points.positions);
        assert_eq!(d.model.triangles, model.triangles);
        assert_eq!(d.notes.len(), 1);
        assert_eq!(d.notes[0].code, "nothing-to-decimate");
    }
}

#[test]
fn a_budget_too_small_to_keep_anything_says_the_smallest_that_works() {
    let model = fixture("Kenney-MiniCharacters/character-female-a.glb");
    let error = bake_decimate_err(&model, 5);
    let DecimateError::TooSmall { budget: 5, smallest } = error else { panic!("{error:?}") };
    assert!(error.to_string().contains(&format!("the smallest budget that keeps them all is {smallest}")), "{error}");
    assert!(smallest > 5 && smallest < model.points.len());
    let d = bake_decimate(&model, smallest);
    assert!(d.model.points.len() <= smallest && !d.model.triangles.is_empty());
}

fn bake_decimate_err(model: &Model, budget: usize) -> DecimateError {
    decimate_in(model, &vat_skin::bind_pose_positions(model), budget).expect_err("too small")
}

#[test]
fn a_model_without_triangles_cannot_be_decimated() {
    let mut model = fixture("RiggedSimple/rigged-simple.gltf");
    model.triangles.clear();
    for part in &mut model.parts {
        part.triangle_count = 0;
    }
    assert!(matches!(decimate(&model, 10), Err(DecimateError::NoTriangles { .. })));
}

#[test]
fn the_error_of_a_decimation_is_small_and_measured_over_the_surface() {
    let model = fixture("CesiumMan/glTF-Binary/CesiumMan.glb");
    let d = bake_decimate(&model, 1000);
    let full = vat_skin::bind_pose_positions(&model);
    let reduced = vat_skin::bind_pose_positions(&d.model);
    let error = vat_decimate::pose_error(&model, &full, &d.model, &reduced);
    let mut used = vec![false; model.points.len()];
    model.triangles.iter().flatten().for_each(|&p| used[p as usize] = true);
    assert_eq!(error.points, used.iter().filter(|&&u| u).count(), "every point a triangle uses");
    // CesiumMan is 1.5 model units tall: a millimetre-scale mean, a centimetre-scale worst case.
    assert!(error.mean < 0.002 && error.max < 0.03, "{error:?}");
    // Nothing changed, nothing lost.
    let same = vat_decimate::pose_error(&model, &full, &model, &full);
    assert_eq!(same.max, 0.0);
}
