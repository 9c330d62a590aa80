//! `env_persona{N}.txt`: the user's profile and toolkit data (reference §1.5).
//!
//! The layout follows MASEval's `parse_persona_text`: the text before a line
//! `Toolkits:` is the general info; after it come numbered sections
//! (`1) Emails:`, `2) Calendar:`, …) routed by name.
//!
//! Two MASEval quirks are fixed on purpose, because the parsed data is what
//! the assistant's tools return and we are not bound to reproduce its bugs:
//!
//! 1. MASEval cuts a section at *any* line `N) …`, so a numbered list inside an
//!    email body ends the email section early and loses the rest. Here a
//!    numbered line starts a section only if its number is the next one
//!    (previous section + 1; any number for the first) and its name routes to
//!    a known section (email, calendar, medical/insurance, bank) or ends with
//!    `:` (an unknown section, dropped as MASEval drops it). A body line that
//!    is both in sequence and looks like a header (`2) Bank transfer:`) is
//!    still cut; that is rare, and the alternative (losing real headers) worse.
//! 2. MASEval finds `To:` anywhere, so `Reply-To: x` (or `Subject: Re: To: y`)
//!    sets the recipient. Here a field label counts only at the start of a
//!    line (after optional spaces and `**`), and header fields are read only
//!    before the `Body:` line, so a quoted header in a body is not taken either.
//!
//! MASEval reads only the first of the three shapes the real personas come in;
//! the other two gave no emails and no calendar (11 of the 12 real personas).
//! Here all three are read, on purpose:
//!
//! - travel persona 1: a `Toolkits:` line, then `1) Emails:` sections;
//! - travel personas 2–4: `Toolkits:`, then `1. Emails:` sections whose
//!   entries are bullets (`- From: …`, `- Date: …`);
//! - insurance and real estate: markdown headings `### 1) Emails:`, with a
//!   `## Toolkits:` heading (real estate) or no `Toolkits` line at all
//!   (insurance), where the toolkit part starts at the first numbered heading
//!   that names a known section; entries are separated by `---` lines.
//!
//! The first header fixes the shape (heading or not, `)` or `.`), and later
//! headers must have the same shape, so a `2. Emergency cover` list line in
//! an email body of a `### 1)` persona never ends the section.

use serde::{Deserialize, Serialize};

#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Email {
    pub from: String,
    pub to: String,
    pub subject: String,
    pub body: String,
}

#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct CalendarEntry {
    pub date: String,
    pub event: String,
    pub participants: String,
    pub details: String,
}

/// The parsed persona. `raw_text` is the file as read.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct PersonaData {
    pub general_info: String,
    pub emails: Vec<Email>,
    pub calendar: Vec<CalendarEntry>,
    pub banking: String,
    pub medical: String,
    pub raw_text: String,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum SectionKind {
    Emails,
    Calendar,
    Medical,
    Banking,
}

/// Routing by name, in MASEval's order of checks.
fn section_kind(name: &str) -> Option<SectionKind> {
    if name.contains("email") {
        Some(SectionKind::Emails)
    } else if name.contains("calendar") {
        Some(SectionKind::Calendar)
    } else if name.contains("medical") || name.contains("insurance") {
        Some(SectionKind::Medical)
    } else if name.contains("bank") {
        Some(SectionKind::Banking)
    } else {
        None
    }
}

pub fn parse_persona_text(text: &str) -> PersonaData {
    let mut out = PersonaData::default();
    if text.trim().is_empty() {
        return out;
    }
    out.raw_text = text.to_string();
    let norm = text.replace("\r\n", "\n");
    let lines: Vec<&str> = norm.split('\n').collect();

    let (general_end, toolkit_start) = match lines.iter().position(|l| is_toolkits_line(l)) {
        Some(at) => (at, at + 1),
        None => match lines.iter().position(|l| is_first_heading_section(l)) {
            Some(at) => (at, at),
            None => {
                out.general_info = norm.trim().to_string();
                return out;
            }
        },
    };
    out.general_info = lines[..general_end].join("\n").trim().to_string();

    for (kind, body) in sections(&lines[toolkit_start..]) {
        let Some(kind) = kind else { continue };
        // A later section of the same kind replaces an earlier one (as MASEval).
        match kind {
            SectionKind::Emails => out.emails = parse_emails(&body),
            SectionKind::Calendar => out.calendar = parse_calendar(&body),
            SectionKind::Medical => out.medical = body,
            SectionKind::Banking => out.banking = body,
        }
    }
    out
}

/// `^(#+\s*)?Toolkits:\s*$`: the line itself (or a markdown heading of it),
/// no leading space.
fn is_toolkits_line(line: &str) -> bool {
    let s = line.trim_start_matches('#');
    let s = if s.len() < line.len() { s.trim_start() } else { s };
    s.strip_prefix("Toolkits:").is_some_and(|rest| rest.trim().is_empty())
}

