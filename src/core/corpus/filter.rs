//! The field filter over corpus rows: `model=gemini* privacy=fail turns>5 defence=baseline`.
//!
//! - text fields take `=` / `!=` with a case-insensitive glob (`*`, `?`, `[…]`);
//! - number fields take `= != > < >= <=`;
//! - a judge's name is a field too: `privacy=fail` (a glob on the outcome of any
//!   of that judge's verdicts: "some source says fail"), `utility>=0.5` (on a score);
//! - a judge term may name whose verdict it reads: `privacy[imported:gpt-5]=fail`,
//!   `security[rule]=pass`, `privacy[human]=fail`; `judge_model=M` binds every judge term of
//!   the expression that names no source to the sources whose model is M (`llm:M`,
//!   `imported:M`), so `judge_model=gpt-5 privacy=fail` is "gpt-5 says fail";
//! - any other word matches the row's text, as the browser's filter does
//!   (every word must occur, case-insensitively); a word with an operator that is not a
//!   term (`privacy[rule=pass`) is an error, never a word.
//!
//! Every term must hold. `!=` is the negation of `=`.

use globset::{GlobBuilder, GlobMatcher};

use super::row::{CorpusRow, SourceVerdict, no_such_source};
use crate::core::episode::judge::JUDGES;
use crate::core::episode::{Judge, JudgeSource};

/// Text fields, matched with a glob.
pub const TEXT_FIELDS: &[&str] = &[
    "path",
    "id",
    "task",
    "domain",
    "persona",
    "attack_type",
    "category",
    "attack",
    "model",
    "defence",
    "judge_model",
    "end",
    "fork",
    "human",
    "unjudged",
];

/// Number fields.
pub const NUMBER_FIELDS: &[&str] = &["turns", "events", "repeat", "retry"];

#[derive(Debug, Clone, Copy, PartialEq)]
enum Op {
    Eq,
    Ne,
    Gt,
    Lt,
    Ge,
    Le,
}

impl Op {
    fn holds(self, a: f64, b: f64) -> bool {
        match self {
            Op::Eq => a == b,
            Op::Ne => a != b,
            Op::Gt => a > b,
            Op::Lt => a < b,
            Op::Ge => a >= b,
            Op::Le => a <= b,
        }
    }
}

#[derive(Debug, Clone)]
enum Test {
    Glob(GlobMatcher),
    Number(f64),
}

/// Whose verdicts a judge term reads.
#[derive(Debug, Clone, Default)]
enum Sources {
    /// Any source's (an unbound term: "some source says").
    #[default]
    Any,
    /// One source's (`privacy[imported:gpt-5]`).
    One(JudgeSource),
    /// The sources whose model matches every one of these (`judge_model=M` in the expression).
    Models(Vec<GlobMatcher>),
}

impl Sources {
    fn include(&self, v: &SourceVerdict) -> bool {
        match self {
            Sources::Any => true,
            Sources::One(source) => source.gave(v.method, v.model.as_deref()),
            Sources::Models(globs) => v.model.as_deref().is_some_and(|m| globs.iter().all(|g| g.is_match(m))),
        }
    }
}

#[derive(Debug, Clone)]
struct Term {
    field: String,
    op: Op,
    test: Test,
    /// For a judge term: whose verdicts it reads.
    sources: Sources,
    /// The judge whose verdicts a judge term reads.
    judge: Option<Judge>,
}

/// A parsed filter expression.
#[derive(Debug, Clone, Default)]
pub struct Filter {
    terms: Vec<Term>,
    /// Free words, lower-cased.
    words: Vec<String>,
}

impl Filter {
    /// Parses `expr`; `judges` are the judge names the corpus has beside [`JUDGES`].
    /// An unknown field or a bad value is one line naming the problem.
    pub fn parse(expr: &str, judges: &[Judge]) -> Result<Self, String> {
        let tokens = shlex::split(expr).ok_or_else(|| format!("unbalanced quotes in '{expr}'"))?;
        let mut filter = Filter::default();
        for token in tokens {
            match split_term(&token) {
                Some((field, source, op, value)) => {
                    filter.terms.push(term(field, source, op, value, judges)?)
                }
                None if token.contains(['=', '<', '>']) => return Err(unreadable(&token)),
                None => filter.words.push(token.to_lowercase()),
            }
        }
        filter.bind_to_judge_models();
        Ok(filter)
    }

