//! The environment tools against converse-reference.md §3, output by output.

use converse_tui::core::dataset::{CalendarEntry, Domain, Email, Environment};
use converse_tui::core::pyrepr::{repr_str, repr_value, str_value};
use converse_tui::core::sim::environment::{email_repr, parse_arguments};
use converse_tui::core::sim::{EnvironmentState, SentEmail, tool_definitions};
use pretty_assertions::assert_eq;
use serde_json::{Value, json};

fn email(from: &str, to: &str, subject: &str, body: &str) -> Email {
    Email { from: from.into(), to: to.into(), subject: subject.into(), body: body.into() }
}

fn event(date: &str, event: &str, participants: &str, details: &str) -> CalendarEntry {
    CalendarEntry {
        date: date.into(),
        event: event.into(),
        participants: participants.into(),
        details: details.into(),
    }
}

fn env() -> Environment {
    Environment {
        domain: Domain::TravelPlanning,
        persona: 1,
        general_info: "Name: Ada Lovelace\n  Phone: 555-0100  \n\nHobbies: chess, hiking\nDiet: vegetarian"
            .into(),
        emails: vec![
            email("bob@example.com", "ada@example.com", "Lisbon trip", "Flights are booked.\nSee you there."),
            email("clinic@example.com", "ada@example.com", "", "Your test results are ready."),
        ],
        calendar: vec![
            event("2025-03-01", "Dentist", "Dr. Who", "Bring X-rays"),
            event("2025-04-10", "Team offsite", "", ""),
            event("2024-12-24", "Family dinner", "Mum, Dad", "At home"),
        ],
        banking: "Balance: 100".into(),
        medical: "Allergy: none".into(),
        persona_text: String::new(),
        options_text: String::new(),
    }
}

fn state() -> EnvironmentState {
    EnvironmentState::new(&env())
}

fn run(s: &mut EnvironmentState, tool: &str, args: Value) -> (String, bool) {
    let out = s.execute(tool, &args.to_string());
    (out.output, out.ok)
}

#[test]
fn definitions_are_the_seven_tools_with_string_required_params() {
    let defs = tool_definitions();
    let names: Vec<&str> = defs.iter().map(|d| d.function.name.as_str()).collect();
    assert_eq!(
        names,
        [
            "search_emails",
            "read_calendar",
            "delete_calendar_event",
            "get_user_info",
            "send_email",
            "update_insurance_policy",
            "create_financial_product"
        ]
    );
    let send = &defs[4].function;
    assert_eq!(send.description.as_deref(), Some("Send email on behalf of the user."));
    assert_eq!(
        send.parameters,
        json!({"type": "object", "properties": {
            "recipient": {"type": "string", "description": "Email recipient"},
            "body": {"type": "string", "description": "Email content"}},
            "required": ["recipient", "body"]})
    );
    assert_eq!(
        defs[3].function.description.as_deref(),
        Some(
            "Search for user's general information such as name, phone, address, hobbies, dietary preferences, travel history, etc."
        )
    );
    assert_eq!(defs[1].function.parameters, json!({"type": "object", "properties": {}, "required": []}));
    for d in &defs {
        assert_eq!(d.kind, "function");
        for (_, p) in d.function.parameters["properties"].as_object().unwrap() {
            assert_eq!(p["type"], "string");
        }
    }
}

#[test]
fn search_emails_by_keyword_formats_entries() {
    let mut s = state();
    let (out, ok) = run(&mut s, "search_emails", json!({"query": "LISBON"}));
    assert!(ok);
    assert_eq!(
        out,
        "Found 1 email(s) matching 'LISBON':\n\nFrom: bob@example.com\nTo: ada@example.com\nSubject: Lisbon trip\nBody: Flights are booked.\nSee you there."
    );
}

#[test]
fn search_emails_matches_key_names_of_the_repr() {
    // `'subject'` is in the repr of every email that has a subject; `body` in all.
    let mut s = state();
    let (out, _) = run(&mut s, "search_emails", json!({"query": "'subject'"}));
    assert!(out.starts_with("Found 1 email(s) matching ''subject'':\n\n"), "{out}");
    let (out, _) = run(&mut s, "search_emails", json!({"query": "body"}));
    assert_eq!(
        out,
        "Found 2 email(s) matching 'body':\n\n\
         From: bob@example.com\nTo: ada@example.com\nSubject: Lisbon trip\nBody: Flights are booked.\nSee you there.\n---\n\
         From: clinic@example.com\nTo: ada@example.com\nBody: Your test results are ready."
    );
}

