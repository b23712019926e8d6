//! Levels of detail on real fixtures: a subset of the model's points, no hole, every
//! uv island kept, the budget respected, the bad budgets refused.

use std::path::Path;

use vat_decimate::lod::{open_edges, LodError, Simplifier};
use vat_model::Model;

fn fixture(relative: &str) -> Model {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../fixtures").join(relative);
    let bytes = vat_gltf::read_file(&path).expect("fixture reads");
    vat_gltf::load(&path, &bytes, &vat_gltf::Options::default()).expect("fixture loads").model
}

const FIXTURES: [&str; 4] = [
    "Fox/Fox.glb",
    "CesiumMan/glTF-Binary/CesiumMan.glb",
    "Kenney-MiniCharacters/character-female-a.glb",
    "MorphStressTest/MorphStressTest.gltf",
];

#[test]
fn levels_keep_a_subset_of_the_points_and_every_open_edge() {
    let mut figures = Vec::new();
    for file in FIXTURES {
        let model = fixture(file);
        let space = vat_skin::bind_pose_positions(&model);
        let simplifier = Simplifier::new(&model, &space).unwrap();
        let full_open = open_edges(&space, &model.triangles);
        let (points, smallest) = (simplifier.points(), simplifier.smallest());
        for budget in [(points + smallest) / 2, smallest] {
            let lod = simplifier.simplify(budget).unwrap();
            assert!(lod.points.len() <= budget, "{file}: {} points over {budget}", lod.points.len());
            // Every triangle indexes the model's own points, within one part.
            for (part, range) in model.parts.iter().zip(lod.part_triangles.iter().scan(0, |start, &n| {
                *start += n;
                Some(*start - n..*start)
            })) {
                for t in &lod.triangles[range] {
                    assert!(t.iter().all(|&p| part.points().contains(&(p as usize))), "{file}: triangle {t:?}");
                }
            }
            // No hole: the open edges (points welded by position) are the model's.
            assert_eq!(open_edges(&space, &lod.triangles), full_open, "{file} at {budget}: an edge opened");
            figures.push((file, budget, lod.points.len(), lod.triangles.len()));
        }
    }
    // (fixture, budget, points, triangles): the Fox, 1728 points of 576 flat-shaded
    // triangles, and CesiumMan, 3273 points of 4672 triangles, each at the budget midway
    // to its coarsest level and at that level.
    assert_eq!(
        figures[..4],
        [
            ("Fox/Fox.glb", 1059, 1053, 392),
            ("Fox/Fox.glb", 390, 390, 206),
            ("CesiumMan/glTF-Binary/CesiumMan.glb", 1887, 1887, 3258),
            ("CesiumMan/glTF-Binary/CesiumMan.glb", 501, 492, 792),
        ]
    );
}

#[test]
fn bad_budgets_are_refused_with_the_figure_that_works() {
    let model = fixture("CesiumMan/glTF-Binary/CesiumMan.glb");
    let simplifier = Simplifier::new(&model, &vat_skin::bind_pose_positions(&model)).unwrap();
    let (points, smallest) = (simplifier.points(), simplifier.smallest());
    assert_eq!((points, smallest), (3273, 501));
    assert_eq!(simplifier.simplify(points), Err(LodError::NotBelow { budget: points, points }));
    assert_eq!(simplifier.simplify(smallest - 1), Err(LodError::TooSmall { budget: smallest - 1, smallest }));
}

#[test]
fn levels_are_deterministic() {
    let model = fixture("Fox/Fox.glb");
    let space = vat_skin::bind_pose_positions(&model);
    let a = Simplifier::new(&model, &space).unwrap().simplify(700).unwrap();
    let b = Simplifier::new(&model, &space).unwrap().simplify(700).unwrap();
    assert_eq!(a, b);
}
