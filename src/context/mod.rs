//! Context accounting: how much of the model's context window a request takes, and when to
//! compact.
//!
//! Sizes are estimated from the request's bytes (system prompt, tool definitions, messages) at
//! [`DEFAULT_BYTES_PER_TOKEN`], then refined: once a backend reports the prompt tokens of a
//! request, its bytes-per-token ratio is used for the next estimates. The window comes from
//! [`ContextConfig::window`] (`--context-window`, `contextWindow`), else from
//! [`window_for_model`]'s table; a provider's context-length error has the last word
//! ([`window_from_error`]).

pub mod compact;

use crate::json::to_text;
use crate::model::{ChatMessage, ModelRequest, ToolDefinition};
use serde_json::{json, Value};

/// Bytes per token assumed before a backend reported any usage (a little pessimistic for
/// English and JSON, so estimates err on the side of compacting early).
pub const DEFAULT_BYTES_PER_TOKEN: f64 = 3.5;

/// Default compaction threshold, in percent of the window.
pub const DEFAULT_COMPACT_AT_PCT: u8 = 80;

/// Tool results kept verbatim when old ones are stubbed.
pub const DEFAULT_KEEP_TOOL_RESULTS: usize = 3;

/// How the agent keeps a conversation inside the model's context window.
#[derive(Clone, Debug, PartialEq)]
pub struct ContextConfig {
    /// The window in tokens; `None` = unknown (no automatic compaction).
    pub window: Option<u64>,
    /// Compact when a request's estimate passes this percentage of the window (default 80).
    pub compact_at_pct: u8,
    /// Compact automatically (default true); `/compact` works either way.
    pub auto_compact: bool,
    /// Newest tool results kept verbatim when older ones are stubbed (default 3).
    pub keep_tool_results: usize,
}

impl Default for ContextConfig {
    fn default() -> Self {
        ContextConfig {
            window: None,
            compact_at_pct: DEFAULT_COMPACT_AT_PCT,
            auto_compact: true,
            keep_tool_results: DEFAULT_KEEP_TOOL_RESULTS,
        }
    }
}

impl ContextConfig {
    /// The token count past which the agent compacts, when the window is known.
    pub fn threshold(&self) -> Option<u64> {
        let pct = u64::from(self.compact_at_pct.clamp(1, 100));
        self.window.map(|w| w * pct / 100)
    }
}

/// Context windows of common models, by name prefix (longest match wins), in tokens.
const WINDOWS: [(&str, u64); 24] = [
    ("gpt-4o", 128_000),
    ("gpt-4.1", 1_047_576),
    ("gpt-4-turbo", 128_000),
    ("gpt-4", 8_192),
    ("gpt-3.5-turbo", 16_385),
    ("gpt-5", 400_000),
    ("o1", 200_000),
    ("o3", 200_000),
    ("o4-mini", 200_000),
    ("claude-", 200_000),
    ("claude-sonnet-4", 200_000),
    ("gemini-1.5", 1_048_576),
    ("gemini-2", 1_048_576),
    ("deepseek-chat", 128_000),
    ("deepseek-reasoner", 128_000),
    ("qwen2.5", 32_768),
    ("qwen3", 32_768),
    ("qwen-max", 32_768),
    ("llama-3.1", 128_000),
    ("llama-3.3", 128_000),
    ("llama3", 8_192),
    ("mistral-large", 128_000),
    ("mistral", 32_768),
    ("kimi-k2", 131_072),
];

/// The context window of `model` from the table of common models, if known. A provider
/// prefix (`openai/gpt-4o`, as routers write it) is ignored.
pub fn window_for_model(model: &str) -> Option<u64> {
    let name = model
        .rsplit('/')
        .next()
        .unwrap_or(model)
        .to_ascii_lowercase();
    WINDOWS
        .iter()
        .filter(|(prefix, _)| name.starts_with(prefix))
        .max_by_key(|(prefix, _)| prefix.len())
        .map(|&(_, window)| window)
}

/// Whether a model error says the prompt did not fit (`context_length_exceeded`, `prompt is too
/// long`, `maximum context length`…).
pub fn is_context_length_error(message: &str) -> bool {
    let m = message.to_ascii_lowercase();
    [
        "context_length_exceeded",
        "context length",
        "context window",
        "prompt is too long",
        "too many tokens",
        "maximum context",
        "input is too long",
    ]
    .iter()
    .any(|needle| m.contains(needle))
}

/// The window a context-length error states (`maximum context length is 8192 tokens`), if any:
/// the first number of at least three digits after "context".
pub fn window_from_error(message: &str) -> Option<u64> {
    let m = message.to_ascii_lowercase();
    let at = m.find("context")?;
    // Digits read by hand: `str::parse` and the splitting adapters cost the npm runtime more
    // than this whole function. A run too long for a u64 is skipped, as `parse` would fail.
    let (mut value, mut digits, mut overflow) = (0u64, 0usize, false);
    let bytes = &m.as_bytes()[at..];
    // One past the end reads as a separator, so the last run is judged like the others.
    for i in 0..=bytes.len() {
        let byte = bytes.get(i).copied().unwrap_or(b' ');
        if byte.is_ascii_digit() {
            match value
                .checked_mul(10)
                .and_then(|v| v.checked_add(u64::from(byte - b'0')))
            {
                Some(v) => value = v,
                None => overflow = true,
            }
            digits += 1;
            continue;
        }
        if digits >= 3 && !overflow {
            return Some(value);
        }
        (value, digits, overflow) = (0, 0, false);
    }
    None
}