    /// `judge_model=M`: every judge term that names no source reads the verdicts of model M.
    fn bind_to_judge_models(&mut self) {
        let globs: Vec<GlobMatcher> = self
            .terms
            .iter()
            .filter(|t| t.field == "judge_model" && t.op == Op::Eq)
            .filter_map(|t| match &t.test {
                Test::Glob(g) => Some(g.clone()),
                Test::Number(_) => None,
            })
            .collect();
        if globs.is_empty() {
            return;
        }
        for t in self.terms.iter_mut().filter(|t| t.judge.is_some() && matches!(t.sources, Sources::Any)) {
            t.sources = Sources::Models(globs.clone());
        }
    }

    pub fn is_empty(&self) -> bool {
        self.terms.is_empty() && self.words.is_empty()
    }

    /// An error naming the first term that reads a source no verdict among `known` came from
    /// (`privacy[imported:gpt5]` over a corpus judged by gpt-5): it would match nothing, silently.
    pub fn check_sources(&self, known: &[JudgeSource]) -> Result<(), String> {
        for t in &self.terms {
            if let Sources::One(source) = &t.sources
                && !known.contains(source)
            {
                return Err(no_such_source(&format!("'{}[{source}]'", t.field), known));
            }
        }
        Ok(())
    }

    /// [`Filter::parse`], then [`Filter::check_sources`] against the sources of `rows`.
    pub fn parse_for(expr: &str, rows: &[CorpusRow]) -> Result<Self, String> {
        let filter = Filter::parse(expr, &super::row::judges(rows))?;
        filter.check_sources(&super::row::verdict_sources(rows))?;
        Ok(filter)
    }

    pub fn matches(&self, row: &CorpusRow) -> bool {
        let words_match = self.words.is_empty() || {
            let haystack = haystack(row);
            self.words.iter().all(|w| haystack.contains(w.as_str()))
        };
        words_match && self.terms.iter().all(|t| t.matches(row))
    }

    /// [`Filter::matches`] with the row's [`haystack`] already made (the browser keeps one per row).
    pub fn matches_with(&self, row: &CorpusRow, haystack: &str) -> bool {
        self.words.iter().all(|w| haystack.contains(w.as_str())) && self.terms.iter().all(|t| t.matches(row))
    }
}

/// What a word with an operator that is no term is told.
fn unreadable(token: &str) -> String {
    format!(
        "cannot read '{token}': a term is FIELD=VALUE, JUDGE=OUTCOME or JUDGE[SOURCE]=OUTCOME (SOURCE: {}); a free word has no = < >",
        crate::core::episode::judge_source::SOURCE_FORMS
    )
}

/// `field<op>value` or `field[source]<op>value`, when the token starts with a field name (and a
/// source in brackets) and an operator.
fn split_term(token: &str) -> Option<(&str, Option<&str>, Op, &str)> {
    let name_end = token.find(|c: char| !(c.is_ascii_alphanumeric() || c == '_')).unwrap_or(token.len());
    let field = &token[..name_end];
    if field.is_empty() {
        return None;
    }
    let (source, rest) = match token[name_end..].strip_prefix('[') {
        Some(bracketed) => {
            let (source, rest) = bracketed.split_once(']')?;
            (Some(source), rest)
        }
        None => (None, &token[name_end..]),
    };
    let (op, len) =
        [("!=", Op::Ne), (">=", Op::Ge), ("<=", Op::Le), ("=", Op::Eq), (">", Op::Gt), ("<", Op::Lt)]
            .into_iter()
            .find(|(s, _)| rest.starts_with(s))
            .map(|(s, op)| (op, s.len()))?;
    Some((field, source, op, &rest[len..]))
}

