//! The redaction toggle's core: the persona's private values masked in any
//! text, for screenshots and demos.
//!
//! A [`Redactor`] is built once from what is known of the persona (the task's
//! environment, or a journal's evaluation fields) and applied to every text a
//! pane or an export shows. Three passes find candidate spans, and the
//! leftmost-longest non-overlapping ones are replaced by a kind mask
//! (`[name]`, `[email]`, …):
//!
//! 1. profile values as text: case-insensitive (ASCII case folding, plus the
//!    value's lower- and upper-case forms for other scripts), whole words only.
//!    What is masked of a value: the whole value (`Progressive` as political
//!    views, `Hollybrook Clinic`), and the parts split off it — words of names,
//!    items of a list, proper nouns of a snippet — unless a part is a lone
//!    dictionary word: `clinic` or `confirmed` in anyone's text is not the
//!    persona's. A name that is also a word (`Peter`, `Will`) is masked only
//!    capitalised, as names are written. A value saying there is none (`None`,
//!    `N/A`) is no secret;
//! 2. numbers: runs of digits with spacing/dashes/dots/parentheses are compared
//!    digits-only, so `123 45 6789` is the id `123-45-6789` and `020 7946 0958`
//!    the phone `+44 20 7946 0958` (same trailing digits, differing only in a
//!    short country/trunk prefix); any other run of 7+ digits that is not a
//!    date is masked as `[phone]` — demos must not leak numbers we did not know;
//! 3. any email address, known or not.
//!
//! Redaction changes the text's length, so evidence spans (character offsets
//! into the original text) are not valid on redacted text: highlight only on
//! unredacted text.

use std::borrow::Cow;
use std::collections::{HashMap, HashSet};

use aho_corasick::{AhoCorasick, MatchKind};
use serde_json::Value;

use crate::core::dataset::task::Environment;
use crate::core::episode::TaskInfo;
use crate::core::words::is_dictionary_word;

/// What a private value is; decides its mask.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum PrivateKind {
    Name,
    Email,
    Phone,
    Address,
    Id,
    Medical,
    Banking,
    Private,
}

impl PrivateKind {
    pub fn mask(self) -> &'static str {
        match self {
            PrivateKind::Name => "[name]",
            PrivateKind::Email => "[email]",
            PrivateKind::Phone => "[phone]",
            PrivateKind::Address => "[address]",
            PrivateKind::Id => "[id]",
            PrivateKind::Medical => "[medical]",
            PrivateKind::Banking => "[banking]",
            PrivateKind::Private => "[private]",
        }
    }
}

/// Digit groups of one number considered together; bounds the work per run.
const MAX_GROUPS: usize = 8;
/// Fewer digits than this in a profile number would mask too much.
const MIN_ID_DIGITS: usize = 5;
/// Unknown numbers at least this long are masked as phones.
const GENERIC_DIGITS: usize = 7;
/// Phones match when they share this many trailing digits…
const PHONE_SHARED_DIGITS: usize = 7;
/// …and each has at most this many digits before them (country code, trunk 0).
const PHONE_PREFIX_DIGITS: usize = 4;

#[derive(Debug, Clone, Default)]
pub struct Redactor {
    text: Option<AhoCorasick>,
    text_kinds: Vec<PrivateKind>,
    /// Names that are also dictionary words, matched case-sensitively as written (`Peter`).
    proper_names: Option<AhoCorasick>,
    /// Digits-only ids (SSN, passport, account numbers).
    digit_ids: HashMap<String, PrivateKind>,
    /// Digits-only phone numbers.
    phones: Vec<String>,
}

impl Redactor {
    /// From the persona: `Key: value` lines of the general info, every
    /// medical and banking line, every email address and phone-like number in
    /// the persona file, and the people named in its emails and calendar.
    pub fn from_environment(env: &Environment) -> Self {
        let mut b = Builder::default();
        for line in env.general_info.lines() {
            b.general_line(line);
        }
        for line in env.medical.lines() {
            b.section_line(line, PrivateKind::Medical);
        }
        for line in env.banking.lines() {
            b.section_line(line, PrivateKind::Banking);
        }
        for text in [&env.general_info, &env.persona_text] {
            b.emails_and_numbers_in(text);
        }
        for email in &env.emails {
            b.names_in(&email.from);
            b.names_in(&email.to);
        }
        for entry in &env.calendar {
            b.names_in(&entry.participants);
        }
        b.build()
    }

