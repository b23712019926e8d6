//! The bake features a runtime's playback asks for (issue 17): loop rows, sockets,
//! root motion, a texture bounded in both directions (array layers past the height),
//! and where the normals go. Each is off by default; a default bake is unchanged.

use std::collections::BTreeMap;

use glam::{Mat4, Vec3};

use crate::choice::named;
use crate::description::{self, ClipEntry};
use crate::error::Error;

/// What `--root-motion` does with a clip's root motion.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum RootMotion {
    /// Leave it in the texels (the default).
    #[default]
    Keep,
    /// Take the root's horizontal translation out of the texels and record it per row.
    Extract,
    /// Take it out and record nothing.
    Zero,
}

impl RootMotion {
    /// Every mode, in the order the errors list them.
    pub const ALL: [RootMotion; 3] = [RootMotion::Keep, RootMotion::Extract, RootMotion::Zero];

    /// The name the description records.
    pub fn as_str(self) -> &'static str {
        match self {
            RootMotion::Keep => "keep",
            RootMotion::Extract => "extract",
            RootMotion::Zero => "zero",
        }
    }
}

impl std::str::FromStr for RootMotion {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, String> {
        named(&RootMotion::ALL, RootMotion::as_str, s, "a root motion mode")
    }
}

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

/// `--normals`: where the normals go.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum NormalsMode {
    /// Octahedral 8 + 8 in the position texels' alpha (the default).
    #[default]
    Packed,
    /// Octahedral 16 + 16 in R and G of their own array layers after the positions'.
    Separate,
    /// Not stored: the alpha holds 0; a runtime uses rest or flat normals.
    None,
}

impl NormalsMode {
    /// Every mode, in the order the errors list them.
    pub const ALL: [NormalsMode; 3] = [NormalsMode::Packed, NormalsMode::Separate, NormalsMode::None];

    /// The name the description records.
    pub fn as_str(self) -> &'static str {
        match self {
            NormalsMode::Packed => "packed",
            NormalsMode::Separate => "separate",
            NormalsMode::None => "none",
        }
    }
}

impl std::str::FromStr for NormalsMode {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, String> {
        named(&NormalsMode::ALL, NormalsMode::as_str, s, "a normals mode")
    }
}

/// A texture size bound, `WxH` (`--max-size`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct MaxSize {
    /// Widest texture.
    pub width: u32,
    /// Tallest texture or array layer.
    pub height: u32,
}

impl std::str::FromStr for MaxSize {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, String> {
        let bad = || format!("\"{s}\" is not a size: give WIDTHxHEIGHT in texels, e.g. 4096x4096");
        let (w, h) = s.split_once(['x', 'X']).ok_or_else(bad)?;
        let (width, height) =
            (w.trim().parse::<u32>().map_err(|_| bad())?, h.trim().parse::<u32>().map_err(|_| bad())?);
        if width == 0 || height == 0 {
            return Err(format!("\"{s}\": both sides must be at least 1 texel"));
        }
        Ok(MaxSize { width, height })
    }
}

/// `--device`: the size bound and GPU memory budget of a class of targets.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Device {
    /// WebGL 2 in browsers (headless Chromium's MAX_TEXTURE_SIZE is 8192).
    Web,
    /// Phones: 4096 texels, a small budget.
    Mobile,
    /// Desktop GPUs: 16384 texels.
    Desktop,
}

impl Device {
    /// The size bound.
    pub fn max_size(self) -> MaxSize {
        let side = match self {
            Device::Web => 8192,
            Device::Mobile => 4096,
            Device::Desktop => 16384,
        };
        MaxSize { width: side, height: side }
    }

    /// The GPU memory budget per unit, in bytes, warned past (`--gpu-budget` overrides it).
    pub fn gpu_budget(self) -> u64 {
        match self {
            Device::Web => 128 << 20,
            Device::Mobile => 32 << 20,
            Device::Desktop => 512 << 20,
        }
    }
}

impl std::str::FromStr for Device {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, String> {
        match s {
            "web" => Ok(Device::Web),
            "mobile" => Ok(Device::Mobile),
            "desktop" => Ok(Device::Desktop),
            _ => Err(format!("\"{s}\" is not a device: give web, mobile or desktop")),
        }
    }
}

