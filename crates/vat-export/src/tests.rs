//! Every entry of the registries has a docs page and a case here: a member added to
//! [`Format`] or [`Target`] without them fails these tests (crates/vat-export/README.md,
//! "Adding a target or a format").

use std::collections::BTreeSet;
use std::path::PathBuf;

use glam::Mat4;
use strum::IntoEnumIterator;

use crate::types::test_bake;
use crate::{BakedBones, ClipSpan, Format, Target, Writer};

/// docs/targets/`<name>`.md.
fn page(name: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../docs/targets").join(format!("{name}.md"))
}

#[test]
fn every_format_and_target_has_a_docs_page() {
    let formats = Format::iter()
        // The bake's own files are docs/FORMAT.md.
        .filter(|&f| f != Format::Vatbake)
        .map(Format::as_str);
    for name in formats.chain(Target::iter().map(Target::as_str)) {
        assert!(page(name).is_file(), "{name} has no page docs/targets/{name}.md");
    }
    assert!(page("../FORMAT").is_file(), "docs/FORMAT.md documents --format vatbake");
}

/// One target's case: the engine's axes (engine axis i ← signed glTF axis), units per
/// metre, and its own file, as its glTF importer and its texture import need them
/// (docs/targets/README.md).
struct TargetCase {
    target: Target,
    axes: [&'static str; 3],
    scale: f32,
    uv_origin: &'static str,
    file: Option<&'static str>,
}

const TARGET_CASES: &[TargetCase] = &[
    TargetCase { target: Target::Three, axes: ["+x", "+y", "+z"], scale: 1.0, uv_origin: "top", file: None },
    TargetCase { target: Target::Babylon, axes: ["+x", "+y", "+z"], scale: 1.0, uv_origin: "top", file: None },
    TargetCase { target: Target::Playcanvas, axes: ["+x", "+y", "+z"], scale: 1.0, uv_origin: "top", file: None },
    TargetCase {
        target: Target::Godot,
        axes: ["+x", "+y", "+z"],
        scale: 1.0,
        uv_origin: "top",
        file: Some("unit-godot.exr"),
    },
    TargetCase {
        target: Target::Unity,
        axes: ["-x", "+y", "+z"],
        scale: 1.0,
        uv_origin: "bottom",
        file: Some("unit-unity.exr"),
    },
    TargetCase {
        target: Target::Unreal,
        axes: ["+x", "+z", "+y"],
        scale: 100.0,
        uv_origin: "top",
        file: Some("unit-unreal.exr"),
    },
];

#[test]
fn every_target_has_a_case_and_its_conventions_are_the_cases() {
    let cased: BTreeSet<&str> = TARGET_CASES.iter().map(|c| c.target.as_str()).collect();
    let all: BTreeSet<&str> = Target::iter().map(Target::as_str).collect();
    assert_eq!(cased, all, "every --target needs its case in TARGET_CASES");
    let owned = test_bake::owned();
    let baked = owned.baked();
    for case in TARGET_CASES {
        let (target, convention) = (case.target, case.target.convention());
        assert_eq!(target.as_str().parse::<Target>(), Ok(target));
        assert_eq!(convention.name, target.as_str());
        assert_eq!(convention.axis_words().map(|a| a.as_str()), case.axes, "{target}");
        assert_eq!((convention.scale, convention.uv_origin.as_str()), (case.scale, case.uv_origin), "{target}");
        assert_eq!(target.has_record(), target != Target::Three, "{target}: only three is the bake's own space");
        assert_eq!(target.has_file(), case.file.is_some(), "{target}");
        let converted = crate::convert(&baked, &convention);
        assert_eq!(converted.file.map(|f| f.name).as_deref(), case.file, "{target}");
        assert!(!target.about().is_empty(), "{target}: no line for --help");
    }
    assert_eq!(Target::default(), Target::Three);
    assert_eq!(
        "maya".parse::<Target>().unwrap_err(),
        "\"maya\" is not a target: give one of three, babylon, playcanvas, godot, unity, unreal"
    );
}

/// One format's case: the files its writer gives for the test bake named "unit" (and the
/// rest mesh it asks for), and what it is written from.
struct FormatCase {
    format: Format,
    files: &'static [&'static str],
    mesh: Option<&'static str>,
    holds_positions: bool,
    needs_bones: bool,
}

