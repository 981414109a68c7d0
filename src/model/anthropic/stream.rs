//! Streamed Messages answers: `message_start`, `content_block_start/delta/stop`,
//! `message_delta`, `message_stop`, `ping`, `error` → text as it arrives, then a
//! `ModelResponse`.

use serde_json::{Map, Value};

use super::decode::{check_stop_reason, decode_response};
use crate::json::quoted;
use crate::model::answer_size::SizeBudget;
use crate::model::openai::{parse_arguments, DecodeError, StreamDelta};
use crate::model::DEFAULT_MAX_ANSWER_BYTES;
use crate::model::{clip, ModelResponse, ToolCall, Usage};
use crate::sse::{SseDecoder, SseEvent};
use crate::vec_map::VecMap;

/// One content block whose deltas are still arriving.
#[derive(Debug)]
enum Block {
    Text(String),
    ToolUse {
        id: String,
        name: String,
        /// The `input` of `content_block_start` (normally `{}`), used when no delta came.
        start_input: Value,
        json: String,
    },
    Thinking,
    /// Block types this codec does not read (server tools, redacted thinking, ...).
    Other,
}

/// Assembles Messages stream events into a [`ModelResponse`].
///
/// Feed each SSE `data` payload in order with [`push_data`](Self::push_data) (or parsed events
/// with [`push_event`](Self::push_event)); the returned deltas can be shown at once. Call
/// [`finish`](Self::finish) at end of stream. Unknown event and delta types are skipped, as the
/// API's versioning policy asks of clients.
#[derive(Debug, Default)]
pub struct MessageAccumulator {
    started: bool,
    stopped: bool,
    blocks: VecMap<u64, Block>,
    stop_reason: Option<String>,
    /// Usage fields as last reported: `message_start` gives the prompt counts, `message_delta`
    /// the final output count (and, from newer servers, the prompt counts again).
    usage: Map<String, Value>,
}

impl MessageAccumulator {
    /// An empty accumulator.
    pub fn new() -> Self {
        Self::default()
    }

    /// Whether `message_stop` has been seen; later events are ignored.
    pub fn is_done(&self) -> bool {
        self.stopped
    }

    /// The `stop_reason` once `message_delta` carried one (`end_turn`, `tool_use`, ...).
    pub fn stop_reason(&self) -> Option<&str> {
        self.stop_reason.as_deref()
    }

    /// Feeds one SSE `data` payload (a JSON event).
    pub fn push_data(&mut self, data: &str) -> Result<Vec<StreamDelta>, DecodeError> {
        if self.stopped {
            return Ok(Vec::new());
        }
        let event: Value =
            crate::json::parse_str(data).map_err(|e| DecodeError::not_json(&e, data.as_bytes()))?;
        self.push_event(&event)
    }

    /// Feeds one parsed event, dispatched on its `type`.
    pub fn push_event(&mut self, event: &Value) -> Result<Vec<StreamDelta>, DecodeError> {
        if self.stopped {
            return Ok(Vec::new());
        }
        let Some(kind) = event.get("type").and_then(Value::as_str) else {
            return Err(DecodeError::Malformed(
                "stream event has no \"type\" string".into(),
            ));
        };
        let mut deltas = Vec::new();
        match kind {
            "message_start" => {
                let message = event.get("message").unwrap_or(&Value::Null);
                self.merge_usage(message.get("usage"));
                self.started = true;
            }
            "content_block_start" => {
                let index = self.index(event, kind)?;
                let block = event.get("content_block").unwrap_or(&Value::Null);
                self.start_block(index, block, &mut deltas)?;
            }
            "content_block_delta" => {
                let index = self.index(event, kind)?;
                let delta = event.get("delta").unwrap_or(&Value::Null);
                self.block_delta(index, delta, &mut deltas)?;
            }
            "message_delta" => {
                if let Some(r) = event.pointer("/delta/stop_reason").and_then(Value::as_str) {
                    self.stop_reason = Some(r.to_owned());
                }
                self.merge_usage(event.get("usage"));
            }
            "message_stop" => self.stopped = true,
            "error" => {
                return Err(
                    DecodeError::from_api_body(event).unwrap_or_else(|| DecodeError::Api {
                        message: clip(&event.to_string(), 500),
                        kind: None,
                        code: None,
                    }),
                )
            }
            // `content_block_stop`, `ping` and event types added later carry nothing we need.
            _ => {}
        }
        Ok(deltas)
    }

