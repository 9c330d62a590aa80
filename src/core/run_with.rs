//! What an episode or a search was run with that decides its verdicts (the assistant, the attacker
//! model where one plays, the LLM judge, their endpoints, the recorded attack it replays), so that
//! `--resume` reuses earlier results only for the same experiment and refuses otherwise: results
//! made with another assistant or judge reported as this run's would be a false pass.

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};
use sha2::{Digest, Sha256};

use crate::core::episode::EpisodeHeader;
use crate::core::llm::Endpoint;
use crate::core::sanitize::single_line;
use crate::core::usage_error::UsageError;

/// A model and where it was called.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Model {
    /// The model's name, or an external agent's spec (`a2a:URL`, `cmd:COMMAND`).
    pub model: String,
    /// Without credentials or query; `None` when not recorded (a folder of an older version).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub base_url: Option<String>,
}

impl Model {
    pub fn of(endpoint: &Endpoint) -> Model {
        Model { model: endpoint.model.clone(), base_url: Some(endpoint.public_base_url()) }
    }

    /// The same model at the same endpoint, as far as both say.
    fn same(&self, other: &Model) -> bool {
        self.model == other.model
            && match (&self.base_url, &other.base_url) {
                (Some(a), Some(b)) => a == b,
                _ => true,
            }
    }

    fn describe(&self, with_url: bool) -> String {
        match (&self.base_url, with_url) {
            (Some(url), true) => format!("{} at {url}", self.model),
            _ => self.model.clone(),
        }
    }
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct RunWith {
    pub assistant: Model,
    /// The model that plays the attacker, when one does (not a script or a recording replayed).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub attacker: Option<Model>,
    /// The LLM judges' model, when they were asked.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub judge: Option<Model>,
    /// A digest of the attack replayed (a test case's turns, an attacker script), if any.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub attack: Option<String>,
}

impl RunWith {
    /// What a journal's header says it was run with (folders of versions that did not record
    /// it in the runs file); `None` when the header names no assistant.
    pub fn from_header(header: &EpisodeHeader) -> Option<RunWith> {
        let config = &header.config;
        let text = |v: Option<&Value>| v.and_then(Value::as_str).map(str::to_string);
        let agent_url = config.extra.get("assistant_agent").and_then(|a| a.get("url"));
        let assistant = text(agent_url)
            .map(|url| format!("a2a:{url}"))
            .or_else(|| text(config.models.get("assistant")))?;
        // The header names the attacker's kind (`scripted`, `human`) where no model played it.
        let attacker_kind = text(config.extra.get("attacker_kind"));
        let attacker = text(config.models.get("attacker")).filter(|m| Some(m) != attacker_kind.as_ref());
        let judge = text(config.models.get("judge"));
        let judge_url = text(config.extra.get(crate::core::sim::runner::JUDGE_BASE_URL));
        Some(RunWith {
            assistant: Model { model: assistant, base_url: None },
            attacker: attacker.map(|model| Model { model, base_url: None }),
            judge: judge.map(|model| Model { model, base_url: judge_url }),
            attack: None,
        })
    }

    /// What an attack search's plan of an older version says (its `models`, no endpoints).
    pub fn from_models(models: &Map<String, Value>) -> Option<RunWith> {
        let model = |role: &str| {
            models.get(role).and_then(Value::as_str).map(|m| Model { model: m.to_string(), base_url: None })
        };
        Some(RunWith {
            assistant: model("assistant")?,
            attacker: model("attacker"),
            judge: model("judge"),
            attack: None,
        })
    }