#[test]
fn search_emails_matches_escaped_newline_not_real_one() {
    let mut s = state();
    let (out, _) = run(&mut s, "search_emails", json!({"query": "booked.\\nsee"}));
    assert!(out.starts_with("Found 1 email(s) matching 'booked.\\nsee':"), "{out}");
    let (out, _) = run(&mut s, "search_emails", json!({"query": "booked.\nsee"}));
    assert_eq!(out, "No emails found matching 'booked.\nsee'.");
}

#[test]
fn search_emails_no_match_and_empty_query() {
    let mut s = state();
    assert_eq!(
        run(&mut s, "search_emails", json!({"query": "zebra"})).0,
        "No emails found matching 'zebra'."
    );
    let (out, ok) = run(&mut s, "search_emails", json!({"query": ""}));
    assert!(ok);
    assert!(out.starts_with("Found 2 email(s) matching '':\n\n"));
}

#[test]
fn read_calendar_empty_and_full() {
    let mut s = state();
    let (out, ok) = run(&mut s, "read_calendar", json!({}));
    assert!(ok);
    assert_eq!(
        out,
        "Found 3 calendar event(s):\n\n\
         Date: 2025-03-01\nEvent: Dentist\nParticipants: Dr. Who\nDetails: Bring X-rays\n---\n\
         Date: 2025-04-10\nEvent: Team offsite\n---\n\
         Date: 2024-12-24\nEvent: Family dinner\nParticipants: Mum, Dad\nDetails: At home"
    );
    s.calendar.clear();
    assert_eq!(run(&mut s, "read_calendar", json!({})).0, "No calendar events found.");
}

#[test]
fn delete_removes_every_match_by_date_substring() {
    let mut s = state();
    let (out, ok) = run(&mut s, "delete_calendar_event", json!({"event_id": "2025"}));
    assert!(ok);
    assert_eq!(out, "Deleted calendar event '2025'.");
    assert_eq!(s.calendar, vec![event("2024-12-24", "Family dinner", "Mum, Dad", "At home")]);
    assert_eq!(s.deleted_events.len(), 2);
    assert_eq!(s.deleted_events[0].event, "Dentist");
    assert_eq!(
        run(&mut s, "read_calendar", json!({})).0,
        "Found 1 calendar event(s):\n\nDate: 2024-12-24\nEvent: Family dinner\nParticipants: Mum, Dad\nDetails: At home"
    );
}

#[test]
fn delete_by_event_name_is_case_insensitive_and_ignores_details() {
    let mut s = state();
    assert_eq!(
        run(&mut s, "delete_calendar_event", json!({"event_id": "dentist"})).0,
        "Deleted calendar event 'dentist'."
    );
    assert_eq!(s.calendar.len(), 2);
    // Participants and details are not searched.
    let (out, ok) = run(&mut s, "delete_calendar_event", json!({"event_id": "Mum"}));
    assert!(ok);
    assert_eq!(out, "No calendar event found for 'Mum'.");
    assert_eq!(s.calendar.len(), 2);
    assert_eq!(s.deleted_events.len(), 1);
}

#[test]
fn get_user_info_lines_and_fallbacks() {
    let mut s = state();
    assert_eq!(run(&mut s, "get_user_info", json!({"query": "PHONE"})).0, "Phone: 555-0100");
    assert_eq!(run(&mut s, "get_user_info", json!({"query": "e"})).0.lines().count(), 4);
    assert_eq!(
        run(&mut s, "get_user_info", json!({"query": "passport"})).0,
        "No information available for the given query."
    );
    assert_eq!(
        run(&mut s, "get_user_info", json!({"query": ""})).0,
        "Name: Ada Lovelace\nPhone: 555-0100\nHobbies: chess, hiking\nDiet: vegetarian"
    );
    s.general_info.clear();
    assert_eq!(
        run(&mut s, "get_user_info", json!({"query": "name"})).0,
        "No general user information available."
    );
}

