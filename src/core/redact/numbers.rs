//! Numbers in a text: runs of digit groups, compared digits-only with the persona's ids and
//! phones, and the heuristics that mask unknown ones (dates and amounts spared).

use super::kind::PrivateKind;

/// Digit groups of one number considered together; bounds the work per run.
pub(super) const MAX_GROUPS: usize = 8;
/// Fewer digits than this in a profile number would mask too much.
pub(super) const MIN_ID_DIGITS: usize = 5;
/// Unknown numbers at least this long are masked as phones.
pub(super) const GENERIC_DIGITS: usize = 7;
/// Phones match when they share this many trailing digits…
pub(super) const PHONE_SHARED_DIGITS: usize = 7;
/// …and each has at most this many digits before them (country code, trunk 0).
pub(super) const PHONE_PREFIX_DIGITS: usize = 4;

pub(super) fn same_phone(a: &str, b: &str) -> bool {
    if a == b {
        return true;
    }
    let shared = a.bytes().rev().zip(b.bytes().rev()).take_while(|(x, y)| x == y).count();
    shared >= PHONE_SHARED_DIGITS
        && a.len() - shared <= PHONE_PREFIX_DIGITS
        && b.len() - shared <= PHONE_PREFIX_DIGITS
}

/// Groups `from..to` of a run not matched by a profile number: masked when
/// they hold enough digits to be a phone or an id, unless they read as a date
/// or a thousands-separated amount.
pub(super) fn generic_number(
    run: &NumberRun,
    from: usize,
    to: usize,
    spans: &mut Vec<(usize, usize, PrivateKind)>,
) {
    let groups = match run.groups.get(from..to) {
        Some(groups) if !groups.is_empty() => groups,
        _ => return,
    };
    let digits: usize = groups.iter().map(|g| g.digits.len()).sum();
    if digits < GENERIC_DIGITS || looks_like_date(groups) || looks_like_amount(groups) {
        return;
    }
    spans.push((groups[0].start, groups[groups.len() - 1].end, PrivateKind::Phone));
}

pub(super) fn looks_like_date(groups: &[Group]) -> bool {
    let lens: Vec<usize> = groups.iter().map(|g| g.digits.len()).collect();
    let date_sep = groups[1..].iter().all(|g| matches!(g.sep.trim(), "-" | "/" | "."));
    date_sep && matches!(lens.as_slice(), [4, 1..=2, 1..=2] | [1..=2, 1..=2, 2] | [1..=2, 1..=2, 4])
}

pub(super) fn looks_like_amount(groups: &[Group]) -> bool {
    groups.len() > 1
        && groups[0].digits.len() <= 3
        && groups[1..].iter().all(|g| g.digits.len() == 3 && matches!(g.sep.as_str(), "." | "," | " "))
}

/// One digit group of a number and the separator before it.
#[derive(Debug)]
pub(super) struct Group {
    /// Byte range, including a leading `+` or `(` on the first group.
    pub(super) start: usize,
    pub(super) end: usize,
    pub(super) digits: String,
    pub(super) sep: String,
}

#[derive(Debug)]
pub(super) struct NumberRun {
    pub(super) groups: Vec<Group>,
}

pub(super) const SEPARATORS: [char; 6] = [' ', '-', '.', '(', ')', '/'];

/// Runs of ASCII digits joined by at most two separator characters. Groups
/// glued to letters (`RY568392`, `W8`) are parts of words, not numbers.
pub(super) fn number_runs(text: &str) -> Vec<NumberRun> {
    let chars: Vec<(usize, char)> = text.char_indices().collect();
    let mut runs = Vec::new();
    let mut i = 0;
    while i < chars.len() {
        if !chars[i].1.is_ascii_digit() {
            i += 1;
            continue;
        }
        let glued_before = i > 0 && chars[i - 1].1.is_alphabetic();
        let mut groups: Vec<Group> = Vec::new();
        let mut sep = String::new();
        loop {
            let start_index = i;
            while i < chars.len() && chars[i].1.is_ascii_digit() {
                i += 1;
            }
            let mut start = chars[start_index].0;
            if groups.is_empty() {
                // `+44`, `(555)`, `(+44)`: the prefix belongs to the number.
                let mut k = start_index;
                while k > 0 && start_index - k < 2 && matches!(chars[k - 1].1, '+' | '(') {
                    k -= 1;
                }
                start = chars[k].0;
            }
            let end = chars.get(i).map_or(text.len(), |c| c.0);
            let digits = text.get(chars[start_index].0..end).unwrap_or_default().to_string();
            groups.push(Group { start, end, digits, sep: std::mem::take(&mut sep) });
            // Up to two separators, then a digit, continue the run.
            let mut k = i;
            while k < chars.len() && k - i < 2 && SEPARATORS.contains(&chars[k].1) {
                k += 1;
            }
            if k > i && k < chars.len() && chars[k].1.is_ascii_digit() {
                sep = chars[i..k].iter().map(|c| c.1).collect();
                i = k;
            } else {
                break;
            }
        }
        // A group glued to letters is part of a word; the groups after or before it are still a
        // number (`A0 07700 900123` holds a phone).
        let glued_after = chars.get(i).is_some_and(|c| c.1.is_alphabetic());
        if glued_after {
            groups.pop();
        }
        if glued_before && !groups.is_empty() {
            groups.remove(0);
            if let Some(first) = groups.first_mut() {
                first.sep.clear();
            }
        }
        if !groups.is_empty() {
            runs.push(NumberRun { groups });
        }
    }
    runs
}
