//! Takes split into one animation per node, put back together.
//!
//! Some FBX-to-glTF converters write one take as many glTF animations, one per
//! node: `Skin_34_end001|Take 001|BaseLayer`, `Hips|Take 001|BaseLayer`, … all
//! over the same time range. Baked apart, each is a clip in which one node moves
//! and the rest of the body stands frozen. This module groups them back into the
//! take they came from. The grouping is pure: it sees each animation's name, its
//! time range and the (node, property) pairs it animates, so the bake (on loaded
//! [`Clip`]s) and `vatbake audit` (on the glTF JSON alone) group alike.
//!
//! A name splits at its first `|` into the node part and the take part (the rest,
//! e.g. `Take 001|BaseLayer`). Under [`MergeClips::Auto`], animations merge when
//! they share a non-empty take part, or are all unnamed (CesiumMan's 19 unnamed
//! animations, one per joint, are one walk), **and** have the same time range
//! (first and last key, within [`RANGE_TOLERANCE_S`]) **and** animate disjoint
//! (node, property) pairs. A named animation without `|` never merges under Auto.
//! [`MergeClips::Always`] drops the name condition; [`MergeClips::Never`] merges
//! nothing. Only groups of two or more merge; an animation whose targets overlap
//! a group's stays apart (it may start a group of its own).

use std::collections::HashSet;

use vat_model::{Clip, Property};

/// Two animations cover the same time range when their first keys and their last
/// keys each differ by at most this many seconds.
pub const RANGE_TOLERANCE_S: f64 = 1e-4;

/// Whether animations split per node are merged back into takes: the description's
/// `settings.merge_clips` records it.
pub use vat_description::MergeClips;

/// What the grouping needs to know about one animation.
#[derive(Clone, Debug, PartialEq)]
pub struct Animation<'a> {
    /// The source name; `None` (or empty) for an unnamed animation.
    pub name: Option<&'a str>,
    /// First and last key time over its channels, in seconds; `None` when that is
    /// not known (no channels, or accessors without min/max): such an animation never merges.
    pub range: Option<(f64, f64)>,
    /// The (node, property) pairs its channels animate.
    pub targets: Vec<(usize, Property)>,
}

/// A clip made of one or more animations.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Take {
    /// Indices into the grouped list, ascending; the first is where the take stands.
    pub members: Vec<usize>,
    /// For a merged take: its name (the shared take part), or `None` to keep the
    /// first member's name. Always `None` for a single animation.
    pub name: Option<String>,
}

impl Take {
    /// True when the take joins more than one source animation.
    pub fn is_merged(&self) -> bool {
        self.members.len() > 1
    }
}

/// The take part of a name: everything after its first `|`, if that is not empty.
pub fn take_part(name: &str) -> Option<&str> {
    name.split_once('|').map(|(_, take)| take).filter(|take| !take.is_empty())
}

/// What animations must share to merge under Auto.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Key<'a> {
    Unnamed,
    Take(&'a str),
}

fn auto_key<'a>(animation: &Animation<'a>) -> Option<Key<'a>> {
    match animation.name.filter(|n| !n.is_empty()) {
        None => Some(Key::Unnamed),
        Some(name) => take_part(name).map(Key::Take),
    }
}

fn same_range(a: (f64, f64), b: (f64, f64)) -> bool {
    (a.0 - b.0).abs() <= RANGE_TOLERANCE_S && (a.1 - b.1).abs() <= RANGE_TOLERANCE_S
}

