//! Comparisons like for like (`summary --vs`, `summary A B`). Two rows of a table that judged
//! different tasks (a defence run on travel tasks only against a baseline over three domains)
//! differ by what they ran as much as by what they are: a difference of their rates pools the
//! two. So each side is restricted to the tasks both judged, its row and samples counted again
//! on them, and what was dropped is said; `--all-tasks` compares them as they are, labelled so.

use std::collections::{BTreeMap, BTreeSet};

use serde::Serialize;

use super::contrast::{Sample, group_samples};
use super::row::CorpusRow;
use super::table::{GroupKey, GroupRow, counted_verdicts, group_rows, group_value};
use crate::core::episode::Outcome;

/// How a table counts: what it groups by, one judge model's verdicts or every one, and whether
/// the episodes kept out of the rates are counted.
#[derive(Debug, Clone, Copy)]
pub struct Counting<'a> {
    pub by: &'a [String],
    pub judge_model: Option<&'a str>,
    pub count_all: bool,
}

/// One side of a comparison: the row `key` of the table, counted over `rows`, the episodes of
/// its group ([`Groups`]).
#[derive(Debug, Clone, Copy)]
pub struct Side<'a> {
    pub rows: &'a [&'a CorpusRow],
    pub key: &'a GroupKey,
}

/// A corpus's episodes by group, made once for every comparison of a table.
pub struct Groups<'a>(BTreeMap<Vec<String>, Vec<&'a CorpusRow>>);

impl<'a> Groups<'a> {
    pub fn of(rows: &'a [CorpusRow], by: &[String]) -> Self {
        let mut groups: BTreeMap<Vec<String>, Vec<&CorpusRow>> = BTreeMap::new();
        for row in rows {
            groups.entry(by.iter().map(|f| group_value(row, f)).collect()).or_default().push(row);
        }
        Groups(groups)
    }

    /// The side of row `key`.
    pub fn side<'k>(&'k self, key: &'k GroupKey) -> Side<'k> {
        Side { rows: self.0.get(&key.0).map_or(&[], Vec::as_slice), key }
    }
}

/// What the two sides were compared on.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "snake_case", tag = "scope")]
pub enum Scope {
    /// Both judged exactly the same tasks: nothing to restrict.
    SameTasks,
    /// Restricted to the tasks both judged: how many, and the judged verdicts dropped from each
    /// side (the reference or A first).
    SharedTasks { tasks: usize, dropped: [usize; 2] },
    /// Compared as they are, whatever tasks each judged (`--all-tasks`).
    AllTasks,
    /// No verdict on either side names its task: compared as they are.
    TasksUnknown,
}

impl Scope {
    /// The table's `like for like` cell; `sides` names the two (`ref`/`row`, `A`/`B`).
    pub fn describe(&self, sides: [&str; 2]) -> String {
        match self {
            Scope::SameTasks => "same tasks".into(),
            Scope::SharedTasks { tasks, dropped: [a, b] } => {
                format!("{tasks} shared task(s); dropped {a} of {}, {b} of {}", sides[0], sides[1])
            }
            Scope::AllTasks => "all tasks, as they are".into(),
            Scope::TasksUnknown => "tasks unknown, as they are".into(),
        }
    }
}

/// The two sides as compared: their rows and samples on the tasks compared.
#[derive(Debug, Clone)]
pub struct Compared {
    pub rows: [Option<GroupRow>; 2],
    pub samples: [Vec<Sample>; 2],
    pub scope: Scope,
}

/// The two sides on the tasks both judged (every task with `all_tasks`).
pub fn like_for_like(counting: Counting, sides: [Side; 2], all_tasks: bool) -> Compared {
    let tasks = sides.map(|side| judged_tasks(counting, side));
    let known = |t: &[Option<String>]| t.iter().flatten().cloned().collect::<BTreeSet<String>>();
    let (a, b) = (known(&tasks[0]), known(&tasks[1]));
    let complete = tasks.iter().all(|t| t.iter().all(Option::is_some));
    let scope = if all_tasks {
        Scope::AllTasks
    } else if a.is_empty() && b.is_empty() {
        Scope::TasksUnknown
    } else if complete && a == b {
        Scope::SameTasks
    } else {
        let shared: BTreeSet<&String> = a.intersection(&b).collect();
        let within = |t: &Option<String>| t.as_ref().is_some_and(|t| shared.contains(t));
        let dropped = tasks.each_ref().map(|t| t.iter().filter(|t| !within(t)).count());
        let scope = Scope::SharedTasks { tasks: shared.len(), dropped };
        let on = |side: Side| {
            counted(counting, side, |row| row.task_id.as_ref().is_some_and(|t| shared.contains(t)))
        };
        let [x, y] = sides.map(on);
        return Compared { rows: [x.0, y.0], samples: [x.1, y.1], scope };
    };
    let [x, y] = sides.map(|side| counted(counting, side, |_| true));
    Compared { rows: [x.0, y.0], samples: [x.1, y.1], scope }
}

