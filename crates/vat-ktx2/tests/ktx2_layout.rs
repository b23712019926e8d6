//! The bytes `encode_ktx2` writes, checked field by field against the KTX 2.0
//! specification, and against the `ktx2` crate's own DFD generator.

mod common;

use common::{animated_image, lcg_image, level0, offset, options, u32_at, u64_at};
use vat_ktx2::{encode_ktx2, read_header, Ktx2Options, Rgba16Image};

/// A 3×2 image written by "vatbake 0.1.0".
fn small_file() -> Vec<u8> {
    encode_ktx2(&lcg_image(3, 2, 7), &options()).unwrap()
}

#[test]
fn identifier_and_header_fields_sit_at_their_offsets() {
    let file = small_file();
    assert_eq!(&file[..12], &[0xAB, 0x4B, 0x54, 0x58, 0x20, 0x32, 0x30, 0xBB, 0x0D, 0x0A, 0x1A, 0x0A]);
    assert_eq!(&file[..12], b"\xABKTX 20\xBB\r\n\x1A\n");
    assert_eq!(u32_at(&file, offset::VK_FORMAT), 91); // VK_FORMAT_R16G16B16A16_UNORM
    assert_eq!(u32_at(&file, offset::TYPE_SIZE), 2);
    assert_eq!(u32_at(&file, offset::PIXEL_WIDTH), 3);
    assert_eq!(u32_at(&file, offset::PIXEL_HEIGHT), 2);
    assert_eq!(u32_at(&file, offset::PIXEL_DEPTH), 0);
    assert_eq!(u32_at(&file, offset::LAYER_COUNT), 0);
    assert_eq!(u32_at(&file, offset::FACE_COUNT), 1);
    assert_eq!(u32_at(&file, offset::LEVEL_COUNT), 1);
    assert_eq!(u32_at(&file, offset::SUPERCOMPRESSION), 2); // Zstandard
}

#[test]
fn index_places_sections_back_to_back() {
    let file = small_file();
    // Header (80) + one level index entry (24).
    assert_eq!(u32_at(&file, offset::DFD_OFFSET), 104);
    assert_eq!(u32_at(&file, offset::DFD_LENGTH), 92);
    assert_eq!(u32_at(&file, offset::KVD_OFFSET), 104 + 92);
    // KTXorientation: 4 + 18 + 2 padding; KTXwriter: 4 + 24, already aligned.
    assert_eq!(u32_at(&file, offset::KVD_LENGTH), 24 + 28);
    assert_eq!(u64_at(&file, offset::SGD_OFFSET), 0);
    assert_eq!(u64_at(&file, offset::SGD_LENGTH), 0);
    // Supercompressed levels need no alignment: level 0 starts where the KVD ends.
    let kvd_end = 196 + 52;
    assert_eq!(u64_at(&file, offset::LEVEL0_OFFSET), kvd_end);
    assert_eq!(u64_at(&file, offset::LEVEL0_LENGTH), (file.len() - kvd_end as usize) as u64);
    assert_eq!(u64_at(&file, offset::LEVEL0_UNCOMPRESSED), 3 * 2 * 8);
    // The level is one Zstandard frame: it starts with the frame magic number.
    assert_eq!(&level0(&file)[..4], &[0x28, 0xB5, 0x2F, 0xFD]);
}

#[test]
fn dfd_is_the_basic_block_for_r16g16b16a16_unorm() {
    let file = small_file();
    let dfd = &file[offset::DFD..offset::DFD + 92];
    #[rustfmt::skip]
    let expected: Vec<u8> = [
        &92u32.to_le_bytes()[..],   // dfdTotalSize
        &0u32.to_le_bytes(),        // vendorId 0 (Khronos), descriptorType 0 (basic)
        &2u16.to_le_bytes(),        // versionNumber: KHR_DF_VERSIONNUMBER_1_3
        &88u16.to_le_bytes(),       // descriptorBlockSize: 24 + 16 × 4
        &[1, 1, 1, 0],              // RGBSDA, BT709, LINEAR, straight alpha
        &[0, 0, 0, 0],              // texelBlockDimension 1×1×1×1 (stored minus one)
        &[8, 0, 0, 0, 0, 0, 0, 0],  // bytesPlane0 = 8, planes 1..7 unused
        // bitOffset, bitLength - 1, channelType; samplePosition; lower; upper
        &[0x00, 0x00, 15, 0],  &[0; 4], &0u32.to_le_bytes(), &65535u32.to_le_bytes(), // R
        &[0x10, 0x00, 15, 1],  &[0; 4], &0u32.to_le_bytes(), &65535u32.to_le_bytes(), // G
        &[0x20, 0x00, 15, 2],  &[0; 4], &0u32.to_le_bytes(), &65535u32.to_le_bytes(), // B
        &[0x30, 0x00, 15, 15], &[0; 4], &0u32.to_le_bytes(), &65535u32.to_le_bytes(), // A
    ]
    .concat();
    assert_eq!(dfd, &expected[..]);
}

