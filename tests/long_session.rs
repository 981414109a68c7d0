//! A 300-step scripted session in a 16,000-token window, driven through the sans-IO agent with
//! every request encoded by the real OpenAI codec and its bytes compared.
//!
//! What must hold: no request over the window; between two compactions every request starts
//! with the bytes of the one before (tools and system identical, messages append-only); each
//! summary request starts with the bytes of the request before it. Also measured, against a
//! model endpoint that bills like Anthropic's prompt cache (a read costs 0.1, a write 1.25 of an
//! input token, the cache holding the previous request's prefix), for (a) this compaction,
//! (b) no compaction and (c) dropping the oldest turns:
//! `cargo test -p agentwire --test long_session -- --nocapture` prints the table.

use agentwire::agent::{Action, Agent, AgentConfig, UiEvent};
use agentwire::content::ToolOutput;
use agentwire::context::compact::SUMMARY_INSTRUCTION;
use agentwire::context::ContextConfig;
use agentwire::model::{
    encode_request, ChatMessage, ModelRequest, ModelResponse, OpenAiOptions, ToolCall, Usage,
};
use agentwire::policy::Policy;
use agentwire::registry::{Registry, Risk, ToolSpec};
use agentwire::Instant;
use serde_json::{json, Value};

const WINDOW: u64 = 16_000;
const STEPS: usize = 300;
const STEPS_PER_TURN: usize = 10;

/// The endpoint's tokenizer: 4 bytes of the rendered request per token.
fn tokens(bytes: usize) -> u64 {
    bytes.div_ceil(4) as u64
}

/// A request as a provider renders it for its cache: tools, then system, then each message,
/// each piece as the exact bytes the codec sent.
fn rendered(request: &ModelRequest) -> Vec<Vec<u8>> {
    let body = encode_request(request, &OpenAiOptions::new("m"));
    let mut pieces = vec![serde_json::to_vec(&body["tools"]).unwrap()];
    for message in body["messages"].as_array().unwrap() {
        pieces.push(serde_json::to_vec(message).unwrap());
    }
    pieces
}

fn total(pieces: &[Vec<u8>]) -> usize {
    pieces.iter().map(Vec::len).sum()
}

/// Bytes of the longest common prefix of two renderings.
fn common_prefix(a: &[Vec<u8>], b: &[Vec<u8>]) -> usize {
    let mut n = 0;
    for (x, y) in a.iter().zip(b) {
        if x == y {
            n += x.len();
        } else {
            n += x.iter().zip(y).take_while(|(p, q)| p == q).count();
            break;
        }
    }
    n
}

/// The cache-billing endpoint: totals over a sequence of requests.
#[derive(Default, Debug)]
struct Bill {
    requests: usize,
    prompt_tokens: u64,
    read_tokens: u64,
    /// Prompt and read tokens of every request after the first.
    later_prompt: u64,
    later_read: u64,
    previous: Option<Vec<Vec<u8>>>,
}

impl Bill {
    /// Bills one request; returns (prompt tokens, read tokens).
    fn charge(&mut self, pieces: Vec<Vec<u8>>) -> (u64, u64) {
        let prompt = tokens(total(&pieces));
        let read = match &self.previous {
            Some(previous) => tokens(common_prefix(previous, &pieces)).min(prompt),
            None => 0,
        };
        if self.requests > 0 {
            self.later_prompt += prompt;
            self.later_read += read;
        }
        self.requests += 1;
        self.prompt_tokens += prompt;
        self.read_tokens += read;
        self.previous = Some(pieces);
        (prompt, read)
    }

    /// Billed input tokens: reads at 0.1, everything else written at 1.25.
    fn billed(&self) -> f64 {
        self.read_tokens as f64 * 0.1 + (self.prompt_tokens - self.read_tokens) as f64 * 1.25
    }

    fn cached_share(&self) -> f64 {
        self.later_read as f64 / self.later_prompt.max(1) as f64
    }
}

/// Deterministic 1–3 KB tool output for call `n`.
fn output(n: usize) -> String {
    let len = 1000 + (n * 7919) % 2001;
    let words = ["alpha ", "beta ", "gamma ", "delta ", "epsilon "];
    let mut text = format!("file {n}: ");
    let mut i = n;
    while text.len() < len {
        text.push_str(words[i % words.len()]);
        i = i.wrapping_mul(31).wrapping_add(7);
    }
    text.truncate(len);
    text
}

