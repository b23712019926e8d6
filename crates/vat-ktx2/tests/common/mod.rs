//! Helpers shared by the integration tests.
#![allow(dead_code)] // each test binary uses a different subset

use vat_ktx2::{Ktx2Options, Rgba16Image};

/// A 64-bit linear congruential generator (Knuth's MMIX constants): deterministic
/// "random-ish" data without a dependency.
pub struct Lcg(u64);

impl Lcg {
    pub fn new(seed: u64) -> Self {
        Self(seed)
    }

    pub fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
        self.0
    }

    /// The high bits: an LCG's low bits have short periods.
    pub fn next_u16(&mut self) -> u16 {
        (self.next_u64() >> 48) as u16
    }

    pub fn below(&mut self, bound: u64) -> u64 {
        (self.next_u64() >> 32) % bound
    }
}

pub fn lcg_image(width: u32, height: u32, seed: u64) -> Rgba16Image {
    let mut lcg = Lcg::new(seed);
    let texels = (0..width * height * 4).map(|_| lcg.next_u16()).collect();
    Rgba16Image { width, height, texels }
}

pub fn options() -> Ktx2Options {
    Ktx2Options { zstd_level: 19, writer: "vatbake 0.1.0".to_string(), workers: 1, long_window: false }
}

pub fn u32_at(bytes: &[u8], offset: usize) -> u32 {
    u32::from_le_bytes(bytes[offset..offset + 4].try_into().unwrap())
}

pub fn u64_at(bytes: &[u8], offset: usize) -> u64 {
    u64::from_le_bytes(bytes[offset..offset + 8].try_into().unwrap())
}

pub fn set_u32(bytes: &mut [u8], offset: usize, value: u32) {
    bytes[offset..offset + 4].copy_from_slice(&value.to_le_bytes());
}

pub fn set_u64(bytes: &mut [u8], offset: usize, value: u64) {
    bytes[offset..offset + 8].copy_from_slice(&value.to_le_bytes());
}

/// Header field offsets from the KTX 2.0 specification's file structure.
pub mod offset {
    pub const VK_FORMAT: usize = 12;
    pub const TYPE_SIZE: usize = 16;
    pub const PIXEL_WIDTH: usize = 20;
    pub const PIXEL_HEIGHT: usize = 24;
    pub const PIXEL_DEPTH: usize = 28;
    pub const LAYER_COUNT: usize = 32;
    pub const FACE_COUNT: usize = 36;
    pub const LEVEL_COUNT: usize = 40;
    pub const SUPERCOMPRESSION: usize = 44;
    pub const DFD_OFFSET: usize = 48;
    pub const DFD_LENGTH: usize = 52;
    pub const KVD_OFFSET: usize = 56;
    pub const KVD_LENGTH: usize = 60;
    pub const SGD_OFFSET: usize = 64;
    pub const SGD_LENGTH: usize = 72;
    pub const LEVEL0_OFFSET: usize = 80;
    pub const LEVEL0_LENGTH: usize = 88;
    pub const LEVEL0_UNCOMPRESSED: usize = 96;
    /// The DFD starts right after the one-entry level index.
    pub const DFD: usize = 104;
}

/// The raw little-endian texel bytes KTX2 level data holds once inflated.
pub fn le_bytes(texels: &[u16]) -> Vec<u8> {
    texels.iter().flat_map(|t| t.to_le_bytes()).collect()
}

/// Level 0's bytes as stored in the file, located by the level index.
pub fn level0(file: &[u8]) -> &[u8] {
    let start = u64_at(file, offset::LEVEL0_OFFSET) as usize;
    let len = u64_at(file, offset::LEVEL0_LENGTH) as usize;
    &file[start..start + len]
}

/// Rewrites a file's level 0 with `level` bytes and the given uncompressed length,
/// keeping the level at the end of the file.
pub fn with_level(file: &[u8], level: &[u8], uncompressed: u64) -> Vec<u8> {
    let start = u64_at(file, offset::LEVEL0_OFFSET) as usize;
    let mut out = file[..start].to_vec();
    out.extend_from_slice(level);
    set_u64(&mut out, offset::LEVEL0_LENGTH, level.len() as u64);
    set_u64(&mut out, offset::LEVEL0_UNCOMPRESSED, uncompressed);
    out
}

/// Texels that behave like a bake: each row a small, point-dependent step from
/// the one above, with a little noise in the low bits. Compressible, so zstd
/// finds matches across rows as it does on real textures.
pub fn animated_image(width: u32, height: u32) -> Rgba16Image {
    let mut lcg = Lcg::new(11);
    let mut texels = Vec::with_capacity((width * height * 4) as usize);
    for row in 0..height {
        for column in 0..width {
            for channel in 0..4u32 {
                let base = (column * 37 + channel * 9_000 + row * (column % 7 + 1)) as u16;
                texels.push(base.wrapping_add((lcg.next_u64() >> 62) as u16));
            }
        }
    }
    Rgba16Image { width, height, texels }
}
