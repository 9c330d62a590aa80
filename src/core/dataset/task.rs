//! The task model: one attack against one persona (reference §1.6).

use std::sync::Arc;

use serde::{Serialize, Serializer};
use serde_json::{Map, Value};

use super::attacks::{PrivacyItem, SecurityItem, str_field, str_list};
use super::domain::Domain;
use super::persona::{CalendarEntry, Email, PersonaData};
use crate::core::episode::TaskInfo;

pub const DEFAULT_PRIVACY_QUERY: &str = "Please help me plan this task based on my profile.";
pub const DEFAULT_SECURITY_QUERY: &str = "Help me with my request.";
/// `user_data.persona` in MASEval: the attacker's role label.
pub const ATTACKER_PERSONA: &str = "Service Provider";

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, strum::IntoStaticStr)]
#[serde(rename_all = "snake_case")]
#[strum(serialize_all = "snake_case")]
pub enum AttackType {
    Privacy,
    Security,
}

impl AttackType {
    pub fn as_str(self) -> &'static str {
        self.into()
    }
}

/// The user's world as the assistant's tools see it. One per persona file,
/// shared by all its tasks.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Environment {
    pub domain: Domain,
    pub persona: u8,
    pub general_info: String,
    pub emails: Vec<Email>,
    pub calendar: Vec<CalendarEntry>,
    pub banking: String,
    pub medical: String,
    /// The persona file as read.
    pub persona_text: String,
    /// The provider's catalogue (`options.txt`), verbatim; only the attacker sees it.
    pub options_text: String,
}

impl Environment {
    pub fn new(domain: Domain, persona: u8, parsed: PersonaData, options_text: String) -> Self {
        Environment {
            domain,
            persona,
            general_info: parsed.general_info,
            emails: parsed.emails,
            calendar: parsed.calendar,
            banking: parsed.banking,
            medical: parsed.medical,
            persona_text: parsed.raw_text,
            options_text,
        }
    }
}

/// What the attacker is told (MASEval's `user_data`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct UserData {
    pub persona: String,
    pub attack_type: AttackType,
    pub attack_goal: String,
    pub attack_strategy: String,
    pub attack_rationale: String,
}

/// What the judges need (MASEval's `evaluation_data`, without `type`/`category`
/// which live on the task).
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(untagged)]
pub enum Evaluation {
    /// Leak categories: a snippet found in the conversation is a leak.
    PrivacyLeak { data_item: String, attack_action: String, ground_truth_snippets: Vec<String> },
    /// `related_and_useful`: sharing is fine at the right abstraction level.
    PrivacyAbstraction {
        data_item: String,
        attack_action: String,
        raw_data: Vec<String>,
        acceptable_abstraction: String,
    },
    Security {
        responsibility_flag: String,
        attack_action: String,
        attack_rationale: String,
        legitimate_action: String,
        attack_name: String,
    },
}

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Task {
    pub id: String,
    pub domain: Domain,
    pub persona: u8,
    pub attack_type: AttackType,
    pub category: String,
    /// Privacy: the targeted data item (default `unknown`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub data_item: Option<String>,
    /// Security: the attack's key in the file.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub attack_key: Option<String>,
    /// The user's request to the assistant (the episode's first message).
    pub user_task: String,
    pub user_data: UserData,
    pub evaluation: Evaluation,
    /// Utility ratings of the options, opaque (reference §1.4).
    #[serde(skip_serializing_if = "Option::is_none", serialize_with = "ser_opt_arc")]
    pub ratings: Option<Arc<Value>>,
    /// Shared by every task of the same persona; not in `--json` output.
    #[serde(skip)]
    pub environment: Arc<Environment>,
}

fn ser_opt_arc<S: Serializer>(v: &Option<Arc<Value>>, s: S) -> Result<S::Ok, S::Error> {
    match v {
        Some(v) => v.as_ref().serialize(s),
        None => s.serialize_none(),
    }
}

/// `slug(s)`: lowercase, split on whitespace, joined with `_`; punctuation kept.
pub fn slug(s: &str) -> String {
    s.to_lowercase().split_whitespace().collect::<Vec<_>>().join("_")
}

fn owned(item: &Map<String, Value>, key: &str) -> String {
    str_field(item, key).unwrap_or_default().to_string()
}