    fn index(&self, event: &Value, kind: &str) -> Result<u64, DecodeError> {
        if !self.started {
            return Err(DecodeError::Malformed(format!(
                "{kind} arrived before message_start"
            )));
        }
        event
            .get("index")
            .and_then(Value::as_u64)
            .ok_or_else(|| DecodeError::Malformed(format!("{kind} has no numeric \"index\"")))
    }

    fn merge_usage(&mut self, usage: Option<&Value>) {
        let Some(Value::Object(usage)) = usage else {
            return;
        };
        for (key, value) in usage {
            if value.is_u64() {
                self.usage.insert(key.clone(), value.clone());
            }
        }
    }

    fn start_block(
        &mut self,
        index: u64,
        block: &Value,
        deltas: &mut Vec<StreamDelta>,
    ) -> Result<(), DecodeError> {
        if self.blocks.len() >= MAX_BLOCKS {
            return Err(DecodeError::Malformed(format!(
                "the answer has more than {MAX_BLOCKS} content blocks"
            )));
        }
        if self.blocks.get(&index).is_some() {
            return Err(DecodeError::Malformed(format!(
                "content block {index} started twice"
            )));
        }
        let text = |key: &str| block.get(key).and_then(Value::as_str).unwrap_or("");
        let new = match block.get("type").and_then(Value::as_str) {
            Some("text") => {
                let t = text("text");
                if !t.is_empty() {
                    deltas.push(StreamDelta::Text(t.to_owned()));
                }
                Block::Text(t.to_owned())
            }
            Some("tool_use") => {
                let name = text("name");
                if name.is_empty() {
                    return Err(DecodeError::Malformed(format!(
                        "tool_use block {index} has no \"name\""
                    )));
                }
                deltas.push(StreamDelta::ToolCallStarted {
                    index,
                    id: text("id").to_owned(),
                    name: name.to_owned(),
                });
                Block::ToolUse {
                    id: text("id").to_owned(),
                    name: name.to_owned(),
                    start_input: block.get("input").cloned().unwrap_or(Value::Null),
                    json: String::new(),
                }
            }
            Some("thinking") => {
                let t = text("thinking");
                if !t.is_empty() {
                    deltas.push(StreamDelta::Reasoning(t.to_owned()));
                }
                Block::Thinking
            }
            Some(_) => Block::Other,
            None => {
                return Err(DecodeError::Malformed(format!(
                    "content_block_start {index} has no content_block.type"
                )))
            }
        };
        self.blocks.insert(index, new);
        Ok(())
    }

    fn block_delta(
        &mut self,
        index: u64,
        delta: &Value,
        deltas: &mut Vec<StreamDelta>,
    ) -> Result<(), DecodeError> {
        let Some(block) = self.blocks.get_mut(&index) else {
            return Err(DecodeError::Malformed(format!(
                "content_block_delta for block {index}, which never started"
            )));
        };
        let kind = delta.get("type").and_then(Value::as_str).unwrap_or("");
        let field = |key: &str| {
            delta.get(key).and_then(Value::as_str).ok_or_else(|| {
                DecodeError::Malformed(format!("{kind} for block {index} has no \"{key}\" string"))
            })
        };
        match (kind, block) {
            ("text_delta", Block::Text(text)) => {
                let t = field("text")?;
                text.push_str(t);
                if !t.is_empty() {
                    deltas.push(StreamDelta::Text(t.to_owned()));
                }
            }
            ("input_json_delta", Block::ToolUse { json, .. }) => {
                json.push_str(field("partial_json")?)
            }
            ("thinking_delta", Block::Thinking) => {
                let t = field("thinking")?;
                if !t.is_empty() {
                    deltas.push(StreamDelta::Reasoning(t.to_owned()));
                }
            }
            ("text_delta" | "input_json_delta" | "thinking_delta", _) => {
                return Err(DecodeError::Malformed(format!(
                    "{} does not fit content block {index}",
                    quoted(kind)
                )))
            }
            // signature_delta, citations_delta, deltas of blocks we do not read, newer types.
            _ => {}
        }
        Ok(())
    }

