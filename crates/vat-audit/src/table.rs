//! The alias table: the game's slots, the clip names each accepts, the names that are
//! meant to fill no slot, and the fallback slot for single-clip units.

use std::collections::HashMap;

use serde::Deserialize;

use crate::normalize::normalize;

/// The built-in table, `crates/vat-audit/aliases.toml` (also reachable as `assets/aliases.toml`,
/// a symbolic link): the one copy, read by the bake and the audit.
pub const BUILTIN_TABLE: &str = include_str!("../aliases.toml");

/// The only version of the table format so far.
pub const TABLE_VERSION: u32 = 1;

/// One accepted name, as written and as words.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Alias {
    /// The name as the table writes it.
    pub text: String,
    /// The name after [`normalize`](crate::normalize()): lowercase words.
    pub words: Vec<String>,
}

/// A slot the game asks for, and the clip names it accepts, best first.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Slot {
    /// The slot's name, as the game asks for it.
    pub name: String,
    /// The slot's own name first (unless the table lists it elsewhere in the list),
    /// then the table's names in order.
    pub names: Vec<Alias>,
}

/// A parsed and checked alias table.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct AliasTable {
    /// Slots in the order the table lists them (it breaks ties between slots).
    pub slots: Vec<Slot>,
    /// Names of clips that are meant to fill no slot.
    pub ignore: Vec<Alias>,
    /// Slot for a unit whose only clip matches nothing.
    pub fallback: Option<String>,
}

/// Why a table cannot be used. The message says what to change.
#[derive(Debug, thiserror::Error, PartialEq, Eq)]
pub enum TableError {
    /// The text is not TOML of the table's shape; the parser's message.
    #[error("not a valid alias table: {0}")]
    Syntax(String),
    /// A `version` other than [`TABLE_VERSION`].
    #[error(
        "version {0} is not known (this vatbake reads version {TABLE_VERSION}); write `version = {TABLE_VERSION}`"
    )]
    Version(u32),
    /// No slots are listed.
    #[error("the table has no slots; list them under [slots], e.g. `death = [\"death\", \"die\", \"dead\"]`")]
    NoSlots,
    /// A slot's entry is unusable.
    #[error("slot \"{slot}\": {problem}")]
    Slot {
        /// The slot's name.
        slot: String,
        /// What is wrong with it.
        problem: String,
    },
    /// One name is listed for two slots (or a slot and `ignore`).
    #[error("\"{name}\" is listed for {first} and for {second}; a name may belong to one slot only (or to `ignore`)")]
    Conflict {
        /// The name listed twice.
        name: String,
        /// Where it is listed first.
        first: String,
        /// Where it is listed again.
        second: String,
    },
    /// The `fallback` names no listed slot.
    #[error("fallback \"{0}\" is not one of the slots; name a slot listed under [slots]")]
    Fallback(String),
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct TableFile {
    version: u32,
    #[serde(default)]
    fallback: Option<String>,
    #[serde(default)]
    ignore: Vec<String>,
    #[serde(default)]
    slots: toml::Table,
}

fn alias(text: &str) -> Result<Alias, String> {
    let words = normalize(text);
    if words.is_empty() {
        return Err(format!(
            "\"{text}\" has no words left after normalization (rig prefixes and trailing numbers go), so it can match nothing"
        ));
    }
    Ok(Alias { text: text.to_string(), words })
}

impl AliasTable {
    /// The built-in table (`assets/aliases.toml`).
    pub fn builtin() -> AliasTable {
        AliasTable::parse(BUILTIN_TABLE).expect("the built-in alias table is valid (a unit test checks it)")
    }

