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

use base64::{engine::general_purpose::STANDARD as BASE64, Engine};

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

/// Applies the deltas to whole image rows handed on in order, a chunk at a time; with
/// the layouts in planes, the alpha's bytes apart. Not the per-texel steps and the
/// arrangement in planes ([`plane_bytes`], by the references the first block chooses):
/// those take whole blocks.
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
            planes: layout.is_some_and(DeltaLayout::in_planes) && delta.order() > 0,
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
            // Pass `s` differences the clip's rows from index `s + 1` on. In planes the
            // alpha's two bytes are instead each minus the row above's (the plain row,
            // which the first pass keeps), once.
            for (s, before) in self.before.iter_mut().enumerate() {
                for (i, (value, prior)) in row.iter_mut().zip(before.iter_mut()).enumerate() {
                    let seen = *value;
                    if in_clip > s {
                        *value = match (self.planes && i % 4 == 3, s) {
                            (false, _) => seen.wrapping_sub(*prior),
                            (true, 0) => byte_sub(seen, *prior),
                            (true, _) => seen,
                        };
                    }
                    *prior = seen;
                }
            }
            self.done += 1;
        }
    }
}

impl Encoder {
    /// Whether the rows it encodes go on in planes ([`plane_bytes`]).
    pub fn planes(&self) -> bool {
        self.planes
    }
}

/// The layout a bake stores its delta in: in planes for every delta (the smaller
/// file, docs/PERFORMANCE.md "Byte layouts"), none without one: "planes-ref" when the
/// pack stage `referenced` its columns ([`References::for_bake`] chose some), else
/// "planes".
pub fn layout_of(delta: Delta, referenced: bool) -> Option<DeltaLayout> {
    (delta != Delta::None).then_some(if referenced { DeltaLayout::PlanesRef } else { DeltaLayout::Planes })
}

/// Each column's reference columns in the "planes" layouts: how many columns to its
/// left the column R, G and B are predicted from (`rgb`), and the alpha's two bytes
/// (`alpha`); 0: from none. "planes" is every column from its left neighbour, the
/// alpha from none.
#[derive(Clone, Debug, PartialEq)]
pub struct References {
    /// Per column: the reference of its R, G and B.
    pub rgb: Vec<u8>,
    /// Per column: the reference of its alpha's two bytes.
    pub alpha: Vec<u8>,
}

/// How much smaller the first block's residuals must be with the chosen references
/// than with "planes"' own, summed and then in the trial's compressed bytes, for a bake
/// to store them: the trial runs at a faster level than the bake's and on a part of the
/// block, and a saving it finds under 5% was none at the bake's level (a unit wrapped
/// into bands, RiggedSimple).
const REFERENCES_PAY: f64 = 0.95;

/// The texels of the first block the choice weighs, at most: whole rows spread over it
/// (a column's best reference shows in a few dozen rows; more cost time and no bytes).
const CHOICE_TEXELS: usize = 1 << 16;

/// The texels of the first block the trial compresses, at most: whole rows, in
/// `TRIAL_RUNS` runs spread over it.
const TRIAL_TEXELS: usize = 1 << 16;

/// How many runs of rows the trial takes from the first block.
const TRIAL_RUNS: usize = 4;

impl References {
    /// "planes": R, G and B from the column to the left, the alpha from none.
    pub fn left(width: usize) -> Self {
        References { rgb: (0..width).map(|x| u8::from(x > 0)).collect(), alpha: vec![0; width] }
    }

    /// Whether these are "planes"' own ([`References::left`]): nothing to record.
    pub fn is_left(&self) -> bool {
        self.rgb.iter().enumerate().all(|(x, &r)| r == u8::from(x > 0)) && self.alpha.iter().all(|&a| a == 0)
    }

