//! One self-contained HTML page per episode: inline CSS, no script, no
//! external resource, readable offline and printable.
//!
//! Every piece of model, tool or imported text goes through [`text`]: control
//! bytes made inert, then `& < > " '` escaped, so a message can never become markup.

use std::collections::BTreeMap;
use std::fmt::Write as _;

use super::AnnotationView;
use super::common::{direction, evidence_spans, models_line, pretty, split_marked, value_text, verdicts};
use crate::core::episode::{Episode, Event, EventBody, Message, Outcome, Party};
use crate::core::sanitize;

const STYLE: &str = r#"
:root { --attacker: #b42318; --assistant: #1d4ed8; --environment: #047857; --user: #6d28d9;
  --pass: #15803d; --fail: #b91c1c; --partial: #b45309; --error: #7e22ce; --skipped: #6b7280; }
* { box-sizing: border-box; }
body { font: 15px/1.5 system-ui, -apple-system, "Segoe UI", sans-serif; color: #1f2937; background: #fff;
  max-width: 60rem; margin: 0 auto; padding: 1.5rem; }
h1 { font-size: 1.4rem; word-break: break-all; } h2 { font-size: 1.15rem; margin-top: 2rem; }
h3 { font-size: 1rem; border-bottom: 1px solid #e5e7eb; margin-top: 1.5rem; }
table { border-collapse: collapse; width: 100%; margin: .5rem 0; }
th, td { border: 1px solid #d1d5db; padding: .25rem .5rem; text-align: left; vertical-align: top; }
th { background: #f3f4f6; }
pre { white-space: pre-wrap; word-wrap: break-word; background: #f9fafb; border: 1px solid #e5e7eb;
  padding: .5rem; margin: .25rem 0; font: 13px/1.4 ui-monospace, Menlo, Consolas, monospace; }
.ev { border-left: 4px solid #d1d5db; padding: .25rem .75rem; margin: .75rem 0; break-inside: avoid; }
.who { font-weight: 600; font-size: .9rem; }
.text { white-space: pre-wrap; word-wrap: break-word; }
.attacker { border-color: var(--attacker); } .attacker > .who { color: var(--attacker); }
.assistant { border-color: var(--assistant); } .assistant > .who { color: var(--assistant); }
.environment { border-color: var(--environment); } .environment > .who { color: var(--environment); }
.user { border-color: var(--user); } .user > .who { color: var(--user); }
.meta { color: #6b7280; font-weight: normal; }
.outcome { font-weight: 700; text-transform: uppercase; font-size: .85rem; }
.o-pass { color: var(--pass); } .o-fail { color: var(--fail); } .o-partial { color: var(--partial); }
.o-error { color: var(--error); } .o-skipped { color: var(--skipped); }
.failed { color: var(--fail); font-weight: 600; }
mark { background: #fde68a; color: inherit; outline: 1px solid #b45309; }
.note { background: #eff6ff; border: 1px dashed #93c5fd; padding: .25rem .5rem; margin: .25rem 0; font-size: .9rem; }
.control, .end { color: #6b7280; font-style: italic; }
.error { border-color: var(--error); } .error > .who { color: var(--error); }
blockquote { margin: .25rem 0 .75rem; padding-left: .75rem; border-left: 3px solid #e5e7eb; }
details summary { cursor: pointer; color: #6b7280; font-size: .85rem; }
@media print {
  body { max-width: none; padding: 0; font-size: 11pt; }
  pre { border-color: #ccc; }
  h2, h3 { break-after: avoid; }
  tr { break-inside: avoid; }
}
"#;

/// The episode as one HTML document; `annotations` are shown beside the events they target.
pub fn to_html(episode: &Episode, annotations: &[AnnotationView]) -> String {
    let mut out = String::new();
    let header = episode.header();
    let task = &header.task;
    let _ = write!(
        out,
        "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n\
         <meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n\
         <title>Episode {}</title>\n<style>{STYLE}</style>\n</head>\n<body>\n",
        text(episode.id())
    );
    let _ = writeln!(out, "<h1>Episode {}</h1>", text(episode.id()));

    let mut facts: Vec<(&str, String)> = Vec::new();
    let mut fact = |name, value: Option<String>| {
        if let Some(v) = value.filter(|v| !v.is_empty()) {
            facts.push((name, v));
        }
    };
    fact("Task", task.id.clone());
    fact("Domain", task.domain.clone());
    fact("Persona", task.persona.as_ref().map(value_text));
    fact("Attack type", task.attack_type.clone());
    fact("Category", task.category.clone());
    fact("Data item", task.data_item.clone());
    fact("Models", Some(models_line(episode)));
    fact("Max turns", header.config.max_turns.map(|n| n.to_string()));
    fact("Source", header.source.as_ref().map(|s| format!("{} ({})", s.format, s.path)));
    fact("Forked from", header.parent.as_ref().map(|p| format!("{} at seq {}", p.episode, p.seq)));
    out.push_str("<table class=\"facts\">\n");
    for (name, value) in facts {
        let _ = writeln!(out, "<tr><th>{name}</th><td>{}</td></tr>", text(&value));
    }
    out.push_str("</table>\n");
    if let Some(user_task) = &task.user_task {
        let _ =
            writeln!(out, "<h2>User task</h2>\n<blockquote class=\"text\">{}</blockquote>", text(user_task));
    }
    if let Some(goal) = &task.attack_goal {
        let _ = writeln!(out, "<h2>Attack goal</h2>\n<blockquote class=\"text\">{}</blockquote>", text(goal));
    }

    let mut notes: BTreeMap<u64, Vec<&AnnotationView>> = BTreeMap::new();
    for a in annotations {
        notes.entry(a.target_seq).or_default().push(a);
    }
    let spans = evidence_spans(episode);
    out.push_str("<h2>Transcript</h2>\n");
    let mut current_turn = None;
    for event in &episode.events {
        if let Some(turn) = event.body.turn().filter(|t| Some(*t) != current_turn) {
            if !matches!(event.body, EventBody::Verdict(_)) {
                current_turn = Some(turn);
                let _ = writeln!(out, "<h3>Turn {turn}</h3>");
            }
        }
        let ranges = spans.get(&event.seq).map(Vec::as_slice).unwrap_or(&[]);
        event_html(&mut out, event, ranges);
        for note in notes.remove(&event.seq).unwrap_or_default() {
            annotation(&mut out, note);
        }
    }
    let orphans: Vec<&AnnotationView> = notes.into_values().flatten().collect();
    if !orphans.is_empty() {
        out.push_str("<h2>Notes on events not in this episode</h2>\n");
        for note in orphans {
            annotation(&mut out, note);
        }
    }

    verdict_table(&mut out, episode);
    if !episode.warnings.is_empty() {
        out.push_str("<h2>Warnings</h2>\n<ul>\n");
        for w in &episode.warnings {
            let _ = writeln!(out, "<li>{}</li>", text(w));
        }
        out.push_str("</ul>\n");
    }
    out.push_str("</body>\n</html>\n");
    out
}

fn event_html(out: &mut String, event: &Event, ranges: &[(usize, usize)]) {
    let seq = event.seq;
    match &event.body {
        EventBody::Episode(_) => {}
        EventBody::Message(m) => message(out, seq, m, ranges),
        EventBody::ToolCall(c) => {
            let _ = writeln!(
                out,
                "<div class=\"ev environment\" id=\"e{seq}\"><div class=\"who\">Tool call <code>{}</code> \
                 <span class=\"meta\">{}</span></div>",
                text(&c.tool),
                text(&c.call_id)
            );
            match &c.raw_args {
                Some(raw) => {
                    let _ = writeln!(
                        out,
                        "<pre>{}</pre><div class=\"failed\">arguments did not parse as JSON</div>",
                        text(raw)
                    );
                }
                None => {
                    let _ = writeln!(out, "<pre>{}</pre>", text(&pretty(&c.args)));
                }
            }
            raw_details(out, c.raw.as_deref(), "raw model output");
            out.push_str("</div>\n");
        }
        EventBody::ToolResult(r) => {
            let status =
                if r.ok { String::new() } else { " <span class=\"failed\">✗ failed</span>".to_string() };
            let _ = writeln!(
                out,
                "<div class=\"ev environment\" id=\"e{seq}\"><div class=\"who\">Tool result <code>{}</code> \
                 <span class=\"meta\">{}</span>{status}</div>\n<pre>{}</pre>",
                text(&r.tool),
                text(&r.call_id),
                marked(&r.output, ranges)
            );
            raw_details(out, r.raw.as_deref(), "raw output");
            out.push_str("</div>\n");
        }
        EventBody::Verdict(v) => {
            let scope = v.turn.map_or_else(|| "whole episode".to_string(), |t| format!("turn {t}"));
            let _ = writeln!(
                out,
                "<div class=\"ev verdict\" id=\"e{seq}\"><div class=\"who\">Verdict: {} <span class=\"meta\">({}, {scope})</span> \
                 {}</div>{}</div>",
                text(&v.judge),
                v.method.as_str(),
                outcome(v.outcome),
                v.summary
                    .as_deref()
                    .map(|s| format!("<div class=\"text\">{}</div>", text(s)))
                    .unwrap_or_default()
            );
        }
        EventBody::Control(c) => {
            let action = serde_json::to_value(c.action).map(|v| value_text(&v)).unwrap_or_default();
            let by = c.by.as_deref().map(|b| format!(" by {}", text(b))).unwrap_or_default();
            let _ = writeln!(out, "<p class=\"control\" id=\"e{seq}\">Control: {}{by}</p>", text(&action));
        }
        EventBody::Error(e) => {
            let _ = writeln!(
                out,
                "<div class=\"ev error\" id=\"e{seq}\"><div class=\"who\">Error <span class=\"meta\">({})</span></div>\
                 <div class=\"text\">{}</div></div>",
                text(&e.source),
                text(&e.message)
            );
        }
        EventBody::End(end) => {
            let _ = writeln!(
                out,
                "<p class=\"end\" id=\"e{seq}\">End: {} after {} turn(s)</p>",
                end.reason.as_str(),
                end.turns
            );
        }
    }
}

fn message(out: &mut String, seq: u64, m: &Message, ranges: &[(usize, usize)]) {
    let party = party_class(m.from);
    let model =
        m.model.as_deref().map(|x| format!(" <span class=\"meta\">{}</span>", text(x))).unwrap_or_default();
    let by =
        m.by.as_deref()
            .map(|x| format!(" <span class=\"meta\">written by {}</span>", text(x)))
            .unwrap_or_default();
    let _ = writeln!(
        out,
        "<div class=\"ev {party}\" id=\"e{seq}\"><div class=\"who\">{}{model}{by}</div>\n<div class=\"text\">{}</div>",
        text(&direction(m)),
        marked(&m.text, ranges)
    );
    raw_details(out, m.raw.as_deref().filter(|r| *r != m.text), "raw model output");
    out.push_str("</div>\n");
}

fn raw_details(out: &mut String, raw: Option<&str>, what: &str) {
    if let Some(raw) = raw {
        let _ = writeln!(out, "<details><summary>{what}</summary><pre>{}</pre></details>", text(raw));
    }
}

fn annotation(out: &mut String, note: &AnnotationView) {
    let author = note
        .author
        .as_deref()
        .map(|a| format!(" <span class=\"meta\">— {}</span>", text(a)))
        .unwrap_or_default();
    let quote = note
        .quote
        .as_deref()
        .map(|q| format!("<blockquote class=\"quote\">{}</blockquote>", text(q)))
        .unwrap_or_default();
    let _ = writeln!(
        out,
        "<div class=\"note\"><strong>Note ({}, event {})</strong>{author}{quote}<div class=\"text\">{}</div></div>",
        text(&note.label),
        note.target_seq,
        text(&note.note)
    );
}

fn verdict_table(out: &mut String, episode: &Episode) {
    let all: Vec<_> = verdicts(episode).collect();
    if all.is_empty() {
        return;
    }
    out.push_str(
        "<h2>Verdicts</h2>\n<table class=\"verdicts\">\n<tr><th>Judge</th><th>Method</th><th>Outcome</th>\
         <th>Score</th><th>Turn</th><th>Summary</th><th>Evidence</th></tr>\n",
    );
    for (_, v) in all {
        let evidence = v
            .evidence
            .as_ref()
            .map(|ev| {
                let quoted = ev.text.as_deref().map(|t| format!(": <q>{}</q>", text(t))).unwrap_or_default();
                format!("event {}{quoted}", ev.seq)
            })
            .unwrap_or_default();
        let _ = writeln!(
            out,
            "<tr><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{evidence}</td></tr>",
            text(&v.judge),
            v.method.as_str(),
            outcome(v.outcome),
            v.score.map(|s| s.to_string()).unwrap_or_default(),
            v.turn.map_or_else(|| "episode".to_string(), |t| t.to_string()),
            v.summary.as_deref().map(text).unwrap_or_default()
        );
    }
    out.push_str("</table>\n");
}

fn outcome(outcome: Outcome) -> String {
    format!("<span class=\"outcome o-{0}\">{0}</span>", outcome.as_str())
}

fn party_class(party: Party) -> &'static str {
    party.as_str()
}

/// Text with its evidence spans wrapped in `<mark>`, escaped piece by piece
/// (offsets are characters of the original text, so split before escaping).
fn marked(source: &str, ranges: &[(usize, usize)]) -> String {
    let mut out = String::with_capacity(source.len() + 32);
    for (piece, mark) in split_marked(source, ranges) {
        if mark {
            let _ = write!(out, "<mark>{}</mark>", text(piece));
        } else {
            out.push_str(&text(piece));
        }
    }
    out
}

/// Untrusted text made safe inside HTML element content and attribute values.
pub(super) fn text(source: &str) -> String {
    let source = sanitize::inert(source);
    let mut out = String::with_capacity(source.len() + 16);
    for c in source.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            c => out.push(c),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn text_escapes_markup_and_controls() {
        assert_eq!(
            text("<b a=\"x\">'&'</b>\x1b[2J"),
            "&lt;b a=&quot;x&quot;&gt;&#39;&amp;&#39;&lt;/b&gt;␛[2J"
        );
    }

    #[test]
    fn marks_wrap_character_spans() {
        assert_eq!(marked("£<a>", &[(1, 4)]), "£<mark>&lt;a&gt;</mark>");
    }
}
