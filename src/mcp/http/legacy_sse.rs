//! The legacy HTTP+SSE transport of MCP (protocol 2024-11-05), client side, as a sans-IO
//! machine beside [`StreamableHttp`](super::StreamableHttp).
//!
//! A `GET` of the configured URL opens a server-sent event stream. Its first `endpoint` event
//! names (relative to the stream's URL, or absolute) where the client `POST`s its messages,
//! one per request; the server answers `202` and sends every response, request and
//! notification as a `message` event on the stream. So:
//! - [`poll_request`](LegacySse::poll_request) first gives the `GET`; lines [`send`](LegacySse::send)
//!   before the `endpoint` event are held and posted, in order, once it came;
//! - an endpoint on another origin than the stream is refused and closes the machine: the
//!   configured headers (credentials) go to the server's own origin only;
//! - a `POST` answered with an error status fails its request at once with a JSON-RPC error
//!   (`httpStatus` in its data), so the caller need not wait for its timeout;
//! - an event larger than the configured `max_message_bytes` is skipped with a warning;
//! - the stream's end or failure closes the machine (this transport has no resumption).
//!
//! Contract: after [`LegacySse::new`] and after every input or command, drain
//! [`poll_request`](LegacySse::poll_request), [`poll_line`](LegacySse::poll_line) and
//! [`poll_warning`](LegacySse::poll_warning). Responses are reported with the
//! [`HttpRequestId`] of the request they answer. There are no timers (the session above keeps
//! every deadline), so inputs take no `now`. Misuse (sending on a closed machine) is an `Err`
//! and changes nothing.

use super::messages::{error_line, split};
use super::types::{find_header, HttpConfig, HttpError, HttpMethod, HttpRequest, HttpRequestId};
use crate::jsonrpc::Id;
use crate::sse::SseDecoder;
use serde_json::Value;
use std::collections::VecDeque;

/// The client side of one legacy HTTP+SSE connection; see the module docs.
#[derive(Debug)]
pub struct LegacySse {
    url: String,
    headers: Vec<(String, String)>,
    decoder: SseDecoder,
    max_message_bytes: usize,
    /// The `GET` of the event stream, once issued.
    stream: Option<HttpRequestId>,
    /// Whether the stream's head was a success (events are read only then).
    stream_open: bool,
    /// Where messages go, once the `endpoint` event named it.
    endpoint: Option<String>,
    /// Lines sent before the endpoint was known.
    held: Vec<Vec<u8>>,
    /// `POST`s in flight: their id and the JSON-RPC request they carry, if any.
    posts: Vec<(HttpRequestId, Option<Id>)>,
    next_id: u64,
    requests: VecDeque<HttpRequest>,
    lines: VecDeque<Vec<u8>>,
    warnings: VecDeque<String>,
    closed: Option<String>,
}

impl LegacySse {
    /// A machine for the server whose event stream is at `config.url`, sending
    /// `config.headers` with every request; the `GET` is ready in
    /// [`poll_request`](Self::poll_request).
    pub fn new(config: &HttpConfig) -> LegacySse {
        let mut machine = LegacySse {
            url: config.url.clone(),
            headers: config.headers.clone(),
            decoder: SseDecoder::with_max_event_bytes(config.max_message_bytes),
            max_message_bytes: config.max_message_bytes,
            stream: None,
            stream_open: false,
            endpoint: None,
            held: Vec::new(),
            posts: Vec::new(),
            next_id: 0,
            requests: VecDeque::new(),
            lines: VecDeque::new(),
            warnings: VecDeque::new(),
            closed: None,
        };
        let id = machine.request(HttpMethod::Get, machine.url.clone(), None);
        machine.stream = Some(id);
        machine
    }

    /// Whether the machine is closed (the stream ended, failed, or was refused).
    pub fn is_closed(&self) -> bool {
        self.closed.is_some()
    }

    /// Why the machine closed, once it has.
    pub fn closed_reason(&self) -> Option<&str> {
        self.closed.as_deref()
    }

    /// The endpoint messages are posted to, once the server named it.
    pub fn endpoint(&self) -> Option<&str> {
        self.endpoint.as_deref()
    }

    /// Sends one JSON-RPC line (held until the endpoint is known); `Err` when closed.
    pub fn send(&mut self, line: &[u8]) -> Result<(), HttpError> {
        if let Some(reason) = &self.closed {
            return Err(HttpError::Closed(reason.clone()));
        }
        match self.endpoint.clone() {
            Some(endpoint) => self.post(endpoint, line),
            None => self.held.push(line.to_vec()),
        }
        Ok(())
    }