    /// The references for a bake whose first block of delta rows (before the per-texel
    /// steps) is `block`, `width` texels a row: per column, of none and the
    /// [`MAX_REFERENCE`](vat_description::MAX_REFERENCE) columns to its left, the one
    /// whose residuals differ least from its own over the block's rows (at most
    /// `CHOICE_TEXELS` texels of them, spread over it; the sum of the absolute signed
    /// differences, R, G and B together, the alpha's bytes apart; the nearer on a tie).
    /// `None` when they sum to more than `REFERENCES_PAY` of "planes"': the bake keeps
    /// "planes".
    pub fn choose(block: &[u16], width: usize) -> Option<Self> {
        if width < 2 || block.len() < width * 4 {
            return None;
        }
        let rows = block.len() / (width * 4);
        let max = vat_description::MAX_REFERENCE as usize;
        // At most CHOICE_TEXELS texels of whole rows, spread over the block.
        let step = rows.div_ceil((CHOICE_TEXELS / width).max(1)).max(1);
        // The sampled rows' channels apart (R, G, B as u16, the alpha's two bytes as u8),
        // so each reference's pass below runs along plain arrays.
        let sampled: Vec<[Vec<u16>; 5]> = block
            .chunks_exact(width * 4)
            .step_by(step)
            .map(|row| {
                let channel = |c: usize| row.iter().skip(c).step_by(4).copied().collect::<Vec<u16>>();
                let byte =
                    |shift: u32| row.iter().skip(3).step_by(4).map(|&v| (v >> shift) & 0xff).collect::<Vec<u16>>();
                [channel(0), channel(1), channel(2), byte(0), byte(8)]
            })
            .collect();
        // Cost of column x from reference k (k = 0: none), RGB and alpha, by k then x. A
        // u32 holds it: at most CHOICE_TEXELS / 2 rows of at most 3 * 32768 + 2 * 128.
        let zero = vec![0u16; width];
        let costs: Vec<(Vec<u32>, Vec<u32>)> = (0..=max)
            .map(|k| {
                let mut rgb = vec![u32::MAX; width];
                let mut alpha = vec![u32::MAX; width];
                if k >= width {
                    return (rgb, alpha);
                }
                rgb[k..].fill(0);
                alpha[k..].fill(0);
                for planes in &sampled {
                    for (c, plane) in planes.iter().enumerate() {
                        let from = if k == 0 { &zero[..width] } else { &plane[..width - k] };
                        let sums = if c < 3 { &mut rgb[k..] } else { &mut alpha[k..] };
                        if c < 3 {
                            for ((sum, &t), &r) in sums.iter_mut().zip(&plane[k..]).zip(from) {
                                *sum += u32::from((t.wrapping_sub(r) as i16).unsigned_abs());
                            }
                        } else {
                            for ((sum, &t), &r) in sums.iter_mut().zip(&plane[k..]).zip(from) {
                                *sum += u32::from((t.wrapping_sub(r) as u8 as i8).unsigned_abs());
                            }
                        }
                    }
                }
                (rgb, alpha)
            })
            .collect();
        let pick = |alpha: bool| -> (Vec<u8>, u64) {
            let mut total = 0;
            let refs = (0..width)
                .map(|x| {
                    let cost = |k: usize| if alpha { costs[k].1[x] } else { costs[k].0[x] };
                    let (k, c) = (0..=max.min(x)).map(|k| (k, cost(k))).min_by_key(|&(k, c)| (c, k)).unwrap_or((0, 0));
                    total += u64::from(c);
                    k as u8
                })
                .collect();
            (refs, total)
        };
        let (rgb, chosen) = pick(false);
        let (alpha, _) = pick(true);
        let left: u64 = (0..width).map(|x| u64::from(costs[usize::from(x > 0)].0[x])).sum();
        (left > 0 && (chosen as f64) <= REFERENCES_PAY * left as f64).then_some(References { rgb, alpha })
    }

    /// The references a bake stores, chosen on its first block of delta rows (before
    /// the per-texel steps), `width` texels a row: [`References::choose`]'s when they
    /// make that block smaller than "planes"' own do, by at least 5% and by more than
    /// their table costs in the description (a trial of both layouts at Zstandard level 1
    /// on runs of the block's rows, at most `TRIAL_TEXELS` texels, its saving scaled to the
    /// block); else "planes"' own ([`References::left`]). The same at any thread count.
    pub fn for_bake(block: &[u16], width: usize) -> Self {
        let left = References::left(width);
        let Some(chosen) = References::choose(block, width) else { return left };
        // TRIAL_RUNS runs of whole rows, evenly spread over the block (a band's rows hold
        // other points than the next band's), at most TRIAL_TEXELS texels in all.
        let (row_len, rows) = (width * 4, block.len() / (width * 4));
        let run = ((TRIAL_TEXELS / width).max(1) / TRIAL_RUNS).max(1).min(rows);
        let mut starts: Vec<usize> = (0..TRIAL_RUNS).map(|i| i * (rows - run) / (TRIAL_RUNS - 1)).collect();
        starts.dedup();
        let sample: Vec<u16> =
            starts.iter().flat_map(|&y| block[y * row_len..(y + run) * row_len].iter().copied()).collect();
        let trial_len = sample.len();
        let trial = |refs: &References| {
            let mut bytes = Vec::new();
            plane_bytes(&sample, width, refs, &mut bytes);
            vat_ktx2::compressed_size(&bytes, 1).unwrap_or(usize::MAX)
        };
        let (with, without) = (trial(&chosen), trial(&left));
        // The trial's saving, over the whole first block, against the table's bytes.
        let saving = without.saturating_sub(with) as f64 * (block.len() as f64 / trial_len as f64);
        if (with as f64) <= REFERENCES_PAY * without as f64 && saving > chosen.to_base64().len() as f64 {
            chosen
        } else {
            left
        }
    }

