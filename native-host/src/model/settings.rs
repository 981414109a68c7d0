//! Which model to talk to, worked out from the environment and the command line.
//!
//! | setting | flag (wins) | environment | default |
//! |---|---|---|---|
//! | key | — | `OPENAI_API_KEY`, else `DASHSCOPE_API_KEY`, else `ANTHROPIC_API_KEY` | none: the mock model |
//! | base URL | `--base-url` | `OPENAI_BASE_URL` (`DASHSCOPE_BASE_URL` with a DashScope key, `ANTHROPIC_BASE_URL` with an Anthropic key) | OpenAI's, DashScope's compatible mode, or `https://api.anthropic.com` |
//! | model | `--model` | `AGENTWIRE_MODEL` | `gpt-4o-mini`, `qwen-plus` with a DashScope key, `claude-sonnet-4-5` with an Anthropic key |
//! | time to first byte | overrides (both timeouts) | `AGENTWIRE_MODEL_FIRST_BYTE_TIMEOUT_MS` (`AGENTWIRE_MODEL_TIMEOUT_MS` sets both) | 600 000 ms |
//! | silence while streaming | overrides (both timeouts) | `AGENTWIRE_MODEL_IDLE_TIMEOUT_MS` (`AGENTWIRE_MODEL_TIMEOUT_MS` sets both) | 180 000 ms |
//! | size of an answer | — | `AGENTWIRE_MODEL_MAX_ANSWER_BYTES` | 64 MiB |
//! | duration of an answer | — | `AGENTWIRE_MODEL_MAX_ANSWER_MS` | 1 800 000 ms (30 min) |
//! | streaming | overrides | `AGENTWIRE_MODEL_STREAM` (`0`/`1`) | on |
//! | retries | — | `AGENTWIRE_MODEL_RETRIES` | 3 |
//!
//! With both keys set, the DashScope key is used when the base URL points at DashScope (an
//! OpenAI key would be refused there), the OpenAI key otherwise. A DashScope key is never sent
//! to a non-DashScope `OPENAI_BASE_URL` picked up from the environment: only an explicit
//! `--base-url` or `DASHSCOPE_BASE_URL` moves it elsewhere. `ANTHROPIC_API_KEY` is used when it is
//! the only key, or when the model name starts with `claude`; it goes only to `--base-url`,
//! `ANTHROPIC_BASE_URL` or Anthropic's API. Keys set but not used are named in
//! [`ModelSettings::describe`]. The model name `mock` selects the mock model even when a key is
//! set. A base URL with user info (`https://user:pass@host`) is refused: reqwest would send it
//! as Basic authorization beside the key, to a provider that never asked for it.

use super::key::ApiKey;
use super::retry::RetryPolicy;
use std::time::Duration;

/// OpenAI's API.
pub const OPENAI_DEFAULT_BASE_URL: &str = "https://api.openai.com/v1";
/// DashScope (Alibaba Cloud Bailian), OpenAI-compatible mode, mainland region.
pub const DASHSCOPE_DEFAULT_BASE_URL: &str = "https://dashscope.aliyuncs.com/compatible-mode/v1";
/// The model used with an OpenAI key when none is named.
pub const OPENAI_DEFAULT_MODEL: &str = "gpt-4o-mini";
/// Anthropic's API (requests go to `<base>/v1/messages`).
pub const ANTHROPIC_DEFAULT_BASE_URL: &str = "https://api.anthropic.com";
/// The model used with an Anthropic key when none is named.
pub const ANTHROPIC_DEFAULT_MODEL: &str = "claude-sonnet-4-5";
/// The model used with a DashScope key when none is named.
pub const DASHSCOPE_DEFAULT_MODEL: &str = "qwen-plus";
/// How long to wait for the first byte of an answer: 10 minutes, because a local model
/// (llama.cpp, Ollama on a CPU) reads a long prompt before it writes anything; a first request
/// of 3,500 prompt tokens took 132 s on an ordinary machine.
pub const DEFAULT_FIRST_BYTE_TIMEOUT: Duration = Duration::from_secs(600);
/// The longest silence within an answer once it has started: 3 minutes. Streaming servers send
/// a token, a ping or a keep-alive comment every few seconds; a stream silent for this long is
/// stuck.
pub const DEFAULT_IDLE_TIMEOUT: Duration = Duration::from_secs(180);
/// The longest one answer may take, from sending the request to its last byte: 30 minutes. A
/// hosted model writes its longest answers in a few minutes and a slow local one (5 tokens/s
/// after a 10-minute prompt) several thousand tokens in the rest; a server that streams pings
/// for ever no longer holds a run for ever.
pub const DEFAULT_MAX_ANSWER_DURATION: Duration = Duration::from_secs(30 * 60);
pub use agentwire::model::DEFAULT_MAX_ANSWER_BYTES;
/// The model name that picks the mock model.
pub const MOCK_MODEL_NAME: &str = "mock";

