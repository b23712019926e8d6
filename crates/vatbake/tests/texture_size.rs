//! The bundled fixtures' default bakes keep the texture sizes docs/PERFORMANCE.md
//! records ("Texture size: honest baselines", columns "KTX2 default" and "its
//! references"), to within 1%,
//! and the size claims made from that table are the table's: each "default / PNG16"
//! ratio is the row's bytes over the same-order PNG16's, the median row is the median
//! of the fixtures' ratios, and README.md states that median. A change that makes the
//! texture larger, or a figure stale, is seen here.

mod common;

use common::{fixture, vatbake};

/// One fixture's row of the table: model, default KTX2 bytes, its references' bytes in
/// the description, same-order PNG16 bytes, and the documented default / PNG16 ratio.
struct Row {
    model: String,
    default: u64,
    references: u64,
    png16: u64,
    ratio: f64,
}

fn cells(line: &str) -> Vec<String> {
    line.split('|').map(|c| c.trim().trim_matches('*').to_string()).collect()
}

fn bytes(cell: &str) -> u64 {
    cell.replace(',', "").parse().unwrap_or_else(|_| panic!("a byte count: {cell:?}"))
}

fn ratio(cell: &str) -> f64 {
    cell.trim_end_matches('×').parse().unwrap_or_else(|_| panic!("a ratio: {cell:?}"))
}

/// The section's table: the fixtures' rows (generated models are not bundled and are
/// skipped) and the documented median of "default / PNG16" over the fixtures.
fn documented() -> (Vec<Row>, f64) {
    let text = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/../../docs/PERFORMANCE.md")).unwrap();
    let section =
        text.split("## Texture size: honest baselines").nth(1).expect("the section is in docs/PERFORMANCE.md");
    let table: Vec<Vec<String>> = section
        .lines()
        .take_while(|line| !line.starts_with("## "))
        .skip_while(|line| !line.starts_with("| model"))
        .take_while(|line| line.starts_with('|'))
        .skip(2)
        .map(cells)
        .collect();
    let rows = table
        .iter()
        .filter(|c| fixture(&c[1]).exists() && c[1].contains('/'))
        .map(|c| Row {
            model: c[1].clone(),
            default: bytes(&c[3]),
            references: bytes(&c[4]),
            png16: bytes(&c[5]),
            ratio: ratio(&c[9]),
        })
        .collect();
    let median = table.iter().find(|c| c[1].starts_with("median, the 8 fixtures")).expect("a median row")[9].clone();
    (rows, ratio(&median))
}

fn median(mut values: Vec<f64>) -> f64 {
    values.sort_by(f64::total_cmp);
    let n = values.len();
    if n % 2 == 1 {
        values[n / 2]
    } else {
        (values[n / 2 - 1] + values[n / 2]) / 2.0
    }
}

#[test]
fn default_bakes_of_the_fixtures_keep_their_documented_sizes() {
    let (rows, _) = documented();
    assert_eq!(rows.len(), 8, "{:?}", rows.iter().map(|r| &r.model).collect::<Vec<_>>());
    for row in rows {
        let out = tempfile::tempdir().unwrap();
        let path = fixture(&row.model);
        let o = vatbake(&["bake", path.to_str().unwrap(), "-o", out.path().to_str().unwrap()]);
        assert!(o.status.success(), "{}: {}", row.model, String::from_utf8_lossy(&o.stderr));
        let name = path.file_stem().unwrap().to_str().unwrap().to_string();
        let bytes = std::fs::metadata(out.path().join(format!("{name}.vat.ktx2"))).unwrap().len();
        let ratio = bytes as f64 / row.default as f64;
        assert!(
            (0.99..=1.01).contains(&ratio),
            "{}: {bytes} bytes, documented {} ({ratio:.4}×)",
            row.model,
            row.default
        );
        let d: serde_json::Value =
            serde_json::from_slice(&std::fs::read(out.path().join(format!("{name}.vat.json"))).unwrap()).unwrap();
        let references = d["texture"]["delta"]["references"].as_str().map_or(0, str::len) as u64;
        assert!(
            references.abs_diff(row.references) <= row.references / 100,
            "{}: references {references} bytes, documented {}",
            row.model,
            row.references
        );
    }
}

#[test]
fn the_size_claims_are_the_tables() {
    let (rows, documented_median) = documented();
    let mut ratios = Vec::new();
    for row in &rows {
        let measured = (row.default + row.references) as f64 / row.png16 as f64;
        assert!((measured - row.ratio).abs() <= 0.005, "{}: {measured:.3}, documented {}", row.model, row.ratio);
        ratios.push(measured);
    }
    // The reference columns (issue 29): 0.68× in the median, 0.96× at worst
    // (AnimatedMorphCube, which keeps "planes"); "planes" alone was 0.75× and 0.96×, the
    // interleaved delta before it 0.86× and 1.63×.
    let worst = ratios.iter().copied().fold(0.0, f64::max);
    assert!(worst <= 0.90, "worst default / PNG16 {worst:.3}");
    let median = median(ratios);
    assert!(median <= 0.70, "median default / PNG16 {median:.3}");
    assert!((median - documented_median).abs() <= 0.005, "median {median:.3}, documented {documented_median}");
    let readme = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/../../README.md")).unwrap();
    let claim = format!("{documented_median:.2}× the bytes of a 16-bit PNG of the same texels in the same order");
    assert!(readme.replace('\n', " ").contains(&claim), "README.md should say {claim:?}");
}