    /// The description's `texture.delta.references`: base64 of `rgb` then `alpha`.
    pub fn to_base64(&self) -> String {
        BASE64.encode([self.rgb.as_slice(), self.alpha.as_slice()].concat())
    }

    /// Reads `texture.delta.references` for a texture `width` texels wide: each
    /// reference within the texture and within [`MAX_REFERENCE`](vat_description::MAX_REFERENCE).
    pub fn from_base64(text: &str, width: usize) -> Result<Self, String> {
        let bytes = BASE64.decode(text).map_err(|e| format!("texture.delta.references is not base64: {e}"))?;
        if bytes.len() != 2 * width {
            return Err(format!(
                "texture.delta.references holds {} bytes, a texture {width} texels wide needs {}",
                bytes.len(),
                2 * width
            ));
        }
        let (rgb, alpha) = bytes.split_at(width);
        let bad = |refs: &[u8]| {
            refs.iter()
                .enumerate()
                .map(|(x, &r)| (x, r))
                .find(|&(x, r)| usize::from(r) > x || r > vat_description::MAX_REFERENCE)
        };
        if let Some((x, r)) = bad(rgb).or_else(|| bad(alpha)) {
            return Err(format!(
                "texture.delta.references gives column {x} the reference {r}, past the texture's first column or {}",
                vat_description::MAX_REFERENCE
            ));
        }
        Ok(References { rgb: rgb.to_vec(), alpha: alpha.to_vec() })
    }
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

/// Undoes the per-texel steps of [`plane_bytes`] on one row, in place: unzigzag, then
/// for x from 1 on, R, G and B plus those of the column `refs.rgb` names, modulo 65536,
/// and the alpha's two bytes plus those of the column `refs.alpha` names, modulo 256.
pub fn unpredict_row(row: &mut [u16], refs: &References) {
    for texel in row.chunks_exact_mut(4) {
        for v in &mut texel[..3] {
            *v = unzigzag16(*v);
        }
        let [lo, hi] = texel[3].to_le_bytes();
        texel[3] = u16::from_le_bytes([unzigzag8(lo), unzigzag8(hi)]);
    }
    for x in 1..row.len() / 4 {
        let (r, a) = (usize::from(refs.rgb[x]), usize::from(refs.alpha[x]));
        if r > 0 {
            for c in 0..3 {
                row[x * 4 + c] = row[x * 4 + c].wrapping_add(row[(x - r) * 4 + c]);
            }
        }
        if a > 0 {
            row[x * 4 + 3] = byte_add(row[x * 4 + 3], row[(x - a) * 4 + 3]);
        }
    }
}

/// One block of whole rows of delta texels, `width` a row, as the file holds it: per
/// texel, R, G and B minus those of the column `refs.rgb` names (the columns are in
/// spatial order: a nearby point; "planes": the texel to the left), the alpha's two
/// bytes each minus those of the column `refs.alpha` names, modulo 256; zigzagged
/// (small negative numbers become small numbers: R, G, B as u16, the alpha's bytes
/// each as u8); then eight byte planes (R high bytes, R low, G high, G low, B high,
/// B low, A high, A low), texel by texel; into `bytes`, in one pass.
pub fn plane_bytes(block: &[u16], width: usize, refs: &References, bytes: &mut Vec<u8>) {
    let n = block.len() / 4;
    bytes.clear();
    bytes.resize(n * 8, 0);
    let (head, rest) = bytes.split_at_mut(4 * n);
    let (rh, head) = head.split_at_mut(n);
    let (rl, head) = head.split_at_mut(n);
    let (gh, gl) = head.split_at_mut(n);
    let (bh, rest) = rest.split_at_mut(n);
    let (bl, rest) = rest.split_at_mut(n);
    let (ah, al) = rest.split_at_mut(n);
    for (y, row) in block.chunks_exact(width * 4).enumerate() {
        for (x, t) in row.chunks_exact(4).enumerate() {
            let (r, a) = (usize::from(refs.rgb[x]), usize::from(refs.alpha[x]));
            let from = if r > 0 { &row[(x - r) * 4..(x - r) * 4 + 3] } else { &[0, 0, 0][..] };
            let alpha = if a > 0 { byte_sub(t[3], row[(x - a) * 4 + 3]) } else { t[3] };
            let [lo, hi] = alpha.to_le_bytes();
            let i = y * width + x;
            [rh[i], rl[i]] = zigzag16(t[0].wrapping_sub(from[0])).to_be_bytes();
            [gh[i], gl[i]] = zigzag16(t[1].wrapping_sub(from[1])).to_be_bytes();
            [bh[i], bl[i]] = zigzag16(t[2].wrapping_sub(from[2])).to_be_bytes();
            [ah[i], al[i]] = [zigzag8(hi), zigzag8(lo)];
        }
    }
}

/// Undoes [`plane_bytes`]' arrangement in planes on one block (its bytes read as
/// little-endian u16s), in place.
pub fn from_planes(block: &mut [u16]) {
    let n = block.len() / 4;
    let bytes: Vec<u8> = block.iter().flat_map(|v| v.to_le_bytes()).collect();
    for (i, texel) in block.chunks_exact_mut(4).enumerate() {
        for (c, v) in texel.iter_mut().enumerate() {
            *v = u16::from_le_bytes([bytes[(2 * c + 1) * n + i], bytes[2 * c * n + i]]);
        }
    }
}

/// Undoes a layout in planes on a whole image of `row_len`-u16 rows (the planes of
/// each block of `block_rows` rows, then each row's steps by `refs`, whose columns
/// must be the rows' texels); [`undo`] then finishes the job.
pub fn undo_planes(texels: &mut [u16], row_len: usize, block_rows: usize, refs: &References) {
    if row_len == 0 || block_rows == 0 {
        return;
    }
    for block in texels.chunks_mut(row_len * block_rows) {
        from_planes(block);
    }
    for row in texels.chunks_exact_mut(row_len) {
        unpredict_row(row, refs);
    }
}

/// Undoes `delta` on a whole image of `row_len`-u16 rows, in bands of
/// `first.len()` rows: running sums down each clip's rows, the last pass's first
/// (from the clip's row index `order − 1` + 1), then the one before it. With the
/// layouts in planes (after [`undo_planes`]), the alpha's two bytes each by one
/// running sum modulo 256 instead.
pub fn undo(delta: Delta, layout: DeltaLayout, texels: &mut [u16], row_len: usize, first: &[usize]) {
    if delta.order() == 0 || row_len == 0 || first.is_empty() {
        return;
    }
    let planes = layout.in_planes();
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
        // Rows of 2 texels: "planes"' own references, and texel 1 from none (RGB) and
        // from texel 0 (the alpha), as "planes-ref" may.
        let own = References::left(2);
        let other = References { rgb: vec![0, 0], alpha: vec![0, 1] };
        for (delta, refs) in [(Delta::Row, &own), (Delta::Second, &own), (Delta::Second, &other)] {
            let mut stored = plain.clone();
            let mut encoder = Encoder::new(delta, Some(DeltaLayout::Planes), 8, first.clone());
            let (a, b) = stored.split_at_mut(24);
            encoder.encode(a);
            encoder.encode(b);
            // Blocks of 3 rows, the last of the 10 one row, as the file holds them.
            let mut arranged = Vec::new();
            let mut bytes = Vec::new();
            for block in stored.chunks(3 * 8) {
                plane_bytes(block, 2, refs, &mut bytes);
                arranged.extend(bytes.chunks_exact(2).map(|b| u16::from_le_bytes([b[0], b[1]])));
            }
            // The first block (6 texels) is 8 planes of 6 bytes: R high at 0, R low at 6,
            // …, A high at 36, A low at 42; texel i of the block at i in each.
            let bytes: Vec<u8> = arranged.iter().flat_map(|v| v.to_le_bytes()).collect();
            let plane =
                |c: usize, t: usize| u16::from(bytes[2 * c * 6 + t]) << 8 | u16::from(bytes[(2 * c + 1) * 6 + t]);
            // Row 0, texel 0: its delta is the plain texel, zigzagged (no reference).
            assert_eq!(plane(0, 0), zigzag16(plain[0]), "{delta}");
            // Row 1, texel 1 (texel 3 of the block): R is the zigzag of (p − p above) −
            // (the same of texel 0), or of its own difference with no reference; A's high
            // byte the zigzag of its own difference modulo 256, less texel 0's with the
            // alpha's reference.
            let p = |r: usize, i: usize| plain[r * 8 + i];
            let d = |i: usize| p(1, i).wrapping_sub(p(0, i));
            let r = if refs.rgb[1] == 1 { d(4).wrapping_sub(d(0)) } else { d(4) };
            assert_eq!(plane(0, 3), zigzag16(r), "{delta}");
            let high = |i: usize| ((p(1, i) >> 8) as u8).wrapping_sub((p(0, i) >> 8) as u8);
            let a = if refs.alpha[1] == 1 { high(7).wrapping_sub(high(3)) } else { high(7) };
            assert_eq!(plane(3, 3) >> 8, u16::from(zigzag8(a)), "{delta}");
            undo_planes(&mut arranged, 8, 3, refs);
            undo(delta, DeltaLayout::Planes, &mut arranged, 8, &first);
            assert_eq!(arranged, plain, "{delta}");
        }
        assert_eq!((block_rows(1), block_rows(1 << 20), block_rows(3990)), (1 << 19, 1, 131));
        for v in [0u16, 1, 0x7FFF, 0x8000, 0xFFFF] {
            assert_eq!(unzigzag16(zigzag16(v)), v);
        }
        assert_eq!((zigzag16(0xFFFF), zigzag16(1), zigzag8(0x80)), (1, 2, 0xFF));
    }