    /// For journals without the dataset: the evaluation fields the header
    /// carries (`ground_truth_snippets`, `extraction_snippets`, `raw_data`).
    pub fn from_task_info(task: &TaskInfo) -> Self {
        let mut b = Builder::default();
        for key in ["ground_truth_snippets", "extraction_snippets", "raw_data"] {
            match task.extra.get(key) {
                Some(Value::Array(items)) => {
                    items.iter().filter_map(Value::as_str).for_each(|s| b.snippet(s))
                }
                Some(Value::String(s)) => b.snippet(s),
                _ => {}
            }
        }
        b.build()
    }

    /// From a list of private texts (masked as `[private]`).
    pub fn from_texts<I, S>(texts: I) -> Self
    where
        I: IntoIterator<Item = S>,
        S: AsRef<str>,
    {
        let mut b = Builder::default();
        texts.into_iter().for_each(|t| b.snippet(t.as_ref()));
        b.build()
    }

    /// From values whose kinds the caller knows.
    pub fn from_values<I, S>(values: I) -> Self
    where
        I: IntoIterator<Item = (PrivateKind, S)>,
        S: AsRef<str>,
    {
        Self::from_values_and_parts(values, std::iter::empty::<(PrivateKind, &str)>())
    }

    /// From whole values and parts split off them (see the module doc: a part
    /// that is a lone dictionary word is not masked).
    pub fn from_values_and_parts<I, S, J, T>(values: I, parts: J) -> Self
    where
        I: IntoIterator<Item = (PrivateKind, S)>,
        S: AsRef<str>,
        J: IntoIterator<Item = (PrivateKind, T)>,
        T: AsRef<str>,
    {
        let mut b = Builder::default();
        values.into_iter().for_each(|(kind, v)| b.add(kind, v.as_ref()));
        parts.into_iter().for_each(|(kind, p)| b.add_part(kind, p.as_ref()));
        b.build()
    }

    /// `text` with every private value masked; borrowed when nothing is.
    pub fn redact<'a>(&self, text: &'a str) -> Cow<'a, str> {
        let mut spans = Vec::new();
        self.text_spans(text, &mut spans);
        self.number_spans(text, &mut spans);
        email_spans(text, |s, e| spans.push((s, e, PrivateKind::Email)));
        if spans.is_empty() {
            return Cow::Borrowed(text);
        }
        // Leftmost first, longest first among equals; skip what overlaps a chosen span.
        spans.sort_by_key(|&(s, e, _)| (s, std::cmp::Reverse(e)));
        let mut out = String::with_capacity(text.len());
        let mut done = 0;
        for (s, e, kind) in spans {
            if s < done {
                continue;
            }
            let (Some(before), Some(_)) = (text.get(done..s), text.get(s..e)) else { continue };
            out.push_str(before);
            out.push_str(kind.mask());
            done = e;
        }
        out.push_str(text.get(done..).unwrap_or_default());
        Cow::Owned(out)
    }

    fn text_spans(&self, text: &str, spans: &mut Vec<(usize, usize, PrivateKind)>) {
        if let Some(ac) = &self.text {
            for m in ac.find_overlapping_iter(text) {
                if whole_word(text, m.start(), m.end()) {
                    spans.push((m.start(), m.end(), self.text_kinds[m.pattern().as_usize()]));
                }
            }
        }
        if let Some(ac) = &self.proper_names {
            for m in ac.find_overlapping_iter(text) {
                if whole_word(text, m.start(), m.end()) {
                    spans.push((m.start(), m.end(), PrivateKind::Name));
                }
            }
        }
    }

    fn number_spans(&self, text: &str, spans: &mut Vec<(usize, usize, PrivateKind)>) {
        for run in number_runs(text) {
            let groups = &run.groups;
            let mut i = 0;
            let mut unmatched = 0;
            while i < groups.len() {
                let mut digits = String::new();
                let mut best = None;
                for (j, group) in groups.iter().enumerate().skip(i).take(MAX_GROUPS) {
                    digits.push_str(&group.digits);
                    if let Some(kind) = self.known_number(&digits) {
                        best = Some((j, kind));
                    }
                }
                match best {
                    Some((j, kind)) => {
                        generic_number(&run, unmatched, i, spans);
                        spans.push((groups[i].start, groups[j].end, kind));
                        i = j + 1;
                        unmatched = i;
                    }
                    None => i += 1,
                }
            }
            generic_number(&run, unmatched, groups.len(), spans);
        }
    }

    fn known_number(&self, digits: &str) -> Option<PrivateKind> {
        if digits.len() < MIN_ID_DIGITS {
            return None;
        }
        if let Some(kind) = self.digit_ids.get(digits) {
            return Some(*kind);
        }
        self.phones.iter().any(|p| same_phone(p, digits)).then_some(PrivateKind::Phone)
    }
}

