//! Hostile and broken input: every case must come back as an `Err`, never a panic,
//! and never make the decoder allocate more than the image the header declares.

mod common;

use std::alloc::{GlobalAlloc, Layout, System};
use std::cell::Cell;

use common::{lcg_image, level0, offset, options, set_u32, set_u64, u32_at, u64_at, with_level, Lcg};
use vat_ktx2::{decode_ktx2, encode_ktx2, read_header, Ktx2Error, MAX_IMAGE_BYTES};

/// Records the largest single allocation made on the current thread, so a test can
/// check what a decode reserved (tests run on parallel threads, hence per thread).
struct LargestAllocation;

thread_local! {
    static LARGEST: Cell<usize> = const { Cell::new(0) };
}

unsafe impl GlobalAlloc for LargestAllocation {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        // `try_with`: the thread-local may already be gone while a thread shuts down.
        let _ = LARGEST.try_with(|largest| largest.set(largest.get().max(layout.size())));
        unsafe { System.alloc(layout) }
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        unsafe { System.dealloc(ptr, layout) }
    }

    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        let _ = LARGEST.try_with(|largest| largest.set(largest.get().max(new_size)));
        unsafe { System.realloc(ptr, layout, new_size) }
    }
}

#[global_allocator]
static ALLOCATOR: LargestAllocation = LargestAllocation;

/// Runs `decode_ktx2` and returns its result with the largest allocation it made.
fn decode_measured(file: &[u8]) -> (Result<vat_ktx2::Rgba16Image, Ktx2Error>, usize) {
    LARGEST.with(|largest| largest.set(0));
    let result = decode_ktx2(file);
    (result, LARGEST.with(Cell::get))
}

fn valid_file() -> (vat_ktx2::Rgba16Image, Vec<u8>) {
    let image = lcg_image(7, 5, 31);
    let file = encode_ktx2(&image, &options()).unwrap();
    (image, file)
}

#[test]
fn every_truncation_is_an_error() {
    let (_, file) = valid_file();
    for len in 0..file.len() {
        let cut = &file[..len];
        assert!(decode_ktx2(cut).is_err(), "decode of {len} bytes");
        let kvd_end = 196 + 52;
        if len < kvd_end {
            assert!(read_header(cut).is_err(), "read_header of {len} bytes");
        } else {
            // Everything read_header reads is there; the level is not its business.
            assert!(read_header(cut).is_ok(), "read_header of {len} bytes");
        }
    }
    assert!(matches!(decode_ktx2(&file[..40]), Err(Ktx2Error::Truncated { .. })));
}

#[test]
fn wrong_identifier_is_reported_as_such() {
    let (_, file) = valid_file();
    for index in 0..12 {
        let mut bad = file.clone();
        bad[index] ^= 0x20;
        assert!(matches!(decode_ktx2(&bad), Err(Ktx2Error::BadIdentifier)), "byte {index}");
        assert!(matches!(read_header(&bad), Err(Ktx2Error::BadIdentifier)));
    }
    // KTX 1.1's identifier.
    let mut ktx1 = file.clone();
    ktx1[..12].copy_from_slice(b"\xABKTX 11\xBB\r\n\x1A\n");
    assert!(matches!(decode_ktx2(&ktx1), Err(Ktx2Error::BadIdentifier)));
    assert!(matches!(decode_ktx2(b"PNG"), Err(Ktx2Error::BadIdentifier)));
    assert!(matches!(decode_ktx2(b""), Err(Ktx2Error::Truncated { .. })));
}

