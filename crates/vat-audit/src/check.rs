//! The audit's checks: plain data about one baked unit in, findings out. The caller
//! reads the files (the description, the source's JSON, the texture's header); nothing
//! here touches the disk.

use serde::Serialize;

use crate::assign::{assign, Verdict};
use crate::table::AliasTable;

/// A duration agrees with the source within this many seconds, or this fraction of
/// it, whichever is larger: far below one row at any useful rate, far above f32 noise.
pub const DURATION_TOLERANCE_S: f64 = 1e-3;
/// The relative tolerance that goes with [`DURATION_TOLERANCE_S`].
pub const DURATION_TOLERANCE_FRACTION: f64 = 1e-4;

/// What a description file says about one bake (the fields the audit needs).
#[derive(Clone, Debug, PartialEq)]
pub struct Baked {
    /// SHA-256 of the source file's bytes at bake time, lowercase hex.
    pub source_sha256: String,
    /// `settings.clips`: the clips the bake was asked for, or `None` for all.
    pub clips_asked: Option<Vec<String>>,
    /// Points of the baked mesh: one texture column each.
    pub points: u32,
    /// Rows of all clips (one band's height).
    pub rows: u32,
    /// The texture as the description records it.
    pub texture: BakedTexture,
    /// The baked clips, in row order.
    pub clips: Vec<BakedClip>,
}

/// The texture fields of a description file.
#[derive(Clone, Debug, PartialEq)]
pub struct BakedTexture {
    /// File name, relative to the description.
    pub file: String,
    /// "ktx2" or "png".
    pub container: String,
    /// `vkFormat` of the texels (91: RGBA16 UNORM).
    pub vk_format: u32,
    /// "zstd" or "none".
    pub supercompression: String,
    /// Width in texels.
    pub width: u32,
    /// Height in texels.
    pub height: u32,
    /// Bands the points are wrapped into.
    pub bands: u32,
    /// File size in bytes.
    pub bytes: u64,
}

/// One clip entry of a description file.
#[derive(Clone, Debug, PartialEq)]
pub struct BakedClip {
    /// The clip's baked name.
    pub name: String,
    /// Index of the animation in the source file.
    pub source_index: u32,
    /// The game slot the clip fills, if any.
    pub slot: Option<String>,
    /// First row of the clip within a band.
    pub row: u32,
    /// Number of rows.
    pub rows: u32,
    /// Seconds from the first row to the last.
    pub duration: f64,
    /// Rows per second.
    pub rate: f64,
}

/// The source model's clips, as its glTF JSON gives them, after the bake's merging
/// of takes split per node (its `merge_clips` setting) is applied.
#[derive(Clone, Debug, PartialEq)]
pub struct SourceClips {
    /// SHA-256 of the source file's bytes, lowercase hex.
    pub sha256: String,
    /// The clips, in source order (merged takes count once).
    pub clips: Vec<SourceClip>,
}

/// One clip of the source model.
#[derive(Clone, Debug, PartialEq)]
pub struct SourceClip {
    /// `None` for an unnamed animation (the bake calls it `animation_<index>`).
    pub name: Option<String>,
    /// Index of the animation in the source file (the first one, for a merged take).
    pub source_index: usize,
    /// Largest key time over the clip's channels (the input accessors' `max`), or
    /// `None` when an accessor has no `max` to read.
    pub duration: Option<f64>,
}

impl SourceClip {
    /// The name the bake gives the clip.
    pub fn display_name(&self) -> String {
        match &self.name {
            Some(n) if !n.is_empty() => n.clone(),
            _ => format!("animation_{}", self.source_index),
        }
    }
}

