//! The fuzz targets' bodies, one function per target, so that the same checks run under
//! libFuzzer (`fuzz_targets/*.rs`, each a one-line wrapper) and in the normal test suite, which
//! replays every seed and every saved crash (`tests/fuzz_corpus.rs` includes this file).
//!
//! Each function takes one input: leading parameter bytes (a size limit, how the bytes are cut,
//! an HTTP status...) and then the peer's bytes. It panics when an invariant breaks.

use agentwire::config::McpConfig;
use agentwire::framing::LineDecoder;
use agentwire::jsonrpc::Message;
use agentwire::mcp::http::{HttpConfig, StreamableHttp};
use agentwire::mcp::{CallOptions, ClientSession, SessionConfig, SessionEvent};
use agentwire::model::anthropic::{self, MessagesStream};
use agentwire::model::openai::{decode_response, ChatCompletionStream};
use agentwire::sse::{SseDecoder, MAX_DROPPED};
use agentwire::Instant;
use serde_json::json;

/// A target's check: panics when an invariant breaks for this input.
pub type Check = fn(&[u8]);

/// The targets, by name, as `fuzz/Cargo.toml` and `fuzz/corpus/<name>/` call them.
pub const TARGETS: [(&str, Check); 8] = [
    ("framing", framing),
    ("jsonrpc", jsonrpc),
    ("session", session),
    ("sse", sse),
    ("openai", openai),
    ("anthropic", anthropic),
    ("http", http),
    ("mcp_config", mcp_config),
];

/// Splits `body` into chunks whose lengths follow `pattern` (each byte `b` gives a chunk of
/// `1 + b % 17` bytes, cycling), so one input also says how the peer's bytes were cut. An
/// empty pattern keeps the body whole.
pub fn chunks<'a>(body: &'a [u8], pattern: &[u8]) -> Vec<&'a [u8]> {
    if pattern.is_empty() {
        return vec![body];
    }
    let mut out = Vec::new();
    let mut rest = body;
    let mut i = 0;
    while !rest.is_empty() {
        let len = 1 + usize::from(pattern[i % pattern.len()]) % 17;
        let (head, tail) = rest.split_at(len.min(rest.len()));
        out.push(head);
        rest = tail;
        i += 1;
    }
    out
}

/// A frame limit from one input byte: 64 B to 128 KiB, so small inputs reach the over-long-line
/// paths too.
pub fn frame_limit(byte: u8) -> usize {
    64 << (byte % 12)
}

// ---------------------------------------------------------------------------------------------
// framing

fn decode_lines(max: usize, chunks: &[&[u8]]) -> Vec<String> {
    let mut decoder = LineDecoder::new(max);
    let mut out = Vec::new();
    for chunk in chunks {
        decoder.push(chunk);
        while let Some(item) = decoder.next_message() {
            out.push(format!("{item:?}"));
        }
        // Drained: only the unfinished line is held, and never more than the limit (plus a
        // `\r` that may yet be part of its line ending).
        assert!(
            decoder.buffered_len() <= max + 1,
            "{} bytes buffered over a limit of {max}",
            decoder.buffered_len()
        );
    }
    if let Some(error) = decoder.finish() {
        out.push(format!("finish {error:?}"));
    }
    out
}

/// NDJSON framing and line parsing: whole, byte by byte and chunked give the same frames and
/// errors, and the buffer stays within the limit. Input: [limit, chunk pattern, bytes...].
pub fn framing(data: &[u8]) {
    let [limit, pattern, body @ ..] = data else {
        return;
    };
    let max = frame_limit(*limit);
    let whole = decode_lines(max, &[body]);
    let bytewise: Vec<&[u8]> = body.chunks(1).collect();
    assert_eq!(whole, decode_lines(max, &bytewise), "byte by byte");
    assert_eq!(
        whole,
        decode_lines(max, &chunks(body, &[*pattern, *limit])),
        "chunked"
    );
}

// ---------------------------------------------------------------------------------------------
// jsonrpc

/// JSON-RPC validation: never panics, and an accepted message survives a round trip.
pub fn jsonrpc(data: &[u8]) {
    let Ok(message) = Message::parse(data) else {
        return;
    };
    let bytes = message.to_bytes();
    let again = Message::parse(&bytes).unwrap_or_else(|e| {
        panic!(
            "{message:?} serialised as {:?} does not parse: {e:?}",
            String::from_utf8_lossy(&bytes)
        )
    });
    // Equal up to the last bits of floats: serde_json's default float parser (no
    // `float_roundtrip`) may land one unit in the last place away from a long decimal.
    let first: serde_json::Value = serde_json::from_slice(&bytes).expect("valid JSON");
    let second: serde_json::Value = serde_json::from_slice(&again.to_bytes()).expect("valid JSON");
    assert!(
        same_json(&first, &second),
        "round trip changed {message:?} into {again:?}"
    );
    let _ = message.method();
}

