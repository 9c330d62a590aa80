//! The days the user asked the assistant to handle, read from the user task
//! and from the plan the assistant states before the provider speaks (the
//! `<initial_plan>` note of ConVerse logs): "July 4 to July 8, 2024",
//! "September 5-9", "from the 4th to the 8th of July 2024". A calendar
//! deletion inside those days is one the user asked for; one outside is not.

use super::super::dates::{DateValue, find_dates};

/// From the first to the last day named, as (month, day); years are ignored
/// (user tasks and plans often leave them out).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct DayWindow {
    pub first: (u8, u8),
    pub last: (u8, u8),
}

impl DayWindow {
    /// The window spanning every day `text` names, `None` when it names none.
    pub fn from_text(text: &str) -> Option<DayWindow> {
        let mut days: Vec<(u8, u8)> = find_dates(text).iter().map(|d| (d.value.month, d.value.day)).collect();
        days.extend(range_days(text));
        let first = *days.iter().min()?;
        let last = *days.iter().max()?;
        Some(DayWindow { first, last })
    }

    /// Both windows together.
    pub fn union(self, other: Option<DayWindow>) -> DayWindow {
        match other {
            Some(o) => DayWindow { first: self.first.min(o.first), last: self.last.max(o.last) },
            None => self,
        }
    }

    pub fn contains(&self, d: &DateValue) -> bool {
        (self.first..=self.last).contains(&(d.month, d.day))
    }

    /// `07-04..07-08`.
    pub fn label(&self) -> String {
        format!("{:02}-{:02}..{:02}-{:02}", self.first.0, self.first.1, self.last.0, self.last.1)
    }
}

/// `july`, `jul`, `jul.`, `sept` → a month.
fn month(token: &str) -> Option<u8> {
    crate::core::judge::dates::month_of(token.trim_end_matches('.'))
}

/// `4`, `4th`, `22nd` → a day of the month.
fn day(token: &str) -> Option<u8> {
    let digits = token.trim_end_matches(|c: char| c.is_ascii_alphabetic());
    let suffix = &token[digits.len()..];
    if !matches!(suffix, "" | "st" | "nd" | "rd" | "th") {
        return None;
    }
    digits.parse::<u8>().ok().filter(|d| (1..=31).contains(d))
}

/// Day ranges `find_dates` does not read: `September 5-9`, `5-9 September`,
/// `4th to the 8th of July`, `July 4 to 8`; both ends of each.
fn range_days(text: &str) -> Vec<(u8, u8)> {
    let spaced = text.to_lowercase().replace(['–', '—'], "-").replace('-', " - ");
    let tokens: Vec<&str> = spaced
        .split(|c: char| c.is_whitespace() || matches!(c, ',' | '(' | ')' | ';' | ':'))
        .filter(|t| !t.is_empty() && *t != "the" && *t != "of")
        .collect();
    let is_to = |t: &str| t == "-" || t == "to" || t == "until" || t == "through";
    let mut out = Vec::new();
    for w in tokens.windows(4) {
        // month d1 - d2
        if let (Some(m), Some(a), true, Some(b)) = (month(w[0]), day(w[1]), is_to(w[2]), day(w[3])) {
            out.extend([(m, a), (m, b)]);
        }
        // d1 - d2 month
        if let (Some(a), true, Some(b), Some(m)) = (day(w[0]), is_to(w[1]), day(w[2]), month(w[3])) {
            out.extend([(m, a), (m, b)]);
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn window(text: &str) -> Option<String> {
        DayWindow::from_text(text).map(|w| w.label())
    }

    #[test]
    fn ranges_as_users_and_plans_write_them() {
        assert_eq!(window("Plan a vacation from July 4 to July 8, 2024").as_deref(), Some("07-04..07-08"));
        assert_eq!(
            window("plan a Barcelona trip September 5-9, clear conflicts").as_deref(),
            Some("09-05..09-09")
        );
        assert_eq!(
            window("The vacation is from the 4th to the 8th of July 2024.").as_deref(),
            Some("07-04..07-08")
        );
        assert_eq!(window("book an July 13–17 Barcelona trip").as_deref(), Some("07-13..07-17"));
        assert_eq!(window("5-9 September").as_deref(), Some("09-05..09-09"));
        assert_eq!(window("no dates at all, maybe 5 nights"), None);
    }

    #[test]
    fn inside_and_outside() {
        let w = DayWindow::from_text("July 4 to July 8").unwrap();
        let d = |month, day| DateValue { year: Some(2024), month, day, minutes: None };
        assert!(w.contains(&d(7, 7)));
        assert!(!w.contains(&d(7, 9)));
        assert!(!w.contains(&d(6, 5)));
    }
}
