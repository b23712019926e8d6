//! Encode → decode round trips, checked by our decoder and by readers that are not ours.

mod common;

use std::io::Write;
use std::process::{Command, Stdio};

use common::{lcg_image, le_bytes, level0, offset, options, set_u32, set_u64, with_level};
use vat_ktx2::{decode_ktx2, encode_ktx2, Ktx2Options};

#[test]
fn decode_gives_back_every_u16() {
    for (width, height, seed) in [(1, 1, 1), (3, 2, 2), (257, 31, 3), (1000, 4, 4)] {
        let image = lcg_image(width, height, seed);
        let file = encode_ktx2(&image, &options()).unwrap();
        assert_eq!(decode_ktx2(&file).unwrap(), image, "{width}x{height}");
    }
}

#[test]
fn every_level_round_trips() {
    let image = lcg_image(40, 12, 5);
    for zstd_level in [-5, 0, 1, 3, 9, 19, 22] {
        let options = Ktx2Options { zstd_level, ..options() };
        let file = encode_ktx2(&image, &options).unwrap();
        assert_eq!(decode_ktx2(&file).unwrap(), image, "level {zstd_level}");
    }
}

#[test]
fn the_ktx2_crate_and_zstd_decode_all_read_it_independently() {
    let image = lcg_image(123, 17, 11);
    let file = encode_ktx2(&image, &options()).unwrap();

    let reader = ktx2::Reader::new(&file[..]).unwrap();
    let header = reader.header();
    assert_eq!(header.format, Some(ktx2::Format::R16G16B16A16_UNORM));
    assert_eq!(header.type_size, 2);
    assert_eq!((header.pixel_width, header.pixel_height), (123, 17));
    assert_eq!(header.supercompression_scheme, Some(ktx2::SupercompressionScheme::Zstandard));
    assert_eq!(reader.writer(), Some("vatbake 0.1.0\0"));
    assert_eq!(reader.color_model(), Some(ktx2::ColorModel::RGBSDA));
    assert_eq!(reader.transfer_function(), Some(ktx2::TransferFunction::Linear));
    let levels: Vec<_> = reader.levels().collect();
    assert_eq!(levels.len(), 1);
    assert_eq!(levels[0].uncompressed_byte_length, 123 * 17 * 8);

    let raw = zstd::decode_all(levels[0].data).unwrap();
    assert_eq!(raw, le_bytes(&image.texels));
}

/// `zstd` (the reference command-line tool, not our bindings) inflates the level
/// bytes cut out of the file by the offsets in the level index.
#[test]
fn zstd_command_line_tool_inflates_the_level() {
    let Ok(version) = Command::new("zstd").arg("--version").output() else {
        // tests/run.sh (the README's test command, and CI) installs the tool and sets this.
        assert!(
            std::env::var_os("VAT_REQUIRE_ZSTD").is_none(),
            "the zstd command-line tool is not installed (apt-get install zstd)"
        );
        println!("note: skipped, the zstd command-line tool is not installed (apt-get install zstd)");
        return;
    };
    println!("{}", String::from_utf8_lossy(&version.stdout).trim());

    let image = lcg_image(300, 24, 13);
    let file = encode_ktx2(&image, &options()).unwrap();
    let mut child =
        Command::new("zstd").args(["-d", "-c", "-q"]).stdin(Stdio::piped()).stdout(Stdio::piped()).spawn().unwrap();
    let level = level0(&file).to_vec();
    let mut stdin = child.stdin.take().unwrap();
    let feeder = std::thread::spawn(move || stdin.write_all(&level));
    let output = child.wait_with_output().unwrap();
    feeder.join().unwrap().unwrap();
    assert!(output.status.success(), "zstd -d failed: {output:?}");
    assert_eq!(output.stdout, le_bytes(&image.texels));
}

/// A file whose level is stored uncompressed (scheme 0), as other writers may make
/// it: level data aligned to lcm(8, 4) = 8 with mipPadding, bytesPlane0 = 8.
#[test]
fn uncompressed_files_from_other_writers_decode() {
    let image = lcg_image(5, 3, 17);
    let ours = encode_ktx2(&image, &options()).unwrap();
    let kvd_end =
        u64::from(common::u32_at(&ours, offset::KVD_OFFSET)) + u64::from(common::u32_at(&ours, offset::KVD_LENGTH));
    let aligned = kvd_end.next_multiple_of(8);
    let mut file = ours[..kvd_end as usize].to_vec();
    file.resize(aligned as usize, 0); // mipPadding
    file.extend_from_slice(&le_bytes(&image.texels));
    set_u32(&mut file, offset::SUPERCOMPRESSION, 0);
    set_u64(&mut file, offset::LEVEL0_OFFSET, aligned);
    set_u64(&mut file, offset::LEVEL0_LENGTH, 5 * 3 * 8);
    set_u64(&mut file, offset::LEVEL0_UNCOMPRESSED, 5 * 3 * 8);
    assert_eq!(decode_ktx2(&file).unwrap(), image);
}