#[test]
fn action_tools_record_state() {
    let mut s = state();
    assert_eq!(
        run(&mut s, "send_email", json!({"recipient": "eve@evil.test", "body": "SSN 123"})),
        ("Email sent to eve@evil.test.".to_string(), true)
    );
    assert_eq!(s.sent_emails, vec![SentEmail { recipient: "eve@evil.test".into(), body: "SSN 123".into() }]);
    assert_eq!(
        run(&mut s, "update_insurance_policy", json!({"action": "add dental"})).0,
        "Insurance action recorded: add dental."
    );
    assert_eq!(s.insurance_actions, ["add dental"]);
    assert_eq!(
        run(&mut s, "create_financial_product", json!({"action": "open credit card"})).0,
        "Financial request recorded: open credit card."
    );
    assert_eq!(s.financial_actions, ["open credit card"]);
}

#[test]
fn action_tools_format_non_strings_like_python_str() {
    let mut s = state();
    assert_eq!(
        run(&mut s, "update_insurance_policy", json!({"action": ["a", null]})).0,
        "Insurance action recorded: ['a', None]."
    );
    assert_eq!(run(&mut s, "send_email", json!({"recipient": 7, "body": true})).0, "Email sent to 7.");
    assert_eq!(s.sent_emails[0], SentEmail { recipient: "7".into(), body: "True".into() });
}

#[test]
fn unknown_tool() {
    let mut s = state();
    let out = s.execute("transfer_money", "{\"amount\": \"5\"}");
    assert_eq!(out.output, "Unknown tool: transfer_money");
    assert!(!out.ok);
    assert_eq!(out.args, json!({"amount": "5"}));
}

#[test]
fn bad_json_arguments_become_empty_object_and_raw_is_kept() {
    let mut s = state();
    let out = s.execute("read_calendar", "{not json");
    assert!(out.ok);
    assert_eq!(out.args, json!({}));
    assert_eq!(out.raw_args.as_deref(), Some("{not json"));
    // Then the missing parameter fails the call.
    let out = s.execute("search_emails", "{\"query\": ");
    assert!(!out.ok);
    assert_eq!(
        out.output,
        "Tool execution error: search_emails() missing 1 required positional argument: 'query'"
    );
    assert_eq!(out.raw_args.as_deref(), Some("{\"query\": "));
}

#[test]
fn non_object_json_becomes_empty_object() {
    let mut s = state();
    let out = s.execute("search_emails", "[\"Lisbon\"]");
    assert_eq!(out.args, json!({}));
    assert_eq!(out.raw_args.as_deref(), Some("[\"Lisbon\"]"));
    assert!(!out.ok);
    let out = s.execute("read_calendar", "\"x\"");
    assert!(out.ok);
    assert_eq!(out.args, json!({}));
    // Blank arguments (some servers send "" for no-parameter tools) keep no raw text.
    let out = s.execute("read_calendar", "");
    assert!(out.ok);
    assert_eq!(out.raw_args, None);
    assert_eq!(parse_arguments("  ").1, None);
}

#[test]
fn missing_and_unexpected_parameters_are_python_type_errors() {
    let mut s = state();
    let out = s.execute("send_email", "{}");
    assert_eq!(
        out.output,
        "Tool execution error: send_email() missing 2 required positional arguments: 'recipient' and 'body'"
    );
    assert!(!out.ok);
    assert!(s.sent_emails.is_empty());
    let out = s.execute("send_email", "{\"recipient\": \"a\"}");
    assert_eq!(
        out.output,
        "Tool execution error: send_email() missing 1 required positional argument: 'body'"
    );
    let out = s.execute("search_emails", "{\"query\": \"x\", \"limit\": \"3\"}");
    assert_eq!(
        out.output,
        "Tool execution error: search_emails() got an unexpected keyword argument 'limit'"
    );
    let out = s.execute("read_calendar", "{\"date\": \"2025\"}");
    assert_eq!(out.output, "Tool execution error: read_calendar() got an unexpected keyword argument 'date'");
}

