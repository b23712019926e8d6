//! The texture's delta mode (`--delta`): each clip's rows stored as differences
//! from the row before, which a compressor sees as small repeated numbers where
//! the plain texels are all different.
//!
//! Order 1 ("row"): within each clip of each band, the first row is stored as
//! it is and every later row as `row[k] − row[k−1]`, per channel, modulo 65536.
//! Order 2 ("second") applies that step again from the clip's third row on:
//! row 1 is `p1 − p0`, row `k ≥ 2` is `p[k] − 2·p[k−1] + p[k−2]`. A runtime undoes
//! it with running sums down each clip's rows (`row[k] += row[k−1]`, modulo
//! 65536): for order 2 first from the clip's third row, then from its second;
//! it then holds exactly the texels a plain bake stores.

/// Which delta the texture's rows are stored under: the description's type
/// (`settings.delta`, `texture.delta.mode`), with its order.
pub use vat_description::Delta;
/// How a delta texture's bytes are arranged (`texture.delta.layout`).
pub use vat_description::DeltaLayout;

/// The texel bytes of one block of planes, at most (at least one row): large enough
/// that each plane is a long run for the compressor, small enough that the pack
/// stage holds one block, never the whole texture (docs/FORMAT.md, "Delta").
pub const PLANE_BLOCK_BYTES: usize = 4 << 20;

/// The rows of each block of planes for a texture `width` texels wide
/// (`texture.delta.block_rows`).
pub fn block_rows(width: usize) -> usize {
    (PLANE_BLOCK_BYTES / (width.max(1) * 8)).max(1)
}

/// Each row's index within its clip, over one band of `rows` rows, the clips
/// starting at `starts`: the deltas do not reach back past a clip's first row.
pub fn clip_starts(starts: impl IntoIterator<Item = usize>, rows: usize) -> Vec<usize> {
    let mut first = vec![false; rows];
    for s in starts.into_iter().filter(|&s| s < rows) {
        first[s] = true;
    }
    let mut at = 0;
    first
        .iter()
        .enumerate()
        .map(|(row, &starts)| {
            at = if starts || row == 0 { 0 } else { at + 1 };
            at
        })
        .collect()
}

/// Applies the deltas to whole image rows handed on in order, a chunk at a time;
/// with the "planes" layout also its per-texel steps ([`predict_row`]), not the
/// arrangement in planes ([`to_planes`]), which takes whole blocks.
pub struct Encoder {
    order: usize,
    row_len: usize,
    planes: bool,
    /// Per row of a band: its index within its clip.
    first: Vec<usize>,
    /// The row before, as each step saw it.
    before: Vec<Vec<u16>>,
    /// Image rows encoded so far.
    done: usize,
}

impl Encoder {
    /// An encoder of image rows `row_len` u16s long, over bands of `first.len()` rows.
    pub fn new(delta: Delta, layout: Option<DeltaLayout>, row_len: usize, first: Vec<usize>) -> Self {
        Encoder {
            order: delta.order(),
            row_len,
            planes: layout == Some(DeltaLayout::Planes) && delta.order() > 0,
            before: vec![vec![0; row_len]; delta.order()],
            first,
            done: 0,
        }
    }

    /// Encodes the next whole image rows in place.
    pub fn encode(&mut self, texels: &mut [u16]) {
        if self.order == 0 || self.row_len == 0 {
            return;
        }
        for row in texels.chunks_exact_mut(self.row_len) {
            let in_clip = if self.first.is_empty() { 0 } else { self.first[self.done % self.first.len()] };
            // The alpha's two bytes, each minus the row above's (the plain row, which
            // the first pass keeps), before the passes change them.
            let alpha: Option<Vec<u16>> = self.planes.then(|| {
                row.chunks_exact(4)
                    .zip(self.before[0].chunks_exact(4))
                    .map(|(texel, prior)| if in_clip > 0 { byte_sub(texel[3], prior[3]) } else { texel[3] })
                    .collect()
            });
            // Pass `s` differences the clip's rows from index `s + 1` on.
            for (s, before) in self.before.iter_mut().enumerate() {
                for (value, prior) in row.iter_mut().zip(before.iter_mut()) {
                    let seen = *value;
                    if in_clip > s {
                        *value = seen.wrapping_sub(*prior);
                    }
                    *prior = seen;
                }
            }
            if let Some(alpha) = alpha {
                row.chunks_exact_mut(4).zip(alpha).for_each(|(texel, a)| texel[3] = a);
                predict_row(row);
            }
            self.done += 1;
        }
    }
}