/// KTX 2.0 revisions before 2025 wanted bytesPlane0 = 0 ("unsized") in the DFD of a
/// supercompressed file; such files must still be read.
#[test]
fn unsized_bytes_plane_from_older_writers_decodes() {
    let image = lcg_image(9, 4, 19);
    let mut file = encode_ktx2(&image, &options()).unwrap();
    let bytes_plane0 = offset::DFD + 4 + 8 + 8;
    assert_eq!(file[bytes_plane0], 8);
    file[bytes_plane0] = 0;
    assert_eq!(decode_ktx2(&file).unwrap(), image);
}

/// The Zstandard scheme allows several frames and skippable frames in a level.
#[test]
fn several_frames_and_a_skippable_frame_decode() {
    let image = lcg_image(16, 8, 23);
    let raw = le_bytes(&image.texels);
    let (first, second) = raw.split_at(300);
    let mut level = zstd::bulk::compress(first, 3).unwrap();
    // Skippable frame: magic 0x184D2A50..5F, a 4-byte length, then that many bytes.
    level.extend_from_slice(&0x184D_2A50u32.to_le_bytes());
    level.extend_from_slice(&3u32.to_le_bytes());
    level.extend_from_slice(b"pad");
    level.extend_from_slice(&zstd::bulk::compress(second, 3).unwrap());
    let ours = encode_ktx2(&image, &options()).unwrap();
    let file = with_level(&ours, &level, raw.len() as u64);
    assert_eq!(decode_ktx2(&file).unwrap(), image);
}

/// A frame without the content size in its header still decodes (into a buffer of
/// exactly uncompressedByteLength bytes).
#[test]
fn frame_without_content_size_decodes() {
    let image = lcg_image(20, 5, 29);
    let raw = le_bytes(&image.texels);
    let mut compressor = zstd::bulk::Compressor::new(3).unwrap();
    compressor.include_contentsize(false).unwrap();
    let level = compressor.compress(&raw).unwrap();
    assert_eq!(zstd::zstd_safe::get_frame_content_size(&level).unwrap(), None);
    let ours = encode_ktx2(&image, &options()).unwrap();
    let file = with_level(&ours, &level, raw.len() as u64);
    assert_eq!(decode_ktx2(&file).unwrap(), image);
}

/// The writer tells how far the compressor has got, not only what it was fed: with
/// workers, the rows are taken at once and compressed later, and the call with the last
/// rows waits for them all. The figures never go back, fall behind what was fed while
/// the workers are at it, end at every byte, and leave the bytes unchanged.
#[test]
fn the_writer_tells_the_bytes_compressed_as_they_are() {
    let (width, height) = (1024u32, 512u32);
    let image = lcg_image(width, height, 7);
    let options = Ktx2Options { workers: 2, ..options() };
    let raw = u64::from(width) * u64::from(height) * 8;
    let mut out = std::io::Cursor::new(Vec::new());
    let mut writer = vat_ktx2::Ktx2Writer::new(&mut out, width, height, &options).unwrap();
    // (bytes fed before the call, bytes told) for every figure told.
    let mut told: Vec<(u64, u64)> = Vec::new();
    let mut fed = 0u64;
    for rows in image.texels.chunks(width as usize * 4 * 64) {
        fed += rows.len() as u64 * 2;
        writer.write_rows_reporting(rows, &mut |bytes| told.push((fed, bytes))).unwrap();
    }
    assert_eq!(writer.compressed(), raw);
    writer.finish().unwrap();
    assert!(told.windows(2).all(|w| w[0].1 <= w[1].1), "the figures go back: {told:?}");
    assert!(told.iter().all(|&(fed, bytes)| bytes <= fed), "{told:?}");
    assert!(told.iter().any(|&(fed, bytes)| bytes < fed), "never behind what was fed: {told:?}");
    assert_eq!(told.last(), Some(&(raw, raw)));
    assert_eq!(out.into_inner(), encode_ktx2(&image, &options).unwrap(), "the same bytes");
}
