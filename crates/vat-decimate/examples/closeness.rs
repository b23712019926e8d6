//! How close to the budget decimation comes, on every fixture and on the SPEC §7
//! model: for 40 budgets from the smallest sensible one to the most points a
//! decimation keeps (the welded count, for a model with repeated vertices), the
//! points kept over the budget (the "How close to N" table of docs/DECIMATION.md).
//!
//! `cargo run --release -p vat-decimate --example closeness`

use std::path::Path;

use vat_decimate::{decimate_in, DecimateError};
use vat_model::Model;

fn main() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    let fixtures = [
        "Fox/Fox.glb",
        "Fox/gltfpack/Fox.meshopt.glb",
        "CesiumMan/glTF-Binary/CesiumMan.glb",
        "MorphStressTest/MorphStressTest.gltf",
        "Kenney-MiniCharacters/character-female-a.glb",
        "Kenney-PlatformerCharacter/character.glb",
        "RiggedSimple/rigged-simple.gltf",
        "AnimatedMorphCube/AnimatedMorphCube.gltf",
        "SimpleSkin/SimpleSkin.gltf",
    ];
    let mut models: Vec<(String, Model)> = fixtures
        .iter()
        .map(|f| {
            let path = root.join("fixtures").join(f);
            let bytes = vat_gltf::read_file(&path).expect("the fixture reads");
            (f.to_string(), vat_gltf::load(&path, &bytes, &Default::default()).expect("the fixture loads").model)
        })
        .collect();
    let source = root.join("fixtures/Fox/Fox.glb");
    let mut plan = vat_bench::Preset::SPEC.plan();
    plan.keep_images = false;
    let generated = vat_bench::generate(&source, &plan).expect("the generator runs");
    let model = vat_gltf::load(Path::new("generated.glb"), &generated.glb, &Default::default()).expect("it loads");
    models.push(("Fox subdivided (SPEC §7)".into(), model.model));

    println!("| model | points | most kept below that | smallest budget | kept / budget: mean | worst (at budget) |");
    println!("|---|---:|---:|---:|---:|---:|");
    for (name, model) in &models {
        let space = vat_skin::bind_pose_positions(model);
        let points = model.points.len();
        let welded = decimate_in(model, &space, points - 1).expect("decimates").model.points.len();
        let smallest = match decimate_in(model, &space, 1) {
            Err(DecimateError::TooSmall { smallest, .. }) => smallest,
            _ => 1,
        };
        let (mut worst, mut worst_at, mut sum, mut count) = (1.0f64, smallest, 0.0, 0);
        for step in 0..=40 {
            let budget = smallest + welded.saturating_sub(smallest) * step / 40;
            if budget >= welded {
                continue;
            }
            let kept = decimate_in(model, &space, budget).expect("a budget above the smallest").model.points.len();
            let ratio = kept as f64 / budget as f64;
            sum += ratio;
            count += 1;
            if ratio < worst {
                (worst, worst_at) = (ratio, budget);
            }
        }
        if count == 0 {
            println!("| {name} | {points} | {welded} | {smallest} | – | – |");
        } else {
            let mean = 100.0 * sum / count as f64;
            println!("| {name} | {points} | {welded} | {smallest} | {mean:.1}% | {:.1}% ({worst_at}) |", 100.0 * worst);
        }
    }
}
