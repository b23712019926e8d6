//! The fuzz targets for the readers of a bake (`description`, `rest_mesh`,
//! `texture_header`: fuzz/README.md) run for a bounded time on every `cargo test`, on a
//! seed corpus of real bakes, with a deterministic mutator standing in for libFuzzer;
//! then the committed regression corpus (fuzz/regressions/), each input with the exact
//! refusal it must get. A panic saves the input under the target folder and names it.
//!
//! `VATBAKE_FUZZ_SECONDS` sets the time per target (default 3).

mod common;

use std::panic::{catch_unwind, AssertUnwindSafe};
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use common::{fixture, repo, stderr, vatbake};
use vatbake::shipped::{fuzz, read, rest_mesh_from_bytes};

/// Two real bakes (SimpleSkin with every point; Fox by default) in a temporary folder:
/// their description, rest mesh and texture files.
fn seed_bakes() -> (tempfile::TempDir, Vec<[PathBuf; 3]>) {
    let dir = tempfile::tempdir().unwrap();
    let mut bakes = Vec::new();
    for (model, name, extra) in
        [("SimpleSkin/SimpleSkin.gltf", "SimpleSkin", &["--points", "all"][..]), ("Fox/Fox.glb", "Fox", &[][..])]
    {
        let out = dir.path().join(name);
        let mut args = vec!["bake", "-q", "-o", out.to_str().unwrap()];
        let model = fixture(model);
        args.push(model.to_str().unwrap());
        args.extend_from_slice(extra);
        let o = vatbake(&args);
        assert!(o.status.success(), "{}", stderr(&o));
        bakes.push(["vat.json", "rest.glb", "vat.ktx2"].map(|ext| out.join(format!("{name}.{ext}"))));
    }
    (dir, bakes)
}

/// A small deterministic generator (xorshift64*).
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }
    fn below(&mut self, n: usize) -> usize {
        (self.next() % n.max(1) as u64) as usize
    }
}

/// Numbers that break readers: zero, one past a power of two, the largest of each
/// width, negative, not finite.
const NUMBERS: &[&str] = &[
    "0",
    "-1",
    "1e309",
    "-1e309",
    "4294967295",
    "4294967296",
    "2147483648",
    "18446744073709551615",
    "1e-320",
    "65537",
    "1000000",
    "0.0",
    "3.5",
];
const WORDS: &[u32] = &[0, 1, 0x7FFF_FFFF, 0x8000_0000, 0xFFFF_FFFF, 0xFFFF_FFFC, 0x4000_0000, 0x10000];

/// One to four mutations of `input`, libFuzzer's kinds: bits, bytes and words set to
/// edge values, spans cut, repeated or moved, and in text a number replaced by an
/// edge number, a list or object deepened.
fn mutate(rng: &mut Rng, input: &[u8]) -> Vec<u8> {
    let mut data = input.to_vec();
    for _ in 0..1 + rng.below(4) {
        let len = data.len();
        match rng.below(9) {
            0 if len > 0 => {
                let at = rng.below(len);
                data[at] ^= 1 << rng.below(8);
            }
            1 if len > 0 => {
                let at = rng.below(len);
                data[at] = [0u8, 0xFF, 0x7F, 0x80, b'"', b'[', b'{', b'-'][rng.below(8)];
            }
            2 if len >= 4 => {
                let at = rng.below(len - 3) & !3;
                data[at..at + 4].copy_from_slice(&WORDS[rng.below(WORDS.len())].to_le_bytes());
            }
            3 => data.truncate(rng.below(len + 1)),
            4 if len > 0 => {
                let at = rng.below(len);
                let end = (at + 1 + rng.below(64)).min(len);
                data.drain(at..end);
            }
            5 if len > 0 => {
                let at = rng.below(len);
                let span: Vec<u8> = data[at..(at + 1 + rng.below(256)).min(len)].to_vec();
                let to = rng.below(len + 1);
                for _ in 0..1 + rng.below(3) {
                    data.splice(to..to, span.iter().copied());
                }
            }
            6 | 7 => {
                // A number in the text (JSON: the description, a GLB's JSON chunk).
                let starts: Vec<usize> = (0..len)
                    .filter(|&i| data[i].is_ascii_digit() && (i == 0 || !data[i - 1].is_ascii_alphanumeric()))
                    .collect();
                if let Some(&at) = starts.get(rng.below(starts.len())) {
                    let end =
                        (at..len).find(|&i| !(data[i].is_ascii_digit() || b".eE+-".contains(&data[i]))).unwrap_or(len);
                    let number = NUMBERS[rng.below(NUMBERS.len())].as_bytes();
                    data.splice(at..end, number.iter().copied());
                }
            }
            _ if len > 0 => {
                // A value wrapped in lists: deep nesting.
                let at = rng.below(len);
                let depth = 1 + rng.below(200);
                data.splice(at..at, std::iter::repeat_n(b'[', depth));
                let end = (at + depth + 1 + rng.below(16)).min(data.len());
                data.splice(end..end, std::iter::repeat_n(b']', depth));
            }
            _ => {}
        }
    }
    data
}

