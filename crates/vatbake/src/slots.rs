//! The bake's side of clip names: which alias table, each baked clip's slot, and what
//! the user is told about clips that fill no slot. The rules are in vat-audit; the
//! words (and the flags they point at) are here.

use std::path::{Path, PathBuf};

use sha2::{Digest, Sha256};
use vat_audit::{AliasTable, Verdict, BUILTIN_TABLE};
use vat_model::Clip;

use crate::messages::Failure;

/// The alias table in use, and where it came from.
#[derive(Clone, Debug)]
pub struct Aliases {
    pub table: AliasTable,
    /// `None` for the built-in table.
    pub file: Option<PathBuf>,
    /// SHA-256 of the table's bytes, recorded in the description so that a changed table
    /// counts as changed settings.
    pub sha256: String,
}

impl Aliases {
    /// How reports name the table: "built-in", or its path.
    pub fn label(&self) -> String {
        self.file.as_ref().map_or("built-in".to_string(), |f| f.display().to_string())
    }
}

impl Aliases {
    /// The table from `--aliases FILE`, or the built-in one. A table that cannot be
    /// read is a usage error: the flag's value is wrong.
    pub fn load(file: Option<&Path>) -> Result<Aliases, Failure> {
        let Some(file) = file else {
            return Ok(Aliases { table: AliasTable::builtin(), file: None, sha256: sha256(BUILTIN_TABLE.as_bytes()) });
        };
        let text = std::fs::read_to_string(file).map_err(|e| {
            Failure::usage(format!("{}: cannot read the alias table given with --aliases: {e}", file.display()))
        })?;
        let table = AliasTable::parse(&text).map_err(|e| {
            Failure::usage(format!(
                "{}: {e}; fix the table (its format is in docs/AUDIT.md, the built-in one is assets/aliases.toml)",
                file.display()
            ))
        })?;
        Ok(Aliases { table, file: Some(file.to_path_buf()), sha256: sha256(text.as_bytes()) })
    }

    /// "the built-in alias table" or "the alias table game/aliases.toml".
    pub fn describe(&self) -> String {
        match &self.file {
            Some(f) => format!("the alias table {}", f.display()),
            None => "the built-in alias table".to_string(),
        }
    }
}

fn sha256(bytes: &[u8]) -> String {
    format!("{:x}", Sha256::digest(bytes))
}

fn quoted(names: &[String]) -> String {
    const SHOWN: usize = 8;
    let mut list: Vec<String> = names.iter().take(SHOWN).map(|n| format!("\"{n}\"")).collect();
    if names.len() > SHOWN {
        list.push(format!("and {} more", names.len() - SHOWN));
    }
    list.join(", ")
}

/// Each baked clip's slot (in bake order), and warnings for every clip that fills no
/// slot without the table saying so. A unit in which no clip fills a slot is an error,
/// unless its clips have no names at all or `--clips` chose them; `strict` makes every
/// warning here an error. Either error comes before anything is evaluated or written.
pub fn assign(
    clips: &[&Clip],
    aliases: &Aliases,
    clips_chosen: bool,
    strict: bool,
    file: &Path,
    warnings: &mut Vec<String>,
) -> Result<Vec<Option<String>>, Failure> {
    let names: Vec<Option<&str>> = clips.iter().map(|c| c.name.as_deref().filter(|n| !n.is_empty())).collect();
    let display: Vec<String> = clips.iter().map(|c| c.display_name()).collect();
    let assignment = vat_audit::assign(&names, &aliases.table);
    let table = aliases.describe();
    let file_name = file.display();
    let mut notes = Vec::new();

    let pick = |wanted: fn(&Verdict) -> bool| -> Vec<String> {
        assignment.clips.iter().zip(&display).filter(|(v, _)| wanted(v)).map(|(_, n)| n.clone()).collect()
    };
    let unassigned = pick(|v| *v == Verdict::Unassigned);
    let unnamed = pick(|v| *v == Verdict::Unnamed);

    if assignment.no_slot() && !unassigned.is_empty() && !clips_chosen {
        return Err(Failure::input(format!(
            "{file_name}: none of its clips ({}) fills a slot of {table}, so a game asking for a slot would \
             find nothing to play. Add the names to a table (a slot's names, or `ignore`) and pass it with \
             --aliases FILE, give the table a `fallback` slot for single-clip units, or name the clips to bake \
             with --clips (they then bake with slot null)",
            quoted(&display)
        )));
    }

    if assignment.no_slot() && unassigned.is_empty() && unnamed.is_empty() {
        notes.push(format!(
            "{file_name}: no clip fills a slot: {table} ignores every one ({}), so a game asking for a slot \
             would find nothing to play",
            quoted(&display)
        ));
    }
    for (clip, verdict) in assignment.clips.iter().enumerate() {
        if let Verdict::Slot { slot, fallback: true, .. } = verdict {
            let (what, then) = match names[clip] {
                Some(_) => ("matches no slot of", "add its name to that slot in the table to make it explicit"),
                None => ("has no name to match against", "name the animation in the source to make it explicit"),
            };
            notes.push(format!(
                "{file_name}: clip \"{}\" {what} {table}; as the unit's only clip it fills the table's fallback \
                 slot {slot}; {then}",
                display[clip]
            ));
        }
    }
    if !unassigned.is_empty() {
        notes.push(format!(
            "{file_name}: {} clip{} match{} no slot of {table} and bake{} with slot null: {}; add each to a \
             slot's names, or to `ignore` if it is meant to fill none (--aliases FILE), or leave it out with --clips",
            unassigned.len(),
            if unassigned.len() == 1 { "" } else { "s" },
            if unassigned.len() == 1 { "es" } else { "" },
            if unassigned.len() == 1 { "s" } else { "" },
            quoted(&unassigned)
        ));
    }
    if !unnamed.is_empty() {
        notes.push(format!(
            "{file_name}: {} clip{} no name ({}) and bake{} with slot null; name the animations in the source \
             so the alias table can place them, or choose clips with --clips",
            unnamed.len(),
            if unnamed.len() == 1 { " has" } else { "s have" },
            quoted(&unnamed),
            if unnamed.len() == 1 { "s" } else { "" },
        ));
    }
    for duplicate in &assignment.duplicates {
        let others: Vec<String> = duplicate.others.iter().map(|&c| display[c].clone()).collect();
        notes.push(format!(
            "{file_name}: {} clips match slot {}; \"{}\" fills it (it {}) and {} bake{} with slot null; to choose \
             another, list its name first among the slot's names in the table, or leave the others out with --clips",
            others.len() + 1,
            duplicate.slot,
            display[duplicate.chosen],
            duplicate.rule,
            quoted(&others),
            if others.len() == 1 { "s" } else { "" },
        ));
    }
    for miss in &assignment.misses {
        notes.push(format!(
            "{file_name}: slot {} is empty, but clip \"{}\" looks like it belongs there (\"{}\" ~ \"{}\"); if it \
             does, add \"{}\" to the {} slot's names in the alias table",
            miss.slot,
            display[miss.clip],
            miss.evidence.clip_word,
            miss.evidence.slot_word,
            display[miss.clip],
            miss.slot
        ));
    }

    if strict && !notes.is_empty() {
        return Err(Failure::input(format!(
            "{file_name}: --strict, and the clip names need attention: {}",
            notes.iter().map(|n| n.strip_prefix(&format!("{file_name}: ")).unwrap_or(n)).collect::<Vec<_>>().join("; ")
        )));
    }
    warnings.extend(notes);
    Ok(assignment.clips.iter().map(|v| v.slot().map(str::to_string)).collect())
}
