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

/// Defines the function it is given twice over, built for AVX2 and as it is, and runs the
/// AVX2 build where the machine has it: the steps are integer ones, so both give the same
/// values (the AVX2 build does more of them at once).
macro_rules! avx2_where_present {
    ($(#[$doc:meta])* $vis:vis fn $name:ident($($arg:ident: $ty:ty),* $(,)?) $body:block) => {
        $(#[$doc])*
        $vis fn $name($($arg: $ty),*) {
            #[inline(always)]
            fn any($($arg: $ty),*) $body
            #[cfg(target_arch = "x86_64")]
            #[target_feature(enable = "avx2")]
            fn avx2($($arg: $ty),*) {
                any($($arg),*)
            }
            #[cfg(target_arch = "x86_64")]
            if std::arch::is_x86_feature_detected!("avx2") {
                // SAFETY: the machine has AVX2, checked just above.
                return unsafe { avx2($($arg),*) };
            }
            any($($arg),*)
        }
    };
}

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
    /// The last two plain rows encoded (the last first), for the next rows' differences.
    above: [Vec<u16>; 2],
    /// The lanes of each plain texel kept ([`Encoder::without_alpha`]).
    keep: u64,
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
            above: [vec![0; row_len], vec![0; row_len]],
            keep: u64::MAX,
            first,
            done: 0,
        }
    }

    /// The encoder, taking every plain texel's alpha as 0 when `zero` (positions whose
    /// normals are not packed in the alpha).
    pub fn without_alpha(mut self, zero: bool) -> Self {
        self.keep = if zero { RGB_LANES } else { u64::MAX };
        self
    }

    /// Encodes the next whole image rows in place ([`Encoder::encode_into`]).
    pub fn encode(&mut self, texels: &mut [u16]) {
        let plain = texels.to_vec();
        self.encode_into(&plain, texels);
    }

    /// Encodes the next whole image rows, `plain`, into `out` (as long): row 1 of a
    /// clip minus row 0, row `k ≥ 2` minus 2 · row `k − 1` plus row `k − 2` (order 2;
    /// order 1 stops at the first difference), each u16 modulo 65536; in planes the
    /// alpha's two bytes each minus the row above's, modulo 256, once. Each texel as
    /// one u64, its lanes apart; runs of rows in parallel (each reads plain rows alone:
    /// the same bytes at any thread count).
    pub fn encode_into(&mut self, plain: &[u16], out: &mut [u16]) {
        if self.order == 0 || self.row_len == 0 {
            for (o, &t) in out.as_chunks_mut::<4>().0.iter_mut().zip(plain.as_chunks::<4>().0) {
                *o = from_u64(as_u64(t) & self.keep);
            }
            return;
        }
        // In planes the alpha's lanes are its two bytes (each a function of its own, so
        // that it is inlined).
        if self.planes {
            self.encode_with(plain, out, lanes_sub, ALPHA_LANES);
        } else {
            self.encode_with(plain, out, lanes16_sub, 0);
        }
    }

    /// [`Encoder::encode_into`] with `sub` for the first difference, the alpha's lanes
    /// `alpha_once` left at it.
    fn encode_with(&mut self, plain: &[u16], out: &mut [u16], sub: impl Fn(u64, u64) -> u64 + Sync, alpha_once: u64) {
        use rayon::prelude::*;
        let row_len = self.row_len;
        let (order, done, first, above, keep) = (self.order, self.done, &self.first, &self.above, self.keep);
        let texel = |t: [u16; 4]| as_u64(t) & keep;
        // Plain row `y` of these rows, or of those before them (y < 0).
        let row = |y: isize| -> &[u16] {
            if y >= 0 {
                &plain[y as usize * row_len..][..row_len]
            } else {
                &above[(-y - 1) as usize]
            }
        };
        let run = (ROW_TASK_TEXELS / (row_len / 4).max(1)).max(1) * row_len;
        let encode_run = |(r, rows): (usize, &mut [u16])| {
            for (k, o) in rows.chunks_exact_mut(row_len).enumerate() {
                let y = (r * run / row_len + k) as isize;
                let in_clip = if first.is_empty() { 0 } else { first[(done + y as usize) % first.len()] };
                let (o, _) = o.as_chunks_mut::<4>();
                let (t, _) = row(y).as_chunks::<4>();
                match in_clip.min(order) {
                    0 => {
                        for (o, &t) in o.iter_mut().zip(t) {
                            *o = from_u64(texel(t));
                        }
                    }
                    1 => {
                        let (a, _) = row(y - 1).as_chunks::<4>();
                        for ((o, &t), &a) in o.iter_mut().zip(t).zip(a) {
                            *o = from_u64(sub(texel(t), texel(a)));
                        }
                    }
                    _ => second_differences(
                        o,
                        [t, row(y - 1).as_chunks::<4>().0, row(y - 2).as_chunks::<4>().0],
                        keep,
                        alpha_once,
                    ),
                }
            }
        };
        if out.len() > PARALLEL_RUNS * run {
            out.par_chunks_mut(run).enumerate().for_each(encode_run);
        } else {
            out.chunks_mut(run).enumerate().for_each(encode_run);
        }
        let rows = plain.len() / row_len;
        let last = |back: usize| row(rows as isize - 1 - back as isize).to_vec();
        self.above = [last(0), last(1)];
        self.done += rows;
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
/// `TRIAL_RUNS` runs spread over it (a quarter of what the choice weighs: on every
/// bundled fixture and both generated models it decides as four times as many did).
const TRIAL_TEXELS: usize = 1 << 14;

/// How many runs of rows the trial takes from the first block.
const TRIAL_RUNS: usize = 4;

/// One row the choice weighs, its channels apart: R, G and B, then the alpha's low and
/// high bytes.
type SampledRow = ([Vec<u16>; 3], [Vec<u8>; 2]);

avx2_where_present! {
    /// Adds, per column, the absolute differences of one sampled row's R, G and B from their
    /// reference's (`rgb`: the row's three channels, then the references') to `rgb_sums`,
    /// and of its alpha's two bytes (`alpha`: low, high, then the references') to
    /// `alpha_sums`. With AVX2 where the machine has it: the same sums, twice as many at once.
    fn accumulate(rgb_sums: &mut [u32], alpha_sums: &mut [u32], rgb: [&[u16]; 6], alpha: [&[u8]; 4]) {
        let n = rgb_sums.len();
        let d16 = |t: u16, r: u16| u32::from((t.wrapping_sub(r) as i16).unsigned_abs());
        let d8 = |t: u8, r: u8| u32::from((t.wrapping_sub(r) as i8).unsigned_abs());
        let [tr, tg, tb, fr, fg, fb] = rgb.map(|c| &c[..n]);
        for i in 0..n {
            rgb_sums[i] += d16(tr[i], fr[i]) + d16(tg[i], fg[i]) + d16(tb[i], fb[i]);
        }
        let [tl, th, fl, fh] = alpha.map(|c| &c[..n]);
        for i in 0..n {
            alpha_sums[i] += d8(tl[i], fl[i]) + d8(th[i], fh[i]);
        }
    }
}

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
        let sampled: Vec<SampledRow> = block
            .chunks_exact(width * 4)
            .step_by(step)
            .map(|row| {
                let channel = |c: usize| row.iter().skip(c).step_by(4).copied().collect::<Vec<u16>>();
                let byte = |shift: u32| row.iter().skip(3).step_by(4).map(|&v| (v >> shift) as u8).collect::<Vec<u8>>();
                ([channel(0), channel(1), channel(2)], [byte(0), byte(8)])
            })
            .collect();
        // Cost of column x from reference k (k = 0: none), RGB and alpha, by k then x. A
        // u32 holds it: at most CHOICE_TEXELS / 2 rows of at most 3 * 32768 + 2 * 128.
        let (zero16, zero8) = (vec![0u16; width], vec![0u8; width]);
        let cost = |k: usize| {
            let mut rgb = vec![u32::MAX; width];
            let mut alpha = vec![u32::MAX; width];
            if k >= width {
                return (rgb, alpha);
            }
            let n = width - k;
            rgb[k..].fill(0);
            alpha[k..].fill(0);
            let (rgb_k, alpha_k) = (&mut rgb[k..], &mut alpha[k..]);
            for ([r, g, b], [lo, hi]) in &sampled {
                // Each column's channels, and its reference's (none: zeros), n long.
                let from = |p| reference(p, &zero16, k, n);
                let rgb_rows = [&r[k..], &g[k..], &b[k..], from(r), from(g), from(b)];
                let from = |p| reference(p, &zero8, k, n);
                accumulate(rgb_k, alpha_k, rgb_rows, [&lo[k..], &hi[k..], from(lo), from(hi)]);
            }
            (rgb, alpha)
        };
        // On the calling thread: at most CHOICE_TEXELS texels, less than handing the
        // candidates to the thread pool and waiting for them costs (docs/PERFORMANCE.md,
        // "Bake time at default").
        let costs: Vec<(Vec<u32>, Vec<u32>)> = (0..=max).map(cost).collect();
        // The first n of a channel's values, those its columns from k on refer to; zeros for k = 0.
        fn reference<'a, T>(channel: &'a [T], zeros: &'a [T], k: usize, n: usize) -> &'a [T] {
            if k == 0 {
                &zeros[..n]
            } else {
                &channel[..n]
            }
        }
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

/// Each byte of `a` plus that of `b`, modulo 256.
fn byte_add(a: u16, b: u16) -> u16 {
    let [a0, a1] = a.to_le_bytes();
    let [b0, b1] = b.to_le_bytes();
    u16::from_le_bytes([a0.wrapping_add(b0), a1.wrapping_add(b1)])
}

/// The format's zigzag of a u16 (and [`zigzag8`] of a byte), which [`lanes_zigzag`] applies
/// to a texel's lanes at once; the tests hold the two to each other.
#[cfg(test)]
fn zigzag16(v: u16) -> u16 {
    let s = v as i16;
    ((s << 1) ^ (s >> 15)) as u16
}

fn unzigzag16(z: u16) -> u16 {
    (z >> 1) ^ 0u16.wrapping_sub(z & 1)
}

/// A texel's R, G and B in a u64 from [`as_u64`], and its alpha's.
const RGB_LANES: u64 = 0x0000_ffff_ffff_ffff;
const ALPHA_LANES: u64 = 0xffff_0000_0000_0000;
/// The top bit of each lane of such a u64: R, G and B u16s, the alpha's two bytes.
const LANE_TOPS: u64 = 0x8080_8000_8000_8000;
const LANE_BOTTOMS: u64 = 0x0101_0001_0001_0001;

fn as_u64(texel: [u16; 4]) -> u64 {
    u64::from(texel[0]) | u64::from(texel[1]) << 16 | u64::from(texel[2]) << 32 | u64::from(texel[3]) << 48
}

fn from_u64(v: u64) -> [u16; 4] {
    [v as u16, (v >> 16) as u16, (v >> 32) as u16, (v >> 48) as u16]
}

/// Each u16 lane of `a` minus that of `b`, modulo 65536 (no borrow between lanes).
#[inline]
fn lanes16_sub(a: u64, b: u64) -> u64 {
    const TOPS: u64 = 0x8000_8000_8000_8000;
    ((a | TOPS).wrapping_sub(b & !TOPS)) ^ ((a ^ !b) & TOPS)
}

/// Each lane of `a` minus that of `b`, modulo the lane's width (no borrow between lanes).
#[inline]
fn lanes_sub(a: u64, b: u64) -> u64 {
    ((a | LANE_TOPS).wrapping_sub(b & !LANE_TOPS)) ^ ((a ^ !b) & LANE_TOPS)
}

/// Each lane zigzagged at its width: [`zigzag16`] on R, G and B, [`zigzag8`] on the alpha's
/// bytes. A negative lane's ones are its sign bit, moved to the lane's bottom, times the
/// lane's all-ones: that bit shifted past the lane's top, less itself (modulo 2^64 for the
/// top byte).
#[inline]
fn lanes_zigzag(d: u64) -> u64 {
    let (signs16, signs8) = ((d & 0x0000_8000_8000_8000) >> 15, (d & 0x8080_0000_0000_0000) >> 7);
    let negative = ((signs16 << 16).wrapping_sub(signs16)) | ((signs8 << 8).wrapping_sub(signs8));
    ((d << 1) & !LANE_BOTTOMS) ^ negative
}

avx2_where_present! {
    /// Each texel of a row minus its references (`from`, as u64s), its lanes apart, zigzagged:
    /// [`predict_rows`]' second step. With AVX2 where the machine has it (the same values, more
    /// at once).
    fn residuals(texels: &mut [[u16; 4]], from: &[u64]) {
        for (t, &f) in texels.iter_mut().zip(from) {
            *t = from_u64(lanes_zigzag(lanes_sub(as_u64(*t), f)));
        }
    }
}

avx2_where_present! {
    /// One row's second differences, `out` from its plain texels and those of the two rows
    /// above (`rows`), each texel's lanes `keep` kept: the row minus twice the one above plus
    /// the one above that (u16 lanes), the lanes of `alpha_once` (in planes: the alpha's bytes)
    /// the first difference alone, bytewise. With AVX2 where the machine has it (the same
    /// values, more at once).
    fn second_differences(out: &mut [[u16; 4]], rows: [&[[u16; 4]]; 3], keep: u64, alpha_once: u64) {
        let [t, a, b] = rows;
        // The first difference's lanes: the alpha's bytes apart where it is taken once.
        let first = |x: u64, y: u64| if alpha_once != 0 { lanes_sub(x, y) } else { lanes16_sub(x, y) };
        for (((o, &t), &a), &b) in out.iter_mut().zip(t).zip(a).zip(b) {
            let (t, a, b) = (as_u64(t) & keep, as_u64(a) & keep, as_u64(b) & keep);
            let difference = first(t, a);
            let second = lanes16_sub(difference, first(a, b));
            *o = from_u64((second & !alpha_once) | (difference & alpha_once));
        }
    }
}

#[cfg(test)]
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

/// One block of whole rows of delta texels, `width` a row, as the file holds it: the
/// per-texel steps ([`predict_rows`]), then eight byte planes (R high bytes, R low, G
/// high, G low, B high, B low, A high, A low), texel by texel ([`byte_plane`]); into
/// `bytes`. The pack stage takes the same two steps a piece of a plane at a time.
pub fn plane_bytes(block: &[u16], width: usize, refs: &References, bytes: &mut Vec<u8>) {
    let mut predicted = block.to_vec();
    predict_rows(&mut predicted, width, refs);
    let n = block.len() / 4;
    bytes.clear();
    bytes.resize(n * 8, 0);
    for (plane, out) in bytes.chunks_exact_mut(n.max(1)).enumerate() {
        byte_plane(&predicted, plane, out);
    }
}

/// The per-texel steps of the layouts in planes on whole rows of delta texels, `width`
/// a row, in place: R, G and B minus those of the column `refs.rgb` names (the columns
/// are in spatial order: a nearby point; "planes": the texel to the left), modulo
/// 65536, zigzagged (small negative numbers become small numbers); the alpha's two
/// bytes each minus those of the column `refs.alpha` names, modulo 256, each zigzagged
/// as a u8, the high byte's then the low byte's as one u16 (high first). Runs of rows
/// in parallel: each row's steps read that row alone, so the bytes are the same at any
/// thread count.
pub fn predict_rows(block: &mut [u16], width: usize, refs: &References) {
    use rayon::prelude::*;
    if width == 0 {
        return;
    }
    let run = (ROW_TASK_TEXELS / width).max(1) * width * 4;
    let predict_run = |rows: &mut [u16]| {
        // Each texel's references (none: zeros) first, as u64s (R, G, B, A from the low
        // bits), then every texel minus them, its lanes apart.
        let mut from = vec![0u64; width];
        for row in rows.chunks_exact_mut(width * 4) {
            let (texels, _) = row.as_chunks_mut::<4>();
            for (x, f) in from.iter_mut().enumerate() {
                let (r, a) = (usize::from(refs.rgb[x]), usize::from(refs.alpha[x]));
                let rgb = if r > 0 { RGB_LANES } else { 0 };
                let alpha = if a > 0 { ALPHA_LANES } else { 0 };
                *f = (as_u64(texels[x - r]) & rgb) | (as_u64(texels[x - a]) & alpha);
            }
            residuals(texels, &from);
        }
    };
    if block.len() > PARALLEL_RUNS * run {
        block.par_chunks_mut(run).for_each(predict_run);
    } else {
        predict_run(block);
    }
}

/// The texels a parallel run of rows takes at least ([`Encoder::encode_into`],
/// [`predict_rows`]): enough that a task's start costs nothing, few enough to share a
/// block between threads.
const ROW_TASK_TEXELS: usize = 1 << 15;

/// The runs of rows below which [`Encoder::encode_into`] and [`predict_rows`] work on the
/// calling thread: handing work to the thread pool from the pack stage's writing thread
/// and waiting for it costs more than a few runs take (the Kenney platformer character
/// baked 0.95× the time with its choice, trial and two runs here; docs/PERFORMANCE.md,
/// "Bake time at default").
const PARALLEL_RUNS: usize = 8;

avx2_where_present! {
    /// Byte plane `plane` (0: R's high bytes, 1: R's low bytes, … 7: A's low bytes) of
    /// texels after [`predict_rows`], one byte a texel, into `out`.
    pub fn byte_plane(texels: &[u16], plane: usize, out: &mut [u8]) {
        let (c, shift) = (plane / 2, if plane.is_multiple_of(2) { 8 } else { 0 });
        for (o, t) in out.iter_mut().zip(texels.as_chunks::<4>().0) {
            *o = (t[c] >> shift) as u8;
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
    fn a_texels_lanes_are_the_formats_words() {
        let mut state = 0x2545_f491_4f6c_dd1du64;
        for _ in 0..100_000 {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            let (a, b) = (state, state.rotate_left(29) ^ 0x9e37_79b9_7f4a_7c15);
            let ([ta, tb], [fa, fb]) =
                ([from_u64(a), from_u64(b)], [from_u64(lanes_sub(a, b)), from_u64(lanes16_sub(a, b))]);
            for c in 0..3 {
                assert_eq!(fa[c], ta[c].wrapping_sub(tb[c]));
                assert_eq!(from_u64(lanes_zigzag(a))[c], zigzag16(ta[c]));
            }
            assert_eq!(fb[3], ta[3].wrapping_sub(tb[3]));
            let bytes = |v: u16| v.to_le_bytes();
            let [lo, hi] = bytes(fa[3]);
            assert_eq!(
                [lo, hi],
                [bytes(ta[3])[0].wrapping_sub(bytes(tb[3])[0]), bytes(ta[3])[1].wrapping_sub(bytes(tb[3])[1])]
            );
            let [zlo, zhi] = bytes(from_u64(lanes_zigzag(a))[3]);
            assert_eq!([zlo, zhi], [zigzag8(bytes(ta[3])[0]), zigzag8(bytes(ta[3])[1])]);
        }
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