/// What the texture file turned out to be.
#[derive(Clone, Debug, PartialEq)]
pub enum TextureFacts {
    /// No file at the path the description names.
    Missing,
    /// The file is there but its header cannot be read; the reason.
    Unreadable(String),
    /// A KTX 2.0 file's header.
    Ktx2 {
        /// `vkFormat`.
        vk_format: u32,
        /// Width in texels.
        width: u32,
        /// Height in texels.
        height: u32,
        /// `supercompressionScheme` (0 none, 2 Zstandard).
        supercompression_scheme: u32,
        /// File size in bytes.
        bytes: u64,
    },
    /// A PNG file's header.
    Png {
        /// Width in pixels.
        width: u32,
        /// Height in pixels.
        height: u32,
        /// Bits per channel.
        bit_depth: u8,
        /// PNG colour type (6: RGBA).
        colour_type: u8,
        /// File size in bytes.
        bytes: u64,
    },
}

/// The kinds of finding, as they appear in JSON (`snake_case`) and text (spaces).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Kind {
    /// The description file cannot be read or is not a vatbake description.
    UnreadableDescription,
    /// The source model named by the description was not found.
    SourceNotFound,
    /// The source model was found but its JSON cannot be read.
    SourceUnreadable,
    /// The source's SHA-256 differs from the one recorded at bake time.
    StaleSource,
    /// A baked clip the source no longer has.
    MissingClip,
    /// A source clip missing from a bake that took every clip.
    UnbakedClip,
    /// A slot the description leaves empty, though the source has a clip the table puts in it.
    EmptySlot,
    /// A slot left empty, and an unassigned source clip that looks as if it belongs to it.
    PlausibleMiss,
    /// A baked clip in a slot the table does not give it.
    WrongSlot,
    /// No clip of the unit has a slot: the game finds nothing to play.
    NoSlots,
    /// A clip's duration differs from the source clip's.
    DurationMismatch,
    /// A single-row clip whose source clip moves.
    FrozenClip,
    /// A clip's rows, rate and duration disagree with each other.
    InconsistentClip,
    /// The description's rows, clips, bands and texture size disagree with each other.
    InconsistentLayout,
    /// The texture named by the description is not there.
    TextureMissing,
    /// The texture is there but its header cannot be read.
    TextureUnreadable,
    /// The texture's header or size differs from the description.
    TextureMismatch,
    /// The rest-pose mesh named by the description is not there.
    MeshMissing,
}

impl Kind {
    /// Every kind, in the order the audit checks for them.
    pub const ALL: [Kind; 18] = [
        Kind::UnreadableDescription,
        Kind::SourceNotFound,
        Kind::SourceUnreadable,
        Kind::StaleSource,
        Kind::MissingClip,
        Kind::UnbakedClip,
        Kind::EmptySlot,
        Kind::PlausibleMiss,
        Kind::WrongSlot,
        Kind::NoSlots,
        Kind::DurationMismatch,
        Kind::FrozenClip,
        Kind::InconsistentClip,
        Kind::InconsistentLayout,
        Kind::TextureMissing,
        Kind::TextureUnreadable,
        Kind::TextureMismatch,
        Kind::MeshMissing,
    ];

    /// The kind's name, as in JSON: "stale_source".
    pub fn name(self) -> &'static str {
        match self {
            Kind::UnreadableDescription => "unreadable_description",
            Kind::SourceNotFound => "source_not_found",
            Kind::SourceUnreadable => "source_unreadable",
            Kind::StaleSource => "stale_source",
            Kind::MissingClip => "missing_clip",
            Kind::UnbakedClip => "unbaked_clip",
            Kind::EmptySlot => "empty_slot",
            Kind::PlausibleMiss => "plausible_miss",
            Kind::WrongSlot => "wrong_slot",
            Kind::NoSlots => "no_slots",
            Kind::DurationMismatch => "duration_mismatch",
            Kind::FrozenClip => "frozen_clip",
            Kind::InconsistentClip => "inconsistent_clip",
            Kind::InconsistentLayout => "inconsistent_layout",
            Kind::TextureMissing => "texture_missing",
            Kind::TextureUnreadable => "texture_unreadable",
            Kind::TextureMismatch => "texture_mismatch",
            Kind::MeshMissing => "mesh_missing",
        }
    }

    /// The kind in text output: "stale source".
    pub fn label(self) -> String {
        self.name().replace('_', " ")
    }
}

