//! A readable Markdown transcript of one episode.
//!
//! Model and tool text is untrusted: it is made inert (no control bytes) and
//! escaped where it could break the document's structure. Code blocks use a
//! fence longer than any backtick run inside them, so nothing closes them early.

use std::fmt::Write as _;

use super::annotation::AnnotationView;
use super::common::{direction, evidence_spans, models_line, pretty, split_marked, value_text, verdicts};
use crate::core::episode::{Episode, EventBody, Message, Verdict};
use crate::core::sanitize;

/// The whole episode as a Markdown document.
pub fn to_markdown(episode: &Episode) -> String {
    to_markdown_with(episode, &[])
}

/// [`to_markdown`] with reviewers' annotations, in a section after the verdicts.
pub fn to_markdown_with(episode: &Episode, annotations: &[AnnotationView]) -> String {
    let mut out = markdown_body(episode);
    if !annotations.is_empty() {
        out.push_str("## Annotations\n\n");
        for a in annotations {
            let author = a.author.as_deref().map(|who| format!(" — {}", inline(who))).unwrap_or_default();
            let _ = writeln!(out, "- **{}** on event {}{author}", inline(&a.label), a.target_seq);
            if let Some(q) = &a.quote {
                let _ = writeln!(out, "  > {}", inline(q));
            }
            if !a.note.is_empty() {
                let _ = writeln!(out, "  {}", inline(&a.note));
            }
        }
        out.push('\n');
    }
    out
}

fn markdown_body(episode: &Episode) -> String {
    let mut out = String::new();
    let header = episode.header();
    let task = &header.task;
    let _ = writeln!(out, "# Episode {}\n", inline(episode.id()));

    let mut facts: Vec<(&str, String)> = Vec::new();
    if let Some(id) = &task.id {
        facts.push(("Task", inline(id)));
    }
    if let Some(domain) = &task.domain {
        facts.push(("Domain", inline(domain)));
    }
    let attack = [task.attack_type.as_deref(), task.category.as_deref()]
        .into_iter()
        .flatten()
        .collect::<Vec<_>>()
        .join(" / ");
    if !attack.is_empty() {
        facts.push(("Attack", inline(&attack)));
    }
    if let Some(item) = &task.data_item {
        facts.push(("Data item", inline(item)));
    }
    if let Some(persona) = &task.persona {
        facts.push(("Persona", inline(&value_text(persona))));
    }
    let models = models_line(episode);
    if !models.is_empty() {
        facts.push(("Models", inline(&models)));
    }
    if let Some(max) = header.config.max_turns {
        facts.push(("Max turns", max.to_string()));
    }
    if let Some(source) = &header.source {
        facts.push(("Source", inline(&format!("{} ({})", source.format, source.path))));
    }
    if let Some(parent) = &header.parent {
        facts.push(("Forked from", inline(&format!("{} at seq {}", parent.episode, parent.seq))));
    }
    if !facts.is_empty() {
        out.push_str("| | |\n|---|---|\n");
        for (name, value) in facts {
            let _ = writeln!(out, "| {name} | {value} |");
        }
        out.push('\n');
    }
    if let Some(user_task) = &task.user_task {
        let _ = write!(out, "## User task\n\n{}", quote(user_task));
    }
    if let Some(goal) = &task.attack_goal {
        let _ = write!(out, "## Attack goal\n\n{}", quote(goal));
    }

    out.push_str("## Transcript\n\n");
    let spans = evidence_spans(episode);
    let mut current_turn = None;
    for event in &episode.events {
        let body = &event.body;
        if let Some(turn) = body.turn().filter(|t| Some(*t) != current_turn) {
            // Whole-episode verdicts have no turn; they belong to the section below.
            if !matches!(body, EventBody::Verdict(_)) {
                current_turn = Some(turn);
                let _ = writeln!(out, "### Turn {turn}\n");
            }
        }
        match body {
            EventBody::Episode(_) => {}
            EventBody::Message(m) => {
                let ranges = spans.get(&event.seq).map(Vec::as_slice).unwrap_or(&[]);
                message(&mut out, m, ranges);
            }
            EventBody::ToolCall(c) => {
                let _ = writeln!(out, "**Tool call** {} ({})\n", code(&c.tool), code(&c.call_id));
                let args = c.raw_args.clone().unwrap_or_else(|| pretty(&c.args));
                let lang = if c.raw_args.is_some() { "text" } else { "json" };
                out.push_str(&fenced(lang, &args));
                if c.raw_args.is_some() {
                    out.push_str("*(arguments did not parse as JSON)*\n\n");
                }
                if let Some(raw) = &c.raw {
                    let _ = write!(out, "Raw model output:\n\n{}", fenced("text", raw));
                }
            }
            EventBody::ToolResult(r) => {
                let status = if r.ok { "✓" } else { "✗ failed" };
                let _ = writeln!(out, "**Tool result** {} ({}) {status}\n", code(&r.tool), code(&r.call_id));
                out.push_str(&fenced("text", &r.output));
                if let Some(raw) = &r.raw {
                    let _ = write!(out, "Raw output:\n\n{}", fenced("text", raw));
                }
            }
            EventBody::Verdict(v) if v.turn.is_some() => {
                let _ = writeln!(
                    out,
                    "*Verdict* {} ({}): **{}**{}\n",
                    inline(v.judge.as_str()),
                    inline(&v.source().to_string()),
                    v.outcome.as_str(),
                    v.summary.as_deref().map(|s| format!(": {}", inline(s))).unwrap_or_default()
                );
            }
            EventBody::Verdict(_) => {}
            EventBody::Control(c) => {
                let action = serde_json::to_value(c.action).map(|v| value_text(&v)).unwrap_or_default();
                let by = c.by.as_deref().map(|b| format!(" by {}", inline(b))).unwrap_or_default();
                let _ = writeln!(out, "*Control: {action}{by}*\n");
            }
            EventBody::Error(e) => {
                let _ = write!(out, "**Error** ({}):\n\n{}", inline(&e.source), quote(&e.message));
            }
            EventBody::End(end) => {
                let _ = writeln!(out, "**End**: {} after {} turn(s)\n", end.reason.as_str(), end.turns);
            }
        }
    }

    verdict_section(&mut out, episode);
    if !episode.warnings.is_empty() {
        out.push_str("## Warnings\n\n");
        for w in &episode.warnings {
            let _ = writeln!(out, "- {}", inline(w));
        }
        out.push('\n');
    }
    while out.ends_with("\n\n") {
        out.pop();
    }
    out
}

