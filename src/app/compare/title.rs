//! What each side's title says.

use std::path::PathBuf;

use crate::core::corpus::row::CorpusRow;
use crate::core::episode::Episode;
use crate::core::sanitize::single_line;

/// What a side's title says: the run (model, defence, persona, repeat) or the journal (id, models).
#[derive(Debug, Clone, PartialEq)]
pub struct SideTitle {
    pub name: String,
    pub detail: String,
}

impl SideTitle {
    pub fn of(episode: &Episode) -> Self {
        let row = CorpusRow::of(episode, PathBuf::from(&episode.origin), &[]);
        let benchmark = row.defence.is_some() || row.repeat.is_some();
        let name: Vec<String> = if benchmark {
            [
                row.model.clone(),
                row.defence.clone(),
                row.persona
                    .as_ref()
                    .map(|p| if p.starts_with("persona") { p.clone() } else { format!("persona{p}") }),
                row.repeat.map(|r| format!("rep {r}")),
            ]
            .into_iter()
            .flatten()
            .collect()
        } else {
            let models = &episode.header().config.models;
            let model =
                |role: &str| models.get(role).map(|m| m.as_str().map_or_else(|| m.to_string(), String::from));
            [
                Some(row.id.clone()),
                model("assistant").map(|m| format!("assistant {m}")),
                model("attacker").map(|m| format!("attacker {m}")),
            ]
            .into_iter()
            .flatten()
            .collect()
        };
        let detail: Vec<String> = [
            episode.header().parent.as_ref().map(|p| format!("fork of {} at #{}", p.episode, p.seq)),
            row.task_id.clone().or(row.attack.clone()),
            std::path::Path::new(&episode.origin).file_name().map(|f| f.to_string_lossy().into_owned()),
        ]
        .into_iter()
        .flatten()
        .collect();
        SideTitle {
            name: single_line(&name.join(" · ")).into_owned(),
            detail: single_line(&detail.join(" · ")).into_owned(),
        }
    }
}
