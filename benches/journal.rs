//! Journal parsing throughput (MB/s) over a generated journal of realistic events.

use criterion::{Criterion, Throughput, criterion_group, criterion_main};

use converse_tui::core::episode::*;

/// A 40-turn episode with tool calls and verdicts, repeated until about `bytes` long.
fn journal_bytes(bytes: usize) -> Vec<u8> {
    let header = EpisodeHeader::new("bench", TaskInfo::default(), EpisodeConfig::default());
    let mut bodies = vec![EventBody::Episode(Box::new(header))];
    let text =
        "I can offer the Hotel Azul in Alfama, 3 nights at 120 EUR per night, breakfast included. ".repeat(6);
    let mut turn = 1;
    let mut size = 0;
    while size < bytes {
        let message = |from, to| {
            EventBody::Message(Message {
                turn,
                from,
                to,
                text: text.clone(),
                raw: None,
                model: Some("gpt-4o".into()),
                usage: Some(Usage { input_tokens: 1200, output_tokens: 180 }),
                by: None,
            })
        };
        bodies.push(message(Party::Attacker, Party::Assistant));
        bodies.push(EventBody::from(ToolCall {
            turn,
            call_id: format!("call-{turn}"),
            tool: "search_emails".into(),
            args: serde_json::json!({"query": "Lisbon"}),
            raw_args: None,
            raw: None,
            late: false,
        }));
        bodies.push(EventBody::ToolResult(ToolResult {
            turn,
            call_id: format!("call-{turn}"),
            tool: "search_emails".into(),
            output: text.clone(),
            ok: true,
            raw: None,
        }));
        bodies.push(message(Party::Assistant, Party::Attacker));
        size += text.len() * 3 + 600;
        turn += 1;
    }
    let mut out = Vec::new();
    for event in stamp_events(bodies, "2026-11-20T10:00:00Z") {
        serde_json::to_writer(&mut out, &event).unwrap();
        out.push(b'\n');
    }
    out
}

fn parse(c: &mut Criterion) {
    let bytes = journal_bytes(8 * 1024 * 1024);
    let mut group = c.benchmark_group("journal");
    group.throughput(Throughput::Bytes(bytes.len() as u64));
    group.sample_size(20);
    group.bench_function("parse_8MB", |b| {
        b.iter(|| {
            let (events, _) = read_journal_from(bytes.as_slice(), "bench.jsonl").unwrap();
            assert!(events.len() > 100);
        })
    });
    group.finish();
}

criterion_group!(benches, parse);
criterion_main!(benches);