fn message(out: &mut String, m: &Message, ranges: &[(usize, usize)]) {
    let model = m.model.as_deref().map(|x| format!(" *({})*", inline(x))).unwrap_or_default();
    let by = m.by.as_deref().map(|x| format!(" *written by {}*", inline(x))).unwrap_or_default();
    let _ = writeln!(out, "**{}**{model}{by}\n", direction(m));
    // Evidence is emphasised in place: bold inside the quote keeps the structure.
    let mut text = String::new();
    for (piece, marked) in split_marked(&m.text, ranges) {
        let escaped = escape(&sanitize::inert(piece));
        if marked && !escaped.trim().is_empty() {
            // Bold cannot span a blank line, so each marked paragraph is bolded on its own.
            let bolded: Vec<String> = escaped
                .split('\n')
                .map(|l| {
                    // Emphasis only renders when it does not start or end with a space.
                    let body = l.trim();
                    if body.is_empty() {
                        return l.to_string();
                    }
                    let lead = &l[..l.len() - l.trim_start().len()];
                    let trail = &l[l.trim_end().len()..];
                    format!("{lead}**{body}**{trail}")
                })
                .collect();
            text.push_str(&bolded.join("\n"));
        } else {
            text.push_str(&escaped);
        }
    }
    out.push_str(&quote_escaped(&text));
    if let Some(raw) = m.raw.as_deref().filter(|r| *r != m.text) {
        let _ = write!(out, "Raw model output:\n\n{}", fenced("text", raw));
    }
}