fn registry() -> Registry {
    let mut registry = Registry::new();
    registry
        .register_builtin(ToolSpec::builtin(
            "read_file",
            "Read a file of the workspace",
            json!({"type": "object", "properties": {"path": {"type": "string"}}}),
            Risk::Read,
        ))
        .unwrap();
    registry
}

struct Outcome {
    bill: Bill,
    /// Every request sent, rendered.
    sent: Vec<ModelRequest>,
    compactions: usize,
    /// Model steps made (summary requests excluded) before the end or the failure.
    steps: usize,
    failure: Option<String>,
    max_tokens: u64,
}

/// Runs the scripted session. `auto_compact: false` with `refuse_over_window` shows where an
/// uncompacted session fails.
fn session(auto_compact: bool, refuse_over_window: bool, measure: bool) -> Outcome {
    let config = AgentConfig {
        max_steps: 100,
        context: ContextConfig {
            window: Some(WINDOW),
            auto_compact,
            ..ContextConfig::default()
        },
        ..AgentConfig::default()
    };
    let mut agent = Agent::new(registry(), Policy::new(), config);
    let mut out = Outcome {
        bill: Bill::default(),
        sent: Vec::new(),
        compactions: 0,
        steps: 0,
        failure: None,
        max_tokens: 0,
    };
    let mut now = 1_000;
    let mut previous: Option<Vec<Vec<u8>>> = None;
    let mut compacted_since_previous = false;
    let mut turn = 0;
    'session: while out.steps < STEPS {
        turn += 1;
        agent
            .start_run(
                Instant::from_millis(now),
                format!("Turn {turn}: read the next files and report."),
            )
            .unwrap();
        loop {
            while let Some(event) = agent.poll_event() {
                match event {
                    UiEvent::Compacted { .. } => {
                        out.compactions += 1;
                        compacted_since_previous = true;
                    }
                    UiEvent::Error { message } => {
                        out.failure = Some(message);
                        break 'session;
                    }
                    _ => {}
                }
            }
            let Some(action) = agent.poll_action() else {
                break;
            };
            now += 10;
            match action {
                Action::CallModel(request) if !measure => {
                    out.steps += 1;
                    let response = if out.steps % STEPS_PER_TURN == 0 || out.steps == STEPS {
                        ModelResponse::text(format!("Turn {turn} done."))
                    } else {
                        ModelResponse {
                            text: None,
                            tool_calls: vec![ToolCall {
                                id: format!("call_{}", out.steps),
                                name: "read_file".into(),
                                arguments: json!({"path": format!("src/f{}.rs", out.steps)}),
                            }],
                            usage: None,
                        }
                    };
                    out.sent.push(request);
                    agent
                        .handle_model_response(Instant::from_millis(now), Ok(response))
                        .unwrap();
                }
                Action::CallModel(request) => {
                    let pieces = rendered(&request);
                    let prompt = tokens(total(&pieces));
                    out.max_tokens = out.max_tokens.max(prompt);
                    let summary = matches!(request.messages.last(),
                        Some(ChatMessage::User { content }) if content.starts_with(SUMMARY_INSTRUCTION));
                    if let Some(previous) = &previous {
                        if !compacted_since_previous {
                            // Append-only: tools, system and every earlier message identical.
                            let differ = previous.iter().zip(&pieces).position(|(a, b)| a != b);
                            assert!(
                                pieces.len() > previous.len() && differ.is_none(),
                                "request {} does not extend the one before (summary: {summary}, \
                                 {} then {} pieces, first difference at {differ:?}, {} tokens)",
                                out.sent.len(),
                                previous.len(),
                                pieces.len(),
                                prompt
                            );
                        } else {
                            assert_eq!(pieces[0], previous[0], "tools changed");
                            assert_eq!(pieces[1], previous[1], "system prompt changed");
                        }
                    }
                    compacted_since_previous = false;
                    if refuse_over_window && prompt > WINDOW {
                        let e = format!(
                            "maximum context length is {WINDOW} tokens (context_length_exceeded)"
                        );
                        agent
                            .handle_model_response(Instant::from_millis(now), Err(e))
                            .unwrap();
                        continue;
                    }
                    assert!(
                        !auto_compact || prompt <= WINDOW,
                        "request {} has {prompt} tokens",
                        out.sent.len()
                    );
                    let (prompt_tokens, read) = out.bill.charge(pieces.clone());
                    previous = Some(pieces);
                    let usage = Some(Usage {
                        input_tokens: prompt_tokens,
                        output_tokens: 20,
                        cache_read_tokens: Some(read),
                        cache_write_tokens: Some(prompt_tokens - read),
                    });
                    let mut response = if summary {
                        ModelResponse::text(format!(
                            "Summary: {} files read so far across {turn} turns; each file \
                             held alpha..epsilon words.\n- [ ] keep reading files for turn {turn}",
                            out.steps
                        ))
                    } else {
                        out.steps += 1;
                        if out.steps % STEPS_PER_TURN == 0 || out.steps == STEPS {
                            ModelResponse::text(format!("Turn {turn} done."))
                        } else {
                            ModelResponse {
                                text: None,
                                tool_calls: vec![ToolCall {
                                    id: format!("call_{}", out.steps),
                                    name: "read_file".into(),
                                    arguments: json!({"path": format!("src/f{}.rs", out.steps)}),
                                }],
                                usage: None,
                            }
                        }
                    };
                    response.usage = usage;
                    out.sent.push(request);
                    agent
                        .handle_model_response(Instant::from_millis(now), Ok(response))
                        .unwrap();
                }
                Action::CallTools(calls) => {
                    for call in calls {
                        let n: usize = call.call_id[5..].parse().unwrap();
                        agent
                            .handle_tool_result(
                                Instant::from_millis(now),
                                &call.call_id,
                                Ok(ToolOutput::text(output(n))),
                            )
                            .unwrap();
                    }
                }
                other => panic!("unexpected {other:?}"),
            }
        }
    }
    out
}

