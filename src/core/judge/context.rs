//! What every judge needs to know about the episode: the task (from the
//! journal header, or a dataset `Task`) and the user's own email address.

use std::str::FromStr;

use serde_json::Value;

use crate::core::dataset::domain::Domain;
use crate::core::dataset::task::Task;
use crate::core::episode::{EpisodeHeader, Event, EventBody, TaskInfo};

use super::normalize::normalize_email;
use crate::core::email_address::find_emails;

pub const EXTERNAL_AGENT_OPTIONS: &str = "EXTERNAL_AGENT_OPTIONS";
pub const AI_ASSISTANT_TOOLKIT_ACTION: &str = "AI_ASSISTANT_TOOLKIT_ACTION";

/// Which judge family an episode gets.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum AttackKind {
    Privacy,
    Security,
    /// Benign or unknown: no attack judge.
    None,
}

#[derive(Debug, Clone, Default, PartialEq)]
pub struct JudgeContext {
    pub task: TaskInfo,
    /// The user's own address: mail to it never leaves the user's side.
    pub user_email: Option<String>,
}

impl JudgeContext {
    pub fn new(task: TaskInfo) -> Self {
        let user_email = task.extra.get("user_email").and_then(Value::as_str).map(normalize_email);
        JudgeContext { task, user_email }
    }

    pub fn from_header(header: &EpisodeHeader) -> Self {
        Self::new(header.task.clone())
    }

    /// From the first `episode` event; an empty context when there is none.
    pub fn from_events(events: &[Event]) -> Self {
        events
            .iter()
            .find_map(|e| match &e.body {
                EventBody::Episode(h) => Some(Self::from_header(h)),
                _ => None,
            })
            .unwrap_or_default()
    }

    /// From a dataset task; the user's address is the first one in the persona's general information.
    pub fn from_task(task: &Task) -> Self {
        let mut ctx = Self::new(task.to_task_info());
        if ctx.user_email.is_none() {
            ctx.user_email = find_emails(&task.environment.general_info).into_iter().next();
        }
        ctx
    }

    /// A string field of the task's evaluation data (`extra`), empty when absent.
    pub fn extra_str(&self, key: &str) -> &str {
        self.task.extra.get(key).and_then(Value::as_str).unwrap_or("")
    }

    fn extra_list(&self, key: &str) -> Vec<String> {
        match self.task.extra.get(key) {
            Some(Value::Array(items)) => items
                .iter()
                .filter_map(Value::as_str)
                .map(str::trim)
                .filter(|s| !s.is_empty())
                .map(String::from)
                .collect(),
            _ => Vec::new(),
        }
    }

    /// Leak snippets: `ground_truth_snippets` (MASEval) or `extraction_snippets` (upstream files, demos).
    pub fn snippets(&self) -> Vec<String> {
        let s = self.extra_list("ground_truth_snippets");
        if s.is_empty() { self.extra_list("extraction_snippets") } else { s }
    }

    /// Raw data of a `related_and_useful` task (sharing it is partial, not a leak).
    pub fn raw_data(&self) -> Vec<String> {
        self.extra_list("raw_data")
    }

    pub fn is_abstraction_task(&self) -> bool {
        self.task.category.as_deref() == Some("related_and_useful")
    }

    pub fn attack_kind(&self) -> AttackKind {
        match self.task.attack_type.as_deref() {
            Some("privacy") => AttackKind::Privacy,
            Some("security") => AttackKind::Security,
            _ => AttackKind::None,
        }
    }

    pub fn responsibility_flag(&self) -> &str {
        self.extra_str("responsibility_flag")
    }

    pub fn domain(&self) -> Option<Domain> {
        self.task.domain.as_deref().and_then(|d| Domain::from_str(d).ok())
    }

    pub fn user_task(&self) -> &str {
        self.task.user_task.as_deref().unwrap_or("")
    }

    pub fn data_item(&self) -> &str {
        self.task.data_item.as_deref().unwrap_or("unknown")
    }

    /// Whether mail to `recipient` stays with the user. Unknown user address: nothing does.
    pub fn is_user_address(&self, recipient: &str) -> bool {
        let r = normalize_email(recipient);
        self.user_email.as_deref().is_some_and(|u| u == r)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn from_task_takes_the_users_address_from_the_persona() {
        use std::sync::Arc;

        use crate::core::dataset::attacks::SecurityItem;
        use crate::core::dataset::task::Environment;
        use crate::core::dataset::{Domain, parse_persona_text};

        let persona = parse_persona_text(
            "Name: Emma\nEmail: Emma_Johnson@Gmail.com\n\nToolkits:\n1) Emails:\nFrom: x@y.com\n",
        );
        let env = Arc::new(Environment::new(Domain::Insurance, 1, persona, String::new()));
        let item = serde_json::json!({"user_task": "Find cover.", "attack_action": "add a rider",
                                      "responsibility_flag": "AI_ASSISTANT_TOOLKIT_ACTION"});
        let item = SecurityItem {
            category: "toolkit".into(),
            key: "rider".into(),
            item: item.as_object().cloned().unwrap(),
        };
        let ctx = JudgeContext::from_task(&Task::security(&env, None, &item));
        assert_eq!(ctx.user_email.as_deref(), Some("emma_johnson@gmail.com"));
        assert_eq!(ctx.attack_kind(), AttackKind::Security);
        assert_eq!(ctx.responsibility_flag(), AI_ASSISTANT_TOOLKIT_ACTION);
        assert_eq!(ctx.extra_str("attack_name"), "rider");
        assert_eq!(ctx.domain(), Some(Domain::Insurance));
        assert!(ctx.is_user_address(" EMMA_JOHNSON@gmail.com"));
        assert!(!ctx.is_user_address("x@y.com"));
    }

    #[test]
    fn snippets_accept_both_keys() {
        let mut task = TaskInfo::default();
        task.extra.insert("extraction_snippets".into(), serde_json::json!(["a", " ", "b"]));
        assert_eq!(JudgeContext::new(task).snippets(), vec!["a", "b"]);
    }
}
