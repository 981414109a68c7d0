//! `OpenAiBackend`: the sans-IO model codecs (OpenAI-compatible chat completions, Anthropic
//! Messages) over reqwest, with retries and timeouts.

use super::error::{error_chain, ModelError, FIRST_BYTE_SETTING, IDLE_SETTING};
use super::retry::{is_retryable, parse_retry_after, NextStep};
use super::settings::ModelSettings;
use super::wire::{self, AnswerStream};
use agentwire::driver::{ModelBackend, ModelStream};
use agentwire::model::openai::{decode_response, DecodeError, StreamDelta};
use agentwire::model::{ModelRequest, ModelResponse};
use futures::future::LocalBoxFuture;
use futures::StreamExt;
use reqwest::header::{HeaderMap, HeaderValue, ACCEPT, CONTENT_TYPE};
use std::time::{Duration, SystemTime};
use tokio::time::Instant;

/// How much of an error body is read; error bodies are short, and a huge one is not worth it.
const MAX_ERROR_BODY_BYTES: usize = 64 * 1024;
/// How much of an error body's text goes into the message.
const MAX_ERROR_CHARS: usize = 500;

/// A model behind an OpenAI-compatible `/chat/completions` endpoint (OpenAI, DashScope, vLLM,
/// Ollama, ...), or Anthropic's `/v1/messages` when the settings' provider is
/// [`Provider::Anthropic`](super::Provider::Anthropic) (the name predates it).
///
/// Streams by default: text (and reasoning) reach `on_stream` as they are generated and
/// tool-call arguments are assembled from their fragments. 429 and 5xx are retried with bounded
/// backoff (honouring `Retry-After`). Time: a generous wait for the first byte (a local model
/// reads the prompt first), then a shorter bound on each silence, and a bound on the whole
/// answer; size: a bound on the answer's body. Redirects are followed within the base URL's
/// origin only ([`same_origin_only`](crate::transport::redirect::same_origin_only)). Every error is
/// scrubbed of the key by value.
pub struct OpenAiBackend {
    settings: ModelSettings,
    endpoint: String,
    client: reqwest::Client,
}

impl std::fmt::Debug for OpenAiBackend {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("OpenAiBackend")
            .field("settings", &self.settings)
            .finish_non_exhaustive()
    }
}

impl OpenAiBackend {
    /// A backend for `settings`; fails only if the key cannot go in a header or the HTTP client
    /// cannot be built.
    pub fn new(settings: ModelSettings) -> Result<Self, ModelError> {
        let mut headers = wire::auth_headers(&settings).map_err(ModelError::Setup)?;
        headers.insert(CONTENT_TYPE, HeaderValue::from_static("application/json"));
        let accept = if settings.stream {
            "text/event-stream"
        } else {
            "application/json"
        };
        headers.insert(ACCEPT, HeaderValue::from_static(accept));
        let client = reqwest::Client::builder()
            .default_headers(headers)
            .user_agent(concat!("agentwire/", env!("CARGO_PKG_VERSION")))
            .connect_timeout(settings.first_byte_timeout)
            // The key is a default header: it must never follow a redirect elsewhere.
            .redirect(crate::transport::redirect::same_origin_only())
            .build()
            .map_err(|e| ModelError::Setup(format!("cannot build the HTTP client: {e}")))?;
        Ok(OpenAiBackend {
            endpoint: settings.endpoint(),
            settings,
            client,
        })
    }

    /// The settings this backend uses.
    pub fn settings(&self) -> &ModelSettings {
        &self.settings
    }