/// Strategy (c): the uncompacted session's requests with the oldest whole turns dropped until
/// each fits 80% of the window (what a host without compaction would do).
fn drop_oldest(requests: &[ModelRequest]) -> Bill {
    let mut bill = Bill::default();
    let limit = WINDOW * 8 / 10;
    // The requests only grow: the last one's pieces serve them all (tools, system, messages).
    let last = requests.last().unwrap();
    let all = rendered(last);
    for request in requests {
        let messages = &last.messages[..request.messages.len()];
        let mut start = 0;
        let size =
            |start: usize| all[0].len() + all[1].len() + total(&all[2 + start..2 + messages.len()]);
        while tokens(size(start)) > limit {
            // Drop up to the next user message, keeping calls and results together.
            start = match messages[start + 1..]
                .iter()
                .position(|m| matches!(m, ChatMessage::User { .. }))
            {
                Some(at) => start + 1 + at,
                None => start + 2,
            };
        }
        let mut pieces = vec![all[0].clone(), all[1].clone()];
        pieces.extend_from_slice(&all[2 + start..2 + messages.len()]);
        bill.charge(pieces);
    }
    bill
}

#[test]
fn three_hundred_steps_in_a_16k_window_stay_inside_and_append_only() {
    let compacting = session(true, false, true);
    assert_eq!(compacting.failure, None);
    assert_eq!(compacting.steps, STEPS);
    assert!(compacting.compactions > 0);
    assert!(compacting.max_tokens <= WINDOW, "{}", compacting.max_tokens);

    let failing = session(false, true, true);
    let failure = failing.failure.clone().expect("no compaction overflows");
    assert!(failure.contains("context_length_exceeded"), "{failure}");

    let growing = session(false, false, false);
    let dropped = drop_oldest(&growing.sent);

    let row = |name: &str, bill: &Bill, note: String| {
        println!(
            "| {name} | {} | {} | {:.0} | {:.1}% | {note} |",
            bill.requests,
            bill.prompt_tokens,
            bill.billed(),
            bill.cached_share() * 100.0
        );
    };
    println!("| strategy | requests | prompt tokens | billed input tokens | read from cache (after the 1st) | note |");
    println!("|---|---:|---:|---:|---:|---|");
    row(
        "(a) compaction (stub, then summary)",
        &compacting.bill,
        format!(
            "{} compactions, largest request {} tokens",
            compacting.compactions, compacting.max_tokens
        ),
    );
    row(
        "(b) no compaction",
        &failing.bill,
        format!("fails at step {}: over the window", failing.steps + 1),
    );
    row(
        "(c) drop oldest turns",
        &dropped,
        "every request at most 80% of the window".into(),
    );
    assert!(compacting.bill.billed() < dropped.billed());
}

/// The byte rendering helper compares what the codec sent, not parsed JSON.
#[test]
fn common_prefix_counts_bytes() {
    let a = vec![b"abc".to_vec(), b"def".to_vec()];
    let b = vec![b"abc".to_vec(), b"dxx".to_vec()];
    assert_eq!(common_prefix(&a, &b), 4);
    let _: Value = json!(null);
}
