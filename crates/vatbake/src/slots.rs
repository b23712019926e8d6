//! The bake's side of clip names: which alias table, each baked clip's slot, and what
//! the user is told about clips that fill no slot. The rules are in vat-audit; the
//! words (and the flags they point at) are here.

use std::path::{Path, PathBuf};

use vat_audit::{AliasTable, Assignment, Verdict, BUILTIN_TABLE};
use vat_model::{Clip, Finding};

use crate::error::Error;

/// The alias table in use, and where it came from.
#[derive(Clone, Debug, PartialEq)]
pub struct Aliases {
    /// The slots, and the clip names each one accepts.
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
    pub fn load(file: Option<&Path>) -> Result<Aliases, Error> {
        let Some(file) = file else {
            return Ok(Aliases { table: AliasTable::builtin(), file: None, sha256: sha256(BUILTIN_TABLE.as_bytes()) });
        };
        let text = std::fs::read_to_string(file).map_err(|e| {
            Error::usage(format!("{}: cannot read the alias table given with --aliases: {e}", file.display()))
        })?;
        let table = AliasTable::parse(&text).map_err(|e| {
            Error::usage(format!(
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
    crate::description::sha256_hex(bytes)
}

fn quoted(names: &[String]) -> String {
    const SHOWN: usize = 8;
    let mut list: Vec<String> = names.iter().take(SHOWN).map(|n| format!("\"{n}\"")).collect();
    if names.len() > SHOWN {
        list.push(format!("and {} more", names.len() - SHOWN));
    }
    list.join(", ")
}

/// Each baked clip's slot (in bake order), and a finding for every clip that fills
/// no slot without the table saying so. A unit in which no clip fills a slot bakes
/// with every slot null and one finding, unless the game's own table says what its
/// slots are (`--aliases`): then it is an error, since the unit cannot play in that
/// game (and it is not when `--clips` chose the clips). `strict` makes every finding
/// here an error. Either error comes before anything is evaluated or written.
pub fn assign(
    clips: &[&Clip],
    aliases: &Aliases,
    clips_chosen: bool,
    strict: bool,
    file: &Path,
    warnings: &mut Vec<Finding>,
) -> Result<Vec<Option<String>>, Error> {
    let names: Vec<Option<&str>> = clips.iter().map(|c| c.name.as_deref().filter(|n| !n.is_empty())).collect();
    let display: Vec<String> = clips.iter().map(|c| c.display_name()).collect();
    let assignment = vat_audit::assign(&names, &aliases.table);
    let table = aliases.describe();
    let file_name = file.display();

    let any_unassigned = assignment.clips.contains(&Verdict::Unassigned);
    let no_slot = assignment.no_slot() && any_unassigned && !clips_chosen;
    if no_slot && aliases.file.is_some() {
        return Err(Error::input(format!(
            "{file_name}: none of its clips ({}) fills a slot of {table}, so a game asking for a slot would \
             find nothing to play. Add the names to the table (a slot's names, or `ignore`), give the table a \
             `fallback` slot for single-clip units, or name the clips to bake with --clips (they then bake with \
             slot null)",
            quoted(&display)
        )));
    }
    let words = Words { assignment: &assignment, names: &names, display: &display, table: &table };
    let mut notes = words.clip_findings(no_slot);
    notes.extend(words.slot_findings());

    if strict && !notes.is_empty() {
        return Err(Error::input(format!(
            "{file_name}: --strict, and the clip names need attention: {}",
            notes.iter().map(|n| n.message.as_str()).collect::<Vec<_>>().join("; ")
        )));
    }
    warnings.extend(notes);
    Ok(assignment.clips.iter().map(|v| v.slot().map(str::to_string)).collect())
}

/// What the user is told about one assignment: the clips' names as shown (`display`,
/// in bake order, like `names` and the assignment's verdicts) and the table's name.
struct Words<'a> {
    assignment: &'a Assignment,
    names: &'a [Option<&'a str>],
    display: &'a [String],
    table: &'a str,
}

impl Words<'_> {
    /// The shown names of the clips with a verdict `wanted` picks.
    fn clips_where(&self, wanted: fn(&Verdict) -> bool) -> Vec<String> {
        self.assignment.clips.iter().zip(self.display).filter(|(v, _)| wanted(v)).map(|(_, n)| n.clone()).collect()
    }

    /// Findings about clips that fill no slot, or fill one only as the fallback.
    /// `no_slot`: no clip fills a slot though some could have (one finding says so
    /// instead of one per clip).
    fn clip_findings(&self, no_slot: bool) -> Vec<Finding> {
        let (display, table) = (self.display, self.table);
        let unassigned = self.clips_where(|v| *v == Verdict::Unassigned);
        let unnamed = self.clips_where(|v| *v == Verdict::Unnamed);
        let mut notes = Vec::new();
        if no_slot {
            notes.push(
                Finding::new(
                    "no-slot",
                    format!(
                        "none of the {} clips ({}) fills a slot of {table}; all bake with slot null",
                        display.len(),
                        quoted(display)
                    ),
                )
                .advice(
                    "if a game will ask for these clips by slot, give it an alias table with their names \
                     (--aliases FILE, docs/AUDIT.md); --strict refuses such a unit",
                ),
            );
        }
        if self.assignment.no_slot() && unassigned.is_empty() && unnamed.is_empty() {
            notes.push(Finding::new(
                "all-ignored",
                format!("no clip fills a slot: {table} ignores every one ({})", quoted(display)),
            ));
        }
        for (clip, verdict) in self.assignment.clips.iter().enumerate() {
            if let Verdict::Slot { slot, fallback: true, .. } = verdict {
                let what = match self.names[clip] {
                    Some(_) => "matches no slot",
                    None => "has no name",
                };
                notes.push(
                    Finding::new(
                        "fallback-slot",
                        format!(
                            "clip \"{}\" {what}; as the only clip it fills the fallback slot {slot}",
                            display[clip]
                        ),
                    )
                    .advice("add its name to that slot in the table (or name the animation) to make it explicit"),
                );
            }
        }
        if !unassigned.is_empty() && !no_slot {
            let one = unassigned.len() == 1;
            notes.push(
                Finding::new(
                    "unassigned-clips",
                    format!(
                        "{} clip{} match{} no slot and bake{} with slot null: {}",
                        unassigned.len(),
                        if one { "" } else { "s" },
                        if one { "es" } else { "" },
                        if one { "s" } else { "" },
                        quoted(&unassigned)
                    ),
                )
                .advice(
                    "add each name to a slot of the alias table, or to `ignore` if it fills none (--aliases FILE), \
                     or leave it out with --clips",
                ),
            );
        }
        if !unnamed.is_empty() {
            let one = unnamed.len() == 1;
            notes.push(
                Finding::new(
                    "unnamed-clips",
                    format!(
                        "{} clip{} no name ({}) and bake{} with slot null",
                        unnamed.len(),
                        if one { " has" } else { "s have" },
                        quoted(&unnamed),
                        if one { "s" } else { "" },
                    ),
                )
                .advice(
                    "name the animations in the source so the alias table can place them, or choose clips with --clips",
                ),
            );
        }
        notes
    }

    /// Findings about slots: one filled by more than one clip, and an empty one that a
    /// clip seems to belong to.
    fn slot_findings(&self) -> Vec<Finding> {
        let display = self.display;
        let mut notes = Vec::new();
        for duplicate in &self.assignment.duplicates {
            let others: Vec<String> = duplicate.others.iter().map(|&c| display[c].clone()).collect();
            notes.push(
                Finding::new(
                    "duplicate-slot",
                    format!(
                        "slot {}: \"{}\" ({}) over {}, which bake{} with slot null",
                        duplicate.slot,
                        display[duplicate.chosen],
                        duplicate.rule,
                        quoted(&others),
                        if others.len() == 1 { "s" } else { "" },
                    ),
                )
                .advice("to choose another, list its name first among the slot's names in the table, or use --clips"),
            );
        }
        for miss in &self.assignment.misses {
            notes.push(
                Finding::new(
                    "lookalike-clip",
                    format!(
                        "slot {} is empty, but clip \"{}\" looks like it belongs there (\"{}\" ~ \"{}\")",
                        miss.slot, display[miss.clip], miss.evidence.clip_word, miss.evidence.slot_word,
                    ),
                )
                .advice("if it does, add the clip's name to that slot's names in the alias table"),
            );
        }
        notes
    }
}