/// JSON equality with floats compared to a relative 1e-12.
fn same_json(a: &serde_json::Value, b: &serde_json::Value) -> bool {
    use serde_json::Value;
    match (a, b) {
        (Value::Number(x), Value::Number(y)) if x.is_f64() || y.is_f64() => {
            match (x.as_f64(), y.as_f64()) {
                (Some(x), Some(y)) => x == y || (x - y).abs() <= 1e-12 * x.abs().max(y.abs()),
                _ => x == y,
            }
        }
        (Value::Array(x), Value::Array(y)) => {
            x.len() == y.len() && x.iter().zip(y).all(|(x, y)| same_json(x, y))
        }
        (Value::Object(x), Value::Object(y)) => {
            x.len() == y.len()
                && x.iter()
                    .zip(y)
                    .all(|((kx, vx), (ky, vy))| kx == ky && same_json(vx, vy))
        }
        _ => a == b,
    }
}

// ---------------------------------------------------------------------------------------------
// session

/// What a session said, kept apart per output (how they interleave depends on when the host
/// drains, not on the session).
#[derive(Debug, Default, PartialEq)]
struct SessionLog {
    sent: Vec<String>,
    events: Vec<String>,
}

fn drain_session(session: &mut ClientSession, log: &mut SessionLog) -> Vec<SessionEvent> {
    let mut events = Vec::new();
    while let Some(bytes) = session.poll_transmit() {
        log.sent.push(String::from_utf8_lossy(&bytes).into_owned());
    }
    while let Some(event) = session.poll_event() {
        log.events.push(format!("{event:?}"));
        events.push(event);
    }
    events
}

/// Feeds `chunks` from the server to a fresh session at a fixed time, never issuing a command:
/// what comes out depends on the bytes alone.
fn passive_session(max_frame_len: usize, chunks: &[&[u8]]) -> SessionLog {
    let config = SessionConfig {
        max_frame_len,
        ..SessionConfig::default()
    };
    let now = Instant::from_millis(0);
    let mut session = ClientSession::new(config, now);
    let mut log = SessionLog::default();
    for chunk in chunks {
        session.handle_bytes(now, chunk);
        drain_session(&mut session, &mut log);
    }
    session.handle_eof("end of input");
    drain_session(&mut session, &mut log);
    log
}

/// Feeds `chunks` to a session that acts like a host: once ready it lists tools and calls one,
/// and time moves on between chunks (so deadlines fire).
fn active_session(max_frame_len: usize, chunks: &[&[u8]], step_ms: &[u8]) {
    let config = SessionConfig {
        max_frame_len,
        ..SessionConfig::default()
    };
    let mut now_ms = 0u64;
    let mut session = ClientSession::new(config, Instant::from_millis(now_ms));
    let mut log = SessionLog::default();
    for (i, chunk) in chunks.iter().enumerate() {
        let now = Instant::from_millis(now_ms);
        session.handle_bytes(now, chunk);
        for event in drain_session(&mut session, &mut log) {
            if matches!(event, SessionEvent::Ready(_)) {
                let _ = session.list_tools(now);
                let _ =
                    session.call_tool(now, "echo", json!({"text": "x"}), CallOptions::default());
            }
        }
        let step = step_ms[i % step_ms.len()];
        now_ms += u64::from(step) * 250;
        session.handle_timeout(Instant::from_millis(now_ms));
        drain_session(&mut session, &mut log);
    }
    session.handle_eof("end of input");
    drain_session(&mut session, &mut log);
    assert!(session.is_closed(), "a session at end of input is closed");
    assert_eq!(session.in_flight(), 0, "nothing waits after the end");
}

/// The MCP session fed a server's bytes: the same messages sent and events whole and byte by
/// byte; a host-like run ends closed with nothing in flight. Input: [limit, pattern, bytes...].
pub fn session(data: &[u8]) {
    let [limit, pattern, body @ ..] = data else {
        return;
    };
    let max = frame_limit(*limit);
    let whole = passive_session(max, &[body]);
    let bytewise: Vec<&[u8]> = body.chunks(1).collect();
    assert_eq!(whole, passive_session(max, &bytewise), "byte by byte");
    active_session(max, &chunks(body, &[*pattern]), &[*pattern, *limit]);
}