fn term(field: &str, source: Option<&str>, op: Op, value: &str, judges: &[Judge]) -> Result<Term, String> {
    let field = field.to_lowercase();
    let judge = Some(Judge::from(field.as_str())).filter(|j| JUDGES.contains(j) || judges.contains(j));
    let is_judge = judge.is_some();
    let sources = match source {
        None => Sources::Any,
        Some(source) if is_judge => {
            Sources::One(source.parse().map_err(|e| format!("'{field}[{source}]': {e}"))?)
        }
        Some(source) => {
            return Err(format!(
                "'{field}[{source}]': only a judge takes a [SOURCE]; '{field}' is not a judge"
            ));
        }
    };
    let number =
        || value.parse::<f64>().map_err(|_| format!("'{field}' compares numbers: '{value}' is not a number"));
    let test = if NUMBER_FIELDS.contains(&field.as_str()) {
        Test::Number(number()?)
    } else if TEXT_FIELDS.contains(&field.as_str()) || is_judge {
        match op {
            Op::Eq | Op::Ne => match value.parse::<f64>() {
                // `utility=1` compares a score; `privacy=fail` an outcome.
                Ok(n) if is_judge => Test::Number(n),
                _ => Test::Glob(glob(value)?),
            },
            _ if is_judge => Test::Number(number()?),
            _ => return Err(format!("'{field}' is a text field: use = or != (with * and ? as wildcards)")),
        }
    } else {
        return Err(format!("unknown field '{field}': known fields are {}", known_fields(judges)));
    };
    Ok(Term { field, op, test, sources, judge })
}

/// The field names, for the error on an unknown one.
pub fn known_fields(judges: &[Judge]) -> String {
    let mut all: Vec<String> = TEXT_FIELDS.iter().chain(NUMBER_FIELDS).map(|s| s.to_string()).collect();
    all.extend(JUDGES.iter().chain(judges.iter().filter(|j| !JUDGES.contains(j))).map(ToString::to_string));
    all.join(", ")
}

fn glob(pattern: &str) -> Result<GlobMatcher, String> {
    GlobBuilder::new(pattern)
        .case_insensitive(true)
        .literal_separator(false)
        .build()
        .map(|g| g.compile_matcher())
        .map_err(|e| format!("bad pattern '{pattern}': {e}"))
}

impl Term {
    fn matches(&self, row: &CorpusRow) -> bool {
        let positive = match self.op {
            Op::Ne => Op::Eq,
            op => op,
        };
        let holds = self.holds(row, positive);
        if self.op == Op::Ne { !holds } else { holds }
    }

    /// Whether the term holds with `op` (never `Ne`: the caller negates).
    fn holds(&self, row: &CorpusRow, op: Op) -> bool {
        let glob = |value: Option<&str>| match &self.test {
            Test::Glob(g) => value.is_some_and(|v| g.is_match(v)),
            Test::Number(n) => value.and_then(|v| v.parse::<f64>().ok()).is_some_and(|v| op.holds(v, *n)),
        };
        let number = |value: Option<f64>| match &self.test {
            Test::Number(n) => value.is_some_and(|v| op.holds(v, *n)),
            Test::Glob(_) => false,
        };
        match self.field.as_str() {
            "path" => glob(Some(&row.path.to_string_lossy())),
            "id" => glob(Some(&row.id)),
            "task" => glob(row.task_id.as_deref()),
            "domain" => glob(row.domain.as_deref()),
            "persona" => glob(row.persona.as_deref()),
            "attack_type" => glob(row.attack_type.as_deref()),
            "category" => glob(row.category.as_deref()),
            "attack" => glob(row.attack.as_deref()),
            "model" => glob(row.model.as_deref()),
            "defence" => glob(row.defence.as_deref()),
            "judge_model" => row.verdicts.iter().any(|v| glob(v.model.as_deref())),
            "end" => glob(row.end.as_deref()),
            "fork" => glob(Some(yes_no(row.parent.is_some()))),
            "human" => glob(Some(yes_no(row.human))),
            "unjudged" => glob(row.unjudged().as_ref().map(Judge::as_str)),
            "turns" => number(row.turns.map(f64::from)),
            "events" => number(row.events.map(|n| n as f64)),
            "repeat" => number(row.repeat.map(|n| n as f64)),
            "retry" => number(row.retry.map(|n| n as f64)),
            _ => self.judge.as_ref().is_some_and(|judge| {
                row.verdicts_of(judge).filter(|v| self.sources.include(v)).any(|v| match &self.test {
                    Test::Glob(g) => g.is_match(v.outcome.as_str()),
                    Test::Number(n) => v.score.is_some_and(|s| op.holds(s, *n)),
                })
            }),
        }
    }
}

