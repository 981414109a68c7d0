//! Reading transcripts back: torn lines, hostile lines, version mismatches, dangling calls.

use super::*;
use crate::model::ToolCall;
use serde_json::json;

fn sample() -> Transcript {
    let mut t = Transcript::new("abc");
    t.append(Entry::User {
        content: "hi".into(),
    });
    t.append(Entry::Assistant {
        content: None,
        tool_calls: vec![ToolCall {
            id: "c1".into(),
            name: "calc".into(),
            arguments: json!({"expr": "1+1"}),
        }],
        usage: None,
    });
    t.append(Entry::ToolResult {
        call_id: "c1".into(),
        name: "calc".into(),
        content: "2".into(),
        is_error: false,
    });
    t.append(Entry::Assistant {
        content: Some("2".into()),
        tool_calls: vec![],
        usage: None,
    });
    t
}

#[test]
fn round_trip_is_exact() {
    let t = sample();
    let text = t.to_jsonl();
    assert!(text.starts_with("{\"type\":\"session\",\"version\":1,\"id\":\"abc\"}\n"));
    let parsed = parse_jsonl(&text).unwrap();
    assert_eq!(parsed.transcript, t);
    assert_eq!(parsed.transcript.history().len(), 4);
}

#[test]
fn torn_last_line_is_skipped_with_a_warning() {
    let text = sample().to_jsonl();
    let whole = text.len();
    let torn = format!("{text}{{\"type\":\"user\",\"con");
    let parsed = parse_jsonl(&torn).unwrap();
    assert_eq!(parsed.transcript, sample());
    assert_eq!(parsed.complete_bytes, whole);
    assert_eq!(parsed.warnings.len(), 1);
    assert!(parsed.warnings[0].starts_with("line 6: skipped an incomplete last line"));
}

#[test]
fn every_cut_of_a_file_loads_a_prefix_or_names_the_line() {
    // A crash can stop a write anywhere: every cut point loads the complete lines before it.
    let text = sample().to_jsonl();
    for cut in 1..text.len() {
        let piece = &text[..cut];
        if !text.is_char_boundary(cut) {
            continue;
        }
        match parse_jsonl(piece) {
            Ok(parsed) => {
                let n = parsed.transcript.entries().len();
                assert_eq!(parsed.transcript.entries(), &sample().entries()[..n]);
                assert_eq!(
                    &text[..parsed.complete_bytes],
                    &piece[..parsed.complete_bytes]
                );
            }
            Err(e) => assert_eq!(e.line, 1, "cut {cut}: {e}"),
        }
    }
}

#[test]
fn a_bad_line_in_the_middle_is_an_error_naming_it() {
    let text = sample().to_jsonl();
    let mut lines: Vec<&str> = text.lines().collect();
    lines.insert(2, "not json");
    let bad = lines.join("\n") + "\n";
    let e = parse_jsonl(&bad).unwrap_err();
    assert_eq!(e.line, 3);
    assert!(e.message.starts_with("not JSON"), "{e}");
}

#[test]
fn unknown_kinds_and_newer_versions_are_refused() {
    let head = "{\"type\":\"session\",\"version\":1,\"id\":\"x\"}\n";
    let e = parse_jsonl(&format!("{head}{{\"type\":\"subagent_spawn\"}}\n")).unwrap_err();
    assert_eq!(e.line, 2);
    assert!(
        e.message.contains("unknown entry type \"subagent_spawn\""),
        "{e}"
    );
    let e = parse_jsonl("{\"type\":\"session\",\"version\":7,\"id\":\"x\"}\n").unwrap_err();
    assert!(
        e.message
            .contains("version 7 was written by a newer agentwire"),
        "{e}"
    );
    let e = parse_jsonl("{\"type\":\"user\",\"content\":\"hi\"}\n").unwrap_err();
    assert_eq!(e.line, 1);
    let e = parse_jsonl("").unwrap_err();
    assert!(e.message.starts_with("empty"));
}