    /// Closes the machine: nothing more is sent (the host drops the stream).
    pub fn close(&mut self) {
        self.shut("closed by the client".into());
    }

    /// The next HTTP request to perform.
    pub fn poll_request(&mut self) -> Option<HttpRequest> {
        self.requests.pop_front()
    }

    /// The next JSON-RPC line for the session, ending in `\n`.
    pub fn poll_line(&mut self) -> Option<Vec<u8>> {
        self.lines.pop_front()
    }

    /// The next problem worth a log line that does not end the connection.
    pub fn poll_warning(&mut self) -> Option<String> {
        self.warnings.pop_front()
    }

    /// The status and headers of request `id` arrived.
    pub fn handle_response_head(
        &mut self,
        id: HttpRequestId,
        status: u16,
        headers: &[(String, String)],
    ) {
        if self.stream == Some(id) {
            let content_type = find_header(headers, "content-type").unwrap_or("");
            if !(200..300).contains(&status) {
                self.shut(format!(
                    "the SSE stream {} answered HTTP {status}",
                    self.url
                ));
            } else if !content_type
                .to_ascii_lowercase()
                .starts_with("text/event-stream")
            {
                self.shut(format!(
                    "the SSE stream {} answered {} instead of text/event-stream",
                    self.url,
                    if content_type.is_empty() {
                        "no content type"
                    } else {
                        content_type
                    }
                ));
            } else {
                self.stream_open = true;
            }
            return;
        }
        let Some(at) = self.posts.iter().position(|(p, _)| *p == id) else {
            return;
        };
        if (200..300).contains(&status) {
            return;
        }
        let (_, request) = self.posts.remove(at);
        let message = format!("the server refused the message with HTTP {status}");
        match request {
            Some(request) => self
                .lines
                .push_back(error_line(&request, &message, Some(status))),
            None => self.warnings.push_back(message),
        }
    }

    /// A chunk of the body of request `id` (the stream's events; a `POST`'s body is ignored).
    pub fn handle_body_chunk(&mut self, id: HttpRequestId, bytes: &[u8]) {
        if self.stream != Some(id) || !self.stream_open || self.is_closed() {
            return;
        }
        if self.decoder.push(bytes).is_err() {
            self.warnings.push_back(format!(
                "skipped a server-sent event larger than {} bytes",
                self.max_message_bytes
            ));
        }
        while let Some(event) = self.decoder.next_event() {
            match event.event.as_str() {
                "endpoint" => self.handle_endpoint(event.data.trim()),
                "message" => self.handle_message(event.data.as_bytes()),
                other => self
                    .warnings
                    .push_back(format!("ignored a server-sent event of type {other:?}")),
            }
            if self.is_closed() {
                return;
            }
        }
    }

    /// Request `id` ended normally.
    pub fn handle_body_end(&mut self, id: HttpRequestId) {
        if self.stream == Some(id) {
            self.shut(format!("the server closed the SSE stream {}", self.url));
        } else {
            self.posts.retain(|(p, _)| *p != id);
        }
    }

    /// Request `id` failed (connection refused, reset, ...).
    pub fn handle_request_error(&mut self, id: HttpRequestId, message: &str) {
        if self.stream == Some(id) {
            self.shut(format!("the SSE stream {} failed: {message}", self.url));
            return;
        }
        let Some(at) = self.posts.iter().position(|(p, _)| *p == id) else {
            return;
        };
        let (_, request) = self.posts.remove(at);
        let message = format!("sending the message failed: {message}");
        match request {
            Some(request) => self.lines.push_back(error_line(&request, &message, None)),
            None => self.warnings.push_back(message),
        }
    }

    fn handle_endpoint(&mut self, data: &str) {
        if self.endpoint.is_some() {
            self.warnings
                .push_back("ignored a second endpoint event".into());
            return;
        }
        let endpoint = match resolve(&self.url, data) {
            Ok(endpoint) => endpoint,
            Err(why) => return self.shut(why),
        };
        self.endpoint = Some(endpoint.clone());
        for line in std::mem::take(&mut self.held) {
            self.post(endpoint.clone(), &line);
        }
    }

    fn handle_message(&mut self, data: &[u8]) {
        if self.endpoint.is_none() {
            self.warnings
                .push_back("a message arrived before the endpoint event".into());
        }
        for incoming in split(data) {
            self.lines.push_back(incoming.line);
        }
    }

