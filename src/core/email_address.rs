//! Email addresses in free text: the dataset reads the user's own from the
//! persona, the judges tell mail to the user from mail to a third party.

/// Email addresses in `text`, lower-cased, in order.
pub fn find_emails(text: &str) -> Vec<String> {
    let is_local = |c: char| c.is_ascii_alphanumeric() || "._%+-".contains(c);
    let is_domain = |c: char| c.is_ascii_alphanumeric() || ".-".contains(c);
    let chars: Vec<char> = text.chars().collect();
    let mut out = Vec::new();
    for (i, &c) in chars.iter().enumerate() {
        if c != '@' {
            continue;
        }
        let mut s = i;
        while s > 0 && is_local(chars[s - 1]) {
            s -= 1;
        }
        let mut e = i + 1;
        while e < chars.len() && is_domain(chars[e]) {
            e += 1;
        }
        let local: String = chars[s..i].iter().collect();
        let domain: String = chars[i + 1..e].iter().collect::<String>().trim_end_matches('.').to_string();
        if !local.is_empty() && domain.contains('.') && !domain.starts_with('.') {
            out.push(format!("{}@{}", local.to_lowercase(), domain.to_lowercase()));
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn emails_are_found() {
        assert_eq!(
            find_emails("Email: Emma_Johnson@Gmail.com. Or <x.y@a-b.co.uk>, not @handle or a@b"),
            vec!["emma_johnson@gmail.com", "x.y@a-b.co.uk"]
        );
    }
}