/// Which family of service the key belongs to; it picks the defaults.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum Provider {
    /// OpenAI, or any server speaking its protocol with `OPENAI_API_KEY`.
    OpenAi,
    /// Alibaba Cloud Bailian (DashScope) in OpenAI-compatible mode.
    DashScope,
    /// Anthropic's Messages API (`ANTHROPIC_API_KEY`).
    Anthropic,
}

impl Provider {
    /// A name for messages.
    pub fn label(self) -> &'static str {
        match self {
            Provider::OpenAi => "OpenAI-compatible",
            Provider::DashScope => "DashScope (Alibaba Cloud Bailian)",
            Provider::Anthropic => "Anthropic Messages",
        }
    }
}

/// Settings given on the command line; each one, when present, beats the environment.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct ModelOverrides {
    /// `--model`.
    pub model: Option<String>,
    /// `--base-url`.
    pub base_url: Option<String>,
    /// A request timeout from the command line or a config file: both the time to first byte
    /// and the idle timeout.
    pub timeout: Option<Duration>,
    /// `false` for `--no-stream`.
    pub stream: Option<bool>,
}

/// Everything needed to talk to one OpenAI-compatible endpoint. `Debug` is safe to print: the
/// key redacts itself.
#[derive(Clone, Debug, PartialEq)]
pub struct ModelSettings {
    /// Whose defaults apply.
    pub provider: Provider,
    /// Base URL without a trailing slash, e.g. `https://api.openai.com/v1`.
    pub base_url: String,
    /// Model name sent with every request.
    pub model: String,
    /// The key, with where it came from.
    pub api_key: ApiKey,
    /// The longest wait from sending the request to the first byte of the answer.
    pub first_byte_timeout: Duration,
    /// The longest silence between two pieces of an answer once it has started.
    pub idle_timeout: Duration,
    /// The most bytes an answer's body may have (streamed or not).
    pub max_answer_bytes: usize,
    /// The longest one answer may take, from sending the request to its last byte.
    pub max_answer_duration: Duration,
    /// Ask for a streamed answer, so text shows as it is generated.
    pub stream: bool,
    /// Retries for 429 and 5xx.
    pub retry: RetryPolicy,
    /// Key variables that were set but not used, so the start-up line can say so.
    pub unused_keys: Vec<String>,
}

/// The model a host should run with.
#[derive(Clone, Debug, PartialEq)]
#[non_exhaustive]
// Made once per process and unpacked at once: boxing the settings would buy nothing.
#[allow(clippy::large_enum_variant)]
pub enum ModelChoice {
    /// A real model behind an OpenAI-compatible endpoint.
    OpenAi(ModelSettings),
    /// The built-in mock model; show `notice` to the user so nobody mistakes it for a real one.
    Mock {
        /// Why the mock model is used, and how to get a real one.
        notice: String,
    },
}

