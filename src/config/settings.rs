//! The config file (`<config dir>/config.toml`) and the effective model
//! endpoints per role, after command-line flags and the environment.
//!
//! Precedence, highest first: command-line flags, the config file, the
//! environment (`OPENAI_BASE_URL`), built-in defaults. API keys are never
//! stored: a role names the *environment variable* that holds its key.

use std::path::Path;
use std::time::Duration;

use anyhow::{Context, bail};
use serde::Deserialize;
use serde_json::{Map, Value};

use crate::core::llm::{Endpoint, PerRole, Role};
use crate::core::sanitize::single_line;

pub const DEFAULT_BASE_URL: &str = "https://api.openai.com/v1";
pub const DEFAULT_KEY_ENV: &str = "OPENAI_API_KEY";
pub const BASE_URL_ENV: &str = "OPENAI_BASE_URL";
/// `--judge-model recorded`: a fork or a fan takes the judge its episode recorded, model and
/// endpoint (`session::launch::fork_args`); never a model name sent anywhere.
pub const RECORDED_MODEL: &str = "recorded";

/// `config.toml`, every key optional.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(from = "ConfigToml")]
pub struct ConfigFile {
    /// The `[attacker]`, `[assistant]` and `[judge]` tables.
    pub roles: PerRole<RoleSettings>,
    pub run: RunSettings,
    /// Name recorded on annotations and human turns (default: `$USER`).
    pub author: Option<String>,
}

/// The file as written (unknown keys refused); read into [`ConfigFile`].
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct ConfigToml {
    #[serde(default)]
    attacker: RoleSettings,
    #[serde(default)]
    assistant: RoleSettings,
    #[serde(default)]
    judge: RoleSettings,
    #[serde(default)]
    run: RunSettings,
    author: Option<String>,
}

impl From<ConfigToml> for ConfigFile {
    fn from(file: ConfigToml) -> Self {
        ConfigFile {
            roles: PerRole::new(file.attacker, file.assistant, file.judge),
            run: file.run,
            author: file.author,
        }
    }
}

#[derive(Debug, Clone, Default, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct RoleSettings {
    pub base_url: Option<String>,
    pub model: Option<String>,
    /// Name of the environment variable holding the key (default `OPENAI_API_KEY`; `""` for none).
    pub api_key_env: Option<String>,
    /// Whole-request deadline, streamed replies included.
    pub timeout_secs: Option<u64>,
    /// Longest silence between two chunks of a streamed reply.
    pub stall_secs: Option<u64>,
    pub max_retries: Option<u32>,
    /// Largest reply read, in MB of text (streamed or not; default 8): beyond it the call fails.
    pub max_reply_mb: Option<u32>,
    /// Extra generation parameters sent with every request (temperature, top_p, …).
    #[serde(default)]
    pub params: Map<String, Value>,
}

#[derive(Debug, Clone, Default, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct RunSettings {
    pub max_turns: Option<u32>,
    pub max_tool_calls: Option<u32>,
    pub seed: Option<u64>,
    /// Stream model replies (default true).
    pub stream: Option<bool>,
}

impl ConfigFile {
    /// Reads the file if it exists; a missing file is the empty config.
    pub fn load(path: &Path) -> anyhow::Result<ConfigFile> {
        match std::fs::read_to_string(path) {
            Ok(text) => super::toml_file::parse(&text, path, "config"),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(ConfigFile::default()),
            Err(e) => Err(e).with_context(|| format!("{}: cannot read", path.display())),
        }
    }
}

/// Per-role settings given on the command line.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct RoleFlags {
    pub base_url: Option<String>,
    pub model: Option<String>,
}

/// Model endpoints from the command line.
#[derive(Debug, Clone, Default)]
pub struct ModelFlags {
    /// Sets every role's base URL.
    pub base_url: Option<String>,
    pub roles: PerRole<RoleFlags>,
}