    /// Completes `request`, reporting text to `on_stream` as it arrives (all of it, exactly
    /// once: in pieces when streamed, whole when the server did not stream), and the model's
    /// visible reasoning when it streams some, with a typed error that never holds the key.
    pub async fn complete_detailed(
        &self,
        request: &ModelRequest,
        on_stream: &dyn Fn(ModelStream<'_>),
    ) -> Result<ModelResponse, ModelError> {
        self.attempts(request, on_stream)
            .await
            .map_err(|e| e.redacted(&self.settings.api_key))
    }

    async fn attempts(
        &self,
        request: &ModelRequest,
        on_stream: &dyn Fn(ModelStream<'_>),
    ) -> Result<ModelResponse, ModelError> {
        let body = wire::encode(&self.settings, request);
        let mut retries = 0;
        loop {
            let started = Instant::now();
            let response = self.send(body.clone()).await?;
            let status = response.status().as_u16();
            if response.status().is_success() {
                return self.read_answer(response, on_stream, started).await;
            }
            let retry_after = retry_after(response.headers());
            let message = self.error_message(response).await;
            if status == 401 {
                return Err(ModelError::Unauthorized {
                    key_source: self.settings.api_key.source().to_owned(),
                    base_url: self.settings.base_url.clone(),
                    message,
                });
            }
            if !is_retryable(status) {
                let hint = self.hint(status);
                return Err(ModelError::Http {
                    status,
                    message,
                    hint,
                });
            }
            match self.settings.retry.next_step(retries, retry_after) {
                NextStep::Wait(wait) => tokio::time::sleep(wait).await,
                NextStep::Exhausted => {
                    return Err(ModelError::RetriesExhausted {
                        status,
                        attempts: retries + 1,
                        message,
                    })
                }
                NextStep::TooLong(wait) => {
                    return Err(ModelError::RetryAfterTooLong {
                        status,
                        wait,
                        limit: self.settings.retry.max_retry_after,
                        message,
                    })
                }
            }
            retries += 1;
        }
    }

    /// Sends the request; the response's head counts against the time to first byte.
    async fn send(&self, body: String) -> Result<reqwest::Response, ModelError> {
        let send = self.client.post(&self.endpoint).body(body).send();
        match tokio::time::timeout(self.settings.first_byte_timeout, send).await {
            Err(_) => Err(self.first_byte_timeout()),
            Ok(Err(e)) if e.is_timeout() => Err(self.first_byte_timeout()),
            Ok(Err(e)) => Err(self.connection(&e)),
            Ok(Ok(response)) => Ok(response),
        }
    }

    /// Reads a 2xx body: SSE when streaming (a server that ignored `stream` and sent plain JSON
    /// is handled too), one JSON document otherwise. The first chunk must come within the time
    /// to first byte counted from `started`, each further one within the idle timeout, and
    /// the last before the answer's duration bound; the body may not pass the size bound.
    async fn read_answer(
        &self,
        response: reqwest::Response,
        on_stream: &dyn Fn(ModelStream<'_>),
        started: Instant,
    ) -> Result<ModelResponse, ModelError> {
        let mut chunks = response.bytes_stream();
        let max_bytes = self.settings.max_answer_bytes;
        let mut stream = AnswerStream::new(self.settings.provider, max_bytes);
        let mut body = Vec::new();
        let mut streamed_text = false;
        let finish_by = started + self.settings.max_answer_duration;
        let mut next_by = started + self.settings.first_byte_timeout;
        let mut first = true;
        loop {
            let next = tokio::time::timeout_at(next_by.min(finish_by), chunks.next()).await;
            let chunk = match next {
                Err(_) if finish_by <= next_by => return Err(self.too_long()),
                Err(_) if first => return Err(self.first_byte_timeout()),
                Err(_) => return Err(self.idle_timeout()),
                Ok(None) => break,
                Ok(Some(Err(e))) => return Err(self.connection(&e)),
                Ok(Some(Ok(chunk))) => chunk,
            };
            // A server that sends without pause never lets the wait above run out.
            if Instant::now() >= finish_by {
                return Err(self.too_long());
            }
            first = false;
            next_by = Instant::now() + self.settings.idle_timeout;
            if !self.settings.stream {
                if body.len() + chunk.len() > max_bytes {
                    return Err(self.too_large());
                }
                body.extend_from_slice(&chunk);
                continue;
            }
            let deltas = match stream.push(&chunk) {
                Err(DecodeError::TooLarge { .. }) => return Err(self.too_large()),
                other => other?,
            };
            for delta in deltas {
                match delta {
                    StreamDelta::Text(text) => {
                        streamed_text = true;
                        on_stream(ModelStream::Text(&text));
                    }
                    StreamDelta::Reasoning(text) => on_stream(ModelStream::Reasoning(&text)),
                    _ => {}
                }
            }
        }
        let answer = if self.settings.stream {
            stream.finish()?
        } else {
            wire::decode(self.settings.provider, &body)?
        };
        if !streamed_text {
            if let Some(text) = answer.text.as_deref().filter(|t| !t.is_empty()) {
                on_stream(ModelStream::Text(text));
            }
        }
        Ok(answer)
    }

    /// The server's explanation of a failure: the `error.message` of a JSON error body, or the
    /// start of the body; the key is scrubbed in case the server quotes it.
    async fn error_message(&self, response: reqwest::Response) -> String {
        let reason = response
            .status()
            .canonical_reason()
            .unwrap_or("no reason given");
        let bytes = self.read_error_body(response).await;
        let text = if bytes.iter().all(u8::is_ascii_whitespace) {
            reason.to_owned()
        } else {
            match decode_response(&bytes) {
                Err(DecodeError::Api { message, .. }) => message,
                _ => String::from_utf8_lossy(&bytes).trim().to_owned(),
            }
        };
        clip(&self.settings.api_key.redact(&text), MAX_ERROR_CHARS)
    }

    /// At most [`MAX_ERROR_BODY_BYTES`] of an error body, and nothing if it is slow to come:
    /// the status alone already says what failed.
    async fn read_error_body(&self, response: reqwest::Response) -> Vec<u8> {
        let mut chunks = response.bytes_stream();
        let mut body = Vec::new();
        while body.len() < MAX_ERROR_BODY_BYTES {
            match tokio::time::timeout(self.settings.idle_timeout, chunks.next()).await {
                Ok(Some(Ok(chunk))) => body.extend_from_slice(&chunk),
                _ => break,
            }
        }
        body
    }

    fn hint(&self, status: u16) -> Option<String> {
        match status {
            403 => Some(format!(
                "the key from {} may not have access to model {:?}",
                self.settings.api_key.source(),
                self.settings.model
            )),
            404 => Some(format!(
                "check the base URL {} and the model name {:?}",
                self.settings.base_url, self.settings.model
            )),
            _ => None,
        }
    }

    fn first_byte_timeout(&self) -> ModelError {
        ModelError::Timeout {
            after: self.settings.first_byte_timeout,
            waiting_for: "first byte of the answer",
            setting: FIRST_BYTE_SETTING,
            base_url: self.settings.base_url.clone(),
        }
    }

    fn idle_timeout(&self) -> ModelError {
        ModelError::Timeout {
            after: self.settings.idle_timeout,
            waiting_for: "further part of the answer",
            setting: IDLE_SETTING,
            base_url: self.settings.base_url.clone(),
        }
    }

    fn too_large(&self) -> ModelError {
        ModelError::AnswerTooLarge {
            provider: self.settings.provider.label(),
            base_url: self.settings.base_url.clone(),
            limit: self.settings.max_answer_bytes,
        }
    }

    fn too_long(&self) -> ModelError {
        ModelError::AnswerTooLong {
            provider: self.settings.provider.label(),
            base_url: self.settings.base_url.clone(),
            limit: self.settings.max_answer_duration,
        }
    }

    fn connection(&self, error: &reqwest::Error) -> ModelError {
        ModelError::Connection {
            base_url: self.settings.base_url.clone(),
            message: self.settings.api_key.redact(&error_chain(error)),
        }
    }
}

impl ModelBackend for OpenAiBackend {
    fn complete<'a>(
        &'a self,
        request: ModelRequest,
        on_stream: &'a dyn Fn(ModelStream<'_>),
    ) -> LocalBoxFuture<'a, Result<ModelResponse, String>> {
        Box::pin(async move {
            self.complete_detailed(&request, on_stream)
                .await
                .map_err(|e| e.to_string())
        })
    }

    fn model_name(&self) -> Option<String> {
        Some(self.settings.model.clone())
    }
}

fn retry_after(headers: &HeaderMap) -> Option<Duration> {
    let text = |name: &str| headers.get(name).and_then(|v| v.to_str().ok());
    parse_retry_after(
        text("retry-after-ms"),
        text("retry-after"),
        SystemTime::now(),
    )
}

fn clip(text: &str, max_chars: usize) -> String {
    match text.char_indices().nth(max_chars) {
        Some((cut, _)) => format!("{}…", &text[..cut]),
        None => text.to_owned(),
    }
}