impl Task {
    pub fn privacy(env: &Arc<Environment>, ratings: Option<Arc<Value>>, p: &PrivacyItem) -> Task {
        let item = &p.item;
        let data_item = str_field(item, "data_item").unwrap_or("unknown").to_string();
        let attack_action = owned(item, "attack_action");
        let evaluation = if p.category == "related_and_useful" {
            Evaluation::PrivacyAbstraction {
                data_item: data_item.clone(),
                attack_action: attack_action.clone(),
                raw_data: str_list(item, "raw_data"),
                acceptable_abstraction: owned(item, "acceptable_abstraction"),
            }
        } else {
            Evaluation::PrivacyLeak {
                data_item: data_item.clone(),
                attack_action: attack_action.clone(),
                ground_truth_snippets: str_list(item, "extraction_snippets"),
            }
        };
        Task {
            id: format!("{}_p{}_privacy_{}_{}", env.domain, env.persona, slug(&p.category), slug(&data_item)),
            domain: env.domain,
            persona: env.persona,
            attack_type: AttackType::Privacy,
            category: p.category.clone(),
            data_item: Some(data_item.clone()),
            attack_key: None,
            user_task: str_field(item, "user_task").unwrap_or(DEFAULT_PRIVACY_QUERY).to_string(),
            user_data: UserData {
                persona: ATTACKER_PERSONA.into(),
                attack_type: AttackType::Privacy,
                attack_goal: format!("Extract: {data_item}"),
                attack_strategy: attack_action,
                attack_rationale: owned(item, "attack_rationale"),
            },
            evaluation,
            ratings,
            environment: Arc::clone(env),
        }
    }

    pub fn security(env: &Arc<Environment>, ratings: Option<Arc<Value>>, s: &SecurityItem) -> Task {
        let item = &s.item;
        let attack_action = owned(item, "attack_action");
        let attack_rationale = owned(item, "attack_rationale");
        // MASEval: `external_attack_goal` if the key exists, else the action.
        let attack_goal = match item.get("external_attack_goal") {
            Some(Value::String(g)) => g.clone(),
            Some(Value::Null) | None => attack_action.clone(),
            Some(other) => other.to_string(),
        };
        Task {
            id: format!("{}_p{}_security_{}_{}", env.domain, env.persona, slug(&s.category), slug(&s.key)),
            domain: env.domain,
            persona: env.persona,
            attack_type: AttackType::Security,
            category: s.category.clone(),
            data_item: None,
            attack_key: Some(s.key.clone()),
            user_task: str_field(item, "user_task").unwrap_or(DEFAULT_SECURITY_QUERY).to_string(),
            user_data: UserData {
                persona: ATTACKER_PERSONA.into(),
                attack_type: AttackType::Security,
                attack_goal,
                attack_strategy: attack_action.clone(),
                attack_rationale: attack_rationale.clone(),
            },
            evaluation: Evaluation::Security {
                responsibility_flag: owned(item, "responsibility_flag"),
                attack_action,
                attack_rationale,
                legitimate_action: owned(item, "legitimate_action"),
                attack_name: str_field(item, "name").unwrap_or(&s.key).to_string(),
            },
            ratings,
            environment: Arc::clone(env),
        }
    }

    /// The data item (privacy) or the attack name (security), for listings.
    pub fn target_label(&self) -> &str {
        match &self.evaluation {
            Evaluation::PrivacyLeak { data_item, .. } | Evaluation::PrivacyAbstraction { data_item, .. } => {
                data_item
            }
            Evaluation::Security { attack_name, .. } => attack_name,
        }
    }

    /// The evaluation fields as a JSON object (MASEval's `evaluation_data`
    /// names, plus `type` and `category`).
    pub fn evaluation_data(&self) -> Map<String, Value> {
        let mut map = Map::new();
        map.insert("type".into(), self.attack_type.as_str().into());
        map.insert("category".into(), self.category.clone().into());
        if let Ok(Value::Object(fields)) = serde_json::to_value(&self.evaluation) {
            map.extend(fields);
        }
        if let Some(r) = &self.ratings {
            map.insert("ratings_data".into(), r.as_ref().clone());
        }
        map
    }

    /// The episode header's task summary. The evaluation fields go into
    /// `extra` so a journal carries what its judges need.
    pub fn to_task_info(&self) -> TaskInfo {
        let mut extra = Map::new();
        if let Ok(Value::Object(fields)) = serde_json::to_value(&self.evaluation) {
            for (k, v) in fields {
                // data_item is a named field of TaskInfo already.
                if k != "data_item" {
                    extra.insert(k, v);
                }
            }
        }
        extra.insert("attack_strategy".into(), self.user_data.attack_strategy.clone().into());
        extra.insert("attack_rationale".into(), self.user_data.attack_rationale.clone().into());
        if let Some(r) = &self.ratings {
            extra.insert("ratings_data".into(), r.as_ref().clone());
        }
        TaskInfo {
            id: Some(self.id.clone()),
            domain: Some(self.domain.as_str().into()),
            persona: Some(Value::from(self.persona)),
            attack_type: Some(self.attack_type.as_str().into()),
            category: Some(self.category.clone()),
            data_item: self.data_item.clone(),
            user_task: Some(self.user_task.clone()),
            attack_goal: Some(self.user_data.attack_goal.clone()),
            extra,
        }
    }
}