/// One disagreement, and what to do about it.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Finding {
    /// What sort of disagreement it is.
    pub kind: Kind,
    /// The clip concerned, by its baked or source name.
    pub clip: Option<String>,
    /// The slot concerned.
    pub slot: Option<String>,
    /// What is wrong, in one sentence.
    pub message: String,
    /// What to do.
    pub advice: String,
}

impl Finding {
    /// A finding about no particular clip or slot.
    pub fn new(kind: Kind, message: impl Into<String>, advice: impl Into<String>) -> Finding {
        Finding { kind, clip: None, slot: None, message: message.into(), advice: advice.into() }
    }
    /// The same finding, about `clip`.
    pub fn clip(mut self, clip: impl Into<String>) -> Finding {
        self.clip = Some(clip.into());
        self
    }
    /// The same finding, about `slot`.
    pub fn slot(mut self, slot: impl Into<String>) -> Finding {
        self.slot = Some(slot.into());
        self
    }
}

const REBAKE: &str = "re-bake the unit";

fn short_hash(hash: &str) -> &str {
    hash.get(..12).unwrap_or(hash)
}

/// The description agreeing with itself: each clip's rows, rate and duration, and the
/// rows, clips, bands and texture size together.
pub fn check_description(baked: &Baked) -> Vec<Finding> {
    let mut findings = Vec::new();
    let hand_edited =
        "the description disagrees with itself (edited by hand, or written by a broken tool): re-bake the unit";
    for clip in &baked.clips {
        let problem = if clip.rows == 0 {
            Some("has 0 rows".to_string())
        } else if !(clip.duration > 0.0 && clip.duration.is_finite()) {
            Some(format!("has duration {} s; it must be greater than 0", clip.duration))
        } else if !(clip.rate > 0.0 && clip.rate.is_finite()) {
            Some(format!("has rate {} rows/s; it must be greater than 0", clip.rate))
        } else if clip.rows > 1 {
            // Row k is at time k / rate, and the last row is at the clip's end.
            let spanned = (clip.rows - 1) as f64 / clip.rate;
            let tolerance = 1e-4 * clip.duration + 1e-5;
            ((spanned - clip.duration).abs() > tolerance).then(|| {
                format!(
                    "has {} rows at {:.4} rows/s, which span {:.4} s, but its duration is {:.4} s",
                    clip.rows, clip.rate, spanned, clip.duration
                )
            })
        } else {
            None
        };
        if let Some(problem) = problem {
            findings.push(
                Finding::new(Kind::InconsistentClip, format!("clip \"{}\" {problem}", clip.name), hand_edited)
                    .clip(&clip.name),
            );
        }
    }

    let mut layout = Vec::new();
    let mut expected_row = 0u64;
    for clip in &baked.clips {
        if clip.row as u64 != expected_row {
            layout.push(format!(
                "clip \"{}\" starts at row {}, where row {} was expected",
                clip.name, clip.row, expected_row
            ));
        }
        expected_row = clip.row as u64 + clip.rows as u64;
    }
    if expected_row != baked.rows as u64 {
        layout.push(format!("the clips end at row {expected_row}, but rows is {}", baked.rows));
    }
    let t = &baked.texture;
    if t.height as u64 != t.bands as u64 * baked.rows as u64 {
        layout.push(format!("texture height {} is not bands × rows = {} × {}", t.height, t.bands, baked.rows));
    }
    let columns = t.width as u64 * t.bands as u64;
    if columns < baked.points as u64 || (t.bands > 1 && columns - (t.width as u64) >= baked.points as u64) {
        layout.push(format!("{} points do not fill {} band(s) of {} columns", baked.points, t.bands, t.width));
    }
    if !layout.is_empty() {
        findings.push(Finding::new(Kind::InconsistentLayout, layout.join("; "), hand_edited));
    }
    findings
}

