//! Load: read, parse and validate the model; merge takes split per node. The
//! first stage of every bake and of `verify`'s fresh evaluation.
//!
//! Owns: reading the input file, the loader's warnings and the merged-takes notes,
//! the source's hash and size as the description records them. Must not touch: the
//! clips' choice, anything evaluated, the output folder.

use std::path::Path;

use anyhow::Result;
use vat_model::{Finding, Model};

use super::*;
use crate::description::{self};
use crate::error::Error;
use crate::settings::BakeSettings;

/// The loaded source: the model (takes merged), what the loader knows of its
/// influences, and the file's hash and size (its bytes are not kept).
pub(crate) struct Source {
    pub(crate) model: Model,
    pub(crate) first_influence_set: Option<Vec<([u16; 4], [f32; 4])>>,
    pub(crate) sha256: String,
    pub(crate) bytes: u64,
    /// The `--animations` files, as the description records them.
    pub(crate) animations: Vec<description::Source>,
    /// The `--animation-names` map, as the description records it.
    pub(crate) animation_names: Option<description::Source>,
}

/// Load: read, parse and validate the model; merge takes split per node.
pub(crate) fn load(settings: &BakeSettings, found: &mut Found) -> Result<Source> {
    let file = settings.input.as_path();
    let source_bytes = vat_gltf::read_file(file)?;
    let options = vat_gltf::Options { scene: settings.scene, max_influences: settings.max_influences };
    let loaded = vat_gltf::load(file, &source_bytes, &options)?;
    let mut model = loaded.model;
    found.warnings.extend(loaded.warnings);
    // One take split into one animation per node becomes one clip again (vat_gltf::takes).
    let merged_notes;
    (model.clips, merged_notes) = vat_gltf::merge_clips(std::mem::take(&mut model.clips), settings.merge_clips);
    found.notes.extend(merged_notes);
    let record = |path: &Path, bytes: &[u8]| recorded_file(path, description::sha256_hex(bytes), bytes.len(), settings);
    let animations = crate::features::animations::add_clips(
        &mut model,
        file,
        &crate::features::animations::Libraries {
            files: &settings.animations,
            names: &settings.animation_names,
            translations: settings.animation_translations,
            merge: settings.merge_clips,
        },
        record,
        &mut found.warnings,
        &mut found.notes,
    )?;
    let names = &settings.animation_names;
    let animation_names = names.file.as_ref().map(|f| recorded_file(f, names.sha256.clone(), names.bytes, settings));
    let repeated = vat_gltf::unique_names(model.clips.iter_mut().map(|c| &mut c.name));
    if !repeated.is_empty() {
        let quoted: Vec<String> = repeated.iter().map(|n| format!("\"{n}\"")).collect();
        found.warnings.push(
            Finding::new(
                "duplicate-clip-names",
                format!(
                    "{}: more than one clip is named {}: each later one is renamed \"NAME (2)\", \"NAME (3)\", …",
                    file.display(),
                    quoted.join(", ")
                ),
            )
            .advice("name each clip once in the source, or address the renamed clips by their new names in --clips"),
        );
    }
    if model.clips.is_empty() {
        return Err(Error::input(format!(
            "{}: the model has no animation clips, so there is nothing to bake; \
             a vertex animation texture stores motion: export the model with its animations, or pass \
             --animations FILE with an animation library made for its skeleton",
            file.display()
        ))
        .into());
    }
    Ok(Source {
        model,
        first_influence_set: loaded.first_influence_set,
        sha256: description::sha256_hex(&source_bytes),
        bytes: source_bytes.len() as u64,
        animations,
        animation_names,
    })
}

/// The source as a description records it: its file name, SHA-256, size, and its
/// place relative to the output folder.
pub(crate) fn recorded_source(source: &Source, settings: &BakeSettings) -> description::Source {
    recorded_file(&settings.input, source.sha256.clone(), source.bytes as usize, settings)
}

/// A file the bake read (the source, `--animations`, `--animation-names`) as a
/// description records it: its file name, SHA-256, size, and its place relative to the
/// output folder.
fn recorded_file(file: &Path, sha256: String, bytes: usize, settings: &BakeSettings) -> description::Source {
    description::Source {
        file: file.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default(),
        sha256,
        bytes: bytes as u64,
        path: relative_path(&settings.out_dir, file),
    }
}

/// `file` as seen from `folder` (`../fixtures/Fox/Fox.glb`), `/` between the parts:
/// both made absolute and their links resolved (the folder's as far as it exists), so
/// `out/` and `fixtures/Fox/Fox.glb` given from anywhere give the same path. None
/// when there is no relative path (another drive) or a part is not Unicode.
fn relative_path(folder: &std::path::Path, file: &std::path::Path) -> Option<String> {
    use std::path::{Component, Path, PathBuf};
    fn resolved(path: &Path) -> Option<PathBuf> {
        let absolute = std::path::absolute(path).ok()?;
        // The deepest part that exists, with its links resolved, and the rest after it.
        let mut existing = absolute.as_path();
        let mut rest = Vec::new();
        loop {
            if let Ok(real) = crate::host::canonicalize(existing) {
                return Some(rest.iter().rev().fold(real, |at, part| at.join(part)));
            }
            rest.push(existing.file_name()?.to_owned());
            existing = existing.parent()?;
        }
    }
    let (folder, file) = (resolved(folder)?, resolved(file)?);
    let (from, to): (Vec<Component>, Vec<Component>) = (folder.components().collect(), file.components().collect());
    if from.first() != to.first() || from.iter().any(|c| matches!(c, Component::ParentDir | Component::CurDir)) {
        return None;
    }
    let common = from.iter().zip(&to).take_while(|(a, b)| a == b).count();
    let mut parts: Vec<String> = vec!["..".to_string(); from.len() - common];
    for part in &to[common..] {
        match part {
            Component::Normal(name) => parts.push(name.to_str()?.to_string()),
            _ => return None,
        }
    }
    Some(parts.join("/"))
}
