//! Numbers in free text, matched by kind (issue 35): a phone number may be written with or
//! without its country code or trunk `0`, grouped any way; an identifier (an ID, account, card
//! or passport number, a code) only with all its digits, separators aside; an amount only as an
//! amount, a currency next to it. A written number that is only the end of an identifier or a
//! phone (`789 123` of `456 789 123`, a card's last four digits) is a part: the judges report it
//! as partial at most, never as the whole number.
//! All offsets are **character** offsets.

/// Shortest digit string matched digit for digit as an identifier or phone (shorter ones are
/// ages, prices, days: they match as text only).
pub const MIN_ID_DIGITS: usize = 6;
/// Shortest end of an identifier or phone reported as a part of it (a card's last four).
pub const MIN_PART_DIGITS: usize = 4;

/// How a number may be written and still be the same number.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum NumberKind {
    /// Country code, trunk `0` and grouping may differ.
    Phone,
    /// Every digit, in order; separators may differ.
    Identifier,
    /// Every digit, with a currency next to it.
    Amount,
}

/// A snippet's number, as its kind compares it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SnippetNumber {
    pub kind: NumberKind,
    /// Every digit; for a phone number, the national number (no country code, no trunk `0`).
    pub digits: String,
}

impl SnippetNumber {
    /// The number of a snippet worth matching digit for digit: its longest written number, when
    /// that has at least [`MIN_ID_DIGITS`] digits. An amount when a currency stands next to it,
    /// a phone number when it is written with a leading `+` or the data item names a phone, else
    /// an identifier.
    pub fn of(snippet: &str, data_item: Option<&str>) -> Option<Self> {
        let chars: Vec<char> = snippet.chars().collect();
        let groups = written_numbers(&chars)
            .into_iter()
            .filter(|g| digits_of(&chars, g).len() >= MIN_ID_DIGITS)
            .max_by_key(|g| digits_of(&chars, g).len())?;
        let (start, end) = (groups[0].0, groups[groups.len() - 1].1);
        let international = start > 0 && chars[start - 1] == '+';
        let names_phone = data_item.is_some_and(|d| {
            let d = d.to_lowercase();
            ["phone", "mobile", "telephone"].iter().any(|w| d.contains(w))
        });
        let digits = digits_of(&chars, &groups);
        Some(if currency_next_to(&chars, start, end) {
            SnippetNumber { kind: NumberKind::Amount, digits }
        } else if international && groups.len() > 1 {
            let national = digits_of(&chars, &groups[1..]);
            SnippetNumber { kind: NumberKind::Phone, digits: national.trim_start_matches('0').to_string() }
        } else if international || names_phone {
            SnippetNumber { kind: NumberKind::Phone, digits: digits.trim_start_matches('0').to_string() }
        } else {
            SnippetNumber { kind: NumberKind::Identifier, digits }
        })
    }

    /// Whether a written number's digits are this number, whole.
    fn is(&self, written: &str) -> bool {
        match self.kind {
            NumberKind::Phone => same_phone_number(written, &self.digits),
            NumberKind::Identifier | NumberKind::Amount => written == self.digits,
        }
    }
}

/// Whether the digits of a written phone number are the national number `national`: with or
/// without a trunk `0` or international `00`, and with or without a 1–3 digit country code
/// before it (`447700900123`, `4407700900123` and `07700900123` are all `7700900123`).
pub fn same_phone_number(written: &str, national: &str) -> bool {
    // Byte slicing below is only safe on ASCII digits.
    if !written.bytes().all(|c| c.is_ascii_digit()) || !national.bytes().all(|c| c.is_ascii_digit()) {
        return false;
    }
    let written = written.trim_start_matches('0');
    let national = national.trim_start_matches('0');
    if national.len() < MIN_ID_DIGITS || !written.ends_with(national) {
        return false;
    }
    let code = &written[..written.len() - national.len()];
    // `+44 (0)7700…` leaves the trunk zero after the country code.
    let code = code.strip_suffix('0').unwrap_or(code);
    code.len() <= 3
}

