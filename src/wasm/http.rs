//! The Streamable HTTP machine for JS: `httpTransport` (js/lib/http.js) performs its requests
//! with `fetch` and feeds the responses back.
//!
//! Deliberately thin, to keep the module small: strings and numbers in, one JSON text out.
//! Times are `performance.now()` milliseconds; request ids are plain numbers; headers travel as
//! JSON arrays of `[name, value]` pairs.

use crate::json::to_text;
use crate::mcp::http::{HttpConfig, HttpEvent, HttpRequestId, StreamableHttp};
use crate::time::Instant;
use serde_json::{Map, Value};
use wasm_bindgen::prelude::*;

fn at(now: f64) -> Instant {
    Instant::from_millis(now.max(0.0) as u64)
}

/// `[[name, value], ...]` as pairs; anything else reads as no headers (the JS layer checks).
fn pairs(json: &str) -> Vec<(String, String)> {
    let list = crate::json::parse_str(json).unwrap_or(Value::Null);
    let list = list.as_array().map_or(&[][..], Vec::as_slice);
    list.iter()
        .filter_map(|pair| Some((pair[0].as_str()?.to_owned(), pair[1].as_str()?.to_owned())))
        .collect()
}

/// [`StreamableHttp`] for JS: commands and inputs as methods, every output (and the timer)
/// through [`drain`].
///
/// [`drain`]: HttpMachine::drain
#[wasm_bindgen]
pub struct HttpMachine {
    inner: StreamableHttp,
}

#[wasm_bindgen]
impl HttpMachine {
    /// A machine for endpoint `url`, sending `headers_json` (`[[name, value], ...]`) with every
    /// request. With `authorize`, a `401`/`403` holds the refused messages and asks the host for
    /// a token (event `authorization_required`) instead of closing.
    #[wasm_bindgen(constructor)]
    pub fn new(url: String, headers_json: &str, authorize: bool) -> HttpMachine {
        let mut config = HttpConfig::new(url);
        config.headers = pairs(headers_json);
        config.oauth = authorize;
        HttpMachine {
            inner: StreamableHttp::new(config),
        }
    }

    /// The host's answer to `authorization_required`: every later request carries `Bearer
    /// token`, and the held messages are sent again. Throws once the machine is closed.
    #[wasm_bindgen(js_name = setAccessToken)]
    pub fn set_access_token(&mut self, now: f64, token: String) -> Result<(), JsError> {
        self.inner
            .set_access_token(at(now), token)
            .map_err(|e| JsError::new(&e.to_string()))
    }

    /// The host could not get a token: the machine closes with `reason`.
    #[wasm_bindgen(js_name = authorizationFailed)]
    pub fn authorization_failed(&mut self, reason: String) {
        self.inner.authorization_failed(reason);
    }

    /// Sends one or more JSON-RPC lines; throws once the machine is closed.
    pub fn send(&mut self, now: f64, line: &str) -> Result<(), JsError> {
        self.inner
            .send(at(now), line.as_bytes())
            .map_err(|e| JsError::new(&e.to_string()))
    }

    /// Ends the session (`DELETE` when the server gave a session id).
    pub fn close(&mut self, now: f64) {
        self.inner.close(at(now));
    }

    /// The status and headers (`[[name, value], ...]`) of request `id` arrived.
    pub fn head(&mut self, now: f64, id: f64, status: u16, headers_json: &str) {
        let headers = pairs(headers_json);
        self.inner
            .handle_response_head(at(now), HttpRequestId(id as u64), status, &headers);
    }

    /// A piece of the body of request `id`.
    pub fn chunk(&mut self, now: f64, id: f64, bytes: &[u8]) {
        self.inner
            .handle_body_chunk(at(now), HttpRequestId(id as u64), bytes);
    }

    /// The body of request `id` ended; with `error`, it failed (before or after its head).
    pub fn end(&mut self, now: f64, id: f64, error: Option<String>) {
        let id = HttpRequestId(id as u64);
        match error {
            Some(message) => self.inner.handle_request_error(at(now), id, &message),
            None => self.inner.handle_body_end(at(now), id),
        }
    }

    /// Everything the host must do now, as JSON, after starting the reconnections due at `now`
    /// (the host calls this when the timer it armed for `"timeout"` fires, and after every other
    /// call): `{"requests": [{id, method, url, headers, body}], "aborts": [id], "messages":
    /// [line], "events": [{type, ...}], "timeout": ms or null}`. Event types: `warning`
    /// (`message`), `session_expired` (`sessionId`), `authorization_required` (`status`,
    /// `wwwAuthenticate` or null), `closed` (`reason`, always last).
    pub fn drain(&mut self, now: f64) -> String {
        let m = &mut self.inner;
        m.handle_timeout(at(now));
        // Built by hand rather than with `json!`: no serde serializers end up in the module.
        let list = |items: Vec<Value>| Value::Array(items);
        let mut requests = Vec::new();
        while let Some(r) = m.poll_request() {
            let headers = r
                .headers
                .into_iter()
                .map(|(n, v)| list(vec![n.into(), v.into()]));
            let mut o = Map::new();
            o.insert("id".into(), r.id.0.into());
            o.insert("method".into(), r.method.as_str().into());
            o.insert("url".into(), r.url.into());
            o.insert("headers".into(), list(headers.collect()));
            let body = r.body.map(|b| String::from_utf8_lossy(&b).into_owned());
            o.insert("body".into(), body.map_or(Value::Null, Value::from));
            requests.push(Value::Object(o));
        }
        let aborts = std::iter::from_fn(|| m.poll_abort()).map(|id| id.0.into());
        let aborts = list(aborts.collect());
        let messages = std::iter::from_fn(|| m.poll_message())
            .map(|line| String::from_utf8_lossy(&line).trim_end().into());
        let messages = list(messages.collect());
        let mut events = Vec::new();
        while let Some(event) = m.poll_event() {
            let mut o = Map::new();
            let (kind, key, value): (_, _, Value) = match event {
                HttpEvent::Warning { message } => ("warning", "message", message.into()),
                HttpEvent::SessionExpired { session_id } => {
                    ("session_expired", "sessionId", session_id.into())
                }
                HttpEvent::Closed { reason } => ("closed", "reason", reason.into()),
                HttpEvent::AuthorizationRequired {
                    status,
                    www_authenticate,
                } => {
                    o.insert("status".into(), status.into());
                    let challenge = www_authenticate.map_or(Value::Null, Value::from);
                    ("authorization_required", "wwwAuthenticate", challenge)
                }
            };
            o.insert("type".into(), kind.into());
            o.insert(key.into(), value);
            events.push(Value::Object(o));
        }
        let mut out = Map::new();
        out.insert("requests".into(), list(requests));
        out.insert("aborts".into(), aborts);
        out.insert("messages".into(), messages);
        out.insert("events".into(), list(events));
        let timeout = m.poll_timeout().map(|t| t.as_millis());
        out.insert("timeout".into(), timeout.map_or(Value::Null, Value::from));
        to_text(&Value::Object(out))
    }
}
