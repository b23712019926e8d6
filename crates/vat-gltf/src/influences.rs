//! Joint influences: every JOINTS_n/WEIGHTS_n set of a primitive into each
//! point's strongest influences, renormalized, and what the loader tells about
//! them once per model (not once per primitive).

use vat_model::{Finding, MAX_INFLUENCES};

/// A weight sum this far from 1 is reported (after renormalizing). Quantized
/// weights whose bytes were rounded one at a time miss 1 by a few 1/255 steps;
/// that is no news.
const SUM_TOLERANCE: f32 = 0.01;

/// One primitive's influence sets as read: joints and weights, four per point each.
pub(crate) type Sets = Vec<(Vec<u32>, Vec<f32>)>;

/// What the influences of every primitive came to, for one finding each.
#[derive(Default)]
pub(crate) struct Tally {
    /// Most influence sets on one primitive.
    pub most_sets: usize,
    /// Points whose live influences outnumbered the kept ones.
    pub cut_points: usize,
    pub kept: usize,
    /// Points whose weights did not sum to 1, and the sum farthest from it.
    pub off_sum_points: usize,
    pub worst_sum: f32,
    /// Points with weight past the first set (JOINTS_1/WEIGHTS_1 and on).
    pub beyond_first_set: usize,
}

impl Tally {
    /// One finding per kind. Influences cut are reported only when the cut was not
    /// asked for (`cut_unasked`: no `max_influences` given, so past the 8 kept).
    pub fn findings(&self, cut_unasked: bool) -> Vec<Finding> {
        let mut findings = Vec::new();
        if self.off_sum_points > 0 {
            findings.push(
                Finding::new(
                    "weights-renormalized",
                    format!(
                        "the joint weights of {} points do not sum to 1 (worst sum {:.3}); renormalized",
                        self.off_sum_points, self.worst_sum
                    ),
                )
                .advice("the exporter should normalize the weights; the bake is right either way"),
            );
        }
        if self.cut_points > 0 && cut_unasked {
            findings.push(
                Finding::new(
                    "influences-cut",
                    format!(
                        "{} points have more than {} joint influences; the strongest {} are kept, renormalized",
                        self.cut_points, self.kept, self.kept
                    ),
                )
                .advice("--max-influences sets how many are kept (at most 8)"),
            );
        }
        findings
    }
}

/// Each point's live influences from every set, strongest first, at most `keep`,
/// renormalized; a point with no weight at all follows joint 0 (glTF leaves it
/// undefined). Also each point's first set alone (JOINTS_0/WEIGHTS_0,
/// renormalized, in source order), as a runtime that reads only that set skins.
///
/// `sets` must hold `count × 4` values per side, weights finite and not
/// negative, joints inside the skin (the loader checks before calling).
pub(crate) fn combine(sets: &Sets, count: usize, keep: usize, tally: &mut Tally) -> Combined {
    let keep = keep.clamp(1, MAX_INFLUENCES);
    tally.most_sets = tally.most_sets.max(sets.len());
    tally.kept = keep;
    let mut joints = vec![[0u16; MAX_INFLUENCES]; count];
    let mut weights = vec![[0f32; MAX_INFLUENCES]; count];
    let mut first_set = vec![([0u16; 4], [0f32; 4]); count];
    let mut unweighted = 0;
    let mut list: Vec<(u32, f32)> = Vec::with_capacity(sets.len() * 4);
    for p in 0..count {
        list.clear();
        for (jv, wv) in sets {
            let point = jv[p * 4..p * 4 + 4].iter().zip(&wv[p * 4..p * 4 + 4]);
            list.extend(point.filter(|&(_, &weight)| weight > 0.0).map(|(&joint, &weight)| (joint, weight)));
        }
        let first_live = sets.first().map_or(0, |(_, wv)| wv[p * 4..p * 4 + 4].iter().filter(|&&w| w > 0.0).count());
        if list.len() > first_live {
            tally.beyond_first_set += 1;
        }
        let sum: f32 = list.iter().map(|x| x.1).sum();
        if sum > 0.0 && (sum - 1.0).abs() > SUM_TOLERANCE {
            tally.off_sum_points += 1;
            if (sum - 1.0).abs() > (tally.worst_sum - 1.0).abs() || tally.off_sum_points == 1 {
                tally.worst_sum = sum;
            }
        }
        if let Some((jv, wv)) = sets.first() {
            let first_sum: f32 = wv[p * 4..p * 4 + 4].iter().filter(|&&w| w > 0.0).sum();
            for c in 0..4 {
                let w = wv[p * 4 + c];
                if w > 0.0 && first_sum > 0.0 {
                    first_set[p].0[c] = jv[p * 4 + c] as u16;
                    first_set[p].1[c] = w / first_sum;
                }
            }
            if first_sum <= 0.0 {
                first_set[p].1[0] = 1.0;
            }
        }
        // Stable sort: equal weights keep their source order, so output is deterministic.
        list.sort_by(|a, b| b.1.total_cmp(&a.1));
        if list.len() > keep {
            tally.cut_points += 1;
            list.truncate(keep);
        }
        let kept_sum: f32 = list.iter().map(|x| x.1).sum();
        if kept_sum <= 0.0 {
            unweighted += 1;
            weights[p][0] = 1.0;
            continue;
        }
        for (slot, &(joint, weight)) in list.iter().enumerate() {
            joints[p][slot] = joint as u16;
            weights[p][slot] = weight / kept_sum;
        }
    }
    Combined { joints, weights, first_set, unweighted }
}