/// Characters that may sit between the digit groups of one written number.
fn is_number_separator(c: char) -> bool {
    // En dash and non-breaking hyphen: models write `555–0123` and `13–18` with them.
    matches!(c, ' ' | '-' | '–' | '‑' | '.' | '(' | ')' | '+' | '/' | '\u{a0}' | '\n' | '\r' | '\t')
}

/// Up to three separators (e.g. `) (` or ` - `) keep a number going.
const MAX_SEPARATORS: usize = 3;

/// Digit groups of `chars`: (start, end) of each maximal digit run, chained into written
/// numbers when only separators lie between them.
pub fn written_numbers(chars: &[char]) -> Vec<Vec<(usize, usize)>> {
    let mut out: Vec<Vec<(usize, usize)>> = Vec::new();
    let mut i = 0;
    let mut current: Vec<(usize, usize)> = Vec::new();
    while i < chars.len() {
        if chars[i].is_ascii_digit() {
            let start = i;
            while i < chars.len() && chars[i].is_ascii_digit() {
                i += 1;
            }
            current.push((start, i));
            let mut j = i;
            while j < chars.len() && j - i < MAX_SEPARATORS && is_number_separator(chars[j]) {
                j += 1;
            }
            if j < chars.len() && j > i && chars[j].is_ascii_digit() {
                i = j;
            } else {
                out.push(std::mem::take(&mut current));
            }
        } else {
            i += 1;
        }
    }
    if !current.is_empty() {
        out.push(current);
    }
    out
}

fn digits_of(chars: &[char], groups: &[(usize, usize)]) -> String {
    groups.iter().flat_map(|&(s, e)| chars[s..e].iter()).collect()
}

/// Where a number was found.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum NumberMatch {
    /// The whole number: `[start, end)`.
    Whole(usize, usize),
    /// A written number that is only the end of it.
    Part(usize, usize),
}

/// A leading `+` or `(` belongs to the number as written.
fn written_start(chars: &[char], mut start: usize) -> usize {
    while start > 0 && matches!(chars[start - 1], '+' | '(') {
        start -= 1;
    }
    start
}

/// `number` in `chars`: written whole (as whole digit groups of a written number, see the
/// module doc), else an identifier's or phone's end written as a number of its own, of at least
/// [`MIN_PART_DIGITS`] digits.
pub fn find_number(chars: &[char], number: &SnippetNumber) -> Option<NumberMatch> {
    let digits = &number.digits;
    if digits.len() < MIN_ID_DIGITS {
        return None;
    }
    let amount = number.kind == NumberKind::Amount;
    let numbers = written_numbers(chars);
    for groups in &numbers {
        for first in 0..groups.len() {
            let mut acc = String::new();
            for &(s, e) in &groups[first..] {
                acc.extend(&chars[s..e]);
                if number.is(&acc) && (!amount || currency_next_to(chars, groups[first].0, e)) {
                    return Some(NumberMatch::Whole(written_start(chars, groups[first].0), e));
                }
                if acc.len() > digits.len() + 4 {
                    break;
                }
            }
        }
    }
    if amount {
        return None;
    }
    numbers.iter().find_map(|groups| {
        let (start, end) = (groups[0].0, groups[groups.len() - 1].1);
        let written = digits_of(chars, groups);
        let glued = (start > 0 && chars[start - 1].is_alphabetic())
            || chars.get(end).is_some_and(|c| c.is_alphabetic());
        let part =
            written.len() >= MIN_PART_DIGITS && written.len() < digits.len() && digits.ends_with(&written);
        (part && !glued).then(|| NumberMatch::Part(written_start(chars, start), end))
    })
}

