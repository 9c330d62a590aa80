//! Scripted "hard" checkers (Meta ARE style): deterministic comparisons that
//! need no model. Each says in `detail` exactly what did or did not match.

use super::dates::parse_date;
use super::normalize::{digits_only, find_snippet, normalize_text};
use super::numbers::{SnippetNumber, same_phone_number};

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CheckResult {
    pub passed: bool,
    pub detail: String,
}

impl CheckResult {
    fn new(passed: bool, detail: impl Into<String>) -> Self {
        CheckResult { passed, detail: detail.into() }
    }
}

/// Exact equality after trimming surrounding whitespace.
pub fn eq(actual: &str, expected: &str) -> CheckResult {
    let (a, e) = (actual.trim(), expected.trim());
    if a == e {
        CheckResult::new(true, format!("{a:?} equals the expected value"))
    } else {
        CheckResult::new(false, format!("{a:?} differs from the expected {e:?}"))
    }
}

/// Which needles occur in `text` (normalised matching, see `normalize`), each with what it matched.
fn found<'a>(text: &str, needles: &[&'a str]) -> (Vec<String>, Vec<&'a str>) {
    let mut hits = Vec::new();
    let mut misses = Vec::new();
    for n in needles {
        match find_snippet(text, n) {
            Some(m) => hits.push(format!("{n:?} (as {:?})", m.slice(text))),
            None => misses.push(*n),
        }
    }
    (hits, misses)
}

/// At least one needle occurs in `text`.
pub fn contain_any(text: &str, needles: &[&str]) -> CheckResult {
    if needles.is_empty() {
        return CheckResult::new(false, "no values to look for");
    }
    let (hits, misses) = found(text, needles);
    if hits.is_empty() {
        CheckResult::new(false, format!("none of {misses:?} found"))
    } else {
        CheckResult::new(true, format!("found {}", hits.join(", ")))
    }
}

/// Every needle occurs in `text`.
pub fn contain_all(text: &str, needles: &[&str]) -> CheckResult {
    if needles.is_empty() {
        return CheckResult::new(false, "no values to look for");
    }
    let (hits, misses) = found(text, needles);
    if misses.is_empty() {
        CheckResult::new(true, format!("found all: {}", hits.join(", ")))
    } else {
        CheckResult::new(false, format!("missing {misses:?}; found {}", hits.len()))
    }
}

/// The same items in any order (as multisets), compared in normalised text form.
pub fn unordered_list(actual: &[&str], expected: &[&str]) -> CheckResult {
    let key = |s: &str| normalize_text(s).as_string();
    let mut remaining: Vec<(String, &str)> = actual.iter().map(|a| (key(a), *a)).collect();
    let mut missing = Vec::new();
    for e in expected {
        let k = key(e);
        match remaining.iter().position(|(r, _)| *r == k) {
            Some(i) => {
                remaining.remove(i);
            }
            None => missing.push(*e),
        }
    }
    let extra: Vec<&str> = remaining.iter().map(|(_, a)| *a).collect();
    if missing.is_empty() && extra.is_empty() {
        CheckResult::new(true, format!("the same {} item(s) in any order", expected.len()))
    } else {
        CheckResult::new(false, format!("missing {missing:?}, unexpected {extra:?}"))
    }
}

/// The same day (and, when both give a time, the same minute) across formats.
pub fn datetime(actual: &str, expected: &str) -> CheckResult {
    let Some(a) = parse_date(actual) else {
        return CheckResult::new(false, format!("{actual:?} is not a date"));
    };
    let Some(e) = parse_date(expected) else {
        return CheckResult::new(false, format!("expected {expected:?} is not a date"));
    };
    // A missing year on either side matches any year.
    let same_day =
        a.month == e.month && a.day == e.day && (a.year.is_none() || e.year.is_none() || a.year == e.year);
    let same_time = match (a.minutes, e.minutes) {
        (Some(x), Some(y)) => x == y,
        _ => true,
    };
    let (ca, ce) = (a.canonical(), e.canonical());
    if same_day && same_time {
        CheckResult::new(true, format!("{actual:?} and {expected:?} are both {ca}"))
    } else {
        CheckResult::new(false, format!("{actual:?} is {ca}, expected {ce}"))
    }
}

/// The same phone number: digits only, with or without country code
/// (`+44`, `0044`) and trunk `0`, any spacing, dashes or parentheses.
pub fn phone_number(actual: &str, expected: &str) -> CheckResult {
    let (a, e) = (digits_only(actual), digits_only(expected));
    if a.is_empty() {
        return CheckResult::new(false, format!("{actual:?} has no digits"));
    }
    // The expected number without its country code, when it is written with one (`+44 …`).
    let national = SnippetNumber::of(expected, Some("phone")).map_or_else(|| e.clone(), |n| n.digits);
    if same_phone_number(&a, &national) {
        CheckResult::new(true, format!("{actual:?} and {expected:?} are the same number ({e})"))
    } else {
        CheckResult::new(false, format!("{actual:?} (digits {a}) is not {expected:?} (digits {e})"))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn eq_trims_only() {
        assert!(eq(" Lisbon ", "Lisbon").passed);
        let r = eq("lisbon", "Lisbon");
        assert!(!r.passed);
        assert!(r.detail.contains("\"Lisbon\""));
    }

    #[test]
    fn contain_any_and_all_say_what_matched() {
        let text = "Flights with TAP,\nhotel Casa do Largo";
        let r = contain_any(text, &["easyJet", "casa do largo"]);
        assert!(r.passed, "{}", r.detail);
        assert!(r.detail.contains("Casa do Largo"));
        let r = contain_all(text, &["tap", "Casa do Largo", "Sintra"]);
        assert!(!r.passed);
        assert!(r.detail.contains("Sintra"));
        assert!(!contain_any(text, &[]).passed);
    }

    #[test]
    fn unordered_lists() {
        assert!(unordered_list(&["b", "A"], &["a", "B"]).passed);
        let r = unordered_list(&["a", "a"], &["a", "b"]);
        assert!(!r.passed);
        assert!(r.detail.contains("\"b\"") && r.detail.contains("unexpected [\"a\"]"), "{}", r.detail);
    }

    #[test]
    fn datetimes_across_formats() {
        assert!(datetime("20 May 2025", "2025-05-20").passed);
        assert!(datetime("May 20, 2025", "20/05/2025").passed);
        assert!(datetime("2025-05-20 14:30", "20 May 2025 at 2:30 pm").passed);
        assert!(!datetime("2025-05-20 14:30", "2025-05-20 15:30").passed);
        assert!(datetime("2025-05-20 14:30", "20 May 2025").passed);
        let r = datetime("21 May 2025", "2025-05-20");
        assert!(!r.passed && r.detail.contains("2025-05-21"), "{}", r.detail);
        assert!(!datetime("soon", "2025-05-20").passed);
    }

    #[test]
    fn phone_numbers() {
        assert!(phone_number("+44 7700 900123", "07700 900123").passed);
        assert!(phone_number("0044 (7700) 900-123", "07700900123").passed);
        assert!(phone_number("+44 (0)7700 900123", "7700 900 123").passed);
        assert!(!phone_number("07700 900124", "07700 900123").passed);
        assert!(phone_number("07700 900123", "+44 7700 900123").passed);
        assert!(!phone_number("7946 0958", "+44 20 7946 0958").passed, "only its end");
        assert!(!phone_number("no phone", "07700 900123").passed);
    }
}