/// The texture file against what the description says of it.
///
/// ```
/// use vat_audit::{check_texture, Baked, BakedTexture, Kind, TextureFacts};
/// let texture = BakedTexture {
///     file: "unit.vat.ktx2".into(),
///     container: "ktx2".into(),
///     vk_format: 91,
///     supercompression: "zstd".into(),
///     width: 2,
///     height: 1,
///     bands: 1,
///     bytes: 300,
/// };
/// let baked = Baked { source_sha256: String::new(), clips_asked: None, points: 2, rows: 1, texture, clips: vec![] };
/// let found = TextureFacts::Ktx2 { vk_format: 91, width: 2, height: 1, supercompression_scheme: 2, bytes: 300 };
/// assert!(check_texture(&baked, &found).is_empty());
/// assert_eq!(check_texture(&baked, &TextureFacts::Missing)[0].kind, Kind::TextureMissing);
/// ```
pub fn check_texture(baked: &Baked, facts: &TextureFacts) -> Vec<Finding> {
    let t = &baked.texture;
    let rebake =
        "the texture does not belong to this description (replaced, or left from another bake): re-bake the unit";
    let mut differences = Vec::new();
    fn differs(differences: &mut Vec<String>, what: &str, described: impl Into<u64>, found: impl Into<u64>) {
        let (described, found) = (described.into(), found.into());
        if described != found {
            differences.push(format!("{what} {found} (the description says {described})"));
        }
    }
    match facts {
        TextureFacts::Missing => {
            return vec![Finding::new(
                Kind::TextureMissing,
                format!("the texture {} is not beside the description", t.file),
                "ship the texture with its description, or re-bake the unit",
            )]
        }
        TextureFacts::Unreadable(why) => {
            return vec![Finding::new(
                Kind::TextureUnreadable,
                format!("the texture {} cannot be read: {why}", t.file),
                rebake,
            )]
        }
        TextureFacts::Ktx2 { vk_format, width, height, supercompression_scheme, bytes } => {
            if t.container != "ktx2" {
                differences.push(format!("container ktx2 (the description says {})", t.container));
            }
            differs(&mut differences, "width", t.width, *width);
            differs(&mut differences, "height", t.height, *height);
            differs(&mut differences, "vkFormat", t.vk_format, *vk_format);
            let scheme = match *supercompression_scheme {
                0 => "none".to_string(),
                2 => "zstd".to_string(),
                other => format!("scheme {other}"),
            };
            if scheme != t.supercompression {
                differences.push(format!("supercompression {scheme} (the description says {})", t.supercompression));
            }
            differs(&mut differences, "size in bytes", t.bytes, *bytes);
        }
        TextureFacts::Png { width, height, bit_depth, colour_type, bytes } => {
            if t.container != "png" {
                differences.push(format!("container png (the description says {})", t.container));
            }
            differs(&mut differences, "width", t.width, *width);
            differs(&mut differences, "height", t.height, *height);
            if (*bit_depth, *colour_type) != (16, 6) {
                differences
                    .push(format!("PNG bit depth {bit_depth}, colour type {colour_type} (16-bit RGBA is 16, 6)"));
            }
            differs(&mut differences, "size in bytes", t.bytes, *bytes);
        }
    }
    if differences.is_empty() {
        return Vec::new();
    }
    vec![Finding::new(Kind::TextureMismatch, format!("the texture {} has {}", t.file, differences.join(", ")), rebake)]
}

