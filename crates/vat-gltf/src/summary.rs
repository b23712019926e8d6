//! The cheap part of a document: its animations' names, key-time ranges and targets,
//! read from the JSON alone, never the buffers — as the `gltf` crate keeps the
//! document apart from the bytes it points into.
//!
//! Only the fields it needs are deserialized (`asset.version`, each animation's name,
//! channels and sampler inputs, and each accessor's `min` and `max`); serde skips the
//! rest unparsed, which is about ten times faster than building the whole document and
//! is what lets `vatbake audit` check hundreds of sources in a blink (docs/AUDIT.md,
//! "Speed"). The version check and the mapping of channel paths to node properties are
//! the loader's own, so the summary and a bake agree on what a clip is; its clips are
//! grouped into takes by the same rule ([`crate::takes::group`]).

use std::path::Path;

use gltf::json::animation::Property as JsonProperty;
use gltf::json::validation::Checked;
use serde::Deserialize;
use vat_model::Property;

use crate::container;
use crate::document::{check_version, node_property};
use crate::error::{ErrorKind, LoadError};
use crate::takes::MergeClips;

/// The animations of a document, from its JSON alone.
#[derive(Clone, Debug, PartialEq)]
pub struct Summary {
    /// Every animation, in source order.
    pub animations: Vec<AnimationSummary>,
}

/// One animation: its name, duration, key-time range and targets.
#[derive(Clone, Debug, PartialEq)]
pub struct AnimationSummary {
    /// The source name, if it has one.
    pub name: Option<String>,
    /// The largest `max` of its node-motion channels' key-time accessors (glTF requires
    /// `min` and `max` on animation inputs): 0 with no such channel, `None` when an
    /// accessor has no `max` to read.
    pub duration: Option<f64>,
    /// The smallest `min` and largest `max` of those accessors, for the merging of
    /// takes; `None` when there is no channel or a bound is missing.
    pub range: Option<(f64, f64)>,
    /// The (node, property) pairs its node-motion channels animate.
    pub targets: Vec<(usize, Property)>,
}

/// One clip of the document, as a bake with some [`MergeClips`] mode makes it.
#[derive(Clone, Debug, PartialEq)]
pub struct ClipSummary {
    /// The clip's name: a merged take's shared name, else the (first) animation's;
    /// `None` for an unnamed animation (the bake calls it `animation_<index>`).
    pub name: Option<String>,
    /// Index of the animation in the source file (the first one, for a merged take).
    pub source_index: usize,
    /// The largest duration of its animations, or `None` when one is not known.
    pub duration: Option<f64>,
}

#[derive(Deserialize)]
struct Document {
    asset: Option<Asset>,
    #[serde(default)]
    animations: Vec<Animation>,
    #[serde(default)]
    accessors: Vec<Bounds>,
}

#[derive(Deserialize)]
struct Asset {
    version: Option<String>,
}

#[derive(Deserialize)]
struct Animation {
    name: Option<String>,
    #[serde(default)]
    channels: Vec<Channel>,
    #[serde(default)]
    samplers: Vec<Sampler>,
}

#[derive(Deserialize)]
struct Channel {
    sampler: usize,
    target: Target,
}

#[derive(Deserialize)]
struct Target {
    node: Option<usize>,
    path: Checked<JsonProperty>,
}

#[derive(Deserialize)]
struct Sampler {
    input: usize,
}

#[derive(Deserialize)]
struct Bounds {
    min: Option<Vec<f64>>,
    max: Option<Vec<f64>>,
}

impl Summary {
    /// The summary of the document in `bytes` (a `.glb` or a `.gltf`); `file` names it
    /// in errors. Reads the JSON only: external buffers are never opened.
    ///
    /// ```
    /// let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../fixtures/Fox/Fox.glb");
    /// let summary = vat_gltf::Summary::read(&path, &std::fs::read(&path).unwrap())?;
    /// let names: Vec<_> = summary.animations.iter().map(|a| a.name.as_deref().unwrap()).collect();
    /// assert_eq!(names, ["Survey", "Walk", "Run"]);
    /// assert!((summary.animations[1].duration.unwrap() - 0.7083333).abs() < 1e-6);
    /// # Ok::<(), vat_gltf::LoadError>(())
    /// ```
    pub fn read(file: &Path, bytes: &[u8]) -> Result<Summary, LoadError> {
        let json = container::split(file, bytes)?.json;
        let document: Document = serde_json::from_slice(json)
            .map_err(|e| LoadError::new(file, ErrorKind::NotGltf, format!("not a glTF 2.0 document: {e}")))?;
        check_version(file, document.asset.as_ref().and_then(|a| a.version.as_deref()))?;
        let animations = document.animations.iter().map(|a| summarize(a, &document.accessors)).collect();
        Ok(Summary { animations })
    }

