//! Redaction on the real CONVERSE personas (`tests/fixtures/converse-dataset`):
//! every secret the benchmark looks for is masked, and no lone dictionary word is.

use std::sync::Arc;

use converse_tui::core::dataset::{DatasetSource, Environment, Evaluation, Task, TaskFilter, load_tasks};
use converse_tui::core::episode::{Episode, EpisodeConfig, EpisodeHeader, EventBody, stamp_events};
use converse_tui::core::redact::Redactor;
use converse_tui::core::redact_episode::redactor_from_episode;
use converse_tui::core::words::is_dictionary_word;

fn real_tasks() -> Vec<Task> {
    let source = DatasetSource::Dir(
        concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fixtures/converse-dataset/resources").into(),
    );
    load_tasks(&source, &TaskFilter::default()).expect("the real dataset loads").tasks
}

/// Each of the 12 personas once, with its redactor.
fn personas(tasks: &[Task]) -> Vec<(Arc<Environment>, Redactor)> {
    let mut out: Vec<(Arc<Environment>, Redactor)> = Vec::new();
    for task in tasks {
        if !out.iter().any(|(env, _)| Arc::ptr_eq(env, &task.environment)) {
            out.push((Arc::clone(&task.environment), Redactor::from_environment(&task.environment)));
        }
    }
    out
}

/// What would identify: words that are no dictionary word (names, places, terms) and numbers.
fn telling_parts(text: &str) -> Vec<String> {
    text.split(|c: char| !c.is_alphanumeric() && c != '-')
        .map(|w| w.trim_matches('-'))
        .filter(|w| {
            let digits = w.chars().filter(char::is_ascii_digit).count();
            digits >= 4 || (digits == 0 && w.chars().count() >= 3 && !is_dictionary_word(w))
        })
        .map(str::to_string)
        .collect()
}

fn snippets(task: &Task) -> &[String] {
    match &task.evaluation {
        Evaluation::PrivacyLeak { ground_truth_snippets, .. } => ground_truth_snippets,
        Evaluation::PrivacyAbstraction { raw_data, .. } => raw_data,
        Evaluation::Security { .. } => &[],
    }
}

/// Issue 11: a word split off a private value is not masked in anyone's text when
/// it is an ordinary word ("clinic", "confirmed", "well-controlled"). Every dictionary
/// word of every real persona file, written in lower case in a sentence, comes out as it
/// went in — but for the few that are a whole value on their own (`Religion: Agnostic`):
/// those are the secret itself.
#[test]
fn no_dictionary_word_of_a_real_persona_is_masked_alone() {
    let tasks = real_tasks();
    let mut checked = 0;
    for (env, r) in personas(&tasks) {
        let whole_values: Vec<String> = env
            .persona_text
            .lines()
            .filter_map(|l| l.split_once(':'))
            .map(|(_, v)| v.trim().trim_matches('*').trim().to_ascii_lowercase())
            .collect();
        let mut words: Vec<String> = env
            .persona_text
            .split(|c: char| !c.is_ascii_alphabetic() && c != '-')
            .map(|w| w.trim_matches('-').to_ascii_lowercase())
            .filter(|w| w.len() >= 3 && is_dictionary_word(w) && !whole_values.contains(w))
            .collect();
        words.sort();
        words.dedup();
        for word in words {
            let text = format!("we checked the {word} ourselves");
            assert_eq!(r.redact(&text), text, "persona {} {}", env.domain, env.persona);
            checked += 1;
        }
    }
    assert!(checked > 5_000, "{checked}");
}

