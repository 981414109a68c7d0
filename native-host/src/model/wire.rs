//! The two wire formats a remote model speaks, picked by the settings' provider: OpenAI-compatible
//! chat completions, or Anthropic Messages. Everything else about a request (retries, timeouts,
//! key handling) is the same and lives in the backend.

use super::settings::{ModelSettings, Provider};
use agentwire::model::anthropic::{self, AnthropicOptions, MessagesStream};
use agentwire::model::openai::{
    self, ChatCompletionStream, DecodeError, OpenAiOptions, StreamDelta,
};
use agentwire::model::{ModelRequest, ModelResponse};
use reqwest::header::{HeaderMap, HeaderName, HeaderValue, AUTHORIZATION};

/// The Messages API version this codec speaks (sent as `anthropic-version`).
pub const ANTHROPIC_VERSION: &str = "2023-06-01";

/// The request body for `request` in the provider's wire format.
pub(crate) fn encode(settings: &ModelSettings, request: &ModelRequest) -> String {
    match settings.provider {
        Provider::Anthropic => {
            let options = AnthropicOptions {
                stream: settings.stream,
                ..AnthropicOptions::new(settings.model.clone())
            };
            anthropic::encode_request(request, &options).to_string()
        }
        Provider::OpenAi | Provider::DashScope => {
            let options = OpenAiOptions {
                stream: settings.stream,
                ..OpenAiOptions::new(settings.model.clone())
            };
            openai::encode_request(request, &options).to_string()
        }
    }
}

/// The headers that carry the key: `x-api-key` and `anthropic-version` for Anthropic,
/// `Authorization: Bearer` otherwise. The key's header is marked sensitive, which keeps it out
/// of the HTTP stack's debug output.
pub(crate) fn auth_headers(settings: &ModelSettings) -> Result<HeaderMap, String> {
    let cannot = || {
        format!(
            "the API key from {} contains characters that cannot be sent in a header",
            settings.api_key.source()
        )
    };
    let mut headers = HeaderMap::new();
    match settings.provider {
        Provider::Anthropic => {
            let mut key = HeaderValue::try_from(settings.api_key.expose()).map_err(|_| cannot())?;
            key.set_sensitive(true);
            headers.insert(HeaderName::from_static("x-api-key"), key);
            headers.insert(
                HeaderName::from_static("anthropic-version"),
                HeaderValue::from_static(ANTHROPIC_VERSION),
            );
        }
        Provider::OpenAi | Provider::DashScope => {
            let mut auth = HeaderValue::try_from(format!("Bearer {}", settings.api_key.expose()))
                .map_err(|_| cannot())?;
            auth.set_sensitive(true);
            headers.insert(AUTHORIZATION, auth);
        }
    }
    Ok(headers)
}

/// Decodes a whole (non-streamed) answer body.
pub(crate) fn decode(provider: Provider, body: &[u8]) -> Result<ModelResponse, DecodeError> {
    match provider {
        Provider::Anthropic => anthropic::decode_response(body),
        Provider::OpenAi | Provider::DashScope => openai::decode_response(body),
    }
}

/// A streamed answer being decoded in the provider's format.
pub(crate) enum AnswerStream {
    OpenAi(ChatCompletionStream),
    Anthropic(MessagesStream),
}

impl AnswerStream {
    /// A decoder for one streamed answer from `provider`, of at most `max_bytes` bytes.
    pub(crate) fn new(provider: Provider, max_bytes: usize) -> Self {
        match provider {
            Provider::Anthropic => {
                AnswerStream::Anthropic(MessagesStream::with_max_bytes(max_bytes))
            }
            Provider::OpenAi | Provider::DashScope => {
                AnswerStream::OpenAi(ChatCompletionStream::with_max_bytes(max_bytes))
            }
        }
    }

    /// Feeds a chunk of the body; returns what can be shown now.
    pub(crate) fn push(&mut self, bytes: &[u8]) -> Result<Vec<StreamDelta>, DecodeError> {
        match self {
            AnswerStream::OpenAi(s) => s.push(bytes),
            AnswerStream::Anthropic(s) => s.push(bytes),
        }
    }

    /// Ends the body: the answer, or why there is none.
    pub(crate) fn finish(self) -> Result<ModelResponse, DecodeError> {
        match self {
            AnswerStream::OpenAi(s) => s.finish(),
            AnswerStream::Anthropic(s) => s.finish(),
        }
    }
}
