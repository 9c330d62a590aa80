//! From what is known of the persona (its profile, a task's snippets, values by kind) to the
//! values a [`Redactor`] masks: names and their parts, ids, phones, addresses, medical and banking
//! lines, with the dictionary words and placeholders that are no secret left out.

use std::collections::{HashMap, HashSet};

use aho_corasick::{AhoCorasick, MatchKind};
use serde_json::Value;

use super::emails::email_spans;
use super::kind::PrivateKind;
use super::matcher::Redactor;
use super::numbers::{
    GENERIC_DIGITS, MIN_ID_DIGITS, PHONE_SHARED_DIGITS, SEPARATORS, looks_like_amount, looks_like_date,
    number_runs,
};
use crate::core::dataset::task::Environment;
use crate::core::episode::TaskInfo;
use crate::core::words::is_dictionary_word;

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