impl ModelSettings {
    /// Settings for `model` at `base_url` with default timeout, streaming and retries.
    pub fn new(base_url: &str, model: impl Into<String>, api_key: ApiKey) -> Self {
        ModelSettings {
            provider: Provider::OpenAi,
            base_url: base_url.trim_end_matches('/').to_owned(),
            model: model.into(),
            api_key,
            first_byte_timeout: DEFAULT_FIRST_BYTE_TIMEOUT,
            idle_timeout: DEFAULT_IDLE_TIMEOUT,
            max_answer_bytes: DEFAULT_MAX_ANSWER_BYTES,
            max_answer_duration: DEFAULT_MAX_ANSWER_DURATION,
            stream: true,
            retry: RetryPolicy::default(),
            unused_keys: Vec::new(),
        }
    }

    /// Works out the model from environment variables (read through `lookup`, e.g.
    /// `|name| std::env::var(name).ok()`) and command-line `overrides`. Empty variables count
    /// as unset. Errors name the variable or flag holding an unusable value.
    pub fn from_env(
        lookup: impl Fn(&str) -> Option<String>,
        overrides: &ModelOverrides,
    ) -> Result<ModelChoice, String> {
        let var = |name: &str| {
            lookup(name)
                .map(|v| v.trim().to_owned())
                .filter(|v| !v.is_empty())
        };
        let flag = |v: &Option<String>| {
            v.as_deref()
                .map(str::trim)
                .filter(|v| !v.is_empty())
                .map(str::to_owned)
        };
        let model_flag = flag(&overrides.model);
        let base_flag = flag(&overrides.base_url);
        let model_name = model_flag.clone().or_else(|| var("AGENTWIRE_MODEL"));
        if model_name.as_deref() == Some(MOCK_MODEL_NAME) {
            return Ok(ModelChoice::Mock {
                notice: "using the built-in mock model, as asked (model \"mock\")".into(),
            });
        }

        let openai_key = var("OPENAI_API_KEY");
        let dashscope_key = var("DASHSCOPE_API_KEY");
        let anthropic_key = var("ANTHROPIC_API_KEY");
        let wants_claude = model_name
            .as_deref()
            .is_some_and(|m| m.to_ascii_lowercase().starts_with("claude"));
        let use_anthropic = anthropic_key.is_some()
            && (wants_claude || (openai_key.is_none() && dashscope_key.is_none()));
        let set_keys: Vec<&str> = [
            ("OPENAI_API_KEY", openai_key.is_some()),
            ("DASHSCOPE_API_KEY", dashscope_key.is_some()),
            ("ANTHROPIC_API_KEY", anthropic_key.is_some()),
        ]
        .into_iter()
        .filter_map(|(name, set)| set.then_some(name))
        .collect();
        let openai_base = var("OPENAI_BASE_URL");
        // The base URL the user pointed at explicitly, if any, decides between two keys.
        let pointed_at_dashscope = base_flag
            .as_deref()
            .or(openai_base.as_deref())
            .is_some_and(is_dashscope_url);
        let use_dashscope =
            dashscope_key.is_some() && (openai_key.is_none() || pointed_at_dashscope);
        let (provider, key, (base_url, base_source)) = match (openai_key, dashscope_key) {
            _ if use_anthropic => {
                let base = base_flag
                    .map(|b| (b, "--base-url"))
                    .or_else(|| var("ANTHROPIC_BASE_URL").map(|b| (b, "ANTHROPIC_BASE_URL")))
                    .unwrap_or((ANTHROPIC_DEFAULT_BASE_URL.into(), "the default"));
                let key = ApiKey::new(anthropic_key.unwrap_or_default(), "ANTHROPIC_API_KEY");
                (Provider::Anthropic, key, base)
            }
            (_, Some(dash)) if use_dashscope => {
                let base = base_flag
                    .map(|b| (b, "--base-url"))
                    .or_else(|| var("DASHSCOPE_BASE_URL").map(|b| (b, "DASHSCOPE_BASE_URL")))
                    .or_else(|| {
                        openai_base
                            .filter(|b| is_dashscope_url(b))
                            .map(|b| (b, "OPENAI_BASE_URL"))
                    })
                    .unwrap_or((DASHSCOPE_DEFAULT_BASE_URL.into(), "the default"));
                let key = ApiKey::new(dash, "DASHSCOPE_API_KEY");
                (Provider::DashScope, key, base)
            }
            (Some(openai), _) => {
                let base = base_flag
                    .map(|b| (b, "--base-url"))
                    .or_else(|| openai_base.map(|b| (b, "OPENAI_BASE_URL")))
                    .unwrap_or((OPENAI_DEFAULT_BASE_URL.into(), "the default"));
                (
                    Provider::OpenAi,
                    ApiKey::new(openai, "OPENAI_API_KEY"),
                    base,
                )
            }
            _ => {
                return Ok(ModelChoice::Mock {
                    notice: no_key_notice(&model_flag, &base_flag),
                })
            }
        };
        check_base_url(&base_url, base_source)?;
        let model = model_name.unwrap_or_else(|| match provider {
            Provider::DashScope => DASHSCOPE_DEFAULT_MODEL.into(),
            Provider::OpenAi => OPENAI_DEFAULT_MODEL.into(),
            Provider::Anthropic => ANTHROPIC_DEFAULT_MODEL.into(),
        });

        let mut settings = ModelSettings::new(&base_url, model, key);
        settings.unused_keys = set_keys
            .into_iter()
            .filter(|name| *name != settings.api_key.source())
            .map(str::to_owned)
            .collect();
        settings.provider = provider;
        // One timeout given (flag, config or the older variable) sets both; the two specific
        // variables refine it.
        let both = match (overrides.timeout, var("AGENTWIRE_MODEL_TIMEOUT_MS")) {
            (Some(t), _) => Some(t),
            (None, Some(ms)) => Some(parse_millis(&ms, "AGENTWIRE_MODEL_TIMEOUT_MS")?),
            (None, None) => None,
        };
        let millis = |name: &str, default: Duration| match var(name) {
            Some(ms) => parse_millis(&ms, name),
            None => Ok(both.unwrap_or(default)),
        };
        settings.first_byte_timeout = millis(
            "AGENTWIRE_MODEL_FIRST_BYTE_TIMEOUT_MS",
            DEFAULT_FIRST_BYTE_TIMEOUT,
        )?;
        settings.idle_timeout = millis("AGENTWIRE_MODEL_IDLE_TIMEOUT_MS", DEFAULT_IDLE_TIMEOUT)?;
        settings.max_answer_duration = match var("AGENTWIRE_MODEL_MAX_ANSWER_MS") {
            Some(ms) => parse_millis(&ms, "AGENTWIRE_MODEL_MAX_ANSWER_MS")?,
            None => DEFAULT_MAX_ANSWER_DURATION,
        };
        if let Some(bytes) = var("AGENTWIRE_MODEL_MAX_ANSWER_BYTES") {
            settings.max_answer_bytes = match bytes.parse::<usize>() {
                Ok(n) if n > 0 => n,
                _ => {
                    return Err(format!(
                        "AGENTWIRE_MODEL_MAX_ANSWER_BYTES must be a positive number of bytes, got {bytes:?}"
                    ))
                }
            };
        }
        settings.stream = match (overrides.stream, var("AGENTWIRE_MODEL_STREAM")) {
            (Some(s), _) => s,
            (None, Some(v)) => parse_switch(&v, "AGENTWIRE_MODEL_STREAM")?,
            (None, None) => true,
        };
        if let Some(n) = var("AGENTWIRE_MODEL_RETRIES") {
            settings.retry.max_retries = match n.parse::<u32>() {
                Ok(n) if n <= 10 => n,
                _ => {
                    return Err(format!(
                        "AGENTWIRE_MODEL_RETRIES must be a whole number from 0 to 10, got {n:?}"
                    ))
                }
            };
        }
        Ok(ModelChoice::OpenAi(settings))
    }