#[test]
fn hostile_sequences_are_refused() {
    let head = "{\"type\":\"session\",\"version\":1,\"id\":\"x\"}\n";
    let call = "{\"type\":\"assistant\",\"content\":null,\"tool_calls\":[{\"id\":\"c\",\"name\":\"t\",\"arguments\":{}}]}\n";
    let result = "{\"type\":\"tool_result\",\"call_id\":\"c\",\"name\":\"t\",\"content\":\"r\",\"is_error\":false}\n";
    // A result nobody asked for.
    let e = parse_jsonl(&format!("{head}{result}")).unwrap_err();
    assert_eq!(e.line, 2);
    // The same result twice.
    let e = parse_jsonl(&format!("{head}{call}{result}{result}")).unwrap_err();
    assert_eq!(e.line, 4);
    // A new user message while a call has no result.
    let user = "{\"type\":\"user\",\"content\":\"hi\"}\n";
    let e = parse_jsonl(&format!("{head}{call}{user}")).unwrap_err();
    assert_eq!(e.line, 3);
    assert!(e.message.contains("still has no result"), "{e}");
    // A reused call id.
    let e = parse_jsonl(&format!("{head}{call}{result}{call}")).unwrap_err();
    assert_eq!(e.line, 4);
    // Fields of the wrong type.
    let e = parse_jsonl(&format!("{head}{{\"type\":\"user\",\"content\":5}}\n")).unwrap_err();
    assert!(e.message.contains("\"content\" must be a string"), "{e}");
}

#[test]
fn a_paused_run_keeps_its_pending_calls_and_closing_them_makes_the_history_well_formed() {
    let mut t = sample();
    t.append(Entry::User {
        content: "again".into(),
    });
    t.append(Entry::Assistant {
        content: None,
        tool_calls: vec![
            ToolCall {
                id: "c2".into(),
                name: "calc".into(),
                arguments: json!({}),
            },
            ToolCall {
                id: "c3".into(),
                name: "write".into(),
                arguments: json!({}),
            },
        ],
        usage: None,
    });
    t.append(Entry::ToolResult {
        call_id: "c2".into(),
        name: "calc".into(),
        content: "ok".into(),
        is_error: false,
    });
    let parsed = parse_jsonl(&t.to_jsonl()).unwrap();
    let mut history = parsed.transcript.history();
    let pending = pending_calls(&history);
    assert_eq!(pending.len(), 1);
    assert_eq!(pending[0].id, "c3");
    assert_eq!(close_dangling_calls(&mut history, "not run"), 1);
    assert!(pending_calls(&history).is_empty());
    assert!(
        matches!(history.last(), Some(crate::model::ChatMessage::Tool { tool_call_id, is_error: true, .. }) if tool_call_id == "c3")
    );
}

#[test]
fn compaction_replaces_the_history_and_redaction_hides_secrets() {
    let mut t = sample();
    t.append(Entry::Compaction {
        mode: CompactionMode::Summary,
        tokens_before: 900,
        tokens_after: 100,
        messages: vec![crate::model::ChatMessage::User {
            content: "summary".into(),
        }],
    });
    let parsed = parse_jsonl(&t.to_jsonl()).unwrap();
    assert_eq!(parsed.transcript.history().len(), 1);
    let secret = Entry::User {
        content: "my key is sk-ant-api03-abcdefghijklmnopqrstuvwxyz0123456789".into(),
    };
    let line = secret.redacted().to_line();
    assert!(!line.contains("abcdefghijklmnop"), "{line}");
    assert!(line.contains(crate::audit::REDACTED));
}

/// The npm package's store redactor (in the `ext` module) reads each line the runtime records
/// back into its entry: every kind, so no entry is ever dropped or stored unredacted.
#[test]
fn every_kind_of_entry_reads_back_from_its_own_line() {
    let mut entries = sample().entries().to_vec();
    entries.extend([
        Entry::Assistant {
            content: Some("done".into()),
            tool_calls: vec![],
            usage: Some(crate::model::Usage {
                input_tokens: 10,
                output_tokens: 2,
                cache_read_tokens: Some(4),
                cache_write_tokens: None,
            }),
        },
        Entry::Approval {
            call_id: "c1".into(),
            answer: crate::agent::Approval::Always,
        },
        Entry::Command {
            name: "review".into(),
            qualified: "plugin:review".into(),
        },
        Entry::Compaction {
            mode: CompactionMode::Summary,
            tokens_before: 900,
            tokens_after: 100,
            messages: vec![crate::model::ChatMessage::User {
                content: "summary".into(),
            }],
        },
        Entry::Clear,
        Entry::CatalogNotice {
            text: "new tools".into(),
        },
        Entry::Notice {
            text: "a warning".into(),
        },
    ]);
    for entry in entries {
        let line = entry.to_line();
        assert_eq!(entry_from_line(line.trim_end()), Ok(entry), "{line}");
    }
    assert!(entry_from_line("{\"type\":\"session\",\"version\":1,\"id\":\"x\"}").is_err());
    assert!(entry_from_line("not json").is_err());
    assert!(entry_from_line("[1]").is_err());
}