    /// The clips a bake with this merge mode makes of the animations: the same grouping
    /// as the bake's ([`crate::takes::group`]), under the names the file gives them
    /// (several may share one). The bake makes the names unique
    /// ([`crate::takes::unique_names`]) once every file's clips are in, and so must a
    /// reader that compares with it.
    pub fn takes(&self, merge: MergeClips) -> Vec<ClipSummary> {
        let grouped: Vec<crate::takes::Animation> = self
            .animations
            .iter()
            .map(|a| crate::takes::Animation { name: a.name.as_deref(), range: a.range, targets: a.targets.clone() })
            .collect();
        crate::takes::group(&grouped, merge)
            .into_iter()
            .map(|take| {
                let first = &self.animations[take.members[0]];
                let mut durations = take.members.iter().map(|&i| self.animations[i].duration);
                ClipSummary {
                    name: take.name.or_else(|| first.name.clone()),
                    source_index: take.members[0],
                    duration: durations.try_fold(0.0f64, |d, m| m.map(|m| d.max(m))),
                }
            })
            .collect()
    }
}

fn summarize(animation: &Animation, accessors: &[Bounds]) -> AnimationSummary {
    let mut duration = Some(0.0f64);
    let mut range: Option<Option<(f64, f64)>> = None;
    let mut targets = Vec::new();
    for channel in &animation.channels {
        let Some(property) = node_property(&channel.target.path) else { continue };
        let input = animation.samplers.get(channel.sampler).and_then(|s| accessors.get(s.input));
        let first = |v: &Option<Vec<f64>>| v.as_ref().and_then(|m| m.first().copied());
        let (min, max) = (input.and_then(|a| first(&a.min)), input.and_then(|a| first(&a.max)));
        duration = duration.zip(max).map(|(d, m)| d.max(m));
        let known = range.unwrap_or(Some((f64::INFINITY, f64::NEG_INFINITY)));
        range = Some(known.zip(min.zip(max)).map(|((a, b), (lo, hi))| (a.min(lo), b.max(hi))));
        targets.extend(channel.target.node.map(|node| (node, property)));
    }
    AnimationSummary { name: animation.name.clone(), duration, range: range.flatten(), targets }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn read(json: &str) -> Result<Summary, LoadError> {
        Summary::read(Path::new("t.gltf"), json.as_bytes())
    }

    #[test]
    fn durations_ranges_and_targets_from_the_json() {
        let summary = read(
            r#"{"asset":{"version":"2.0"},
                "accessors":[{"min":[0.5],"max":[2.0]},{"min":[0],"max":[3.0]},{"min":[0]}],
                "animations":[
                  {"name":"A","samplers":[{"input":0},{"input":1}],
                   "channels":[{"sampler":0,"target":{"node":4,"path":"rotation"}},
                               {"sampler":1,"target":{"node":2,"path":"weights"}},
                               {"sampler":1,"target":{"path":"pointer"}}]},
                  {"samplers":[{"input":2}],"channels":[{"sampler":0,"target":{"node":1,"path":"scale"}}]},
                  {"name":"still"}]}"#,
        )
        .unwrap();
        let a = &summary.animations[0];
        // The pointer channel is not node motion: it counts for nothing, as in the bake.
        assert_eq!((a.duration, a.range), (Some(3.0), Some((0.0, 3.0))));
        assert_eq!(a.targets, [(4, Property::Rotation), (2, Property::Weights)]);
        assert_eq!((summary.animations[1].duration, summary.animations[1].range), (None, None));
        assert_eq!((summary.animations[2].duration, summary.animations[2].range), (Some(0.0), None));
        let clips = summary.takes(MergeClips::Never);
        assert_eq!(clips.iter().map(|c| c.source_index).collect::<Vec<_>>(), [0, 1, 2]);
        assert_eq!(clips[1].name, None);
    }

    #[test]
    fn the_loaders_version_check() {
        let e = read(r#"{"asset":{"version":"1.0"}}"#).unwrap_err();
        assert_eq!((e.kind, e.message.as_str()), (ErrorKind::Unsupported, "glTF version 1.0; only 2.x is read"));
        let e = read(r#"{"animations":[]}"#).unwrap_err();
        assert_eq!(e.message, "not a glTF 2.0 document: it has no asset.version");
        let e = read("[1]").unwrap_err();
        assert_eq!(e.kind, ErrorKind::NotGltf);
        assert!(read(r#"{"asset":{"version":"2.0"}}"#).unwrap().animations.is_empty());
    }
}
