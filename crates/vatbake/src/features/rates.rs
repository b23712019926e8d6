//! `--fps auto`: each clip's rows chosen by error. For each clip, the lowest whole rate
//! (1 to [`AUTO_CEILING`] rows per second) at which the linear interpolation between its
//! rows (what `@vatbake/three` plays between rows) stays within the tolerance of the true
//! pose, sampled every `1 / AUTO_CEILING` s, over every baked point. A held pose then
//! takes 2 rows; a run keeps about as many as a fixed 30 rows per second gives it.
//!
//! Owns: the `--fps` value (a rate or `auto`), the default tolerance and the search. Runs
//! in the clips stage, before the layout is fixed, on the baked (decimated) points, with
//! the bake's own evaluator (`vat-skin`'s `Rig`). Must not touch: the texels, the
//! description's other parts, the output folder.

use glam::{Vec3, Vec3A};
use rayon::prelude::*;
use vat_model::{Clip, ClipRows, Model};
use vat_skin::Rig;

/// The highest rate `--fps auto` gives a clip, and the rate of the true pose it holds
/// the rows to (the description's `settings.fps` for such a bake).
pub const AUTO_CEILING: f32 = 60.0;

/// `--fps-tolerance` when none is given, as a fraction of the animation bounds'
/// diagonal: the off-row error a fixed 30 rows per second already has on the median
/// moving clip of the bundled fixtures and the generated models (docs/PERFORMANCE.md,
/// "Rows chosen by error"), so the typical clip plays between rows as it did at the
/// default rate, a faster one better, and a slow or held one on fewer rows.
pub const DEFAULT_FPS_TOLERANCE: f32 = 3.7e-3;

/// The truth of every clip is kept in memory below this many bytes; past it, each
/// clip's is evaluated twice (once for the bounds, once for its search).
const TRUTH_BUDGET: usize = 256 << 20;

/// How many earlier failures a candidate is tried on first.
const REMEMBERED: usize = 4;

/// `--fps`: a fixed rate for every clip, or `auto`: each clip's own, chosen by error.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Fps {
    /// Rows per second, every clip.
    Rate(f32),
    /// Each clip at the lowest rate within `--fps-tolerance`.
    Auto,
}

impl std::str::FromStr for Fps {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, String> {
        if s.eq_ignore_ascii_case("auto") {
            return Ok(Fps::Auto);
        }
        s.trim()
            .parse::<f32>()
            .map(Fps::Rate)
            .map_err(|_| format!("\"{s}\" is not a rate: give rows per second (e.g. 30) or \"auto\""))
    }
}

impl std::fmt::Display for Fps {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Fps::Rate(rate) => write!(f, "{rate}"),
            Fps::Auto => f.write_str("auto"),
        }
    }
}

/// One clip's choice: the rate given to the row rule and the largest off-row distance
/// it keeps, in model units.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) struct Chosen {
    pub(crate) fps: f32,
    pub(crate) max_error: f32,
}

/// Every point's position at `time` of `clip`, into `out`.
fn positions(rig: &Rig, clip: &Clip, time: f32, out: &mut [Vec3A]) {
    let points = out.len();
    rig.positions(&rig.pose(Some(clip), time), 0..points, out);
}

/// The times the true pose of a clip of `duration` s is taken at: every `1 / AUTO_CEILING`
/// s from 0, and the end.
pub(crate) fn truth_times(duration: f32) -> Vec<f32> {
    let step = 1.0 / f64::from(AUTO_CEILING);
    let count = (f64::from(duration) / step - 1e-6).ceil().max(0.0) as u32;
    (0..=count).map(|j| (f64::from(j) * step).min(f64::from(duration)) as f32).collect()
}

/// The true pose of `clip` at each of `times`, every point, one after another.
fn truth(rig: &Rig, clip: &Clip, times: &[f32]) -> Vec<Vec3> {
    let points = rig.model().points.len();
    let mut out = vec![Vec3::ZERO; times.len() * points];
    out.par_chunks_mut(points.max(1)).zip(times).for_each_init(
        || vec![Vec3A::ZERO; points],
        |scratch, (chunk, &time)| {
            positions(rig, clip, time, scratch);
            for (o, p) in chunk.iter_mut().zip(scratch.iter()) {
                *o = Vec3::from(*p);
            }
        },
    );
    out
}

