//! The file a game ships (gltfpack: EXT_meshopt_compression + KHR_mesh_quantization;
//! glTF-Transform: KHR_draco_mesh_compression) evaluates to the same motion as its
//! uncompressed original, within the tool's quantization, on every row at 30 Hz (the
//! rate gltfpack resamples animation at).

mod common;

use common::fixture;
use glam::Vec3;
use vat_model::Model;

fn load(relative: &str) -> Model {
    let path = fixture(relative);
    let bytes = std::fs::read(&path).unwrap();
    vat_gltf::load(&path, &bytes, &vat_gltf::Options::default()).unwrap_or_else(|e| panic!("{e}")).model
}

fn rest(model: &Model) -> Vec<Vec3> {
    vat_skin::evaluate_clip(model, None, &[0.0]).positions
}

/// Largest distance between corresponding points over every 30 Hz row of every clip,
/// as a fraction of the original's bounding diagonal. gltfpack welds duplicate
/// points, so each original point is matched once, at rest, to its nearest
/// compressed point, and followed through the animation.
fn worst_gap(original: &str, compressed: &str) -> f32 {
    let (a, b) = (load(original), load(compressed));
    assert_eq!(a.clips.len(), b.clips.len(), "{compressed} keeps every clip");
    let (rest_a, rest_b) = (rest(&a), rest(&b));
    let matched: Vec<usize> = rest_a
        .iter()
        .map(|p| {
            (0..rest_b.len())
                .min_by(|&i, &j| rest_b[i].distance_squared(*p).total_cmp(&rest_b[j].distance_squared(*p)))
                .unwrap()
        })
        .collect();
    let mut diagonal: f32 = 0.0;
    let mut worst: f32 = 0.0;
    for (clip_a, clip_b) in a.clips.iter().zip(&b.clips) {
        assert_eq!(clip_a.name, clip_b.name);
        let rows = (clip_a.duration().min(clip_b.duration()) * 30.0 + 1e-3).floor() as usize + 1;
        let times: Vec<f32> = (0..rows).map(|k| k as f32 / 30.0).collect();
        let (fa, fb) =
            (vat_skin::evaluate_clip(&a, Some(clip_a), &times), vat_skin::evaluate_clip(&b, Some(clip_b), &times));
        diagonal = diagonal.max(vat_bounds::Bounds::of_frames([&fa]).diagonal());
        for row in 0..rows {
            let (pa, pb) = (fa.row_positions(row), fb.row_positions(row));
            for (p, &m) in pa.iter().zip(&matched) {
                worst = worst.max(p.distance(pb[m]));
            }
        }
    }
    worst / diagonal
}

#[test]
fn compressed_copies_move_like_their_originals() {
    // 14-bit positions put up to half of 1/16383 of the extent on each axis; 16-bit
    // rotation keys turn each joint by up to ~1e-4 rad, which a chain of joints adds up.
    // Measured worst: 4.9e-4 of the diagonal (Fox); 1e-3 (1 mm on a 1 m character)
    // bounds both with room, while a dequantization bug is off by whole units.
    const TOLERANCE: f32 = 1e-3;
    for (original, compressed) in [
        ("Fox/Fox.glb", "Fox/gltfpack/Fox.meshopt.glb"),
        ("SimpleSkin/SimpleSkin.gltf", "gltfpack/SimpleSkin.meshopt.glb"),
        ("RiggedSimple/rigged-simple.gltf", "gltfpack/rigged-simple.meshopt.glb"),
        ("CesiumMan/glTF-Binary/CesiumMan.glb", "gltfpack/CesiumMan.meshopt.glb"),
        ("Kenney-MiniCharacters/character-female-a.glb", "gltfpack/character-female-a.meshopt.glb"),
    ] {
        let gap = worst_gap(original, compressed);
        println!("{compressed}: worst gap {gap:.2e} of the diagonal");
        assert!(gap <= TOLERANCE, "{compressed}: {gap:.2e} of the diagonal from {original}");
    }
}

#[test]
fn draco_copies_move_like_their_originals() {
    // glTF-Transform's defaults: 14-bit positions, 12-bit weights; animation untouched.
    // Measured worst: 3.7e-5 of the diagonal (Fox); the bound is the gltfpack test's.
    const TOLERANCE: f32 = 1e-3;
    for (original, compressed) in [
        ("Fox/Fox.glb", "draco/Fox.draco.glb"),
        ("Fox/Fox.glb", "draco/Fox.draco-sequential.glb"),
        ("Kenney-MiniCharacters/character-female-a.glb", "draco/character-female-a.draco.glb"),
    ] {
        let gap = worst_gap(original, compressed);
        println!("{compressed}: worst gap {gap:.2e} of the diagonal");
        assert!(gap <= TOLERANCE, "{compressed}: {gap:.2e} of the diagonal from {original}");
    }
}

