//! `--animations FILE…`: clips from other files played on the model's skeleton, bound
//! to its nodes by name (`vat_gltf::retarget`), as three.js's AnimationMixer plays an
//! animation library's clips on a character. The name map of `--animation-names`, and
//! the load stage's work: each file read for its clips, bound, reported.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use vat_model::{Finding, Model};

use crate::description;
use crate::error::Error;

pub use vat_description::AnimationTranslations;

/// Fewer of a file's animated nodes than this fraction binding to the model's nodes is
/// not the same skeleton: the bake is refused.
pub const MIN_BOUND_FRACTION: f32 = 0.5;

/// `--animation-names FILE`: a JSON object, each key a node name of an animation file
/// and its value the model's node that key plays on.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct AnimationNames {
    /// Animation file's node name → model's node name.
    pub map: BTreeMap<String, String>,
    /// The file the map was read from; `None` without a map.
    pub file: Option<PathBuf>,
    /// SHA-256 of the file's bytes (empty without a map).
    pub sha256: String,
    /// Size of the file in bytes.
    pub bytes: usize,
}

impl AnimationNames {
    /// Reads the map `file` names, if any; an error names the file and what is wrong.
    pub fn load(file: Option<&Path>) -> Result<AnimationNames, Error> {
        let Some(file) = file else { return Ok(AnimationNames::default()) };
        let bytes = std::fs::read(file).map_err(|e| {
            Error::usage(format!("{}: cannot read the name map given with --animation-names: {e}", file.display()))
        })?;
        let map: BTreeMap<String, String> = serde_json::from_slice(&bytes).map_err(|e| {
            Error::usage(format!(
                "{}: not a name map ({e}); write a JSON object from the animation file's node names to the \
                 model's, e.g. {{\"mixamorig:Hips\": \"Hips\"}}",
                file.display()
            ))
        })?;
        Ok(AnimationNames {
            map,
            file: Some(file.to_path_buf()),
            sha256: description::sha256_hex(&bytes),
            bytes: bytes.len(),
        })
    }
}

/// What the settings ask of [`add_clips`].
#[derive(Clone, Copy)]
pub(crate) struct Libraries<'a> {
    /// The `--animations` files, in order.
    pub(crate) files: &'a [PathBuf],
    /// The `--animation-names` map (empty without one).
    pub(crate) names: &'a AnimationNames,
    /// `--animation-translations`.
    pub(crate) translations: AnimationTranslations,
    /// How each file's takes are merged: as the model's.
    pub(crate) merge: vat_gltf::MergeClips,
}

/// Reads each `--animations` file, binds its clips to `model` and appends them to
/// `model.clips` (each clip's `file` is its file's index, its `source_index` that
/// file's animation); returns each file's record for the description, made by
/// `record` from the file's path and bytes. Findings: one
/// warning per file whose tracks bind to nothing in part, one note per file naming the
/// model's joints no clip of it moves; a file that binds less than
/// [`MIN_BOUND_FRACTION`] of its animated nodes is refused (exit 3).
pub(crate) fn add_clips(
    model: &mut Model,
    source: &Path,
    asked: &Libraries,
    record: impl Fn(&Path, &[u8]) -> description::Source,
    warnings: &mut Vec<Finding>,
    notes: &mut Vec<Finding>,
) -> Result<Vec<description::Source>, Error> {
    let Libraries { files, names, translations, merge } = *asked;
    let mut sources = Vec::new();
    for (index, file) in files.iter().enumerate() {
        let bytes = vat_gltf::read_file(file)?;
        let mut library = vat_gltf::load_library(file, &bytes)?;
        warnings.append(&mut library.warnings);
        let merged;
        (library.clips, merged) = vat_gltf::merge_clips(std::mem::take(&mut library.clips), merge);
        notes.extend(merged);
        let bound = vat_gltf::retarget::bind(&library, model, &names.map, translations);
        let animated = bound.animated.len();
        if (bound.bound as f32) < MIN_BOUND_FRACTION * animated as f32 {
            return Err(Error::input(format!(
                "{}: only {} of its {animated} animated nodes bind to a node of {} by name ({} do not: {}): \
                 not the same skeleton; pass --animation-names with a map of the names, or animations made \
                 for this model",
                file.display(),
                bound.bound,
                source.display(),
                bound.unbound.len(),
                listed(&bound.unbound)
            )));
        }
        if !bound.unbound.is_empty() {
            warnings.push(
                Finding::new(
                    "unbound-tracks",
                    format!(
                        "{}: the tracks of {} of its {animated} animated nodes bind to no node of {} and do not \
                         play: {}",
                        file.display(),
                        bound.unbound.len(),
                        source.display(),
                        listed(&bound.unbound)
                    ),
                )
                .advice("map their names with --animation-names"),
            );
        }
        if !bound.unmoved_joints.is_empty() {
            notes.push(Finding::new(
                "unmoved-joints",
                format!(
                    "{}: no clip of {} moves {} of the model's joints: {}",
                    source.display(),
                    file.display(),
                    bound.unmoved_joints.len(),
                    listed(&bound.unmoved_joints)
                ),
            ));
        }
        if bound.dropped_translations > 0 {
            notes.push(Finding::new(
                "translations-dropped",
                format!(
                    "{}: --animation-translations root left out {} translation tracks of joints below the root",
                    file.display(),
                    bound.dropped_translations
                ),
            ));
        }
        model.clips.extend(bound.clips.into_iter().map(|clip| vat_model::Clip { file: Some(index), ..clip }));
        sources.push(record(file, &bytes));
    }
    Ok(sources)
}

/// Up to eight names, quoted, and how many more.
fn listed(names: &[String]) -> String {
    let mut shown: Vec<String> = names.iter().take(8).map(|n| format!("\"{n}\"")).collect();
    if names.len() > 8 {
        shown.push(format!("and {} more", names.len() - 8));
    }
    shown.join(", ")
}