    /// Parses and checks a table in TOML (format in docs/AUDIT.md).
    pub fn parse(text: &str) -> Result<AliasTable, TableError> {
        let file: TableFile = toml::from_str(text).map_err(|e| TableError::Syntax(e.to_string().trim().to_string()))?;
        if file.version != TABLE_VERSION {
            return Err(TableError::Version(file.version));
        }
        if file.slots.is_empty() {
            return Err(TableError::NoSlots);
        }
        // Which slot (or "ignore") each set of words belongs to, to refuse a name listed twice.
        let mut owners: HashMap<Vec<String>, String> = HashMap::new();
        let mut claim = |a: &Alias, owner: String| match owners.get(&a.words) {
            Some(first) if *first != owner => {
                Err(TableError::Conflict { name: a.text.clone(), first: first.clone(), second: owner })
            }
            _ => {
                owners.insert(a.words.clone(), owner);
                Ok(())
            }
        };
        let mut slots = Vec::with_capacity(file.slots.len());
        for (name, value) in file.slots {
            let problem = |problem: String| TableError::Slot { slot: name.clone(), problem };
            if name.trim().is_empty() {
                return Err(problem("a slot needs a name".into()));
            }
            let listed: Vec<String> = value.try_into().map_err(|_| {
                problem("give its accepted clip names as a list of strings, e.g. [\"walk\", \"stroll\"]".into())
            })?;
            let mut names: Vec<Alias> = Vec::with_capacity(listed.len() + 1);
            let own = alias(&name).map_err(problem)?;
            if !listed.iter().any(|l| normalize(l) == own.words) {
                names.push(own);
            }
            for text in &listed {
                let a = alias(text).map_err(problem)?;
                if !names.iter().any(|n| n.words == a.words) {
                    names.push(a);
                }
            }
            for a in &names {
                claim(a, format!("slot \"{name}\""))?;
            }
            slots.push(Slot { name, names });
        }
        let mut ignore = Vec::with_capacity(file.ignore.len());
        for text in &file.ignore {
            let a = alias(text).map_err(|problem| TableError::Slot { slot: "ignore".into(), problem })?;
            claim(&a, "ignore".into())?;
            ignore.push(a);
        }
        if let Some(f) = &file.fallback {
            if !slots.iter().any(|s| &s.name == f) {
                return Err(TableError::Fallback(f.clone()));
            }
        }
        Ok(AliasTable { slots, ignore, fallback: file.fallback })
    }

    /// The slot called `name`, if the table has it.
    pub fn slot(&self, name: &str) -> Option<&Slot> {
        self.slots.iter().find(|s| s.name == name)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn builtin_table_parses_with_slots_in_file_order() {
        let table = AliasTable::builtin();
        let names: Vec<&str> = table.slots.iter().map(|s| s.name.as_str()).collect();
        assert_eq!(&names[..6], ["idle", "walk", "run", "sprint", "jump", "fall"]);
        assert_eq!(table.fallback.as_deref(), Some("idle"));
        let death: Vec<&str> = table.slot("death").unwrap().names.iter().map(|a| a.text.as_str()).collect();
        for name in ["death", "die", "dead", "killed"] {
            assert!(death.contains(&name), "{name} in {death:?}");
        }
        assert!(table.ignore.iter().any(|a| a.text == "static"));
    }

    #[test]
    fn slot_name_is_accepted_first_unless_listed() {
        let t = AliasTable::parse("version = 1\n[slots]\ndeath = [\"die\", \"dead\"]\nhit = [\"hurt\", \"hit\"]\n")
            .unwrap();
        let texts = |s: &str| t.slot(s).unwrap().names.iter().map(|a| a.text.clone()).collect::<Vec<_>>();
        assert_eq!(texts("death"), ["death", "die", "dead"]);
        assert_eq!(texts("hit"), ["hurt", "hit"]);
    }

    #[test]
    fn order_is_kept_beyond_alphabetical() {
        let t = AliasTable::parse("version = 1\n[slots]\nwalk = []\nattack = []\nzap = []\nbite = []\n").unwrap();
        let names: Vec<&str> = t.slots.iter().map(|s| s.name.as_str()).collect();
        assert_eq!(names, ["walk", "attack", "zap", "bite"]);
    }

    #[test]
    fn bad_tables_say_what_to_change() {
        let err = |text: &str| AliasTable::parse(text).unwrap_err().to_string();
        assert!(err("version = 2\n[slots]\nidle = []").contains("version 2 is not known"));
        assert!(err("version = 1\n").contains("has no slots"));
        assert!(err("version = 1\n[slots]\nidle = \"idle\"").contains("as a list of strings"));
        assert!(err("version = 1\n[slots]\nidle = [\"001\"]").contains("no words left"));
        assert_eq!(
            err("version = 1\n[slots]\nidle = [\"rest\"]\nsleep = [\"Rest\"]"),
            "\"Rest\" is listed for slot \"idle\" and for slot \"sleep\"; a name may belong to one slot only (or to `ignore`)"
        );
        assert!(
            err("version = 1\nignore = [\"idle\"]\n[slots]\nidle = []").contains("for slot \"idle\" and for ignore")
        );
        assert!(err("version = 1\nfallback = \"walk\"\n[slots]\nidle = []")
            .contains("fallback \"walk\" is not one of the slots"));
        assert!(err("version = 1\nslot = 3\n[slots]\nidle = []").starts_with("not a valid alias table"));
        assert!(err("version = 1\n[slots\nidle = []").contains("line 2"));
    }
}
