//! The audit's checks: plain data about one baked unit in, findings out. The caller
//! reads the files (the description, the source's JSON, the texture's header); nothing
//! here touches the disk.

use serde::Serialize;
use vat_description::{ClipEntry, Description, Supercompression, TextureFormat};
use vat_ktx2::{TextureFile, TextureHeader};
use vat_model::{ClipRows, Layout};

use crate::assign::{assign, Verdict};
use crate::table::AliasTable;

/// A duration agrees with the source within this many seconds, or this fraction of
/// it, whichever is larger: far below one row at any useful rate, far above f32 noise.
pub const DURATION_TOLERANCE_S: f64 = 1e-3;
/// The relative tolerance that goes with [`DURATION_TOLERANCE_S`].
pub const DURATION_TOLERANCE_FRACTION: f64 = 1e-4;

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
    /// Index of the animation in its file (the first one, for a merged take).
    pub source_index: usize,
    /// The file the clip is from: an index into the description's `animations`
    /// (`--animations`), or `None` for the source's own.
    pub file: Option<u32>,
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
    /// The file's header and size (`vat_ktx2::read_texture_header`).
    Read(TextureFile),
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
    /// The description's bounds (`positions.center`, `positions.half_extent`) are not
    /// finite, or a half extent is negative: no position decodes.
    BadBounds,
    /// The texture named by the description is not there.
    TextureMissing,
    /// The texture is there but its header cannot be read.
    TextureUnreadable,
    /// The texture's header, size or bytes (SHA-256) differ from the description.
    TextureMismatch,
    /// The rest-pose mesh named by the description is not there.
    MeshMissing,
    /// The rest-pose mesh's bytes are not the ones the description records.
    MeshMismatch,
    /// A file of another tool's format the description records (`exports`) is missing,
    /// or not a regular file in the folder, or has another size or SHA-256.
    ExportMismatch,
    /// A file a bake of the description's name writes is beside it, but the
    /// description does not record it: an earlier bake's.
    UnrecordedFile,
}

