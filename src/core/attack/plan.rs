//! A search's plan, `attack.json` in its folder beside the node journals (as a fan keeps
//! `fan.json`): what was asked (task, root, strategy and its shape, models, budget), and where
//! it stands (calls used, the best node, how it ended). Written atomically whenever that changes;
//! `--resume` reads it back and continues the same search.

use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use super::meter::CallCounts;
use super::node::{Leak, NodeId};
use super::params::SearchParams;
use crate::core::batch_files::ATTACK_PLAN_FILE;

pub const FORMAT: &str = "converse-tui-attack/1";

/// Where the search starts: its own first turn (`root.jsonl`), or a turn of an episode.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct RootRef {
    /// The root's journal or episode file (relative paths are relative to the search folder).
    pub file: PathBuf,
    pub episode: String,
    /// The last turn of the root every node continues from.
    pub turn: u32,
}

/// How the search stands.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, strum::IntoStaticStr)]
#[serde(rename_all = "snake_case")]
#[strum(serialize_all = "lowercase")]
pub enum Status {
    Running,
    /// An attack judge saw a leak: the search stopped there.
    Leak,
    /// Every node the strategy plans ran, none leaked.
    #[strum(serialize = "nothing found")]
    NothingFound,
    /// The call budget ran out first.
    #[strum(serialize = "budget spent")]
    BudgetSpent,
    /// Every branch was pruned (TAP).
    #[strum(serialize = "all pruned")]
    AllPruned,
    /// Stopped by the user (or a signal) before it was done.
    Stopped,
}

impl Status {
    pub fn as_str(self) -> &'static str {
        self.into()
    }
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Best {
    pub node: NodeId,
    pub score: Option<u8>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub leak: Option<Leak>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct AttackPlan {
    pub format: String,
    pub task: String,
    pub root: RootRef,
    pub params: SearchParams,
    /// Model per role as the nodes record them (`assistant`: the agent, for an external one).
    pub models: Map<String, Value>,
    /// The models and their endpoints, which `--resume` checks (absent before it existed: then
    /// `models` says, without endpoints).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub run_with: Option<crate::core::run_with::RunWith>,
    /// The external agent under attack (`a2a:…`, `cmd:…`), when one is.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub assistant_agent: Option<String>,
    /// The catalogue files that extended the bundled one (GOAT), as given.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub techniques: Vec<PathBuf>,
    /// The call budget (`None`: calls are counted, not capped).
    pub budget: Option<u64>,
    pub calls: CallCounts,
    pub status: Status,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub best: Option<Best>,
    /// Nodes whose journals are done.
    pub nodes: usize,
    /// What a person did to the search, in order (a resume does it again at the same points).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub hand: Vec<HandOp>,
}

/// A person's hand on a running search (the screen's prune, expand, edit-and-continue, pin).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "op", rename_all = "snake_case")]
pub enum HandOp {
    /// The node and what is below it are out of the search from its `at`-th round of decisions
    /// on (a TAP turn's ranking, a Crescendo or GOAT node), so a resume prunes at the same point.
    Prune { node: NodeId, at: u32 },
    /// A child of `node` made by hand: the attacker's (no `text`) or a person's message; with
    /// `pin`, the branch is run on from it to the search's depth or a leak (children `h1`,
    /// `h1-h1`…), whatever the strategy decides.
    Expand { node: NodeId, child: NodeId, text: Option<String>, pin: bool },
}

impl AttackPlan {
    pub fn write(&self, dir: &Path) -> anyhow::Result<()> {
        crate::core::plan_file::write(&dir.join(ATTACK_PLAN_FILE), self, "search plan")
    }

    /// The plan in `dir` (`None`: the folder holds no search).
    pub fn read(dir: &Path) -> anyhow::Result<Option<AttackPlan>> {
        let path = dir.join(ATTACK_PLAN_FILE);
        let plan: Option<AttackPlan> = crate::core::plan_file::read(&path, "search plan")?;
        if let Some(plan) = &plan
            && plan.format != FORMAT
        {
            anyhow::bail!("{}: format {:?}, this program reads {FORMAT:?}", path.display(), plan.format);
        }
        Ok(plan)
    }

    /// The root's file, resolved against the search folder.
    pub fn root_file(&self, dir: &Path) -> PathBuf {
        if self.root.file.is_absolute() { self.root.file.clone() } else { dir.join(&self.root.file) }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::core::attack::params::Strategy;

    #[test]
    fn statuses_and_strategies_read_as_the_screen_and_the_table_say_them() {
        let statuses = [
            Status::Running,
            Status::Leak,
            Status::NothingFound,
            Status::BudgetSpent,
            Status::AllPruned,
            Status::Stopped,
        ];
        let words = statuses.map(Status::as_str);
        assert_eq!(words, ["running", "leak", "nothing found", "budget spent", "all pruned", "stopped"]);
        let strategies = [Strategy::Crescendo, Strategy::Goat, Strategy::Tap].map(Strategy::as_str);
        assert_eq!(strategies, ["crescendo", "goat", "tap"]);
    }

    #[test]
    fn a_plan_reads_back_and_a_broken_one_is_named() {
        let dir = tempfile::tempdir().unwrap();
        assert_eq!(AttackPlan::read(dir.path()).unwrap(), None);
        let plan = AttackPlan {
            format: FORMAT.into(),
            task: "travel_1".into(),
            root: RootRef { file: "root.jsonl".into(), episode: "ep".into(), turn: 1 },
            params: SearchParams::new(Strategy::Tap),
            models: Map::new(),
            run_with: None,
            assistant_agent: None,
            techniques: Vec::new(),
            budget: Some(300),
            calls: CallCounts { attacker: 1, assistant: 2, judge: 3 },
            status: Status::Running,
            best: Some(Best { node: NodeId::root().child(1), score: Some(4), leak: None }),
            nodes: 2,
            hand: vec![
                HandOp::Prune { node: NodeId::root().child(2), at: 3 },
                HandOp::Expand {
                    node: NodeId::root().child(1),
                    child: NodeId::root().child(1).hand_child(2),
                    text: Some("mine".into()),
                    pin: true,
                },
            ],
        };
        plan.write(dir.path()).unwrap();
        assert_eq!(AttackPlan::read(dir.path()).unwrap(), Some(plan.clone()));
        assert_eq!(plan.root_file(dir.path()), dir.path().join("root.jsonl"));
        std::fs::write(dir.path().join(ATTACK_PLAN_FILE), "{\"format\": 3").unwrap();
        let problem = AttackPlan::read(dir.path()).unwrap_err().to_string();
        assert!(problem.contains("attack.json: not a search plan"), "{problem}");
    }
}
