//! Helpers shared by the whole-tool tests: run the real binary on real fixtures.
#![allow(dead_code)]

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

pub fn repo() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..").canonicalize().unwrap()
}

pub fn fixture(relative: &str) -> PathBuf {
    repo().join("fixtures").join(relative)
}

pub fn vatbake(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_vatbake")).args(args).output().expect("the vatbake binary runs")
}

pub fn stderr(output: &Output) -> String {
    String::from_utf8_lossy(&output.stderr).into_owned()
}

/// Bakes a fixture into a fresh folder; panics with the tool's message on failure.
pub fn bake(model: &Path, extra: &[&str]) -> (tempfile::TempDir, serde_json::Value) {
    let out = tempfile::tempdir().unwrap();
    let mut args = vec!["bake", model.to_str().unwrap(), "-o", out.path().to_str().unwrap(), "-q"];
    args.extend_from_slice(extra);
    let output = vatbake(&args);
    assert!(output.status.success(), "bake of {} failed: {}", model.display(), stderr(&output));
    let stem = model.file_stem().unwrap().to_str().unwrap();
    let name = extra.iter().position(|a| *a == "--name").map(|i| extra[i + 1]).unwrap_or(stem);
    let description = std::fs::read(out.path().join(format!("{name}.vat.json"))).unwrap();
    (out, serde_json::from_slice(&description).unwrap())
}

/// Texels of a KTX2 file, read with the `ktx2` crate and inflated with `zstd`:
/// other people's readers, not `vat-ktx2`.
pub fn read_ktx2(path: &Path) -> (ktx2::Header, Vec<u16>) {
    let bytes = std::fs::read(path).unwrap();
    let reader = ktx2::Reader::new(&bytes[..]).expect("the ktx2 crate accepts the file");
    let header = reader.header();
    let level = reader.levels().next().expect("one level");
    let raw = zstd::decode_all(level.data).expect("the level is one zstd frame");
    let texels = raw.chunks_exact(2).map(|b| u16::from_le_bytes([b[0], b[1]])).collect();
    (header, texels)
}