/// One primitive's influences, as [`combine`] made them.
pub(crate) struct Combined {
    pub joints: Vec<[u16; MAX_INFLUENCES]>,
    pub weights: Vec<[f32; MAX_INFLUENCES]>,
    pub first_set: Vec<([u16; 4], [f32; 4])>,
    /// Points with no weight at all.
    pub unweighted: usize,
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sets(points: &[[(u32, f32); 8]]) -> Sets {
        let mut out = vec![(Vec::new(), Vec::new()), (Vec::new(), Vec::new())];
        for point in points {
            for (i, &(j, w)) in point.iter().enumerate() {
                out[i / 4].0.push(j);
                out[i / 4].1.push(w);
            }
        }
        out
    }

    #[test]
    fn every_set_counts_and_the_strongest_are_kept() {
        let point = [(0, 0.3), (1, 0.1), (2, 0.0), (3, 0.0), (4, 0.4), (5, 0.2), (6, 0.0), (7, 0.0)];
        let mut tally = Tally::default();
        let all = combine(&sets(&[point]), 1, 8, &mut tally);
        assert_eq!(all.joints[0][..4], [4, 0, 5, 1]);
        assert_eq!(all.weights[0][..4], [0.4, 0.3, 0.2, 0.1]);
        assert_eq!(all.first_set[0], ([0, 1, 0, 0], [0.75, 0.25, 0.0, 0.0]));
        assert_eq!((tally.beyond_first_set, tally.cut_points, tally.off_sum_points), (1, 0, 0));

        let two = combine(&sets(&[point]), 1, 2, &mut tally);
        assert_eq!(two.joints[0][..2], [4, 0]);
        assert!((two.weights[0][0] - 0.4 / 0.7).abs() < 1e-6);
        assert_eq!(tally.cut_points, 1);
        assert!(tally.findings(true)[0].message.starts_with("1 points have more than 2 joint influences"));
        assert!(tally.findings(false).is_empty(), "a cut the caller asked for is no finding");
    }

    #[test]
    fn sums_off_one_are_renormalized_and_the_worst_reported() {
        let low = [(0, 0.5), (1, 0.3), (0, 0.0), (0, 0.0), (0, 0.0), (0, 0.0), (0, 0.0), (0, 0.0)];
        let high = [(0, 0.7), (1, 0.6), (0, 0.0), (0, 0.0), (0, 0.0), (0, 0.0), (0, 0.0), (0, 0.0)];
        let near = [(0, 0.5), (1, 0.505), (0, 0.0), (0, 0.0), (0, 0.0), (0, 0.0), (0, 0.0), (0, 0.0)];
        let mut tally = Tally::default();
        let combined = combine(&sets(&[low, high, near]), 3, 8, &mut tally);
        assert_eq!(combined.weights[0][..2], [0.625, 0.375]);
        assert!((combined.weights[1][0] - 0.7 / 1.3).abs() < 1e-6);
        assert_eq!(tally.off_sum_points, 2);
        assert!((tally.worst_sum - 1.3).abs() < 1e-6);
        let findings = tally.findings(true);
        assert_eq!(findings[0].code, "weights-renormalized");
        assert_eq!(
            findings[0].message,
            "the joint weights of 2 points do not sum to 1 (worst sum 1.300); renormalized"
        );
    }
}
