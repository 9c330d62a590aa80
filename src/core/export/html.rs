//! One self-contained HTML page per episode: inline CSS, no script, no
//! external resource, readable offline and printable.
//!
//! The page is a `maud` template, which escapes every interpolated value; every
//! piece of model, tool or imported text goes in as [`Inert`] (control bytes
//! made inert first), so a message can never become markup; what HTML calls a
//! parse error anywhere else (a noncharacter) becomes U+FFFD.

use crate::core::episode::source_label;
use std::collections::BTreeMap;

use maud::{DOCTYPE, Markup, PreEscaped, Render, html};

use super::annotation::AnnotationView;
use super::common::{direction, evidence_spans, models_line, pretty, split_marked, value_text, verdicts};
use crate::core::episode::{Episode, Event, EventBody, Message, Outcome};
use crate::core::markup_chars::fit_for_markup;
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
    let mut notes: BTreeMap<u64, Vec<&AnnotationView>> = BTreeMap::new();
    for a in annotations {
        notes.entry(a.target_seq).or_default().push(a);
    }
    let transcript = transcript(episode, &mut notes);
    let orphans: Vec<&AnnotationView> = notes.into_values().flatten().collect();
    let page = html! {
        (DOCTYPE) "\n"
        html lang="en" {
            "\n"
            head {
                "\n"
                meta charset="utf-8"; "\n"
                meta name="viewport" content="width=device-width, initial-scale=1"; "\n"
                title { "Episode " (Inert(episode.id())) } "\n"
                style { (PreEscaped(STYLE)) } "\n"
            }
            "\n"
            body {
                "\n"
                h1 { "Episode " (Inert(episode.id())) } "\n"
                (facts(episode))
                (transcript)
                @if !orphans.is_empty() {
                    h2 { "Notes on events not in this episode" } "\n"
                    @for note in orphans { (annotation(note)) }
                }
                (verdict_table(episode))
                @if !episode.warnings.is_empty() {
                    h2 { "Warnings" } "\n"
                    ul { "\n" @for w in &episode.warnings { li { (Inert(w)) } "\n" } } "\n"
                }
            }
            "\n"
        }
        "\n"
    };
    // What HTML calls a parse error (a noncharacter, a control outside `Inert`) is U+FFFD.
    fit_for_markup(&page.into_string()).into_owned()
}

/// The task and run facts, then the user's task and the attack goal.
fn facts(episode: &Episode) -> Markup {
    let header = episode.header();
    let task = &header.task;
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
    html! {
        table.facts {
            "\n"
            @for (name, value) in &facts { tr { th { (name) } td { (Inert(value)) } } "\n" }
        }
        "\n"
        @if let Some(user_task) = &task.user_task {
            h2 { "User task" } "\n" blockquote.text { (Inert(user_task)) } "\n"
        }
        @if let Some(goal) = &task.attack_goal {
            h2 { "Attack goal" } "\n" blockquote.text { (Inert(goal)) } "\n"
        }
    }
}

/// The events turn by turn, each followed by the notes on it (taken out of `notes`).
fn transcript(episode: &Episode, notes: &mut BTreeMap<u64, Vec<&AnnotationView>>) -> Markup {
    let spans = evidence_spans(episode);
    let mut current_turn = None;
    let mut items = Vec::with_capacity(episode.events.len());
    for event in &episode.events {
        // A verdict about an earlier turn does not open a new one.
        let heading = event
            .body
            .turn()
            .filter(|t| Some(*t) != current_turn && !matches!(event.body, EventBody::Verdict(_)));
        if heading.is_some() {
            current_turn = heading;
        }
        let ranges = spans.get(&event.seq).map(Vec::as_slice).unwrap_or(&[]);
        items.push((heading, event, ranges, notes.remove(&event.seq).unwrap_or_default()));
    }
    html! {
        h2 { "Transcript" } "\n"
        @for (heading, event, ranges, notes) in items {
            @if let Some(turn) = heading { h3 { "Turn " (turn) } "\n" }
            (event_html(event, ranges))
            @for note in notes { (annotation(note)) }
        }
    }
}