    /// Refuses to go on in `dir` with `ours` what was run there with `self`: one line naming the
    /// folder, what it was run with and what differs.
    pub fn check_same(&self, ours: &RunWith, dir: &std::path::Path) -> Result<(), UsageError> {
        let roles = [
            ("assistant", Some(&self.assistant), Some(&ours.assistant)),
            ("attacker", self.attacker.as_ref(), ours.attacker.as_ref()),
            ("judge", self.judge.as_ref(), ours.judge.as_ref()),
        ];
        let (mut was, mut names) = (Vec::new(), Vec::new());
        for (role, theirs, mine) in roles {
            let same = match (theirs, mine) {
                (Some(a), Some(b)) => a.same(b),
                (None, None) => true,
                _ => false,
            };
            // The endpoints are named when only they differ.
            let with_url = !same && theirs.zip(mine).is_some_and(|(a, b)| a.model == b.model);
            if theirs.is_some() || !same {
                was.push(role_text(role, theirs, with_url));
            }
            if !same {
                names.push(role_text(role, mine, with_url));
            }
        }
        if let (Some(a), Some(b)) = (&self.attack, &ours.attack)
            && a != b
        {
            names.push("another recorded attack (its turns changed)".to_string());
        }
        if names.is_empty() {
            return Ok(());
        }
        Err(UsageError(
            single_line(&format!(
                "--resume: {} was run with {}; this command names {}: give another --out, or the same flags",
                dir.display(),
                was.join(", "),
                names.join(", ")
            ))
            .into_owned(),
        ))
    }
}

fn role_text(role: &str, model: Option<&Model>, with_url: bool) -> String {
    match (role, model) {
        (_, Some(m)) => format!("{role} {}", m.describe(with_url)),
        ("judge", None) => "no LLM judge".to_string(),
        (_, None) => format!("no {role} model"),
    }
}

/// A short digest of a replayed attack's lines (and the replies a live one compares against).
pub fn attack_digest(lines: &[String], replies: &[String], live: bool) -> String {
    let mut hash = Sha256::new();
    for part in lines.iter().chain([&String::new()]).chain(replies) {
        hash.update(part.len().to_le_bytes());
        hash.update(part.as_bytes());
    }
    hash.update([u8::from(live)]);
    hash.finalize()[..8].iter().map(|b| format!("{b:02x}")).collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::core::episode::{EpisodeConfig, TaskInfo};

    fn header(models: &[(&str, &str)], extra: &[(&str, &str)]) -> EpisodeHeader {
        let mut config = EpisodeConfig::default();
        for (role, model) in models {
            config.models.insert(role.to_string(), (*model).into());
        }
        for (key, value) in extra {
            config.extra.insert(key.to_string(), (*value).into());
        }
        EpisodeHeader::new("ep", TaskInfo::default(), config)
    }

    fn model(name: &str, url: Option<&str>) -> Model {
        Model { model: name.into(), base_url: url.map(str::to_string) }
    }

    #[test]
    fn a_header_names_the_attacker_model_only_where_one_played() {
        let scripted =
            header(&[("assistant", "a"), ("attacker", "scripted")], &[("attacker_kind", "scripted")]);
        assert_eq!(RunWith::from_header(&scripted).unwrap().attacker, None);
        let live = header(&[("assistant", "a"), ("attacker", "m")], &[("attacker_kind", "replay")]);
        assert_eq!(RunWith::from_header(&live).unwrap().attacker, Some(model("m", None)));
        let judged = header(
            &[("assistant", "a"), ("judge", "j")],
            &[(crate::core::sim::runner::JUDGE_BASE_URL, "http://h/v1")],
        );
        assert_eq!(RunWith::from_header(&judged).unwrap().judge, Some(model("j", Some("http://h/v1"))));
        assert_eq!(RunWith::from_header(&header(&[], &[])), None, "no assistant named: nothing to go by");
    }

    #[test]
    fn endpoints_count_where_both_record_them_and_are_named_when_only_they_differ() {
        let ours = RunWith {
            assistant: model("a", Some("http://one/v1")),
            attacker: None,
            judge: Some(model("j", Some("http://one/v1"))),
            attack: None,
        };
        let older = RunWith { assistant: model("a", None), judge: Some(model("j", None)), ..ours.clone() };
        assert!(older.check_same(&ours, "d".as_ref()).is_ok(), "an older folder records no endpoint");
        let elsewhere = RunWith { assistant: model("a", Some("http://two/v1")), ..ours.clone() };
        let refused = elsewhere.check_same(&ours, "d".as_ref()).unwrap_err().0;
        assert_eq!(
            refused,
            "--resume: d was run with assistant a at http://two/v1, judge j; this command names assistant a at http://one/v1: give another --out, or the same flags"
        );
    }
}