fn yes_no(b: bool) -> &'static str {
    if b { "yes" } else { "no" }
}

/// The lower-cased text free words match: what the browser's filter matches
/// (id, domain, attack, task, verdicts as `privacy fail privacy:fail`, path) and
/// the model and defence.
pub fn haystack(row: &CorpusRow) -> String {
    let verdicts: Vec<String> = row
        .verdicts
        .iter()
        .map(|v| format!("{j} {o} {j}:{o}", j = v.judge, o = v.outcome.as_str()))
        .collect();
    let fields = [
        Some(row.id.as_str()),
        row.domain.as_deref(),
        row.attack_type.as_deref(),
        row.category.as_deref(),
        row.attack.as_deref(),
        row.task_id.as_deref(),
        row.model.as_deref(),
        row.defence.as_deref(),
    ];
    let mut text: Vec<&str> = fields.into_iter().flatten().collect();
    let verdicts = verdicts.join(" ");
    text.push(&verdicts);
    let path = row.path.to_string_lossy();
    text.push(&path);
    text.join(" ").to_lowercase()
}

#[cfg(test)]
mod tests {
    use std::path::PathBuf;

    use super::*;
    use crate::core::corpus::row::SourceVerdict;
    use crate::core::episode::{Outcome, VerdictMethod};

    fn row() -> CorpusRow {
        let verdict = |judge: &str, outcome, score| SourceVerdict {
            judge: judge.into(),
            method: VerdictMethod::Imported,
            model: Some("gpt-5".into()),
            outcome,
            score,
            rating: None,
            turn: None,
            turn_inferred: false,
        };
        CorpusRow {
            path: PathBuf::from(
                "logs/travel_planning/gemini_2.5_flash/baseline/persona2/privacy/x/output_1.json",
            ),
            id: "travel_planning/gemini_2.5_flash/baseline/persona2/privacy/x/output_1".into(),
            task_id: Some("travel_planning_p2_privacy_x".into()),
            domain: Some("travel_planning".into()),
            persona: Some("2".into()),
            attack_type: Some("privacy".into()),
            category: Some("privacy".into()),
            attack: Some("x".into()),
            model: Some("gemini_2.5_flash".into()),
            defence: Some("baseline".into()),
            repeat: Some(1),
            retry: None,
            turns: Some(7),
            events: Some(40),
            verdicts: vec![
                verdict("privacy", Outcome::Fail, None),
                verdict("utility", Outcome::Partial, Some(0.6)),
            ],
            parent: None,
            end: Some("max_turns".into()),
            human: false,
            tools_unreached: false,
            tokens: 0,
            judge_tokens: 0,
        }
    }

    fn matches(expr: &str) -> bool {
        Filter::parse(expr, &[]).unwrap().matches(&row())
    }