fn event_html(event: &Event, ranges: &[(usize, usize)]) -> Markup {
    let id = format!("e{}", event.seq);
    match &event.body {
        EventBody::Episode(_) => html! {},
        EventBody::Message(m) => message(&id, m, ranges),
        EventBody::ToolCall(c) => html! {
            div.ev.environment id=(id) {
                div.who { "Tool call " code { (Inert(&c.tool)) } " " span.meta { (Inert(&c.call_id)) } }
                "\n"
                @match &c.raw_args {
                    Some(raw) => {
                        pre { (Inert(raw)) } div.failed { "arguments did not parse as JSON" } "\n"
                    }
                    None => { pre { (Inert(&pretty(&c.args))) } "\n" }
                }
                (raw_details(c.raw.as_deref(), "raw model output"))
            }
            "\n"
        },
        EventBody::ToolResult(r) => html! {
            div.ev.environment id=(id) {
                div.who {
                    "Tool result " code { (Inert(&r.tool)) } " " span.meta { (Inert(&r.call_id)) }
                    @if !r.ok { " " span.failed { "✗ failed" } }
                }
                "\n" pre { (marked(&r.output, ranges)) } "\n"
                (raw_details(r.raw.as_deref(), "raw output"))
            }
            "\n"
        },
        EventBody::Verdict(v) => {
            let scope = v.turn.map_or_else(|| "whole episode".to_string(), |t| format!("turn {t}"));
            html! {
                div.ev.verdict id=(id) {
                    div.who {
                        "Verdict: " (Inert(&v.judge)) " " span.meta { "(" (Inert(&source_label(v.method, v.model.as_deref()))) ", " (scope) ")" }
                        " " (outcome(v.outcome))
                    }
                    @if let Some(summary) = &v.summary { div.text { (Inert(summary)) } }
                }
                "\n"
            }
        }
        EventBody::Control(c) => {
            let action = serde_json::to_value(c.action).map(|v| value_text(&v)).unwrap_or_default();
            html! {
                p.control id=(id) {
                    "Control: " (Inert(&action))
                    @if let Some(by) = &c.by { " by " (Inert(by)) }
                }
                "\n"
            }
        }
        EventBody::Error(e) => html! {
            div.ev.error id=(id) {
                div.who { "Error " span.meta { "(" (Inert(&e.source)) ")" } }
                div.text { (Inert(&e.message)) }
            }
            "\n"
        },
        EventBody::End(end) => html! {
            p.end id=(id) { "End: " (end.reason.as_str()) " after " (end.turns) " turn(s)" } "\n"
        },
    }
}

fn message(id: &str, m: &Message, ranges: &[(usize, usize)]) -> Markup {
    html! {
        div class={ "ev " (m.from.as_str()) } id=(id) {
            div.who {
                (Inert(&direction(m)))
                @if let Some(model) = &m.model { " " span.meta { (Inert(model)) } }
                @if let Some(by) = &m.by { " " span.meta { "written by " (Inert(by)) } }
            }
            "\n" div.text { (marked(&m.text, ranges)) } "\n"
            (raw_details(m.raw.as_deref().filter(|r| *r != m.text), "raw model output"))
        }
        "\n"
    }
}

fn raw_details(raw: Option<&str>, what: &str) -> Markup {
    html! {
        @if let Some(raw) = raw {
            details { summary { (what) } pre { (Inert(raw)) } } "\n"
        }
    }
}

fn annotation(note: &AnnotationView) -> Markup {
    html! {
        div.note {
            strong { "Note (" (Inert(&note.label)) ", event " (note.target_seq) ")" }
            @if let Some(author) = &note.author { " " span.meta { "— " (Inert(author)) } }
            @if let Some(quote) = &note.quote { blockquote.quote { (Inert(quote)) } }
            div.text { (Inert(&note.note)) }
        }
        "\n"
    }
}

fn verdict_table(episode: &Episode) -> Markup {
    let all: Vec<_> = verdicts(episode).collect();
    html! {
        @if !all.is_empty() {
            h2 { "Verdicts" } "\n"
            table.verdicts {
                "\n"
                tr {
                    th { "Judge" } th { "Source" } th { "Outcome" } th { "Score" } th { "Turn" }
                    th { "Summary" } th { "Evidence" }
                }
                "\n"
                @for (_, v) in all {
                    tr {
                        td { (Inert(&v.judge)) }
                        td { (Inert(&source_label(v.method, v.model.as_deref()))) }
                        td { (outcome(v.outcome)) }
                        td { @if let Some(score) = v.score { (score) } }
                        td { @match v.turn { Some(t) => (t), None => "episode" } }
                        td { @if let Some(summary) = &v.summary { (Inert(summary)) } }
                        td {
                            @if let Some(ev) = &v.evidence {
                                "event " (ev.seq)
                                @if let Some(quoted) = &ev.text { ": " q { (Inert(quoted)) } }
                            }
                        }
                    }
                    "\n"
                }
            }
            "\n"
        }
    }
}

fn outcome(outcome: Outcome) -> Markup {
    html! { span class={ "outcome o-" (outcome.as_str()) } { (outcome.as_str()) } }
}

/// Text with its evidence spans wrapped in `<mark>`, escaped piece by piece
/// (offsets are characters of the original text, so split before escaping).
fn marked(source: &str, ranges: &[(usize, usize)]) -> Markup {
    html! {
        @for (piece, mark) in split_marked(source, ranges) {
            @if mark { mark { (Inert(piece)) } } @else { (Inert(piece)) }
        }
    }
}

/// Untrusted text: control bytes made inert, then escaped by the template.
struct Inert<'a>(&'a str);

impl Render for Inert<'_> {
    fn render_to(&self, buffer: &mut String) {
        sanitize::inert(self.0).as_ref().render_to(buffer);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn untrusted_text_is_escaped_and_its_controls_made_inert() {
        assert_eq!(
            Inert("<b a=\"x\">'&'</b>\x1b[2J").render().into_string(),
            "&lt;b a=&quot;x&quot;&gt;'&amp;'&lt;/b&gt;␛[2J"
        );
    }

    #[test]
    fn marks_wrap_character_spans() {
        assert_eq!(marked("£<a>", &[(1, 4)]).into_string(), "£<mark>&lt;a&gt;</mark>");
    }
}
