//! Clips for a generated model: the source's clips, then time-scaled copies of
//! them until a clip count and a total row count are met.

use anyhow::{bail, Result};
use vat_model::{Clip, ClipRows, Interpolation};

/// How many clips, and how many rows they take together at `fps`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct ClipPlan {
    /// Number of clips wanted.
    pub clips: usize,
    /// Total rows of all clips.
    pub rows: u32,
    /// Sampling rate, rows per second.
    pub fps: f32,
}

/// Rows a clip of `duration` seconds takes at `fps`: the bake's own rule,
/// [`ClipRows`], with no `--max-frames` cap.
pub fn clip_rows(duration: f32, fps: f32) -> u32 {
    ClipRows::new(duration, fps, None).rows
}

/// The source clips (the first `plan.clips` of them) followed by time-scaled
/// copies, so that there are `plan.clips` clips whose rows sum to `plan.rows`.
/// The copies cycle through the animated source clips and share the remaining
/// rows evenly; copy `i` of clip "Walk" lasting 0.9 s is named `Walk@0.900s`.
pub fn plan_clips(source: &[Clip], plan: &ClipPlan) -> Result<Vec<Clip>> {
    let mut clips: Vec<Clip> = source.iter().take(plan.clips).cloned().collect();
    let used: u32 = clips.iter().map(|c| clip_rows(c.duration(), plan.fps)).sum();
    let extra = plan.clips - clips.len();
    if used > plan.rows || (extra == 0 && used != plan.rows) {
        bail!(
            "the first {} source clips take {used} rows at {} fps; the plan wants {} rows in {} clips",
            clips.len(),
            plan.fps,
            plan.rows,
            plan.clips
        );
    }
    if extra == 0 {
        return Ok(clips);
    }
    let animated: Vec<&Clip> = source.iter().filter(|c| c.duration() > 0.0).collect();
    let remaining = plan.rows - used;
    if animated.is_empty() || remaining < 2 * extra as u32 {
        bail!(
            "{remaining} rows are left for {extra} more clips (at least 2 rows each, made from an animated source clip)"
        );
    }
    for i in 0..extra {
        let rows = remaining / extra as u32 + u32::from((i as u32) < remaining % extra as u32);
        let base = animated[i % animated.len()];
        let duration = (rows - 1) as f32 / plan.fps;
        let scaled = time_scaled(base, duration / base.duration(), &format!("{}@{duration:.3}s", base.display_name()));
        let got = clip_rows(scaled.duration(), plan.fps);
        if got != rows {
            bail!("scaling \"{}\" to {duration} s gives {got} rows, not {rows}", base.display_name());
        }
        clips.push(scaled);
    }
    Ok(clips)
}

/// A copy of `clip` running `scale` times as long. Cubic-spline tangents are per
/// second, so they shrink by the same factor to keep the curve's shape.
pub fn time_scaled(clip: &Clip, scale: f32, name: &str) -> Clip {
    let mut out = clip.clone();
    out.name = Some(name.to_string());
    for channel in &mut out.channels {
        for t in &mut channel.times {
            *t *= scale;
        }
        if channel.interpolation == Interpolation::CubicSpline {
            let keys = channel.times.len();
            let width = channel.values.len() / (keys * 3).max(1);
            for (i, v) in channel.values.iter_mut().enumerate() {
                // Each key holds in-tangent, value, out-tangent, `width` floats each.
                if (i / width) % 3 != 1 {
                    *v /= scale;
                }
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use vat_model::{Channel, Property};

    fn clip(name: &str, duration: f32) -> Clip {
        Clip {
            name: Some(name.to_string()),
            source_index: 0,
            merged_from: Vec::new(),
            file: None,
            channels: vec![Channel {
                node: 0,
                property: Property::Translation,
                interpolation: Interpolation::Linear,
                times: vec![0.0, duration],
                values: vec![0.0; 6],
            }],
        }
    }

    #[test]
    fn rows_follow_the_bake_rule() {
        // The Fox's clips: Survey 3.4167 s, Walk 0.7083 s, Run 1.1583 s.
        assert_eq!(clip_rows(3.416_666_7, 30.0), 104);
        assert_eq!(clip_rows(0.708_333_3, 30.0), 22);
        assert_eq!(clip_rows(1.158_333_3, 30.0), 36);
        assert_eq!(clip_rows(0.0, 30.0), 1);
    }

    #[test]
    fn extra_clips_fill_the_rows() {
        let source = [clip("Survey", 3.416_666_7), clip("Walk", 0.708_333_3), clip("Run", 1.158_333_3)];
        let clips = plan_clips(&source, &ClipPlan { clips: 7, rows: 268, fps: 30.0 }).unwrap();
        let rows: Vec<u32> = clips.iter().map(|c| clip_rows(c.duration(), 30.0)).collect();
        assert_eq!(rows, [104, 22, 36, 27, 27, 26, 26]);
        assert_eq!(clips[3].display_name(), "Survey@0.867s");
        assert_eq!(clips[6].display_name(), "Survey@0.833s");
    }

    #[test]
    fn cubic_tangents_scale_inversely() {
        let mut c = clip("C", 1.0);
        c.channels[0].interpolation = Interpolation::CubicSpline;
        c.channels[0].values = (0..18).map(|v| v as f32).collect();
        let s = time_scaled(&c, 2.0, "C2");
        assert_eq!(s.channels[0].times, [0.0, 2.0]);
        assert_eq!(&s.channels[0].values[0..9], &[0.0, 0.5, 1.0, 3.0, 4.0, 5.0, 3.0, 3.5, 4.0]);
    }
}
