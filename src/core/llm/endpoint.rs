//! Where a role's model lives: base URL, model name, the *name* of its key variable, limits.
//!
//! The key itself is read from the environment at each request and lives only
//! in an [`ApiKey`] for the duration of that request; nothing here can print it.

use std::fmt;
use std::time::Duration;

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use super::key_mask::KeyMask;

/// Which party a model call is for; named in errors and retry notices.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Role {
    Attacker,
    Assistant,
    Judge,
}

impl fmt::Display for Role {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Role::Attacker => "attacker",
            Role::Assistant => "assistant",
            Role::Judge => "judge",
        })
    }
}

/// Default whole-request deadline, streamed or not.
/// Generous because local models can take minutes on a long prompt.
pub const DEFAULT_TIMEOUT: Duration = Duration::from_secs(300);
/// Default longest silence between two chunks of a stream.
pub const DEFAULT_IDLE_TIMEOUT: Duration = Duration::from_secs(60);
/// Default retries after the first attempt.
pub const DEFAULT_MAX_RETRIES: u32 = 3;
/// Default largest reply read (the body of a call, or the text and tool calls of a stream).
/// A reply is text a model wrote: 8 MB is far more than any turn, and bounds the memory a
/// server sending without end can take (issue 24: 2.7 GB in 4 s, then an abort).
pub const DEFAULT_MAX_REPLY_BYTES: usize = 8 << 20;
/// Of an error body, only this much is read: its message is at its start.
pub const ERROR_BODY_BYTES: usize = 1024;

/// One OpenAI-compatible model endpoint for one role.
///
/// `Debug` shows `api_key_env` (a variable *name*), never a key.
#[derive(Debug, Clone, PartialEq)]
pub struct Endpoint {
    pub role: Role,
    /// E.g. `https://api.openai.com/v1` or `http://localhost:11434` (see [`Endpoint::chat_url`]).
    pub base_url: String,
    pub model: String,
    /// Name of the environment variable holding the key; `None` (or an unset/empty
    /// variable) sends no `Authorization` header, as local servers expect.
    pub api_key_env: Option<String>,
    /// The whole request, streamed or not: a server dripping bytes cannot hold a turn longer.
    pub timeout: Duration,
    /// Streaming only: longest wait between two chunks (never longer than `timeout` in effect).
    pub idle_timeout: Duration,
    /// Retries after the first attempt (so `max_retries + 1` attempts at most).
    pub max_retries: u32,
    /// Largest reply read: a body, or a stream's text and tool calls (see [`DEFAULT_MAX_REPLY_BYTES`]).
    pub max_reply_bytes: usize,
    /// Generation params sent with every request to this endpoint (request params win).
    pub extra: Map<String, Value>,
}

impl Endpoint {
    pub fn new(role: Role, base_url: impl Into<String>, model: impl Into<String>) -> Self {
        Endpoint {
            role,
            base_url: base_url.into(),
            model: model.into(),
            api_key_env: None,
            timeout: DEFAULT_TIMEOUT,
            idle_timeout: DEFAULT_IDLE_TIMEOUT,
            max_retries: DEFAULT_MAX_RETRIES,
            max_reply_bytes: DEFAULT_MAX_REPLY_BYTES,
            extra: Map::new(),
        }
    }

    pub fn with_api_key_env(mut self, var: impl Into<String>) -> Self {
        let var = var.into();
        super::key_mask::remember_env([var.as_str()]);
        self.api_key_env = Some(var);
        self
    }

    pub fn with_timeout(mut self, timeout: Duration) -> Self {
        self.timeout = timeout;
        self
    }

    pub fn with_idle_timeout(mut self, idle: Duration) -> Self {
        self.idle_timeout = idle;
        self
    }

    pub fn with_max_retries(mut self, retries: u32) -> Self {
        self.max_retries = retries;
        self
    }

    pub fn with_max_reply_bytes(mut self, bytes: usize) -> Self {
        self.max_reply_bytes = bytes;
        self
    }

    pub fn with_extra(mut self, key: impl Into<String>, value: Value) -> Self {
        self.extra.insert(key.into(), value);
        self
    }

