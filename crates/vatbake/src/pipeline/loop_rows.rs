//! `--loop-rows`: a copy of each looping clip's first row after its last, so a player
//! interpolating between rows wraps with no jump.

use crate::description::ClipEntry;

/// `--loop-rows`: which clips get a copy of their first row (looping, and not already
/// ending on their first pose exactly), and the new rows as indices of the old ones.
pub(crate) fn loop_rows(rig: &vat_skin::Rig, poses: &[vat_skin::RowPose], entries: &[ClipEntry]) -> Vec<bool> {
    let points = rig.model().points.len();
    let evaluated = |row: usize| {
        let (mut p, mut n) = (vec![glam::Vec3A::ZERO; points], vec![glam::Vec3A::ZERO; points]);
        rig.evaluate(&poses[row], 0..points, &mut p, &mut n);
        (p, n)
    };
    entries
        .iter()
        .map(|e| e.looping && e.rows > 1 && evaluated(e.row as usize) != evaluated((e.row + e.rows - 1) as usize))
        .collect()
}

/// Appends the copies `wanted` says: each such clip's first row after its last.
/// Updates the entries (rows, duration, `loop_row`, root motion translation) and
/// returns, for each new row, the old row it shows.
pub(crate) fn append_loop_rows(entries: &mut [ClipEntry], wanted: &[bool]) -> Vec<usize> {
    let mut map = Vec::new();
    let mut row = 0u32;
    for (entry, &append) in entries.iter_mut().zip(wanted) {
        let first = entry.row as usize;
        map.extend(first..first + entry.rows as usize);
        entry.row = row;
        if append {
            map.push(first);
            entry.rows += 1;
            entry.duration += 1.0 / entry.rate;
            entry.loop_row = true;
            // The copy shows the first pose one row period after the last: the root
            // has travelled on by one more row's step, so a player that adds the last
            // translation at every wrap moves at the clip's pace throughout.
            if let Some(t) = entry.root_motion.as_mut().and_then(|r| r.translation.as_mut()) {
                let last = t[t.len() - 1];
                let before = t[t.len().saturating_sub(2)];
                t.push([2.0 * last[0] - before[0], 0.0, 2.0 * last[2] - before[2]]);
            }
        }
        row += entry.rows;
    }
    map
}
