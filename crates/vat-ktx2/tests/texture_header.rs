//! `read_texture_header`: a KTX 2.0 file or a PNG told apart by their first bytes, with
//! the header facts and the file size, never the image.

mod common;

use std::io::{Cursor, Read, Seek, SeekFrom};

use common::{lcg_image, offset, options, u32_at};
use vat_ktx2::{encode_ktx2, encode_png16, read_texture_header, Ktx2Error, TextureFile, TextureHeader};

/// A source that counts the bytes read out of it.
struct Counting<R> {
    inner: R,
    bytes_read: u64,
}

impl<R: Read> Read for Counting<R> {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        let n = self.inner.read(buf)?;
        self.bytes_read += n as u64;
        Ok(n)
    }
}

impl<R: Seek> Seek for Counting<R> {
    fn seek(&mut self, to: SeekFrom) -> std::io::Result<u64> {
        self.inner.seek(to)
    }
}

fn read_counted(file: &[u8]) -> (Result<TextureFile, Ktx2Error>, u64) {
    let mut source = Counting { inner: Cursor::new(file), bytes_read: 0 };
    let found = read_texture_header(&mut source);
    (found, source.bytes_read)
}

#[test]
fn a_ktx2_header_without_its_image() {
    let file = encode_ktx2(&lcg_image(64, 32, 3), &options()).unwrap();
    let (found, bytes_read) = read_counted(&file);
    let header = TextureHeader::Ktx2 { vk_format: 91, width: 64, height: 32, supercompression_scheme: 2 };
    assert_eq!(found.unwrap(), TextureFile { header, bytes: file.len() as u64 });
    // The 33 bytes that tell a PNG, then the 80-byte header and the key/value data.
    let kvd_len = u64::from(u32_at(&file, offset::KVD_LENGTH));
    assert_eq!(bytes_read, 33 + 80 + kvd_len);
    assert!(bytes_read < file.len() as u64 / 4, "{bytes_read} of {} bytes", file.len());
}

#[test]
fn a_png_header_in_33_bytes() {
    let file = encode_png16(&lcg_image(5, 7, 1)).unwrap();
    let (found, bytes_read) = read_counted(&file);
    let header = TextureHeader::Png { width: 5, height: 7, bit_depth: 16, colour_type: 6 };
    assert_eq!(found.unwrap(), TextureFile { header, bytes: file.len() as u64 });
    assert_eq!(bytes_read, 33);
}

#[test]
fn damaged_and_foreign_files_are_errors() {
    let png = encode_png16(&lcg_image(5, 7, 1)).unwrap();
    for cut in [8, 20, 32] {
        let error = read_texture_header(Cursor::new(&png[..cut])).unwrap_err();
        assert!(matches!(error, Ktx2Error::PngHeader(_)), "{cut}: {error:?}");
        assert_eq!(error.to_string(), "a PNG without its IHDR header");
    }
    let error = read_texture_header(Cursor::new(b"GIF89a and the rest of a picture")).unwrap_err();
    assert!(matches!(error, Ktx2Error::BadIdentifier), "{error:?}");
    let error = read_texture_header(Cursor::new(Vec::new())).unwrap_err();
    assert!(!error.to_string().is_empty());
}
