//! Resuming a 10,000-entry transcript: reading the JSONL (every line checked), rebuilding the
//! history, and loading it into an agent. Target: at most 100 ms. Run with
//! `cargo bench --bench transcript_resume`.

use agentwire::agent::{Agent, AgentConfig};
use agentwire::model::ToolCall;
use agentwire::policy::Policy;
use agentwire::registry::Registry;
use agentwire::transcript::{parse_jsonl, Entry, Transcript};
use criterion::{black_box, criterion_group, criterion_main, Criterion};
use serde_json::json;
use std::time::Duration;

/// 10,000 entries: turns of a request, four tool steps with ~600-byte results, an answer.
fn transcript() -> String {
    let mut t = Transcript::new("bench");
    let mut n = 0;
    while t.entries().len() < 10_000 {
        t.append(Entry::User {
            content: format!("turn {n}: look at the files under src/ and report what changed"),
        });
        for step in 0..4 {
            let id = format!("call_{n}_{step}");
            t.append(Entry::Assistant {
                content: None,
                tool_calls: vec![ToolCall {
                    id: id.clone(),
                    name: "read_file".into(),
                    arguments: json!({"path": format!("src/file_{step}.rs")}),
                }],
                usage: None,
            });
            t.append(Entry::ToolResult {
                call_id: id,
                name: "read_file".into(),
                content: "fn main() { println!(\"hello\"); } // ".repeat(16),
                is_error: false,
            });
        }
        t.append(Entry::Assistant {
            content: Some(format!("Turn {n}: nothing changed.")),
            tool_calls: vec![],
            usage: None,
        });
        n += 1;
    }
    t.to_jsonl()
}

fn resume(c: &mut Criterion) {
    let text = transcript();
    let mut group = c.benchmark_group("transcript_resume");
    group.measurement_time(Duration::from_secs(5));
    group.sample_size(20);
    group.bench_function("10k entries: parse, rebuild, load", |b| {
        b.iter(|| {
            let parsed = parse_jsonl(black_box(&text)).unwrap();
            let history = parsed.transcript.history();
            let mut agent = Agent::new(Registry::new(), Policy::new(), AgentConfig::default());
            agent.set_history(history).unwrap();
            black_box(agent.history().len())
        })
    });
    group.finish();
}

criterion_group!(benches, resume);
criterion_main!(benches);
