//! Any bytes as a bake's description (`*.vat.json`), read as `inspect`, `verify`,
//! `preview`, `audit` and the roster read one: the capped first pass, the typed parse,
//! the file names and the fields checked against the texture
//! (`vatbake::shipped::fuzz::description`, also run by every `cargo test`).
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| vatbake::shipped::fuzz::description(data));