impl Kind {
    /// Every kind, in the order the audit checks for them.
    pub const ALL: [Kind; 22] = [
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
        Kind::BadBounds,
        Kind::TextureMissing,
        Kind::TextureUnreadable,
        Kind::TextureMismatch,
        Kind::MeshMissing,
        Kind::MeshMismatch,
        Kind::ExportMismatch,
        Kind::UnrecordedFile,
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
            Kind::BadBounds => "bad_bounds",
            Kind::TextureMissing => "texture_missing",
            Kind::TextureUnreadable => "texture_unreadable",
            Kind::TextureMismatch => "texture_mismatch",
            Kind::MeshMissing => "mesh_missing",
            Kind::MeshMismatch => "mesh_mismatch",
            Kind::ExportMismatch => "export_mismatch",
            Kind::UnrecordedFile => "unrecorded_file",
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

/// A file a bake read (`what`: "source", or "animation file PATH") whose SHA-256 is no
/// longer the `recorded` one: the one wording of that finding, for the source and for
/// every other file a bake is made of.
///
/// ```
/// let f = vat_audit::changed_since_bake("source", &"a".repeat(64), &"b".repeat(64), "re-bake the unit");
/// assert_eq!(f.message, "the source changed since the bake (sha256 aaaaaaaaaaaa… then, bbbbbbbbbbbb… now)");
/// ```
pub fn changed_since_bake(what: &str, recorded: &str, found: &str, advice: &str) -> Finding {
    Finding::new(
        Kind::StaleSource,
        format!(
            "the {what} changed since the bake (sha256 {}… then, {}… now)",
            short_hash(recorded),
            short_hash(found)
        ),
        advice,
    )
}

/// The description agreeing with itself and with the bake's rules: each clip's rows,
/// rate and duration against the row rule ([`ClipRows`]) at the recorded fps and
/// frame cap, and the rows, clips, bands and texture size against the layout
/// ([`Layout`]) at the recorded `max_width`.
pub fn check_description(description: &Description) -> Vec<Finding> {
    let mut findings = Vec::new();
    let hand_edited =
        "the description disagrees with itself (edited by hand, or written by a broken tool): re-bake the unit";
    let settings = &description.settings;
    for clip in &description.clips {
        // `--fps auto`: each clip's rows follow the rule at its own chosen rate.
        let fps = clip.auto_rate.as_ref().map_or(settings.fps, |auto| auto.fps);
        if let Some(problem) = clip_problem(clip, fps, settings.max_frames) {
            findings.push(
                Finding::new(Kind::InconsistentClip, format!("clip \"{}\" {problem}", clip.name), hand_edited)
                    .clip(&clip.name),
            );
        }
    }

    let mut layout = Vec::new();
    let mut expected_row = 0u64;
    for clip in &description.clips {
        if clip.row as u64 != expected_row {
            layout.push(format!(
                "clip \"{}\" starts at row {}, where row {} was expected",
                clip.name, clip.row, expected_row
            ));
        }
        expected_row = clip.row as u64 + clip.rows as u64;
    }
    if expected_row != description.rows as u64 {
        layout.push(format!("the clips end at row {expected_row}, but rows is {}", description.rows));
    }
    let t = &description.texture;
    let rule = Layout::new(description.points as usize, description.rows as usize, settings.max_width as usize);
    if (t.width as usize, t.height as usize, t.bands as usize) != (rule.width, rule.height, rule.bands) {
        layout.push(format!(
            "the texture is {}×{} in {} band(s), but {} points on {} rows at most {} wide are {}×{} in {}",
            t.width,
            t.height,
            t.bands,
            description.points,
            description.rows,
            settings.max_width,
            rule.width,
            rule.height,
            rule.bands
        ));
    }
    if !layout.is_empty() {
        findings.push(Finding::new(Kind::InconsistentLayout, layout.join("; "), hand_edited));
    }
    let p = &description.positions;
    let bad: Vec<String> = [("center", p.center), ("half_extent", p.half_extent)]
        .into_iter()
        .flat_map(|(name, v)| v.into_iter().enumerate().map(move |(i, x)| (name, i, x)))
        .filter(|&(name, _, x)| !x.is_finite() || (name == "half_extent" && x < 0.0))
        .map(|(name, i, x)| format!("positions.{name}[{i}] is {x}"))
        .collect();
    if !bad.is_empty() {
        let message = format!("{}: no position decodes against these bounds", bad.join(", "));
        findings.push(Finding::new(Kind::BadBounds, message, hand_edited));
    }
    findings
}

/// What is wrong with a clip's rows, rate and duration, if anything: they must be
/// positive, and be what the row rule makes of the duration at `fps` (capped at
/// `max_frames`); a single row (a single pose, or a cap of 1) is at `fps` rows/s.
fn clip_problem(clip: &ClipEntry, fps: f32, max_frames: Option<u32>) -> Option<String> {
    let (duration, rate) = (f64::from(clip.duration), f64::from(clip.rate));
    if clip.rows == 0 {
        return Some("has 0 rows".to_string());
    }
    if !(duration > 0.0 && duration.is_finite()) {
        return Some(format!("has duration {duration} s; it must be greater than 0"));
    }
    if !(rate > 0.0 && rate.is_finite()) {
        return Some(format!("has rate {rate} rows/s; it must be greater than 0"));
    }
    let fps = f64::from(fps);
    if clip.rows == 1 {
        return ((rate - fps).abs() > 1e-4 * fps)
            .then(|| format!("is one row at {rate:.4} rows/s, but a single row is at the bake's {fps} fps"));
    }
    let rule = ClipRows::new(clip.duration, fps as f32, max_frames);
    if clip.rows != rule.rows {
        let cap = max_frames.map(|m| format!(" capped at {m}")).unwrap_or_default();
        return Some(format!(
            "has {} rows, but a {duration:.4} s clip at {fps} fps{cap} gets {} (round(duration × fps) + 1)",
            clip.rows, rule.rows
        ));
    }
    // Row k is at time k / rate, and the last row is at the clip's end.
    let spanned = (clip.rows - 1) as f64 / rate;
    let tolerance = 1e-4 * duration + 1e-5;
    ((spanned - duration).abs() > tolerance).then(|| {
        format!(
            "has {} rows at {rate:.4} rows/s, which span {spanned:.4} s, but its duration is {duration:.4} s",
            clip.rows
        )
    })
}

/// The texture file against what the description says of it.
///
/// ```
/// use vat_audit::{check_texture, Kind, TextureFacts};
/// use vat_ktx2::{TextureFile, TextureHeader};
/// let json = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/../vat-description/tests/Fox.vat.json"))?;
/// let description: vat_description::Description = serde_json::from_str(&json)?;
/// let t = &description.texture;
/// let header = TextureHeader::Ktx2 { vk_format: 91, width: t.width, height: t.height, supercompression_scheme: 2 };
/// let found = TextureFacts::Read(TextureFile { header, bytes: t.bytes });
/// assert!(check_texture(&description, &found).is_empty());
/// assert_eq!(check_texture(&description, &TextureFacts::Missing)[0].kind, Kind::TextureMissing);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn check_texture(description: &Description, facts: &TextureFacts) -> Vec<Finding> {
    let t = &description.texture;
    let rebake =
        "the texture does not belong to this description (replaced, or left from another bake): re-bake the unit";
    let mut differences = Vec::new();
    fn differs(differences: &mut Vec<String>, what: &str, described: impl Into<u64>, found: impl Into<u64>) {
        let (described, found) = (described.into(), found.into());
        if described != found {
            differences.push(format!("{what} {found} (the description says {described})"));
        }
    }
    let file = match facts {
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
        TextureFacts::Read(file) => file,
    };
    match &file.header {
        TextureHeader::Ktx2 { vk_format, width, height, supercompression_scheme } => {
            if t.container != TextureFormat::Ktx2 {
                differences.push(format!("container ktx2 (the description says {})", t.container));
            }
            differs(&mut differences, "width", t.width, *width);
            // An array texture's header gives one layer's height (docs/FORMAT.md, "Array layers").
            differs(&mut differences, "height", t.layer_height.unwrap_or(t.height), *height);
            differs(&mut differences, "vkFormat", t.vk_format, *vk_format);
            let scheme = match *supercompression_scheme {
                0 => Some(Supercompression::None),
                2 => Some(Supercompression::Zstd),
                _ => None,
            };
            if scheme != Some(t.supercompression) {
                let found = scheme.map_or_else(|| format!("scheme {supercompression_scheme}"), |s| s.to_string());
                differences.push(format!("supercompression {found} (the description says {})", t.supercompression));
            }
        }
        TextureHeader::Png { width, height, bit_depth, colour_type } => {
            if t.container != TextureFormat::Png {
                differences.push(format!("container png (the description says {})", t.container));
            }
            differs(&mut differences, "width", t.width, *width);
            differs(&mut differences, "height", t.height, *height);
            if (*bit_depth, *colour_type) != (16, 6) {
                differences
                    .push(format!("PNG bit depth {bit_depth}, colour type {colour_type} (16-bit RGBA is 16, 6)"));
            }
        }
    }
    differs(&mut differences, "size in bytes", t.bytes, file.bytes);
    if differences.is_empty() {
        return Vec::new();
    }
    vec![Finding::new(Kind::TextureMismatch, format!("the texture {} has {}", t.file, differences.join(", ")), rebake)]
}

/// The texture's and the rest mesh's bytes against the SHA-256 the description
/// records for them (`texture.sha256`, `mesh.sha256`). `texture` and `mesh` are the
/// hashes of the files found, `None` where a file was not there to hash (a finding of
/// its own) or the description records no hash. A mismatch is a file from another
/// bake: the description is renamed into place last, so a bake killed between its
/// renames leaves the new texture beside the old description.
///
/// ```
/// use vat_audit::{check_hashes, Kind};
/// let json = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/../vat-description/tests/Fox.vat.json"))?;
/// let description: vat_description::Description = serde_json::from_str(&json)?;
/// let recorded = description.texture.sha256.as_deref();
/// assert!(check_hashes(&description, recorded, description.mesh.sha256.as_deref()).is_empty());
/// assert_eq!(check_hashes(&description, Some("0123"), None)[0].kind, Kind::TextureMismatch);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn check_hashes(description: &Description, texture: Option<&str>, mesh: Option<&str>) -> Vec<Finding> {
    let advice = "the file belongs to another bake (one interrupted between its renames, or a file \
                  replaced by hand): re-bake the unit";
    let files = [
        (Kind::TextureMismatch, "texture", &description.texture.file, description.texture.sha256.as_deref(), texture),
        (Kind::MeshMismatch, "rest-pose mesh", &description.mesh.file, description.mesh.sha256.as_deref(), mesh),
    ];
    let mut findings = Vec::new();
    for (kind, what, file, recorded, found) in files {
        let (Some(recorded), Some(found)) = (recorded, found) else { continue };
        if !recorded.eq_ignore_ascii_case(found) {
            findings.push(Finding::new(
                kind,
                format!(
                    "the {what} {file} is not the one this description was baked with (sha256 {}… recorded, {}… found)",
                    short_hash(recorded),
                    short_hash(found)
                ),
                advice,
            ));
        }
    }
    findings
}