/// Each triangle started at its lowest index, winding kept: meshoptimizer's index codec
/// may start a triangle at another corner.
fn rotated(triangles: &[[u32; 3]]) -> Vec<[u32; 3]> {
    triangles
        .iter()
        .map(|t| {
            let first = (0..3).min_by_key(|&k| t[k]).unwrap();
            [t[first], t[(first + 1) % 3], t[(first + 2) % 3]]
        })
        .collect()
}

#[test]
fn a_meshopt_rest_mesh_holds_the_plain_ones_vertices_in_fewer_bytes() {
    for (model, at_most) in [("Fox/Fox.glb", 0.66), ("Kenney-MiniCharacters/character-female-a.glb", 0.58)] {
        let (plain_dir, plain) = common::bake(&fixture(model), &[]);
        let (packed_dir, packed) = common::bake(&fixture(model), &["--rest-mesh", "meshopt"]);
        assert_eq!(packed["settings"]["rest_mesh"], "meshopt", "{model}: the description records the encoding");
        assert!(plain["settings"].get("rest_mesh").is_none(), "{model}: the default is not written");
        let file =
            |dir: &tempfile::TempDir, d: &serde_json::Value| dir.path().join(d["mesh"]["file"].as_str().unwrap());
        let (plain_file, packed_file) = (file(&plain_dir, &plain), file(&packed_dir, &packed));
        let (a, b) = (std::fs::metadata(&plain_file).unwrap().len(), std::fs::metadata(&packed_file).unwrap().len());
        assert!(b as f64 <= at_most * a as f64, "{model}: {b} bytes against the plain {a}");

        let (x, y) = (
            vatbake::shipped::read_rest_mesh(&plain_file).unwrap(),
            vatbake::shipped::read_rest_mesh(&packed_file).unwrap(),
        );
        // Positions and column uvs are the same floats: every vertex in its own column.
        assert_eq!(y.positions, x.positions, "{model}: positions");
        assert_eq!(y.columns, x.columns, "{model}: columns");
        let points = packed["points"].as_u64().unwrap() as usize;
        vatbake::shipped::columns_of(&y, points).unwrap_or_else(|e| panic!("{model}: {e}"));
        assert_eq!((y.min, y.max), (x.min, x.max), "{model}: bounds");
        assert_eq!(rotated(&y.triangles), rotated(&x.triangles), "{model}: triangles");
        assert_eq!((y.primitives, y.materials), (x.primitives, x.materials));
        // Normals as 16-bit integers: within half a step, 0.5/32767, per axis.
        let worst = x.normals.iter().zip(&y.normals).map(|(p, q)| (*p - *q).abs().max_element()).fold(0.0, f32::max);
        assert!(worst <= 0.5 / 32767.0 + 1e-7, "{model}: normals off by {worst}");

        let stem = fixture(model).file_stem().unwrap().to_str().unwrap().to_string();
        let description = packed_dir.path().join(format!("{stem}.vat.json"));
        let verified = common::vatbake(&["verify", description.to_str().unwrap()]);
        assert!(verified.status.success(), "{model}: verify: {}", common::stderr(&verified));
    }
}

#[test]
fn a_damaged_meshopt_rest_mesh_is_a_clear_error() {
    let (dir, _) = common::bake(&fixture("Fox/Fox.glb"), &["--rest-mesh", "meshopt"]);
    let file = dir.path().join("Fox.rest.glb");
    let bytes = std::fs::read(&file).unwrap();
    let json_len = u32::from_le_bytes(bytes[12..16].try_into().unwrap()) as usize;
    let root: serde_json::Value = serde_json::from_slice(&bytes[20..20 + json_len]).unwrap();
    let encoded = &root["bufferViews"][0]["extensions"]["EXT_meshopt_compression"];
    let at = 28 + json_len + encoded["byteOffset"].as_u64().unwrap() as usize;
    type Damage = Box<dyn Fn(&mut Vec<u8>)>;
    let cases: [(&str, Damage); 2] = [
        // The vertex codec's header byte (0xa0 | version) made another codec's.
        ("compressed vertices that do not decode", Box::new(move |b: &mut Vec<u8>| b[at] = 0x10)),
        (
            "compressed as ATTRIBUTEZ",
            Box::new(move |b: &mut Vec<u8>| {
                let json = String::from_utf8(b[20..20 + json_len].to_vec()).unwrap();
                let changed = json.replacen("\"ATTRIBUTES\"", "\"ATTRIBUTEZ\"", 1);
                b[20..20 + json_len].copy_from_slice(changed.as_bytes());
            }),
        ),
    ];
    for (expected, damage) in cases {
        let mut damaged = bytes.clone();
        damage(&mut damaged);
        std::fs::write(&file, &damaged).unwrap();
        let output = common::vatbake(&["inspect", file.to_str().unwrap()]);
        let message = common::stderr(&output);
        assert_eq!(output.status.code(), Some(2), "{expected}: {message}");
        assert!(message.contains("Fox.rest.glb") && message.contains(expected), "{expected}: {message}");
    }
}
