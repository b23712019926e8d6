//! The guard: does an unassigned clip look as if it belongs to an empty slot?
//!
//! Deliberately not the table match. A guard that reused the matcher it checks could
//! only agree with it (seed: "a guard that reuses the table it is checking can only
//! ever agree with itself"). So this module has its own word split (letters only),
//! a small English stemmer and an edit distance, and compares the clip's words with
//! the slot's name and every name the slot accepts. It errs towards reporting: a
//! false alarm costs a look, a miss ships a unit without a death.

use crate::table::Slot;

/// Why a clip looks like it belongs to a slot: the two words that are alike.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Evidence {
    /// A word of the clip's name, lowercased.
    pub clip_word: String,
    /// The word of the slot's name or accepted name it resembles.
    pub slot_word: String,
}

/// Letter runs of a name, lowercased, also cut at camelCase humps. Digits and every
/// other character separate words.
fn letter_words(name: &str) -> Vec<String> {
    let mut words = Vec::new();
    let mut current = String::new();
    let mut previous_lower = false;
    for c in name.chars() {
        if !c.is_alphabetic() {
            if !current.is_empty() {
                words.push(std::mem::take(&mut current));
            }
            previous_lower = false;
            continue;
        }
        if c.is_uppercase() && previous_lower && !current.is_empty() {
            words.push(std::mem::take(&mut current));
        }
        previous_lower = c.is_lowercase();
        current.extend(c.to_lowercase());
    }
    if !current.is_empty() {
        words.push(current);
    }
    words
}

fn is_vowel(c: u8) -> bool {
    matches!(c, b'a' | b'e' | b'i' | b'o' | b'u')
}

/// A small suffix stripper for English verb and noun forms: dying → die, died → die,
/// running → run, attacked → attack, hits → hit, carries → carry.
pub fn stem(word: &str) -> String {
    let w = word.to_lowercase();
    let b = w.as_bytes();
    let n = b.len();
    if !w.is_ascii() || n < 4 {
        return w;
    }
    let undouble = |s: &str| -> String {
        let sb = s.as_bytes();
        let m = sb.len();
        if m >= 2 && sb[m - 1] == sb[m - 2] && !is_vowel(sb[m - 1]) && !matches!(sb[m - 1], b'l' | b's' | b'z') {
            s[..m - 1].to_string()
        } else {
            s.to_string()
        }
    };
    if let Some(base) = w.strip_suffix("ying") {
        if n >= 5 {
            return format!("{base}ie");
        }
    }
    if let Some(base) = w.strip_suffix("ing") {
        if base.len() >= 3 && base.bytes().any(is_vowel) {
            return undouble(base);
        }
    }
    if let Some(base) = w.strip_suffix("ied") {
        return if n == 4 { format!("{base}ie") } else { format!("{base}y") };
    }
    if let Some(base) = w.strip_suffix("ies") {
        return if n == 4 { format!("{base}ie") } else { format!("{base}y") };
    }
    if let Some(base) = w.strip_suffix("ed") {
        if base.len() >= 3 && base.bytes().any(is_vowel) {
            return undouble(base);
        }
    }
    for ending in ["sses", "shes", "ches", "xes", "zes"] {
        if w.ends_with(ending) {
            return w[..n - 2].to_string();
        }
    }
    if w.ends_with('s') && !w.ends_with("ss") && !w.ends_with("us") {
        return w[..n - 1].to_string();
    }
    w
}

/// Optimal string alignment distance (Levenshtein with adjacent transpositions).
pub fn edit_distance(a: &str, b: &str) -> usize {
    let a: Vec<char> = a.chars().collect();
    let b: Vec<char> = b.chars().collect();
    let mut d = vec![vec![0usize; b.len() + 1]; a.len() + 1];
    for (i, row) in d.iter_mut().enumerate() {
        row[0] = i;
    }
    for (j, cell) in d[0].iter_mut().enumerate() {
        *cell = j;
    }
    for i in 1..=a.len() {
        for j in 1..=b.len() {
            let cost = usize::from(a[i - 1] != b[j - 1]);
            d[i][j] = (d[i - 1][j] + 1).min(d[i][j - 1] + 1).min(d[i - 1][j - 1] + cost);
            if i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1] {
                d[i][j] = d[i][j].min(d[i - 2][j - 2] + 1);
            }
        }
    }
    d[a.len()][b.len()]
}

