//! English dictionary words (`assets/words/`: SCOWL, American and British, size 50),
//! so redaction can tell a persona's own words from anyone's.

use std::sync::LazyLock;

const TEXT: &str = include_str!("../../assets/words/english.txt");

/// The list, sorted bytewise; split once, on first use.
static WORDS: LazyLock<Vec<&'static str>> = LazyLock::new(|| TEXT.lines().collect());

/// Whether `word` is an ordinary English word in any case (`Clinic`, `none`,
/// `well-controlled`: each part of a hyphenated word is one); proper names and
/// words of other languages or trades (`Hollybrook`, `atorvastatin`) are not.
pub fn is_dictionary_word(word: &str) -> bool {
    let lower = word.to_ascii_lowercase();
    !lower.is_empty()
        && lower.split('-').all(|part| {
            !part.is_empty()
                && part.bytes().all(|b| b.is_ascii_lowercase())
                && WORDS.binary_search(&part).is_ok()
        })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ordinary_words_are_known_names_and_terms_are_not() {
        for word in ["clinic", "Clinic", "NONE", "online", "parents", "well-controlled", "peter", "a"] {
            assert!(is_dictionary_word(word), "{word}");
        }
        for word in
            ["Hollybrook", "atorvastatin", "Johnson", "Müller", "", "-", "well-", "RY568392", "o'clock"]
        {
            assert!(!is_dictionary_word(word), "{word}");
        }
    }

    #[test]
    fn the_list_is_sorted_for_binary_search() {
        assert!(WORDS.len() > 60_000);
        assert!(WORDS.windows(2).all(|w| w[0] < w[1]));
    }
}
