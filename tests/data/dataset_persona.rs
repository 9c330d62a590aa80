//! Persona text parsing (reference §1.5), including the two fixed gotchas.

use converse_tui::core::dataset::{CalendarEntry, Email, PersonaData, parse_persona_text};
use pretty_assertions::assert_eq;

#[test]
fn empty_text_gives_all_fields_empty() {
    assert_eq!(parse_persona_text(""), PersonaData::default());
    assert_eq!(parse_persona_text("  \n\t\n"), PersonaData::default());
}

#[test]
fn without_toolkits_only_general_info() {
    let text = "Name: A\n1) Emails:\nFrom: x\nTo: y\n";
    let p = parse_persona_text(text);
    assert_eq!(p.general_info, text.trim());
    assert!(p.emails.is_empty() && p.calendar.is_empty());
    assert_eq!(p.banking, "");
    assert_eq!(p.medical, "");
    assert_eq!(p.raw_text, text);
}

#[test]
fn indented_toolkits_line_is_not_the_split() {
    let p = parse_persona_text("Name: A\n  Toolkits:\n1) Banking:\nacc 1\n");
    assert_eq!(p.banking, "");
    assert!(p.general_info.contains("Toolkits:"));
}

const FULL: &str = "\
Name: Jo Doe
Phone: 555

Toolkits:   
1) Emails:
From: a@x.example
To: jo@x.example
Subject: Hello
 there
Body: line one
line two

**From:** b@x.example
**To:** jo@x.example
**Subject:** Bold
**Body:** bold body
2) Calendar
Date: 2025-01-02
Event: Dentist
Participants: Jo
Details: 10:00
room 4

Date: 2025-01-03
Event: Party
3) Medical/insurance data:
Allergy: cats
4) Banking:
Acc 123
5) Social media:
@jo
";

#[test]
fn sections_are_routed_by_name() {
    let p = parse_persona_text(FULL);
    assert_eq!(p.general_info, "Name: Jo Doe\nPhone: 555");
    assert_eq!(
        p.emails,
        vec![
            Email {
                from: "a@x.example".into(),
                to: "jo@x.example".into(),
                subject: "Hello\n there".into(),
                body: "line one\nline two".into(),
            },
            Email {
                from: "b@x.example".into(),
                to: "jo@x.example".into(),
                subject: "Bold".into(),
                body: "bold body".into(),
            },
        ]
    );
    assert_eq!(
        p.calendar,
        vec![
            CalendarEntry {
                date: "2025-01-02".into(),
                event: "Dentist".into(),
                participants: "Jo".into(),
                details: "10:00\nroom 4".into(),
            },
            CalendarEntry {
                date: "2025-01-03".into(),
                event: "Party".into(),
                participants: String::new(),
                details: String::new(),
            },
        ]
    );
    assert_eq!(p.medical, "Allergy: cats");
    // The unknown, in-sequence `5) Social media:` section ends banking and is dropped.
    assert_eq!(p.banking, "Acc 123");
}

#[test]
fn later_section_of_same_kind_wins() {
    let p = parse_persona_text("Toolkits:\n1) Banking:\nold\n2) Bank accounts:\nnew\n");
    assert_eq!(p.banking, "new");
}

#[test]
fn crlf_line_endings() {
    let p = parse_persona_text("Me\r\nToolkits:\r\n1) Emails:\r\nFrom: a\r\nTo: b\r\nBody: c\r\n");
    assert_eq!(p.emails.len(), 1);
    assert_eq!(p.emails[0].to, "b");
    assert_eq!(p.emails[0].body, "c");
}

/// Gotcha 1 (fixed): MASEval cuts the email section at `1) flights…` and loses
/// the rest of the body and every later email. We keep numbered lists in bodies.
#[test]
fn numbered_list_in_email_body_stays_in_the_body() {
    let text = "\
Toolkits:
1) Emails:
From: a
To: b
Subject: Plan
Body: To do:
1) flights
2) hotel
3) Banking stuff is done
Thanks

From: c
To: d
Subject: Second
Body: ok
2) Calendar:
Date: 2025-05-05
Event: Trip
";
    let p = parse_persona_text(text);
    assert_eq!(p.emails.len(), 2);
    assert_eq!(p.emails[0].body, "To do:\n1) flights\n2) hotel\n3) Banking stuff is done\nThanks");
    assert_eq!(p.emails[1].subject, "Second");
    assert_eq!(p.calendar.len(), 1);
    assert_eq!(p.banking, "");
}

#[test]
fn out_of_sequence_known_header_is_body_text() {
    let p = parse_persona_text("Toolkits:\n1) Emails:\nFrom: a\nBody: x\n3) Bank it\n2) Banking:\nacc\n");
    assert_eq!(p.emails[0].body, "x\n3) Bank it");
    assert_eq!(p.banking, "acc");
}

