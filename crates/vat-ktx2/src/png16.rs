use std::io::Cursor;

use png::{BitDepth, ColorType, Compression, Filter, Transformations};

use crate::encode::check_image;
use crate::error::Ktx2Error;
use crate::layout::{image_byte_len, MAX_IMAGE_BYTES};
use crate::types::Rgba16Image;

pub(crate) fn encode_png16(image: &Rgba16Image) -> Result<Vec<u8>, Ktx2Error> {
    check_image(image)?;
    let mut out = Vec::new();
    let mut encoder = png::Encoder::new(&mut out, image.width, image.height);
    encoder.set_color(ColorType::Rgba);
    encoder.set_depth(BitDepth::Sixteen);
    // `High` is the png crate's smallest-output setting (zlib level 9).
    encoder.set_compression(Compression::High);
    // Per-row filter choice: animation rows change little from one to the next, and
    // `Up` or `Sub` usually wins, but not on every row.
    encoder.set_filter(Filter::Adaptive);
    let mut writer = encoder.write_header()?;
    writer.write_image_data(&texels_to_be_bytes(&image.texels))?;
    writer.finish()?;
    Ok(out)
}

pub(crate) fn decode_png16(bytes: &[u8]) -> Result<Rgba16Image, Ktx2Error> {
    // The limit bounds what the decoder itself may allocate; ours is checked below.
    let limits = png::Limits { bytes: usize::try_from(MAX_IMAGE_BYTES).unwrap_or(usize::MAX) };
    let mut decoder = png::Decoder::new_with_limits(Cursor::new(bytes), limits);
    // Keep samples as stored: no expansion, and above all no stripping to 8 bits.
    decoder.set_transformations(Transformations::IDENTITY);
    let mut reader = decoder.read_info()?;
    let info = reader.info();
    let (width, height, color_type, bit_depth) = (info.width, info.height, info.color_type, info.bit_depth);
    if color_type != ColorType::Rgba || bit_depth != BitDepth::Sixteen {
        return Err(Ktx2Error::PngFormat(format!("{color_type:?} with {}-bit samples", bit_depth as u8)));
    }
    let byte_len = image_byte_len(width, height)?;
    // The samples are decoded straight into the texels' own buffer and swapped in place:
    // one image's worth of memory, not two (a 1 GiB PNG peaked at 2.1 GB, issue 27).
    let mut texels = vec![0u16; byte_len as usize / 2];
    let frame = reader.next_frame(bytemuck::cast_slice_mut::<u16, u8>(&mut texels))?;
    // An APNG's first frame may be smaller than the canvas; we read still images only.
    if frame.width != width || frame.height != height || frame.buffer_size() != byte_len as usize {
        return Err(Ktx2Error::PngFormat(format!(
            "its first frame is {}x{} in a {width}x{height} image",
            frame.width, frame.height
        )));
    }
    // PNG stores 16-bit samples big-endian.
    for texel in &mut texels {
        *texel = u16::from_be(*texel);
    }
    Ok(Rgba16Image { width, height, texels })
}

/// PNG stores 16-bit samples big-endian.
fn texels_to_be_bytes(texels: &[u16]) -> Vec<u8> {
    texels.iter().flat_map(|texel| texel.to_be_bytes()).collect()
}