/// Groups animations into takes, in source order: each take stands where its first
/// member was. Greedy: each animation joins the first open group it fits (same
/// key under Auto, same range, no shared target), else opens one.
pub fn group(animations: &[Animation], mode: MergeClips) -> Vec<Take> {
    struct Open<'a> {
        key: Option<Key<'a>>,
        range: (f64, f64),
        targets: HashSet<(usize, Property)>,
        members: Vec<usize>,
    }
    let mut open: Vec<Open> = Vec::new();
    // Per animation: the group it joined, or None when it stays alone.
    let mut joined: Vec<Option<usize>> = vec![None; animations.len()];
    if mode != MergeClips::Never {
        for (index, animation) in animations.iter().enumerate() {
            let Some(range) = animation.range else { continue };
            let key = match mode {
                MergeClips::Auto => match auto_key(animation) {
                    Some(key) => Some(key),
                    None => continue,
                },
                _ => None,
            };
            let fits = |g: &Open| {
                g.key == key && same_range(g.range, range) && animation.targets.iter().all(|t| !g.targets.contains(t))
            };
            let at = match open.iter().position(fits) {
                Some(at) => at,
                None => {
                    open.push(Open { key, range, targets: HashSet::new(), members: Vec::new() });
                    open.len() - 1
                }
            };
            open[at].targets.extend(animation.targets.iter().copied());
            open[at].members.push(index);
            joined[index] = Some(at);
        }
    }
    let mut takes = Vec::new();
    for (index, group) in joined.iter().enumerate() {
        match group.map(|g| &open[g]) {
            Some(g) if g.members.len() > 1 => {
                if g.members[0] == index {
                    takes.push(Take { members: g.members.clone(), name: merged_name(animations, &g.members) });
                }
            }
            _ => takes.push(Take { members: vec![index], name: None }),
        }
    }
    takes
}

/// A merged take's name: the take part its members share, else `None` (the first
/// member's name, or `animation_<index>` when it has none).
fn merged_name(animations: &[Animation], members: &[usize]) -> Option<String> {
    let take = |i: usize| animations[i].name.and_then(take_part);
    let first = take(members[0])?;
    members.iter().all(|&i| take(i) == Some(first)).then(|| first.to_string())
}

/// Animations left alone though they could have joined a merged take but for a shared
/// (node, property): (the animation, the take's index in `takes`).
pub fn kept_apart(animations: &[Animation], takes: &[Take], mode: MergeClips) -> Vec<(usize, usize)> {
    let key = |i: usize| if mode == MergeClips::Auto { auto_key(&animations[i]) } else { None };
    let mut out = Vec::new();
    for take in takes.iter().filter(|t| !t.is_merged()) {
        let alone = take.members[0];
        let (Some(range), false) = (animations[alone].range, mode == MergeClips::Auto && key(alone).is_none()) else {
            continue;
        };
        let fits = |t: &Take| {
            let first = t.members[0];
            t.is_merged() && key(first) == key(alone) && animations[first].range.is_some_and(|r| same_range(r, range))
        };
        if let Some(at) = takes.iter().position(fits) {
            out.push((alone, at));
        }
    }
    out
}

/// The grouping's input for loaded clips: each clip's name, key-time range and targets.
pub fn summarize(clip: &Clip) -> Animation<'_> {
    let mut range: Option<(f64, f64)> = None;
    for channel in &clip.channels {
        let (Some(&first), Some(&last)) = (channel.times.first(), channel.times.last()) else { continue };
        let (first, last) = (f64::from(first), f64::from(last));
        range = Some(range.map_or((first, last), |(a, b)| (a.min(first), b.max(last))));
    }
    Animation {
        name: clip.name.as_deref(),
        range,
        targets: clip.channels.iter().map(|c| (c.node, c.property)).collect(),
    }
}

/// `0–18`, `0–3, 5, 7–9`: ascending indices, runs shortened.
pub fn index_list(indices: &[usize]) -> String {
    let mut parts = Vec::new();
    let mut i = 0;
    while i < indices.len() {
        let mut j = i;
        while j + 1 < indices.len() && indices[j + 1] == indices[j] + 1 {
            j += 1;
        }
        parts.push(if j > i { format!("{}–{}", indices[i], indices[j]) } else { indices[i].to_string() });
        i = j + 1;
    }
    parts.join(", ")
}

