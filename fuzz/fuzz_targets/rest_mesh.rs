//! Any bytes as a bake's rest mesh (`*.rest.glb`), read as `inspect`, `verify` and
//! `preview` read one: every buffer view and accessor checked against the binary chunk
//! before anything is allocated (`vatbake::shipped::fuzz::rest_mesh`, also run by
//! every `cargo test`).
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| vatbake::shipped::fuzz::rest_mesh(data));
