//! Bakes the Fox fixture into `OUT_DIR/vat` whenever this crate is built (and again
//! when the model changes), then tells the compiler where the description is so that
//! `main.rs` can embed it.

use std::env;
use std::path::PathBuf;

fn main() {
    let manifest_dir = PathBuf::from(env::var_os("CARGO_MANIFEST_DIR").expect("cargo sets CARGO_MANIFEST_DIR"));
    let out_dir = PathBuf::from(env::var_os("OUT_DIR").expect("cargo sets OUT_DIR"));
    let input = manifest_dir.join("../../../../fixtures/Fox/Fox.glb");
    println!("cargo:rerun-if-changed={}", input.display());

    let options = vatbake::BakeOptions { points: Some("all".parse().unwrap()), ..Default::default() };
    let settings = options.settings(input, out_dir.join("vat")).unwrap_or_else(|e| panic!("{e}"));
    let report = vatbake::bake(&settings).unwrap_or_else(|e| panic!("{e}"));
    for warning in &report.warnings {
        println!("cargo:warning={}", warning.message);
    }
    println!("cargo:rustc-env=FOX_DESCRIPTION={}", report.description_file.display());
}