/// Clip names made unique, as the description, `--clips` and the slots need them: a
/// name that an earlier clip already has becomes `NAME (2)`, `NAME (3)`, … (the first
/// free one), in order, so the same file always gives the same names. Unnamed clips
/// keep no name (they are `animation_<index>`, unique already). Returns each name that
/// was repeated, once, in order.
pub fn unique_names<'a>(names: impl IntoIterator<Item = &'a mut Option<String>>) -> Vec<String> {
    let mut names: Vec<&mut Option<String>> = names.into_iter().collect();
    let given: HashSet<String> = names.iter().filter_map(|n| (**n).clone()).collect();
    let mut seen: HashSet<String> = HashSet::new();
    let mut repeated = Vec::new();
    for name in names.iter_mut() {
        let Some(text) = name.as_ref().filter(|n| !n.is_empty()).cloned() else { continue };
        if seen.insert(text.clone()) {
            continue;
        }
        let free = (2..)
            .map(|k| format!("{text} ({k})"))
            .find(|candidate| !given.contains(candidate) && !seen.contains(candidate))
            .unwrap_or_default();
        seen.insert(free.clone());
        **name = Some(free);
        if !repeated.contains(&text) {
            repeated.push(text);
        }
    }
    repeated
}

/// Merges loaded clips into takes by [`group`]: a merged clip has every member's
/// channels (in source order), the first member's `source_index`, and every
/// member's source index in `merged_from`. Returns the clips and one note per merged take.
pub fn merge_clips(clips: Vec<Clip>, mode: MergeClips) -> (Vec<Clip>, Vec<vat_model::Finding>) {
    let (takes, apart) = {
        let summaries: Vec<Animation> = clips.iter().map(summarize).collect();
        let takes = group(&summaries, mode);
        let apart = kept_apart(&summaries, &takes, mode);
        (takes, apart)
    };
    if takes.iter().all(|t| !t.is_merged()) {
        return (clips, Vec::new());
    }
    let label = |c: &Clip| match &c.name {
        Some(n) if !n.is_empty() => format!("animation {} \"{n}\"", c.source_index),
        _ => format!("animation {}", c.source_index),
    };
    let apart: Vec<(String, usize)> = apart.into_iter().map(|(i, t)| (label(&clips[i]), t)).collect();
    let mut slots: Vec<Option<Clip>> = clips.into_iter().map(Some).collect();
    let mut merged = Vec::with_capacity(takes.len());
    let mut notes = Vec::new();
    for take in takes {
        let mut members = take.members.iter().map(|&i| slots[i].take().expect("each clip is in one take"));
        let mut clip = members.next().expect("a take has a member");
        if take.members.len() > 1 {
            clip.merged_from = vec![clip.source_index];
            if take.name.is_some() {
                clip.name = take.name;
            }
            for member in members {
                clip.merged_from.push(member.source_index);
                clip.channels.extend(member.channels);
            }
            notes.push(vat_model::Finding::new(
                "clips-merged",
                format!(
                    "merged {} animations ({}) into clip \"{}\": one take split per node \
                     (same time range, no shared target); --no-merge-clips keeps them apart",
                    clip.merged_from.len(),
                    index_list(&clip.merged_from),
                    clip.display_name()
                ),
            ));
        }
        merged.push(clip);
    }
    for (animation, take) in apart {
        notes.push(vat_model::Finding::new(
            "clip-kept-apart",
            format!(
                "{animation} has the time range of clip \"{}\" but moves a node property it moves too: kept apart",
                merged[take].display_name()
            ),
        ));
    }
    (merged, notes)
}

#[cfg(test)]
mod tests {
    use super::*;
    use vat_model::{Channel, Interpolation};

