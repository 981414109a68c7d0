//! Streamed chat completions: `chat.completion.chunk` deltas → text as it arrives, then a
//! `ModelResponse`.

use crate::json::{quoted, to_text};
use crate::vec_map::VecMap;

use serde_json::Value;

use super::decode::decode_response;
use super::error::{parse_arguments, DecodeError};
use crate::model::answer_size::SizeBudget;
use crate::model::DEFAULT_MAX_ANSWER_BYTES;
use crate::model::{clip, ModelResponse, ToolCall, Usage};
use crate::sse::{SseDecoder, SseEvent};

/// Something a caller can show while the answer is still streaming.
#[derive(Clone, Debug, PartialEq)]
#[non_exhaustive]
pub enum StreamDelta {
    /// A piece of the answer text.
    Text(String),
    /// A piece of the model's visible reasoning (`reasoning_content`), for models that send it.
    Reasoning(String),
    /// The model began a tool call (its name is known; its arguments are still arriving).
    ToolCallStarted {
        /// Position of the call in the answer.
        index: u64,
        /// Call id (empty if the server has not sent one).
        id: String,
        /// Tool name.
        name: String,
    },
}

/// A tool call whose fragments are still arriving.
#[derive(Debug, Default)]
struct PartialCall {
    id: String,
    name: String,
    arguments: String,
    announced: bool,
}

/// Assembles `chat.completion.chunk` objects into a [`ModelResponse`].
///
/// Feed each chunk (or each SSE `data` payload) in order; the returned deltas can be shown
/// immediately. Tool-call fragments are joined by their `index`; the id and name come in the
/// first fragment. Call [`finish`](Self::finish) when the stream ends.
#[derive(Debug, Default)]
pub struct StreamAccumulator {
    text: String,
    calls: VecMap<u64, PartialCall>,
    chunks: usize,
    finish_reason: Option<String>,
    /// The last usage a chunk reported (with `stream_options.include_usage`, the final chunk,
    /// whose `choices` is empty).
    usage: Option<Usage>,
    done: bool,
}

impl StreamAccumulator {
    /// An empty accumulator.
    pub fn new() -> Self {
        Self::default()
    }

    /// Whether `[DONE]` has been seen; later data is ignored.
    pub fn is_done(&self) -> bool {
        self.done
    }

    /// The `finish_reason` of the first choice, once a chunk carried one (`stop`, `tool_calls`,
    /// `length`, ...).
    pub fn finish_reason(&self) -> Option<&str> {
        self.finish_reason.as_deref()
    }

    /// Feeds one SSE `data` payload: a JSON chunk, or the `[DONE]` marker.
    pub fn push_data(&mut self, data: &str) -> Result<Vec<StreamDelta>, DecodeError> {
        if self.done {
            return Ok(Vec::new());
        }
        if data.trim() == "[DONE]" {
            self.done = true;
            return Ok(Vec::new());
        }
        let chunk: Value =
            crate::json::parse_str(data).map_err(|e| DecodeError::not_json(&e, data.as_bytes()))?;
        self.push_chunk(&chunk)
    }

    /// Feeds one parsed chunk. A chunk carrying an API error ends in [`DecodeError::Api`].
    pub fn push_chunk(&mut self, chunk: &Value) -> Result<Vec<StreamDelta>, DecodeError> {
        if self.done {
            return Ok(Vec::new());
        }
        if !chunk.is_object() {
            return Err(DecodeError::Malformed(
                "stream chunk must be a JSON object".into(),
            ));
        }
        if let Some(err) = DecodeError::from_api_body(chunk) {
            return Err(err);
        }
        self.chunks += 1;
        if let Some(usage) = Usage::from_openai(chunk.get("usage")) {
            self.usage = Some(usage);
        }
        let mut deltas = Vec::new();
        // A usage-only chunk has no (or empty) choices. Only the first choice is followed:
        // requests never ask for n > 1.
        let choice = match chunk.get("choices") {
            None | Some(Value::Null) => return Ok(deltas),
            Some(Value::Array(choices)) => choices
                .iter()
                .find(|c| c.get("index").and_then(Value::as_u64).unwrap_or(0) == 0),
            Some(_) => {
                return Err(DecodeError::Malformed(
                    "stream chunk \"choices\" must be an array".into(),
                ))
            }
        };
        let Some(choice) = choice else {
            return Ok(deltas);
        };
        if let Some(reason) = choice.get("finish_reason").and_then(Value::as_str) {
            self.finish_reason = Some(reason.to_owned());
        }
        let Some(delta) = choice.get("delta").filter(|d| !d.is_null()) else {
            return Ok(deltas);
        };
        for key in ["reasoning_content", "reasoning"] {
            if let Some(r) = delta
                .get(key)
                .and_then(Value::as_str)
                .filter(|r| !r.is_empty())
            {
                deltas.push(StreamDelta::Reasoning(r.to_owned()));
            }
        }
        for key in ["content", "refusal"] {
            if let Some(t) = delta
                .get(key)
                .and_then(Value::as_str)
                .filter(|t| !t.is_empty())
            {
                self.text.push_str(t);
                deltas.push(StreamDelta::Text(t.to_owned()));
            }
        }
        match delta.get("tool_calls") {
            None | Some(Value::Null) => {}
            Some(Value::Array(fragments)) => {
                for (position, fragment) in fragments.iter().enumerate() {
                    self.push_fragment(position, fragment, &mut deltas)?;
                }
            }
            Some(_) => {
                return Err(DecodeError::Malformed(
                    "stream chunk delta.tool_calls must be an array".into(),
                ))
            }
        }
        Ok(deltas)
    }

