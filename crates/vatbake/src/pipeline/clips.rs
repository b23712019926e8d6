//! Clips and slots: the clips `--clips` picks (every clip by default), the slot each
//! fills from the alias table, and each clip's rows with the texture's layout.
//!
//! Owns: which clips are baked and in what order, their slots, their rows (`--fps`,
//! `--max-frames`; `--fps auto`'s search is `features/rates.rs`), the layout and the caps refused from it before anything is
//! evaluated (the texel cap, `--format vat3`'s size), and what a bone bake refuses
//! of the clips (morph-target animation). Must not touch: poses, texels, the output
//! folder.

use std::path::Path;

use anyhow::Result;
use vat_model::{Channel, Clip, ClipRows, Finding, Interpolation, Layout, Model, Property};

use crate::description;
use crate::error::Error;
use crate::settings::BakeSettings;
use crate::slots;

/// Whether a `weights` channel ever sets a weight other than its default (`defaults`:
/// the node's `weights`, else its mesh's; a missing one is 0), or, for a cubic spline,
/// has a tangent other than 0. Exact comparison: any other value moves points.
fn changes_a_weight(channel: &Channel, defaults: &[f32]) -> bool {
    let cubic = channel.interpolation == Interpolation::CubicSpline;
    let slots = if cubic { 3 } else { 1 };
    let width = channel.values.len() / (channel.times.len() * slots).max(1);
    if width == 0 {
        return !channel.values.is_empty();
    }
    channel.values.chunks(width).enumerate().any(|(slot, key)| {
        let tangent = cubic && slot % 3 != 1;
        key.iter().enumerate().any(|(k, &v)| v != if tangent { 0.0 } else { defaults.get(k).copied().unwrap_or(0.0) })
    })
}

/// The clips `--clips` picks (all by default) and the slot each fills: the opening both
/// bakes (points and bones) share.
pub(crate) fn clips_and_slots<'a>(
    model: &'a Model,
    settings: &BakeSettings,
    warnings: &mut Vec<Finding>,
) -> Result<(Vec<&'a Clip>, Vec<Option<String>>)> {
    let clips = pick_clips(model, &settings.clips, &settings.input)?;
    let slots =
        slots::assign(&clips, &settings.aliases, settings.clips.is_some(), settings.strict, &settings.input, warnings)?;
    Ok((clips, slots))
}

pub(crate) fn pick_clips<'a>(model: &'a Model, wanted: &Option<Vec<String>>, file: &Path) -> Result<Vec<&'a Clip>> {
    let Some(names) = wanted else { return Ok(model.clips.iter().collect()) };
    let mut picked = Vec::new();
    for name in names {
        match model.clips.iter().find(|c| &c.display_name() == name) {
            Some(c) => picked.push(c),
            None => {
                let available: Vec<String> = model.clips.iter().map(|c| format!("\"{}\"", c.display_name())).collect();
                return Err(Error::usage(format!(
                    "{}: has no clip named \"{name}\"; its clips are {}",
                    file.display(),
                    available.join(", ")
                ))
                .into());
            }
        }
    }
    Ok(picked)
}

/// Most texels a bake may have (width × height, about points × rows): 2^27, the
/// 1 GiB of RGBA16 texels `vat-ktx2` writes and every reader would have to
/// allocate (the bake itself streams them a few MiB at a time). See docs/CLI.md.
pub const MAX_TEXELS: u64 = vat_ktx2::MAX_IMAGE_BYTES / 8;

/// Each clip's rows, and with `--fps auto` the rate each was given.
pub(crate) struct ClipRates {
    /// Each clip's rows, in order.
    pub(crate) rows: Vec<ClipRows>,
    /// `--fps auto`: each clip's record (`clips[i].auto_rate`); `None` at a fixed rate.
    pub(crate) auto: Vec<Option<description::AutoRate>>,
    /// Milliseconds the search took (0 at a fixed rate).
    pub(crate) ms: f64,
}

