//! Clips from another file played on the character's skeleton (`--animations`), bound
//! node by node by name, the way three.js's `AnimationMixer` binds a clip's tracks to
//! the objects of a loaded scene.
//!
//! three.js names each object by `PropertyBinding.sanitizeNodeName` (white space to `_`,
//! the reserved characters `[ ] . : /` removed) and a track binds to the object of the
//! same sanitized name. Real libraries name one skeleton in several ways, so a name that
//! finds no node that way is tried again without Mixamo's prefix (`mixamorig:Hips`,
//! `mixamorig1:Hips` and `Hips` are one joint), and a name map (library name →
//! character name) settles the rest.
//!
//! Key values are played as they are: a rotation is local to its joint, so it carries
//! over between skeletons whose rest orientations agree (Mixamo and Ready Player Me
//! rigs, a library made from the character itself). Translation keys are positions in
//! the library's proportions: [`Translations::All`] keeps them (what three.js shows),
//! [`Translations::Root`] keeps only the root's, so that limbs keep the character's
//! bone lengths.

use std::collections::{BTreeMap, BTreeSet};

use vat_model::{Clip, Model, Node, Property};

use crate::Library;

/// What happens to translation keys (`--animation-translations`): `All` plays every
/// translation track (what three.js's AnimationMixer shows), `Root` only the root's
/// (the topmost animated node that binds), so that the other joints keep the
/// character's rest translations and bone lengths.
pub use vat_description::AnimationTranslations as Translations;

/// The name three.js gives a node and binds a track by: white space to `_`, and the
/// characters `[ ] . : /` removed.
pub fn sanitize(name: &str) -> String {
    name.chars()
        .filter(|c| !matches!(c, '[' | ']' | '.' | ':' | '/'))
        .map(|c| if c.is_whitespace() { '_' } else { c })
        .collect()
}

/// A sanitized name without Mixamo's prefix (`mixamorig`, `mixamorig1`, …), the
/// second way a name is tried.
fn unprefixed(sanitized: &str) -> &str {
    match sanitized.strip_prefix("mixamorig") {
        Some(rest) => {
            let rest = rest.trim_start_matches(|c: char| c.is_ascii_digit());
            rest.strip_prefix('_').unwrap_or(rest)
        }
        None => sanitized,
    }
}

/// The clips of `library` bound to `character`'s nodes, and what did not bind.
#[derive(Clone, Debug, Default)]
pub struct Bound {
    /// The library's clips with every channel naming a node of the character; channels
    /// whose node did not bind (or whose translation `Translations::Root` drops) are gone.
    pub clips: Vec<Clip>,
    /// The library's animated nodes, by name.
    pub animated: Vec<String>,
    /// Those that bound to a node of the character.
    pub bound: usize,
    /// Animated nodes of the library that bind to nothing, by name.
    pub unbound: Vec<String>,
    /// Joints of the character's skins that no bound track moves, by name.
    pub unmoved_joints: Vec<String>,
    /// Translation tracks dropped by [`Translations::Root`].
    pub dropped_translations: usize,
}

/// Binds `library`'s clips to `character` by node name: the exact sanitized name, then
/// the name without Mixamo's prefix, then `names` (library name → character name, by
/// the names as the files give them).
pub fn bind(
    library: &Library,
    character: &Model,
    names: &BTreeMap<String, String>,
    translations: Translations,
) -> Bound {
    let name_of = |nodes: &[Node], i: usize| nodes.get(i).and_then(|n| n.name.clone()).unwrap_or_default();
    let mut exact: BTreeMap<String, usize> = BTreeMap::new();
    let mut loose: BTreeMap<String, usize> = BTreeMap::new();
    let mut given: BTreeMap<String, usize> = BTreeMap::new();
    for (i, node) in character.nodes.iter().enumerate() {
        let Some(name) = node.name.as_deref().filter(|n| !n.is_empty()) else { continue };
        let sanitized = sanitize(name);
        loose.entry(unprefixed(&sanitized).to_string()).or_insert(i);
        exact.entry(sanitized).or_insert(i);
        given.entry(name.to_string()).or_insert(i);
    }
    let target = |i: usize| -> Option<usize> {
        let name = name_of(&library.nodes, i);
        if name.is_empty() {
            return None;
        }
        if let Some(mapped) = names.get(&name) {
            return given.get(mapped).copied();
        }
        let sanitized = sanitize(&name);
        exact.get(&sanitized).or_else(|| loose.get(unprefixed(&sanitized))).copied()
    };
    let animated: BTreeSet<usize> = library.clips.iter().flat_map(|c| c.channels.iter().map(|ch| ch.node)).collect();
    let map: BTreeMap<usize, usize> = animated.iter().filter_map(|&i| target(i).map(|t| (i, t))).collect();
    // The root: a bound animated node none of whose library ancestors is bound and animated.
    let is_root = |mut i: usize| {
        while let Some(parent) = library.nodes.get(i).and_then(|n| n.parent) {
            if map.contains_key(&parent) {
                return false;
            }
            i = parent;
        }
        true
    };
    let mut dropped_translations = 0;
    let clips = library
        .clips
        .iter()
        .map(|clip| {
            let mut channels = Vec::with_capacity(clip.channels.len());
            for channel in &clip.channels {
                let Some(&node) = map.get(&channel.node) else { continue };
                if channel.property == Property::Translation
                    && translations == Translations::Root
                    && !is_root(channel.node)
                {
                    dropped_translations += 1;
                    continue;
                }
                // A weights track binds only to a node whose mesh has as many morph targets.
                if channel.property == Property::Weights {
                    let targets = character.parts.iter().find(|p| p.node == node).map_or(0, |p| p.morph_targets.len());
                    let keys = channel.times.len().max(1);
                    let width = channel.values.len() / keys;
                    if targets == 0 || (width != targets && width != 3 * targets) {
                        continue;
                    }
                }
                let mut bound = channel.clone();
                bound.node = node;
                channels.push(bound);
            }
            Clip { channels, ..clip.clone() }
        })
        .collect();
    let moved: BTreeSet<usize> = map.values().copied().collect();
    let mut unmoved_joints: Vec<String> = Vec::new();
    for skin in &character.skins {
        for &joint in &skin.joints {
            let name = name_of(&character.nodes, joint);
            if !moved.contains(&joint) && !unmoved_joints.contains(&name) {
                unmoved_joints.push(name);
            }
        }
    }
    Bound {
        clips,
        animated: animated.iter().map(|&i| name_of(&library.nodes, i)).collect(),
        bound: map.len(),
        unbound: animated.iter().filter(|i| !map.contains_key(i)).map(|&i| name_of(&library.nodes, i)).collect(),
        unmoved_joints,
        dropped_translations,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_sanitize_as_three_js_does_and_lose_mixamo_prefixes() {
        assert_eq!(sanitize("mixamorig:Left Arm"), "mixamorigLeft_Arm");
        assert_eq!(sanitize("Armature/Hips.001[x]"), "ArmatureHips001x");
        assert_eq!(unprefixed(&sanitize("mixamorig:Hips")), "Hips");
        assert_eq!(unprefixed(&sanitize("mixamorig1:Hips")), "Hips");
        assert_eq!(unprefixed("mixamorig_Hips"), "Hips");
        assert_eq!(unprefixed("Hips"), "Hips");
    }
}
