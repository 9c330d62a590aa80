//! Prompts for the simulated parties, written for this project; the
//! reference (converse-reference.md §2.3, §2.4, §4.5) gives their intent.

pub mod assistant;
pub mod attacker;
pub mod reply;

pub use assistant::{ASSISTANT_SECTIONS, assistant_prompt_from_file, assistant_system_prompt};
pub use attacker::{
    AttackerHistoryRole, OUTER_SECTIONS, SCENARIO_SECTIONS, attacker_prompt, attacker_scenario,
};
pub use reply::{AttackerReply, parse_attacker_reply};