/// Each clip's rows and the texture's layout, known before anything is evaluated:
/// a texture past the cap is refused here.
pub(crate) fn texture_layout(model: &Model, clips: &[&Clip], settings: &BakeSettings) -> Result<(ClipRates, Layout)> {
    let rates = clip_rows(model, clips, settings);
    let clip_rows = &rates.rows;
    let total_rows: u64 = clip_rows.iter().map(|r| u64::from(r.rows)).sum();
    let layout = Layout::new(model.points.len(), total_rows as usize, settings.max_width as usize);
    let texels = layout.width as u128 * layout.height as u128;
    if texels > u128::from(MAX_TEXELS) {
        return Err(Error::input(format!(
            "{}: the texture would have {texels} texels ({} points × {total_rows} rows), \
             more than the limit of {MAX_TEXELS} (1 GiB of RGBA16 texels); \
             lower --points, --max-frames or --fps, or bake fewer --clips",
            settings.input.display(),
            model.points.len(),
        ))
        .into());
    }
    Ok((rates, layout))
}

/// Each clip's rows: its duration sampled at `--fps`, at most `--max-frames`; with
/// `--fps auto`, at the rate chosen for it over `model`'s points.
pub(crate) fn clip_rows(model: &Model, clips: &[&Clip], settings: &BakeSettings) -> ClipRates {
    let Some(tolerance) = settings.fps_tolerance else {
        let rows = clips.iter().map(|c| ClipRows::new(c.duration(), settings.fps, settings.max_frames)).collect();
        return ClipRates { rows, auto: vec![None; clips.len()], ms: 0.0 };
    };
    let started = std::time::Instant::now();
    let chosen = crate::features::rates::choose(model, clips, tolerance, settings.max_frames);
    let rows =
        clips.iter().zip(&chosen).map(|(c, r)| ClipRows::new(c.duration(), r.fps, settings.max_frames)).collect();
    let auto = chosen.iter().map(|r| Some(description::AutoRate { fps: r.fps, max_error: r.max_error })).collect();
    ClipRates { rows, auto, ms: crate::pipeline::ms(started) }
}

/// A layout past the format's own limits (`--format vat3`: the importers' cap) is refused,
/// before anything is evaluated and before the output folder is made.
pub(crate) fn format_fits(layout: &Layout, settings: &BakeSettings) -> Result<()> {
    settings
        .format
        .fits(layout.points, layout.width, layout.bands, layout.rows)
        .map_err(|e| Error::usage(e.to_string()))?;
    Ok(())
}

/// A bone bake refuses clips that change morph target weights: per-point motion
/// that no joint matrix carries (`--mode vertices` bakes it). A `weights` channel
/// whose every key holds the node's default weights moves no point and is no reason
/// to refuse (exporters write such channels for every mesh with shape keys).
pub(crate) fn refuse_morph_animation(model: &Model, clips: &[&Clip], settings: &BakeSettings) -> Result<()> {
    for clip in clips {
        let morphing = clip.channels.iter().find(|channel| {
            channel.property == Property::Weights
                && model.parts.iter().any(|part| part.node == channel.node && !part.morph_targets.is_empty())
                && changes_a_weight(channel, model.nodes.get(channel.node).map_or(&[][..], |n| &n.morph_weights))
        });
        if let Some(channel) = morphing {
            let node = model.nodes.get(channel.node).and_then(|n| n.name.clone());
            let node =
                node.map_or(format!("node {}", channel.node), |name| format!("node {} \"{name}\"", channel.node));
            return Err(Error::usage(format!(
                "{}: clip \"{}\" animates the morph targets of {node}, which a bone bake cannot carry \
                 (its texture holds joint matrices, and morph targets move points one by one); \
                 bake this model with --mode vertices",
                settings.input.display(),
                clip.display_name()
            ))
            .into());
        }
    }
    Ok(())
}