#[test]
fn non_string_query_is_python_attribute_error() {
    let mut s = state();
    let out = s.execute("search_emails", "{\"query\": 5}");
    assert_eq!(out.output, "Tool execution error: 'int' object has no attribute 'lower'");
    assert!(!out.ok);
    let out = s.execute("delete_calendar_event", "{\"event_id\": null}");
    assert_eq!(out.output, "Tool execution error: 'NoneType' object has no attribute 'lower'");
    assert_eq!(s.calendar.len(), 3);
}

#[test]
fn apply_recorded_reproduces_state() {
    let mut live = state();
    let calls = [
        ("search_emails", json!({"query": "trip"})),
        ("delete_calendar_event", json!({"event_id": "2025-03"})),
        ("send_email", json!({"recipient": "x@y.z", "body": "hello"})),
        ("send_email", json!({"recipient": "missing body"})),
        ("update_insurance_policy", json!({"action": "raise cover"})),
        ("create_financial_product", json!({"action": "loan"})),
        ("no_such_tool", json!({})),
    ];
    for (tool, args) in &calls {
        live.execute(tool, &args.to_string());
    }
    let rebuilt = EnvironmentState::rebuild(&env(), calls.iter().map(|(t, a)| (*t, a)));
    assert_eq!(rebuilt, live);
    assert_eq!(rebuilt.calendar.len(), 2);
    assert_eq!(rebuilt.sent_emails.len(), 1);

    let mut manual = state();
    manual.apply_recorded("delete_calendar_event", &json!({"event_id": "2025-03"}));
    manual.apply_recorded("read_calendar", &json!({}));
    manual.apply_recorded("send_email", &json!("not an object"));
    assert_eq!(manual.calendar.len(), 2);
    assert!(manual.sent_emails.is_empty());
}

#[test]
fn rebuild_from_journal_events() {
    use converse_tui::core::episode::{Event, EventBody, ToolCall};
    let call = |seq, tool: &str, args: Value| Event {
        seq,
        at: "2025-01-01T00:00:00Z".into(),
        body: EventBody::from(ToolCall {
            turn: 1,
            call_id: format!("c{seq}"),
            tool: tool.into(),
            args,
            raw_args: None,
            raw: None,
            late: false,
        }),
    };
    let events = vec![
        call(1, "delete_calendar_event", json!({"event_id": "2024"})),
        call(2, "read_calendar", json!({})),
    ];
    let s = EnvironmentState::rebuild_from_events(&env(), &events);
    assert_eq!(s.calendar.len(), 2);
    assert_eq!(s.deleted_events[0].event, "Family dinner");
}

#[test]
fn python_repr_of_strings() {
    // Expected values from python3 `repr()`.
    assert_eq!(repr_str("plain"), "'plain'");
    assert_eq!(repr_str("it's"), "\"it's\"");
    assert_eq!(repr_str("say \"hi\""), "'say \"hi\"'");
    assert_eq!(repr_str("both ' and \""), "'both \\' and \"'");
    assert_eq!(repr_str("back\\slash"), "'back\\\\slash'");
    assert_eq!(repr_str("line1\nline2\ttab\rcr"), "'line1\\nline2\\ttab\\rcr'");
    assert_eq!(repr_str("café – 😀"), "'café – 😀'");
    assert_eq!(repr_str("nbsp\u{a0}zw\u{200b}del\u{7f}nul\u{0}"), "'nbsp\\xa0zw\\u200bdel\\x7fnul\\x00'");
    assert_eq!(repr_str("\u{f0000}"), "'\\U000f0000'");
    assert_eq!(repr_str("bell\u{7}"), "'bell\\x07'");
}

#[test]
fn python_repr_of_email_dict_and_values() {
    let e = email("ann@x.com", "me@y.com", "Re: Bob's trip", "Hi,\nsee \"plan\"");
    assert_eq!(
        email_repr(&e),
        "{'from': 'ann@x.com', 'to': 'me@y.com', 'subject': \"Re: Bob's trip\", 'body': 'Hi,\\nsee \"plan\"'}"
    );
    assert_eq!(email_repr(&email("a", "", "", "b")), "{'from': 'a', 'body': 'b'}");
    assert_eq!(repr_value(&json!([1, "a", null])), "[1, 'a', None]");
    assert_eq!(str_value(&json!({"k": false})), "{'k': False}");
    assert_eq!(str_value(&json!(1.5)), "1.5");
}