    /// The assembled answer. Fails if the stream never started, stopped before `message_stop`
    /// (a cut connection), or ended with `stop_reason` `max_tokens` or `refusal`.
    pub fn finish(self) -> Result<ModelResponse, DecodeError> {
        if !self.started {
            return Err(DecodeError::Incomplete(
                "the stream carried no message_start event".into(),
            ));
        }
        if let Some(reason) = &self.stop_reason {
            check_stop_reason(reason)?;
        }
        if !self.stopped {
            return Err(DecodeError::Incomplete(
                "the stream stopped before message_stop".into(),
            ));
        }
        let mut text: Option<String> = None;
        let mut tool_calls = Vec::new();
        for (index, block) in self.blocks {
            match block {
                Block::Text(t) => text.get_or_insert_with(String::new).push_str(&t),
                Block::ToolUse {
                    id,
                    name,
                    start_input,
                    json,
                } => {
                    let arguments = if json.is_empty() {
                        parse_arguments(&start_input)
                    } else {
                        parse_arguments(&Value::String(json))
                    };
                    let id = if id.is_empty() {
                        format!("toolu_{index}")
                    } else {
                        id
                    };
                    tool_calls.push(ToolCall {
                        id,
                        name,
                        arguments,
                    });
                }
                Block::Thinking | Block::Other => {}
            }
        }
        Ok(ModelResponse {
            text,
            tool_calls,
            usage: Usage::from_anthropic(Some(&Value::Object(self.usage))),
        })
    }
}

/// More content blocks than any real answer has; the bound keeps a hostile stream cheap.
const MAX_BLOCKS: usize = 4096;
/// How much of a body that is not SSE is kept, to decode (or report) it at the end.
const RAW_KEEP: usize = 64 * 1024;
/// Stream events are small; anything bigger is a broken or hostile server.
const MAX_EVENT_BYTES: usize = 16 * 1024 * 1024;

/// A streamed Messages answer from raw response bytes: SSE decoding plus
/// [`MessageAccumulator`].
///
/// Feed the body as it arrives with [`push`](Self::push) and show the deltas; call
/// [`finish`](Self::finish) at end of body. If the server sent a plain JSON body instead (an
/// answer or an error), `finish` decodes that.
#[derive(Debug)]
pub struct MessagesStream {
    sse: SseDecoder,
    acc: MessageAccumulator,
    raw: Vec<u8>,
    saw_event: bool,
    size: SizeBudget,
}

impl Default for MessagesStream {
    fn default() -> Self {
        Self::new()
    }
}

impl MessagesStream {
    /// A decoder for one streamed response, bounded to [`DEFAULT_MAX_ANSWER_BYTES`].
    pub fn new() -> Self {
        Self::with_max_bytes(DEFAULT_MAX_ANSWER_BYTES)
    }

    /// A decoder for one streamed response of at most `max_bytes` bytes of body; a body
    /// that goes on past them fails with [`DecodeError::TooLarge`].
    pub fn with_max_bytes(max_bytes: usize) -> Self {
        MessagesStream {
            sse: SseDecoder::with_max_event_bytes(MAX_EVENT_BYTES),
            acc: MessageAccumulator::new(),
            raw: Vec::new(),
            saw_event: false,
            size: SizeBudget::new(max_bytes),
        }
    }

    /// Feeds a chunk of the body; returns what can be shown now. Past the size bound, every
    /// call fails with [`DecodeError::TooLarge`] and nothing more is decoded.
    pub fn push(&mut self, bytes: &[u8]) -> Result<Vec<StreamDelta>, DecodeError> {
        self.size.charge(bytes.len())?;
        if !self.saw_event && self.raw.len() < RAW_KEEP {
            let room = RAW_KEEP - self.raw.len();
            self.raw.extend_from_slice(&bytes[..bytes.len().min(room)]);
        }
        self.sse
            .push(bytes)
            .map_err(|e| DecodeError::Malformed(e.to_string()))?;
        let mut deltas = Vec::new();
        while let Some(event) = self.sse.next_event() {
            deltas.extend(self.handle_event(event)?);
        }
        Ok(deltas)
    }

    fn handle_event(&mut self, event: SseEvent) -> Result<Vec<StreamDelta>, DecodeError> {
        if !self.saw_event {
            self.saw_event = true;
            self.raw = Vec::new();
        }
        self.acc.push_data(&event.data)
    }

    /// Ends the body: returns the final answer, or why there is none.
    pub fn finish(mut self) -> Result<ModelResponse, DecodeError> {
        if let Some(last) = self.sse.finish() {
            self.handle_event(last)?;
        }
        if !self.saw_event {
            let trimmed = self.raw.trim_ascii_start();
            if trimmed.starts_with(b"{") {
                return decode_response(&self.raw);
            }
            return Err(DecodeError::Incomplete(format!(
                "the body carried no server-sent events; it starts with {}",
                quoted(&clip(&String::from_utf8_lossy(trimmed), 200))
            )));
        }
        self.acc.finish()
    }
}
