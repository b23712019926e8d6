//! Prints one line about the bake that `build.rs` made: the description file is
//! compiled into the binary, so nothing is read at run time.

use serde_json::Value;

const DESCRIPTION: &str = include_str!(env!("FOX_DESCRIPTION"));

fn main() {
    println!("{}", summary(DESCRIPTION));
}

/// One line about a description: its source, points, rows, clips and texture. Checks on
/// the way that the figures agree with each other.
fn summary(description: &str) -> String {
    let description: Value = serde_json::from_str(description).expect("the description is JSON");
    let number = |value: &Value| value.as_u64().expect("a whole number");
    let points = number(&description["points"]);
    let rows = number(&description["rows"]);
    let clips = description["clips"].as_array().expect("a list of clips");
    let texture = &description["texture"];

    // A bake of all of a model's points keeps every one, and the clips share the
    // texture's rows between them.
    assert_eq!(number(&description["mesh"]["points"]), points, "the rest mesh has the bake's points");
    assert_eq!(number(&texture["height"]), rows, "one texture row per row");
    let clip_rows: u64 = clips.iter().map(|clip| number(&clip["rows"])).sum();
    assert_eq!(clip_rows, rows, "the clips' rows add up to the texture's");

    let names: Vec<&str> = clips.iter().map(|clip| clip["name"].as_str().expect("a clip name")).collect();
    format!(
        "{}: {points} points × {rows} rows in {} clips ({}); texture {}×{} {} bytes",
        description["source"]["file"].as_str().expect("a file name"),
        clips.len(),
        names.join(", "),
        number(&texture["width"]),
        number(&texture["height"]),
        number(&texture["bytes"]),
    )
}

#[cfg(test)]
mod tests {
    /// `cargo test --workspace` checks the bake the build script embedded, with no build
    /// of its own: the test binary is compiled in the same tree as every other test.
    #[test]
    fn the_embedded_bake_is_the_whole_fox() {
        let line = super::summary(super::DESCRIPTION);
        let (figures, bytes) =
            line.rsplit_once(' ').and_then(|(head, _)| head.rsplit_once(' ')).expect("a line with a byte count");
        assert_eq!(figures, "Fox.glb: 1728 points × 162 rows in 3 clips (Survey, Walk, Run); texture 1728×162");
        assert!(bytes.parse::<u64>().is_ok_and(|bytes| bytes > 100_000), "texture bytes: {bytes}");
    }
}
