//! Which characters a text holds, as one 64-bit word: the picker's
//! prefilter, so a term whose characters are not all in a field is turned
//! away with one AND instead of a call into `nucleo-matcher`.
//!
//! A term can only be found in a field (fuzzily, as a substring, as a
//! prefix, suffix or the whole field) if every character of its needle
//! equals some character of the field as the matcher compares them. The
//! set must therefore never leave out a character the matcher could
//! compare equal, and may include more (a spurious bit only costs the call
//! the prefilter would have saved):
//!
//! - ASCII letters are folded to lower case on both sides (a
//!   case-sensitive term then passes a field holding the other case, and
//!   the matcher decides);
//! - each letter and digit has a bit of its own, every other ASCII
//!   character shares one of the remaining bits with a few others;
//! - non-ASCII characters share one bit, and a non-ASCII character of a
//!   field also sets the bits of what the matcher may turn it into: its
//!   lower case and its normalised form (`é` is `e` to a term without
//!   accents, the Kelvin sign is `k`), computed by `nucleo-matcher`'s own
//!   functions so the two cannot drift apart.

use nucleo_matcher::chars::{normalize, to_lower_case};
use nucleo_matcher::Utf32Str;

/// A set of character classes (see the module documentation).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct CharSet(u64);

/// The bit shared by every non-ASCII character.
const NON_ASCII: u64 = 1 << 63;

/// The bit of one character.
fn bit(c: char) -> u64 {
    if !c.is_ascii() {
        return NON_ASCII;
    }
    let b = (c as u8).to_ascii_lowercase();
    let index = match b {
        b'a'..=b'z' => b - b'a',
        b'0'..=b'9' => 26 + (b - b'0'),
        // Bits 36 to 62 for the rest of ASCII.
        _ => 36 + b % 27,
    };
    1 << index
}

impl CharSet {
    /// The characters of a field, with everything the matcher may compare
    /// them as.
    pub fn of_field(field: Utf32Str<'_>) -> Self {
        let mut set = 0;
        for c in field.chars() {
            set |= bit(c);
            if !c.is_ascii() {
                let normal = normalize(c);
                set |= bit(to_lower_case(c))
                    | bit(normal)
                    | bit(to_lower_case(normal))
                    | bit(normalize(to_lower_case(c)));
            }
        }
        CharSet(set)
    }

    /// The characters a needle requires.
    pub fn of_needle(needle: Utf32Str<'_>) -> Self {
        CharSet(needle.chars().fold(0, |set, c| set | bit(c)))
    }

    /// Whether a field holding `self` may hold every character of `needle`
    /// (`false`: the needle cannot be found in it).
    pub fn may_hold(self, needle: CharSet) -> bool {
        needle.0 & !self.0 == 0
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use nucleo_matcher::pattern::{Atom, CaseMatching, Normalization};
    use nucleo_matcher::{Config, Matcher};
    use proptest::prelude::*;

    /// `text` as the ranking presents a field to the matcher.
    fn set(text: &str) -> CharSet {
        CharSet::of_field(Utf32Str::new(text, &mut Vec::new()))
    }

    fn needle(term: &str) -> CharSet {
        let atom = Atom::parse(term, CaseMatching::Smart, Normalization::Smart);
        CharSet::of_needle(atom.needle_text())
    }

    #[test]
    fn rejects_a_missing_character_and_folds_case() {
        assert!(set("Fix Parser").may_hold(needle("prs")));
        assert!(set("Fix Parser").may_hold(needle("PRS")));
        assert!(!set("Fix Parser").may_hold(needle("zq")));
        assert!(!set("abc").may_hold(needle("é")));
        assert!(set("café").may_hold(needle("cafe")));
        assert!(set("\u{212A}elvin").may_hold(needle("kelvin")));
        assert!(set("").may_hold(needle("")));
    }

    /// Characters with case, normalisation and grapheme quirks.
    fn text() -> impl Strategy<Value = String> {
        proptest::string::string_regex(
            "[a-dA-Dz0-9 ._/$^'\\\\!-]{0,3}[éÉèßẞİıﬁ\u{212A}kK\u{301}Åå]{0,3}[a-dA-DkKe ]{0,4}",
        )
        .unwrap()
    }

    proptest! {
        /// Whenever a term is found in a field (any kind, either case, with
        /// or without accents), the field's set holds the needle's.
        #[test]
        fn never_turns_away_a_field_the_matcher_finds_the_term_in(
            field in text(),
            term in text(),
            prefix in proptest::sample::select(vec!["", "'", "^", "!", "\\"]),
            suffix in proptest::sample::select(vec!["", "$", "\\$"]),
            paths in any::<bool>(),
        ) {
            let mut config = Config::DEFAULT;
            if paths {
                config.set_match_paths();
            }
            let mut matcher = Matcher::new(config);
            let mut atom = Atom::parse(&format!("{prefix}{term}{suffix}"), CaseMatching::Smart, Normalization::Smart);
            atom.negative = false;
            let mut buf = Vec::new();
            let hay = Utf32Str::new(&field, &mut buf);
            if atom.score(hay, &mut matcher).is_some() {
                prop_assert!(
                    CharSet::of_field(hay).may_hold(CharSet::of_needle(atom.needle_text())),
                    "{:?} in {:?}", atom, field
                );
            }
        }
    }
}
