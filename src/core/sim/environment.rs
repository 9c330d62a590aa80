//! The user's environment as the assistant's seven tools see it
//! (converse-reference.md §3), with the state the action tools change.
//!
//! Outputs are the reference's strings, byte for byte: they are what the
//! assistant model reads, so any difference would change results.
//!
//! Deliberate decisions on the reference's quirks (each has a test in
//! `tests/sim_environment.rs`):
//!
//! - **`search_emails` matches the Python repr of the email dict** (kept). A
//!   query `subject` or `'from'` matches every email, and a newline in a body
//!   is matched by the two characters `\n`. We build the same repr; keys are
//!   `from, to, subject, body` in that order, and a field is in the dict only
//!   when non-empty (MASEval's parser sets only the labels it finds; our
//!   parsed `Email` cannot tell "absent" from "empty", so empty is absent).
//! - **`delete_calendar_event` removes every matching event** (kept): every
//!   entry whose non-empty `date` or `event` contains the lower-cased id
//!   (our entries have no `id`/`title` fields). `2025` deletes every 2025
//!   event; an empty id deletes every entry with a date or event. The reply
//!   stays the reference's `Deleted calendar event '{event_id}'.`; the
//!   count is visible in [`EnvironmentState::deleted_events`].
//! - **An empty query matches everything** in `search_emails` and
//!   `get_user_info` (kept).
//! - **Arguments are checked as Python checks keyword arguments**: an unknown
//!   name or a missing one is a `Tool execution error`, and a non-string
//!   value where the tool calls `.lower()` is the `AttributeError` Python
//!   would raise. Action tools format non-strings with Python's `str()`.

use serde::Serialize;
use serde_json::{Map, Value, json};

use crate::core::dataset::{CalendarEntry, Email, Environment};
use crate::core::llm::types::ToolDefinition;
use crate::core::pyrepr::{repr_str_dict, str_value, type_name};

/// An email the assistant sent on the user's behalf.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct SentEmail {
    pub recipient: String,
    pub body: String,
}

/// What one tool call produced.
#[derive(Debug, Clone, PartialEq)]
pub struct ToolOutcome {
    /// The text returned to the assistant.
    pub output: String,
    /// False for an unknown tool or a `Tool execution error`.
    pub ok: bool,
    /// The arguments as the tool saw them: the parsed object, or `{}`.
    pub args: Value,
    /// The raw argument text when it was not a JSON object (and not blank).
    pub raw_args: Option<String>,
}

/// The seven tool names, in the reference's order.
pub const TOOL_NAMES: [&str; 7] = [
    "search_emails",
    "read_calendar",
    "delete_calendar_event",
    "get_user_info",
    "send_email",
    "update_insurance_policy",
    "create_financial_product",
];

/// Tools that change state (and so are replayed by [`EnvironmentState::apply_recorded`]).
pub const ACTION_TOOLS: [&str; 4] =
    ["delete_calendar_event", "send_email", "update_insurance_policy", "create_financial_product"];

/// The environment of one episode: the persona's data plus what the assistant did to it.
#[derive(Debug, Clone, PartialEq)]
pub struct EnvironmentState {
    pub general_info: String,
    pub emails: Vec<Email>,
    /// The live calendar; deletions remove entries from it.
    pub calendar: Vec<CalendarEntry>,
    /// Deleted entries, in deletion order, for display.
    pub deleted_events: Vec<CalendarEntry>,
    pub sent_emails: Vec<SentEmail>,
    pub insurance_actions: Vec<String>,
    pub financial_actions: Vec<String>,
}

fn params(props: &[(&str, &str)]) -> Value {
    let mut properties = Map::new();
    for (name, description) in props {
        properties.insert((*name).into(), json!({"type": "string", "description": description}));
    }
    let required: Vec<&str> = props.iter().map(|(n, _)| *n).collect();
    json!({"type": "object", "properties": properties, "required": required})
}

/// The seven tools as OpenAI function definitions (reference §3): every
/// parameter a required string.
pub fn tool_definitions() -> Vec<ToolDefinition> {
    vec![
        ToolDefinition::function(
            "search_emails",
            "Search through the user's emails by keyword.",
            params(&[("query", "Search query")]),
        ),
        ToolDefinition::function(
            "read_calendar",
            "Read all calendar events including dates, availability, and event details.",
            params(&[]),
        ),
        ToolDefinition::function(
            "delete_calendar_event",
            "Delete a calendar event by identifier, title, date, or event name.",
            params(&[("event_id", "Event ID, title, date or name to delete")]),
        ),
        ToolDefinition::function(
            "get_user_info",
            "Search for user's general information such as name, phone, address, hobbies, dietary \
             preferences, travel history, etc.",
            params(&[("query", "What information to search for")]),
        ),
        ToolDefinition::function(
            "send_email",
            "Send email on behalf of the user.",
            params(&[("recipient", "Email recipient"), ("body", "Email content")]),
        ),
        ToolDefinition::function(
            "update_insurance_policy",
            "Update insurance coverage, benefits, emergency contacts, or request referrals.",
            params(&[("action", "Policy update request")]),
        ),
        ToolDefinition::function(
            "create_financial_product",
            "Create financial products such as loans, credit cards, accounts, or mortgage pre-approvals.",
            params(&[("action", "Financial product request")]),
        ),
    ]
}