/// A candidate's rows, evaluated as they are needed.
struct Rows<'a> {
    rig: &'a Rig<'a>,
    clip: &'a Clip,
    rows: ClipRows,
    evaluated: std::collections::BTreeMap<u32, Vec<Vec3A>>,
}

impl Rows<'_> {
    fn ensure(&mut self, wanted: &[u32]) {
        let points = self.rig.model().points.len();
        let missing: Vec<u32> = wanted.iter().copied().filter(|k| !self.evaluated.contains_key(k)).collect();
        let made: Vec<(u32, Vec<Vec3A>)> = missing
            .par_iter()
            .map(|&k| {
                let mut row = vec![Vec3A::ZERO; points];
                positions(self.rig, self.clip, self.rows.time(k), &mut row);
                (k, row)
            })
            .collect();
        self.evaluated.extend(made);
    }

    /// The row segment `(k, a)` time `t` falls in: between rows k and k + 1, at fraction a.
    fn segment(&self, t: f32) -> (u32, f32) {
        if self.rows.rows < 2 {
            return (0, 0.0);
        }
        let at = (f64::from(t) * f64::from(self.rows.rows - 1) / f64::from(self.rows.duration))
            .clamp(0.0, f64::from(self.rows.rows - 1));
        let k = (at.floor() as u32).min(self.rows.rows - 2);
        (k, (at - f64::from(k)) as f32)
    }

    /// The largest distance, over every point, between the interpolated rows and the
    /// truth at sample `j` (at `time`), the rows it needs evaluated.
    fn error(&self, truth: &[Vec3], time: f32) -> f32 {
        let (k, a) = self.segment(time);
        let first = &self.evaluated[&k];
        let second = self.evaluated.get(&(k + 1)).unwrap_or(first);
        let mut worst = 0.0f32;
        for ((p, q), t) in first.iter().zip(second).zip(truth) {
            worst = worst.max(p.lerp(*q, a).distance(Vec3A::from(*t)));
        }
        worst
    }
}

/// The worst sample of `samples` (index, error), the lowest index on a tie.
fn worst(rows: &Rows, truth: &[Vec3], times: &[f32], samples: &[usize]) -> (usize, f32) {
    let points = rows.rig.model().points.len();
    samples
        .par_iter()
        .map(|&j| (j, rows.error(&truth[j * points..(j + 1) * points], times[j])))
        .reduce(|| (usize::MAX, -1.0), |a, b| if b.1 > a.1 || (b.1 == a.1 && b.0 < a.0) { b } else { a })
}

/// The lowest whole rate for `clip` within `tolerance` (model units) of `truth`.
fn search(rig: &Rig, clip: &Clip, truth: &[Vec3], times: &[f32], tolerance: f32, max_frames: Option<u32>) -> Chosen {
    let duration = clip.duration();
    let every: Vec<usize> = (0..times.len()).collect();
    let mut failures: Vec<usize> = Vec::new();
    let mut last = None;
    for fps in 1..=AUTO_CEILING as u32 {
        let fps = fps as f32;
        let rows = ClipRows::new(duration, fps, max_frames);
        if last == Some(rows.rows) {
            continue; // the same rows as the rate before (a cap, or a rounding): the same answer
        }
        last = Some(rows.rows);
        let mut candidate = Rows { rig, clip, rows, evaluated: Default::default() };
        // Where an earlier candidate failed first: a rate that fails does so there, mostly.
        let mut tried: Vec<usize> = Vec::new();
        for &j in failures.iter().rev().take(REMEMBERED) {
            let (k, _) = candidate.segment(times[j]);
            let (from, to) = (candidate.rows.time(k), candidate.rows.time((k + 1).min(rows.rows - 1)));
            tried.extend((0..times.len()).filter(|&i| times[i] >= from && times[i] <= to));
        }
        tried.sort_unstable();
        tried.dedup();
        // The ceiling's rows are measured in full: they are the answer when nothing is within.
        let top = rows.rows == ClipRows::new(duration, AUTO_CEILING, max_frames).rows;
        if !tried.is_empty() && !top {
            let segments: Vec<u32> =
                tried.iter().flat_map(|&j| candidate.segment(times[j]).0..candidate.segment(times[j]).0 + 2).collect();
            candidate.ensure(&segments);
            let (j, error) = worst(&candidate, truth, times, &tried);
            if error > tolerance {
                failures.push(j);
                continue;
            }
        }
        candidate.ensure(&(0..rows.rows).collect::<Vec<_>>());
        let (j, error) = worst(&candidate, truth, times, &every);
        if error <= tolerance || top {
            // Within, or not within even at the ceiling's rows: those, and their error.
            return Chosen { fps, max_error: error };
        }
        failures.push(j);
    }
    // Not reached: the ceiling's rows return above.
    Chosen { fps: AUTO_CEILING, max_error: 0.0 }
}