    /// The URL requests go to: the base URL plus `/chat/completions` (unless already there);
    /// for Anthropic plus `/v1/messages` (`/messages` after a base ending in `/v1`). A query
    /// string (Azure's `?api-version=…`) stays at the end: the path goes before it.
    pub fn endpoint(&self) -> String {
        let (path, query) = match self.base_url.find(['?', '#']) {
            Some(at) => self.base_url.split_at(at),
            None => (self.base_url.as_str(), ""),
        };
        let path = path.trim_end_matches('/');
        let full = if self.provider == Provider::Anthropic {
            if path.ends_with("/messages") {
                path.to_owned()
            } else if path.ends_with("/v1") {
                format!("{path}/messages")
            } else {
                format!("{path}/v1/messages")
            }
        } else if path.ends_with("/chat/completions") {
            path.to_owned()
        } else {
            format!("{path}/chat/completions")
        };
        format!("{full}{query}")
    }

    /// One line for a status display: model, server, where the key came from, and the keys
    /// set but not used (so precedence between keys is never a surprise).
    pub fn describe(&self) -> String {
        let mut line = format!(
            "{} at {} ({}, key from {})",
            self.model,
            crate::os::display_url::for_display(&self.base_url),
            self.provider.label(),
            self.api_key.source()
        );
        if !self.unused_keys.is_empty() {
            line.push_str(&format!(
                "; {} also set, not used",
                self.unused_keys.join(", ")
            ));
        }
        line
    }
}