/// The row and the samples of `side`, counting only the episodes `keep` keeps.
fn counted(
    counting: Counting,
    side: Side,
    keep: impl Fn(&CorpusRow) -> bool,
) -> (Option<GroupRow>, Vec<Sample>) {
    let rows: Vec<&CorpusRow> = side.rows.iter().copied().filter(|r| keep(r)).collect();
    let Counting { by, judge_model, count_all } = counting;
    let row = group_rows(rows.iter().copied(), by, judge_model, count_all)
        .into_iter()
        .find(|r| same_key(r, side.key));
    let samples =
        group_samples(rows.iter().copied(), by, judge_model, count_all).remove(side.key).unwrap_or_default();
    (row, samples)
}

/// The task of every verdict `side`'s row counts as judged (pass, partial, fail).
fn judged_tasks(counting: Counting, side: Side) -> Vec<Option<String>> {
    counted_verdicts(side.rows.iter().copied(), counting.by, counting.judge_model, counting.count_all)
        .filter(|(key, _, v, excluded)| {
            key == side.key
                && excluded.is_none()
                && matches!(v.outcome, Outcome::Pass | Outcome::Partial | Outcome::Fail)
        })
        .map(|(_, row, _, _)| row.task_id.clone())
        .collect()
}

fn same_key(row: &GroupRow, key: &GroupKey) -> bool {
    let group: Vec<&str> = row.group.values().map(|v| v.as_str().unwrap_or("-")).collect();
    group == key.0.iter().map(String::as_str).collect::<Vec<_>>()
        && row.judge == key.1
        && row.method == key.2
        && row.judge_model == key.3
}

#[cfg(test)]
mod tests {
    use std::path::PathBuf;

    use super::*;
    use crate::core::corpus::row::SourceVerdict;
    use crate::core::episode::VerdictMethod;

    fn run(defence: &str, task: &str, leaked: bool) -> CorpusRow {
        CorpusRow {
            path: PathBuf::from(format!("{defence}/{task}")),
            id: format!("{defence}/{task}"),
            task_id: Some(task.into()),
            defence: Some(defence.into()),
            verdicts: vec![SourceVerdict {
                judge: "privacy".into(),
                method: VerdictMethod::Imported,
                model: Some("gpt-5".into()),
                outcome: if leaked { Outcome::Fail } else { Outcome::Pass },
                score: None,
                rating: None,
                turn: None,
                turn_inferred: false,
            }],
            ..CorpusRow::default()
        }
    }

    fn key(defence: &str) -> GroupKey {
        (vec![defence.into()], "privacy".into(), VerdictMethod::Imported, Some("gpt-5".into()))
    }

    /// A baseline over travel (2 of 2 leak) and insurance (0 of 2), a defence over travel only
    /// (1 of 2): as they are, −0.0 points (50 % vs 50 %); like for like, −50 points on travel.
    #[test]
    fn different_tasks_are_compared_on_the_ones_both_ran() {
        let rows = vec![
            run("baseline", "travel_1", true),
            run("baseline", "travel_2", true),
            run("baseline", "insurance_1", false),
            run("baseline", "insurance_2", false),
            run("defence", "travel_1", false),
            run("defence", "travel_2", true),
        ];
        let by = vec!["defence".to_string()];
        let counting = Counting { by: &by, judge_model: None, count_all: false };
        let (reference, tested) = (key("baseline"), key("defence"));
        let groups = Groups::of(&rows, &by);
        let sides = [groups.side(&reference), groups.side(&tested)];
        let c = like_for_like(counting, sides, false);
        assert_eq!(c.scope, Scope::SharedTasks { tasks: 2, dropped: [2, 0] });
        let rates = c.rows.each_ref().map(|r| r.as_ref().unwrap().asr.unwrap());
        assert_eq!(rates, [1.0, 0.5]);
        assert_eq!(c.samples.each_ref().map(Vec::len), [2, 2]);
        assert_eq!(c.scope.describe(["ref", "row"]), "2 shared task(s); dropped 2 of ref, 0 of row");

        let all = like_for_like(counting, sides, true);
        assert_eq!(all.scope, Scope::AllTasks);
        assert_eq!(all.rows.each_ref().map(|r| r.as_ref().unwrap().asr.unwrap()), [0.5, 0.5]);
    }

    #[test]
    fn the_same_tasks_or_none_known_are_compared_as_they_are() {
        let rows = vec![run("a", "t1", true), run("b", "t1", false)];
        let by = vec!["defence".to_string()];
        let counting = Counting { by: &by, judge_model: None, count_all: false };
        let (a, b) = (key("a"), key("b"));
        let groups = Groups::of(&rows, &by);
        assert_eq!(
            like_for_like(counting, [groups.side(&a), groups.side(&b)], false).scope,
            Scope::SameTasks
        );
        let mut unknown = rows.clone();
        unknown.iter_mut().for_each(|r| r.task_id = None);
        let groups = Groups::of(&unknown, &by);
        let sides = [groups.side(&a), groups.side(&b)];
        assert_eq!(like_for_like(counting, sides, false).scope, Scope::TasksUnknown);
    }
}
