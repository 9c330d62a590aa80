//! Files in, verdicts out: the importers, the dataset, the rule judges and redaction on real fixtures, and the official Python packages we are checked against.

#[path = "../support/mod.rs"]
mod support;

mod compat;
mod dataset_download;
mod dataset_load;
mod dataset_persona;
mod dataset_sample;
mod demo_episodes;
mod episode_tasks;
mod export_inspect;
mod import_benchmark;
mod import_converse;
mod import_inspect;
mod import_malformed;
mod import_maseval;
mod inspect_shapes;
mod inspect_writer;
mod judge_fixtures;
mod judge_rules;
mod redact_personas;
mod rule_agreement;
mod valid_documents;
