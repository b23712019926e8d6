//! The bundled fixtures' default bakes keep the texture sizes docs/PERFORMANCE.md
//! records ("Delta by default", column "default"), to within
//! 1%: a change that makes the texture larger (or the figures stale) is seen here.

mod common;

use common::{fixture, vatbake};

/// The documented default bytes of each fixture, from the table in docs/PERFORMANCE.md.
fn documented() -> Vec<(String, u64)> {
    let text = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/../../docs/PERFORMANCE.md")).unwrap();
    let section = text.split("## Delta by default").nth(1).expect("the section is in docs/PERFORMANCE.md");
    section
        .lines()
        .take_while(|line| !line.starts_with("## "))
        .filter(|line| line.starts_with("| ") && !line.starts_with("| model"))
        .map(|line| {
            let cells: Vec<&str> = line.split('|').map(str::trim).collect();
            (cells[1].to_string(), cells[4].replace(',', "").parse().expect("a byte count"))
        })
        .collect()
}

#[test]
fn default_bakes_of_the_fixtures_keep_their_documented_sizes() {
    let figures = documented();
    assert_eq!(figures.len(), 8, "{figures:?}");
    for (model, documented) in figures {
        let out = tempfile::tempdir().unwrap();
        let path = fixture(&model);
        let o = vatbake(&["bake", path.to_str().unwrap(), "-o", out.path().to_str().unwrap()]);
        assert!(o.status.success(), "{model}: {}", String::from_utf8_lossy(&o.stderr));
        let name = path.file_stem().unwrap().to_str().unwrap().to_string();
        let bytes = std::fs::metadata(out.path().join(format!("{name}.vat.ktx2"))).unwrap().len();
        let ratio = bytes as f64 / documented as f64;
        assert!((0.99..=1.01).contains(&ratio), "{model}: {bytes} bytes, documented {documented} ({ratio:.4}×)");
    }
}
