//! Size and encode time of an animation-like texture at several Zstandard levels,
//! with and without long-distance matching, to pick `DEFAULT_ZSTD_LEVEL`.
//!
//! ```text
//! cargo run --release -p vat-ktx2 --example levels [COLUMNS ROWS | FILE.ktx2]
//! ```
//!
//! Given a `.ktx2` file (a real bake), its texels are measured. Otherwise the texture is synthetic: COLUMNS points (default 4000) over ROWS frames (240)
//! of a skinned-looking motion. Points come in 20 contiguous groups like the
//! vertices of one bone; each group sways, bobs and turns smoothly, every point
//! adds a small wobble of its own, and positions are quantized to 16 bits over a
//! fixed box. RGB is the position, A is 65535. Timings are wall clock, one run each.

use std::f64::consts::TAU;
use std::time::Instant;

use vat_ktx2::{decode_ktx2, encode_ktx2, encode_png16, Ktx2Options, Rgba16Image};

const LEVELS: [i32; 5] = [1, 3, 9, 19, 22];

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let image = match &args[..] {
        [path] => decode_ktx2(&std::fs::read(path).expect("readable file")).expect("a KTX2 file we read"),
        [columns, rows] => animation_like(
            columns.parse().expect("COLUMNS is a positive integer"),
            rows.parse().expect("ROWS is a positive integer"),
        ),
        _ => animation_like(4000, 240),
    };
    let (columns, rows) = (image.width, image.height);
    let raw: Vec<u8> = image.texels.iter().flat_map(|t| t.to_le_bytes()).collect();
    println!("{columns} columns x {rows} rows, {} bytes raw (zstd {})", raw.len(), zstd::zstd_safe::version_string());
    println!();
    println!("| level | .ktx2 bytes | ratio | encode ms | decode ms | window | + LDM bytes | + LDM ms | LDM window |");
    println!("|------:|------------:|------:|----------:|----------:|-------:|------------:|---------:|-----------:|");
    for level in LEVELS {
        let options =
            Ktx2Options { zstd_level: level, writer: "levels example".to_string(), workers: 2, long_window: false };
        let start = Instant::now();
        let file = encode_ktx2(&image, &options).expect("encodes");
        let encode_ms = start.elapsed().as_secs_f64() * 1e3;
        let start = Instant::now();
        let decoded = decode_ktx2(&file).expect("decodes");
        let decode_ms = start.elapsed().as_secs_f64() * 1e3;
        assert_eq!(decoded, image);
        let level_bytes = &file[file.len() - compressed_len(&file)..];

        // The crate does not expose long-distance matching; measure it on the same
        // bytes with the same frame options to see whether it would be worth it.
        let start = Instant::now();
        let ldm = compress_with_ldm(&raw, level);
        let ldm_ms = start.elapsed().as_secs_f64() * 1e3;
        assert_eq!(zstd::decode_all(&ldm[..]).expect("inflates"), raw);

        println!(
            "| {level:>5} | {:>11} | {:>5.1} | {encode_ms:>9.0} | {decode_ms:>9.1} | {:>6} | {:>11} | {ldm_ms:>8.0} | {:>10} |",
            file.len(),
            raw.len() as f64 / file.len() as f64,
            window(level_bytes),
            ldm.len() + (file.len() - level_bytes.len()),
            window(&ldm),
        );
    }
    let start = Instant::now();
    let png = encode_png16(&image).expect("encodes");
    println!();
    println!(
        "16-bit PNG (best, adaptive): {} bytes, ratio {:.1}, {:.0} ms",
        png.len(),
        raw.len() as f64 / png.len() as f64,
        start.elapsed().as_secs_f64() * 1e3
    );

    // For comparison only (KTX2 level data must be the texels themselves): what
    // zstd makes of the same rows stored as wrapping differences from the row above,
    // the transform PNG's "Up" filter applies.
    let deltas = row_deltas(&image);
    for level in [9, 19] {
        let packed = zstd::bulk::compress(&deltas, level).expect("compresses");
        println!(
            "zstd -{level} of row deltas (not a KTX2 level): {} bytes, ratio {:.1}",
            packed.len(),
            raw.len() as f64 / packed.len() as f64
        );
    }
}