fn verdict_section(out: &mut String, episode: &Episode) {
    let all: Vec<(u64, &Verdict)> = verdicts(episode).collect();
    if all.is_empty() {
        return;
    }
    out.push_str(
        "## Verdicts\n\n| Judge | Source | Outcome | Score | Turn | Summary |\n|---|---|---|---|---|---|\n",
    );
    for (_, v) in &all {
        let _ = writeln!(
            out,
            "| {} | {} | {} | {} | {} | {} |",
            inline(v.judge.as_str()),
            inline(&v.source().to_string()),
            v.outcome.as_str(),
            v.score.map(|s| format!("{s}")).unwrap_or_default(),
            v.turn.map_or_else(|| "episode".to_string(), |t| t.to_string()),
            v.summary.as_deref().map(inline).unwrap_or_default()
        );
    }
    out.push('\n');
    let with_evidence: Vec<_> = all.iter().filter(|(_, v)| v.evidence.is_some()).collect();
    if with_evidence.is_empty() {
        return;
    }
    out.push_str("### Evidence\n\n");
    // Several verdicts often point at the same span: quote it once, naming them all.
    let mut groups: Vec<(&crate::core::episode::Evidence, Vec<String>)> = Vec::new();
    for (_, v) in with_evidence {
        let Some(ev) = &v.evidence else { continue };
        let turn = v.turn.map_or_else(|| "episode".to_string(), |t| format!("turn {t}"));
        let label = format!("{} ({}, {turn})", inline(v.judge.as_str()), inline(&v.source().to_string()));
        match groups.iter_mut().find(|(e, _)| *e == ev) {
            Some((_, labels)) => labels.push(label),
            None => groups.push((ev, vec![label])),
        }
    }
    for (ev, labels) in groups {
        let quoted = ev.text.clone().or_else(|| {
            let text = episode.events.iter().find(|e| e.seq == ev.seq).and_then(|e| e.body.text())?;
            let (s, e) = (ev.start?, ev.end?);
            Some(text.chars().skip(s).take(e.saturating_sub(s)).collect())
        });
        let _ = writeln!(out, "{}, event {}:\n", labels.join("; "), ev.seq);
        if let Some(q) = quoted {
            out.push_str(&quote(&q));
        }
    }
}

/// Markdown-significant ASCII punctuation that inline text must not use for markup.
const SIGNIFICANT: &[char] = &['\\', '`', '*', '_', '[', ']', '<', '>', '|', '&', '#', '~'];

/// Escapes characters that would start markup (emphasis, links, HTML, tables, code).
fn escape(text: &str) -> String {
    let mut out = String::with_capacity(text.len() + 8);
    for c in text.chars() {
        if SIGNIFICANT.contains(&c) {
            out.push('\\');
        }
        out.push(c);
    }
    out
}

/// One line of inline text: inert, escaped, newlines as spaces (safe in table cells).
fn inline(text: &str) -> String {
    escape(&sanitize::inert(text).replace('\n', " "))
}

/// Inline code that survives backticks in its content.
fn code(text: &str) -> String {
    let text = sanitize::inert(text).replace('\n', " ");
    let ticks = "`".repeat(longest_backtick_run(&text) + 1);
    // A space keeps a leading or trailing backtick from joining the fence.
    let pad = if text.starts_with('`') || text.ends_with('`') { " " } else { "" };
    format!("{ticks}{pad}{text}{pad}{ticks}")
}

/// A blockquote of untrusted text.
fn quote(text: &str) -> String {
    quote_escaped(&escape(&sanitize::inert(text)))
}

/// A blockquote of already escaped text, keeping its line breaks.
fn quote_escaped(text: &str) -> String {
    let lines: Vec<&str> = text.split('\n').collect();
    let mut out = String::new();
    for (i, line) in lines.iter().enumerate() {
        let next_blank = lines.get(i + 1).is_none_or(|n| n.trim().is_empty());
        let line = line.trim_end();
        if line.is_empty() {
            out.push_str(">\n");
        } else if next_blank {
            let _ = writeln!(out, "> {line}");
        } else {
            // A trailing backslash is CommonMark's hard line break.
            let _ = writeln!(out, "> {line}\\");
        }
    }
    out.push('\n');
    out
}

/// A fenced code block whose fence is longer than any backtick run in the text.
fn fenced(lang: &str, text: &str) -> String {
    let text = sanitize::inert(text);
    let fence = "`".repeat((longest_backtick_run(&text) + 1).max(3));
    let newline = if text.ends_with('\n') { "" } else { "\n" };
    format!("{fence}{lang}\n{text}{newline}{fence}\n\n")
}

fn longest_backtick_run(text: &str) -> usize {
    let mut longest = 0;
    let mut run = 0;
    for c in text.chars() {
        run = if c == '`' { run + 1 } else { 0 };
        longest = longest.max(run);
    }
    longest
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fences_outgrow_backticks_in_content() {
        let block = fenced("text", "a ```` b");
        assert!(block.starts_with("`````text\n"));
        assert!(block.ends_with("\n`````\n\n"));
        assert_eq!(fenced("json", "{}"), "```json\n{}\n```\n\n");
    }

    #[test]
    fn quotes_escape_markup_and_keep_lines() {
        assert_eq!(quote("a *b*\n<c>\n\nd"), "> a \\*b\\*\\\n> \\<c\\>\n>\n> d\n\n");
        assert_eq!(inline("x|y\nz\x1b"), "x\\|y z␛");
        assert_eq!(code("a`b"), "``a`b``");
    }
}
