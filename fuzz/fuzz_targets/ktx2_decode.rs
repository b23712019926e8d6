//! Any bytes as a KTX 2.0 file: the header, key/value data, DFD, level index and
//! Zstandard level through `vat_ktx2::decode_ktx2` and `read_header`.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let header = vat_ktx2::read_header(data);
    let image = vat_ktx2::decode_ktx2(data);
    if let Ok(image) = image {
        // What decodes must be the size its header says.
        assert_eq!(image.texels.len() as u64, u64::from(image.width) * u64::from(image.height) * 4);
        // (`read_header` also parses the key/value data strictly, which decoding
        // does not need, so it may refuse a file that decodes.)
        if let Ok(header) = header {
            assert_eq!((header.width, header.height), (image.width, image.height));
        }
    }
});
