//! Who gave a verdict: the rule judges, an LLM judge run here (`llm:MODEL`), a judge whose
//! verdicts were imported (`imported:MODEL`: a judge file, a MASEval report, an Inspect scorer),
//! or a person (`human`). A rate, a filter term and a chart are each one source's; this is the
//! one place its label is made and read.

use std::fmt;
use std::str::FromStr;

use super::event::VerdictMethod;

#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum JudgeSource {
    Rule,
    /// An LLM judge of ours, by model (empty when the verdict names none).
    Llm(String),
    /// Verdicts imported from another tool's judge, by model (empty when it names none).
    Imported(String),
    Human,
}

impl JudgeSource {
    pub fn new(method: VerdictMethod, model: Option<&str>) -> Self {
        let model = || model.unwrap_or_default().to_string();
        match method {
            VerdictMethod::Rule => JudgeSource::Rule,
            VerdictMethod::Llm => JudgeSource::Llm(model()),
            VerdictMethod::Imported => JudgeSource::Imported(model()),
            VerdictMethod::Human => JudgeSource::Human,
        }
    }

    pub fn method(&self) -> VerdictMethod {
        match self {
            JudgeSource::Rule => VerdictMethod::Rule,
            JudgeSource::Llm(_) => VerdictMethod::Llm,
            JudgeSource::Imported(_) => VerdictMethod::Imported,
            JudgeSource::Human => VerdictMethod::Human,
        }
    }

    /// The judge model, for the sources that have one.
    pub fn model(&self) -> Option<&str> {
        match self {
            JudgeSource::Llm(m) | JudgeSource::Imported(m) if !m.is_empty() => Some(m),
            _ => None,
        }
    }

    /// Whether a verdict of `method` by `model` is this source's.
    pub fn gave(&self, method: VerdictMethod, model: Option<&str>) -> bool {
        self.method() == method && self.model() == model.filter(|m| !m.is_empty())
    }
}

impl fmt::Display for JudgeSource {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.model() {
            Some(model) => write!(f, "{}:{model}", self.method().as_str()),
            None => f.write_str(self.method().as_str()),
        }
    }
}

/// The label of a verdict's source: `rule`, `llm:MODEL`, `imported:MODEL`, `human`.
pub fn source_label(method: VerdictMethod, model: Option<&str>) -> String {
    JudgeSource::new(method, model).to_string()
}

/// The forms a source is written in, for errors.
pub const SOURCE_FORMS: &str = "rule, human, llm:MODEL or imported:MODEL";

impl FromStr for JudgeSource {
    type Err = String;

    /// `rule`, `human`, `llm:MODEL`, `imported:MODEL` (the method in any case).
    fn from_str(text: &str) -> Result<Self, String> {
        let text = text.trim();
        let (method, model) = match text.split_once(':') {
            Some((method, model)) => (method.trim().to_lowercase(), Some(model.trim())),
            None => (text.to_lowercase(), None),
        };
        let model = model.filter(|m| !m.is_empty());
        match (method.as_str(), model) {
            ("rule", None) => Ok(JudgeSource::Rule),
            ("human", None) => Ok(JudgeSource::Human),
            ("llm", Some(m)) => Ok(JudgeSource::Llm(m.to_string())),
            ("imported", Some(m)) => Ok(JudgeSource::Imported(m.to_string())),
            ("llm" | "imported", None) => Err(format!("'{text}' needs its judge model: {method}:MODEL")),
            _ => Err(format!("unknown verdict source '{text}': {SOURCE_FORMS}")),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_source_reads_back_as_written() {
        for text in ["rule", "human", "llm:gpt-4o", "imported:gpt-5", "imported:claude-sonnet-4-5"] {
            assert_eq!(text.parse::<JudgeSource>().unwrap().to_string(), text);
        }
        assert_eq!("Imported:gpt-5".parse(), Ok(JudgeSource::Imported("gpt-5".into())));
    }

    #[test]
    fn a_source_that_cannot_be_read_says_why() {
        assert!("llm".parse::<JudgeSource>().unwrap_err().contains("llm:MODEL"));
        assert!("robot".parse::<JudgeSource>().unwrap_err().contains("unknown verdict source 'robot'"));
        assert!("rule:x".parse::<JudgeSource>().is_err());
    }

    #[test]
    fn a_verdict_is_its_sources_by_method_and_model() {
        let gpt5 = JudgeSource::Imported("gpt-5".into());
        assert!(gpt5.gave(VerdictMethod::Imported, Some("gpt-5")));
        assert!(!gpt5.gave(VerdictMethod::Llm, Some("gpt-5")));
        assert!(!gpt5.gave(VerdictMethod::Imported, Some("claude")));
        assert!(JudgeSource::Rule.gave(VerdictMethod::Rule, None));
        assert_eq!(JudgeSource::new(VerdictMethod::Llm, None).to_string(), "llm");
    }
}