/// The secrets of every real persona stay masked: the user's name (whole and each
/// part), email, phone, address, date of birth, ids, every medical and banking
/// value, and the full names of the people in its emails and calendar.
#[test]
fn every_real_secret_of_a_persona_is_masked() {
    let tasks = real_tasks();
    let rs = personas(&tasks);
    assert_eq!(rs.len(), 12);
    let mut checked = 0;
    for (env, r) in &rs {
        let who = format!("{} persona {}", env.domain, env.persona);
        let mut secrets: Vec<String> = Vec::new();
        let mut name_words: Vec<String> = Vec::new();
        for line in env.general_info.lines() {
            let Some((key, value)) = line.trim().trim_start_matches(['-', '*', ' ']).split_once(':') else {
                continue;
            };
            let (key, value) =
                (key.trim().trim_matches('*').to_lowercase(), value.trim().trim_matches('*').trim());
            let sensitive = ["name", "email", "phone", "address", "birth", "passport", "number", "ssn", "id"];
            if !value.is_empty()
                && sensitive.iter().any(|k| {
                    key.split(|c: char| !c.is_alphanumeric()).any(|w| w == *k) || key.contains("birth")
                })
            {
                secrets.push(value.to_string());
                if key == "name" || key == "full name" {
                    name_words.extend(
                        value
                            .split_whitespace()
                            .map(|w| w.trim_matches(|c: char| !c.is_alphanumeric()).to_string()),
                    );
                }
            }
        }
        for section in [&env.medical, &env.banking] {
            for line in section.lines() {
                let line = line.trim().trim_start_matches(['-', '*', '•']).trim();
                if let Some((_, value)) = line.split_once(':') {
                    let value = value.trim().trim_matches('*').trim();
                    if !value.is_empty() && !is_dictionary_word(value) {
                        secrets.push(value.to_string());
                    }
                }
            }
        }
        for person in env
            .emails
            .iter()
            .map(|e| e.from.as_str())
            .chain(env.calendar.iter().map(|c| c.participants.as_str()))
        {
            for part in person.split([',', ';']) {
                let name = part.split(['(', '<']).next().unwrap_or("").trim();
                if (2..=4).contains(&name.split_whitespace().count())
                    && name.split_whitespace().all(|w| {
                        w.starts_with(|c: char| c.is_uppercase())
                            && w.chars().all(|c| c.is_alphabetic() || c == '.' || c == '-')
                    })
                {
                    secrets.push(name.to_string());
                }
            }
        }
        secrets.extend(name_words.iter().cloned());
        // Values of one or two characters (an age, `UK`) are never masked: every "28" would go.
        secrets.retain(|s| s.chars().filter(|c| c.is_alphanumeric()).count() >= 3);
        assert!(secrets.len() >= 10, "{who}: {secrets:?}");
        for secret in secrets {
            for written in [secret.clone(), secret.to_lowercase()] {
                // A name that is also a word (`Bob`) is masked as written, capitalised.
                if name_words.contains(&secret) && written != secret && is_dictionary_word(&written) {
                    continue;
                }
                let text = format!("note: {written}.");
                let masked = r.redact(&text);
                let left: Vec<String> =
                    telling_parts(&written).into_iter().filter(|p| masked.contains(p.as_str())).collect();
                assert!(masked != text && left.is_empty(), "{who}: {text:?} → {masked:?} (left {left:?})");
                checked += 1;
            }
        }
    }
    println!("{checked} secrets");
}

/// Exports (`--redact`) and journals without the dataset mask with what the
/// episode's task names: each snippet the benchmark looks for, whole, and its
/// proper nouns alone (`Hollybrook`, `BBC`).
#[test]
fn every_snippet_the_benchmark_looks_for_is_masked_in_exports() {
    let mut checked = 0;
    let mut missed = Vec::new();
    for task in real_tasks() {
        let header = EpisodeHeader::new("ep", task.to_task_info(), EpisodeConfig::default());
        let episode = Episode::new(
            stamp_events(vec![EventBody::Episode(Box::new(header))], "2026-01-01T00:00:00Z"),
            "x",
        );
        let r = redactor_from_episode(&episode);
        // Values of one or two characters (an age) are never masked: every "28" would go.
        for snippet in
            snippets(&task).iter().filter(|s| s.chars().filter(|c| c.is_alphanumeric()).count() >= 3)
        {
            let text = format!("The assistant wrote: {snippet}.");
            let masked = r.redact(&text);
            checked += 1;
            if masked.contains(snippet.as_str()) {
                missed.push(format!("{}: {snippet:?} → {masked:?}", task.id));
            }
            let proper_nouns = telling_parts(snippet).into_iter().filter(|p| {
                p.starts_with(|c: char| c.is_uppercase()) && !p.contains(|c: char| c.is_ascii_digit())
            });
            for part in proper_nouns {
                let text = format!("about {part} again");
                if r.redact(&text) == text {
                    missed.push(format!("{}: part {part:?} of {snippet:?}", task.id));
                }
            }
        }
    }
    assert!(checked > 1_000, "{checked}");
    assert!(missed.is_empty(), "{} missed:\n{}", missed.len(), missed.join("\n"));
}
