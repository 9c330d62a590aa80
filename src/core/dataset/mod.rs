//! CONVERSE tasks: the dataset layouts, persona text, attack files, the
//! bundled sample and the download into the cache (converse-reference.md §1).

pub mod attacks;
pub mod domain;
pub mod domain_config;
pub mod download;
pub mod error;
pub mod load;
pub mod lookup;
pub mod persona;
pub mod sample;
pub mod store;
pub mod task;
pub mod verify;

pub use domain::{Domain, PERSONAS};
pub use error::DatasetError;
pub use load::holds_data;
pub use load::{LoadedTasks, Split, TaskFilter, load_tasks, resolve_source};
pub use lookup::{Enriched, TaskLookup, lacks_task_fields};
pub use persona::{CalendarEntry, Email, PersonaData, parse_persona_text};
pub use store::{DatasetSource, FileKind, Layout, SourceInfo, SourceKind, detect_layout, nested_dataset};
pub use task::{AttackType, Environment, Evaluation, Task, UserData};
pub use verify::{DomainCheck, verify};
