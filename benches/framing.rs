//! Framing + parsing throughput against plain `serde_json::from_slice::<Value>` on the same bytes.
//!
//! Two workloads: 100,000 small `tools/call` responses (about 200 bytes each), and one 50 MB
//! response whose result is a big text, fed whole and in 64 KiB and 1 KiB chunks. Run with
//! `cargo bench --bench framing`, or `scripts/bench-framing` for a summary table.

use agentwire::framing::LineDecoder;
use criterion::{black_box, criterion_group, criterion_main, Criterion, SamplingMode, Throughput};
use serde_json::{json, Value};
use std::time::Duration;

/// 100,000 realistic small responses, one per line, and where each line ends.
fn small_messages() -> (Vec<u8>, Vec<(usize, usize)>) {
    let repos = ["octo/website", "acme/payments-api", "tools/agentwire"];
    let mut bytes = Vec::new();
    let mut lines = Vec::new();
    for i in 0..100_000u64 {
        let repo = repos[i as usize % repos.len()];
        let text = format!(
            "Found {} open issues in {repo}: #{} Fix login redirect on Safari, #{} Add dark mode",
            i % 17,
            i % 900 + 12,
            i % 700 + 40
        );
        let message = json!({
            "jsonrpc": "2.0",
            "id": i,
            "result": {"content": [{"type": "text", "text": text}], "isError": false}
        });
        let start = bytes.len();
        serde_json::to_writer(&mut bytes, &message).expect("serialises");
        lines.push((start, bytes.len()));
        bytes.push(b'\n');
    }
    (bytes, lines)
}

/// One response of about 50 MB: a log-like text with escaped newlines, quotes and some non-ASCII.
fn large_message() -> Vec<u8> {
    let mut text = String::with_capacity(52_000_000);
    let mut i = 0u64;
    while text.len() < 50_000_000 {
        text.push_str(&format!(
            "{i:08} INFO  worker-{} handled \"GET /api/items/{}\" in {} ms — café ✓\n",
            i % 8,
            i * 7919 % 100_000,
            i % 250
        ));
        i += 1;
    }
    let message = json!({
        "jsonrpc": "2.0",
        "id": 1,
        "result": {"content": [{"type": "text", "text": text}], "isError": false}
    });
    let mut bytes = serde_json::to_vec(&message).expect("serialises");
    bytes.push(b'\n');
    bytes
}

/// Frames and parses `input` fed in chunks of `chunk` bytes; returns the message count.
fn frame_and_parse(input: &[u8], chunk: usize) -> usize {
    let mut decoder = LineDecoder::default();
    let mut count = 0;
    for piece in input.chunks(chunk) {
        decoder.push(piece);
        for message in decoder.messages() {
            black_box(message.expect("valid message"));
            count += 1;
        }
    }
    assert!(decoder.finish().is_none());
    count
}

/// Frames `input` without parsing; returns the total frame length.
fn frame_only(input: &[u8], chunk: usize) -> usize {
    let mut decoder = LineDecoder::default();
    let mut total = 0;
    for piece in input.chunks(chunk) {
        decoder.push(piece);
        while let Some(frame) = decoder.next_frame() {
            total += black_box(frame.expect("valid frame")).len();
        }
    }
    total
}

fn small(c: &mut Criterion) {
    let (bytes, lines) = small_messages();
    let mut group = c.benchmark_group("small_100k");
    group
        .throughput(Throughput::BytesDecimal(bytes.len() as u64))
        .sample_size(10)
        .warm_up_time(Duration::from_millis(500))
        .measurement_time(Duration::from_secs(2));
    group.bench_function("serde_json::from_slice", |b| {
        b.iter(|| {
            for &(start, end) in &lines {
                black_box(serde_json::from_slice::<Value>(&bytes[start..end]).expect("json"));
            }
        })
    });
    for (name, chunk) in [("one chunk", bytes.len()), ("64KiB chunks", 64 << 10)] {
        group.bench_function(format!("frame+parse {name}"), |b| {
            b.iter(|| assert_eq!(frame_and_parse(&bytes, chunk), lines.len()))
        });
    }
    group.bench_function("frame only 64KiB chunks", |b| {
        b.iter(|| frame_only(&bytes, 64 << 10))
    });
    group.finish();
}

fn large(c: &mut Criterion) {
    let bytes = large_message();
    let line = &bytes[..bytes.len() - 1];
    let mut group = c.benchmark_group("large_50MB");
    group
        .throughput(Throughput::BytesDecimal(bytes.len() as u64))
        .sampling_mode(SamplingMode::Flat)
        .sample_size(10)
        .warm_up_time(Duration::from_millis(500))
        .measurement_time(Duration::from_secs(3));
    group.bench_function("serde_json::from_slice", |b| {
        b.iter(|| black_box(serde_json::from_slice::<Value>(line).expect("json")))
    });
    for (name, chunk) in [
        ("one chunk", bytes.len()),
        ("64KiB chunks", 64 << 10),
        ("1KiB chunks", 1 << 10),
    ] {
        group.bench_function(format!("frame+parse {name}"), |b| {
            b.iter(|| assert_eq!(frame_and_parse(&bytes, chunk), 1))
        });
    }
    group.bench_function("frame only 1KiB chunks", |b| {
        b.iter(|| frame_only(&bytes, 1 << 10))
    });
    group.finish();
}

criterion_group!(benches, small, large);
criterion_main!(benches);