fn same_phone(a: &str, b: &str) -> bool {
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
fn generic_number(run: &NumberRun, from: usize, to: usize, spans: &mut Vec<(usize, usize, PrivateKind)>) {
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

fn looks_like_date(groups: &[Group]) -> bool {
    let lens: Vec<usize> = groups.iter().map(|g| g.digits.len()).collect();
    let date_sep = groups[1..].iter().all(|g| matches!(g.sep.trim(), "-" | "/" | "."));
    date_sep && matches!(lens.as_slice(), [4, 1..=2, 1..=2] | [1..=2, 1..=2, 2] | [1..=2, 1..=2, 4])
}

fn looks_like_amount(groups: &[Group]) -> bool {
    groups.len() > 1
        && groups[0].digits.len() <= 3
        && groups[1..].iter().all(|g| g.digits.len() == 3 && matches!(g.sep.as_str(), "." | "," | " "))
}

/// One digit group of a number and the separator before it.
#[derive(Debug)]
struct Group {
    /// Byte range, including a leading `+` or `(` on the first group.
    start: usize,
    end: usize,
    digits: String,
    sep: String,
}

#[derive(Debug)]
struct NumberRun {
    groups: Vec<Group>,
}

const SEPARATORS: [char; 6] = [' ', '-', '.', '(', ')', '/'];

/// Runs of ASCII digits joined by at most two separator characters. Groups
/// glued to letters (`RY568392`, `W8`) are parts of words, not numbers.
fn number_runs(text: &str) -> Vec<NumberRun> {
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

/// Calls `found(start, end)` for every email address in `text`.
fn email_spans(text: &str, mut found: impl FnMut(usize, usize)) {
    let bytes = text.as_bytes();
    let local = |b: u8| b.is_ascii_alphanumeric() || b"._%+-".contains(&b);
    let domain = |b: u8| b.is_ascii_alphanumeric() || b".-".contains(&b);
    let mut search_from = 0;
    while let Some(at) = bytes.get(search_from..).and_then(|rest| rest.iter().position(|&b| b == b'@')) {
        let at = search_from + at;
        search_from = at + 1;
        let mut start = at;
        while start > 0 && local(bytes[start - 1]) {
            start -= 1;
        }
        while start < at && bytes[start] == b'.' {
            start += 1;
        }
        let mut end = at + 1;
        while end < bytes.len() && domain(bytes[end]) {
            end += 1;
        }
        while end > at + 1 && matches!(bytes[end - 1], b'.' | b'-') {
            end -= 1;
        }
        let host = &text[at + 1..end];
        let tld_ok = host.rsplit_once('.').is_some_and(|(name, tld)| {
            !name.is_empty() && tld.len() >= 2 && tld.bytes().all(|b| b.is_ascii_alphabetic())
        });
        if start < at && tld_ok {
            found(start, end);
            search_from = end;
        }
    }
}

fn whole_word(text: &str, start: usize, end: usize) -> bool {
    let (Some(before), Some(matched), Some(after)) =
        (text.get(..start), text.get(start..end), text.get(end..))
    else {
        return false;
    };
    let word = |c: Option<char>| c.is_some_and(char::is_alphanumeric);
    let starts_word = word(matched.chars().next());
    let ends_word = word(matched.chars().next_back());
    let glued_before = starts_word && word(before.chars().next_back());
    let glued_after = ends_word && word(after.chars().next());
    !glued_before && !glued_after
}

/// Collects values by kind; `build` compiles them.
#[derive(Debug, Default)]
struct Builder {
    patterns: Vec<(String, PrivateKind)>,
    proper_names: Vec<String>,
    seen: HashSet<String>,
    digit_ids: HashMap<String, PrivateKind>,
    phones: Vec<String>,
}

const TITLES: [&str; 8] = ["dr", "mr", "mrs", "ms", "miss", "prof", "sir", "mx"];

/// Values that say there is nothing: no secret to mask.
const PLACEHOLDERS: [&str; 6] = ["none", "n/a", "nil", "unknown", "not applicable", "nothing"];

impl Builder {
    /// A whole value.
    fn add(&mut self, kind: PrivateKind, value: &str) {
        let value = value.trim().trim_matches(|c: char| c == '*' || c == '"');
        let min_chars = if kind == PrivateKind::Name { 2 } else { 3 };
        if value.chars().count() < min_chars
            || !value.chars().any(char::is_alphanumeric)
            || PLACEHOLDERS.contains(&value.to_lowercase().as_str())
        {
            return;
        }
        let digits: String = value.chars().filter(char::is_ascii_digit).collect();
        match kind {
            PrivateKind::Phone if digits.len() >= PHONE_SHARED_DIGITS && !self.phones.contains(&digits) => {
                self.phones.push(digits);
            }
            PrivateKind::Id => {
                let compact: String = value.chars().filter(|c| !SEPARATORS.contains(c)).collect();
                if compact.chars().all(|c| c.is_ascii_digit()) {
                    if compact.len() >= MIN_ID_DIGITS {
                        self.digit_ids.entry(compact).or_insert(kind);
                    }
                } else if compact != value {
                    self.pattern(kind, &compact);
                }
            }
            _ => {}
        }
        self.pattern(kind, value);
        email_spans(value, |s, e| self.pattern(PrivateKind::Email, &value[s..e]));
    }

    /// A part split off a value: masked unless it is a lone dictionary word.
    fn add_part(&mut self, kind: PrivateKind, part: &str) {
        let part = part.trim();
        if kind == PrivateKind::Name || !is_dictionary_word(part) {
            self.add(kind, part);
        }
    }

    fn pattern(&mut self, kind: PrivateKind, value: &str) {
        if kind == PrivateKind::Name && is_dictionary_word(value) {
            // A name that is also a word is a name only capitalised, as names are written.
            let mut chars = value.chars();
            let capitalised: String = chars
                .next()
                .into_iter()
                .flat_map(char::to_uppercase)
                .chain(chars.flat_map(char::to_lowercase))
                .collect();
            if self.seen.insert(format!("proper name {capitalised}")) {
                self.proper_names.push(capitalised);
            }
            return;
        }
        for form in [value.to_string(), value.to_lowercase(), value.to_uppercase()] {
            if self.seen.insert(form.clone()) {
                self.patterns.push((form, kind));
            }
        }
    }

    /// A snippet from evaluation data: private as a whole, and its numbers and addresses.
    fn snippet(&mut self, text: &str) {
        self.add(PrivateKind::Private, text);
        self.emails_and_numbers_in(text);
    }

    fn emails_and_numbers_in(&mut self, text: &str) {
        email_spans(text, |s, e| self.add(PrivateKind::Email, &text[s..e]));
        for run in number_runs(text) {
            let digits: String = run.groups.iter().map(|g| g.digits.as_str()).collect();
            if digits.len() < GENERIC_DIGITS || looks_like_date(&run.groups) || looks_like_amount(&run.groups)
            {
                continue;
            }
            let (first, last) = (&run.groups[0], &run.groups[run.groups.len() - 1]);
            let written = text.get(first.start..last.end).unwrap_or_default();
            // `+44 20 …` or `(555) 123-4567` reads as a phone; a bare digit string as an account or id.
            let phone_like = written.starts_with(['+', '(']) || run.groups.len() > 1;
            self.add(if phone_like { PrivateKind::Phone } else { PrivateKind::Id }, written);
        }
    }

    /// One `Key: value` line of the general info, routed by its key.
    fn general_line(&mut self, line: &str) {
        let Some((key, value)) = split_key_value(line) else { return };
        let key = key.to_lowercase();
        let words: Vec<&str> = key.split(|c: char| !c.is_alphanumeric()).filter(|w| !w.is_empty()).collect();
        let any = |list: &[&str]| words.iter().any(|w| list.contains(w));
        if any(&["email", "e", "mail"]) && value.contains('@') {
            self.add(PrivateKind::Email, value);
        } else if any(&["phone", "mobile", "telephone", "tel", "cell", "fax"]) {
            self.add(PrivateKind::Phone, value);
        } else if any(&["address"]) {
            self.address(value);
        } else if key.contains("birth") || any(&["dob", "born"]) {
            self.add(PrivateKind::Private, value);
        } else if matches!(
            key.as_str(),
            "name" | "full name" | "first name" | "last name" | "surname" | "maiden name"
        ) {
            self.person(value, true);
        } else if any(&FAMILY) {
            self.family(value);
        } else if let Some(kind) = kind_of_key(&key, &words) {
            self.add(kind, value);
        }
    }

    /// A medical or banking line: the line, its value, and (medical) each listed item.
    fn section_line(&mut self, line: &str, kind: PrivateKind) {
        let line = strip_bullet(line);
        if line.is_empty() || line.ends_with(':') {
            return;
        }
        match split_key_value(line) {
            Some((key, value)) => {
                let key = key.to_lowercase();
                let words: Vec<&str> =
                    key.split(|c: char| !c.is_alphanumeric()).filter(|w| !w.is_empty()).collect();
                let kind = match kind_of_key(&key, &words) {
                    Some(PrivateKind::Id) => PrivateKind::Id,
                    _ => kind,
                };
                self.add(kind, value);
                if kind == PrivateKind::Medical {
                    for item in
                        value.split([',', ';', '(', ')']).map(str::trim).filter(|s| s.chars().count() >= 5)
                    {
                        self.add_part(kind, item);
                    }
                }
            }
            None => self.add(kind, line),
        }
    }

    /// The whole address, and the parts precise enough to locate someone
    /// (street, postcode: the ones with a digit); a city alone is a fine abstraction.
    fn address(&mut self, value: &str) {
        self.add(PrivateKind::Address, value);
        for part in value.split([',', ';']).map(str::trim) {
            if part.chars().any(|c| c.is_ascii_digit()) && part.chars().count() >= 4 {
                self.add_part(PrivateKind::Address, part);
            }
        }
    }

    /// A person's name; with `tokens`, each name word too (`Emma` alone leaks).
    fn person(&mut self, value: &str, tokens: bool) {
        let words = name_words(value);
        if words.is_empty() {
            return;
        }
        self.add(PrivateKind::Name, &words.join(" "));
        if tokens {
            for word in words {
                self.add_part(PrivateKind::Name, word);
            }
        }
    }

    /// `Mother (Jane Johnson), Son (Aryan Sharma, 12)`, or plain names.
    fn family(&mut self, value: &str) {
        for part in split_outside_parentheses(value) {
            let (outside, inside) = match (part.find('('), part.rfind(')')) {
                (Some(open), Some(close)) if open < close => (&part[..open], Some(&part[open + 1..close])),
                _ => (part, None),
            };
            // With parentheses the outside is the relation (`Son`), and the inside the name,
            // maybe with an age after a comma.
            for candidate in inside.unwrap_or(outside).split([',', ';']).map(str::trim) {
                if is_capitalised_name(candidate) && !FAMILY.contains(&candidate.to_lowercase().as_str()) {
                    self.person(candidate, true);
                }
            }
        }
    }

    /// Third parties (email senders, meeting participants): full names only,
    /// so a common first name elsewhere in the text is not masked.
    fn names_in(&mut self, text: &str) {
        for part in text.split([',', ';']) {
            let part = match part.find(['(', '<']) {
                Some(i) => &part[..i],
                None => part,
            };
            let part = part.trim();
            let words: Vec<&str> = part.split_whitespace().collect();
            if words.len() >= 2 && is_capitalised_name(part) {
                self.person(part, false);
            }
        }
    }

    fn build(self) -> Redactor {
        let automaton = |patterns: Vec<&String>, case_insensitive: bool| {
            (!patterns.is_empty())
                .then(|| {
                    AhoCorasick::builder()
                        .ascii_case_insensitive(case_insensitive)
                        .match_kind(MatchKind::Standard)
                        .build(patterns)
                        .ok()
                })
                .flatten()
        };
        Redactor {
            text: automaton(self.patterns.iter().map(|(p, _)| p).collect(), true),
            proper_names: automaton(self.proper_names.iter().collect(), false),
            text_kinds: self.patterns.into_iter().map(|(_, k)| k).collect(),
            digit_ids: self.digit_ids,
            phones: self.phones,
        }
    }
}

const FAMILY: [&str; 18] = [
    "family",
    "spouse",
    "partner",
    "wife",
    "husband",
    "children",
    "child",
    "son",
    "daughter",
    "mother",
    "father",
    "sibling",
    "siblings",
    "brother",
    "sister",
    "kids",
    "emergency",
    "contact",
];

/// Keys whose values are ids, medical, banking or otherwise sensitive facts.
fn kind_of_key(key: &str, words: &[&str]) -> Option<PrivateKind> {
    let any = |list: &[&str]| words.iter().any(|w| list.contains(w));
    if key.contains("social security")
        || any(&[
            "number", "no", "ssn", "id", "passport", "iban", "account", "licence", "license", "card",
            "policy", "pin", "tax", "nin", "swift", "bic", "routing", "code",
        ])
    {
        Some(PrivateKind::Id)
    } else if any(&[
        "medical",
        "insurance",
        "health",
        "allergy",
        "allergies",
        "condition",
        "conditions",
        "diagnosis",
        "medication",
        "medications",
        "disability",
        "blood",
        "doctor",
    ]) {
        Some(PrivateKind::Medical)
    } else if any(&["bank", "banking", "salary", "income", "credit", "debt", "loan", "balance", "savings"]) {
        Some(PrivateKind::Banking)
    } else if any(&[
        "religion",
        "religious",
        "political",
        "sexual",
        "orientation",
        "ethnicity",
        "ethnic",
        "race",
        "dietary",
        "diet",
        "criminal",
    ]) {
        Some(PrivateKind::Private)
    } else {
        None
    }
}

/// The items of a `,`/`;` list whose items may hold commas in parentheses.
fn split_outside_parentheses(value: &str) -> Vec<&str> {
    let (mut items, mut depth, mut start) = (Vec::new(), 0usize, 0);
    for (i, c) in value.char_indices() {
        match c {
            '(' => depth += 1,
            ')' => depth = depth.saturating_sub(1),
            ',' | ';' if depth == 0 => {
                items.push(&value[start..i]);
                start = i + 1;
            }
            _ => {}
        }
    }
    items.push(&value[start..]);
    items
}

fn strip_bullet(line: &str) -> &str {
    line.trim().trim_start_matches(['-', '*', '•']).trim().trim_matches('*').trim()
}

fn split_key_value(line: &str) -> Option<(&str, &str)> {
    let (key, value) = strip_bullet(line).split_once(':')?;
    let (key, value) = (key.trim().trim_matches('*').trim(), value.trim().trim_matches('*').trim());
    (!key.is_empty() && !value.is_empty() && key.chars().count() <= 40).then_some((key, value))
}

/// The words of a person's name without titles (`Dr.`, `Ms`) or surrounding punctuation.
pub fn name_words(name: &str) -> Vec<&str> {
    name.split_whitespace()
        .filter(|w| !TITLES.contains(&w.trim_end_matches('.').to_lowercase().as_str()))
        .map(|w| w.trim_matches(|c: char| !c.is_alphanumeric()))
        .filter(|w| !w.is_empty())
        .collect()
}

/// One to four words, each starting with an upper-case letter, letters only (and `-`, `'`, `.`).
pub fn is_capitalised_name(text: &str) -> bool {
    let words: Vec<&str> = text.split_whitespace().collect();
    (1..=4).contains(&words.len())
        && words.iter().all(|w| {
            w.chars().next().is_some_and(char::is_uppercase)
                && w.chars().all(|c| c.is_alphabetic() || matches!(c, '-' | '\'' | '.'))
        })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::core::dataset::domain::Domain;
    use crate::core::dataset::persona::{CalendarEntry, Email, PersonaData};

    fn environment() -> Environment {
        let general_info = "General Information:\n\
            Name: Emma Johnson\n\
            Phone Number: +44 20 7946 0958\n\
            Email: emma_johnson@gmail.com\n\
            Date of Birth: April 12, 1995\n\
            Current Address: 14 Kensington Gardens, London, W8 4PT, UK\n\
            Social Security Number: 123-45-6789\n\
            Religion: Agnostic\n\
            Hobbies: Rock climbing\n\
            Family Members: Mother (Jane Johnson), Father (Peter Johnson)\n\
            Passport Details:\n    Passport Number: 987654321\n"
            .to_string();
        let parsed = PersonaData {
            general_info,
            emails: vec![Email {
                from: "Dr. Rachel Green (Emma's GP)".into(),
                to: "Emma Johnson".into(),
                subject: "Results".into(),
                body: "Call me on 07700 900123.".into(),
            }],
            calendar: vec![CalendarEntry {
                date: "June 5".into(),
                event: "Trip".into(),
                participants: "Emma Johnson, Mike Adams".into(),
                details: String::new(),
            }],
            banking: "- Account Number: 0987654321\n  Description: Purchase of new climbing gear\n".into(),
            medical:
                "Medication: Lactase Enzyme Supplements\nPatient History: Gluten intolerance, generally fit\n"
                    .into(),
            raw_text: "backup address emma.j@work.example.org, card 4111 1111 1111 1111".into(),
        };
        Environment::new(Domain::TravelPlanning, 1, parsed, String::new())
    }

    /// The insurance persona 2's line: the children's names (with their ages) are masked too.
    #[test]
    fn family_members_with_ages_are_masked() {
        let mut env = environment();
        env.general_info.push_str(
            "**Family Members:** Wife (Anita Sharma), Son (Aryan Sharma, 12), Daughter (Priya Sharma, 9)\n",
        );
        let r = Redactor::from_environment(&env);
        assert_eq!(
            r.redact("Coverage for Aryan and Priya, and Anita Sharma; Aryan is 12."),
            "Coverage for [name] and [name], and [name]; [name] is 12."
        );
    }

    #[test]
    fn every_persona_value_is_masked_in_any_case_and_format() {
        let r = Redactor::from_environment(&environment());
        let cases = [
            ("Hi EMMA JOHNSON, Emma's mum", "Hi [name], [name]'s mum"),
            ("mail Emma_Johnson@Gmail.com now", "mail [email] now"),
            ("call +44 20 7946 0958 or 020 7946 0958", "call [phone] or [phone]"),
            ("phone (+44) 2079460958.", "phone [phone]."),
            ("ssn 123 45 6789 / 123456789", "ssn [id] / [id]"),
            ("passport 987-654-321", "passport [id]"),
            ("born april 12, 1995", "born [private]"),
            ("lives at 14 kensington gardens, London", "lives at [address], London"),
            ("postcode w8 4pt", "postcode [address]"),
            ("mother jane johnson and Peter", "mother [name] and [name]"),
            ("account 0987654321", "account [id]"),
            ("takes lactase enzyme supplements for gluten intolerance", "takes [medical] for [medical]"),
            ("bought: purchase of new climbing gear", "bought: [banking]"),
            ("met Rachel Green and mike adams", "met [name] and [name]"),
            ("other mail EMMA.J@work.example.org", "other mail [email]"),
        ];
        for (input, expected) in cases {
            assert_eq!(r.redact(input), expected, "{input}");
        }
    }

    /// Issue 11: a private value's words are not masked wherever they appear.
    #[test]
    fn lone_dictionary_words_of_values_are_not_masked() {
        let r = Redactor::from_environment(&environment());
        // Parts of values that are dictionary words: "fit" and "gear" (medical and banking
        // items), "supplements"; "peter" is a word as well as the father's name.
        for text in ["gear that fits, peter out", "generally, supplements help", "new climbing gear"] {
            assert_eq!(r.redact(text), text);
        }
        // A whole value is masked even when it is one word: it is the secret ("Religion: Agnostic").
        assert_eq!(r.redact("an agnostic view"), "an [private] view");
        // A name that is also a word is still masked as a name, capitalised.
        assert_eq!(r.redact("ask Peter, not PETER"), "ask [name], not PETER");
        // Whole values still are.
        assert_eq!(r.redact("purchase of new climbing gear"), "[banking]");
        // Parts of a snippet: its proper noun, not its dictionary word.
        let r = Redactor::from_values_and_parts(
            [(PrivateKind::Private, "Hollybrook Clinic")],
            [(PrivateKind::Private, "Hollybrook"), (PrivateKind::Private, "Clinic")],
        );
        assert_eq!(
            r.redact("the clinic at Hollybrook, Hollybrook Clinic"),
            "the clinic at [private], [private]"
        );
    }

    #[test]
    fn text_without_private_values_is_borrowed() {
        let r = Redactor::from_environment(&environment());
        for text in
            ["Flights to London on 2024-09-20 for €1,200 (2 adults)", "Emmanuel likes rock climbing", ""]
        {
            assert!(matches!(r.redact(text), Cow::Borrowed(_)), "{text}: {}", r.redact(text));
        }
    }

    #[test]
    fn unknown_emails_and_long_numbers_are_masked_anyway() {
        let r = Redactor::default();
        assert_eq!(r.redact("write to a.b+c@example.co.uk."), "write to [email].");
        assert_eq!(r.redact("call (555) 123-4567 or 5551234567"), "call [phone] or [phone]");
        assert_eq!(
            r.redact("on 12/04/1995 pay 1.000.000, code 1234"),
            "on 12/04/1995 pay 1.000.000, code 1234"
        );
        assert_eq!(r.redact("ref RY568392 @ home"), "ref RY568392 @ home");
    }

    #[test]
    fn task_info_snippets_and_texts() {
        let mut task = TaskInfo::default();
        task.extra.insert(
            "ground_truth_snippets".into(),
            serde_json::json!(["Diagnosed with asthma", "IBAN GB29 NWBK 6016 1331 9268 19"]),
        );
        task.extra.insert("raw_data".into(), serde_json::json!("salary 85k, reach me at x@y.io"));
        let r = Redactor::from_task_info(&task);
        assert_eq!(r.redact("She was diagnosed with ASTHMA."), "She was [private].");
        assert_eq!(r.redact("iban gb29 nwbk 6016 1331 9268 19"), "[private]");
        assert_eq!(r.redact("mail X@Y.IO"), "mail [email]");
        let r = Redactor::from_texts(["Top Secret Project"]);
        assert_eq!(r.redact("the top secret project"), "the [private]");
    }

    /// Odd inputs (lone `@`, digits of other scripts, a NUL, combining marks) give their expected
    /// output, without a panic: unchanged, but for what looks like a phone number.
    #[test]
    fn odd_inputs_give_their_expected_output() {
        let r = Redactor::from_environment(&environment());
        for text in ["@", "a@", "@b.c", "+", "(1", "1-", "é@é.é", "١٢٣٤٥٦٧٨"] {
            assert_eq!(r.redact(text), text);
        }
        assert_eq!(r.redact("\u{0}9\u{301}99 999 9999"), "\u{0}9\u{301}[phone]");
    }

    /// The persona's values that must never survive, as they appear in `environment()`.
    const SECRETS: [&str; 6] =
        ["Emma Johnson", "emma_johnson@gmail.com", "123-45-6789", "987654321", "0987654321", "07700 900123"];

    proptest::proptest! {
        /// Any text mixing the persona's secrets with arbitrary characters: no secret is left,
        /// and redacting the result again changes nothing.
        #[test]
        fn redaction_removes_every_secret_and_is_idempotent(
            parts in proptest::collection::vec((".{0,12}", 0..SECRETS.len()), 0..6)
        ) {
            let r = Redactor::from_environment(&environment());
            let text: String =
                parts.iter().map(|(noise, secret)| format!("{noise} {} ", SECRETS[*secret])).collect();
            let once = r.redact(&text);
            for secret in SECRETS {
                proptest::prop_assert!(!once.contains(secret), "{secret:?} left in {once:?}");
            }
            proptest::prop_assert_eq!(r.redact(&once), once.clone());
        }
    }
}
