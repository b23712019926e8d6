//! A description and a texture (a little-endian u32 length, the description, then the
//! texture's bytes): the texture's KTX2 or PNG header compared with the description
//! before anything is inflated, then the decode `verify` and `preview` run
//! (`vatbake::shipped::fuzz::texture_header`, also run by every `cargo test`).
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| vatbake::shipped::fuzz::texture_header(data));
