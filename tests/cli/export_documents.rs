//! Markdown and HTML exports of the demo episodes, and untrusted text in HTML.

use converse_tui::core::demo::demo_episodes;
use converse_tui::core::episode::{Episode, Event, EventBody, Evidence, Message, Party};
use converse_tui::core::export::{AnnotationView, to_html, to_markdown};

fn first_demo() -> Episode {
    demo_episodes().remove(0)
}

#[test]
fn markdown_of_the_first_demo() {
    insta::assert_snapshot!("markdown_demo_1", to_markdown(&first_demo()));
}

#[test]
fn html_of_the_first_demo() {
    let notes = [AnnotationView {
        target_seq: 22,
        label: "leak".into(),
        note: "Health data shared under an insurance pretext.".into(),
        author: Some("reviewer".into()),
        quote: None,
        judged: None,
    }];
    insta::assert_snapshot!("html_demo_1", to_html(&first_demo(), &notes));
}

/// The first demo with a hostile message in place of turn 3's assistant reply,
/// evidence pointing at its leaked snippet.
fn hostile() -> Episode {
    let mut episode = first_demo();
    let text = "Hi <script>alert(1)</script> and \"quotes\" & <b>tags</b> 'x'\x1b[31m: the cardiology follow-up is on 20 May.";
    let start = text.find("cardiology").map(|b| text[..b].chars().count()).unwrap();
    let end = start + "cardiology follow-up".chars().count();
    for event in &mut episode.events {
        match &mut event.body {
            EventBody::Message(m) if event.seq == 22 => m.text = text.to_string(),
            EventBody::Verdict(v) => {
                if let Some(ev) = &mut v.evidence {
                    *ev = Evidence {
                        seq: 22,
                        start: Some(start),
                        end: Some(end),
                        text: Some("cardiology follow-up".into()),
                    };
                }
            }
            _ => {}
        }
    }
    episode
}

#[test]
fn html_keeps_untrusted_text_as_text() {
    let notes = [AnnotationView {
        target_seq: 22,
        label: "<i>x</i>".into(),
        note: "<script>n()</script>".into(),
        author: None,
        quote: Some("<b>q</b>".into()),
        judged: None,
    }];
    let html = to_html(&hostile(), &notes);
    assert!(!html.contains("<script"), "a script tag survived");
    assert!(!html.contains("<b>tags"));
    assert!(!html.contains("<i>x"));
    assert!(html.contains("&lt;script&gt;alert(1)&lt;/script&gt;"));
    // `'` needs no escape: the template writes every attribute in double quotes.
    assert!(html.contains("&quot;quotes&quot; &amp; &lt;b&gt;tags&lt;/b&gt; 'x'␛[31m"));
    assert!(!html.contains('\x1b'));
    assert!(html.contains("<mark>cardiology follow-up</mark>"), "evidence not marked");
    assert!(html.contains("<meta charset=\"utf-8\">"));
    assert!(html.contains("<title>Episode demo-travel-privacy-leak</title>"));
    assert!(html.contains("@media print"));
    assert!(html.contains("<details>"), "raw output not in details");
}

#[test]
fn html_loads_nothing_from_elsewhere() {
    for episode in demo_episodes() {
        let html = to_html(&episode, &[]);
        let lower = html.to_lowercase();
        for bad in ["<script", "http", "src=", "href=", "url(", "@import", "<link", "<iframe"] {
            assert!(!lower.contains(bad), "{}: found {bad}", episode.id());
        }
    }
}

#[test]
fn html_marks_evidence_in_the_demo() {
    let html = to_html(&first_demo(), &[]);
    assert!(html.contains(
        "<mark>cardiology follow-up with Dr. Priya Anand at Hollybrook Clinic on 20 May (she returns a Holter monitor</mark>"
    ));
}

#[test]
fn markdown_fences_outgrow_backticks_and_escape_markup() {
    let mut episode = first_demo();
    for event in &mut episode.events {
        match &mut event.body {
            EventBody::ToolResult(r) if event.seq == 3 => r.output = "```\nnot the end\n````".into(),
            EventBody::Message(m) if event.seq == 1 => {
                m.text = "<script>x</script> *bold* [l](u) | # h".into()
            }
            _ => {}
        }
    }
    let md = to_markdown(&episode);
    assert!(md.contains("`````text\n```\nnot the end\n````\n`````\n"), "{md}");
    assert!(md.contains("> \\<script\\>x\\</script\\> \\*bold\\* \\[l\\](u) \\| \\# h\n"), "{md}");
}

