//! `--root-motion`: the root's horizontal motion kept in the texels, extracted (played
//! in place, recorded per row) or zeroed, by clip. Applied as the rows are evaluated.

use std::collections::BTreeMap;

use glam::{Mat4, Vec3};

use crate::description::{self, ClipEntry};
use crate::error::Error;

/// What `--root-motion` does with a clip's root motion: the description's
/// `settings.root_motion` and `clips[i].root_motion.mode`.
pub use vat_description::RootMotionMode as RootMotion;

/// `--root-motion MODE[,CLIP=MODE…]`: a mode for every clip, and overrides by clip name.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct RootMotionChoice {
    /// The mode of every clip not named in `clips`.
    pub default: RootMotion,
    /// Overrides by clip name.
    pub clips: BTreeMap<String, RootMotion>,
}

impl RootMotionChoice {
    /// The mode of the clip named `name`.
    pub fn of(&self, name: &str) -> RootMotion {
        self.clips.get(name).copied().unwrap_or(self.default)
    }

    /// Whether any clip has its root motion taken out.
    pub fn any(&self) -> bool {
        self.default != RootMotion::Keep || self.clips.values().any(|&m| m != RootMotion::Keep)
    }
}

impl std::str::FromStr for RootMotionChoice {
    type Err = String;
    /// `extract`, `extract,Idle=keep`, `Walk=extract,Run=zero`.
    fn from_str(s: &str) -> Result<Self, String> {
        let mut choice = RootMotionChoice::default();
        let mut default_given = false;
        for part in s.split(',').map(str::trim) {
            match part.split_once('=') {
                Some((clip, mode)) => {
                    let clip = clip.trim();
                    if clip.is_empty() {
                        return Err(format!("\"{part}\": name the clip before '=' (CLIP=MODE)"));
                    }
                    if choice.clips.insert(clip.to_string(), mode.trim().parse()?).is_some() {
                        return Err(format!("clip \"{clip}\" is given twice"));
                    }
                }
                None => {
                    if default_given {
                        return Err(format!("\"{s}\": give one mode for all clips, then CLIP=MODE overrides"));
                    }
                    choice.default = part.parse()?;
                    default_given = true;
                }
            }
        }
        Ok(choice)
    }
}

/// The root of the model's motion, as the glTF specification allows: the first
/// skin's `skeleton` node, else the nearest common ancestor of its joints. `None`
/// for a model without a skin with joints.
pub fn root_node(model: &vat_model::Model) -> Option<usize> {
    let skin = model.skins.iter().find(|s| !s.joints.is_empty())?;
    if let Some(node) = skin.skeleton {
        return Some(node);
    }
    let chain = |mut node: usize| {
        let mut up = vec![node];
        while let Some(parent) = model.nodes.get(node).and_then(|n| n.parent) {
            if up.len() > model.nodes.len() {
                break; // a cycle: the loader refuses these, but never loop
            }
            up.push(parent);
            node = parent;
        }
        up.reverse(); // root first
        up
    };
    let mut common = chain(skin.joints[0]);
    for &joint in &skin.joints[1..] {
        let other = chain(joint);
        let same = common.iter().zip(&other).take_while(|(a, b)| a == b).count();
        common.truncate(same);
    }
    common.last().copied()
}

/// World matrices of every node at `time` of `clip`.
pub(crate) fn worlds(model: &vat_model::Model, clip: &vat_model::Clip, time: f32) -> Vec<Mat4> {
    vat_skin::world_matrices(model, &vat_skin::sample_pose(model, Some(clip), time))
}

/// Takes the root's horizontal motion out of the rows of every clip whose mode is
/// not `keep`: each row is moved by minus the root's (x, z) travel since the clip's
/// first row. Records it on the clip entries and returns each row's correction
/// (identity on kept rows), for the sockets.
pub(crate) fn take_root_motion(
    model: &vat_model::Model,
    clips: &[&vat_model::Clip],
    clip_rows: &[vat_model::ClipRows],
    poses: &mut [vat_skin::RowPose],
    entries: &mut [ClipEntry],
    choice: &RootMotionChoice,
    file: &std::path::Path,
) -> Result<Vec<Mat4>, Error> {
    let mut corrections = vec![Mat4::IDENTITY; poses.len()];
    if !choice.any() {
        return Ok(corrections);
    }
    for name in choice.clips.keys() {
        if !entries.iter().any(|e| &e.name == name) {
            let names: Vec<String> = entries.iter().map(|e| format!("\"{}\"", e.name)).collect();
            return Err(Error::usage(format!(
                "{}: --root-motion {name}=…: the bake has no clip named \"{name}\"; its clips are {}",
                file.display(),
                names.join(", ")
            )));
        }
    }
    let root = root_node(model).ok_or_else(|| {
        Error::usage(format!(
            "{}: --root-motion: the model has no skin, so no root joint to take the motion of; drop --root-motion",
            file.display()
        ))
    })?;
    for ((clip, rows), entry) in clips.iter().zip(clip_rows).zip(entries.iter_mut()) {
        let mode = choice.of(&entry.name);
        if mode == RootMotion::Keep {
            continue;
        }
        let times = rows.times();
        let positions: Vec<Vec3> = times.iter().map(|&t| worlds(model, clip, t)[root].w_axis.truncate()).collect();
        let start = positions[0];
        let translation: Vec<[f32; 3]> = positions.iter().map(|p| [p.x - start.x, 0.0, p.z - start.z]).collect();
        for (k, t) in translation.iter().enumerate() {
            let row = entry.row as usize + k;
            let correction = Mat4::from_translation(-Vec3::from_array(*t));
            poses[row].premultiply(correction);
            corrections[row] = correction;
        }
        entry.root_motion = Some(description::RootMotion {
            mode,
            node: root as u32,
            translation: (mode == RootMotion::Extract).then_some(translation),
            yaw: None,
        });
    }
    Ok(corrections)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn root_motion_choices_parse() {
        let c: RootMotionChoice = "extract,Survey=keep".parse().unwrap();
        assert_eq!(
            (c.default, c.of("Survey"), c.of("Walk")),
            (RootMotion::Extract, RootMotion::Keep, RootMotion::Extract)
        );
        assert!("slide".parse::<RootMotionChoice>().unwrap_err().contains("give one of keep, extract, zero"));
        assert!("extract,zero".parse::<RootMotionChoice>().is_err());
        assert!("=zero".parse::<RootMotionChoice>().is_err());
    }
}