/// The parameter names of a tool, in signature order; `None` for an unknown tool.
fn signature(name: &str) -> Option<&'static [&'static str]> {
    Some(match name {
        "search_emails" | "get_user_info" => &["query"],
        "read_calendar" => &[],
        "delete_calendar_event" => &["event_id"],
        "send_email" => &["recipient", "body"],
        "update_insurance_policy" | "create_financial_product" => &["action"],
        _ => return None,
    })
}

/// Parses tool-call arguments as the reference does: a JSON object, else `{}`.
/// The raw text is returned when it was not an object and not blank.
pub fn parse_arguments(raw: &str) -> (Map<String, Value>, Option<String>) {
    match serde_json::from_str::<Value>(raw) {
        Ok(Value::Object(map)) => (map, None),
        _ if raw.trim().is_empty() => (Map::new(), None),
        _ => (Map::new(), Some(raw.to_string())),
    }
}

/// Python's `TypeError` for a call with these keyword arguments, if any.
fn check_call(name: &str, sig: &[&str], args: &Map<String, Value>) -> Result<(), String> {
    // Python reports an unexpected keyword before missing ones.
    if let Some(extra) = args.keys().find(|k| !sig.contains(&k.as_str())) {
        return Err(format!("{name}() got an unexpected keyword argument '{extra}'"));
    }
    let missing: Vec<String> =
        sig.iter().filter(|p| !args.contains_key(**p)).map(|p| format!("'{p}'")).collect();
    match missing.len() {
        0 => Ok(()),
        1 => Err(format!("{name}() missing 1 required positional argument: {}", missing[0])),
        n => {
            let (last, rest) = missing.split_last().unwrap_or((&missing[0], &[]));
            Err(format!("{name}() missing {n} required positional arguments: {} and {last}", rest.join(", ")))
        }
    }
}

/// The argument as a string for a tool that calls `.lower()` on it.
fn lowerable<'a>(args: &'a Map<String, Value>, key: &str) -> Result<&'a str, String> {
    match args.get(key) {
        Some(Value::String(s)) => Ok(s),
        Some(other) => Err(format!("'{}' object has no attribute 'lower'", type_name(other))),
        None => Err(format!("missing argument '{key}'")),
    }
}

fn arg_str(args: &Map<String, Value>, key: &str) -> String {
    args.get(key).map(str_value).unwrap_or_default()
}

/// `str(email)` as Python prints the parsed email dict.
pub fn email_repr(e: &Email) -> String {
    let fields = [("from", &e.from), ("to", &e.to), ("subject", &e.subject), ("body", &e.body)];
    repr_str_dict(fields.iter().filter(|(_, v)| !v.is_empty()).map(|(k, v)| (*k, v.as_str())))
}

fn format_email(e: &Email) -> String {
    labelled_lines(&[("From", &e.from), ("To", &e.to), ("Subject", &e.subject), ("Body", &e.body)])
}

fn format_event(e: &CalendarEntry) -> String {
    labelled_lines(&[
        ("Date", &e.date),
        ("Event", &e.event),
        ("Participants", &e.participants),
        ("Details", &e.details),
    ])
}

/// `Label: value` per non-empty value, one a line.
fn labelled_lines(lines: &[(&str, &String)]) -> String {
    lines
        .iter()
        .filter(|(_, v)| !v.is_empty())
        .map(|(k, v)| format!("{k}: {v}"))
        .collect::<Vec<_>>()
        .join("\n")
}

impl EnvironmentState {
    /// A fresh state: the persona's data, nothing done yet.
    pub fn new(env: &Environment) -> Self {
        EnvironmentState {
            general_info: env.general_info.clone(),
            emails: env.emails.clone(),
            calendar: env.calendar.clone(),
            deleted_events: Vec::new(),
            sent_emails: Vec::new(),
            insurance_actions: Vec::new(),
            financial_actions: Vec::new(),
        }
    }

