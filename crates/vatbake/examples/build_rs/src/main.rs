//! Prints one line about the bake that `build.rs` made: the description file is
//! compiled into the binary, so nothing is read at run time.

use serde_json::Value;

const DESCRIPTION: &str = include_str!(env!("FOX_DESCRIPTION"));

fn main() {
    let description: Value = serde_json::from_str(DESCRIPTION).expect("the description is JSON");
    let number = |value: &Value| value.as_u64().expect("a whole number");
    let points = number(&description["points"]);
    let rows = number(&description["rows"]);
    let clips = description["clips"].as_array().expect("a list of clips");
    let texture = &description["texture"];

    // The Fox has 1728 points; a bake of all of them keeps every one, and the clips
    // share the texture's rows between them.
    assert_eq!(points, 1728, "points of the Fox");
    assert_eq!(number(&description["mesh"]["points"]), points, "the rest mesh has the bake's points");
    assert_eq!(number(&texture["height"]), rows, "one texture row per row");
    let clip_rows: u64 = clips.iter().map(|clip| number(&clip["rows"])).sum();
    assert_eq!(clip_rows, rows, "the clips' rows add up to the texture's");

    let names: Vec<&str> = clips.iter().map(|clip| clip["name"].as_str().expect("a clip name")).collect();
    println!(
        "{}: {points} points × {rows} rows in {} clips ({}); texture {}×{} {} bytes",
        description["source"]["file"].as_str().expect("a file name"),
        clips.len(),
        names.join(", "),
        number(&texture["width"]),
        number(&texture["height"]),
        number(&texture["bytes"]),
    );
}