const FORMAT_CASES: &[FormatCase] = &[
    FormatCase { format: Format::Vatbake, files: &[], mesh: None, holds_positions: false, needs_bones: false },
    FormatCase {
        format: Format::Openvat,
        files: &["unit.png", "unit-vnrm.png", "unit-remap_info.json"],
        mesh: Some("unit-mesh.glb"),
        holds_positions: true,
        needs_bones: false,
    },
    FormatCase {
        format: Format::Vat3,
        files: &["unit_data.json", "unit_pos.exr", "unit_rot.exr", "unit_col.exr"],
        mesh: Some("unit_mesh.glb"),
        holds_positions: true,
        needs_bones: false,
    },
    FormatCase {
        format: Format::Playcanvas,
        files: &["unit.vat"],
        mesh: None,
        holds_positions: true,
        needs_bones: false,
    },
    FormatCase {
        format: Format::Babylon,
        files: &["unit.babylon.json"],
        mesh: None,
        holds_positions: false,
        needs_bones: true,
    },
];

#[test]
fn every_format_has_a_case_and_its_writer_gives_the_cases_files() {
    let cased: BTreeSet<&str> = FORMAT_CASES.iter().map(|c| c.format.as_str()).collect();
    let all: BTreeSet<&str> = Format::iter().map(Format::as_str).collect();
    assert_eq!(cased, all, "every --format needs its case in FORMAT_CASES");
    let owned = test_bake::owned();
    let baked = owned.baked();
    let rows = vec![vec![Mat4::IDENTITY; 2]; 3];
    let clips = [ClipSpan { name: "walk".into(), row: 0, rows: 3, duration: 0.1, rate: 20.0, ..Default::default() }];
    let bones =
        BakedBones { name: "unit", generator: "vatbake test", rows: &rows, clips: &clips, mesh_file: "unit.rest.glb" };
    for case in FORMAT_CASES {
        let format = case.format;
        assert_eq!(format.as_str().parse::<Format>(), Ok(format));
        assert_eq!(
            (format.holds_positions(), format.needs_bones()),
            (case.holds_positions, case.needs_bones),
            "{format}"
        );
        assert!(!format.about().is_empty(), "{format}: no line for --help");
        let (files, mesh) = match format.writer() {
            Writer::Own => (Vec::new(), None),
            Writer::Vertices(write) => {
                let export = write(&baked).unwrap_or_else(|e| panic!("{format}: {e}"));
                (export.files, export.mesh.map(|m| m.file))
            }
            Writer::Bones(write) => (write(&bones), None),
        };
        let names: Vec<&str> = files.iter().map(|f| f.name.as_str()).collect();
        assert_eq!((names.as_slice(), mesh.as_deref()), (case.files, case.mesh), "{format}");
        assert!(files.iter().all(|f| !f.bytes.is_empty()), "{format}: an empty file");
        format.fits(baked.points(), baked.width, baked.bands, baked.rows).unwrap();
    }
    assert_eq!(Format::default(), Format::Vatbake);
    assert_eq!(
        "fbx".parse::<Format>().unwrap_err(),
        "\"fbx\" is not an output format: give one of vatbake, openvat, vat3, playcanvas, babylon"
    );
}

#[test]
fn the_facts_that_refuse_settings() {
    // Only OpenVAT writes names a source model's folder may hold (<name>.png).
    let clobbering: Vec<Format> = Format::iter().filter(|f| f.clobbers().is_some()).collect();
    assert_eq!(clobbering, [Format::Openvat]);
    // VAT 3 refuses a texture past 16384 lines; the others take any layout.
    for format in Format::iter() {
        assert_eq!(format.fits(1, 16, 1, 20_000).is_err(), format == Format::Vat3, "{format}");
    }
}