    /// The base URL as it may be written down (a journal header): without user name, password,
    /// query or fragment, where a credential could hide.
    pub fn public_base_url(&self) -> String {
        match reqwest::Url::parse(self.base_url.trim()) {
            Ok(mut url) => {
                let _ = url.set_username("");
                let _ = url.set_password(None);
                url.set_query(None);
                url.set_fragment(None);
                url.to_string().trim_end_matches('/').to_string()
            }
            Err(_) => String::new(),
        }
    }

    /// The URL to POST to. Trailing slashes are ignored; a URL already ending in
    /// `/chat/completions` is used as is; a bare host (no path) gets `/v1`; any
    /// other path is taken as the API root (`…/v1`, `…/api/v1`, `…/v1beta/openai`).
    pub fn chat_url(&self) -> String {
        let base = self.base_url.trim().trim_end_matches('/');
        if base.ends_with("/chat/completions") {
            return base.to_string();
        }
        let after_scheme = base.split_once("://").map_or(base, |(_, rest)| rest);
        let has_path = after_scheme.contains('/');
        if has_path { format!("{base}/chat/completions") } else { format!("{base}/v1/chat/completions") }
    }

    /// The key, read now. Unset, empty or non-UTF-8 → `None`.
    pub(crate) fn api_key(&self) -> Option<ApiKey> {
        let var = self.api_key_env.as_deref()?;
        let value = std::env::var(var).ok()?;
        let value = value.trim();
        // Every output channel masks a key once it has been read (`key_mask::mask_known`).
        super::key_mask::remember(value);
        (!value.is_empty()).then(|| ApiKey(value.to_string()))
    }
}

/// A key held for one request. Its `Debug` is `***`; it is neither `Display` nor serializable.
pub(crate) struct ApiKey(String);

impl ApiKey {
    pub(crate) fn expose(&self) -> &str {
        &self.0
    }

    /// `text` with the key replaced by `***` in every form a server's echo of it takes
    /// (servers echo headers in errors, some transformed: see [`KeyMask`]).
    pub(crate) fn redact(&self, text: &str) -> String {
        KeyMask::new([self.0.as_str()]).mask(text).into_owned()
    }
}

impl fmt::Debug for ApiKey {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("ApiKey(***)")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_public_base_url_keeps_no_credential() {
        let e = Endpoint::new(Role::Judge, "https://user:pw@host.example/v1/?key=abc#x", "m");
        assert_eq!(e.public_base_url(), "https://host.example/v1");
        assert_eq!(
            Endpoint::new(Role::Judge, "http://127.0.0.1:9/v1", "m").public_base_url(),
            "http://127.0.0.1:9/v1"
        );
    }

    fn url(base: &str) -> String {
        Endpoint::new(Role::Judge, base, "m").chat_url()
    }

    #[test]
    fn chat_url_accepts_common_base_urls() {
        let want = "http://localhost:11434/v1/chat/completions";
        assert_eq!(url("http://localhost:11434/v1"), want);
        assert_eq!(url("http://localhost:11434/v1/"), want);
        assert_eq!(url("http://localhost:11434"), want);
        assert_eq!(url("http://localhost:11434/"), want);
        assert_eq!(url(" http://localhost:11434/v1/chat/completions "), want);
        assert_eq!(url("https://openrouter.ai/api/v1"), "https://openrouter.ai/api/v1/chat/completions");
        assert_eq!(
            url("https://example.com/v1beta/openai/"),
            "https://example.com/v1beta/openai/chat/completions"
        );
    }

    #[test]
    fn debug_names_the_variable_not_the_key() {
        let var = "CONVERSE_TUI_TEST_ENDPOINT_DEBUG_KEY";
        // SAFETY: a variable name unique to this test; no other thread reads it.
        unsafe { std::env::set_var(var, "sk-secret-value-123") };
        let ep = Endpoint::new(Role::Attacker, "http://h/v1", "m").with_api_key_env(var);
        let key = ep.api_key().expect("key is set");
        assert_eq!(key.expose(), "sk-secret-value-123");
        assert_eq!(format!("{key:?}"), "ApiKey(***)");
        let dbg = format!("{ep:?}");
        assert!(dbg.contains(var));
        assert!(!dbg.contains("sk-secret"));
        assert_eq!(key.redact("Bearer sk-secret-value-123!"), "Bearer ***!");
        assert_eq!(key.redact("key SK-SECRET-VALUE-123 or secret-value-123"), "key *** or ***");
        unsafe { std::env::remove_var(var) };
        assert!(ep.api_key().is_none());
    }
}
