//! The machine under a real `ClientSession`, against a scripted server: the whole stack minus
//! sockets, with a transcript of the HTTP requests it made.

use super::*;
use crate::mcp::{CallOptions, ClientSession, RequestId, SessionConfig, SessionEvent};

struct Pair {
    session: ClientSession,
    host: Host,
    transcript: Vec<String>,
}

impl Pair {
    fn new(elicitation: bool) -> Self {
        Self::with(Host::new(), elicitation)
    }

    fn with(host: Host, elicitation: bool) -> Self {
        let config = SessionConfig {
            elicitation,
            ..SessionConfig::default()
        };
        Pair {
            session: ClientSession::new(config, host.now),
            host,
            transcript: Vec::new(),
        }
    }

    /// Calls `tool` with no arguments and returns the call's id with the POST it produced and
    /// that POST's JSON body.
    fn call(&mut self, tool: &str) -> (RequestId, HttpRequest, Value) {
        let op = self
            .session
            .call_tool(self.host.now, tool, json!({}), CallOptions::default())
            .unwrap();
        let (post, body) = self.request();
        (op, post, body)
    }

    /// Moves lines both ways until neither side has anything more to say.
    fn pump(&mut self) {
        loop {
            let mut moved = false;
            while let Some(line) = self.session.poll_transmit() {
                self.host.http.send(self.host.now, &line).unwrap();
                moved = true;
            }
            while let Some(line) = self.host.http.poll_message() {
                self.session.handle_bytes(self.host.now, &line);
                moved = true;
            }
            if !moved {
                return;
            }
        }
    }

    /// The next request, recorded in the transcript as `METHOD jsonrpc-method [session]`.
    fn request(&mut self) -> (HttpRequest, Value) {
        self.pump();
        let request = self.host.request();
        let body: Value = request
            .body
            .as_deref()
            .map(|b| serde_json::from_slice(b).unwrap())
            .unwrap_or(Value::Null);
        let what = body
            .get("method")
            .and_then(Value::as_str)
            .map(str::to_owned)
            .unwrap_or_else(|| match body.get("id") {
                Some(id) => format!("response {id}"),
                None => "-".into(),
            });
        let session = request.header("mcp-session-id").unwrap_or("none");
        let version = request.header("mcp-protocol-version").unwrap_or("none");
        self.transcript.push(format!(
            "{} {what} session={session} version={version}",
            request.method
        ));
        (request, body)
    }

    fn events(&mut self) -> Vec<SessionEvent> {
        self.pump();
        std::iter::from_fn(|| self.session.poll_event()).collect()
    }
}

fn handshake(pair: &mut Pair) {
    let (init, body) = pair.request();
    let reply = init_result(body["id"].as_u64().unwrap(), "2025-11-25");
    pair.host.head(
        init.id,
        200,
        &[
            ("Content-Type", "text/event-stream"),
            ("Mcp-Session-Id", "S1"),
        ],
    );
    pair.host
        .chunk(init.id, &format!("id: 0\ndata: {reply}\n\n"));
    pair.host.end(init.id);
    assert!(matches!(pair.events().as_slice(), [SessionEvent::Ready(_)]));
    let (initialized, _) = pair.request();
    pair.host.accepted(initialized.id);
    let (get, _) = pair.request();
    pair.host.head(get.id, 405, &[]);
    pair.host.end(get.id);
}

#[test]
fn a_tool_call_with_an_elicitation_round_trip_over_sse() {
    let mut pair = Pair::new(true);
    handshake(&mut pair);
    let (op, call, body) = pair.call("ask");
    let call_id = body["id"].clone();
    pair.host.sse_head(call.id);
    let elicit = json!({"jsonrpc": "2.0", "id": 77, "method": "elicitation/create",
        "params": {"message": "name?", "requestedSchema": {"type": "object", "properties": {
            "name": {"type": "string", "default": "Ada"}}}}});
    pair.host
        .chunk(call.id, &format!("id: 1\ndata: {elicit}\n\n"));
    let events = pair.events();
    let [SessionEvent::ServerRequest { id, method, .. }] = events.as_slice() else {
        panic!("expected the elicitation request, got {events:?}");
    };
    assert_eq!(method, "elicitation/create");
    pair.session
        .respond(
            id,
            Ok(json!({"action": "accept", "content": {"name": "Ada"}})),
        )
        .unwrap();
    let (answer, answer_body) = pair.request();
    assert_eq!(answer_body["id"], 77);
    assert_eq!(answer_body["result"]["content"]["name"], "Ada");
    pair.host.accepted(answer.id);
    let reply = json!({"jsonrpc": "2.0", "id": call_id,
        "result": {"content": [{"type": "text", "text": "hello Ada"}]}});
    pair.host
        .chunk(call.id, &format!("id: 2\ndata: {reply}\n\n"));
    pair.host.end(call.id);
    match pair.events().as_slice() {
        [SessionEvent::ToolResult { request, result }] => {
            assert_eq!(*request, op);
            assert_eq!(result.as_ref().unwrap().to_model_text(), "hello Ada");
        }
        other => panic!("unexpected {other:?}"),
    }

    pair.session.close("done");
    pair.host.http.close(pair.host.now);
    let (delete, _) = pair.request();
    pair.host.head(delete.id, 204, &[]);
    assert_eq!(
        pair.transcript,
        [
            "POST initialize session=none version=none",
            "POST notifications/initialized session=S1 version=2025-11-25",
            "GET - session=S1 version=2025-11-25",
            "POST tools/call session=S1 version=2025-11-25",
            "POST response 77 session=S1 version=2025-11-25",
            "DELETE - session=S1 version=2025-11-25",
        ]
    );
}