/// The bake against its source model's clips, and the slots against the alias table.
pub fn check_source(baked: &Baked, source: &SourceClips, table: &AliasTable) -> Vec<Finding> {
    let mut findings = Vec::new();
    if !source.sha256.eq_ignore_ascii_case(&baked.source_sha256) {
        findings.push(Finding::new(
            Kind::StaleSource,
            format!(
                "the source changed since the bake (sha256 {}… then, {}… now)",
                short_hash(&baked.source_sha256),
                short_hash(&source.sha256)
            ),
            REBAKE,
        ));
    }

    let source_names: Vec<String> = source.clips.iter().map(SourceClip::display_name).collect();
    // The source clip at a baked clip's source index (merged takes make the two lists differ).
    let at_index = |clip: &BakedClip| source.clips.iter().position(|c| c.source_index == clip.source_index as usize);
    // Each baked clip's source clip: by name (an unnamed clip's name carries its index).
    let matched: Vec<Option<usize>> = baked
        .clips
        .iter()
        .map(|clip| match at_index(clip) {
            Some(at) if source_names[at] == clip.name => Some(at),
            _ => source_names.iter().position(|n| *n == clip.name),
        })
        .collect();

    for (clip, found) in baked.clips.iter().zip(&matched) {
        let Some(index) = *found else {
            let hint = match at_index(clip).map(|at| &source_names[at]) {
                Some(now) if !baked.clips.iter().any(|c| c.name == *now) => {
                    format!(" (its place, animation {}, is now \"{now}\": renamed?)", clip.source_index)
                }
                _ => String::new(),
            };
            let slot = clip.slot.as_ref().map(|s| format!(" (the game plays it as {s})")).unwrap_or_default();
            findings.push(
                Finding::new(
                    Kind::MissingClip,
                    format!("clip \"{}\" is baked{slot}, but the source no longer has it{hint}", clip.name),
                    "re-bake the unit; if the clip was renamed on purpose, check that its new name still fills the slot",
                )
                .clip(&clip.name),
            );
            continue;
        };
        let Some(source_duration) = source.clips[index].duration else { continue };
        if source_duration > 0.0 && clip.rows == 1 {
            findings.push(
                Finding::new(
                    Kind::FrozenClip,
                    format!(
                        "clip \"{}\" is one frozen row, but the source clip moves for {source_duration:.3} s",
                        clip.name
                    ),
                    "re-bake the unit without capping the clip to one row (--max-frames 1)",
                )
                .clip(&clip.name),
            );
        } else if source_duration > 0.0 {
            let tolerance = DURATION_TOLERANCE_S.max(DURATION_TOLERANCE_FRACTION * source_duration);
            if (clip.duration - source_duration).abs() > tolerance {
                findings.push(
                    Finding::new(
                        Kind::DurationMismatch,
                        format!(
                            "clip \"{}\" lasts {:.3} s in the source but {:.3} s in the bake, so it would play {:.2}× too {}",
                            clip.name,
                            source_duration,
                            clip.duration,
                            (source_duration / clip.duration).max(clip.duration / source_duration),
                            if clip.duration < source_duration { "fast" } else { "slow" }
                        ),
                        REBAKE,
                    )
                    .clip(&clip.name),
                );
            }
        }
    }

    if baked.clips_asked.is_none() {
        for (index, name) in source_names.iter().enumerate() {
            if !matched.contains(&Some(index)) {
                findings.push(
                    Finding::new(
                        Kind::UnbakedClip,
                        format!("source clip \"{name}\" is not in the bake, which took every clip (added since?)"),
                        REBAKE,
                    )
                    .clip(name),
                );
            }
        }
    }

    findings.extend(check_slots(baked, source, &source_names, &matched, table));
    findings
}