impl Encoder {
    /// Whether the rows it encodes go on in planes ([`to_planes`]).
    pub fn planes(&self) -> bool {
        self.planes
    }
}

/// The layout a bake stores its delta in: "planes" for every delta (the smaller
/// file, docs/PERFORMANCE.md "Byte layouts"), none without one.
pub fn layout_of(delta: Delta) -> Option<DeltaLayout> {
    (delta != Delta::None).then_some(DeltaLayout::Planes)
}

/// Each byte of `a` minus that of `b`, modulo 256.
fn byte_sub(a: u16, b: u16) -> u16 {
    let [a0, a1] = a.to_le_bytes();
    let [b0, b1] = b.to_le_bytes();
    u16::from_le_bytes([a0.wrapping_sub(b0), a1.wrapping_sub(b1)])
}

/// Each byte of `a` plus that of `b`, modulo 256.
fn byte_add(a: u16, b: u16) -> u16 {
    let [a0, a1] = a.to_le_bytes();
    let [b0, b1] = b.to_le_bytes();
    u16::from_le_bytes([a0.wrapping_add(b0), a1.wrapping_add(b1)])
}

fn zigzag16(v: u16) -> u16 {
    let s = v as i16;
    ((s << 1) ^ (s >> 15)) as u16
}

fn unzigzag16(z: u16) -> u16 {
    (z >> 1) ^ 0u16.wrapping_sub(z & 1)
}

fn zigzag8(v: u8) -> u8 {
    let s = v as i8;
    ((s << 1) ^ (s >> 7)) as u8
}

fn unzigzag8(z: u8) -> u8 {
    (z >> 1) ^ 0u8.wrapping_sub(z & 1)
}

/// The "planes" layout's steps on one row of differences, in place: R, G and B minus
/// the texel to the left's (the columns are in spatial order: a nearby point), then
/// zigzagged (small negative numbers become small numbers); the alpha's two bytes
/// zigzagged each.
pub fn predict_row(row: &mut [u16]) {
    for x in (1..row.len() / 4).rev() {
        for c in 0..3 {
            row[x * 4 + c] = row[x * 4 + c].wrapping_sub(row[(x - 1) * 4 + c]);
        }
    }
    for texel in row.chunks_exact_mut(4) {
        for v in &mut texel[..3] {
            *v = zigzag16(*v);
        }
        let [lo, hi] = texel[3].to_le_bytes();
        texel[3] = u16::from_le_bytes([zigzag8(lo), zigzag8(hi)]);
    }
}

/// Undoes [`predict_row`] on one row.
pub fn unpredict_row(row: &mut [u16]) {
    for texel in row.chunks_exact_mut(4) {
        for v in &mut texel[..3] {
            *v = unzigzag16(*v);
        }
        let [lo, hi] = texel[3].to_le_bytes();
        texel[3] = u16::from_le_bytes([unzigzag8(lo), unzigzag8(hi)]);
    }
    for x in 1..row.len() / 4 {
        for c in 0..3 {
            row[x * 4 + c] = row[x * 4 + c].wrapping_add(row[(x - 1) * 4 + c]);
        }
    }
}

/// One block of whole rows of texels as eight byte planes (R high bytes, R low, G
/// high, G low, B high, B low, A high, A low), written into `out` as the u16s whose
/// little-endian bytes they are: the same length as `block`.
pub fn to_planes(block: &[u16], out: &mut Vec<u16>) {
    let n = block.len() / 4;
    let mut bytes = vec![0u8; n * 8];
    for (i, texel) in block.chunks_exact(4).enumerate() {
        for (c, v) in texel.iter().enumerate() {
            let [lo, hi] = v.to_le_bytes();
            bytes[2 * c * n + i] = hi;
            bytes[(2 * c + 1) * n + i] = lo;
        }
    }
    out.clear();
    out.extend(bytes.chunks_exact(2).map(|pair| u16::from_le_bytes([pair[0], pair[1]])));
}