/// The texels a shader reads, from a KTX2's stored texels and its description: the
/// delta the description records (`texture.delta.order` 1 or 2; none: as stored)
/// undone as docs/FORMAT.md spells it, written here apart from vatbake's own undo:
/// with `layout` "planes" or "planes-ref" first each block's eight byte planes back into
/// texels, R, G, B unzigzagged and each plus the texel's to the left ("planes") or its
/// reference column's ("planes-ref"), the alpha's bytes unzigzagged (and plus their
/// reference column's, "planes-ref"); then within
/// each clip of each band, running sums (wrapping) down the rows, from the clip's
/// third row and then from its second for order 2, from its second for order 1 (the
/// alpha's two bytes apart, once, with "planes"). One image (no layers).
#[allow(dead_code)]
pub fn undo_delta(mut texels: Vec<u16>, description: &serde_json::Value) -> Vec<u16> {
    let delta = &description["texture"]["delta"];
    let order = delta["order"].as_u64().unwrap_or(0) as usize;
    let width = description["texture"]["width"].as_u64().unwrap() as usize;
    let rows = description["rows"].as_u64().unwrap() as usize;
    let bands = description["texture"]["bands"].as_u64().unwrap() as usize;
    let planes = delta["layout"] == "planes" || delta["layout"] == "planes-ref";
    // Each column's references ("planes": R, G, B from the column to the left, the alpha
    // from none; "planes-ref": base64 of 2 * width bytes, RGB's then the alpha's).
    let (rgb, alpha): (Vec<usize>, Vec<usize>) = match delta["references"].as_str() {
        Some(text) if delta["layout"] == "planes-ref" => {
            let bytes = base64(text);
            assert_eq!(bytes.len(), 2 * width, "texture.delta.references");
            (bytes[..width].iter().map(|&b| b as usize).collect(), bytes[width..].iter().map(|&b| b as usize).collect())
        }
        _ => ((0..width).map(|x| usize::from(x > 0)).collect(), vec![0; width]),
    };
    if planes {
        let block = delta["block_rows"].as_u64().unwrap() as usize * width * 4;
        let bytes: Vec<u8> = texels.iter().flat_map(|v| v.to_le_bytes()).collect();
        for (start, chunk) in (0..texels.len()).step_by(block).zip(bytes.chunks(block * 2)) {
            let n = chunk.len() / 8;
            for i in 0..n {
                for c in 0..4 {
                    texels[start + i * 4 + c] =
                        u16::from(chunk[2 * c * n + i]) << 8 | u16::from(chunk[(2 * c + 1) * n + i]);
                }
            }
        }
        for row in texels.chunks_exact_mut(width * 4) {
            for x in 0..width {
                for c in 0..3 {
                    let z = row[x * 4 + c];
                    let from = if rgb[x] > 0 { row[(x - rgb[x]) * 4 + c] } else { 0 };
                    row[x * 4 + c] = ((z >> 1) ^ 0u16.wrapping_sub(z & 1)).wrapping_add(from);
                }
                let [lo, hi] = row[x * 4 + 3].to_le_bytes();
                let [flo, fhi] = if alpha[x] > 0 { row[(x - alpha[x]) * 4 + 3].to_le_bytes() } else { [0, 0] };
                let un = |z: u8| (z >> 1) ^ 0u8.wrapping_sub(z & 1);
                row[x * 4 + 3] = u16::from_le_bytes([un(lo).wrapping_add(flo), un(hi).wrapping_add(fhi)]);
            }
        }
    }
    for band in 0..bands {
        for clip in description["clips"].as_array().unwrap() {
            let first = band * rows + clip["row"].as_u64().unwrap() as usize;
            let count = clip["rows"].as_u64().unwrap() as usize;
            for pass in (0..order).rev() {
                // pass 1 (order 2 only) starts at the clip's third row, pass 0 at its second.
                for y in first + 1 + pass..first + count {
                    for i in 0..width * 4 {
                        let above = texels[(y - 1) * width * 4 + i];
                        let at = &mut texels[y * width * 4 + i];
                        if !planes || i % 4 != 3 {
                            *at = at.wrapping_add(above);
                        } else if pass == 0 {
                            let [a0, a1] = at.to_le_bytes();
                            let [b0, b1] = above.to_le_bytes();
                            *at = u16::from_le_bytes([a0.wrapping_add(b0), a1.wrapping_add(b1)]);
                        }
                    }
                }
            }
        }
    }
    texels
}

/// RFC 4648 base64 with padding, decoded by the `base64` crate.
#[allow(dead_code)]
pub fn base64(text: &str) -> Vec<u8> {
    use base64::Engine;
    base64::engine::general_purpose::STANDARD.decode(text).expect("base64")
}

/// Waits until a temporary file (`*.tmp`) appears in `dir` (the bake is writing),
/// sends `signal` (TERM, HUP, INT) with the `kill` command, and returns the output
/// after checking the documented interrupt: exit 130 and its one message.
pub fn interrupt_while_staging(mut child: std::process::Child, dir: &Path, signal: &str) -> Output {
    use std::time::{Duration, Instant};
    let started = Instant::now();
    let staging = || {
        std::fs::read_dir(dir)
            .into_iter()
            .flatten()
            .flatten()
            .any(|e| e.file_name().to_string_lossy().ends_with(".tmp"))
    };
    while !staging() {
        assert!(started.elapsed() < Duration::from_secs(120), "{signal}: no temporary file appeared");
        assert!(child.try_wait().unwrap().is_none(), "{signal}: the process ended before it could be interrupted");
        std::thread::sleep(Duration::from_millis(20));
    }
    let kill = Command::new("kill").args([&format!("-{signal}"), &child.id().to_string()]).status();
    assert!(kill.unwrap().success());
    let output = child.wait_with_output().unwrap();
    assert_eq!(output.status.code(), Some(130), "{signal}: {}", stderr(&output));
    assert!(stderr(&output).contains("interrupted; unfinished files removed"), "{}", stderr(&output));
    output
}