/// Without a `Toolkits` line, the toolkit part starts at a markdown heading
/// `### 1) Emails:` (number 1, a known section).
fn is_first_heading_section(line: &str) -> bool {
    header_match(line).is_some_and(|h| h.style.heading && h.number == 1 && section_kind(&h.name).is_some())
}

/// How a section header is written; every header of a persona has the same.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct HeaderStyle {
    /// A markdown heading (`### 1) Emails:`).
    heading: bool,
    /// `)` in `1) Emails:`, `.` in `1. Emails:`.
    delimiter: char,
}

#[derive(Debug, Clone, PartialEq, Eq)]
struct Header {
    number: u64,
    /// Lowercased.
    name: String,
    ends_with_colon: bool,
    style: HeaderStyle,
}

/// `^\s*(#+\s*)?(\d+)[).]\s+(.+?)(?::\s*)?$`.
fn header_match(line: &str) -> Option<Header> {
    let s = line.trim_start();
    let after_hashes = s.trim_start_matches('#');
    let heading = after_hashes.len() < s.len();
    let s = after_hashes.trim_start();
    let digits_end = s.find(|c: char| !c.is_ascii_digit())?;
    if digits_end == 0 {
        return None;
    }
    let number: u64 = s[..digits_end].parse().ok()?;
    let delimiter = s[digits_end..].chars().next().filter(|c| matches!(c, ')' | '.'))?;
    let rest = &s[digits_end + 1..];
    if !rest.starts_with(char::is_whitespace) {
        return None;
    }
    let rest = rest.trim();
    let (name, colon) = match rest.strip_suffix(':') {
        Some(n) => (n.trim(), true),
        None => (rest, false),
    };
    if name.is_empty() {
        return None;
    }
    Some(Header {
        number,
        name: name.to_lowercase(),
        ends_with_colon: colon,
        style: HeaderStyle { heading, delimiter },
    })
}

/// Splits the toolkit part into (kind, stripped body) sections; text before
/// the first header is ignored, as in MASEval.
fn sections(lines: &[&str]) -> Vec<(Option<SectionKind>, String)> {
    let mut out: Vec<(Option<SectionKind>, Vec<&str>)> = Vec::new();
    let mut last: Option<(u64, HeaderStyle)> = None;
    for line in lines {
        let header = header_match(line).and_then(|h| {
            let kind = section_kind(&h.name);
            let follows = last
                .is_none_or(|(number, style)| Some(h.number) == number.checked_add(1) && h.style == style);
            let is_header = follows && (kind.is_some() || h.ends_with_colon);
            is_header.then_some((h.number, h.style, kind))
        });
        match header {
            Some((number, style, kind)) => {
                last = Some((number, style));
                out.push((kind, Vec::new()));
            }
            None => {
                if let Some((_, body)) = out.last_mut() {
                    body.push(line);
                }
            }
        }
    }
    out.into_iter().map(|(k, body)| (k, body.join("\n").trim().to_string())).collect()
}

/// If `line` starts (after spaces, an optional `- ` bullet and an optional
/// `**`) with one of `labels` followed by `:` (the label optionally wrapped in
/// `**`), returns the label index and the text after it.
fn label_of<'a>(line: &'a str, labels: &[&str]) -> Option<(usize, &'a str)> {
    let s = line.trim_start();
    let s = s.strip_prefix("- ").map_or(s, str::trim_start);
    let s = s.strip_prefix("**").unwrap_or(s);
    for (i, label) in labels.iter().enumerate() {
        let Some(after) = s.strip_prefix(label) else {
            continue;
        };
        let rest = if let Some(r) = after.strip_prefix(":**") {
            r
        } else if let Some(r) = after.strip_prefix("**:") {
            r
        } else if let Some(r) = after.strip_prefix(':') {
            r
        } else {
            continue;
        };
        return Some((i, rest));
    }
    None
}

/// The lines joined and trimmed, without the `---` rules that separate
/// entries in the markdown-shaped personas.
fn joined(lines: &[&str]) -> String {
    let is_rule = |l: &&str| {
        let t = l.trim();
        t.is_empty() || (t.len() >= 3 && t.chars().all(|c| c == '-'))
    };
    let end = lines.iter().rposition(|l| !is_rule(l)).map_or(0, |i| i + 1);
    lines[..end].join("\n").trim().to_string()
}