    #[test]
    fn fields_globs_numbers_and_judges() {
        assert!(matches("model=gemini* privacy=fail turns>5 defence=baseline"));
        assert!(matches("model=GEMINI*"), "case-insensitive");
        assert!(!matches("model=gpt*"));
        assert!(matches("model!=gpt*"));
        assert!(!matches("turns>7"));
        assert!(matches("turns>=7 turns<=7 turns=7 events<41"));
        assert!(matches("utility>=0.5 utility<0.7 utility=partial"));
        assert!(!matches("security=fail"), "no security verdict");
        assert!(matches("security!=fail"));
        assert!(matches("retry!=1"), "no retry is not retry 1");
        assert!(!matches("retry=1"));
        assert!(matches("judge_model=gpt-5 persona=2 path=*persona2*"));
        assert!(matches("privacy:fail gemini"), "free words match the text");
        assert!(!matches("privacy:pass"));
    }

    /// Issue 23: how an episode ended, whether it is a fork and whether a person played are fields.
    #[test]
    fn end_fork_and_human_are_fields() {
        assert!(matches("end=max_turns fork=no human=no"));
        assert!(!matches("end=aborted"));
        let mut fork = row();
        fork.parent = Some("ep-1".into());
        fork.human = true;
        fork.end = Some("aborted".into());
        let filter = Filter::parse("end=aborted fork=yes human=yes", &[]).unwrap();
        assert!(filter.matches(&fork));
        assert_eq!(fork.excluded(), Some(crate::core::corpus::row::Excluded::Aborted), "aborted first");
    }

    /// Issue 35 item 4: a judge term reads one source's verdicts when it names one, or when the
    /// expression has `judge_model=M`; unbound it reads any source's.
    #[test]
    fn a_judge_term_bound_to_a_source_reads_only_its_verdicts() {
        let mut two = row();
        let mut claude = two.verdicts[0].clone();
        claude.model = Some("claude".into());
        two.verdicts[0].outcome = Outcome::Pass;
        two.verdicts.push(claude);
        let rule = SourceVerdict { method: VerdictMethod::Rule, model: None, ..two.verdicts[0].clone() };
        two.verdicts.push(rule);
        let holds = |expr: &str| Filter::parse(expr, &[]).unwrap().matches(&two);
        assert!(holds("privacy=fail"), "unbound: some source says fail");
        assert!(!holds("judge_model=gpt-5 privacy=fail"), "gpt-5 said pass");
        assert!(holds("judge_model=claude privacy=fail"));
        assert!(holds("judge_model=gpt* privacy=pass"));
        assert!(!holds("privacy[imported:gpt-5]=fail"));
        assert!(holds("privacy[imported:claude]=fail privacy[rule]=pass"));
        assert!(!holds("privacy[llm:claude]=fail"), "another method is another source");
        assert!(holds("privacy[imported:gpt-5]!=fail"));
        assert!(!holds("privacy[human]=fail"));
        assert!(holds("judge_model=gpt-5 privacy[imported:claude]=fail"), "a term's own source wins");
    }

    #[test]
    fn a_term_that_cannot_be_read_is_an_error_naming_it() {
        for (bad, says) in [
            ("privacy[rule=pass", "cannot read 'privacy[rule=pass'"),
            ("privacy[robot]=fail", "unknown verdict source 'robot'"),
            ("privacy[llm]=fail", "llm:MODEL"),
            ("model[rule]=x", "only a judge takes a [SOURCE]"),
            ("=fail", "cannot read"),
        ] {
            let e = Filter::parse(bad, &[]).map(|_| ()).unwrap_err();
            assert!(e.contains(says) && e.contains(bad.split('=').next().unwrap()), "{bad}: {e}");
        }
        assert!(Filter::parse("privacy:fail hello!", &[]).is_ok(), "free words without = < >");
    }

    #[test]
    fn an_unknown_field_lists_the_known_ones() {
        let e = Filter::parse("modle=x", &["refusal".into()]).unwrap_err();
        assert!(e.starts_with("unknown field 'modle': known fields are path, id,"), "{e}");
        assert!(e.ends_with("privacy, security, utility, refusal"), "{e}");
        assert!(Filter::parse("turns>many", &[]).unwrap_err().contains("not a number"));
        assert!(Filter::parse("model>x", &[]).unwrap_err().contains("text field"));
        assert!(Filter::parse("refusal=fail", &["refusal".into()]).is_ok());
    }
}