#[test]
fn session_expiry_is_invisible_to_the_session_above() {
    let mut pair = Pair::new(false);
    handshake(&mut pair);
    let list = pair.session.list_tools(pair.host.now).unwrap();
    let (post, _) = pair.request();
    pair.host.head(post.id, 404, &[]);
    pair.host.end(post.id);
    let (init, body) = pair.request();
    assert_eq!(body["method"], "initialize");
    let mut reply = init_result(0, "2025-11-25");
    reply["id"] = body["id"].clone();
    pair.host
        .json(init.id, &[("Mcp-Session-Id", "S2")], &reply.to_string());
    let (initialized, _) = pair.request();
    pair.host.accepted(initialized.id);
    let (get, _) = pair.request();
    assert!(
        is_get(&get),
        "the new session's stream opens before the call goes again"
    );
    pair.host.sse_head(get.id);
    let (again, body) = pair.request();
    assert_eq!(body["method"], "tools/list");
    let answer =
        json!({"jsonrpc": "2.0", "id": body["id"], "result": {"tools": [{"name": "echo"}]}});
    pair.host.json(again.id, &[], &answer.to_string());
    pair.pump();
    assert!(matches!(pair.events().as_slice(),
        [SessionEvent::ToolsListed { request, tools }] if *request == list && tools.len() == 1));
    assert!(pair.session.is_ready());
}

#[test]
fn a_failing_initialize_post_fails_the_handshake_with_the_status() {
    let mut pair = Pair::new(false);
    let (init, _) = pair.request();
    pair.host
        .head(init.id, 500, &[("Content-Type", "application/json")]);
    pair.host.chunk(init.id, "{\"error\":\"db down\"}");
    pair.host.end(init.id);
    match pair.events().as_slice() {
        [SessionEvent::Closed { reason }] => {
            assert!(reason.contains("server rejected initialize"), "{reason}");
            assert!(reason.contains("HTTP 500"), "{reason}");
            assert!(reason.contains("db down"), "{reason}");
        }
        other => panic!("unexpected {other:?}"),
    }
}

#[test]
fn an_oversized_answer_fails_its_tool_call_at_once_while_another_call_succeeds() {
    let mut config = HttpConfig::new(URL);
    config.max_message_bytes = 1_000;
    let mut pair = Pair::with(Host::with(config), false);
    handshake(&mut pair);
    let (big, big_post, big_body) = pair.call("dump");
    let (small, small_post, small_body) = pair.call("echo");
    pair.host.sse_head(big_post.id);
    pair.host.sse_head(small_post.id);
    // The TypeScript SDK's order: the id after the payload. The server keeps the stream open.
    let answer = json!({"result": {"content": [{"type": "text", "text": "x".repeat(5_000)}]},
        "jsonrpc": "2.0", "id": big_body["id"]});
    pair.host
        .chunk(big_post.id, &format!("id: 1\ndata: {answer}\n\n"));
    match pair.events().as_slice() {
        [SessionEvent::ToolResult {
            request,
            result: Err(error),
        }] if *request == big => {
            let error = error.to_string();
            assert!(
                error.contains("dropped") && error.contains("larger than 1000 bytes"),
                "{error}"
            );
        }
        other => panic!("expected the big call to fail now, got {other:?}"),
    }
    let reply = json!({"jsonrpc": "2.0", "id": small_body["id"],
        "result": {"content": [{"type": "text", "text": "small"}]}});
    pair.host
        .chunk(small_post.id, &format!("id: 1\ndata: {reply}\n\n"));
    pair.host.end(small_post.id);
    match pair.events().as_slice() {
        [SessionEvent::ToolResult { request, result }] if *request == small => {
            assert_eq!(result.as_ref().unwrap().to_model_text(), "small");
        }
        other => panic!("expected the small call to succeed, got {other:?}"),
    }
    pair.host.end(big_post.id);
    assert!(pair.events().is_empty(), "nothing more about the big call");
    assert!(pair.session.is_ready());
}