/// Two words are alike when their stems are equal, or close for their length: one
/// edit when the longer stem has 4 letters or more and both start alike (idle ~ idel),
/// two from 5 letters when they share their first three (dead ~ death). Stems of 3
/// letters or fewer must be equal (hit is not sit), and a different first letter is a
/// different word (back is not block, walk is not talk).
pub fn alike(a: &str, b: &str) -> bool {
    let (sa, sb) = (stem(a), stem(b));
    if sa == sb {
        return true;
    }
    let longest = sa.chars().count().max(sb.chars().count());
    let shared = sa.chars().zip(sb.chars()).take_while(|(x, y)| x == y).count();
    let allowed = match (longest, shared) {
        (0..=3, _) | (_, 0) => 0,
        (4, _) | (_, 1..=2) => 1,
        _ => 2,
    };
    allowed > 0 && edit_distance(&sa, &sb) <= allowed
}

/// Whether the clip called `clip_name` plausibly belongs to `slot`: some name of the
/// slot (its own name included) has every word alike to a word of the clip.
pub fn belongs(clip_name: &str, slot: &Slot) -> Option<Evidence> {
    let clip_words = letter_words(clip_name);
    let candidates = std::iter::once(slot.name.as_str()).chain(slot.names.iter().map(|a| a.text.as_str()));
    for candidate in candidates {
        let slot_words = letter_words(candidate);
        if slot_words.is_empty() {
            continue;
        }
        let pairs: Vec<Option<&String>> = slot_words.iter().map(|s| clip_words.iter().find(|c| alike(c, s))).collect();
        if pairs.iter().all(Option::is_some) {
            let (clip_word, slot_word) = slot_words
                .iter()
                .zip(&pairs)
                .map(|(s, c)| (c.expect("all found"), s))
                .max_by_key(|(_, s)| s.len())
                .expect("at least one word");
            return Some(Evidence { clip_word: clip_word.clone(), slot_word: slot_word.clone() });
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::table::AliasTable;

    #[test]
    fn stems() {
        for (word, expected) in [
            ("dying", "die"),
            ("died", "die"),
            ("dies", "die"),
            ("running", "run"),
            ("attacked", "attack"),
            ("attacking", "attack"),
            ("hits", "hit"),
            ("carries", "carry"),
            ("punches", "punch"),
            ("falling", "fall"),
            ("walks", "walk"),
            ("dead", "dead"),
            ("boss", "boss"),
            ("sing", "sing"),
        ] {
            assert_eq!(stem(word), expected, "{word}");
        }
    }

    #[test]
    fn distances() {
        assert_eq!(edit_distance("dead", "death"), 2);
        assert_eq!(edit_distance("idle", "idel"), 1);
        assert_eq!(edit_distance("", "run"), 3);
    }

    #[test]
    fn alike_words() {
        assert!(alike("Dead", "death"));
        assert!(alike("Dying", "die"));
        assert!(alike("Idel", "idle"));
        assert!(alike("Attacking", "attack"));
        assert!(!alike("sit", "hit"));
        assert!(!alike("layer", "fall"));
        assert!(!alike("survey", "idle"));
        assert!(!alike("back", "block"), "two edits need the first three letters in common");
        assert!(!alike("walk", "talk"), "a different first letter is a different word");
    }

    #[test]
    fn belongs_is_independent_of_the_table_match() {
        // The table would never match these; the guard still sees them.
        let table =
            AliasTable::parse("version = 1\n[slots]\ndeath = [\"die\", \"killed\"]\nhit = [\"get hit\"]\n").unwrap();
        let death = table.slot("death").unwrap();
        let hit = table.slot("hit").unwrap();
        assert_eq!(
            belongs("Armature|Dead", death),
            Some(Evidence { clip_word: "dead".into(), slot_word: "death".into() })
        );
        assert!(belongs("Zombie_Dying", death).is_some());
        assert!(belongs("Killing_Blow", death).is_some());
        assert!(belongs("Survey", death).is_none());
        assert!(belongs("HitsTaken", hit).is_some());
        assert!(belongs("Get_Up", hit).is_none(), "every word of \"get hit\" must be there");
        assert!(belongs("Sit", hit).is_none());
    }
}