impl ModelFlags {
    /// The effective settings of a role.
    pub fn resolve(&self, role: Role, file: &ConfigFile) -> EffectiveRole {
        EffectiveRole::resolve(role, &file.roles[role], &self.roles[role], self.base_url.as_deref())
    }
}

/// The settings of one role after every source is applied.
#[derive(Debug, Clone, PartialEq)]
pub struct EffectiveRole {
    pub role: Role,
    pub base_url: String,
    /// Where the base URL came from, for `config show`.
    pub base_url_source: &'static str,
    pub model: Option<String>,
    pub api_key_env: Option<String>,
    pub timeout: Option<Duration>,
    pub stall: Option<Duration>,
    pub max_retries: Option<u32>,
    pub max_reply_mb: Option<u32>,
    pub params: Map<String, Value>,
}

impl EffectiveRole {
    pub fn resolve(
        role: Role,
        file: &RoleSettings,
        flags: &RoleFlags,
        shared_base_url: Option<&str>,
    ) -> Self {
        let env_base = std::env::var(BASE_URL_ENV).ok().filter(|v| !v.trim().is_empty());
        let (base_url, base_url_source) = if let Some(url) = &flags.base_url {
            (url.clone(), "flag")
        } else if let Some(url) = shared_base_url {
            (url.to_string(), "--base-url")
        } else if let Some(url) = &file.base_url {
            (url.clone(), "config file")
        } else if let Some(url) = env_base {
            (url, BASE_URL_ENV)
        } else {
            (DEFAULT_BASE_URL.to_string(), "default")
        };
        let api_key_env = match &file.api_key_env {
            Some(name) if name.is_empty() => None,
            Some(name) => Some(name.clone()),
            None => Some(DEFAULT_KEY_ENV.to_string()),
        };
        // Masked in every output from now on, whether or not a call is made.
        crate::core::llm::key_mask::remember_env(api_key_env.as_deref());
        EffectiveRole {
            role,
            base_url,
            base_url_source,
            model: flags.model.clone().or_else(|| file.model.clone()),
            api_key_env,
            timeout: file.timeout_secs.map(Duration::from_secs),
            stall: file.stall_secs.map(Duration::from_secs),
            max_retries: file.max_retries,
            max_reply_mb: file.max_reply_mb,
            params: file.params.clone(),
        }
    }

    /// The endpoint to call; fails with what to set when no model is configured.
    pub fn endpoint(&self, config_path: &Path) -> anyhow::Result<Endpoint> {
        let Some(model) = self.model.clone().filter(|m| !m.trim().is_empty()) else {
            bail!(
                "no {role} model: pass --{role}-model NAME, or set `model` under [{role}] in {}",
                config_path.display(),
                role = self.role
            );
        };
        if model == RECORDED_MODEL {
            bail!(
                "--{}-model {RECORDED_MODEL} takes the judge a saved episode recorded: it is for forks and fans (`replay`, `fan`); name a model here",
                self.role
            );
        }
        if !(self.base_url.starts_with("http://") || self.base_url.starts_with("https://")) {
            bail!(
                "the {} endpoint '{}' is not an http(s) URL (from {})",
                self.role,
                self.base_url,
                self.base_url_source
            );
        }
        let mut endpoint = Endpoint::new(self.role, self.base_url.clone(), model);
        // Caught here, before any journal exists, not at the first request.
        match reqwest::Url::parse(self.base_url.trim()) {
            Ok(url) if url.host_str().is_some_and(|h| !h.is_empty()) => {}
            Ok(_) => bail!(
                "the {} endpoint '{}' has no host (from {})",
                self.role,
                self.base_url,
                self.base_url_source
            ),
            Err(e) => bail!(
                "the {} endpoint '{}' is not a valid URL: {e} (from {})",
                self.role,
                self.base_url,
                self.base_url_source
            ),
        }
        endpoint.api_key_env = self.api_key_env.clone();
        if let Some(t) = self.timeout {
            endpoint.timeout = t;
        }
        if let Some(stall) = self.stall {
            endpoint.idle_timeout = stall;
        }
        if let Some(r) = self.max_retries {
            endpoint.max_retries = r;
        }
        if let Some(mb) = self.max_reply_mb {
            if mb == 0 {
                bail!("max_reply_mb of [{}] must be at least 1", self.role);
            }
            endpoint.max_reply_bytes = usize::try_from(mb).unwrap_or(usize::MAX).saturating_mul(1 << 20);
        }
        endpoint.extra = self.params.clone();
        Ok(endpoint)
    }

