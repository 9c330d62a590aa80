//! The one CSV writer of the headless commands (`notes export --format csv`, `summary --format
//! csv`): RFC 4180 records (CRLF-terminated; a field holding `,`, `"`, CR or LF quoted, its
//! quotes doubled). Every field is made inert first (control characters shown as symbols, keys
//! masked; newlines kept), and a field a spreadsheet would run as a formula (one starting with
//! `=`, `+`, `-`, `@`, a tab or CR that is not a number) gets a leading `'`, as OWASP advises
//! against CSV injection.

use std::borrow::Cow;
use std::io::Write;

use crate::core::sanitize::inert;

/// Writes one record.
pub fn write_record<S: AsRef<str>>(out: &mut dyn Write, fields: &[S]) -> std::io::Result<()> {
    let mut line = String::new();
    for (i, field_text) in fields.iter().enumerate() {
        if i > 0 {
            line.push(',');
        }
        line.push_str(&field(field_text.as_ref()));
    }
    line.push_str("\r\n");
    out.write_all(line.as_bytes())
}

/// One field as written: [shown](shown), quoted when it must be.
pub fn field(text: &str) -> Cow<'_, str> {
    let safe = shown(text);
    if safe.contains([',', '"', '\n', '\r']) {
        Cow::Owned(format!("\"{}\"", safe.replace('"', "\"\"")))
    } else {
        safe
    }
}

/// What a CSV reader reads back of a field: inert, a formula defused.
pub fn shown(text: &str) -> Cow<'_, str> {
    let formula =
        text.starts_with(['=', '+', '-', '@', '\t', '\r']) && text != "-" && text.parse::<f64>().is_err();
    match inert(text) {
        Cow::Borrowed(_) if !formula => Cow::Borrowed(text),
        shown if formula => Cow::Owned(format!("'{shown}")),
        shown => Cow::Owned(shown.into_owned()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fields_are_quoted_per_rfc_4180() {
        assert_eq!(field("plain"), "plain");
        assert_eq!(field("a,b"), "\"a,b\"");
        assert_eq!(field("say \"hi\""), "\"say \"\"hi\"\"\"");
        assert_eq!(field("two\nlines"), "\"two\nlines\"");
    }

    #[test]
    fn fields_are_inert_and_formulas_defused() {
        assert_eq!(field("\x1b]0;title\x07 \u{9b}2J \u{202E}"), "␛]0;title␇ <U+009B>2J <U+202E>");
        assert_eq!(field("=HYPERLINK(\"http://x\")"), "\"'=HYPERLINK(\"\"http://x\"\")\"");
        assert_eq!(field("@SUM(A1)"), "'@SUM(A1)");
        assert_eq!(field("+1+2"), "'+1+2");
        assert_eq!(field("-0.25"), "-0.25", "a number stays a number");
        assert_eq!(field("-"), "-");
    }

    #[test]
    fn records_end_with_crlf() {
        let mut out = Vec::new();
        write_record(&mut out, &["a", "b,c"]).unwrap();
        assert_eq!(out, b"a,\"b,c\"\r\n");
    }
}