#[test]
fn dfd_matches_the_ktx2_crate_generator() {
    // `ktx2` builds DFDs from a format table modelled on KTX-Software's `vk2dfd`:
    // an implementation that is not ours.
    let (basic, type_size) = ktx2::dfd::Basic::from_format(ktx2::Format::R16G16B16A16_UNORM).unwrap();
    assert_eq!(type_size, 2);
    let block = ktx2::dfd::Block::Basic(basic).to_vec();
    let file = small_file();
    assert_eq!(&file[offset::DFD + 4..offset::DFD + 92], &block[..]);
}

#[test]
fn key_value_entries_are_sorted_nul_terminated_and_padded() {
    let file = small_file();
    let kvd = &file[196..196 + 52];
    let expected: Vec<u8> = [
        &18u32.to_le_bytes()[..],
        b"KTXorientation\0rd\0",
        &[0, 0], // valuePadding to the next multiple of 4
        &24u32.to_le_bytes(),
        b"KTXwriter\0vatbake 0.1.0\0", // 24 bytes: no padding
    ]
    .concat();
    assert_eq!(kvd, &expected[..]);
}

#[test]
fn padding_follows_the_writer_length() {
    // keyAndValueByteLength of KTXwriter is 9 + 1 + len + 1; entries are 4 + that, padded.
    for (writer, kvd_len) in [("a", 24 + 16), ("ab", 24 + 20), ("abcde", 24 + 20), ("abcdef", 24 + 24)] {
        let options = Ktx2Options { zstd_level: 3, writer: writer.to_string(), ..options() };
        let file = encode_ktx2(&lcg_image(1, 1, 1), &options).unwrap();
        assert_eq!(u32_at(&file, offset::KVD_LENGTH), kvd_len, "writer {writer:?}");
        // keyAndValueByteLength excludes the padding; the padding bytes are zero.
        assert_eq!(u32_at(&file, 196 + 24), 10 + writer.len() as u32 + 1);
        let entry_end = 196 + 24 + 4 + 10 + writer.len() + 1;
        assert!(file[entry_end..196 + kvd_len as usize].iter().all(|&b| b == 0));
        assert_eq!(u64_at(&file, offset::LEVEL0_OFFSET), 196 + u64::from(kvd_len));
    }
}

#[test]
fn read_header_reports_what_was_written() {
    let header = read_header(&small_file()).unwrap();
    assert_eq!((header.vk_format, header.type_size, header.width, header.height), (91, 2, 3, 2));
    assert_eq!((header.depth, header.layer_count, header.face_count), (0, 0, 1));
    assert_eq!((header.level_count, header.supercompression_scheme), (1, 2));
    let keys: Vec<&str> = header.key_values.iter().map(|(k, _)| k.as_str()).collect();
    assert_eq!(keys, ["KTXorientation", "KTXwriter"]);
    assert_eq!(header.key_values[0].1, b"rd\0");
    assert_eq!(header.value_str("KTXorientation"), Some("rd"));
    assert_eq!(header.value_str("KTXwriter"), Some("vatbake 0.1.0"));
    assert_eq!(header.value_str("KTXswizzle"), None);
}

#[test]
fn encoding_twice_gives_identical_bytes() {
    let image = lcg_image(64, 16, 99);
    for level in [1, 3, 19, 22] {
        let options = Ktx2Options { zstd_level: level, ..options() };
        let first = encode_ktx2(&image, &options).unwrap();
        let second = encode_ktx2(&image.clone(), &options.clone()).unwrap();
        assert_eq!(first, second, "level {level}");
    }
}

#[test]
fn the_bytes_do_not_depend_on_the_worker_count() {
    // 2048 × 1024 texels = 16 MiB raw: several zstd jobs at level 1, so the workers really share it.
    let image = animated_image(2048, 1024);
    for level in [1, 3] {
        let encode = |workers| encode_ktx2(&image, &Ktx2Options { zstd_level: level, workers, ..options() }).unwrap();
        let one = encode(1);
        assert_eq!(encode(1), one, "level {level}, 1 worker again");
        assert_eq!(encode(2), one, "level {level}, 2 workers");
        assert_eq!(encode(3), one, "level {level}, 3 workers");
        assert_eq!(encode(0), one, "level {level}, 0 workers counts as 1");
        // Fed 13 rows at a time (runs that cut across zstd's jobs), on 2 workers.
        let mut out = std::io::Cursor::new(Vec::new());
        let options = Ktx2Options { zstd_level: level, workers: 2, ..options() };
        let mut writer = vat_ktx2::Ktx2Writer::new(&mut out, 2048, 1024, &options).unwrap();
        for rows in image.texels.chunks(13 * 2048 * 4) {
            writer.write_rows(rows).unwrap();
        }
        writer.finish().unwrap();
        assert_eq!(out.into_inner(), one, "level {level}, 13 rows at a time");
        assert_eq!(vat_ktx2::decode_ktx2(&one).unwrap(), image);
    }
}