#[test]
fn huge_dimensions_are_refused_before_allocating() {
    let (_, file) = valid_file();
    // Beyond the cap: refused from the header alone.
    for (width, height) in [(u32::MAX, u32::MAX), (65536, 65536), (1 << 20, 1 << 20)] {
        let mut bad = file.clone();
        set_u32(&mut bad, offset::PIXEL_WIDTH, width);
        set_u32(&mut bad, offset::PIXEL_HEIGHT, height);
        let (result, largest) = decode_measured(&bad);
        assert!(matches!(result, Err(Ktx2Error::TooLarge { .. })), "{width}x{height}");
        assert!(largest < 64 * 1024, "{width}x{height} allocated {largest}");
    }
    // Under the cap, 4096×4096 (128 MiB) claimed by a file of a few hundred bytes.
    let mut bad = file.clone();
    set_u32(&mut bad, offset::PIXEL_WIDTH, 4096);
    set_u32(&mut bad, offset::PIXEL_HEIGHT, 4096);
    let (result, largest) = decode_measured(&bad);
    assert!(matches!(result, Err(Ktx2Error::LevelLength { field: "uncompressedByteLength", .. })));
    assert!(largest < 64 * 1024, "allocated {largest}");
    // Also claiming the matching uncompressedByteLength: the frame's own content
    // size (7×5×8) gives the lie away before the 128 MiB buffer is allocated.
    set_u64(&mut bad, offset::LEVEL0_UNCOMPRESSED, 4096 * 4096 * 8);
    let (result, largest) = decode_measured(&bad);
    assert!(matches!(result, Err(Ktx2Error::InflatedLength { found: 280, expected: 134_217_728 })));
    assert!(largest < 64 * 1024, "allocated {largest}");
}

/// Each part of the file cut short is named (the `ktx2` crate said "unexpected end of
/// buffer" for nine different faults, issue 27).
#[test]
fn a_truncation_names_the_part_cut() {
    let (_, file) = valid_file();
    let message = |len: usize| decode_ktx2(&file[..len]).unwrap_err().to_string();
    for len in 0..file.len() {
        assert!(!message(len).contains("unexpected end"), "{len} bytes: {}", message(len));
    }
    let level = u64_at(&file, offset::LEVEL0_OFFSET);
    let level_end = level + u64_at(&file, offset::LEVEL0_LENGTH);
    assert_eq!(message(40), "file is truncated: the header needs bytes 0..80 but the file has 40");
    assert_eq!(message(90), "file is truncated: the data format descriptor needs bytes 104..196 but the file has 90");
    assert_eq!(message(200), "file is truncated: the key/value data needs bytes 196..248 but the file has 200");
    assert_eq!(
        message(level as usize + 1),
        format!("file is truncated: a level's data needs bytes {level}..{level_end} but the file has {}", level + 1)
    );
    let mut bad = file.clone();
    set_u32(&mut bad, offset::LEVEL_COUNT, 1000);
    assert_eq!(
        decode_ktx2(&bad).unwrap_err().to_string(),
        format!("file is truncated: the level index needs bytes 80..24080 but the file has {}", file.len())
    );
}

#[test]
fn level_past_the_end_of_the_file_is_an_error() {
    let (_, file) = valid_file();
    let level_len = u64_at(&file, offset::LEVEL0_LENGTH);
    for (byte_offset, byte_length) in [
        (u64_at(&file, offset::LEVEL0_OFFSET), level_len + 1),
        (u64_at(&file, offset::LEVEL0_OFFSET) + 1, level_len),
        (u64::MAX - 3, level_len),
        (0, u64::MAX),
    ] {
        let mut bad = file.clone();
        set_u64(&mut bad, offset::LEVEL0_OFFSET, byte_offset);
        set_u64(&mut bad, offset::LEVEL0_LENGTH, byte_length);
        assert!(decode_ktx2(&bad).is_err(), "offset {byte_offset} length {byte_length}");
    }
}

#[test]
fn header_sections_out_of_bounds_are_errors() {
    let (_, file) = valid_file();
    for (field, value) in [
        (offset::DFD_OFFSET, u32::MAX),
        (offset::DFD_LENGTH, u32::MAX),
        (offset::DFD_LENGTH, 0),
        (offset::DFD_LENGTH, 2),
        (offset::KVD_OFFSET, u32::MAX - 2),
        (offset::KVD_LENGTH, 100_000),
    ] {
        let mut bad = file.clone();
        set_u32(&mut bad, field, value);
        assert!(decode_ktx2(&bad).is_err(), "field {field} = {value}");
    }
    let mut bad = file.clone();
    set_u32(&mut bad, offset::KVD_LENGTH, 100_000);
    assert!(read_header(&bad).is_err());
}