    fn anim<'a>(name: Option<&'a str>, range: (f64, f64), targets: &[(usize, Property)]) -> Animation<'a> {
        Animation { name, range: Some(range), targets: targets.to_vec() }
    }

    const T: Property = Property::Translation;
    const R: Property = Property::Rotation;

    fn members(takes: &[Take]) -> Vec<Vec<usize>> {
        takes.iter().map(|t| t.members.clone()).collect()
    }

    #[test]
    fn a_split_take_merges_under_its_take_name() {
        let a = [
            anim(Some("Hips|Take 001|BaseLayer"), (0.0, 2.0), &[(0, T), (0, R)]),
            anim(Some("Spine|Take 001|BaseLayer"), (0.0, 2.00001), &[(1, R)]),
            anim(Some("Walk"), (0.0, 2.0), &[(2, R)]),
            anim(Some("Head|Take 001|BaseLayer"), (0.0, 2.0), &[(2, R)]),
        ];
        let takes = group(&a, MergeClips::Auto);
        assert_eq!(members(&takes), [vec![0, 1, 3], vec![2]]);
        assert_eq!(takes[0].name.as_deref(), Some("Take 001|BaseLayer"));
        assert_eq!(takes[1].name, None);
    }

    #[test]
    fn different_ranges_or_shared_targets_stay_apart() {
        let a = [
            anim(Some("Hips|Take 001"), (0.0, 2.0), &[(0, R)]),
            anim(Some("Spine|Take 001"), (0.0, 2.5), &[(1, R)]),
            anim(Some("Hips2|Take 001"), (0.1, 2.0), &[(2, R)]),
            anim(Some("Again|Take 001"), (0.0, 2.0), &[(0, R)]),
        ];
        let takes = group(&a, MergeClips::Auto);
        assert_eq!(members(&takes), [vec![0], vec![1], vec![2], vec![3]]);
        assert!(takes.iter().all(|t| !t.is_merged() && t.name.is_none()));
        // Same node, other property: disjoint, so they merge.
        let b = [anim(Some("a|Take"), (0.0, 1.0), &[(0, R)]), anim(Some("b|Take"), (0.0, 1.0), &[(0, T)])];
        assert_eq!(members(&group(&b, MergeClips::Auto)), [vec![0, 1]]);
    }

    #[test]
    fn names_without_a_take_part_never_merge_under_auto() {
        let a = [anim(Some("Walk"), (0.0, 1.0), &[(0, R)]), anim(Some("Run"), (0.0, 1.0), &[(1, R)])];
        assert_eq!(members(&group(&a, MergeClips::Auto)), [vec![0], vec![1]]);
        let b = [anim(Some("Walk|"), (0.0, 1.0), &[(0, R)]), anim(Some("Run|"), (0.0, 1.0), &[(1, R)])];
        assert_eq!(members(&group(&b, MergeClips::Auto)), [vec![0], vec![1]]);
        // Different take parts: two takes.
        let c = [anim(Some("a|Walk"), (0.0, 1.0), &[(0, R)]), anim(Some("b|Run"), (0.0, 1.0), &[(1, R)])];
        assert_eq!(members(&group(&c, MergeClips::Auto)), [vec![0], vec![1]]);
    }

    #[test]
    fn unnamed_animations_merge_under_the_first_name() {
        let a = [
            anim(None, (0.0, 2.0), &[(2, R)]),
            anim(Some(""), (0.0, 2.0), &[(3, R)]),
            anim(Some("Walk"), (0.0, 2.0), &[(4, R)]),
            anim(None, (0.0, 2.0), &[(5, R)]),
        ];
        let takes = group(&a, MergeClips::Auto);
        assert_eq!(members(&takes), [vec![0, 1, 3], vec![2]]);
        assert_eq!(takes[0].name, None);
    }

    #[test]
    fn never_keeps_them_apart_and_always_forces() {
        let a = [
            anim(Some("Walk"), (0.0, 1.0), &[(0, R)]),
            anim(Some("Hips|Take 001"), (0.0, 1.0), &[(1, R)]),
            anim(None, (0.0, 1.0), &[(2, R)]),
            anim(Some("Run"), (0.0, 1.0), &[(0, R)]),
            anim(Some("Jump"), (0.0, 3.0), &[(3, R)]),
        ];
        assert_eq!(members(&group(&a, MergeClips::Never)), [vec![0], vec![1], vec![2], vec![3], vec![4]]);
        let always = group(&a, MergeClips::Always);
        // Run shares Walk's target: it stays apart (alone); Jump's range differs.
        assert_eq!(members(&always), [vec![0, 1, 2], vec![3], vec![4]]);
        assert_eq!(always[0].name, None, "no shared take part: the first member's name");
        let same_take = [anim(Some("a|T"), (0.0, 1.0), &[(0, R)]), anim(Some("b|T"), (0.0, 1.0), &[(1, R)])];
        assert_eq!(group(&same_take, MergeClips::Always)[0].name.as_deref(), Some("T"));
        // No known range: never merges.
        let unknown = [Animation { name: None, range: None, targets: vec![] }, anim(None, (0.0, 1.0), &[(0, R)])];
        assert_eq!(members(&group(&unknown, MergeClips::Always)), [vec![0], vec![1]]);
    }

    fn clip(name: Option<&str>, index: usize, node: usize) -> Clip {
        Clip {
            name: name.map(str::to_string),
            source_index: index,
            merged_from: Vec::new(),
            file: None,
            channels: vec![Channel {
                node,
                property: R,
                interpolation: Interpolation::Linear,
                times: vec![0.0, 1.0],
                values: vec![0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 1.0],
            }],
        }
    }

    #[test]
    fn merged_clips_keep_their_sources_and_channels() {
        let clips = vec![
            clip(Some("Walk"), 0, 0),
            clip(Some("Hips|Take 001|BaseLayer"), 1, 1),
            clip(Some("Spine|Take 001|BaseLayer"), 2, 2),
            clip(Some("Head|Take 001|BaseLayer"), 3, 3),
        ];
        let (merged, notes) = merge_clips(clips.clone(), MergeClips::Auto);
        assert_eq!(merged.len(), 2);
        assert_eq!(merged[0].display_name(), "Walk");
        assert!(merged[0].merged_from.is_empty());
        assert_eq!(merged[1].display_name(), "Take 001|BaseLayer");
        assert_eq!((merged[1].source_index, &merged[1].merged_from[..]), (1, &[1, 2, 3][..]));
        assert_eq!(merged[1].channels.iter().map(|c| c.node).collect::<Vec<_>>(), [1, 2, 3]);
        assert_eq!(
            notes.iter().map(|n| n.message.as_str()).collect::<Vec<_>>(),
            ["merged 3 animations (1–3) into clip \"Take 001|BaseLayer\": one take split per node \
              (same time range, no shared target); --no-merge-clips keeps them apart"]
        );
        let (apart, notes) = merge_clips(clips, MergeClips::Never);
        assert_eq!(apart.len(), 4);
        assert!(notes.is_empty() && apart.iter().all(|c| c.merged_from.is_empty()));
    }

    #[test]
    fn an_animation_kept_apart_by_a_shared_target_is_named() {
        let a = [
            anim(Some("a|T"), (0.0, 1.0), &[(0, R)]),
            anim(Some("b|T"), (0.0, 1.0), &[(1, R)]),
            anim(Some("c|T"), (0.0, 1.0), &[(1, R)]),
            anim(Some("d|U"), (0.0, 1.0), &[(1, R)]),
            anim(Some("e|T"), (0.0, 2.0), &[(1, R)]),
        ];
        let auto = group(&a, MergeClips::Auto);
        assert_eq!(members(&auto), [vec![0, 1], vec![2], vec![3], vec![4]]);
        assert_eq!(kept_apart(&a, &auto, MergeClips::Auto), [(2, 0)]);
        let always = group(&a, MergeClips::Always);
        assert_eq!(members(&always), [vec![0, 1], vec![2], vec![3], vec![4]]);
        assert_eq!(kept_apart(&a, &always, MergeClips::Always), [(2, 0), (3, 0)]);
    }

    #[test]
    fn index_lists_shorten_runs() {
        assert_eq!(index_list(&[0, 1, 2, 3, 5, 7, 8, 9]), "0–3, 5, 7–9");
        assert_eq!(index_list(&[4]), "4");
    }

    #[test]
    fn repeated_names_take_the_first_free_suffix_in_order() {
        let mut names: Vec<Option<String>> =
            ["Run", "Idle", "Run", "Run (2)", "Run", "", "Idle"].iter().map(|n| Some(n.to_string())).collect();
        names.push(None);
        let repeated = unique_names(names.iter_mut());
        let got: Vec<Option<&str>> = names.iter().map(|n| n.as_deref()).collect();
        assert_eq!(
            got,
            [
                Some("Run"),
                Some("Idle"),
                Some("Run (3)"),
                Some("Run (2)"),
                Some("Run (4)"),
                Some(""),
                Some("Idle (2)"),
                None
            ]
        );
        assert_eq!(repeated, ["Run", "Idle"]);
    }
}
