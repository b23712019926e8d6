//! `read_header_from`: from a file, exactly the header and the key/value data are
//! read, whatever their length, with the results and errors of `read_header` on the
//! whole file.

mod common;

use std::io::{Cursor, Read, Seek, SeekFrom};

use common::{lcg_image, offset, options, set_u32, u32_at, Lcg};
use vat_ktx2::{encode_ktx2, read_header, read_header_from, Ktx2Options};

/// The fixed header: identifier, nine u32 fields, the four section words, two u64s.
const HEADER_LEN: u64 = 80;

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

/// A texture whose `KTXwriter` value alone is `writer_len` bytes.
fn file_with_writer(writer_len: usize) -> Vec<u8> {
    let writer = "w".repeat(writer_len);
    encode_ktx2(&lcg_image(64, 32, 3), &Ktx2Options { writer, ..options() }).unwrap()
}

fn read_counted(file: &[u8]) -> (Result<vat_ktx2::Ktx2Header, vat_ktx2::Ktx2Error>, u64) {
    let mut source = Counting { inner: Cursor::new(file), bytes_read: 0 };
    let header = read_header_from(&mut source);
    (header, source.bytes_read)
}

/// Key/value data of 40 KiB, past the 16 KiB an audit reads first: the header and
/// the key/value data are read once each, never the descriptor or the image.
#[test]
fn reads_the_header_and_the_key_value_data_only() {
    for writer_len in [1, 16 * 1024, 40 * 1024] {
        let file = file_with_writer(writer_len);
        let kvd_len = u64::from(u32_at(&file, offset::KVD_LENGTH));
        assert!(kvd_len as usize > writer_len, "the writer string is in the key/value data");
        let (header, bytes_read) = read_counted(&file);
        let header = header.unwrap();
        assert_eq!(header, read_header(&file).unwrap());
        assert_eq!(header.value_str("KTXwriter").map(str::len), Some(writer_len));
        assert_eq!(bytes_read, HEADER_LEN + kvd_len, "writer of {writer_len} bytes");
        assert!(bytes_read < file.len() as u64, "the image was not read");
    }
}

/// Straight from a file on disk, as `vatbake audit` reads textures.
#[test]
fn reads_from_a_file() {
    let file = file_with_writer(20 * 1024);
    let path = std::env::temp_dir().join(format!("vat-ktx2-read-header-from-{}.ktx2", std::process::id()));
    std::fs::write(&path, &file).unwrap();
    let header = read_header_from(std::fs::File::open(&path).unwrap());
    std::fs::remove_file(&path).unwrap();
    assert_eq!(header.unwrap(), read_header(&file).unwrap());
}

/// Every truncation, and key/value sections moved or resized at random: the same
/// answer as `read_header` on the same bytes, and never more read than the header and
/// the key/value data the header declares.
#[test]
fn agrees_with_read_header_on_damaged_files() {
    let file = file_with_writer(100);
    let same = |bytes: &[u8], case: &str| {
        let (from, bytes_read) = read_counted(bytes);
        match (from, read_header(bytes)) {
            (Ok(a), Ok(b)) => assert_eq!(a, b, "{case}"),
            (Err(a), Err(b)) => assert_eq!(a.to_string(), b.to_string(), "{case}"),
            (a, b) => panic!("{case}: read_header_from gives {a:?}, read_header {b:?}"),
        }
        let declared = if bytes.len() as u64 >= HEADER_LEN { u64::from(u32_at(bytes, offset::KVD_LENGTH)) } else { 0 };
        assert!(bytes_read <= HEADER_LEN + declared, "{case}: read {bytes_read} bytes");
    };
    for len in 0..file.len() {
        same(&file[..len], &format!("cut to {len} bytes"));
    }
    let mut lcg = Lcg::new(0x4B56);
    for round in 0..2_000 {
        let mut bad = file.clone();
        let field = [offset::KVD_OFFSET, offset::KVD_LENGTH][lcg.below(2) as usize];
        let values = [0, 1, 4, 80, 196, file.len() as u32, u32::MAX, lcg.below(file.len() as u64 + 64) as u32];
        set_u32(&mut bad, field, values[lcg.below(values.len() as u64) as usize]);
        if lcg.below(2) == 0 {
            let at = lcg.below(bad.len() as u64) as usize;
            bad[at] = lcg.next_u16() as u8;
        }
        same(&bad, &format!("round {round}"));
    }
}