/// The bake against its source model's clips, and the slots against the alias table.
pub fn check_source(baked: &Description, source: &SourceClips, table: &AliasTable) -> Vec<Finding> {
    let mut findings = Vec::new();
    if !source.sha256.eq_ignore_ascii_case(&baked.source.sha256) {
        findings.push(changed_since_bake("source", &baked.source.sha256, &source.sha256, REBAKE));
    }

    let source_names: Vec<String> = source.clips.iter().map(SourceClip::display_name).collect();
    // The source clip at a baked clip's source index (merged takes make the two lists differ).
    let at_index = |clip: &ClipEntry| {
        source.clips.iter().position(|c| c.source_index == clip.source_index as usize && c.file == clip.animations_file)
    };
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
        // Under `--fps auto` one row is the bake's measured choice: the clip stays within
        // its tolerance of that pose (a held pose), so it is not frozen by mistake.
        if source_duration > 0.0 && clip.rows == 1 && clip.auto_rate.is_none() {
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
            let baked_duration = f64::from(clip.duration);
            if (baked_duration - source_duration).abs() > tolerance {
                findings.push(
                    Finding::new(
                        Kind::DurationMismatch,
                        format!(
                            "clip \"{}\" lasts {:.3} s in the source but {:.3} s in the bake, so it would play {:.2}× too {}",
                            clip.name,
                            source_duration,
                            baked_duration,
                            (source_duration / baked_duration).max(baked_duration / source_duration),
                            if baked_duration < source_duration { "fast" } else { "slow" }
                        ),
                        REBAKE,
                    )
                    .clip(&clip.name),
                );
            }
        }
    }

    if baked.settings.clips.is_none() {
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
    baked: &Description,
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

fn no_slots(baked: &Description, unnamed: bool) -> Finding {
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
pub fn check_without_source(baked: &Description) -> Vec<Finding> {
    if !baked.clips.is_empty() && baked.clips.iter().all(|c| c.slot.is_none()) {
        vec![no_slots(baked, baked.clips.iter().all(|c| looks_unnamed(&c.name)))]
    } else {
        Vec::new()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The Fox as `vatbake bake fixtures/Fox/Fox.glb` describes it, and its source's clips.
    fn fox() -> (Description, SourceClips) {
        let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../vat-description/tests/Fox.vat.json");
        let baked: Description = serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap();
        let source = SourceClips {
            sha256: baked.source.sha256.clone(),
            clips: baked
                .clips
                .iter()
                .map(|c| SourceClip {
                    name: Some(c.name.clone()),
                    source_index: c.source_index as usize,
                    file: c.animations_file,
                    duration: Some(f64::from(c.duration)),
                })
                .collect(),
        };
        (baked, source)
    }

    fn kinds(findings: &[Finding]) -> Vec<Kind> {
        findings.iter().map(|f| f.kind).collect()
    }

    fn texture_of(baked: &Description) -> TextureFacts {
        let header = TextureHeader::Ktx2 {
            vk_format: 91,
            width: baked.texture.width,
            height: baked.texture.height,
            supercompression_scheme: 2,
        };
        TextureFacts::Read(TextureFile { header, bytes: baked.texture.bytes })
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
        // One row that `--fps auto` chose (a held pose) is no frozen clip.
        baked.clips[1].auto_rate = Some(vat_description::AutoRate { fps: 1.0, max_error: 0.0 });
        assert_eq!(kinds(&check_source(&baked, &source, &AliasTable::builtin())), [Kind::DurationMismatch]);
        baked.clips[1].auto_rate = None;
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
        assert_eq!(findings[0].message, "clip \"Walk\" has duration 0 s; it must be greater than 0");
        assert!(findings[1].message.contains("span 1.1667 s, but its duration is 1.1583 s"), "{}", findings[1].message);

        // The row rule: 1.1583 s at 30 fps is round(34.75) + 1 = 36 rows, not 40.
        let (mut baked, _) = fox();
        baked.clips[2].rows = 40;
        baked.clips[2].rate = 39.0 / baked.clips[2].duration;
        baked.rows = 166;
        baked.texture.height = 166;
        let findings = check_description(&baked);
        assert_eq!(kinds(&findings), [Kind::InconsistentClip]);
        assert_eq!(
            findings[0].message,
            "clip \"Run\" has 40 rows, but a 1.1583 s clip at 30 fps gets 36 (round(duration × fps) + 1)"
        );
        // Capped at 10 rows by --max-frames, the same clip is consistent at 10.
        baked.settings.max_frames = Some(10);
        baked.clips[2].rows = 10;
        baked.clips[2].rate = 9.0 / baked.clips[2].duration;
        assert!(check_description(&baked).iter().all(|f| f.clip.as_deref() != Some("Run")));
        // Under `--fps auto`, each clip's rows follow the rule at its own rate.
        let (mut baked, _) = fox();
        baked.clips[2].rows = 15; // 1.1583 s at 12 rows per second: round(13.9) + 1
        baked.clips[2].rate = 14.0 / baked.clips[2].duration;
        baked.clips[2].auto_rate = Some(vat_description::AutoRate { fps: 12.0, max_error: 0.5 });
        baked.rows = 141;
        baked.texture.height = 141;
        assert_eq!(check_description(&baked), []);
        // A single row is at the bake's fps.
        let (mut baked, _) = fox();
        baked.clips[0].rows = 1;
        baked.clips[0].rate = 24.0;
        let findings = check_description(&baked);
        assert_eq!(
            findings[0].message,
            "clip \"Survey\" is one row at 24.0000 rows/s, but a single row is at the bake's 30 fps"
        );

        let (mut baked, _) = fox();
        baked.rows = 160;
        baked.texture.height = 200;
        let findings = check_description(&baked);
        assert_eq!(kinds(&findings), [Kind::InconsistentLayout]);
        assert_eq!(
            findings[0].message,
            "the clips end at row 162, but rows is 160; the texture is 1728×200 in 1 band(s), \
             but 1728 points on 160 rows at most 16384 wide are 1728×160 in 1"
        );
        // The bands the layout makes at the recorded max_width, and no others.
        let (mut baked, _) = fox();
        baked.settings.max_width = 1000;
        let findings = check_description(&baked);
        assert_eq!(
            findings[0].message,
            "the texture is 1728×162 in 1 band(s), but 1728 points on 162 rows at most 1000 wide are 864×324 in 2"
        );
        (baked.texture.width, baked.texture.height, baked.texture.bands) = (864, 324, 2);
        assert_eq!(check_description(&baked), []);
    }

    #[test]
    fn texture_header_against_the_description() {
        let (baked, _) = fox();
        assert_eq!(kinds(&check_texture(&baked, &TextureFacts::Missing)), [Kind::TextureMissing]);
        let header = TextureHeader::Ktx2 { vk_format: 97, width: 1000, height: 324, supercompression_scheme: 0 };
        let findings = check_texture(&baked, &TextureFacts::Read(TextureFile { header, bytes: 5 }));
        assert_eq!(
            findings[0].message,
            format!(
                "the texture Fox.vat.ktx2 has width 1000 (the description says 1728), height 324 (the description \
                 says 162), vkFormat 97 (the description says 91), supercompression none (the description says \
                 zstd), size in bytes 5 (the description says {})",
                baked.texture.bytes
            )
        );
        let header = TextureHeader::Png { width: 1728, height: 162, bit_depth: 8, colour_type: 6 };
        let findings = check_texture(&baked, &TextureFacts::Read(TextureFile { header, bytes: baked.texture.bytes }));
        assert_eq!(
            findings[0].message,
            "the texture Fox.vat.ktx2 has container png (the description says ktx2), PNG bit depth 8, colour type 6 \
             (16-bit RGBA is 16, 6)"
        );
    }

    #[test]
    fn slots_against_the_table() {
        // The seed's bake: fragment matching left death empty, the source calls it "Dead".
        let (mut baked, mut source) = fox();
        source.clips.push(SourceClip { name: Some("Dead".into()), source_index: 3, file: None, duration: Some(1.0) });
        baked.clips.push(ClipEntry {
            name: "Dead".into(),
            source_index: 3,
            merged_from: Vec::new(),
            animations_file: None,
            slot: None,
            row: 162,
            rows: 31,
            duration: 1.0,
            rate: 30.0,
            looping: false,
            loop_row: false,
            root_motion: None,
            auto_rate: None,
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
