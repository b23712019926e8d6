//! The 16-bit RGBA PNG fallback.

mod common;

use std::alloc::{GlobalAlloc, Layout, System};
use std::cell::Cell;

use common::lcg_image;
use vat_ktx2::{decode_png16, encode_png16, Ktx2Error, Rgba16Image};

/// Counts the bytes the current thread holds, and their peak, so a test can see what a
/// decode holds at once (tests run on parallel threads, hence per thread). A block
/// freed by another thread than the one that took it would skew the count; a decode
/// frees on its own thread.
struct Counting;

thread_local! {
    static HELD: Cell<(isize, isize)> = const { Cell::new((0, 0)) };
}

fn count(change: isize) {
    // `try_with`: the thread-local may already be gone while a thread shuts down.
    let _ = HELD.try_with(|held| {
        let (now, peak) = held.get();
        held.set((now + change, peak.max(now + change)));
    });
}

unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        count(layout.size() as isize);
        unsafe { System.alloc(layout) }
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        count(-(layout.size() as isize));
        unsafe { System.dealloc(ptr, layout) }
    }

    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        count(new_size as isize - layout.size() as isize);
        unsafe { System.realloc(ptr, layout, new_size) }
    }
}

#[global_allocator]
static ALLOCATOR: Counting = Counting;

/// A PNG decodes into one image's worth of memory: the samples go straight into the
/// texels (it held two, the bytes and then the texels: a 1 GiB PNG bomb peaked at
/// 2.1 GB, issue 27).
#[test]
fn decoding_holds_one_image_at_a_time() {
    let image = lcg_image(512, 256, 9);
    let png = encode_png16(&image).unwrap();
    let image_bytes = image.texels.len() as isize * 2;
    HELD.with(|held| held.set((held.get().0, held.get().0)));
    let before = HELD.with(Cell::get).0;
    let decoded = decode_png16(&png).unwrap();
    let peak = HELD.with(Cell::get).1 - before;
    assert_eq!(decoded, image);
    // 1,330,296 bytes here for 1,048,576 (the decoder's own buffers besides); 2,378,872 before.
    assert!(peak < image_bytes * 3 / 2, "peak {peak} bytes for a {image_bytes}-byte image");
}

#[test]
fn round_trip_is_exact() {
    for (width, height, seed) in [(1, 1, 1), (3, 2, 2), (257, 31, 3)] {
        let image = lcg_image(width, height, seed);
        let png = encode_png16(&image).unwrap();
        assert_eq!(decode_png16(&png).unwrap(), image, "{width}x{height}");
    }
    // The extremes of the range, where an 8-bit or signed path would show.
    let extremes = Rgba16Image {
        width: 2,
        height: 2,
        texels: vec![0, 1, 255, 256, 32767, 32768, 65534, 65535, 0, 65535, 0x0102, 0xFF00, 7, 8, 9, 10],
    };
    assert_eq!(decode_png16(&encode_png16(&extremes).unwrap()).unwrap(), extremes);
}

#[test]
fn it_is_a_16_bit_rgba_png() {
    let png = encode_png16(&lcg_image(3, 2, 5)).unwrap();
    assert_eq!(&png[..8], b"\x89PNG\r\n\x1a\n");
    // The first chunk is IHDR: length 13, then width, height, bit depth, colour type.
    assert_eq!(&png[8..16], b"\0\0\0\x0dIHDR");
    assert_eq!(u32::from_be_bytes(png[16..20].try_into().unwrap()), 3);
    assert_eq!(u32::from_be_bytes(png[20..24].try_into().unwrap()), 2);
    assert_eq!(png[24], 16, "bit depth");
    assert_eq!(png[25], 6, "colour type 6: RGBA");
    assert_eq!(png[28], 0, "not interlaced");

    // And the png crate, reading it without our help, agrees on the samples
    // (big-endian in PNG).
    let decoder = png::Decoder::new(std::io::Cursor::new(&png));
    let mut reader = decoder.read_info().unwrap();
    let mut buffer = vec![0; reader.output_buffer_size().unwrap()];
    reader.next_frame(&mut buffer).unwrap();
    let image = lcg_image(3, 2, 5);
    assert_eq!(u16::from_be_bytes([buffer[0], buffer[1]]), image.texels[0]);
    assert_eq!(u16::from_be_bytes([buffer[46], buffer[47]]), image.texels[23]);
}

#[test]
fn encoding_is_deterministic() {
    let image = lcg_image(64, 8, 9);
    assert_eq!(encode_png16(&image).unwrap(), encode_png16(&image).unwrap());
}

#[test]
fn other_pngs_and_broken_ones_are_errors() {
    // An 8-bit RGBA PNG.
    let mut png8 = Vec::new();
    let mut encoder = png::Encoder::new(&mut png8, 2, 2);
    encoder.set_color(png::ColorType::Rgba);
    encoder.set_depth(png::BitDepth::Eight);
    let mut writer = encoder.write_header().unwrap();
    writer.write_image_data(&[0; 16]).unwrap();
    writer.finish().unwrap();
    assert!(matches!(decode_png16(&png8), Err(Ktx2Error::PngFormat(_))));

    let png = encode_png16(&lcg_image(5, 4, 11)).unwrap();
    for len in 0..png.len() - 12 {
        // Cut anywhere before the IEND chunk's end: some part is always missing.
        assert!(decode_png16(&png[..len]).is_err(), "{len} bytes");
    }
    assert!(decode_png16(b"not a png").is_err());
}

#[test]
fn invalid_images_are_refused() {
    let short = Rgba16Image { width: 2, height: 2, texels: vec![0; 3] };
    assert!(matches!(encode_png16(&short), Err(Ktx2Error::TexelCount { .. })));
}