/// Bytes of a request, part by part, as the estimate counts them.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct RequestBytes {
    /// The system prompt.
    pub system: usize,
    /// The tool definitions (the skills catalog included, which rides in a tool).
    pub tools: usize,
    /// The skills catalog alone (part of `tools`).
    pub skills: usize,
    /// The messages.
    pub messages: usize,
}

impl RequestBytes {
    /// Measures `request`.
    pub fn of(request: &ModelRequest) -> RequestBytes {
        RequestBytes::of_parts(&request.system, &request.tools, &request.messages)
    }

    /// Measures the request these parts would make, without building it (the agent estimates
    /// candidate histories before it sends anything).
    pub fn of_parts(system: &str, tools: &[ToolDefinition], messages: &[ChatMessage]) -> Self {
        let mut tool_bytes = 0;
        let mut skills = 0;
        for tool in tools {
            let n = tool.name.len() + tool.description.len() + to_text(&tool.input_schema).len();
            if tool.name == "activate_skill" {
                skills += n;
            }
            tool_bytes += n;
        }
        RequestBytes {
            system: system.len(),
            tools: tool_bytes,
            skills,
            messages: messages_bytes(messages),
        }
    }

    /// All parts.
    pub fn total(&self) -> usize {
        self.system + self.tools + self.messages
    }
}

/// Bytes of `messages` as the estimate counts them (text, call arguments, a little per message).
pub fn messages_bytes(messages: &[ChatMessage]) -> usize {
    messages.iter().map(message_bytes).sum()
}

fn message_bytes(message: &ChatMessage) -> usize {
    // Role, ids and framing: the JSON of a message or call on the OpenAI wire is about this
    // much longer than its text.
    const OVERHEAD: usize = 40;
    OVERHEAD
        + match message {
            ChatMessage::User { content } => content.len(),
            ChatMessage::Assistant {
                content,
                tool_calls,
            } => {
                content.as_deref().map_or(0, str::len)
                    + tool_calls
                        .iter()
                        .map(|c| OVERHEAD + c.id.len() + c.name.len() + to_text(&c.arguments).len())
                        .sum::<usize>()
            }
            ChatMessage::Tool {
                tool_call_id,
                content,
                ..
            } => tool_call_id.len() + content.len(),
        }
}

/// Turns bytes into tokens: the default ratio, or the one the backend's usage revealed.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Estimator {
    /// Bytes per token measured on the last request whose usage came back.
    measured: Option<f64>,
}

impl Estimator {
    /// Tokens of `bytes`.
    pub fn tokens(&self, bytes: usize) -> u64 {
        let ratio = self.measured.unwrap_or(DEFAULT_BYTES_PER_TOKEN);
        (bytes as f64 / ratio).ceil() as u64
    }

    /// Learns from a request of `bytes` that the backend counted as `prompt_tokens`.
    pub fn calibrate(&mut self, bytes: usize, prompt_tokens: u64) {
        // Tiny requests say little about the ratio (fixed per-request overheads dominate).
        if prompt_tokens >= 64 && bytes > 0 {
            self.measured = Some(bytes as f64 / prompt_tokens as f64);
        }
    }

    /// Whether a backend's usage refined the ratio.
    pub fn is_calibrated(&self) -> bool {
        self.measured.is_some()
    }
}

/// What the next request would take of the window, in tokens: `/context`, `agent.context()`
/// and the `done` event.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct ContextReport {
    /// The window, when known.
    pub window: Option<u64>,
    /// The system prompt.
    pub system: u64,
    /// Tool definitions, the skills catalog excluded.
    pub tools: u64,
    /// The skills catalog.
    pub skills: u64,
    /// The conversation.
    pub history: u64,
    /// All of it.
    pub total: u64,
    /// The compaction threshold, when the window is known and compaction is on.
    pub compact_at: Option<u64>,
    /// Whether the estimate is refined by the backend's reported usage.
    pub measured: bool,
}

impl ContextReport {
    /// The report of `bytes` under `estimator` and `config`.
    pub fn new(bytes: RequestBytes, estimator: &Estimator, config: &ContextConfig) -> Self {
        let system = estimator.tokens(bytes.system);
        let skills = estimator.tokens(bytes.skills);
        let tools = estimator.tokens(bytes.tools - bytes.skills);
        let history = estimator.tokens(bytes.messages);
        ContextReport {
            window: config.window,
            system,
            tools,
            skills,
            history,
            total: system + tools + skills + history,
            compact_at: if config.auto_compact {
                config.threshold()
            } else {
                None
            },
            measured: estimator.is_calibrated(),
        }
    }

    /// Tokens left in the window (`None` when it is unknown).
    pub fn free(&self) -> Option<u64> {
        self.window.map(|w| w.saturating_sub(self.total))
    }

    /// `{"window"?, "system", "tools", "skills", "history", "total", "free"?, "compact_at"?,
    /// "measured"}`.
    pub fn to_value(&self) -> Value {
        let mut v = json!({
            "system": self.system, "tools": self.tools, "skills": self.skills,
            "history": self.history, "total": self.total, "measured": self.measured,
        });
        if let Some(window) = self.window {
            v["window"] = window.into();
        }
        if let Some(free) = self.free() {
            v["free"] = free.into();
        }
        if let Some(at) = self.compact_at {
            v["compact_at"] = at.into();
        }
        v
    }
}

#[cfg(test)]
mod tests;