/// Undoes [`to_planes`] on one block, in place.
pub fn from_planes(block: &mut [u16]) {
    let n = block.len() / 4;
    let bytes: Vec<u8> = block.iter().flat_map(|v| v.to_le_bytes()).collect();
    for (i, texel) in block.chunks_exact_mut(4).enumerate() {
        for (c, v) in texel.iter_mut().enumerate() {
            *v = u16::from_le_bytes([bytes[(2 * c + 1) * n + i], bytes[2 * c * n + i]]);
        }
    }
}

/// Undoes the "planes" layout on a whole image of `row_len`-u16 rows (the planes of
/// each block of `block_rows` rows, then each row's steps), in bands of `first.len()`
/// rows; [`undo`] then finishes the job.
pub fn undo_planes(texels: &mut [u16], row_len: usize, block_rows: usize) {
    if row_len == 0 || block_rows == 0 {
        return;
    }
    for block in texels.chunks_mut(row_len * block_rows) {
        from_planes(block);
    }
    for row in texels.chunks_exact_mut(row_len) {
        unpredict_row(row);
    }
}

/// Undoes `delta` on a whole image of `row_len`-u16 rows, in bands of
/// `first.len()` rows: running sums down each clip's rows, the last pass's first
/// (from the clip's row index `order − 1` + 1), then the one before it. With the
/// "planes" layout (after [`undo_planes`]), the alpha's two bytes each by one
/// running sum modulo 256 instead.
pub fn undo(delta: Delta, layout: DeltaLayout, texels: &mut [u16], row_len: usize, first: &[usize]) {
    if delta.order() == 0 || row_len == 0 || first.is_empty() {
        return;
    }
    let planes = layout == DeltaLayout::Planes;
    let height = texels.len() / row_len;
    for s in (0..delta.order()).rev() {
        for y in 1..height {
            if first[y % first.len()] <= s {
                continue;
            }
            let (above, rest) = texels.split_at_mut(y * row_len);
            let above = &above[(y - 1) * row_len..];
            for (i, (value, prior)) in rest[..row_len].iter_mut().zip(above).enumerate() {
                if !planes || i % 4 != 3 {
                    *value = value.wrapping_add(*prior);
                } else if s == 0 {
                    *value = byte_add(*value, *prior);
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Two bands of 5 rows, clips at rows 0 and 3; rows of 2 texels.
    fn image() -> Vec<u16> {
        (0..10 * 8u32).map(|i| (i.wrapping_mul(2_654_435_761) >> 16) as u16).collect()
    }

    #[test]
    fn the_deltas_are_the_differences_down_each_clip_and_undo_exactly() {
        let first = clip_starts([0, 3], 5);
        assert_eq!(first, [0, 1, 2, 0, 1]);
        let plain = image();
        let mut row = plain.clone();
        Encoder::new(Delta::Row, None, 8, first.clone()).encode(&mut row);
        // Row 1 of band 0: minus row 0; row 3 (a clip's first) and row 5 (a band's first) as they are.
        assert_eq!(row[8], plain[8].wrapping_sub(plain[0]));
        assert_eq!(row[3 * 8..4 * 8], plain[3 * 8..4 * 8]);
        assert_eq!(row[5 * 8..6 * 8], plain[5 * 8..6 * 8]);
        assert_eq!(row[7 * 8 + 5], plain[7 * 8 + 5].wrapping_sub(plain[6 * 8 + 5]));
        let mut second = plain.clone();
        // Handed on a row, then three rows, then the rest: the same as all at once.
        let mut encoder = Encoder::new(Delta::Second, None, 8, first.clone());
        let (a, rest) = second.split_at_mut(8);
        let (b, c) = rest.split_at_mut(24);
        encoder.encode(a);
        encoder.encode(b);
        encoder.encode(c);
        // Row 2: p2 − 2·p1 + p0; row 1: p1 − p0; row 4 (a clip's second): p4 − p3.
        let p = |r: usize| plain[r * 8 + 1];
        assert_eq!(second[2 * 8 + 1], p(2).wrapping_sub(p(1).wrapping_mul(2)).wrapping_add(p(0)));
        assert_eq!(second[8 + 1], p(1).wrapping_sub(p(0)));
        assert_eq!(second[4 * 8 + 1], p(4).wrapping_sub(p(3)));
        assert_eq!(second[3 * 8..4 * 8], plain[3 * 8..4 * 8]);
        for (delta, mut texels) in [(Delta::Row, row), (Delta::Second, second)] {
            assert_ne!(texels, plain);
            undo(delta, DeltaLayout::Interleaved, &mut texels, 8, &first);
            assert_eq!(texels, plain, "{delta}");
        }
    }

    #[test]
    fn the_planes_layout_undoes_exactly_and_stores_what_its_words_say() {
        let first = clip_starts([0, 3], 5);
        let plain = image();
        for delta in [Delta::Row, Delta::Second] {
            let mut stored = plain.clone();
            let mut encoder = Encoder::new(delta, Some(DeltaLayout::Planes), 8, first.clone());
            let (a, b) = stored.split_at_mut(24);
            encoder.encode(a);
            encoder.encode(b);
            // Row 1, texel 1: R is the zigzag of (p − p above) − (the same of texel 0);
            // A's high byte the zigzag of its own difference modulo 256.
            let p = |r: usize, i: usize| plain[r * 8 + i];
            let d = |i: usize| p(1, i).wrapping_sub(p(0, i));
            assert_eq!(stored[8 + 4], zigzag16(d(4).wrapping_sub(d(0))), "{delta}");
            let high = ((p(1, 7) >> 8) as u8).wrapping_sub((p(0, 7) >> 8) as u8);
            assert_eq!(stored[8 + 7] >> 8, u16::from(zigzag8(high)), "{delta}");
            // Blocks of 3 rows, the last of the 10 one row.
            let mut arranged = Vec::new();
            let mut planes = Vec::new();
            for block in stored.chunks(3 * 8) {
                to_planes(block, &mut planes);
                arranged.extend_from_slice(&planes);
            }
            // Row 0's eight bytes of texel 0 lead each plane of the first block (6 texels).
            let bytes: Vec<u8> = arranged.iter().flat_map(|v| v.to_le_bytes()).collect();
            assert_eq!(bytes[0], (stored[0] >> 8) as u8);
            assert_eq!(bytes[6], stored[0] as u8);
            assert_eq!(bytes[6 * 7], stored[3] as u8);
            let mut back = arranged.clone();
            back.chunks_mut(3 * 8).for_each(from_planes);
            assert_eq!(back, stored, "{delta}");
            undo_planes(&mut arranged, 8, 3);
            undo(delta, DeltaLayout::Planes, &mut arranged, 8, &first);
            assert_eq!(arranged, plain, "{delta}");
        }
        assert_eq!((block_rows(1), block_rows(1 << 20), block_rows(3990)), (1 << 19, 1, 131));
        for v in [0u16, 1, 0x7FFF, 0x8000, 0xFFFF] {
            assert_eq!(unzigzag16(zigzag16(v)), v);
        }
        assert_eq!((zigzag16(0xFFFF), zigzag16(1), zigzag8(0x80)), (1, 2, 0xFF));
    }

    #[test]
    fn names_and_orders() {
        for d in [Delta::None, Delta::Row, Delta::Second] {
            assert_eq!(d.as_str().parse::<Delta>(), Ok(d));
            assert_eq!(Delta::of_order(d.order() as u32), Some(d));
        }
        assert_eq!(Delta::of_order(3), None);
        assert!("third".parse::<Delta>().unwrap_err().contains("none, row or second"));
    }
}