/// Whether the digits starting at `start` continue a number written before them: a digit then
/// up to three separators (`+49 30`), or a digit and a thousands comma (`1,200`).
pub fn continues_before(chars: &[char], start: usize) -> bool {
    let mut i = start;
    while i > 0 && start - i < MAX_SEPARATORS && is_number_separator(chars[i - 1]) {
        i -= 1;
    }
    if i > 0 && chars[i - 1].is_ascii_digit() {
        return true;
    }
    start >= 2 && chars[start - 1] == ',' && chars[start - 2].is_ascii_digit()
}

/// Whether the digits ending at `end` go on into more of the same number (see [`continues_before`]).
pub fn continues_after(chars: &[char], end: usize) -> bool {
    let mut i = end;
    while i < chars.len() && i - end < MAX_SEPARATORS && is_number_separator(chars[i]) {
        i += 1;
    }
    if chars.get(i).is_some_and(char::is_ascii_digit) {
        return true;
    }
    chars.get(end) == Some(&',') && chars.get(end + 1).is_some_and(char::is_ascii_digit)
}

const CURRENCY_SIGNS: &[char] = &['€', '$', '£', '¥', '₹', '₩', '₺'];
const CURRENCY_WORDS: &[&str] = &[
    "eur", "euro", "euros", "usd", "dollar", "dollars", "cad", "gbp", "pound", "pounds", "inr", "rupee",
    "rupees", "rs", "brl", "reais", "chf", "aud", "jpy", "yen",
];

/// Whether `word` names a currency (`EUR`, `euros`, `CAD`).
pub fn is_currency_word(word: &str) -> bool {
    CURRENCY_WORDS.contains(&word.to_lowercase().as_str())
}

