//! `--sockets`: the world transform of named joints on every row, for attaching things
//! to a unit without a skeleton (the description's `sockets`).

use glam::Mat4;

use crate::description::{self};
use crate::error::Error;
use crate::features::root_motion::worlds;

/// The nearest of `names` to `wanted` (edit distance, case folded), at most `count`, nearest first.
pub fn nearest_names<'a>(wanted: &str, names: impl IntoIterator<Item = &'a str>, count: usize) -> Vec<&'a str> {
    let wanted = wanted.to_lowercase();
    let mut scored: Vec<(usize, &str)> =
        names.into_iter().map(|n| (edit_distance(&wanted, &n.to_lowercase()), n)).collect();
    scored.sort();
    scored.dedup_by(|a, b| a.1 == b.1);
    scored.into_iter().take(count).map(|(_, n)| n).collect()
}

pub(crate) fn edit_distance(a: &str, b: &str) -> usize {
    let b: Vec<char> = b.chars().collect();
    let mut row: Vec<usize> = (0..=b.len()).collect();
    for (i, ca) in a.chars().enumerate() {
        let mut diagonal = row[0];
        row[0] = i + 1;
        for (j, &cb) in b.iter().enumerate() {
            let next = (diagonal + usize::from(ca != cb)).min(row[j] + 1).min(row[j + 1] + 1);
            diagonal = row[j + 1];
            row[j + 1] = next;
        }
    }
    row[b.len()]
}

/// The error for a socket name that matches no joint.
pub(crate) fn unknown_socket(file: &std::path::Path, wanted: &str, joints: &[&str]) -> Error {
    let near: Vec<String> =
        nearest_names(wanted, joints.iter().copied(), 5).iter().map(|n| format!("\"{n}\"")).collect();
    Error::usage(format!(
        "{}: --sockets {wanted}: no joint is named \"{wanted}\"; the nearest joint names are {}",
        file.display(),
        if near.is_empty() { "(none: the model has no named joints)".to_string() } else { near.join(", ") }
    ))
}

/// The named joints' transforms on every row, in the bake's space (after `corrections`).
pub(crate) fn sockets(
    model: &vat_model::Model,
    clips: &[&vat_model::Clip],
    clip_rows: &[vat_model::ClipRows],
    corrections: &[Mat4],
    names: &[String],
    file: &std::path::Path,
) -> Result<Vec<description::Socket>, Error> {
    if names.is_empty() {
        return Ok(Vec::new());
    }
    let mut joints: Vec<usize> = model.skins.iter().flat_map(|s| s.joints.iter().copied()).collect();
    joints.sort_unstable();
    joints.dedup();
    let joint_name = |node: usize| model.nodes.get(node).and_then(|n| n.name.as_deref());
    let mut wanted = Vec::with_capacity(names.len());
    for name in names {
        match joints.iter().find(|&&j| joint_name(j) == Some(name.as_str())) {
            Some(&node) => wanted.push((name.clone(), node)),
            None => {
                let named: Vec<&str> = joints.iter().filter_map(|&j| joint_name(j)).collect();
                return Err(unknown_socket(file, name, &named));
            }
        }
    }
    let mut rows: Vec<Vec<[f32; 7]>> = vec![Vec::with_capacity(corrections.len()); wanted.len()];
    let mut row = 0;
    for (clip, clip_rows) in clips.iter().zip(clip_rows) {
        for time in clip_rows.times() {
            let worlds = worlds(model, clip, time);
            for ((_, node), out) in wanted.iter().zip(rows.iter_mut()) {
                let world = corrections[row] * worlds[*node];
                let (_, rotation, translation) = world.to_scale_rotation_translation();
                let q = rotation.normalize();
                let q = if q.w < 0.0 { -q } else { q };
                out.push([translation.x, translation.y, translation.z, q.x, q.y, q.z, q.w]);
            }
            row += 1;
        }
    }
    Ok(wanted
        .into_iter()
        .zip(rows)
        .map(|((name, node), rows)| description::Socket { name, node: node as u32, rows })
        .collect())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn nearest_names_come_first() {
        let joints = ["b_Hip_01", "b_Spine01_02", "b_RightHand_044", "b_LeftHand_027"];
        assert_eq!(nearest_names("b_RightHand_04", joints, 2), ["b_RightHand_044", "b_LeftHand_027"]);
    }
}