    /// One block of `config show`; the key is reported as set or not, never shown.
    /// Every value is shown inert: a config file is text like any other.
    pub fn describe(&self) -> String {
        let shown = |text: &str| single_line(text).into_owned();
        let key = match &self.api_key_env {
            Some(name) => {
                let set = std::env::var(name).is_ok_and(|v| !v.is_empty());
                format!("{} ({})", shown(name), if set { "set, value hidden" } else { "not set" })
            }
            None => "none (no Authorization header)".to_string(),
        };
        let params = if self.params.is_empty() {
            "{}".to_string()
        } else {
            crate::core::safe_json::to_string(&Value::Object(self.params.clone()))
                .unwrap_or_else(|_| "(unprintable)".to_string())
        };
        format!(
            "[{}]\n  base_url    = {}   ({})\n  model       = {}\n  api_key_env = {key}\n  params      = {params}\n",
            self.role,
            shown(&self.base_url),
            self.base_url_source,
            shown(self.model.as_deref().unwrap_or("(not set)")),
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn flags_beat_the_file_and_the_file_beats_defaults() {
        let file = RoleSettings {
            base_url: Some("http://file/v1".into()),
            model: Some("m-file".into()),
            ..Default::default()
        };
        let flags = RoleFlags { base_url: None, model: Some("m-flag".into()) };
        let r = EffectiveRole::resolve(Role::Attacker, &file, &flags, Some("http://shared/v1"));
        assert_eq!((r.base_url.as_str(), r.base_url_source), ("http://shared/v1", "--base-url"));
        assert_eq!(r.model.as_deref(), Some("m-flag"));
        let r = EffectiveRole::resolve(Role::Attacker, &file, &RoleFlags::default(), None);
        assert_eq!(r.base_url, "http://file/v1");
        assert_eq!(r.api_key_env.as_deref(), Some(DEFAULT_KEY_ENV));
    }

    #[test]
    fn a_missing_model_says_what_to_set() {
        let r = EffectiveRole::resolve(Role::Judge, &RoleSettings::default(), &RoleFlags::default(), None);
        let err = r.endpoint(Path::new("/c/config.toml")).unwrap_err().to_string();
        assert!(
            err.contains("--judge-model") && err.contains("[judge]") && err.contains("/c/config.toml"),
            "{err}"
        );
    }

    #[test]
    fn the_config_file_is_partial_and_strict() {
        let file: ConfigFile =
            toml::from_str("[assistant]\nmodel = \"llama3.1\"\napi_key_env = \"\"\n[run]\nmax_turns = 6\n")
                .unwrap();
        assert_eq!(file.roles.assistant.model.as_deref(), Some("llama3.1"));
        assert_eq!(file.run.max_turns, Some(6));
        let r = EffectiveRole::resolve(Role::Assistant, &file.roles.assistant, &RoleFlags::default(), None);
        assert_eq!(r.api_key_env, None);
        assert!(toml::from_str::<ConfigFile>("[assistant]\nmodle = \"x\"\n").is_err());
    }

    #[test]
    fn an_invalid_base_url_is_refused_before_anything_runs() {
        for bad in ["http://exa mple/v1", "http://", "https://[::1/v1"] {
            let flags = RoleFlags { base_url: Some(bad.into()), model: Some("m".into()) };
            let r = EffectiveRole::resolve(Role::Assistant, &RoleSettings::default(), &flags, None);
            let err = r.endpoint(Path::new("c.toml")).unwrap_err().to_string();
            assert!(err.contains(bad) && !err.contains('\n'), "{err}");
        }
    }
}