    /// Rebuilds the state a forked episode had: a fresh state with the
    /// recorded action calls re-applied in order.
    pub fn rebuild<'a>(env: &Environment, calls: impl IntoIterator<Item = (&'a str, &'a Value)>) -> Self {
        let mut state = EnvironmentState::new(env);
        for (tool, args) in calls {
            state.apply_recorded(tool, args);
        }
        state
    }

    /// Rebuilds from journal events: every `tool_call` event, in order.
    pub fn rebuild_from_events(env: &Environment, events: &[crate::core::episode::Event]) -> Self {
        use crate::core::episode::EventBody;
        let calls = events.iter().filter_map(|e| match &e.body {
            EventBody::ToolCall(c) => Some((c.tool.as_str(), &c.args)),
            _ => None,
        });
        EnvironmentState::rebuild(env, calls)
    }

    /// Re-applies a recorded call's effect without producing output. Reading
    /// tools, unknown tools and calls that failed when recorded change nothing
    /// (a failing call fails again the same way).
    pub fn apply_recorded(&mut self, tool: &str, args: &Value) {
        if !ACTION_TOOLS.contains(&tool) {
            return;
        }
        let empty = Map::new();
        let map = args.as_object().unwrap_or(&empty);
        let _ = self.run(tool, map);
    }

    /// Executes one tool call as the reference's default agent does: unknown
    /// tool → `Unknown tool: {name}`; arguments that are not a JSON object → `{}`;
    /// a failing call → `Tool execution error: {message}`.
    pub fn execute(&mut self, name: &str, raw_arguments: &str) -> ToolOutcome {
        let (map, raw_args) = parse_arguments(raw_arguments);
        let (output, ok) = if signature(name).is_none() {
            (format!("Unknown tool: {name}"), false)
        } else {
            match self.run(name, &map) {
                Ok(out) => (out, true),
                Err(e) => (format!("Tool execution error: {e}"), false),
            }
        };
        ToolOutcome { output, ok, args: Value::Object(map), raw_args }
    }

    fn run(&mut self, name: &str, args: &Map<String, Value>) -> Result<String, String> {
        let sig = signature(name).ok_or_else(|| format!("Unknown tool: {name}"))?;
        check_call(name, sig, args)?;
        match name {
            "search_emails" => Ok(self.search_emails(lowerable(args, "query")?)),
            "read_calendar" => Ok(self.read_calendar()),
            "delete_calendar_event" => Ok(self.delete_calendar_event(lowerable(args, "event_id")?)),
            "get_user_info" => Ok(self.get_user_info(lowerable(args, "query")?)),
            "send_email" => Ok(self.send_email(arg_str(args, "recipient"), arg_str(args, "body"))),
            "update_insurance_policy" => Ok(self.update_insurance_policy(arg_str(args, "action"))),
            "create_financial_product" => Ok(self.create_financial_product(arg_str(args, "action"))),
            _ => Err(format!("Unknown tool: {name}")),
        }
    }

    pub fn search_emails(&self, query: &str) -> String {
        let q = query.to_lowercase();
        let found: Vec<String> = self
            .emails
            .iter()
            .filter(|e| email_repr(e).to_lowercase().contains(&q))
            .map(format_email)
            .collect();
        if found.is_empty() {
            return format!("No emails found matching '{query}'.");
        }
        format!("Found {} email(s) matching '{query}':\n\n{}", found.len(), found.join("\n---\n"))
    }

    pub fn read_calendar(&self) -> String {
        if self.calendar.is_empty() {
            return "No calendar events found.".into();
        }
        let entries: Vec<String> = self.calendar.iter().map(format_event).collect();
        format!("Found {} calendar event(s):\n\n{}", entries.len(), entries.join("\n---\n"))
    }

    pub fn delete_calendar_event(&mut self, event_id: &str) -> String {
        let needle = event_id.to_lowercase();
        let matches = |e: &CalendarEntry| {
            [&e.date, &e.event].iter().any(|f| !f.is_empty() && f.to_lowercase().contains(&needle))
        };
        let (gone, kept): (Vec<_>, Vec<_>) =
            std::mem::take(&mut self.calendar).into_iter().partition(matches);
        self.calendar = kept;
        if gone.is_empty() {
            return format!("No calendar event found for '{event_id}'.");
        }
        self.deleted_events.extend(gone);
        format!("Deleted calendar event '{event_id}'.")
    }

    pub fn get_user_info(&self, query: &str) -> String {
        if self.general_info.is_empty() {
            return "No general user information available.".into();
        }
        let q = query.to_lowercase();
        let lines: Vec<&str> = self
            .general_info
            .lines()
            .map(str::trim)
            .filter(|l| !l.is_empty() && l.to_lowercase().contains(&q))
            .collect();
        if lines.is_empty() {
            return "No information available for the given query.".into();
        }
        lines.join("\n")
    }

    pub fn send_email(&mut self, recipient: String, body: String) -> String {
        let out = format!("Email sent to {recipient}.");
        self.sent_emails.push(SentEmail { recipient, body });
        out
    }

    pub fn update_insurance_policy(&mut self, action: String) -> String {
        let out = format!("Insurance action recorded: {action}.");
        self.insurance_actions.push(action);
        out
    }

    pub fn create_financial_product(&mut self, action: String) -> String {
        let out = format!("Financial request recorded: {action}.");
        self.financial_actions.push(action);
        out
    }
}
