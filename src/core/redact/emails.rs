//! Email addresses in a text, known or not.

/// Calls `found(start, end)` for every email address in `text`.
pub(super) fn email_spans(text: &str, mut found: impl FnMut(usize, usize)) {
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