    /// The choice takes, per column, the nearest column that moves alike, and the
    /// table goes through the description's base64 and back; a table that names a
    /// column past the first, or is not base64, is refused.
    #[test]
    fn references_choose_the_column_that_moves_alike_and_read_back() {
        // 24 columns, 32 rows: column x moves as column x - 3 does (a ramp per row
        // times a factor that repeats every 3 columns), noise-free, so its best
        // reference is 3; the first three columns have none better than none or left.
        let (width, rows) = (24usize, 32usize);
        let mut block = vec![0u16; width * rows * 4];
        for y in 0..rows {
            for x in 0..width {
                for c in 0..3 {
                    block[(y * width + x) * 4 + c] = ((y * (x % 3 + 1) * 97 + c * 31) % 65536) as u16;
                }
                block[(y * width + x) * 4 + 3] = ((y * (x % 3 + 5)) % 256) as u16 * 0x0101;
            }
        }
        let refs = References::choose(&block, width).expect("references that pay");
        assert!(refs.rgb[3..].iter().all(|&k| k == 3), "{:?}", refs.rgb);
        assert!(refs.alpha[3..].iter().all(|&k| k == 3), "{:?}", refs.alpha);
        let text = refs.to_base64();
        assert_eq!(text.len(), (2 * width).div_ceil(3) * 4);
        assert_eq!(References::from_base64(&text, width), Ok(refs.clone()));
        assert_eq!(References::for_bake(&block, width), refs);
        let mut bad = refs.clone();
        bad.rgb[2] = 3;
        let error = References::from_base64(&bad.to_base64(), width).unwrap_err();
        assert!(error.contains("column 2 the reference 3"), "{error}");
        assert!(References::from_base64("not base64!", width).is_err());
        assert!(References::from_base64(&text, width + 1).unwrap_err().contains("needs 50"));
        // Base64 of the 48 bytes, the first six: columns 1 and 2 from their left
        // neighbours, columns 3 to 5 from 3 to their left (0, 1, 1, 3, 3, 3).
        assert_eq!(&text[..8], "AAEBAwMD");
        // Columns that move alike with their left neighbour keep "planes".
        let mut still = vec![0u16; width * rows * 4];
        for (i, v) in still.iter_mut().enumerate() {
            *v = ((i / (width * 4)) * 13) as u16;
        }
        assert_eq!(References::choose(&still, width), None);
        assert_eq!(References::for_bake(&still, width), References::left(width));
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
