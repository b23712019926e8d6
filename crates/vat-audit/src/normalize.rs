//! Clip and alias names to words: the one cleanup both sides of a match go through.
//!
//! Rules, in order (docs/AUDIT.md lists them with examples):
//! 1. The name is cut into segments at `|` (Blender writes `Armature|Run`).
//! 2. Each segment is cut into words at every character that is not a letter or digit
//!    (`_ - . space` and anything else), at camelCase humps (`hitReact` → hit react,
//!    `HTTPServer` → http server) and between letters and digits (`Layer0` → layer 0).
//!    Words are lowercased.
//! 3. Rig prefixes go: any segment but the last whose words (less trailing numbers)
//!    end in `armature`, `rig` or `skeleton`, or are `mixamo com` or `mixamorig`
//!    (`CharacterArmature|Run`, `Armature.001|Run`, `Armature|mixamo.com|Layer0`);
//!    then, at the start of what is left, `mixamo com`, and `armature`,
//!    `character armature`, `mixamorig`, `rig` or `skeleton` when other words follow.
//! 4. Trailing numbers go (`Run.001`, `Take 001`, `Attack2`); numbers inside stay.

/// Segment words that mark a rig, not a clip, when they end a segment before the last.
const RIG_WORDS: &[&str] = &["armature", "rig", "skeleton"];

/// Word runs that are rig or tool prefixes at the start of a clip name.
const LEADING_PREFIXES: &[&[&str]] =
    &[&["character", "armature"], &["armature"], &["mixamorig"], &["rig"], &["skeleton"]];

/// The words of a clip or alias name (see the module doc for the rules).
///
/// ```
/// use vat_audit::normalize;
/// assert_eq!(normalize("CharacterArmature|Run"), ["run"]);
/// assert_eq!(normalize("Armature|mixamo.com|Layer0"), ["layer"]);
/// assert_eq!(normalize("hitReact_02"), ["hit", "react"]);
/// ```
pub fn normalize(name: &str) -> Vec<String> {
    let segments: Vec<Vec<String>> = name.split('|').map(split_words).collect();
    let last = segments.len() - 1;
    let mut words = Vec::new();
    for (i, segment) in segments.into_iter().enumerate() {
        if i < last && is_rig_segment(&segment) {
            continue;
        }
        words.extend(segment);
    }
    if words.starts_with(&["mixamo".to_string(), "com".to_string()]) {
        words.drain(..2);
    }
    for prefix in LEADING_PREFIXES {
        if words.len() > prefix.len() && words.iter().zip(prefix.iter()).all(|(w, p)| w == p) {
            words.drain(..prefix.len());
            break;
        }
    }
    strip_trailing_numbers(&mut words);
    words
}

fn is_number(word: &str) -> bool {
    !word.is_empty() && word.chars().all(|c| c.is_ascii_digit())
}

fn strip_trailing_numbers(words: &mut Vec<String>) {
    while words.last().is_some_and(|w| is_number(w)) {
        words.pop();
    }
}

fn is_rig_segment(words: &[String]) -> bool {
    let mut words = words.to_vec();
    strip_trailing_numbers(&mut words);
    match words.as_slice() {
        [] => false,
        [a, b] if a == "mixamo" && b == "com" => true,
        [only] if only == "mixamorig" => true,
        [.., last] => RIG_WORDS.contains(&last.as_str()),
    }
}

#[derive(Clone, Copy, PartialEq)]
enum Kind {
    Lower,
    Upper,
    Digit,
    /// Letters without case (CJK and the like).
    Other,
}

fn kind(c: char) -> Kind {
    if c.is_ascii_digit() || c.is_numeric() {
        Kind::Digit
    } else if c.is_uppercase() {
        Kind::Upper
    } else if c.is_lowercase() {
        Kind::Lower
    } else {
        Kind::Other
    }
}

/// Words of one segment, lowercased.
fn split_words(segment: &str) -> Vec<String> {
    let mut words = Vec::new();
    for run in segment.split(|c: char| !c.is_alphanumeric()).filter(|r| !r.is_empty()) {
        let chars: Vec<char> = run.chars().collect();
        let mut start = 0;
        for i in 1..chars.len() {
            let (prev, here) = (kind(chars[i - 1]), kind(chars[i]));
            let next = chars.get(i + 1).map(|&c| kind(c));
            let boundary = match (prev, here) {
                (Kind::Digit, k) | (k, Kind::Digit) if k != Kind::Digit => true,
                (Kind::Lower, Kind::Upper) => true,
                // The last capital of a run starts the next word: "HTTPServer" → HTTP | Server.
                (Kind::Upper, Kind::Upper) => next == Some(Kind::Lower),
                _ => false,
            };
            if boundary {
                words.push(chars[start..i].iter().collect::<String>().to_lowercase());
                start = i;
            }
        }
        words.push(chars[start..].iter().collect::<String>().to_lowercase());
    }
    words
}

#[cfg(test)]
mod tests {
    use super::normalize;

    fn n(name: &str) -> Vec<String> {
        normalize(name)
    }

    #[test]
    fn case_and_separators() {
        for name in ["Death", "DEATH", "death", " death ", "death."] {
            assert_eq!(n(name), ["death"], "{name:?}");
        }
        for name in ["hit_react", "hit-react", "hit.react", "hit react", "Hit React", "hit__react", "hit (react)"] {
            assert_eq!(n(name), ["hit", "react"], "{name:?}");
        }
    }

    #[test]
    fn camel_case_and_digits() {
        assert_eq!(n("HitReact"), ["hit", "react"]);
        assert_eq!(n("hitReact"), ["hit", "react"]);
        assert_eq!(n("IKRunCycle"), ["ik", "run", "cycle"]);
        assert_eq!(n("attack2Hand"), ["attack", "2", "hand"]);
        assert_eq!(n("Layer0"), ["layer"]);
    }

    #[test]
    fn rig_prefixes() {
        assert_eq!(n("Armature|Dead"), ["dead"]);
        assert_eq!(n("CharacterArmature|Run"), ["run"]);
        assert_eq!(n("Armature.001|Walk"), ["walk"]);
        assert_eq!(n("Goblin_Rig|Attack_01"), ["attack"]);
        assert_eq!(n("Armature|mixamo.com|Layer0"), ["layer"]);
        assert_eq!(n("mixamo.com"), Vec::<String>::new());
        assert_eq!(n("mixamo.com|Idle"), ["idle"]);
        assert_eq!(n("Armature_Idle"), ["idle"]);
        assert_eq!(n("CharacterArmature_Idle"), ["idle"]);
        // A prefix word alone is the name, not a prefix.
        assert_eq!(n("Armature"), ["armature"]);
        // A rig word elsewhere is a word like any other.
        assert_eq!(n("Rigged_Walk"), ["rigged", "walk"]);
        assert_eq!(n("Idle|Armature"), ["idle", "armature"]);
    }

    #[test]
    fn trailing_numbers_go_inner_numbers_stay() {
        assert_eq!(n("Run.001"), ["run"]);
        assert_eq!(n("Take 001"), ["take"]);
        assert_eq!(n("Attack2"), ["attack"]);
        assert_eq!(n("Attack_2_Left"), ["attack", "2", "left"]);
        assert_eq!(n("animation_0"), ["animation"]);
        assert_eq!(n("007"), Vec::<String>::new());
    }

    #[test]
    fn non_ascii_letters_are_words() {
        assert_eq!(n("Ätsch_Laufen"), ["ätsch", "laufen"]);
        assert_eq!(n("走る"), ["走る"]);
    }
}
