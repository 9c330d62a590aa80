//! Attack search (issue 40): Crescendo, GOAT and TAP over the fork tree. Every node of a search
//! is a fork journal of its parent (the candidate attacker message, the assistant's reply, the
//! judges' verdicts, the search's score and decisions), so everything that reads forks reads a
//! search; the search's plan and its call count sit beside them. The engine that runs it is
//! `session::attack`.

pub mod candidate;
pub mod catalogue;
pub mod meter;
pub mod node;
pub mod params;
pub mod plan;
pub mod prompts;
pub mod reply;

pub use params::{SearchParams, Strategy};

/// What the error of a call refused by the budget says (`core::llm::BudgetSpent`), so that a node
/// cut short by it is told from one that failed.
pub const BUDGET_SPENT: &str = "the call budget of";

#[cfg(test)]
pub(crate) fn test_task() -> crate::core::dataset::Task {
    use crate::core::dataset::{DatasetSource, TaskFilter, load_tasks};
    let loaded = load_tasks(&DatasetSource::Sample, &TaskFilter::default()).unwrap();
    loaded
        .tasks
        .into_iter()
        .find(|t| t.id == "travel_planning_p1_privacy_unrelated_to_travel_salary")
        .unwrap()
}

#[cfg(test)]
mod tests {
    #[test]
    fn a_call_refused_by_the_budget_says_so_in_the_words_nodes_are_read_by() {
        let spent = crate::core::llm::BudgetSpent { limit: 7 }.to_string();
        assert!(spent.starts_with(super::BUDGET_SPENT), "{spent}");
    }
}