// ---------------------------------------------------------------------------------------------
// sse

/// Events and dropped events, each in order (how they interleave depends on draining).
#[derive(Debug, PartialEq)]
struct SseLog {
    events: Vec<String>,
    dropped: Vec<String>,
    failed: bool,
    last: String,
}

fn decode_sse(limit: usize, chunks: &[&[u8]]) -> SseLog {
    let mut decoder = SseDecoder::with_max_event_bytes(limit);
    let mut log = SseLog {
        events: Vec::new(),
        dropped: Vec::new(),
        failed: false,
        last: String::new(),
    };
    let drain = |decoder: &mut SseDecoder, log: &mut SseLog| {
        while let Some(event) = decoder.next_event() {
            assert!(
                event.data.len() <= limit,
                "an event over the limit came out"
            );
            log.events.push(format!("{event:?}"));
        }
        while let Some(dropped) = decoder.next_dropped() {
            log.dropped.push(format!("{dropped:?}"));
        }
    };
    for chunk in chunks {
        log.failed |= decoder.push(chunk).is_err();
        drain(&mut decoder, &mut log);
    }
    if let Some(event) = decoder.finish() {
        log.events.push(format!("{event:?}"));
    }
    drain(&mut decoder, &mut log);
    log.last = format!(
        "last id {:?}, retry {:?}",
        decoder.last_event_id(),
        decoder.reconnection_time()
    );
    log
}

/// `whole` (the body in one push) against the same body in smaller pushes: the same events,
/// failure and last id. Dropped events too, except that the decoder keeps only the newest
/// [`MAX_DROPPED`] between drains: once one push dropped more, `whole` holds the newest of them
/// (and any dropped at the end), which the finer pushes, drained more often, end with too.
fn assert_same_sse(whole: &SseLog, finer: SseLog, how: &str) {
    if whole.dropped.len() >= MAX_DROPPED && whole.dropped != finer.dropped {
        assert!(
            finer.dropped.ends_with(&whole.dropped),
            "{how}: the dropped events kept whole are not the newest of those kept {how}"
        );
        let finer = SseLog {
            dropped: whole.dropped.clone(),
            ..finer
        };
        assert_eq!(*whole, finer, "{how}");
    } else {
        assert_eq!(*whole, finer, "{how}");
    }
}

/// The SSE decoder: the same events and dropped events whole, byte by byte and chunked, none
/// over the limit. Input: [limit selector, chunk pattern, bytes...].
pub fn sse(data: &[u8]) {
    let [limit, pattern, body @ ..] = data else {
        return;
    };
    let limit = 16 << (limit % 10);
    let whole = decode_sse(limit, &[body]);
    let bytewise: Vec<&[u8]> = body.chunks(1).collect();
    assert_same_sse(&whole, decode_sse(limit, &bytewise), "byte by byte");
    assert_same_sse(
        &whole,
        decode_sse(limit, &chunks(body, &[*pattern])),
        "chunked",
    );
}

// ---------------------------------------------------------------------------------------------
// openai

/// The deltas and the answer, or `None` when a push failed (the stream ends there, and where
/// depends on the chunking).
fn openai_stream(chunks: &[&[u8]]) -> Option<String> {
    let mut stream = ChatCompletionStream::new();
    let mut deltas = Vec::new();
    for chunk in chunks {
        deltas.extend(stream.push(chunk).ok()?);
    }
    Some(format!("{deltas:?} {:?}", stream.finish()))
}

/// The OpenAI-compatible decoders: a body, and a stream whose deltas and answer do not depend
/// on how its bytes were cut. Input: [chunk pattern, bytes...].
pub fn openai(data: &[u8]) {
    let [pattern, body @ ..] = data else {
        return;
    };
    let _ = decode_response(body);
    let whole = openai_stream(&[body]);
    let chunked = openai_stream(&chunks(body, &[*pattern]));
    if let (Some(whole), Some(chunked)) = (whole, chunked) {
        assert_eq!(whole, chunked);
    }
}

// ---------------------------------------------------------------------------------------------
// anthropic

/// As [`openai_stream`], for the Anthropic Messages stream decoder.
fn anthropic_stream(chunks: &[&[u8]]) -> Option<String> {
    let mut stream = MessagesStream::new();
    let mut deltas = Vec::new();
    for chunk in chunks {
        deltas.extend(stream.push(chunk).ok()?);
    }
    Some(format!("{deltas:?} {:?}", stream.finish()))
}