#[test]
fn writing_into_a_stream_gives_the_encoded_bytes_after_what_was_there() {
    let image = lcg_image(40, 30, 5);
    let mut out = std::io::Cursor::new(b"prefix".to_vec());
    out.set_position(6);
    let written = vat_ktx2::write_ktx2(&image, &options(), &mut out).unwrap();
    let bytes = out.into_inner();
    let encoded = encode_ktx2(&image, &options()).unwrap();
    assert_eq!(written, encoded.len() as u64);
    assert_eq!(&bytes[..6], b"prefix");
    assert_eq!(&bytes[6..], &encoded[..]);
}

#[test]
fn rows_written_in_any_runs_give_the_same_bytes() {
    let image = animated_image(300, 200);
    let whole = encode_ktx2(&image, &options()).unwrap();
    let row = 300 * 4;
    for rows_per_call in [1usize, 7, 64, 199] {
        let mut out = std::io::Cursor::new(Vec::new());
        let mut writer = vat_ktx2::Ktx2Writer::new(&mut out, 300, 200, &options()).unwrap();
        for rows in image.texels.chunks(rows_per_call * row) {
            writer.write_rows(rows).unwrap();
        }
        assert_eq!(writer.finish().unwrap(), whole.len() as u64);
        assert_eq!(out.into_inner(), whole, "{rows_per_call} rows per call");
    }
    // Bytes handed over in pieces that end inside rows, over more than one of zstd's
    // jobs (1 MiB): the file the whole image makes.
    let image = animated_image(300, 600);
    let whole = encode_ktx2(&image, &options()).unwrap();
    let raw: Vec<u8> = image.texels.iter().flat_map(|v| v.to_le_bytes()).collect();
    for piece in [333usize, 65_537, 1 << 20] {
        let mut out = std::io::Cursor::new(Vec::new());
        let mut writer = vat_ktx2::Ktx2Writer::new(&mut out, 300, 600, &options()).unwrap();
        for bytes in raw.chunks(piece) {
            writer.write_bytes_reporting(bytes, &mut |_| {}).unwrap();
        }
        assert_eq!(writer.finish().unwrap(), whole.len() as u64);
        assert_eq!(out.into_inner(), whole, "pieces of {piece} bytes");
    }
}

#[test]
fn a_writer_refuses_part_rows_too_many_rows_and_too_few() {
    let image = lcg_image(10, 3, 1);
    let new = || vat_ktx2::Ktx2Writer::new(std::io::Cursor::new(Vec::new()), 10, 3, &options()).unwrap();
    let texel_count = |e| matches!(e, vat_ktx2::Ktx2Error::TexelCount { .. });
    assert!(texel_count(new().write_rows(&image.texels[..39]).unwrap_err()), "part of a row");
    let mut writer = new();
    writer.write_rows(&image.texels).unwrap();
    assert!(texel_count(writer.write_rows(&image.texels[..40]).unwrap_err()), "a fourth row");
    let mut writer = new();
    writer.write_rows(&image.texels[..80]).unwrap();
    assert!(texel_count(writer.finish().unwrap_err()), "two rows of three");
    assert!(matches!(
        vat_ktx2::Ktx2Writer::new(std::io::Cursor::new(Vec::new()), 0, 3, &options()),
        Err(vat_ktx2::Ktx2Error::EmptyImage { .. })
    ));
}

#[test]
fn invalid_images_and_options_are_refused() {
    let empty = Rgba16Image { width: 0, height: 4, texels: vec![] };
    assert!(matches!(encode_ktx2(&empty, &options()), Err(vat_ktx2::Ktx2Error::EmptyImage { .. })));
    let short = Rgba16Image { width: 2, height: 2, texels: vec![0; 15] };
    assert!(matches!(
        encode_ktx2(&short, &options()),
        Err(vat_ktx2::Ktx2Error::TexelCount { found: 15, expected: 16, .. })
    ));
    let huge = Rgba16Image { width: u32::MAX, height: u32::MAX, texels: vec![] };
    assert!(matches!(encode_ktx2(&huge, &options()), Err(vat_ktx2::Ktx2Error::TooLarge { .. })));
    let image = lcg_image(2, 2, 3);
    for bad in [
        Ktx2Options { zstd_level: 23, ..options() },
        Ktx2Options { writer: String::new(), ..options() },
        Ktx2Options { writer: "a\0b".to_string(), ..options() },
    ] {
        assert!(matches!(encode_ktx2(&image, &bad), Err(vat_ktx2::Ktx2Error::InvalidOptions(_))), "{bad:?}");
    }
}

#[test]
fn the_long_window_decodes_to_the_same_texels_and_is_smaller_where_rows_repeat_far_apart() {
    // 2048 × 1024 texels = 16 MiB raw, beyond level 3's own window (1 MiB).
    let image = animated_image(2048, 1024);
    let plain = encode_ktx2(&image, &Ktx2Options { zstd_level: 3, workers: 2, ..options() }).unwrap();
    let long = encode_ktx2(&image, &Ktx2Options { zstd_level: 3, workers: 2, long_window: true, ..options() }).unwrap();
    assert_eq!(vat_ktx2::decode_ktx2(&long).unwrap(), image);
    assert_ne!(long, plain);
    assert_eq!(
        encode_ktx2(&image, &Ktx2Options { zstd_level: 3, workers: 1, long_window: true, ..options() }).unwrap(),
        long
    );
}