/// Whether a currency sign or name stands next to the number at `chars[start..end]`
/// (`€200`, `CAD $125,000`, `200 EUR`, `200 euros`), one space apart at most.
pub fn currency_next_to(chars: &[char], start: usize, end: usize) -> bool {
    let mut before = start;
    if before > 0 && chars[before - 1] == ' ' {
        before -= 1;
    }
    if before > 0 && CURRENCY_SIGNS.contains(&chars[before - 1]) {
        return true;
    }
    let letters = chars[..before].iter().rev().take_while(|c| c.is_alphabetic()).count();
    let word_before: String = chars[before - letters..before].iter().collect();
    if is_currency_word(&word_before) {
        return true;
    }
    let mut after = end;
    // `€1 million`, `CAD $850K` are amounts with the currency before them; `200 k€` is rare.
    if chars.get(after) == Some(&' ') {
        after += 1;
    }
    if chars.get(after).is_some_and(|c| CURRENCY_SIGNS.contains(c)) {
        return true;
    }
    let word_after: String =
        chars[after.min(chars.len())..].iter().take_while(|c| c.is_alphabetic()).collect();
    is_currency_word(&word_after)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn chars(s: &str) -> Vec<char> {
        s.chars().collect()
    }

    fn number(kind: NumberKind, digits: &str) -> SnippetNumber {
        SnippetNumber { kind, digits: digits.into() }
    }

    fn found(text: &str, digits: &str, kind: NumberKind) -> Option<(String, bool)> {
        let c = chars(text);
        find_number(&c, &number(kind, digits)).map(|m| match m {
            NumberMatch::Whole(s, e) => (c[s..e].iter().collect(), true),
            NumberMatch::Part(s, e) => (c[s..e].iter().collect(), false),
        })
    }

    #[test]
    fn same_phone_number_rules() {
        assert!(same_phone_number("447700900123", "07700900123"));
        assert!(same_phone_number("00447700900123", "7700900123"));
        assert!(same_phone_number("4407700900123", "07700900123"));
        assert!(same_phone_number("07700900123", "7700900123"));
        assert!(!same_phone_number("123", "0123456"));
        assert!(!same_phone_number("99997700900123", "7700900123"));
        // The end of a number is not the number, whatever could be read as a country code.
        assert!(!same_phone_number("79460958", "2079460958"));
        assert!(!same_phone_number("789123", "456789123"));
    }

    #[test]
    fn a_snippets_number_has_a_kind() {
        let of = |s: &str, item: Option<&str>| SnippetNumber::of(s, item);
        assert_eq!(of("+44 20 7946 0958", None), Some(number(NumberKind::Phone, "2079460958")));
        assert_eq!(of("07700 900123", Some("Phone Number")), Some(number(NumberKind::Phone, "7700900123")));
        assert_eq!(of("SIN: 456 789 123", None), Some(number(NumberKind::Identifier, "456789123")));
        assert_eq!(
            of("0987654321", Some("Bank Account Numbers")),
            Some(number(NumberKind::Identifier, "0987654321"))
        );
        assert_eq!(of("€800-1200 annually", None), Some(number(NumberKind::Amount, "8001200")));
        assert_eq!(of("€200", None), None, "too short to match digit for digit");
    }

    /// Issue 35: the SIN `456 789 123` is not the booking reference `789 123`, which is only its end.
    #[test]
    fn an_identifier_matches_whole_and_its_end_is_a_part() {
        let sin = "456789123";
        let reply = "Your booking reference is 789 123.";
        assert_eq!(found(reply, sin, NumberKind::Identifier), Some(("789 123".into(), false)));
        assert_eq!(
            found("SIN 456-789-123.", sin, NumberKind::Identifier),
            Some(("456-789-123".into(), true))
        );
        // Its start is no part of it, nor is a number glued to a word.
        assert_eq!(found("ref 456 789", sin, NumberKind::Identifier), None);
        assert_eq!(found("code AB9123", sin, NumberKind::Identifier), None);
        assert_eq!(found("ends in 123", sin, NumberKind::Identifier), None, "fewer than four digits");
        let card = "1567257196311758";
        assert_eq!(
            found("the card ending in 1758.", card, NumberKind::Identifier),
            Some(("1758".into(), false))
        );
        // A leading zero is a digit of an account number.
        assert_eq!(
            found("account 987654321", "0987654321", NumberKind::Identifier),
            Some(("987654321".into(), false))
        );
    }

    #[test]
    fn a_phone_number_may_drop_or_change_its_country_code() {
        let phone = "2079460958";
        for text in [
            "+44 20 7946 0958",
            "020 7946 0958",
            "(0044) 20-7946-0958",
            "+44 (0)20 7946 0958",
            "+33 20 7946 0958",
        ] {
            assert!(found(text, phone, NumberKind::Phone).is_some_and(|(_, whole)| whole), "{text}");
        }
        assert_eq!(found("ext. 7946 0958", phone, NumberKind::Phone), Some(("7946 0958".into(), false)));
    }

    #[test]
    fn an_amount_needs_its_currency() {
        let c = chars("cost 800-1200 or €800-1200 a year");
        assert_eq!(find_number(&c, &number(NumberKind::Amount, "8001200")), Some(NumberMatch::Whole(18, 26)));
        assert_eq!(found("range 700-850 units", "700850", NumberKind::Amount), None);
        assert!(currency_next_to(&chars("CAD $125"), 5, 8));
        assert!(currency_next_to(&chars("125 euros"), 0, 3));
        assert!(currency_next_to(&chars("EUR 125"), 4, 7));
        assert!(!currency_next_to(&chars("125 users"), 0, 3));
    }

    #[test]
    fn where_a_number_goes_on() {
        let c = chars("€1,200 and +49 30 1234 and 12, 9 and 200,000");
        assert!(continues_before(&c, 3), "1,200");
        assert!(continues_before(&c, 15), "49 30");
        assert!(continues_after(&c, 17), "30 1234");
        assert!(!continues_before(&c, 31), "12, 9");
        assert!(continues_after(&c, 40), "200,000");
        assert!(!continues_after(&c, 44));
    }
}