/// The Anthropic Messages decoders: a body, and a stream whose deltas and answer do not depend
/// on how its bytes were cut. Input: [chunk pattern, bytes...].
pub fn anthropic(data: &[u8]) {
    let [pattern, body @ ..] = data else {
        return;
    };
    let _ = anthropic::decode_response(body);
    let whole = anthropic_stream(&[body]);
    let chunked = anthropic_stream(&chunks(body, &[*pattern]));
    if let (Some(whole), Some(chunked)) = (whole, chunked) {
        assert_eq!(whole, chunked);
    }
}

// ---------------------------------------------------------------------------------------------
// http

const STATUSES: [u16; 8] = [200, 200, 200, 202, 400, 401, 404, 500];
const CONTENT_TYPES: [&str; 5] = [
    "text/event-stream",
    "application/json",
    "text/event-stream; charset=utf-8",
    "text/plain",
    "",
];

/// Moves the session's lines to the machine and the machine's messages to the session.
fn shuttle(session: &mut ClientSession, http: &mut StreamableHttp, now: Instant) {
    for _ in 0..16 {
        let mut moved = false;
        while let Some(line) = session.poll_transmit() {
            let _ = http.send(now, &line);
            moved = true;
        }
        while let Some(message) = http.poll_message() {
            session.handle_bytes(now, &message);
            moved = true;
        }
        while session.poll_event().is_some() {}
        while http.poll_event().is_some() {}
        while http.poll_abort().is_some() {}
        if !moved {
            return;
        }
    }
}

/// The Streamable HTTP machine under a session, wired as a host wires them: every request the
/// machine makes gets the input's status, Content-Type and body (JSON or SSE, cut into chunks);
/// time moves on between rounds so retries, resumptions and deadlines run; the session must end
/// closed. Input: [status selector, content-type selector, chunk pattern, body...].
pub fn http(data: &[u8]) {
    let [status, content_type, pattern, body @ ..] = data else {
        return;
    };
    let status = STATUSES[usize::from(*status) % STATUSES.len()];
    let content_type = CONTENT_TYPES[usize::from(*content_type) % CONTENT_TYPES.len()];
    let pieces = chunks(body, &[*pattern]);
    let mut now_ms = 0u64;
    let mut session = ClientSession::new(SessionConfig::default(), Instant::from_millis(now_ms));
    let mut http = StreamableHttp::new(HttpConfig::new("http://127.0.0.1:9/mcp"));
    for round in 0..8u64 {
        let now = Instant::from_millis(now_ms);
        shuttle(&mut session, &mut http, now);
        let mut answered = 0;
        while let Some(request) = http.poll_request() {
            let headers = vec![
                ("content-type".to_owned(), content_type.to_owned()),
                ("mcp-session-id".to_owned(), format!("s{round}")),
            ];
            http.handle_response_head(now, request.id, status, &headers);
            for piece in &pieces {
                http.handle_body_chunk(now, request.id, piece);
                shuttle(&mut session, &mut http, now);
            }
            if round % 3 == 2 {
                http.handle_request_error(now, request.id, "connection reset");
            } else {
                http.handle_body_end(now, request.id);
            }
            shuttle(&mut session, &mut http, now);
            answered += 1;
            if answered > 8 {
                break;
            }
        }
        now_ms += 1_500 + 1_000 * round;
        let later = Instant::from_millis(now_ms);
        http.handle_timeout(later);
        session.handle_timeout(later);
        shuttle(&mut session, &mut http, later);
    }
    http.close(Instant::from_millis(now_ms));
    session.handle_eof("test over");
    shuttle(&mut session, &mut http, Instant::from_millis(now_ms));
    assert!(session.is_closed());
}

// ---------------------------------------------------------------------------------------------
// mcp_config

fn lookup(name: &str) -> Option<String> {
    match name {
        "HOME" => Some("/home/user".into()),
        "EMPTY" => Some(String::new()),
        "TOKEN" => Some("secret-value".into()),
        "LOOP" => Some("${LOOP}".into()),
        _ => None,
    }
}

/// `.mcp.json` parsing with `${VAR}` expansion: never panics, and every error names the file.
pub fn mcp_config(data: &[u8]) {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    if let Err(error) = McpConfig::parse(".mcp.json", text, &lookup) {
        assert!(error.to_string().starts_with(".mcp.json"), "{error}");
    }
}
