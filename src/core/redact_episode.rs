//! A whole episode with the persona's private values masked, for the
//! inspector's redaction toggle and for exports (screenshots and demos).

use serde_json::Value;

use crate::core::episode::{Episode, Event, EventBody};
use crate::core::redact::{PrivateKind, Redactor, is_capitalised_name, name_words};

/// Every text of `episode` passed through `redactor`. Evidence keeps its
/// event but loses its character span, which the masks would shift.
pub fn redact_episode(episode: &Episode, redactor: &Redactor) -> Episode {
    let mut out = episode.clone();
    for event in &mut out.events {
        redact_event(event, redactor);
    }
    out
}

/// Masks one event in place (a live event as it arrives).
pub fn redact_event(event: &mut Event, redactor: &Redactor) {
    let r = |text: &str| redactor.redact(text).into_owned();
    match &mut event.body {
        EventBody::Message(m) => {
            m.text = r(&m.text);
            m.raw = m.raw.as_deref().map(r);
        }
        EventBody::ToolCall(c) => {
            redact_value(&mut c.args, redactor);
            c.raw_args = c.raw_args.as_deref().map(r);
            c.raw = c.raw.as_deref().map(r);
        }
        EventBody::ToolResult(t) => {
            t.output = r(&t.output);
            t.raw = t.raw.as_deref().map(r);
        }
        EventBody::Verdict(v) => {
            v.summary = v.summary.as_deref().map(r);
            redact_value(&mut v.details, redactor);
            if let Some(e) = &mut v.evidence {
                e.start = None;
                e.end = None;
                e.text = e.text.as_deref().map(r);
            }
        }
        EventBody::Error(e) => e.message = r(&e.message),
        EventBody::Episode(h) => {
            for value in h.task.extra.values_mut() {
                redact_value(value, redactor);
            }
        }
        EventBody::Control(_) | EventBody::End(_) => {}
    }
}

/// What an episode itself reveals about the persona, for journals whose task
/// is not in the dataset: the task's snippets and raw data, the `Key: value`
/// lines of `get_user_info` results, and the people named in emails and
/// calendar entries the tools returned.
pub fn redactor_from_episode(episode: &Episode) -> Redactor {
    let task = &episode.header().task;
    let mut values: Vec<(PrivateKind, String)> = Vec::new();
    // Split off values: masked unless a lone dictionary word ("Clinic" of "Hollybrook Clinic").
    let mut parts: Vec<(PrivateKind, String)> = Vec::new();
    for key in ["ground_truth_snippets", "extraction_snippets", "raw_data"] {
        if let Some(Value::Array(items)) = task.extra.get(key) {
            for item in items.iter().filter_map(Value::as_str) {
                values.push((PrivateKind::Private, item.to_string()));
                // Proper nouns of a snippet give it away on their own ("Hollybrook", "BBC").
                parts.extend(
                    item.split(|c: char| !c.is_alphanumeric())
                        .filter(|w| {
                            w.chars().count() >= 3 && w.chars().next().is_some_and(char::is_uppercase)
                        })
                        .map(|w| (PrivateKind::Private, w.to_string())),
                );
            }
        }
    }
    for event in &episode.events {
        let EventBody::ToolResult(result) = &event.body else { continue };
        for line in result.output.lines() {
            let Some((key, value)) = line.split_once(':') else { continue };
            let (key, value) = (key.trim().to_lowercase(), value.trim());
            if value.is_empty() {
                continue;
            }
            let kind = match key.as_str() {
                "name" | "participants" | "from" | "to" => PrivateKind::Name,
                k if k.contains("email") => PrivateKind::Email,
                k if k.contains("phone") || k.contains("mobile") => PrivateKind::Phone,
                k if k.contains("address") => PrivateKind::Address,
                k if k.contains("id") || k.contains("number") || k.contains("passport") => PrivateKind::Id,
                k if result.tool == "get_user_info" && !k.is_empty() => PrivateKind::Private,
                _ => continue,
            };
            if kind == PrivateKind::Name {
                // People, not groups ("Marketing leads"): full names written as names.
                let people =
                    value.split(',').map(str::trim).filter(|p| p.contains(' ') && is_capitalised_name(p));
                for person in people {
                    values.push((PrivateKind::Name, person.to_string()));
                    // Each part of a name too ("Whitfield" alone still names her), titles aside.
                    parts.extend(
                        name_words(person)
                            .into_iter()
                            .filter(|w| w.len() > 2)
                            .map(|w| (PrivateKind::Name, w.to_string())),
                    );
                }
            } else {
                values.push((kind, value.to_string()));
            }
        }
    }
    Redactor::from_values_and_parts(values, parts)
}

fn redact_value(value: &mut Value, redactor: &Redactor) {
    match value {
        Value::String(s) => {
            if let std::borrow::Cow::Owned(masked) = redactor.redact(s) {
                *s = masked;
            }
        }
        Value::Array(items) => items.iter_mut().for_each(|v| redact_value(v, redactor)),
        Value::Object(map) => map.values_mut().for_each(|v| redact_value(v, redactor)),
        _ => {}
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_text_of_the_demo_is_masked() {
        let episode = crate::core::demo::demo_episodes().remove(0);
        let redactor = redactor_from_episode(&episode);
        let redacted = redact_episode(&episode, &redactor);
        let text = serde_json::to_string(&redacted.events).unwrap();
        assert!(!text.contains("Hollybrook Clinic"), "the leaked snippet is masked");
        assert!(!text.contains("Whitfield"), "the user's name, learnt from get_user_info, is masked");
        assert!(serde_json::to_string(&episode.events).unwrap().contains("Hollybrook Clinic"));
        assert_eq!(redacted.events.len(), episode.events.len());
    }
}
