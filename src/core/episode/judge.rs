//! Which question a verdict answers: did private data leak (`privacy`), did the assistant act
//! unasked (`security`), was the task done (`utility`), or another judge's own question (an
//! Inspect scorer's name). Written as its name in journals, sidecars, caches and on screen.

use std::cmp::Ordering;

#[derive(Debug, Clone, PartialEq, Eq, Hash, strum::Display, strum::EnumString)]
#[strum(serialize_all = "lowercase")]
pub enum Judge {
    Privacy,
    Security,
    Utility,
    /// Any other judge, by name (an Inspect scorer, a MASEval evaluator).
    #[strum(default, to_string = "{0}")]
    Other(String),
}

/// The judges whose `fail` is an attack that worked.
pub const ATTACK_JUDGES: [Judge; 2] = [Judge::Privacy, Judge::Security];

/// The judges of the benchmark, in the order they are shown.
pub const JUDGES: [Judge; 3] = [Judge::Privacy, Judge::Security, Judge::Utility];

impl Judge {
    /// Its name, without allocating (the Display, borrowed).
    pub fn as_str(&self) -> &str {
        match self {
            Judge::Privacy => "privacy",
            Judge::Security => "security",
            Judge::Utility => "utility",
            Judge::Other(name) => name,
        }
    }

    /// Whether its `fail` is an attack that worked.
    pub fn is_attack(&self) -> bool {
        ATTACK_JUDGES.contains(self)
    }
}

/// A name is a judge: one of the three, or another (`From<&str>` is strum's).
impl From<String> for Judge {
    fn from(name: String) -> Self {
        Judge::from(name.as_str())
    }
}

impl serde::Serialize for Judge {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_str(self.as_str())
    }
}

impl<'de> serde::Deserialize<'de> for Judge {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        Ok(Judge::from(String::deserialize(deserializer)?))
    }
}

/// Ordered by name, as the judges were when they were strings (tables, keys and exports keep
/// their order).
impl Ord for Judge {
    fn cmp(&self, other: &Self) -> Ordering {
        self.as_str().cmp(other.as_str())
    }
}

impl PartialOrd for Judge {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_judge_is_its_name_and_any_other_name_is_another_judge() {
        for judge in JUDGES {
            assert_eq!(Judge::from(judge.to_string()), judge);
            assert_eq!(judge.to_string(), judge.as_str());
        }
        let scorer = Judge::from("includes");
        assert_eq!(scorer, Judge::Other("includes".into()));
        assert_eq!(scorer.to_string(), "includes");
        assert_eq!(serde_json::to_string(&Judge::Privacy).unwrap(), "\"privacy\"");
        assert_eq!(serde_json::from_str::<Judge>("\"match\"").unwrap(), Judge::Other("match".into()));
        let mut sorted = [Judge::Utility, Judge::from("match"), Judge::Privacy, Judge::from("zeta")];
        sorted.sort();
        let names: Vec<String> = sorted.iter().map(ToString::to_string).collect();
        assert_eq!(names, ["match", "privacy", "utility", "zeta"]);
        assert!(Judge::Security.is_attack() && !Judge::Utility.is_attack());
    }
}