#[test]
fn zstd_data_inflating_to_the_wrong_size_is_an_error() {
    let (image, file) = valid_file();
    let raw = common::le_bytes(&image.texels);
    let expected = raw.len() as u64;

    // Declares (and holds) one byte too few or too many.
    for wrong in [&raw[..raw.len() - 1], &[raw.as_slice(), &[0]].concat()[..]] {
        let level = zstd::bulk::compress(wrong, 3).unwrap();
        let (result, largest) = decode_measured(&with_level(&file, &level, expected));
        assert!(
            matches!(result, Err(Ktx2Error::InflatedLength { found, .. }) if found == wrong.len() as u64),
            "{} bytes: {result:?}",
            wrong.len()
        );
        assert!(largest < 64 * 1024);
    }

    // Same, with the content size left out of the frame header: only inflating tells.
    let mut compressor = zstd::bulk::Compressor::new(3).unwrap();
    compressor.include_contentsize(false).unwrap();
    let short = compressor.compress(&raw[..raw.len() - 8]).unwrap();
    assert!(matches!(
        decode_ktx2(&with_level(&file, &short, expected)),
        Err(Ktx2Error::InflatedLength { found, .. }) if found == expected - 8
    ));
    // Too long does not fit the buffer of uncompressedByteLength bytes: zstd stops.
    let long = compressor.compress(&[raw.as_slice(), &[0; 64]].concat()).unwrap();
    let (result, largest) = decode_measured(&with_level(&file, &long, expected));
    assert!(matches!(result, Err(Ktx2Error::Zstd(_))), "{result:?}");
    assert!(largest < 64 * 1024);

    // A frame claiming 1 GiB in a file claiming a 7×5 image.
    let bomb = zstd::bulk::compress(&vec![0; 1 << 20], 19).unwrap();
    let (result, largest) = decode_measured(&with_level(&file, &bomb, expected));
    assert!(matches!(result, Err(Ktx2Error::InflatedLength { .. })));
    assert!(largest < 64 * 1024, "allocated {largest}");
}

#[test]
fn corrupt_zstd_data_is_an_error() {
    let (_, file) = valid_file();
    let level_start = u64_at(&file, offset::LEVEL0_OFFSET) as usize;
    let level_len = level0(&file).len();
    // Every single-byte corruption of the frame: bad header, bad block, or a checksum mismatch.
    for index in 0..level_len {
        let mut bad = file.clone();
        bad[level_start + index] ^= 0x55;
        assert!(decode_ktx2(&bad).is_err(), "level byte {index}");
    }
    // Not zstd at all, and an empty level.
    let uncompressed = u64_at(&file, offset::LEVEL0_UNCOMPRESSED);
    assert!(decode_ktx2(&with_level(&file, b"not zstd at all", uncompressed)).is_err());
    assert!(decode_ktx2(&with_level(&file, b"", uncompressed)).is_err());
}

type ErrorCheck = fn(&Ktx2Error) -> bool;

#[test]
fn formats_and_layouts_we_do_not_read_are_refused() {
    let (_, file) = valid_file();
    let cases: [(usize, u32, ErrorCheck); 8] = [
        (offset::VK_FORMAT, 37, |e| matches!(e, Ktx2Error::UnsupportedFormat(37))),
        (offset::SUPERCOMPRESSION, 1, |e| matches!(e, Ktx2Error::UnsupportedSupercompression(1))),
        (offset::SUPERCOMPRESSION, 3, |e| matches!(e, Ktx2Error::UnsupportedSupercompression(3))),
        (offset::TYPE_SIZE, 1, |e| matches!(e, Ktx2Error::Malformed(_))),
        (offset::PIXEL_HEIGHT, 0, |e| matches!(e, Ktx2Error::UnsupportedLayout(_))),
        (offset::PIXEL_DEPTH, 4, |e| matches!(e, Ktx2Error::UnsupportedLayout(_))),
        // Two layers are read (array textures, `--max-size`), but this level holds one.
        (offset::LAYER_COUNT, 2, |e| matches!(e, Ktx2Error::LevelLength { .. })),
        (offset::FACE_COUNT, 6, |e| matches!(e, Ktx2Error::UnsupportedLayout(_))),
    ];
    for (field, value, expected) in cases {
        let mut bad = file.clone();
        set_u32(&mut bad, field, value);
        let error = decode_ktx2(&bad).unwrap_err();
        assert!(expected(&error), "field {field} = {value}: {error:?}");
    }
}

