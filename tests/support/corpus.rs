//! A generated corpus in the ConVerse benchmark layout, for tests and benches:
//! N episodes made from the shapes of the real runs in
//! `tests/fixtures/converse-benchmark-logs` (their records, their judge files),
//! with model, defence, domain, persona, attack and outcomes varied by a
//! seeded generator. Every episode gets a privacy or security judge file
//! (some two, from two judge models; a few holding only an error) and a
//! utility one; benign runs only the utility one.
// Each binary that includes this module (tests, benches, the example) uses a part of it.
#![allow(dead_code)]

use std::path::{Path, PathBuf};

use serde_json::{Value, json};

const MODELS: &[&str] =
    &["gpt_5_chat", "claude_sonnet_4_0", "gemini_2.5_pro", "gemini_2.5_flash", "o3_mini", "grok_3"];
const DEFENCES: &[&str] = &[
    "baseline",
    "firewalls_data_abstraction",
    "firewalls_language_converter",
    "firewalls_data_abstraction_language_converter",
];
const DOMAINS: &[&str] = &["travel_planning", "insurance", "real_estate"];
const CATEGORIES: &[&str] = &["privacy", "privacy", "security", "security", "benign_easy"];
const ATTACKS: &[&str] = &[
    "unrelated_to_travel_bank_ifsc_code",
    "related_but_private_government_id_numbers",
    "email_manipulation_attack_8",
    "professional_liability_exploitation_attack_6",
];
const JUDGE_MODELS: &[&str] = &["gpt-5", "claude-sonnet-4-5"];

/// SplitMix64: deterministic, no dependency.
pub struct Rng(u64);

impl Rng {
    pub fn new(seed: u64) -> Self {
        Rng(seed)
    }

    pub fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    pub fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }

    pub fn pick<'a>(&mut self, items: &[&'a str]) -> &'a str {
        items[self.below(items.len())]
    }
}

/// The records of every fixture episode: the bodies the generated runs reuse.
fn templates(fixture: &Path) -> Vec<Value> {
    let mut found = Vec::new();
    let mut dirs = vec![fixture.to_path_buf()];
    while let Some(dir) = dirs.pop() {
        let mut entries: Vec<PathBuf> = std::fs::read_dir(&dir).unwrap().map(|e| e.unwrap().path()).collect();
        entries.sort();
        for path in entries {
            let name = path.file_name().unwrap().to_string_lossy().into_owned();
            if path.is_dir() {
                dirs.push(path);
            } else if name.starts_with("output_") && name.ends_with(".json") {
                found.push(serde_json::from_slice(&std::fs::read(&path).unwrap()).unwrap());
            }
        }
    }
    found
}

/// The benches' shared corpus of `episodes` generated runs in `target/corpus-10k`, made on first use.
pub fn bench_corpus_dir(episodes: usize) -> PathBuf {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("target/corpus-10k");
    let done = dir.join(".complete");
    if !done.exists() {
        let _ = std::fs::remove_dir_all(&dir);
        generate(&dir, episodes, 10_000);
        std::fs::write(&done, "").expect("marker");
    }
    dir
}

/// The fixture the generator takes its shapes from.
pub fn fixture_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/converse-benchmark-logs")
}

/// Writes `n` episodes under `dir/logs/…`; returns the number of judge files written.
pub fn generate(dir: &Path, n: usize, seed: u64) -> usize {
    let templates = templates(&fixture_dir());
    let mut rng = Rng::new(seed);
    let mut judge_files = 0;
    for i in 0..n {
        let (domain, model, defence) = (rng.pick(DOMAINS), rng.pick(MODELS), rng.pick(DEFENCES));
        let persona = 1 + rng.below(4);
        let category = rng.pick(CATEGORIES);
        let attack = if category.starts_with("benign") { "benign_simulation" } else { rng.pick(ATTACKS) };
        let folder = dir
            .join("logs")
            .join(domain)
            .join(model)
            .join(defence)
            .join(format!("persona{persona}"))
            .join(category)
            .join(attack);
        std::fs::create_dir_all(&folder).unwrap();
        // Unique per episode: the index is the time of day.
        let suffix =
            format!("2025{:02}{:02}_{:06}_rep{}", 1 + i % 12, 1 + i % 28, i % 1_000_000, 1 + rng.below(3));
        let body = &templates[rng.below(templates.len())];
        std::fs::write(folder.join(format!("output_{suffix}.json")), serde_json::to_vec(body).unwrap())
            .unwrap();

        let two_models = rng.below(5) == 0;
        let models = if two_models { JUDGE_MODELS } else { &JUDGE_MODELS[..1] };
        for judge_model in models {
            let mut write = |kind: &str, content: Value| {
                let name = format!("{kind}_judge_{judge_model}_{suffix}.json");
                std::fs::write(folder.join(name), serde_json::to_vec_pretty(&content).unwrap()).unwrap();
                judge_files += 1;
            };
            match category {
                "privacy" => write("privacy", privacy_judge(&mut rng)),
                "security" => write("security", security_judge(&mut rng)),
                _ => {}
            }
            write("utility", utility_judge(&mut rng));
        }
    }
    judge_files
}

fn privacy_judge(rng: &mut Rng) -> Value {
    let leaked = if rng.below(2) == 0 { "yes" } else { "no" };
    if rng.below(4) == 0 {
        let score = rng.below(11);
        return json!({
            "evaluation_type": "abstraction_appropriateness",
            "data_item": "Home address",
            "raw_data": ["12 Example Road"],
            "acceptable_abstraction": "the city",
            "llm_evaluation": {"reasoning": "generated", "shared_raw_data": leaked,
                               "abstraction_level": "partial", "appropriateness_score": score},
        });
    }
    json!({
        "evaluation_type": "information_leak",
        "data_item": "Bank IFSC code",
        "extraction_snippets": ["HDFC0001234"],
        "llm_evaluation": {"reasoning": "generated", "leaked_information": leaked, "confidence_score": 9,
                           "specific_violations": []},
        "conversation_analyzed": "Assistant: …",
    })
}

fn security_judge(rng: &mut Rng) -> Value {
    if rng.below(25) == 0 {
        return json!({"error": "Final package required for final package attack evaluation",
                      "attack_success": "Failed", "confidence": 0.0});
    }
    let answer = ["Successful", "Partial", "Failed"][rng.below(3)];
    json!({"evaluation_type": "toolkit_attack", "attack_name": "generated", "attack_success": answer,
           "reasoning": "generated", "confidence": 0.9})
}

fn utility_judge(rng: &mut Rng) -> Value {
    let of = 3 + rng.below(4);
    let covered = rng.below(of + 1);
    let rated = rng.below(of + 1);
    json!({
        "persona_id": 1,
        "utility_evaluation": {"REASONING": "generated", "UTILITY": {"HOW_MANY_ITEMS_COVERED": format!("{covered}/{of}")}},
        "ratings_evaluation": {"average_rating": 5.0 + rng.below(50) as f64 / 10.0, "num_items_rated": rated},
        "final_package_text": "",
    })
}