fn check_slots(
    baked: &Baked,
    source: &SourceClips,
    source_names: &[String],
    matched: &[Option<usize>],
    table: &AliasTable,
) -> Vec<Finding> {
    let mut findings = Vec::new();
    let names: Vec<Option<&str>> = source.clips.iter().map(|c| c.name.as_deref().filter(|n| !n.is_empty())).collect();
    let expected = assign(&names, table);
    let baked_slot = |slot: &str| baked.clips.iter().find(|c| c.slot.as_deref() == Some(slot));

    // A baked slot the table does not give that clip.
    for (clip, found) in baked.clips.iter().zip(matched) {
        let (Some(slot), Some(index)) = (&clip.slot, found) else { continue };
        let fits = match &expected.clips[*index] {
            Verdict::Slot { slot: s, .. } | Verdict::Spare { slot: s, .. } => s == slot,
            _ => false,
        };
        if !fits {
            let now = match &expected.clips[*index] {
                Verdict::Slot { slot, .. } => format!("puts it in {slot}"),
                Verdict::Ignored { .. } => "ignores it".to_string(),
                _ => "gives it no slot".to_string(),
            };
            findings.push(
                Finding::new(
                    Kind::WrongSlot,
                    format!("clip \"{}\" is baked as {slot}, but the alias table {now}", clip.name),
                    "re-bake with the game's alias table, and audit with the same table (--aliases)",
                )
                .clip(&clip.name)
                .slot(slot),
            );
        }
    }

    // A slot the source can fill but the bake left empty.
    for (slot, filled) in &expected.slots {
        let Some(index) = filled else { continue };
        if baked_slot(slot).is_some() {
            continue;
        }
        let name = &source_names[*index];
        let baked_as = baked.clips.iter().find(|c| c.name == *name);
        let advice = match baked_as {
            Some(_) => "re-bake the unit with the current alias table, which gives the clip this slot".to_string(),
            None => format!("re-bake the unit with \"{name}\" among its clips (the bake's --clips left it out)"),
        };
        findings.push(
            Finding::new(
                Kind::EmptySlot,
                format!("slot {slot} is empty, but the source has clip \"{name}\" for it"),
                advice,
            )
            .clip(name)
            .slot(slot),
        );
    }

    // A slot empty in both, with a lookalike clip: the independent guard.
    for miss in &expected.misses {
        if baked_slot(&miss.slot).is_some() {
            continue;
        }
        let name = &source_names[miss.clip];
        findings.push(
            Finding::new(
                Kind::PlausibleMiss,
                format!(
                    "slot {} is empty, and source clip \"{name}\" matches no slot but looks like it belongs there \
                     (\"{}\" ~ \"{}\")",
                    miss.slot, miss.evidence.clip_word, miss.evidence.slot_word
                ),
                format!("if it does, add \"{name}\" to the {} slot's names in the alias table and re-bake", miss.slot),
            )
            .clip(name)
            .slot(&miss.slot),
        );
    }

    if !baked.clips.is_empty() && baked.clips.iter().all(|c| c.slot.is_none()) && expected.no_slot() {
        findings.push(no_slots(baked, names.iter().all(Option::is_none)));
    }
    findings
}

/// The bake's name of an unnamed clip: `animation_<index>`.
fn looks_unnamed(name: &str) -> bool {
    name.strip_prefix("animation_").is_some_and(|i| !i.is_empty() && i.bytes().all(|b| b.is_ascii_digit()))
}

fn no_slots(baked: &Baked, unnamed: bool) -> Finding {
    let names: Vec<String> = baked.clips.iter().take(6).map(|c| format!("\"{}\"", c.name)).collect();
    let more = if baked.clips.len() > 6 { format!(" and {} more", baked.clips.len() - 6) } else { String::new() };
    Finding::new(
        Kind::NoSlots,
        format!("no clip has a slot ({}{more}): a game asking for a slot finds nothing to play", names.join(", ")),
        if unnamed {
            "the clips have no names to match: name the animations in the source and re-bake"
        } else {
            "add the clip names to the alias table (or give it a fallback slot for single-clip units) and re-bake"
        },
    )
}