#[test]
fn a_dfd_describing_other_texels_is_refused() {
    let (_, file) = valid_file();
    let sample = |index: usize| offset::DFD + 28 + 16 * index;
    let cases: [(usize, u8); 5] = [
        (sample(0) + 3, 1),    // R sample labelled green: channels swapped
        (sample(3) + 2, 7),    // alpha 8 bits wide
        (sample(1), 0x18),     // G at bit 24
        (sample(2) + 3, 0x42), // blue marked signed
        (offset::DFD + 16, 3), // 4×1 texel blocks
    ];
    for (at, value) in cases {
        let mut bad = file.clone();
        bad[at] = value;
        assert!(matches!(decode_ktx2(&bad), Err(Ktx2Error::Malformed(_))), "byte {at} = {value}");
    }
}

/// `ktx2` 0.5.0 panics on a texelBlockDimension byte of 255 (u8 overflow, then an
/// unwrap); the decoder must catch the file before handing it over.
#[test]
fn texel_block_dimension_255_is_an_error_not_a_panic() {
    let (_, file) = valid_file();
    for dimension in 0..4 {
        let mut bad = file.clone();
        bad[offset::DFD + 4 + 8 + 4 + dimension] = 0xFF;
        assert!(matches!(decode_ktx2(&bad), Err(Ktx2Error::Malformed(_))));
    }
}

#[test]
fn malformed_key_value_data_fails_read_header_only() {
    let (image, file) = valid_file();
    let kvd = 196;
    let cases: [(usize, &[u8]); 4] = [
        (kvd, &1000u32.to_le_bytes()), // entry longer than the section
        (kvd + 4, b"\0"),              // empty key
        (kvd + 4 + 14, b"XrdX"),       // "KTXorientation\0rd\0" without any NUL
        (kvd + 4, b"\xFF"),            // key not UTF-8
    ];
    for (at, bytes) in cases {
        let mut bad = file.clone();
        bad[at..at + bytes.len()].copy_from_slice(bytes);
        assert!(matches!(read_header(&bad), Err(Ktx2Error::Malformed(_))), "byte {at}");
        // The texels do not depend on metadata.
        assert_eq!(decode_ktx2(&bad).unwrap(), image);
    }
}

/// Deterministic mutation fuzzing: random byte flips, random u32/u64 overwrites at
/// header offsets and random truncations. Nothing may panic; anything that still
/// decodes must have the declared dimensions.
#[test]
fn mutated_files_never_panic() {
    let (_, file) = valid_file();
    let mut lcg = Lcg::new(0x5EED);
    for _ in 0..20_000 {
        let mut bad = file.clone();
        for _ in 0..1 + lcg.below(4) {
            match lcg.below(3) {
                0 => {
                    let at = lcg.below(bad.len() as u64) as usize;
                    bad[at] = lcg.next_u16() as u8;
                }
                1 => {
                    // One of the 17 u32 fields from vkFormat to kvdByteLength.
                    let at = 12 + 4 * lcg.below(13) as usize;
                    let values = [0, 1, 2, 91, u32::MAX, lcg.next_u64() as u32];
                    set_u32(&mut bad, at, values[lcg.below(6) as usize]);
                }
                _ => {
                    let at = [64, 72, 80, 88, 96][lcg.below(5) as usize];
                    set_u64(&mut bad, at, lcg.next_u64() >> lcg.below(64));
                }
            }
        }
        if lcg.below(4) == 0 {
            bad.truncate(lcg.below(bad.len() as u64 + 1) as usize);
        }
        let (decoded, largest) = decode_measured(&bad);
        if let Ok(image) = decoded {
            assert_eq!(image.texels.len() as u64, u64::from(image.width) * u64::from(image.height) * 4);
        }
        assert!(largest as u64 <= MAX_IMAGE_BYTES);
        let _ = read_header(&bad);
    }
}

#[test]
fn an_array_texture_decodes_as_its_layers_one_after_the_other() {
    // Three layers of 7 × 5: layerCount 3, pixelHeight 5, and the 15 rows back in order.
    let image = lcg_image(7, 15, 11);
    let mut file = std::io::Cursor::new(Vec::new());
    let mut writer = vat_ktx2::Ktx2Writer::with_layers(&mut file, 7, 5, 3, &options()).unwrap();
    writer.write_rows(&image.texels).unwrap();
    writer.finish().unwrap();
    let bytes = file.into_inner();
    assert_eq!(u32_at(&bytes, offset::LAYER_COUNT), 3);
    assert_eq!(u32_at(&bytes, offset::PIXEL_HEIGHT), 5);
    let back = decode_ktx2(&bytes).unwrap();
    assert_eq!((back.width, back.height), (7, 15));
    assert_eq!(back.texels, image.texels);
}