    fn post(&mut self, endpoint: String, line: &[u8]) {
        let request = request_id(line);
        let body = line.strip_suffix(b"\n").unwrap_or(line).to_vec();
        let id = self.request(HttpMethod::Post, endpoint, Some(body));
        self.posts.push((id, request));
    }

    fn request(&mut self, method: HttpMethod, url: String, body: Option<Vec<u8>>) -> HttpRequestId {
        self.next_id += 1;
        let id = HttpRequestId(self.next_id);
        let mut headers = self.headers.clone();
        match method {
            HttpMethod::Get => headers.push(("Accept".into(), "text/event-stream".into())),
            _ => headers.push(("Content-Type".into(), "application/json".into())),
        }
        self.requests.push_back(HttpRequest {
            id,
            method,
            url,
            headers,
            body,
        });
        id
    }

    fn shut(&mut self, reason: String) {
        if self.closed.is_some() {
            return;
        }
        self.requests.clear();
        self.held.clear();
        // Requests still awaiting an answer learn it from the session's end of stream.
        self.closed = Some(reason);
    }
}

/// The id of a JSON-RPC request line (a message with both `method` and `id`).
fn request_id(line: &[u8]) -> Option<Id> {
    let value: Value = serde_json::from_slice(line).ok()?;
    let object = value.as_object()?;
    object.get("method")?;
    match object.get("id")? {
        Value::Number(n) => Some(Id::Number(n.clone())),
        Value::String(s) => Some(Id::String(s.clone())),
        _ => None,
    }
}

/// An absolute http(s) URL's `scheme://authority` as written (user info kept, for building
/// URLs on it), the origin to compare (`scheme://host:port` lowercased, without user info),
/// and the rest of the URL after the authority.
fn origin_of(url: &str) -> Option<(&str, String, &str)> {
    let (scheme, rest) = url.split_once("://")?;
    let lower = scheme.to_ascii_lowercase();
    if lower != "http" && lower != "https" {
        return None;
    }
    let end = rest.find(['/', '?', '#']).unwrap_or(rest.len());
    let authority = &rest[..end];
    // `user:password@` is not part of the origin: `https://h@evil.example` is evil.example.
    let host = authority.rsplit('@').next().unwrap_or(authority);
    if host.is_empty() {
        return None;
    }
    let written = &url[..scheme.len() + 3 + end];
    Some((
        written,
        format!("{lower}://{}", host.to_ascii_lowercase()),
        &rest[end..],
    ))
}

/// The endpoint `data` names, resolved against the stream's URL `base`: an absolute URL on
/// the same origin, an absolute path, or a path relative to the stream's. Another origin (or
/// anything unusable) is an error naming it.
pub fn resolve(base: &str, data: &str) -> Result<String, String> {
    let refuse = |why: &str| {
        Err(format!(
            "the server's endpoint event names {data:?}, which {why}; refused"
        ))
    };
    let Some((written, origin, base_rest)) = origin_of(base) else {
        return refuse("cannot be resolved against the stream's URL");
    };
    if data.is_empty() || data.chars().any(|c| c.is_control() || c == ' ') {
        return refuse("is not a URL");
    }
    if data.contains("://") || data.starts_with("//") {
        let absolute = if data.starts_with("//") {
            format!("{}:{data}", &origin[..origin.find(':').unwrap_or(0)])
        } else {
            data.to_owned()
        };
        return match origin_of(&absolute) {
            Some((_, theirs, _)) if theirs == origin => Ok(absolute),
            Some(_) => refuse(&format!(
                "is on another origin than the stream ({origin}), where the configured headers \
                 must not go"
            )),
            None => refuse("is not an http(s) URL on the stream's origin"),
        };
    }
    // `mailto:x`, `javascript:`: a scheme before any `/` or `?`, not a path.
    let first = data.split([':', '/', '?']).next().unwrap_or("");
    if data[first.len()..].starts_with(':') {
        return refuse("is not an http(s) URL on the stream's origin");
    }
    if data.starts_with('/') {
        return Ok(format!("{written}{data}"));
    }
    let path = base_rest.split(['?', '#']).next().unwrap_or("");
    let dir = &path[..path.rfind('/').map_or(0, |i| i + 1)];
    let dir = if dir.is_empty() { "/" } else { dir };
    if data.starts_with('?') {
        return Ok(format!("{written}{path}{data}"));
    }
    Ok(format!("{written}{dir}{data}"))
}

#[cfg(test)]
mod tests;