    fn push_fragment(
        &mut self,
        position: usize,
        fragment: &Value,
        deltas: &mut Vec<StreamDelta>,
    ) -> Result<(), DecodeError> {
        let id = fragment.get("id").and_then(Value::as_str).unwrap_or("");
        let index = match fragment.get("index").and_then(Value::as_u64) {
            Some(i) => i,
            // Without an index (some gateways send whole calls), a new id opens a new call.
            None if !id.is_empty() => match self.calls.iter().find(|(_, c)| c.id == id) {
                Some((i, _)) => *i,
                None => self.calls.keys().next_back().map_or(0, |i| i + 1),
            },
            None => position as u64,
        };
        let function = fragment.get("function");
        let name = function
            .and_then(|f| f.get("name"))
            .and_then(Value::as_str)
            .unwrap_or("");
        let call = self.calls.get_or_insert_with(index, PartialCall::default);
        if call.id.is_empty() {
            call.id = id.to_owned();
        }
        // The name arrives whole in the first fragment; some servers repeat it later.
        if call.name.is_empty() {
            call.name = name.to_owned();
        }
        match function.and_then(|f| f.get("arguments")) {
            None | Some(Value::Null) => {}
            Some(Value::String(s)) => call.arguments.push_str(s),
            Some(obj @ Value::Object(_)) => call.arguments.push_str(&to_text(obj)),
            Some(_) => {
                return Err(DecodeError::Malformed(format!(
                    "stream tool call fragment {index}: function.arguments must be a string"
                )))
            }
        }
        if !call.announced && !call.name.is_empty() {
            call.announced = true;
            deltas.push(StreamDelta::ToolCallStarted {
                index,
                id: call.id.clone(),
                name: call.name.clone(),
            });
        }
        Ok(())
    }

    /// The assembled answer. Fails if no chunk arrived, if the stream stopped before
    /// `finish_reason` or `[DONE]` (a cut connection), or if a tool call is incomplete.
    pub fn finish(self) -> Result<ModelResponse, DecodeError> {
        if self.chunks == 0 {
            return Err(DecodeError::Incomplete(
                "the stream carried no chat.completion.chunk".into(),
            ));
        }
        if !self.done && self.finish_reason.is_none() {
            return Err(DecodeError::Incomplete(
                "the stream stopped before any finish_reason or [DONE]".into(),
            ));
        }
        let tool_calls = self
            .calls
            .into_iter()
            .map(|(index, call)| {
                if call.name.is_empty() {
                    return Err(DecodeError::Malformed(format!(
                        "streamed tool call at index {index} never received a function name"
                    )));
                }
                let arguments = parse_arguments(&Value::String(call.arguments));
                let id = match call.id {
                    id if id.is_empty() => format!("call_{index}"),
                    id => id,
                };
                Ok(ToolCall {
                    id,
                    name: call.name,
                    arguments,
                })
            })
            .collect::<Result<_, _>>()?;
        Ok(ModelResponse {
            text: (!self.text.is_empty()).then_some(self.text),
            tool_calls,
            usage: self.usage,
        })
    }
}

/// How much of a body that is not SSE is kept, to report (or decode) it at the end.
const RAW_KEEP: usize = 64 * 1024;
/// Model stream events are small; anything bigger is a broken or hostile server.
const MAX_EVENT_BYTES: usize = 16 * 1024 * 1024;

/// A streamed chat completion from raw response bytes: SSE decoding plus [`StreamAccumulator`].
///
/// Feed the body as it arrives with [`push`](Self::push) and show the deltas; call
/// [`finish`](Self::finish) at end of body. If the server ignored `"stream": true` and sent
/// a plain JSON body (an answer or an error), `finish` decodes that instead.
#[derive(Debug)]
pub struct ChatCompletionStream {
    sse: SseDecoder,
    acc: StreamAccumulator,
    raw: Vec<u8>,
    saw_event: bool,
    size: SizeBudget,
}

impl Default for ChatCompletionStream {
    fn default() -> Self {
        Self::new()
    }
}

impl ChatCompletionStream {
    /// A decoder for one streamed response, bounded to [`DEFAULT_MAX_ANSWER_BYTES`].
    pub fn new() -> Self {
        Self::with_max_bytes(DEFAULT_MAX_ANSWER_BYTES)
    }

    /// A decoder for one streamed response of at most `max_bytes` bytes of body; a body
    /// that goes on past them fails with [`DecodeError::TooLarge`].
    pub fn with_max_bytes(max_bytes: usize) -> Self {
        ChatCompletionStream {
            sse: SseDecoder::with_max_event_bytes(MAX_EVENT_BYTES),
            acc: StreamAccumulator::new(),
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
        self.drain()
    }

    fn drain(&mut self) -> Result<Vec<StreamDelta>, DecodeError> {
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
        if event.event == "error" {
            let body = crate::json::parse_str(&event.data).ok();
            return Err(body
                .and_then(|v| DecodeError::from_api_body(&v))
                .unwrap_or_else(|| DecodeError::Api {
                    message: clip(&event.data, 500),
                    kind: None,
                    code: None,
                }));
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