/// A byte count for `--gpu-budget`: a whole number with an optional unit, `512MiB`,
/// `64MB` (both read as MiB), `2GiB`, `1048576`.
pub fn parse_bytes(s: &str) -> Result<u64, String> {
    let t = s.trim();
    let split = t.find(|c: char| !c.is_ascii_digit()).unwrap_or(t.len());
    let (digits, unit) = t.split_at(split);
    let scale: u64 = match unit.trim().to_ascii_lowercase().as_str() {
        "" | "b" => 1,
        "k" | "kb" | "kib" => 1 << 10,
        "m" | "mb" | "mib" => 1 << 20,
        "g" | "gb" | "gib" => 1 << 30,
        _ => return Err(format!("\"{s}\" is not a size in bytes: give e.g. 256MiB, 1GiB or a number of bytes")),
    };
    let n: u64 = digits.parse().map_err(|_| format!("\"{s}\" is not a size in bytes: give e.g. 256MiB"))?;
    n.checked_mul(scale).filter(|&b| b > 0).ok_or_else(|| format!("\"{s}\": give a budget above 0 and below 16 EiB"))
}

/// The nearest of `names` to `wanted` (edit distance, case folded), at most `count`, nearest first.
pub fn nearest_names<'a>(wanted: &str, names: impl IntoIterator<Item = &'a str>, count: usize) -> Vec<&'a str> {
    let wanted = wanted.to_lowercase();
    let mut scored: Vec<(usize, &str)> =
        names.into_iter().map(|n| (edit_distance(&wanted, &n.to_lowercase()), n)).collect();
    scored.sort();
    scored.dedup_by(|a, b| a.1 == b.1);
    scored.into_iter().take(count).map(|(_, n)| n).collect()
}

fn edit_distance(a: &str, b: &str) -> usize {
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

/// How the logical texture (`layout.height` rows) is split into array layers.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Layers {
    /// Layers (1: a plain 2D texture).
    pub count: u32,
    /// Rows per layer.
    pub height: u32,
}

impl Layers {
    /// The fewest layers of at most `max_height` rows that hold `layout.height` rows,
    /// as even as they can be: `ceil(height / count)` rows each.
    pub fn of(layout: &vat_model::Layout, max_height: Option<u32>) -> Layers {
        let height = layout.height.max(1) as u32;
        let count = max_height.map_or(1, |h| height.div_ceil(h.max(1)));
        Layers { count, height: height.div_ceil(count) }
    }

    /// Rows in all layers: the texture's and the last layer's padding.
    pub fn rows(&self) -> usize {
        self.count as usize * self.height as usize
    }
}

/// GPU memory a bake's texture takes, from its description: raw texel bytes of every
/// layer it uploads (positions' and, with separate normals, the normals').
pub fn gpu_bytes(d: &description::Description) -> u64 {
    let t = &d.texture;
    let rows = u64::from(t.layers.unwrap_or(1)) * u64::from(t.layer_height.unwrap_or(t.height));
    let copies = if d.normals.mode == "separate" { 2 } else { 1 };
    // RGBA16 texels, or RGBA32F joint matrices in a bone bake.
    let texel_bytes = if d.bones.is_some() { 16 } else { 8 };
    rows * u64::from(t.width) * texel_bytes * copies
}

/// Largest angle octahedral 16 + 16 puts between a normal and its decode, in degrees
/// (half a code on each axis of the fold: about 0.0037°; recorded rounded up).
pub const NORMAL16_MAX_ERROR_DEGREES: f32 = 0.004;

/// A unit normal as octahedral 16 + 16 (`--normals separate`): x and y of the fold,
/// each `[-1, 1]` to `0..=65535`, rounded to the nearest code.
pub fn encode_normal16(n: glam::Vec3A) -> [u16; 2] {
    let l1 = n.abs().element_sum();
    let n = if l1 > 0.0 && l1.is_finite() { n / l1 } else { glam::Vec3A::from(vat_model::DEGENERATE_NORMAL) };
    let l1 = n.abs().element_sum();
    let n = n / l1;
    let (x, y) =
        if n.z < 0.0 { ((1.0 - n.y.abs()).copysign(n.x), (1.0 - n.x.abs()).copysign(n.y)) } else { (n.x, n.y) };
    let code = |v: f32| ((v.clamp(-1.0, 1.0) * 0.5 + 0.5) * 65535.0).round() as u16;
    [code(x), code(y)]
}

/// The normal an octahedral 16 + 16 pair decodes to (docs/FORMAT.md).
pub fn decode_normal16(r: u16, g: u16) -> Vec3 {
    let (x, y) = (f32::from(r) / 65535.0 * 2.0 - 1.0, f32::from(g) / 65535.0 * 2.0 - 1.0);
    let mut n = Vec3::new(x, y, 1.0 - x.abs() - y.abs());
    if n.z < 0.0 {
        let sign = |v: f32| if v >= 0.0 { 1.0 } else { -1.0 };
        (n.x, n.y) = ((1.0 - y.abs()) * sign(x), (1.0 - x.abs()) * sign(y));
    }
    n.normalize_or(Vec3::Z)
}

