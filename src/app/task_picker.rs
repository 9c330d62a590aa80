//! The task picker: browse CONVERSE tasks, filter by domain / persona / split
//! and text, read what a task is about, and choose one to run.

use std::ops::Range;

use crate::core::dataset::{Domain, Evaluation, Task};
use crate::core::sanitize::inert;

use super::wrap::wrap;

#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum SplitFilter {
    #[default]
    All,
    Privacy,
    Security,
}

impl SplitFilter {
    pub fn label(self) -> &'static str {
        match self {
            SplitFilter::All => "all",
            SplitFilter::Privacy => "privacy",
            SplitFilter::Security => "security",
        }
    }
}

pub struct TaskPicker {
    /// Shared with the masker (the personas' profiles).
    pub tasks: std::sync::Arc<[Task]>,
    /// Where the tasks came from ("bundled sample …" or a directory).
    pub source: String,
    pub domain: Option<Domain>,
    pub persona: Option<u8>,
    pub split: SplitFilter,
    pub text: String,
    /// Indices into `tasks` that pass the filters.
    pub shown: Vec<usize>,
    pub selected: usize,
    /// The selected task's detail, wrapped to the detail pane.
    pub detail: String,
    pub detail_lines: Vec<Range<usize>>,
    detail_width: usize,
    pub detail_scroll: usize,
}

impl TaskPicker {
    pub fn new(tasks: Vec<Task>, source: impl Into<String>) -> Self {
        let mut picker = TaskPicker {
            tasks: tasks.into(),
            source: source.into(),
            domain: None,
            persona: None,
            split: SplitFilter::All,
            text: String::new(),
            shown: Vec::new(),
            selected: 0,
            detail: String::new(),
            detail_lines: Vec::new(),
            detail_width: 40,
            detail_scroll: 0,
        };
        picker.refilter();
        picker
    }

    pub fn selected_task(&self) -> Option<&Task> {
        self.shown.get(self.selected).map(|&i| &self.tasks[i])
    }

    pub fn cycle_domain(&mut self) {
        let next = match self.domain {
            None => Some(Domain::ALL[0]),
            Some(d) => Domain::ALL.iter().position(|x| *x == d).and_then(|i| Domain::ALL.get(i + 1).copied()),
        };
        self.domain = next;
        self.refilter();
    }

    pub fn cycle_persona(&mut self) {
        let mut personas: Vec<u8> = self.tasks.iter().map(|t| t.persona).collect();
        personas.sort_unstable();
        personas.dedup();
        self.persona = match self.persona {
            None => personas.first().copied(),
            Some(p) => personas.iter().find(|&&x| x > p).copied(),
        };
        self.refilter();
    }

    pub fn cycle_split(&mut self) {
        self.split = match self.split {
            SplitFilter::All => SplitFilter::Privacy,
            SplitFilter::Privacy => SplitFilter::Security,
            SplitFilter::Security => SplitFilter::All,
        };
        self.refilter();
    }

    pub fn set_text(&mut self, text: String) {
        self.text = text;
        self.refilter();
    }

    fn passes(&self, task: &Task) -> bool {
        let split_ok = match self.split {
            SplitFilter::All => true,
            SplitFilter::Privacy => task.attack_type == crate::core::dataset::AttackType::Privacy,
            SplitFilter::Security => task.attack_type == crate::core::dataset::AttackType::Security,
        };
        let words = self.text.to_lowercase();
        let haystack = format!("{} {} {}", task.id, task.category, task.target_label()).to_lowercase();
        split_ok
            && self.domain.is_none_or(|d| d == task.domain)
            && self.persona.is_none_or(|p| p == task.persona)
            && words.split_whitespace().all(|w| haystack.contains(w))
    }

    fn refilter(&mut self) {
        let current = self.shown.get(self.selected).copied();
        self.shown = (0..self.tasks.len()).filter(|&i| self.passes(&self.tasks[i])).collect();
        self.selected = current.and_then(|c| self.shown.iter().position(|&i| i == c)).unwrap_or(0);
        self.refresh_detail();
    }

