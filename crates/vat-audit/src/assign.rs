//! Clip names to slots, by the alias table: whole words only, never substrings.

use crate::normalize::normalize;
use crate::plausible::{self, Evidence};
use crate::table::{Alias, AliasTable};

/// What the table makes of one clip.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Verdict {
    /// The clip fills `slot`, matched by the accepted name `alias` (or by the table's
    /// fallback: then `alias` is empty and `fallback` is true).
    Slot {
        /// The slot's name.
        slot: String,
        /// The accepted name that matched, as the table writes it; empty for the fallback.
        alias: String,
        /// True when the clip got the slot as the table's fallback.
        fallback: bool,
    },
    /// The clip matches `slot`, but clip `chosen` fills it (see [`Duplicate`]).
    Spare {
        /// The slot the clip matched.
        slot: String,
        /// The accepted name that matched.
        alias: String,
        /// Index of the clip that fills the slot.
        chosen: usize,
    },
    /// The table's `ignore` list names it: meant to fill no slot.
    Ignored {
        /// The `ignore` entry that matched.
        alias: String,
    },
    /// A named clip that matches no slot.
    Unassigned,
    /// A clip without a name: nothing to match.
    Unnamed,
}

impl Verdict {
    /// The slot the clip fills, if any.
    pub fn slot(&self) -> Option<&str> {
        match self {
            Verdict::Slot { slot, .. } => Some(slot),
            _ => None,
        }
    }
}

/// Several clips matched one slot; `chosen` fills it, `others` bake with no slot.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Duplicate {
    /// The slot several clips matched.
    pub slot: String,
    /// Index of the clip that fills it.
    pub chosen: usize,
    /// Indices of the other clips that matched it, which get no slot.
    pub others: Vec<usize>,
    /// Which rule separated `chosen` from the best of the others, in words.
    pub rule: &'static str,
}

/// An empty slot, and an unassigned clip that the independent check thinks belongs to it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PlausibleMiss {
    /// The empty slot.
    pub slot: String,
    /// Index of the unassigned clip.
    pub clip: usize,
    /// Why the independent check links them.
    pub evidence: Evidence,
}

/// The table applied to one unit's clips.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Assignment {
    /// One verdict per clip, in the order the clips were given.
    pub clips: Vec<Verdict>,
    /// Per slot of the table, in table order: the clip that fills it, if any.
    pub slots: Vec<(String, Option<usize>)>,
    /// Slots that more than one clip matched, and who won.
    pub duplicates: Vec<Duplicate>,
    /// Empty slots that an unassigned clip seems to belong to.
    pub misses: Vec<PlausibleMiss>,
}

impl Assignment {
    /// True when no clip fills any slot.
    pub fn no_slot(&self) -> bool {
        self.clips.iter().all(|v| v.slot().is_none())
    }

    /// The clip that fills `slot`.
    pub fn filled_by(&self, slot: &str) -> Option<usize> {
        self.slots.iter().find(|(s, _)| s == slot).and_then(|(_, c)| *c)
    }
}

/// Where the words of `alias` stand whole and side by side in `words`: the last such place.
fn last_position(words: &[String], alias: &Alias) -> Option<usize> {
    let n = alias.words.len();
    if n > words.len() {
        return None;
    }
    (0..=words.len() - n).rev().find(|&at| words[at..at + n] == alias.words[..])
}

/// The best match of one clip's words: (owner, index of the alias in the owner's list).
/// Owners are slot indices; `slots.len()` stands for the ignore list, after every slot.
fn best_match(words: &[String], table: &AliasTable) -> Option<(usize, usize)> {
    let owners = table.slots.iter().map(|s| &s.names).chain(std::iter::once(&table.ignore));
    let mut best: Option<((usize, usize), (usize, usize))> = None; // ((words, position), (owner, alias))
    for (owner, names) in owners.enumerate() {
        for (index, alias) in names.iter().enumerate() {
            let Some(at) = last_position(words, alias) else { continue };
            let key = (alias.words.len(), at);
            // Longer name first, then the later position. Equal keys mean equal words, which
            // only one owner may list; strict `>` keeps the earlier of a slot's own names.
            if best.is_none_or(|(k, _)| key > k) {
                best = Some((key, (owner, index)));
            }
        }
    }
    best.map(|(_, found)| found)
}