fn no_key_notice(model_flag: &Option<String>, base_flag: &Option<String>) -> String {
    let mut notice = String::from(
        "no model API key found: set OPENAI_API_KEY (OpenAI, or any OpenAI-compatible server \
         with OPENAI_BASE_URL), DASHSCOPE_API_KEY (Alibaba Cloud Bailian) or ANTHROPIC_API_KEY \
         (Claude); using the built-in \
         mock model, which only understands a few fixed requests",
    );
    let ignored: Vec<String> = [("--model", model_flag), ("--base-url", base_flag)]
        .into_iter()
        .filter_map(|(name, v)| v.as_ref().map(|v| format!("{name} {v}")))
        .collect();
    if !ignored.is_empty() {
        notice.push_str(&format!(" ({} ignored without a key)", ignored.join(", ")));
    }
    notice
}

/// DashScope's hosts, in every region, end in `aliyuncs.com` and start with `dashscope`.
fn is_dashscope_url(url: &str) -> bool {
    reqwest::Url::parse(url)
        .ok()
        .and_then(|u| u.host_str().map(str::to_ascii_lowercase))
        .is_some_and(|h| h.starts_with("dashscope") && h.ends_with(".aliyuncs.com"))
}

/// An `http(s)` URL with a host and without user info. The URL is shown only as
/// [`for_display`](crate::os::display_url::for_display) shows it: a password in it never prints.
fn check_base_url(url: &str, source: &str) -> Result<(), String> {
    let shown = || crate::os::display_url::for_display(url);
    let parsed = reqwest::Url::parse(url)
        .map_err(|e| format!("{source} is not a valid URL ({e}): {:?}", shown()))?;
    if !matches!(parsed.scheme(), "http" | "https") || parsed.host_str().is_none() {
        return Err(format!(
            "{source} must be an http:// or https:// URL with a host, got {:?}",
            shown()
        ));
    }
    // reqwest sends user info as Basic authorization, beside the key: a password meant for
    // a proxy or pasted by mistake would go to the model provider. Refused, not stripped,
    // so the user learns that it was never used rather than wondering why a proxy refuses.
    if !parsed.username().is_empty() || parsed.password().is_some() {
        return Err(format!(
            "{source} carries user info (user:password@), which agentwire never sends to a \
             model provider; remove it from {:?} (the key goes in the provider's API key \
             variable)",
            shown()
        ));
    }
    Ok(())
}

fn parse_millis(ms: &str, name: &str) -> Result<Duration, String> {
    match ms.parse::<u64>() {
        Ok(ms) if ms > 0 => Ok(Duration::from_millis(ms)),
        _ => Err(format!(
            "{name} must be a positive number of milliseconds, got {ms:?}"
        )),
    }
}

fn parse_switch(value: &str, name: &str) -> Result<bool, String> {
    match value.to_ascii_lowercase().as_str() {
        "1" | "true" | "yes" | "on" => Ok(true),
        "0" | "false" | "no" | "off" => Ok(false),
        _ => Err(format!("{name} must be 1 or 0 (true/false), got {value:?}")),
    }
}