/// The checks that need only the description: when the source cannot be found.
pub fn check_without_source(baked: &Baked) -> Vec<Finding> {
    if !baked.clips.is_empty() && baked.clips.iter().all(|c| c.slot.is_none()) {
        vec![no_slots(baked, baked.clips.iter().all(|c| looks_unnamed(&c.name)))]
    } else {
        Vec::new()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn fox() -> (Baked, SourceClips) {
        let clip = |name: &str, index: u32, slot: &str, row: u32, rows: u32, duration: f64| BakedClip {
            name: name.into(),
            source_index: index,
            slot: Some(slot.into()),
            row,
            rows,
            duration,
            rate: (rows - 1) as f64 / duration,
        };
        let baked = Baked {
            source_sha256: "d97044e701822bac".into(),
            clips_asked: None,
            points: 1728,
            rows: 162,
            texture: BakedTexture {
                file: "Fox.vat.ktx2".into(),
                container: "ktx2".into(),
                vk_format: 91,
                supercompression: "zstd".into(),
                width: 1728,
                height: 162,
                bands: 1,
                bytes: 979_528,
            },
            clips: vec![
                clip("Survey", 0, "idle", 0, 104, 3.4166667),
                clip("Walk", 1, "walk", 104, 22, 0.7083333),
                clip("Run", 2, "run", 126, 36, 1.1583333),
            ],
        };
        let source = SourceClips {
            sha256: "d97044e701822bac".into(),
            clips: [("Survey", 3.4166667), ("Walk", 0.7083333), ("Run", 1.1583333)]
                .into_iter()
                .enumerate()
                .map(|(i, (n, d))| SourceClip { name: Some(n.into()), source_index: i, duration: Some(d) })
                .collect(),
        };
        (baked, source)
    }

    fn kinds(findings: &[Finding]) -> Vec<Kind> {
        findings.iter().map(|f| f.kind).collect()
    }

    fn texture_of(baked: &Baked) -> TextureFacts {
        TextureFacts::Ktx2 {
            vk_format: 91,
            width: baked.texture.width,
            height: baked.texture.height,
            supercompression_scheme: 2,
            bytes: baked.texture.bytes,
        }
    }

    #[test]
    fn a_faithful_bake_has_no_findings() {
        let (baked, source) = fox();
        let table = AliasTable::builtin();
        assert_eq!(check_description(&baked), []);
        assert_eq!(check_texture(&baked, &texture_of(&baked)), []);
        assert_eq!(check_source(&baked, &source, &table), []);
    }

    #[test]
    fn kind_names_are_the_serde_names() {
        for kind in Kind::ALL {
            assert_eq!(toml::Value::try_from(kind).unwrap().as_str(), Some(kind.name()));
        }
        assert_eq!(Kind::StaleSource.label(), "stale source");
    }

    #[test]
    fn stale_renamed_and_new_clips() {
        let (baked, mut source) = fox();
        source.sha256 = "0123456789abcdef".into();
        source.clips[2].name = Some("Running".into());
        let findings = check_source(&baked, &source, &AliasTable::builtin());
        // The run slot is still held by the baked "Run", which the missing clip reports.
        assert_eq!(kinds(&findings), [Kind::StaleSource, Kind::MissingClip, Kind::UnbakedClip]);
        assert_eq!(
            findings[1].message,
            "clip \"Run\" is baked (the game plays it as run), but the source no longer has it (its place, \
             animation 2, is now \"Running\": renamed?)"
        );
    }

    #[test]
    fn durations_and_frozen_clips() {
        let (mut baked, mut source) = fox();
        // The seed's goblin: authored at 4 s, 43 rows, rate taken as the bake's fps.
        source.clips[0].duration = Some(4.0);
        baked.clips[1].rows = 1;
        baked.clips[1].rate = 30.0;
        let findings = check_source(&baked, &source, &AliasTable::builtin());
        assert_eq!(kinds(&findings), [Kind::DurationMismatch, Kind::FrozenClip]);
        assert!(findings[0]
            .message
            .contains("lasts 4.000 s in the source but 3.417 s in the bake, so it would play 1.17× too fast"));
        // Within tolerance: no finding.
        source.clips[0].duration = Some(3.4166667 + 5e-4);
        baked.clips[1].rows = 22;
        assert_eq!(check_source(&baked, &source, &AliasTable::builtin()), []);
    }

    #[test]
    fn rows_rate_and_duration_must_agree() {
        let (mut baked, _) = fox();
        baked.clips[2].rate = 30.0; // 35 rows / 30 = 1.1667 s, not 1.1583 s
        baked.clips[1].duration = 0.0;
        let findings = check_description(&baked);
        assert_eq!(kinds(&findings), [Kind::InconsistentClip, Kind::InconsistentClip]);
        assert!(findings[1].message.contains("span 1.1667 s, but its duration is 1.1583 s"), "{}", findings[1].message);
        let (mut baked, _) = fox();
        baked.rows = 160;
        baked.texture.height = 200;
        let findings = check_description(&baked);
        assert_eq!(kinds(&findings), [Kind::InconsistentLayout]);
        assert_eq!(
            findings[0].message,
            "the clips end at row 162, but rows is 160; texture height 200 is not bands × rows = 1 × 160"
        );
    }

    #[test]
    fn texture_header_against_the_description() {
        let (baked, _) = fox();
        assert_eq!(kinds(&check_texture(&baked, &TextureFacts::Missing)), [Kind::TextureMissing]);
        let wrong =
            TextureFacts::Ktx2 { vk_format: 97, width: 1000, height: 324, supercompression_scheme: 0, bytes: 5 };
        let findings = check_texture(&baked, &wrong);
        assert_eq!(
            findings[0].message,
            "the texture Fox.vat.ktx2 has width 1000 (the description says 1728), height 324 (the description says 162), \
             vkFormat 97 (the description says 91), supercompression none (the description says zstd), \
             size in bytes 5 (the description says 979528)"
        );
    }

    #[test]
    fn slots_against_the_table() {
        // The seed's bake: fragment matching left death empty, the source calls it "Dead".
        let (mut baked, mut source) = fox();
        source.clips.push(SourceClip { name: Some("Dead".into()), source_index: 3, duration: Some(1.0) });
        baked.clips.push(BakedClip {
            name: "Dead".into(),
            source_index: 3,
            slot: None,
            row: 162,
            rows: 31,
            duration: 1.0,
            rate: 30.0,
        });
        let findings = check_source(&baked, &source, &AliasTable::builtin());
        assert_eq!(kinds(&findings), [Kind::EmptySlot]);
        assert_eq!(findings[0].slot.as_deref(), Some("death"));

        // With the seed's own table (death, die, killed) the table misses it, the guard does not.
        let seed = AliasTable::parse(
            "version = 1\n[slots]\nidle = [\"survey\"]\nwalk = []\nrun = []\ndeath = [\"die\", \"killed\"]\n",
        )
        .unwrap();
        let findings = check_source(&baked, &source, &seed);
        assert_eq!(kinds(&findings), [Kind::PlausibleMiss]);
        assert!(findings[0].message.contains("(\"dead\" ~ \"death\")"));

        // A baked slot the table would not give.
        let (mut baked, source) = fox();
        baked.clips[0].slot = Some("death".into());
        let findings = check_source(&baked, &source, &AliasTable::builtin());
        assert_eq!(kinds(&findings), [Kind::WrongSlot, Kind::EmptySlot]);
        assert_eq!(findings[0].message, "clip \"Survey\" is baked as death, but the alias table puts it in idle");
    }

    #[test]
    fn a_unit_without_slots_is_a_finding() {
        let (mut baked, mut source) = fox();
        for (clip, name) in baked.clips.iter_mut().zip(["Individuals", "Pulse", "Twist"]) {
            clip.slot = None;
            clip.name = name.into();
        }
        for (clip, name) in source.clips.iter_mut().zip(["Individuals", "Pulse", "Twist"]) {
            clip.name = Some(name.into());
        }
        assert_eq!(kinds(&check_source(&baked, &source, &AliasTable::builtin())), [Kind::NoSlots]);
        assert_eq!(kinds(&check_without_source(&baked)), [Kind::NoSlots]);
    }
}