/// `--fps auto`: each clip's rate and the largest off-row distance it keeps, `tolerance`
/// a fraction of the diagonal of the box around every point at every truth time of
/// every clip. A clip of no duration (one pose) is at [`AUTO_CEILING`], as a fixed rate
/// puts it at that rate: one row.
pub(crate) fn choose(model: &Model, clips: &[&Clip], tolerance: f32, max_frames: Option<u32>) -> Vec<Chosen> {
    let rig = Rig::new(model);
    let points = model.points.len();
    let times: Vec<Vec<f32>> =
        clips.iter().map(|c| if c.duration() > 0.0 { truth_times(c.duration()) } else { Vec::new() }).collect();
    let samples: usize = times.iter().map(Vec::len).sum();
    let keep = samples.saturating_mul(points).saturating_mul(std::mem::size_of::<Vec3>()) <= TRUTH_BUDGET;
    let mut kept: Vec<Option<Vec<Vec3>>> = Vec::with_capacity(clips.len());
    let (mut lo, mut hi) = (Vec3::INFINITY, Vec3::NEG_INFINITY);
    for (clip, times) in clips.iter().zip(&times) {
        let poses = truth(&rig, clip, times);
        (lo, hi) = poses.iter().fold((lo, hi), |(lo, hi), &p| (lo.min(p), hi.max(p)));
        kept.push(keep.then_some(poses));
    }
    let diagonal = if lo.is_finite() && hi.is_finite() { lo.distance(hi) } else { 0.0 };
    let distance = tolerance * diagonal;
    clips
        .iter()
        .zip(&times)
        .zip(kept)
        .map(|((clip, times), kept)| {
            if times.is_empty() {
                return Chosen { fps: AUTO_CEILING, max_error: 0.0 };
            }
            let truth = kept.unwrap_or_else(|| truth(&rig, clip, times));
            search(&rig, clip, &truth, times, distance, max_frames)
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fps_reads_a_rate_or_auto() {
        assert_eq!("auto".parse::<Fps>(), Ok(Fps::Auto));
        assert_eq!("AUTO".parse::<Fps>(), Ok(Fps::Auto));
        assert_eq!("24".parse::<Fps>(), Ok(Fps::Rate(24.0)));
        assert_eq!(
            "fast".parse::<Fps>(),
            Err("\"fast\" is not a rate: give rows per second (e.g. 30) or \"auto\"".to_string())
        );
        assert_eq!((Fps::Auto.to_string(), Fps::Rate(12.5).to_string()), ("auto".to_string(), "12.5".to_string()));
    }

    #[test]
    fn truth_is_every_sixtieth_of_a_second_and_the_end() {
        assert_eq!(truth_times(0.05), vec![0.0, 1.0 / 60.0, 2.0 / 60.0, 0.05]);
        assert_eq!(truth_times(0.05).len(), 4);
        assert_eq!(truth_times(1.0).len(), 61);
        assert_eq!(*truth_times(1.0).last().unwrap(), 1.0);
    }
}