/// The description's `normals` for a mode; `position_layers` is the layers the
/// positions take (1 without `texture.layers`).
pub fn normals_entry(mode: NormalsMode, position_layers: u32) -> description::Normals {
    let (channel, encoding, max_error_degrees, first_layer) = match mode {
        NormalsMode::Packed => ("a", "octahedral_8_8", vat_bounds::NORMAL_MAX_ERROR_DEGREES, None),
        NormalsMode::Separate => ("rg", "octahedral_16_16", NORMAL16_MAX_ERROR_DEGREES, Some(position_layers)),
        NormalsMode::None => ("none", "none", 0.0, None),
    };
    description::Normals {
        mode: mode.as_str().into(),
        channel: channel.into(),
        encoding: encoding.into(),
        max_error_degrees,
        first_layer,
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
fn worlds(model: &vat_model::Model, clip: &vat_model::Clip, time: f32) -> Vec<Mat4> {
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
            mode: mode.as_str().into(),
            node: root as u32,
            translation: (mode == RootMotion::Extract).then_some(translation),
            yaw: None,
        });
    }
    Ok(corrections)
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

/// `--loop-rows`: which clips get a copy of their first row (looping, and not already
/// ending on their first pose exactly), and the new rows as indices of the old ones.
pub(crate) fn loop_rows(rig: &vat_skin::Rig, poses: &[vat_skin::RowPose], entries: &[ClipEntry]) -> Vec<bool> {
    let points = rig.model().points.len();
    let evaluated = |row: usize| {
        let (mut p, mut n) = (vec![glam::Vec3A::ZERO; points], vec![glam::Vec3A::ZERO; points]);
        rig.evaluate(&poses[row], 0..points, &mut p, &mut n);
        (p, n)
    };
    entries
        .iter()
        .map(|e| e.looping && e.rows > 1 && evaluated(e.row as usize) != evaluated((e.row + e.rows - 1) as usize))
        .collect()
}

/// Appends the copies `wanted` says: each such clip's first row after its last.
/// Updates the entries (rows, duration, `loop_row`, root motion translation) and
/// returns, for each new row, the old row it shows.
pub(crate) fn append_loop_rows(entries: &mut [ClipEntry], wanted: &[bool]) -> Vec<usize> {
    let mut map = Vec::new();
    let mut row = 0u32;
    for (entry, &append) in entries.iter_mut().zip(wanted) {
        let first = entry.row as usize;
        map.extend(first..first + entry.rows as usize);
        entry.row = row;
        if append {
            map.push(first);
            entry.rows += 1;
            entry.duration += 1.0 / entry.rate;
            entry.loop_row = true;
            // The copy shows the first pose one row period after the last: the root
            // has travelled on by one more row's step, so a player that adds the last
            // translation at every wrap moves at the clip's pace throughout.
            if let Some(t) = entry.root_motion.as_mut().and_then(|r| r.translation.as_mut()) {
                let last = t[t.len() - 1];
                let before = t[t.len().saturating_sub(2)];
                t.push([2.0 * last[0] - before[0], 0.0, 2.0 * last[2] - before[2]]);
            }
        }
        row += entry.rows;
    }
    map
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

    #[test]
    fn sizes_and_budgets_parse() {
        assert_eq!("4096x2048".parse::<MaxSize>().unwrap(), MaxSize { width: 4096, height: 2048 });
        assert!("4096".parse::<MaxSize>().is_err());
        assert!("0x8".parse::<MaxSize>().is_err());
        assert_eq!(parse_bytes("64MiB"), Ok(64 << 20));
        assert_eq!(parse_bytes("1GB"), Ok(1 << 30));
        assert!(parse_bytes("lots").is_err());
    }

    #[test]
    fn octahedral_16_16_stays_within_its_bound() {
        let mut worst = 0.0f32;
        for i in 0..20_000 {
            // A spiral over the whole sphere, both hemispheres and the folds.
            let z = 1.0 - 2.0 * (i as f32 + 0.5) / 20_000.0;
            let r = (1.0 - z * z).sqrt();
            let a = i as f32 * 2.399_963;
            let n = Vec3::new(r * a.cos(), r * a.sin(), z);
            let [x, y] = encode_normal16(n.into());
            // atan2 of the cross and dot products: acos of a dot loses small angles in f32.
            let back = decode_normal16(x, y);
            worst = worst.max(n.cross(back).length().atan2(n.dot(back)).to_degrees());
        }
        assert!(worst > 0.001 && worst <= NORMAL16_MAX_ERROR_DEGREES, "{worst}");
    }

    #[test]
    fn nearest_names_come_first() {
        let joints = ["b_Hip_01", "b_Spine01_02", "b_RightHand_044", "b_LeftHand_027"];
        assert_eq!(nearest_names("b_RightHand_04", joints, 2), ["b_RightHand_044", "b_LeftHand_027"]);
    }
}