/// Gotcha 2 (fixed): MASEval reads `Reply-To:` as `To:`. Labels count only at
/// the start of a line, and header fields only above `Body:`.
#[test]
fn reply_to_is_not_to() {
    let text = "\
Toolkits:
1) Emails:
From: doctor@clinic.example
Reply-To: desk@clinic.example
To: me@x.example
Subject: Re: To: whom it may concern
Body: To: nobody
";
    let p = parse_persona_text(text);
    assert_eq!(p.emails.len(), 1);
    let e = &p.emails[0];
    assert_eq!(e.to, "me@x.example");
    // The Reply-To line is not a field label, so it continues the From value,
    // as it does in MASEval.
    assert_eq!(e.from, "doctor@clinic.example\nReply-To: desk@clinic.example");
    assert_eq!(e.subject, "Re: To: whom it may concern");
    assert_eq!(e.body, "To: nobody");
}

#[test]
fn email_without_to_does_not_take_one_from_the_body() {
    let p = parse_persona_text("Toolkits:\n1) Emails:\nFrom: a\nBody: hi\nTo: someone\n");
    assert_eq!(p.emails[0].to, "");
    assert_eq!(p.emails[0].body, "hi\nTo: someone");
}

#[test]
fn text_before_first_email_without_fields_is_dropped() {
    let p = parse_persona_text("Toolkits:\n1) Emails:\nsome intro\n\nFrom: a\nTo: b\n");
    assert_eq!(p.emails.len(), 1);
    assert_eq!(p.emails[0].from, "a");
}

/// The three shapes of the real personas (a deliberate departure from MASEval,
/// whose parser reads only the first): every one of the 12 gives its emails
/// and calendar entries. The counts were established independently, with a
/// Python script that counts `From:` lines in the email section and `Date:`
/// lines in the calendar section (bullets `- ` and `**` bold allowed).
#[test]
fn every_real_persona_gives_its_emails_and_calendar() {
    let expected = [
        ("travel_planning", 1, 5, 8), // `Toolkits:`, `1) Emails:`
        ("travel_planning", 2, 4, 4), // `Toolkits:`, `1. Emails:`, `- From:` bullets
        ("travel_planning", 3, 4, 4),
        ("travel_planning", 4, 4, 4),
        ("insurance", 1, 6, 8), // no `Toolkits:`, `### 1) Emails:`, `**From:**`
        ("insurance", 2, 6, 8),
        ("insurance", 3, 6, 8),
        ("insurance", 4, 6, 8),
        ("real_estate", 1, 5, 8), // `## Toolkits:`, `### 1) Emails:`
        ("real_estate", 2, 5, 7),
        ("real_estate", 3, 5, 7),
        ("real_estate", 4, 5, 7),
    ];
    let root = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fixtures/converse-dataset/resources");
    for (domain, n, emails, calendar) in expected {
        let path = format!("{root}/{domain}_usecase/env_persona{n}.txt");
        let p = parse_persona_text(&std::fs::read_to_string(&path).unwrap());
        let what = format!("{domain} persona {n}");
        assert_eq!((p.emails.len(), p.calendar.len()), (emails, calendar), "{what}");
        for e in &p.emails {
            assert!(!e.from.is_empty() && !e.to.is_empty() && !e.body.is_empty(), "{what}: {e:?}");
            assert!(!e.body.ends_with("---") && !e.body.contains("**To:**"), "{what}: {e:?}");
        }
        for c in &p.calendar {
            assert!(!c.date.is_empty() && !c.event.is_empty(), "{what}: {c:?}");
            assert!(!c.details.ends_with("---"), "{what}: {c:?}");
        }
        assert!(!p.banking.is_empty() && !p.medical.is_empty(), "{what}: banking and medical");
        assert!(!p.general_info.contains("Emails:"), "{what}: general info ends before the toolkits");
    }
}

/// Insurance persona 2 has a numbered list (`1. Medical insurance …`,
/// `2. Emergency evacuation …`) inside an email body: in a `### 1)` persona it
/// is body text, not a section.
#[test]
fn numbered_list_of_other_shape_stays_in_the_body() {
    let text = "\
Name: A

### 1) Emails:

**From:** a
**To:** b
**Body:**
Needs:
1. Medical insurance covering sports injuries
2. Emergency evacuation coverage
2. Calendar:

---

### 2) Calendar:

**Date:** May 1
**Event:** Climb
";
    let p = parse_persona_text(text);
    assert_eq!(p.general_info, "Name: A");
    assert_eq!(
        p.emails[0].body,
        "Needs:\n1. Medical insurance covering sports injuries\n2. Emergency evacuation coverage\n2. Calendar:"
    );
    assert_eq!(p.calendar.len(), 1);
    assert_eq!(p.calendar[0].event, "Climb");
}
