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

/// Applies the deltas to whole image rows handed on in order, a chunk at a time.
pub struct Encoder {
    order: usize,
    row_len: usize,
    /// Per row of a band: its index within its clip.
    first: Vec<usize>,
    /// The row before, as each step saw it.
    before: Vec<Vec<u16>>,
    /// Image rows encoded so far.
    done: usize,
}

impl Encoder {
    /// An encoder of image rows `row_len` u16s long, over bands of `first.len()` rows.
    pub fn new(delta: Delta, row_len: usize, first: Vec<usize>) -> Self {
        Encoder { order: delta.order(), row_len, before: vec![vec![0; row_len]; delta.order()], first, done: 0 }
    }

    /// Encodes the next whole image rows in place.
    pub fn encode(&mut self, texels: &mut [u16]) {
        if self.order == 0 || self.row_len == 0 {
            return;
        }
        for row in texels.chunks_exact_mut(self.row_len) {
            let in_clip = if self.first.is_empty() { 0 } else { self.first[self.done % self.first.len()] };
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
            self.done += 1;
        }
    }
}

/// Undoes `delta` on a whole image of `row_len`-u16 rows, in bands of
/// `first.len()` rows: running sums down each clip's rows, the last pass's first
/// (from the clip's row index `order − 1` + 1), then the one before it.
pub fn undo(delta: Delta, texels: &mut [u16], row_len: usize, first: &[usize]) {
    if delta.order() == 0 || row_len == 0 || first.is_empty() {
        return;
    }
    let height = texels.len() / row_len;
    for s in (0..delta.order()).rev() {
        for y in 1..height {
            if first[y % first.len()] <= s {
                continue;
            }
            let (above, rest) = texels.split_at_mut(y * row_len);
            let above = &above[(y - 1) * row_len..];
            for (value, prior) in rest[..row_len].iter_mut().zip(above) {
                *value = value.wrapping_add(*prior);
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
        Encoder::new(Delta::Row, 8, first.clone()).encode(&mut row);
        // Row 1 of band 0: minus row 0; row 3 (a clip's first) and row 5 (a band's first) as they are.
        assert_eq!(row[8], plain[8].wrapping_sub(plain[0]));
        assert_eq!(row[3 * 8..4 * 8], plain[3 * 8..4 * 8]);
        assert_eq!(row[5 * 8..6 * 8], plain[5 * 8..6 * 8]);
        assert_eq!(row[7 * 8 + 5], plain[7 * 8 + 5].wrapping_sub(plain[6 * 8 + 5]));
        let mut second = plain.clone();
        // Handed on a row, then three rows, then the rest: the same as all at once.
        let mut encoder = Encoder::new(Delta::Second, 8, first.clone());
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
            undo(delta, &mut texels, 8, &first);
            assert_eq!(texels, plain, "{delta}");
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
