//! The MCP Streamable HTTP transport (spec 2025-11-25), client side, as a sans-IO machine.
//!
//! [`StreamableHttp`] turns JSON-RPC lines into HTTP requests described as plain data
//! ([`HttpRequest`]) and turns HTTP responses (heads, body chunks, ends, errors) back into
//! JSON-RPC lines. It performs no I/O and reads no clock, so any host can drive it: the native
//! host with reqwest, a JS host with `fetch`, a test with a script.
//!
//! It sits *below* [`ClientSession`](crate::mcp::ClientSession), as the bytes of a transport:
//!
//! ```text
//! ClientSession --lines--> StreamableHttp --HttpRequest--> host (reqwest, fetch, ...)
//! ClientSession <--lines-- StreamableHttp <--head/chunks/end-- host
//! ```
//!
//! What it does, and the choices it makes:
//! - one `POST` per message with `Accept: application/json, text/event-stream`; a JSON body or
//!   an SSE stream may answer, `202` acknowledges notifications and responses;
//! - messages wait while `initialize` is in flight, so every later request carries the
//!   `Mcp-Session-Id` the server assigned; `MCP-Protocol-Version` is sniffed from the
//!   `initialize` result and sent on every request after it;
//! - together with `notifications/initialized` it opens the optional `GET` stream
//!   (a `405` means the server offers none);
//! - a stream that ends before every response on it arrived is resumed with a `GET` carrying
//!   `Last-Event-ID`, after the SSE `retry` delay (clean close) or an exponential backoff
//!   (network error); a stream with no event id cannot be resumed and its requests fail at once;
//! - server requests arriving on any stream go up like other messages, and the session's
//!   answers are `POST`ed back;
//! - `404` for a known session reports [`HttpEvent::SessionExpired`] and starts a new session,
//!   as the spec requires: the `initialize` seen earlier is replayed without a session id (its
//!   answer is kept from the session above, which is initialized already), then
//!   `notifications/initialized` and the message that got the `404`, both sent once the
//!   replayed `initialize` is answered (so they carry the new session's id and version); after
//!   [`MAX_REINITIALIZATIONS`] new sessions the machine gives up and closes. Event ids mean
//!   nothing in another session, so the old session's standalone stream is dropped and every
//!   request awaited on one of its resumptions (in flight, whose `GET` is aborted, scheduled,
//!   or held for authorization) fails at once with `httpStatus` 404, naming the forgotten
//!   session. A `POST`'s stream of the old session that is still open keeps delivering (its
//!   answers answer ids we sent); should it end before answering, its request fails at once the
//!   same way instead of being resumed. A message sent in the old session whose own `404`
//!   comes late is simply re-sent in the new one, not taken for the new session's expiry;
//! - a message over `max_message_bytes` is dropped as it arrives: a JSON answer fails its
//!   request at once; an SSE event is skipped with a warning, its first and last 128 bytes of
//!   data kept, and when it ends the JSON-RPC id is read from them
//!   ([`sniff_response_id`](crate::rpc::sniff_response_id): before or after the payload, never
//!   a wrong one, never from a server request or notification): the request it answered, if
//!   one awaits it on any stream, fails at once naming the drop and the limit, and the stream
//!   reads on. When no id can be read, a stream that then ends without the awaited answer fails
//!   that request naming the drop (resuming cannot bring it back);
//! - `401`/`403` close it with a message naming the status and the server's
//!   `WWW-Authenticate`, unless [`HttpConfig::oauth`] is on: then the refused `POST`s are held,
//!   and so are refused event streams: a `GET` resuming a broken stream (`401`/`403`, as when a
//!   token expires during a long streamed tool call: its `Last-Event-ID`, the requests it
//!   awaits and its attempt count are kept, and those requests stay pending) and the standalone
//!   `GET` stream (`401`); streams whose reconnection comes due meanwhile wait too.
//!   [`HttpEvent::AuthorizationRequired`] goes up once per round, and
//!   [`StreamableHttp::set_access_token`] re-sends the messages and re-opens the streams with
//!   `Authorization: Bearer`. At most [`MAX_AUTHORIZATIONS`] rounds in a row may go without a
//!   success, and one request may be refused in at most as many, whatever succeeds meanwhile:
//!   then a `POST` refused with `401` closes the machine, one refused with `403` (a step-up no
//!   authorization satisfies) fails only its request, a refused resumption fails the requests
//!   it awaits, and the standalone stream stops with a warning, each naming the status and URL.
//!   Without OAuth, a `401` (or any refusal but `405`) on the standalone stream only stops it
//!   with a warning; other error statuses fail only the request;
//! - [`StreamableHttp::close`] sends `DELETE` with the session id.

mod auth;
mod exchange;
mod legacy_sse;
mod machine;
mod messages;
mod modern;
mod renew;
mod responses;
mod types;

pub use auth::MAX_AUTHORIZATIONS;
pub use legacy_sse::LegacySse;
pub use machine::{StreamableHttp, LISTEN_WAIT};
pub use renew::MAX_REINITIALIZATIONS;
pub use types::{
    find_header, HttpConfig, HttpError, HttpEvent, HttpMethod, HttpRequest, HttpRequestId,
};

#[cfg(test)]
mod tests;
