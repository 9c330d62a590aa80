//! Batch overhead per episode: 16 one-request episodes (max-turns 2) at
//! concurrency 4 against a local scripted server that answers at once, so the
//! time is ours (task loading, journals, runs.jsonl, scheduling), not a model's.

#[path = "../tests/support/openai_server.rs"]
mod openai_server;

use criterion::{Criterion, Throughput, criterion_group, criterion_main};

use converse_tui::config::Paths;
use converse_tui::config::settings::{ModelFlags, RoleFlags};
use converse_tui::headless::batch::{BatchArgs, batch};
use converse_tui::session::{RunArgs, SettingFlags, TaskSelection};
use openai_server::{OpenAiServer, Reply};

const EPISODES: usize = 16;

fn overhead(c: &mut Criterion) {
    let runtime = tokio::runtime::Runtime::new().expect("runtime");
    let server = runtime.block_on(OpenAiServer::start(Vec::new()));
    server.set_default(Reply::text(r#"{"text": "Which hotels are near the beach?", "details": ""}"#));
    let home = tempfile::tempdir().expect("tempdir");
    let paths = Paths {
        config_dir: home.path().join("config"),
        // Empty: the bundled sample tasks.
        dataset_dir: home.path().join("dataset"),
        episodes_dir: home.path().join("episodes"),
        log_dir: home.path().join("log"),
        cache_dir: home.path().join("index-cache"),
    };
    let run = RunArgs {
        source: TaskSelection { limit: Some(EPISODES), ..TaskSelection::default() },
        models: ModelFlags {
            base_url: Some(server.base_url()),
            roles: converse_tui::core::llm::PerRole {
                assistant: RoleFlags { base_url: None, model: Some("bench-assistant".into()) },
                attacker: RoleFlags { base_url: None, model: Some("bench-attacker".into()) },
                judge: RoleFlags::default(),
            },
        },
        settings: SettingFlags { max_turns: Some(2), no_stream: true, ..SettingFlags::default() },
        ..RunArgs::default()
    };
    let mut group = c.benchmark_group("batch");
    group.sample_size(10);
    group.throughput(Throughput::Elements(EPISODES as u64));
    let mut n = 0;
    group.bench_function("16_episodes_concurrency_4", |b| {
        b.iter(|| {
            n += 1;
            let mut args = BatchArgs::new(run.clone(), home.path().join(format!("out-{n}")));
            args.repeat = 1;
            args.progress_bar = false;
            let report = runtime
                .block_on(batch(&args, &paths, &mut std::io::sink(), &mut std::io::sink()))
                .expect("batch");
            assert_eq!(report.finished, report.planned);
        })
    });
    group.finish();
}

criterion_group!(benches, overhead);
criterion_main!(benches);