fn row_deltas(image: &Rgba16Image) -> Vec<u8> {
    let row_len = image.width as usize * 4;
    image
        .texels
        .iter()
        .enumerate()
        .map(|(index, &texel)| {
            let above = index.checked_sub(row_len).map_or(0, |i| image.texels[i]);
            texel.wrapping_sub(above)
        })
        .flat_map(u16::to_le_bytes)
        .collect()
}

fn animation_like(columns: u32, rows: u32) -> Rgba16Image {
    const GROUPS: u32 = 20;
    let mut seed: u64 = 0x00C0_FFEE;
    let mut random = move || {
        seed = seed.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
        (seed >> 11) as f64 / (1u64 << 53) as f64
    };
    let groups: Vec<[f64; 6]> = (0..GROUPS)
        .map(|_| {
            let pivot_y = random() * 1.6 - 0.8;
            let sway = 0.05 + random() * 0.25;
            let turn = random() * 0.8;
            let phase = random() * TAU;
            let cycles = 1.0 + (random() * 3.0).floor();
            [pivot_y, sway, turn, phase, cycles, random() * 0.4 - 0.2]
        })
        .collect();
    let points: Vec<[f64; 5]> = (0..columns)
        .map(|_| {
            [random() * 0.4 - 0.2, random() * 0.4 - 0.2, random() * 0.4 - 0.2, random() * TAU, 0.002 + random() * 0.01]
        })
        .collect();
    let quantize = |x: f64| (((x + 1.5) / 3.0).clamp(0.0, 1.0) * 65535.0).round() as u16;
    let mut texels = Vec::with_capacity(columns as usize * rows as usize * 4);
    for row in 0..rows {
        let t = f64::from(row) / f64::from(rows);
        for (column, point) in points.iter().enumerate() {
            let [pivot_y, sway, turn, phase, cycles, pivot_x] = groups[column * GROUPS as usize / columns as usize];
            let angle = turn * (TAU * cycles * t + phase).sin();
            let (sin, cos) = angle.sin_cos();
            let [dx, dy, dz, wobble_phase, wobble] = *point;
            let wobble = wobble * (TAU * 4.0 * t + wobble_phase).sin();
            let x = pivot_x + sway * (TAU * t + phase).sin() + dx * cos + dz * sin + wobble;
            let y = pivot_y + 0.1 * sway * (TAU * 2.0 * t + phase).cos() + dy;
            let z = -dx * sin + dz * cos + wobble;
            texels.extend([quantize(x), quantize(y), quantize(z), u16::MAX]);
        }
    }
    Rgba16Image { width: columns, height: rows, texels }
}

/// level[0].byteLength, from the level index.
fn compressed_len(file: &[u8]) -> usize {
    u64::from_le_bytes(file[88..96].try_into().expect("8 bytes")) as usize
}

fn compress_with_ldm(raw: &[u8], level: i32) -> Vec<u8> {
    let mut compressor = zstd::bulk::Compressor::new(level).expect("level");
    compressor.include_checksum(true).expect("checksum");
    compressor.include_contentsize(true).expect("content size");
    compressor.long_distance_matching(true).expect("ldm");
    compressor.compress(raw).expect("compresses")
}

/// The window a decoder must provide, from the frame header (RFC 8878 §3.1.1.1.2),
/// written like "8 MiB".
fn window(frame: &[u8]) -> String {
    let descriptor = frame[4];
    let single_segment = descriptor & 0x20 != 0;
    let bytes = if single_segment {
        // No window descriptor: the window is the whole content.
        zstd::zstd_safe::get_frame_content_size(frame).ok().flatten().unwrap_or(0)
    } else {
        let window_descriptor = frame[5];
        let base = 1u64 << (10 + (window_descriptor >> 3));
        base + (base / 8) * u64::from(window_descriptor & 7)
    };
    if bytes >= 1 << 20 {
        format!("{} MiB", bytes >> 20)
    } else {
        format!("{} KiB", bytes >> 10)
    }
}