    pub fn select_by(&mut self, delta: isize) {
        if self.shown.is_empty() {
            return;
        }
        self.selected = (self.selected as isize + delta).clamp(0, self.shown.len() as isize - 1) as usize;
        self.refresh_detail();
    }

    pub fn set_detail_width(&mut self, width: usize) {
        if width != self.detail_width {
            self.detail_width = width;
            self.detail_lines = wrap(&self.detail, width);
        }
    }

    pub fn scroll_detail(&mut self, delta: isize, viewport: usize) {
        let max = self.detail_lines.len().saturating_sub(viewport) as isize;
        self.detail_scroll = (self.detail_scroll as isize + delta).clamp(0, max.max(0)) as usize;
    }

    fn refresh_detail(&mut self) {
        self.detail = self.selected_task().map(describe).unwrap_or_default();
        self.detail_lines = wrap(&self.detail, self.detail_width);
        self.detail_scroll = 0;
    }
}

/// What a red-teamer wants to know before running a task.
fn describe(task: &Task) -> String {
    let mut out = String::new();
    let mut section = |title: &str, body: &str| {
        if !body.trim().is_empty() {
            out.push_str(&format!("── {title} ──\n{}\n\n", body.trim()));
        }
    };
    section(
        "TASK",
        &format!(
            "{}\ndomain {} · persona {} · {} · {}",
            task.id,
            task.domain,
            task.persona,
            task.attack_type.as_str(),
            task.category
        ),
    );
    section("THE USER ASKS THE ASSISTANT", &task.user_task);
    section("THE ATTACKER'S GOAL", &task.user_data.attack_goal);
    section("STRATEGY", &task.user_data.attack_strategy);
    section("RATIONALE", &task.user_data.attack_rationale);
    match &task.evaluation {
        Evaluation::PrivacyLeak { ground_truth_snippets, .. } => {
            let list: Vec<String> = ground_truth_snippets.iter().map(|s| format!("• {s}")).collect();
            section("A LEAK IS ANY OF THESE REACHING THE ATTACKER", &list.join("\n"));
        }
        Evaluation::PrivacyAbstraction { raw_data, acceptable_abstraction, .. } => {
            let list: Vec<String> = raw_data.iter().map(|s| format!("• {s}")).collect();
            section("RAW DATA THAT MUST NOT BE SHARED AS IS", &list.join("\n"));
            section("ACCEPTABLE ABSTRACTION", acceptable_abstraction);
        }
        Evaluation::Security {
            responsibility_flag, attack_action, legitimate_action, attack_name, ..
        } => {
            let who = match responsibility_flag.as_str() {
                "EXTERNAL_AGENT_OPTIONS" => {
                    "the final package (the provider's options the assistant accepts)"
                }
                "AI_ASSISTANT_TOOLKIT_ACTION" => {
                    "the assistant's tool calls (an action the user never asked for)"
                }
                _ => "the assistant's tool calls",
            };
            section(
                "THE ATTACK SUCCEEDS IF",
                &format!("{attack_name}: {attack_action}\njudged on {who} [{responsibility_flag}]"),
            );
            section("WHAT WOULD BE LEGITIMATE", legitimate_action);
        }
    }
    let env = &task.environment;
    section(
        "THE USER'S WORLD",
        &format!(
            "{} emails, {} calendar entries, medical: {}, banking: {}\n\n{}",
            env.emails.len(),
            env.calendar.len(),
            if env.medical.is_empty() { "none" } else { "yes" },
            if env.banking.is_empty() { "none" } else { "yes" },
            env.general_info
        ),
    );
    if let Some(ratings) = &task.ratings {
        let n = ratings.as_object().map_or(0, |m| m.len());
        section("RATINGS", &format!("ground-truth utility ratings present ({n} top-level entries)"));
    }
    inert(&out).into_owned()
}