/// Among the names of `owner` that match, the earliest listed.
fn first_alias(words: &[String], names: &[Alias]) -> usize {
    names.iter().position(|a| last_position(words, a).is_some()).unwrap_or(0)
}

/// Applies the table to a unit's clips (`None` for a clip without a name), in bake order.
///
/// ```
/// use vat_audit::{assign, AliasTable, Verdict};
/// let table = AliasTable::builtin();
/// let a = assign(&[Some("Armature|Dead"), Some("Walk"), None], &table);
/// assert_eq!(a.clips[0].slot(), Some("death"));
/// assert_eq!(a.clips[1].slot(), Some("walk"));
/// assert_eq!(a.clips[2], Verdict::Unnamed);
/// ```
pub fn assign(names: &[Option<&str>], table: &AliasTable) -> Assignment {
    let words: Vec<Vec<String>> = names.iter().map(|n| n.map(normalize).unwrap_or_default()).collect();
    let ignore_owner = table.slots.len();
    // Per clip: (owner, alias index) of its best match.
    let matches: Vec<Option<(usize, usize)>> =
        names.iter().zip(&words).map(|(name, w)| if name.is_some() { best_match(w, table) } else { None }).collect();

    let mut clips: Vec<Verdict> = names
        .iter()
        .zip(&matches)
        .map(|(name, m)| match (name, m) {
            (None, _) => Verdict::Unnamed,
            (Some(_), None) => Verdict::Unassigned,
            (Some(_), Some((owner, index))) if *owner == ignore_owner => {
                Verdict::Ignored { alias: table.ignore[*index].text.clone() }
            }
            // Slots are settled below, once every clip's candidate slot is known.
            (Some(_), Some(_)) => Verdict::Unassigned,
        })
        .collect();

    let mut slots = Vec::with_capacity(table.slots.len());
    let mut duplicates = Vec::new();
    for (owner, slot) in table.slots.iter().enumerate() {
        // Rank: exact name first, then the earliest-listed name, then fewest words, then bake order.
        let mut candidates: Vec<((bool, usize, usize, usize), usize)> = matches
            .iter()
            .enumerate()
            .filter(|(_, m)| m.is_some_and(|(o, _)| o == owner))
            .map(|(clip, _)| {
                let w = &words[clip];
                let alias = first_alias(w, &slot.names);
                let exact = slot.names[alias].words == *w;
                ((!exact, alias, w.len(), clip), clip)
            })
            .collect();
        candidates.sort();
        let Some(&(best_key, chosen)) = candidates.first() else {
            slots.push((slot.name.clone(), None));
            continue;
        };
        let alias_of = |clip: usize| slot.names[first_alias(&words[clip], &slot.names)].text.clone();
        clips[chosen] = Verdict::Slot { slot: slot.name.clone(), alias: alias_of(chosen), fallback: false };
        for &(_, other) in &candidates[1..] {
            clips[other] = Verdict::Spare { slot: slot.name.clone(), alias: alias_of(other), chosen };
        }
        if let Some(&(runner_up, _)) = candidates.get(1) {
            let rule = if best_key.0 != runner_up.0 {
                "is named exactly like one of the slot's names"
            } else if best_key.1 != runner_up.1 {
                "matches a name listed earlier for the slot"
            } else if best_key.2 != runner_up.2 {
                "has fewer words"
            } else {
                "comes first in bake order"
            };
            duplicates.push(Duplicate {
                slot: slot.name.clone(),
                chosen,
                others: candidates[1..].iter().map(|&(_, c)| c).collect(),
                rule,
            });
        }
        slots.push((slot.name.clone(), Some(chosen)));
    }

    // Fallback: one clip that is not ignored, matching nothing.
    if let Some(fallback) = &table.fallback {
        let open: Vec<usize> = (0..clips.len()).filter(|&c| !matches!(clips[c], Verdict::Ignored { .. })).collect();
        if let [only] = open[..] {
            if matches!(clips[only], Verdict::Unassigned | Verdict::Unnamed) {
                clips[only] = Verdict::Slot { slot: fallback.clone(), alias: String::new(), fallback: true };
                if let Some(entry) = slots.iter_mut().find(|(s, _)| s == fallback) {
                    entry.1 = Some(only);
                }
            }
        }
    }

    let mut misses = Vec::new();
    for (slot_name, filled) in &slots {
        if filled.is_some() {
            continue;
        }
        let slot = table.slot(slot_name).expect("slots come from the table");
        for (clip, verdict) in clips.iter().enumerate() {
            if *verdict != Verdict::Unassigned {
                continue;
            }
            let name = names[clip].expect("unassigned clips have names");
            if let Some(evidence) = plausible::belongs(name, slot) {
                misses.push(PlausibleMiss { slot: slot_name.clone(), clip, evidence });
            }
        }
    }

    Assignment { clips, slots, duplicates, misses }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn table() -> AliasTable {
        AliasTable::builtin()
    }

    fn slots_of(names: &[&str], table: &AliasTable) -> Vec<Option<String>> {
        let names: Vec<Option<&str>> = names.iter().map(|n| Some(*n)).collect();
        assign(&names, table).clips.iter().map(|v| v.slot().map(str::to_string)).collect()
    }

    #[test]
    fn dead_fills_death_with_the_builtin_table() {
        let a = assign(&[Some("Idle"), Some("Dead"), Some("Walk")], &table());
        assert_eq!(a.clips[1], Verdict::Slot { slot: "death".into(), alias: "dead".into(), fallback: false });
        assert_eq!(a.filled_by("death"), Some(1));
        assert!(a.misses.is_empty() && a.duplicates.is_empty());
    }

    #[test]
    fn whole_words_never_substrings() {
        let t = AliasTable::parse("version = 1\n[slots]\ndeath = [\"die\", \"killed\"]\nrun = []\n").unwrap();
        // The seed's bug: fragment matching looked for "die" inside "dead"; and "die" is inside "Soldier".
        assert_eq!(
            slots_of(&["Dead", "SoldierIdle", "Studied", "Rerun", "Die_Forward", "zombieDie02"], &t),
            [
                None,
                None,
                None,
                None,
                Some("death".to_string()),
                None // the second "die" clip is a spare: Die_Forward came first with as many words
            ]
        );
        let a = assign(&[Some("Die_Forward"), Some("zombieDie02")], &t);
        assert_eq!(a.duplicates[0].rule, "comes first in bake order");
    }

    #[test]
    fn prefixes_and_numbers_do_not_hide_a_name() {
        let t = table();
        assert_eq!(slots_of(&["CharacterArmature|Run"], &t), [Some("run".to_string())]);
        assert_eq!(slots_of(&["Armature|mixamo.com|Layer0", "Armature|Walk.001"], &t), [None, Some("walk".into())]);
        assert_eq!(
            slots_of(&["Attack2", "HitReact", "pick-up"], &t),
            [Some("attack".into()), Some("hit".into()), Some("pickup".into())]
        );
    }

    #[test]
    fn a_clip_matching_two_slots_goes_to_the_longest_then_the_last_name() {
        let t = table();
        // Same length: the name found last wins ("Run_Shoot" is a shoot).
        assert_eq!(
            slots_of(&["Run_Shoot", "Walk_Carry", "Idle_Sword", "Jump_Idle"], &t),
            [
                Some("shoot".into()),
                Some("carry".into()),
                Some("idle".into()),
                None // Jump_Idle is a spare for idle: Idle_Sword came first
            ]
        );
        let t2 =
            AliasTable::parse("version = 1\n[slots]\nidle = []\nhit = [\"take hit\"]\nattack = [\"take\"]\n").unwrap();
        assert_eq!(slots_of(&["Take_Hit_Idle"], &t2), [Some("hit".to_string())]);
        // Same length and place would mean the same name in two slots, which a table may not have.
        let t3 = AliasTable::parse("version = 1\n[slots]\nshoot = [\"fire\"]\nburn = [\"fire\"]\n");
        assert!(t3.is_err(), "one name in two slots is refused at parse time");
    }

    #[test]
    fn duplicates_pick_by_the_documented_rule_and_report_it() {
        let t = table();
        let names = ["attack-melee-right", "Attack", "attack-kick-left"];
        let a = assign(&names.map(Some), &t);
        assert_eq!(a.filled_by("attack"), Some(1));
        assert_eq!(
            a.duplicates,
            [Duplicate {
                slot: "attack".into(),
                chosen: 1,
                others: vec![0, 2],
                rule: "is named exactly like one of the slot's names"
            }]
        );
        assert_eq!(a.clips[0], Verdict::Spare { slot: "attack".into(), alias: "attack".into(), chosen: 1 });
        // Earlier-listed name wins over a later one: "attack" is listed before "slash".
        let a = assign(&[Some("Sword_Slash"), Some("Attack_01_Heavy")], &t);
        assert_eq!(
            (a.filled_by("attack"), a.duplicates[0].rule),
            (Some(1), "matches a name listed earlier for the slot")
        );
        // Fewer words.
        let a = assign(&[Some("Attack_Heavy_Left"), Some("Attack_Heavy")], &t);
        assert_eq!((a.filled_by("attack"), a.duplicates[0].rule), (Some(1), "has fewer words"));
    }

    #[test]
    fn ignored_clips_are_neither_slots_nor_reports() {
        let a = assign(&[Some("static"), Some("T-Pose"), Some("idle")], &table());
        assert!(matches!(a.clips[0], Verdict::Ignored { .. }) && matches!(a.clips[1], Verdict::Ignored { .. }));
        assert_eq!(a.clips[2].slot(), Some("idle"));
    }

    #[test]
    fn fallback_takes_a_lone_unmatched_clip_only() {
        let t = table();
        let a = assign(&[Some("static"), Some("squirrel_anim_7f3a")], &t);
        assert_eq!(a.clips[1], Verdict::Slot { slot: "idle".into(), alias: String::new(), fallback: true });
        let a = assign(&[None], &t);
        assert_eq!(a.clips[0].slot(), Some("idle"));
        let a = assign(&[Some("Individuals"), Some("Pulse")], &t);
        assert!(a.no_slot());
        let no_fallback = AliasTable::parse("version = 1\n[slots]\nidle = []\n").unwrap();
        assert!(assign(&[Some("squirrel_anim_7f3a")], &no_fallback).no_slot());
    }

    #[test]
    fn unnamed_clips_are_never_matched_by_their_index_name() {
        let t = AliasTable::parse("version = 1\n[slots]\nidle = [\"animation\"]\n").unwrap();
        let a = assign(&[None, None], &t);
        assert_eq!(a.clips, [Verdict::Unnamed, Verdict::Unnamed]);
    }

    #[test]
    fn an_empty_slot_with_a_lookalike_clip_is_a_plausible_miss() {
        // The seed's table: death, die, killed. The clip is "Dead".
        let t = AliasTable::parse("version = 1\n[slots]\nidle = []\ndeath = [\"die\", \"killed\"]\n").unwrap();
        let a = assign(&[Some("Idle"), Some("Dead")], &t);
        assert_eq!(a.clips[1], Verdict::Unassigned);
        assert_eq!(a.misses.len(), 1);
        assert_eq!((a.misses[0].slot.as_str(), a.misses[0].clip), ("death", 1));
        assert_eq!(
            (a.misses[0].evidence.clip_word.as_str(), a.misses[0].evidence.slot_word.as_str()),
            ("dead", "death")
        );
    }
}