/// Splits `text` into chunks, each starting at a line labelled `split_label`.
fn chunks<'a>(text: &'a str, split_label: &str) -> Vec<Vec<&'a str>> {
    let mut out: Vec<Vec<&str>> = vec![Vec::new()];
    for line in text.split('\n') {
        if label_of(line, &[split_label]).is_some() {
            out.push(Vec::new());
        }
        if let Some(chunk) = out.last_mut() {
            chunk.push(line);
        }
    }
    out.retain(|c| c.iter().any(|l| !l.trim().is_empty()));
    out
}

/// Reads labelled fields from `lines`: the first occurrence of each label,
/// running until the next labelled line. `None` means the label never occurred.
fn fields(lines: &[&str], labels: &[&str]) -> Vec<Option<String>> {
    let mut values: Vec<Option<String>> = vec![None; labels.len()];
    let mut i = 0;
    while i < lines.len() {
        let Some((idx, first)) = label_of(lines[i], labels) else {
            i += 1;
            continue;
        };
        let mut value = vec![first];
        let mut j = i + 1;
        while j < lines.len() && label_of(lines[j], labels).is_none() {
            value.push(lines[j]);
            j += 1;
        }
        if values[idx].is_none() {
            values[idx] = Some(joined(&value));
        }
        i = j;
    }
    values
}

fn parse_emails(section: &str) -> Vec<Email> {
    const HEADERS: [&str; 3] = ["From", "To", "Subject"];
    let mut out = Vec::new();
    for chunk in chunks(section, "From") {
        // Header fields are read only above the `Body:` line.
        let body_at = chunk.iter().position(|l| label_of(l, &["Body"]).is_some());
        let head = &chunk[..body_at.unwrap_or(chunk.len())];
        let mut found = false;
        let mut vals = fields(head, &HEADERS).into_iter().map(|v| {
            found |= v.is_some();
            v.unwrap_or_default()
        });
        let (from, to, subject) = (
            vals.next().unwrap_or_default(),
            vals.next().unwrap_or_default(),
            vals.next().unwrap_or_default(),
        );
        let body = match body_at {
            Some(at) => {
                found = true;
                let first = label_of(chunk[at], &["Body"]).map_or("", |(_, r)| r);
                let mut parts = vec![first];
                parts.extend_from_slice(&chunk[at + 1..]);
                joined(&parts)
            }
            None => String::new(),
        };
        if found {
            out.push(Email { from, to, subject, body });
        }
    }
    out
}

fn parse_calendar(section: &str) -> Vec<CalendarEntry> {
    const LABELS: [&str; 4] = ["Date", "Event", "Participants", "Details"];
    let mut out = Vec::new();
    for chunk in chunks(section, "Date") {
        let vals = fields(&chunk, &LABELS);
        if vals.iter().all(Option::is_none) {
            continue;
        }
        let mut vals = vals.into_iter().map(Option::unwrap_or_default);
        let mut next = || vals.next().unwrap_or_default();
        out.push(CalendarEntry { date: next(), event: next(), participants: next(), details: next() });
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn header_forms() {
        let plain = HeaderStyle { heading: false, delimiter: ')' };
        let h = |number, name: &str, ends_with_colon, style| {
            Some(Header { number, name: name.into(), ends_with_colon, style })
        };
        assert_eq!(header_match("1) Emails:"), h(1, "emails", true, plain));
        assert_eq!(header_match("  2) Calendar"), h(2, "calendar", false, plain));
        assert_eq!(
            header_match("### 1) Emails:"),
            h(1, "emails", true, HeaderStyle { heading: true, delimiter: ')' })
        );
        assert_eq!(
            header_match("2. Calendar:"),
            h(2, "calendar", true, HeaderStyle { heading: false, delimiter: '.' })
        );
        assert_eq!(header_match("3)Banking"), None);
        assert_eq!(header_match("x) Banking"), None);
        assert_eq!(header_match("4) :"), None);
        assert_eq!(header_match("4: Banking"), None);
    }

    #[test]
    fn toolkits_lines() {
        assert!(is_toolkits_line("Toolkits:"));
        assert!(is_toolkits_line("## Toolkits:  "));
        assert!(!is_toolkits_line("  Toolkits:"));
        assert!(!is_toolkits_line("Toolkits: email"));
    }

    #[test]
    fn rules_are_dropped_from_the_end_of_a_value() {
        assert_eq!(joined(&["a", "b", "", "---", ""]), "a\nb");
        assert_eq!(joined(&["---"]), "");
    }

    #[test]
    fn bold_labels() {
        assert_eq!(label_of("**From:** a@b", &["From"]), Some((0, " a@b")));
        assert_eq!(label_of("**From**: a@b", &["From"]), Some((0, " a@b")));
        assert_eq!(label_of("Reply-To: a@b", &["To"]), None);
        assert_eq!(label_of("    - From: a@b", &["From"]), Some((0, " a@b")));
    }
}