#[test]
fn a_streamed_tool_call_survives_a_token_expiring_before_its_stream_resumes() {
    let mut pair = Pair::with(super::auth::oauth_host(), false);
    handshake(&mut pair);
    let (op, call, body) = pair.call("slow");
    pair.host.sse_head(call.id);
    pair.host.chunk(call.id, "id: 1\nretry: 200\ndata: \n\n");
    pair.host
        .http
        .handle_request_error(pair.host.now, call.id, "connection reset");
    pair.host.advance(200);
    let (resume, _) = pair.request();
    pair.host.head(
        resume.id,
        401,
        &[("WWW-Authenticate", "Bearer error=\"invalid_token\"")],
    );
    assert!(pair.events().is_empty(), "the call is still pending");
    assert!(matches!(
        pair.host.events()[..],
        [HttpEvent::AuthorizationRequired { status: 401, .. }]
    ));
    pair.host
        .http
        .set_access_token(pair.host.now, "renewed")
        .unwrap();
    let (again, _) = pair.request();
    assert_eq!(again.header("authorization"), Some("Bearer renewed"));
    assert_eq!(again.header("last-event-id"), Some("1"));
    let reply = json!({"jsonrpc": "2.0", "id": body["id"],
        "result": {"content": [{"type": "text", "text": "finally"}]}});
    pair.host.sse_head(again.id);
    pair.host
        .chunk(again.id, &format!("id: 2\ndata: {reply}\n\n"));
    match pair.events().as_slice() {
        [SessionEvent::ToolResult { request, result }] if *request == op => {
            assert_eq!(result.as_ref().unwrap().to_model_text(), "finally");
        }
        other => panic!("expected the call to complete, got {other:?}"),
    }
    assert_eq!(
        pair.transcript[3..],
        [
            "POST tools/call session=S1 version=2025-11-25",
            "GET - session=S1 version=2025-11-25",
            "GET - session=S1 version=2025-11-25",
        ]
    );
}

#[test]
fn a_streamed_tool_call_fails_at_once_when_the_server_forgets_the_session_before_it_resumes() {
    let mut pair = Pair::new(false);
    handshake(&mut pair);
    let now = pair.host.now;
    let (op, call, _) = pair.call("slow");
    pair.host.sse_head(call.id);
    pair.host.chunk(call.id, "id: 1\nretry: 5000\ndata: \n\n");
    pair.host.end(call.id);
    let list = pair.session.list_tools(now).unwrap();
    let (post, _) = pair.request();
    pair.host.head(post.id, 404, &[]);
    pair.host.end(post.id);
    match pair.events().as_slice() {
        [SessionEvent::ToolResult {
            request,
            result: Err(error),
        }] if *request == op => {
            let error = error.to_string();
            assert!(
                error.contains("forgot session S1 (HTTP 404)")
                    && error.contains("cannot be resumed in the new session"),
                "{error}"
            );
        }
        other => panic!("expected the call to fail now, not at its timeout: {other:?}"),
    }
    let (init, body) = pair.request();
    let mut reply = init_result(0, "2025-11-25");
    reply["id"] = body["id"].clone();
    pair.host
        .json(init.id, &[("Mcp-Session-Id", "S2")], &reply.to_string());
    let (initialized, _) = pair.request();
    pair.host.accepted(initialized.id);
    let (get, _) = pair.request();
    pair.host.head(get.id, 405, &[]);
    pair.host.end(get.id);
    let (again, body) = pair.request();
    assert_eq!(body["method"], "tools/list");
    let answer = json!({"jsonrpc": "2.0", "id": body["id"], "result": {"tools": []}});
    pair.host.json(again.id, &[], &answer.to_string());
    assert!(matches!(pair.events().as_slice(),
        [SessionEvent::ToolsListed { request, .. }] if *request == list));
    pair.host.advance(60_000);
    assert!(pair.events().is_empty(), "the call fails once");
    pair.host.no_request();
    assert_eq!(
        pair.transcript[3..],
        [
            "POST tools/call session=S1 version=2025-11-25",
            "POST tools/list session=S1 version=2025-11-25",
            "POST initialize session=none version=none",
            "POST notifications/initialized session=S2 version=2025-11-25",
            "GET - session=S2 version=2025-11-25",
            "POST tools/list session=S2 version=2025-11-25",
        ]
    );
}