#[test]
fn exports_never_panic_on_odd_episodes() {
    let mut episode = first_demo();
    episode.events.truncate(1);
    // Evidence out of range, on a missing event, inverted, and one without offsets.
    let bodies = [(1, "ab"), (2, "")];
    for (seq, text) in bodies {
        episode.events.push(Event {
            seq,
            at: "x".into(),
            body: EventBody::Message(Message {
                turn: 1,
                from: Party::Environment,
                to: Party::User,
                text: text.into(),
                raw: Some("`".into()),
                model: None,
                usage: None,
                by: None,
            }),
        });
    }
    let demo = first_demo();
    let verdict = demo.events.iter().find_map(|e| match &e.body {
        EventBody::Verdict(v) if v.evidence.is_some() => Some(v.clone()),
        _ => None,
    });
    let Some(verdict) = verdict else { panic!("demo has evidence") };
    for ev in [
        Evidence { seq: 1, start: Some(1), end: Some(99), text: None },
        Evidence { seq: 1, start: Some(5), end: Some(2), text: None },
        Evidence { seq: 9, start: Some(0), end: Some(1), text: None },
        Evidence { seq: 2, start: None, end: None, text: Some("zz".into()) },
        Evidence { seq: 1, start: None, end: None, text: Some("b".into()) },
    ] {
        let mut v = verdict.clone();
        v.evidence = Some(ev);
        let seq = episode.events.len() as u64;
        episode.events.push(Event { seq, at: "x".into(), body: EventBody::Verdict(v) });
    }
    let html = to_html(&episode, &[]);
    assert!(html.contains("a<mark>b</mark>"));
    let _ = to_markdown(&episode);
    let _ = converse_tui::core::export::to_maseval(&episode);
}

/// Issue 11 item 10: `export` shows a notes file's annotations, with the words
/// they quote, in Markdown, HTML and MASEval.
#[test]
fn exports_show_annotations_with_their_quote() {
    use converse_tui::core::annotate::{Draft, Label, NotesFile, Span, notes_path};
    use converse_tui::headless::export::{Format, export_to};
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("demo.jsonl");
    std::fs::write(&path, converse_tui::core::export::to_json_lines(&first_demo())).unwrap();
    let episode = converse_tui::core::import::load_path(&path).unwrap().remove(0);
    let (seq, text) = episode
        .events
        .iter()
        .rev()
        .find_map(|e| match &e.body {
            converse_tui::core::episode::EventBody::Message(m) if m.text.chars().count() > 12 => {
                Some((e.seq, m.text.clone()))
            }
            _ => None,
        })
        .unwrap();
    let quoted: String = text.chars().skip(2).take(10).collect();
    let mut notes = NotesFile::open(notes_path(&path)).unwrap();
    let draft = Draft {
        episode: episode.id().to_string(),
        target_seq: seq,
        span: Some(Span { start: 2, end: 12 }),
        label: Label::Leak,
        note: "reviewer says so".into(),
    };
    notes.add(draft, "ann").unwrap();

    let export = |format: Format| {
        let mut out = Vec::new();
        export_to(
            std::slice::from_ref(&path),
            format,
            None,
            false,
            &converse_tui::core::dataset::TaskLookup::default(),
            &mut out,
        )
        .unwrap();
        String::from_utf8(out).unwrap()
    };
    let markdown = export(Format::Markdown);
    assert!(markdown.contains("## Annotations"), "{markdown}");
    assert!(markdown.contains(&format!("on event {seq} — ann")), "{markdown}");
    assert!(markdown.contains("reviewer says so"));
    let html = export(Format::Html);
    assert!(html.contains("reviewer says so") && html.contains("class=\"quote\""), "{html}");
    let report: serde_json::Value = serde_json::from_str(export(Format::Maseval).trim()).unwrap();
    let a = &report["annotations"][0];
    assert_eq!((a["target_seq"].as_u64(), a["label"].as_str()), (Some(seq), Some("leak")));
    assert_eq!(a["quote"].as_str(), Some(quoted.as_str()));
    assert_eq!(a["note"], "reviewer says so");
}