/// Runs `target` on the seeds and on mutations of them for `seconds`; on a panic saves
/// the input and fails naming it. Returns the inputs run.
fn run(name: &str, target: fn(&[u8]), seeds: &[Vec<u8>], seconds: f64) -> usize {
    let started = Instant::now();
    let mut rng = Rng(0x9E37_79B9_7F4A_7C15 ^ name.len() as u64);
    let mut current: Vec<u8> = seeds[0].clone();
    let mut runs = 0usize;
    let check = |input: &[u8]| {
        if catch_unwind(AssertUnwindSafe(|| target(input))).is_err() {
            let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join("fuzz-readers");
            std::fs::create_dir_all(&dir).unwrap();
            let path = dir.join(format!("{name}-crash.bin"));
            std::fs::write(&path, input).unwrap();
            panic!("fuzz target {name} panicked on {} (kept for fuzz/regressions/{name}/)", path.display());
        }
    };
    for seed in seeds {
        check(seed);
        runs += 1;
    }
    while started.elapsed() < Duration::from_secs_f64(seconds) {
        // Half the time from a seed, otherwise from the last input (mutations pile up).
        if rng.below(2) == 0 {
            current = seeds[rng.below(seeds.len())].clone();
        }
        current = mutate(&mut rng, &current);
        check(&current);
        runs += 1;
    }
    runs
}

fn seconds() -> f64 {
    std::env::var("VATBAKE_FUZZ_SECONDS").ok().and_then(|s| s.parse().ok()).unwrap_or(3.0)
}

/// The texture target's input: the description's length, the description, the texture.
fn pair(description: &[u8], texture: &[u8]) -> Vec<u8> {
    let mut data = (description.len() as u32).to_le_bytes().to_vec();
    data.extend_from_slice(description);
    data.extend_from_slice(texture);
    data
}

#[test]
fn the_readers_survive_mutated_bakes_for_a_bounded_time() {
    let (_dir, bakes) = seed_bakes();
    let read = |p: &Path| std::fs::read(p).unwrap();
    let descriptions: Vec<Vec<u8>> = bakes.iter().map(|b| read(&b[0])).collect();
    let meshes: Vec<Vec<u8>> = bakes.iter().map(|b| read(&b[1])).collect();
    let pairs: Vec<Vec<u8>> = bakes.iter().map(|b| pair(&read(&b[0]), &read(&b[2]))).collect();
    // The seeds themselves read: a mutation that is refused is refused for a reason.
    for d in &descriptions {
        read::description_from_bytes(d).unwrap();
    }
    for m in &meshes {
        rest_mesh_from_bytes(m).unwrap();
    }
    let seconds = seconds();
    for (name, target, seeds) in [
        ("description", fuzz::description as fn(&[u8]), &descriptions),
        ("rest_mesh", fuzz::rest_mesh, &meshes),
        ("texture_header", fuzz::texture_header, &pairs),
    ] {
        let runs = run(name, target, seeds, seconds);
        eprintln!("{name}: {runs} inputs in {seconds} s, no panic");
        assert!(runs > seeds.len(), "{name}: no mutation ran");
    }
}

/// Every input in fuzz/regressions/: (target, file, the start of the refusal it gets).
const REGRESSIONS: &[(&str, &str, &str)] = &[
    // preview panicked at row indexing (exit 101): a clip from row 1000 of 166 rows.
    (
        "description",
        "clip-row-past-the-texture.vat.json",
        "clips[0].row: rows 1000..1166 reach past the texture's 166 rows",
    ),
    // A clip of 4294967295 rows: `row + rows` overflowed u32.
    ("description", "clip-rows-u32-max.vat.json", "clips[0].row: rows 0..4294967295 reach past the texture's 166 rows"),
    ("description", "clip-rate-zero.vat.json", "clips[0].rate: 0: not a finite number above 0"),
    ("description", "half-extent-negative.vat.json", "positions.half_extent[1]: -1: not a finite number of 0 or more"),
    // 5,000 nested lists as `clips`: counted by the first pass without recursing, refused
    // by the typed parse at the first wrong type (serde_json stops at 128 levels anyway).
    ("description", "deep-nesting.vat.json", "not a vatbake description (clips[0][0]: invalid type: sequence"),
    // `capacity overflow` in inspect, verify and preview (exit 101).
    (
        "rest_mesh",
        "accessor-count-wraps.rest.glb",
        "accessor 0 (4611686018427387904 elements, byteOffset 0, stride 12) runs past its buffer view 0 (144 bytes)",
    ),
    // A 51 GB allocation (exit 134): stride 0, 2^31 × 3 indices.
    (
        "rest_mesh",
        "index-stride-0-6g-indices.rest.glb",
        "its primitives declare 6442450941 indices, more than its 528 bytes of binary data can hold",
    ),
    // Accepted, and verify passed: a byteOffset wrapping past 2^32.
    (
        "rest_mesh",
        "byte-offset-wraps.rest.glb",
        "accessor 0 (12 elements, byteOffset 18446744073709551612, stride 12) runs past",
    ),
    // A 1 GiB texture declared by a 200-byte KTX2 header: refused before inflating.
    (
        "texture_header",
        "ktx2-declares-1gib.bin",
        "fuzz/unit.vat.ktx2: the texture is 16384×8192 texels, the description says 10×166",
    ),
];

#[test]
fn the_regression_corpus_gets_its_refusals() {
    let dir = repo().join("fuzz/regressions");
    let mut seen = 0;
    for (target, file, expected) in REGRESSIONS {
        let data = std::fs::read(dir.join(target).join(file)).unwrap();
        let refusal = match *target {
            "description" => read::description_from_bytes(&data).map(|_| ()),
            "rest_mesh" => rest_mesh_from_bytes(&data).map(|_| ()),
            _ => texture_refusal(&data),
        }
        .expect_err(file);
        assert!(refusal.starts_with(expected), "{target}/{file}: {refusal}");
        // And the target itself runs through it.
        match *target {
            "description" => fuzz::description(&data),
            "rest_mesh" => fuzz::rest_mesh(&data),
            _ => fuzz::texture_header(&data),
        }
        seen += 1;
    }
    // Every committed input is listed above.
    let committed: usize = ["description", "rest_mesh", "texture_header"]
        .iter()
        .map(|t| std::fs::read_dir(dir.join(t)).unwrap().count())
        .sum();
    assert_eq!((seen, committed), (REGRESSIONS.len(), REGRESSIONS.len()));
}

/// The texture target's refusal of its input: the description's, else the header's.
fn texture_refusal(data: &[u8]) -> Result<(), String> {
    let len = u32::from_le_bytes(data[..4].try_into().unwrap()) as usize;
    let description = read::description_from_bytes(&data[4..4 + len])?;
    let files = vatbake::shipped::ShippedFiles {
        path: "fuzz/unit.vat.json".into(),
        hashes: Default::default(),
        texture: "fuzz/unit.vat.ktx2".into(),
        mesh: "fuzz/unit.rest.glb".into(),
        description,
    };
    files.check_header(&data[4 + len..]).map_err(|(_, why)| why)
}
