//! The MCP client session against a scripted server, with simulated time.

mod support;

use agentwire::content::ContentBlock;
use agentwire::jsonrpc::{codes, Id};
use agentwire::mcp::{
    CallOptions, RequestError, RequestId, Root, SessionConfig, SessionError, SessionEvent,
    SUPPORTED_PROTOCOL_VERSIONS,
};
use serde_json::{json, Value};
use std::time::Duration;
use support::{text_result, Pair};

fn opts() -> CallOptions {
    CallOptions::default()
}

#[test]
fn handshake_sends_initialize_then_initialized() {
    let mut pair = Pair::new(SessionConfig {
        roots: true,
        ..SessionConfig::default()
    });
    let init = pair.recv();
    assert_eq!(init["method"], "initialize");
    assert_eq!(init["id"], 1);
    assert_eq!(init["params"]["protocolVersion"], "2025-11-25");
    assert_eq!(init["params"]["clientInfo"]["name"], "agentwire");
    assert_eq!(
        init["params"]["capabilities"],
        json!({"roots": {"listChanged": false}})
    );
    assert!(pair.sent.is_empty(), "nothing else before the result");
    assert!(pair.client.list_tools(pair.now) == Err(SessionError::NotReady));

    pair.reply(
        &init,
        json!({
            "protocolVersion": "2025-06-18",
            "capabilities": {"tools": {}},
            "serverInfo": {"name": "srv", "version": "2"},
            "instructions": "be nice"
        }),
    );
    assert_eq!(
        pair.recv(),
        json!({"jsonrpc": "2.0", "method": "notifications/initialized"})
    );
    let SessionEvent::Ready(details) = pair.event() else {
        panic!("expected Ready")
    };
    assert_eq!(details.protocol_version, "2025-06-18");
    assert_eq!(details.name(), "srv");
    assert_eq!(details.instructions.as_deref(), Some("be nice"));
    assert!(pair.client.is_ready());
    assert_eq!(
        pair.client.server().unwrap().capabilities,
        json!({"tools": {}})
    );
}

#[test]
fn every_supported_version_is_accepted_and_others_close_the_session() {
    for version in SUPPORTED_PROTOCOL_VERSIONS {
        let mut pair = Pair::new(SessionConfig::default());
        let init = pair.recv();
        pair.reply(
            &init,
            json!({"protocolVersion": version, "capabilities": {}, "serverInfo": {}}),
        );
        assert!(pair.client.is_ready(), "{version}");
    }
    let mut pair = Pair::new(SessionConfig::default());
    let init = pair.recv();
    pair.reply(
        &init,
        json!({"protocolVersion": "1999-01-01", "capabilities": {}}),
    );
    let SessionEvent::Closed { reason } = pair.event() else {
        panic!("expected Closed")
    };
    assert!(
        reason.contains("\"1999-01-01\"") && reason.contains("2025-11-25"),
        "{reason}"
    );
    assert!(
        pair.sent.is_empty(),
        "no initialized notification after a failed negotiation"
    );
    assert!(matches!(
        pair.client.list_tools(pair.now),
        Err(SessionError::Closed(_))
    ));
}

#[test]
fn initialize_error_or_silence_closes_with_a_reason() {
    let mut pair = Pair::new(SessionConfig::default());
    let init = pair.recv();
    pair.reply_error(&init, -32602, "bad params");
    assert!(
        matches!(pair.event(), SessionEvent::Closed { reason } if reason.contains("rejected initialize: bad params"))
    );

    let mut pair = Pair::new(SessionConfig {
        initialize_timeout: Duration::from_secs(5),
        ..SessionConfig::default()
    });
    assert_eq!(
        pair.client.poll_timeout().map(|t| t.as_millis()),
        Some(6_000)
    );
    pair.advance(4_999);
    assert!(pair.events.is_empty());
    pair.advance(1);
    assert!(
        matches!(pair.event(), SessionEvent::Closed { reason } if reason.contains("within 5000 ms"))
    );
}

#[test]
fn tools_list_follows_cursors_across_pages() {
    let mut pair = Pair::ready();
    let op = pair.client.list_tools(pair.now).unwrap();
    let first = pair.recv();
    assert_eq!(first["params"], Value::Null, "no cursor on the first page");
    pair.reply(
        &first,
        json!({"tools": [{"name": "a"}], "nextCursor": "c1"}),
    );
    let second = pair.recv();
    assert_eq!(second["params"], json!({"cursor": "c1"}));
    pair.reply(
        &second,
        json!({"tools": [{"name": "b"}, {"name": "c"}], "nextCursor": "c2"}),
    );
    let third = pair.recv();
    pair.reply(&third, json!({"tools": []}));
    let SessionEvent::ToolsListed { request, tools } = pair.event() else {
        panic!()
    };
    assert_eq!(request, op);
    let names: Vec<_> = tools.iter().map(|t| t["name"].as_str().unwrap()).collect();
    assert_eq!(names, ["a", "b", "c"]);
}

#[test]
fn tools_list_gives_up_after_the_page_cap() {
    let mut pair = Pair::ready_with(SessionConfig {
        max_tool_pages: 3,
        ..SessionConfig::default()
    });
    let op = pair.client.list_tools(pair.now).unwrap();
    for _ in 0..3 {
        let req = pair.recv();
        pair.reply(
            &req,
            json!({"tools": [{"name": "t"}], "nextCursor": "same"}),
        );
    }
    assert!(pair.sent.is_empty());
    assert!(
        matches!(pair.event(), SessionEvent::Failed { request, error: RequestError::InvalidResult(m) }
        if request == op && m.contains("after 3"))
    );
}

#[test]
fn responses_in_any_order_reach_the_right_request() {
    let mut pair = Pair::ready();
    let ids: Vec<RequestId> = (0..3)
        .map(|i| {
            pair.client
                .call_tool(pair.now, "echo", json!({"i": i}), opts())
                .unwrap()
        })
        .collect();
    pair.drain();
    let reqs: Vec<Value> = (0..3).map(|_| pair.recv()).collect();
    assert_eq!(reqs[0]["params"]["_meta"]["progressToken"], reqs[0]["id"]);
    for req in reqs.iter().rev() {
        let i = req["params"]["arguments"]["i"].as_i64().unwrap();
        pair.reply(req, text_result(&format!("r{i}")));
    }
    for (expected_id, i) in ids.iter().rev().zip([2, 1, 0]) {
        let SessionEvent::ToolResult { request, result } = pair.event() else {
            panic!()
        };
        assert_eq!(request, *expected_id);
        assert_eq!(
            result.unwrap().content,
            vec![ContentBlock::text(format!("r{i}"))]
        );
    }
}

#[test]
fn timeout_fails_the_request_sends_cancelled_and_drops_the_late_answer() {
    let mut pair = Pair::ready();
    let slow = pair
        .client
        .call_tool(
            pair.now,
            "slow",
            json!({}),
            CallOptions {
                timeout: Some(Duration::from_secs(2)),
                ..opts()
            },
        )
        .unwrap();
    let fast = pair
        .client
        .call_tool(pair.now, "fast", json!({}), opts())
        .unwrap();
    pair.drain();
    let slow_req = pair.recv();
    let fast_req = pair.recv();
    assert_eq!(
        pair.client.poll_timeout().unwrap().as_millis(),
        pair.now.as_millis() + 2_000
    );
    pair.advance(2_000);
    let SessionEvent::ToolResult {
        request,
        result: Err(RequestError::Timeout { method, waited }),
    } = pair.event()
    else {
        panic!()
    };
    assert_eq!(
        (request, method.as_str(), waited),
        (slow, "tools/call", Duration::from_secs(2))
    );
    let cancel = pair.recv();
    assert_eq!(cancel["method"], "notifications/cancelled");
    assert_eq!(cancel["params"]["requestId"], slow_req["id"]);
    assert!(cancel["params"]["reason"]
        .as_str()
        .unwrap()
        .contains("timed out"));

    pair.reply(&slow_req, text_result("too late"));
    assert!(
        matches!(pair.event(), SessionEvent::UnexpectedResponse { reason, .. } if reason.contains("late"))
    );
    pair.reply(&fast_req, text_result("ok"));
    assert!(
        matches!(pair.event(), SessionEvent::ToolResult { request, result: Ok(_) } if request == fast)
    );
    pair.reply(&fast_req, text_result("again"));
    assert!(
        matches!(pair.event(), SessionEvent::UnexpectedResponse { .. }),
        "duplicate is dropped"
    );
    pair.send(json!({"jsonrpc": "2.0", "id": 999, "result": {}}));
    assert!(
        matches!(pair.event(), SessionEvent::UnexpectedResponse { reason, .. } if reason.contains("never sent"))
    );
    pair.send(json!({"jsonrpc": "2.0", "id": "abc", "result": {}}));
    assert!(matches!(
        pair.event(),
        SessionEvent::UnexpectedResponse {
            id: Some(Id::String(_)),
            ..
        }
    ));
}

#[test]
fn paused_timeouts_give_the_requests_the_paused_time_back() {
    let mut pair = Pair::ready();
    let two_seconds = CallOptions {
        timeout: Some(Duration::from_secs(2)),
        ..opts()
    };
    let early = pair
        .client
        .call_tool(pair.now, "early", json!({}), two_seconds)
        .unwrap();
    pair.advance(1_000);
    pair.client.pause_timeouts(pair.now);
    assert_eq!(pair.client.poll_timeout(), None, "nothing to wake up for");
    pair.advance(500);
    let late = pair
        .client
        .call_tool(pair.now, "late", json!({}), two_seconds)
        .unwrap();
    pair.advance(5_000);
    assert!(pair.events.is_empty(), "no timeout while paused");
    pair.client.pause_timeouts(pair.now);
    pair.client.resume_timeouts(pair.now);
    // `early` had 1 s left; `late` was sent during the pause and has all of its 2 s.
    pair.advance(999);
    assert!(pair.events.is_empty());
    pair.advance(1);
    assert!(matches!(pair.event(),
        SessionEvent::ToolResult { request, result: Err(RequestError::Timeout { .. }) } if request == early));
    pair.advance(999);
    assert!(pair.events.is_empty());
    pair.advance(1);
    assert!(matches!(pair.event(),
        SessionEvent::ToolResult { request, result: Err(RequestError::Timeout { .. }) } if request == late));
    pair.client.resume_timeouts(pair.now);
    assert_eq!(
        pair.client.poll_timeout(),
        None,
        "a resume without a pause is harmless"
    );
}

#[test]
fn cancel_fails_the_request_and_tells_the_server() {
    let mut pair = Pair::ready();
    let id = pair
        .client
        .call_tool(pair.now, "t", json!({}), opts())
        .unwrap();
    pair.drain();
    let req = pair.recv();
    pair.client.cancel(id, "user pressed stop").unwrap();
    pair.drain();
    assert!(
        matches!(pair.event(), SessionEvent::ToolResult { result: Err(RequestError::Cancelled(r)), .. } if r == "user pressed stop")
    );
    let note = pair.recv();
    assert_eq!(
        note["params"],
        json!({"requestId": req["id"], "reason": "user pressed stop"})
    );
    assert_eq!(
        pair.client.cancel(id, "again"),
        Err(SessionError::NotInFlight(id))
    );
}

#[test]
fn progress_extends_the_deadline_up_to_the_hard_cap() {
    let mut pair = Pair::ready();
    let options = CallOptions {
        timeout: Some(Duration::from_secs(10)),
        max_total: Some(Duration::from_secs(25)),
    };
    let id = pair
        .client
        .call_tool(pair.now, "long", json!({}), options)
        .unwrap();
    pair.drain();
    let req = pair.recv();
    let token = req["params"]["_meta"]["progressToken"].clone();
    for step in 1..=3 {
        pair.advance(8_000);
        pair.send(json!({"jsonrpc": "2.0", "method": "notifications/progress",
            "params": {"progressToken": token, "progress": step, "total": 10, "message": "working"}}));
        assert!(
            matches!(pair.event(), SessionEvent::Progress { request, progress, total: Some(t), .. }
            if request == id && progress == step as f64 && t == 10.0)
        );
    }
    // 24 s in: progress keeps it alive, but the hard cap at 25 s wins.
    pair.advance(999);
    assert!(pair.events.is_empty());
    pair.advance(1);
    assert!(
        matches!(pair.event(), SessionEvent::ToolResult { result: Err(RequestError::Timeout { waited, .. }), .. }
        if waited == Duration::from_secs(25))
    );
}

#[test]
fn fixed_roots_are_declared_and_answered_by_the_session_itself() {
    let project = Root {
        uri: "file:///home/ada/my%20project".into(),
        name: Some("my project".into()),
    };
    let mut pair = Pair::new(SessionConfig {
        fixed_roots: vec![
            project,
            Root {
                uri: "file:///srv/data".into(),
                name: None,
            },
        ],
        ..SessionConfig::default()
    });
    let init = pair.recv();
    assert_eq!(
        init["params"]["capabilities"]["roots"],
        json!({"listChanged": false})
    );
    pair.reply(
        &init,
        json!({"protocolVersion": "2025-11-25", "capabilities": {}, "serverInfo": {"name": "s"}}),
    );
    assert_eq!(pair.recv()["method"], "notifications/initialized");
    pair.events.clear();
    // Asked in the middle of a call, as a filesystem server would: answered at once.
    let _call = pair
        .client
        .call_tool(pair.now, "read", json!({}), opts())
        .unwrap();
    pair.drain();
    let _request = pair.recv();
    pair.send(json!({"jsonrpc": "2.0", "id": "r1", "method": "roots/list"}));
    assert_eq!(
        pair.recv(),
        json!({"jsonrpc": "2.0", "id": "r1", "result": {"roots": [
            {"uri": "file:///home/ada/my%20project", "name": "my project"},
            {"uri": "file:///srv/data"}]}})
    );
    assert!(
        pair.events.is_empty(),
        "no host round trip: {:?}",
        pair.events
    );

    // Without fixed roots and without `roots`, nothing is declared and the request is refused.
    let mut plain = Pair::new(SessionConfig::default());
    assert!(plain.recv()["params"]["capabilities"]
        .get("roots")
        .is_none());
}

#[test]
fn server_requests_each_get_exactly_one_response() {
    let mut pair = Pair::ready_with(SessionConfig {
        roots: true,
        ..SessionConfig::default()
    });
    pair.send(json!({"jsonrpc": "2.0", "id": "p1", "method": "ping"}));
    assert_eq!(
        pair.recv(),
        json!({"jsonrpc": "2.0", "id": "p1", "result": {}})
    );
    assert!(
        pair.events.is_empty(),
        "ping is answered by the session itself"
    );

    for method in [
        "sampling/createMessage",
        "elicitation/create",
        "something/else",
    ] {
        pair.send(json!({"jsonrpc": "2.0", "id": 7, "method": method}));
        let reply = pair.recv();
        assert_eq!(
            reply["error"]["code"],
            codes::METHOD_NOT_FOUND,
            "{method} was not declared"
        );
        assert_eq!(reply["id"], 7);
    }

    pair.send(json!({"jsonrpc": "2.0", "id": 8, "method": "roots/list"}));
    let SessionEvent::ServerRequest { id, method, .. } = pair.event() else {
        panic!()
    };
    assert_eq!(method, "roots/list");
    assert!(pair.sent.is_empty(), "the host answers roots/list");
    pair.client.respond(&id, Ok(json!({"roots": []}))).unwrap();
    pair.drain();
    assert_eq!(
        pair.recv(),
        json!({"jsonrpc": "2.0", "id": 8, "result": {"roots": []}})
    );
    assert_eq!(
        pair.client.respond(&id, Ok(json!({}))),
        Err(SessionError::UnknownServerRequest(id))
    );

    pair.send(json!({"jsonrpc": "2.0", "id": 9, "method": "roots/list"}));
    let SessionEvent::ServerRequest { id, .. } = pair.event() else {
        panic!()
    };
    pair.send(json!({"jsonrpc": "2.0", "method": "notifications/cancelled", "params": {"requestId": 9, "reason": "nvm"}}));
    assert!(
        matches!(pair.event(), SessionEvent::ServerCancelled { reason: Some(r), .. } if r == "nvm")
    );
    assert!(
        pair.client.respond(&id, Ok(json!({}))).is_err(),
        "a cancelled request is not answered"
    );
    assert!(pair.sent.is_empty());
}

#[test]
fn notifications_become_events() {
    let mut pair = Pair::ready();
    pair.send(json!({"jsonrpc": "2.0", "method": "notifications/tools/list_changed"}));
    assert_eq!(pair.event(), SessionEvent::ToolsListChanged);
    pair.send(json!({"jsonrpc": "2.0", "method": "notifications/message", "params": {"level": "warning", "logger": "db", "data": {"x": 1}}}));
    assert_eq!(
        pair.event(),
        SessionEvent::Log {
            level: "warning".into(),
            logger: Some("db".into()),
            data: json!({"x": 1})
        }
    );
    pair.send(json!({"jsonrpc": "2.0", "method": "notifications/progress", "params": {"progressToken": 12345, "progress": 1}}));
    assert!(
        pair.events.is_empty(),
        "progress for nothing in flight is ignored"
    );
    pair.send(json!({"jsonrpc": "2.0", "method": "custom/thing", "params": {"a": 1}}));
    assert!(
        matches!(pair.event(), SessionEvent::Notification { method, .. } if method == "custom/thing")
    );
}

#[test]
fn close_fails_everything_pending_at_once() {
    let mut pair = Pair::ready();
    let call = pair
        .client
        .call_tool(pair.now, "a", json!({}), opts())
        .unwrap();
    let list = pair.client.list_tools(pair.now).unwrap();
    let generic = pair
        .client
        .request(pair.now, "resources/list", None, opts())
        .unwrap();
    pair.client
        .handle_transport_closed("server exited with status 7: fatal: boom");
    pair.drain();
    let events: Vec<SessionEvent> = pair.events.drain(..).collect();
    assert_eq!(events.len(), 4);
    let reason = "server exited with status 7: fatal: boom".to_owned();
    assert_eq!(
        events[0],
        SessionEvent::ToolResult {
            request: call,
            result: Err(RequestError::Closed(reason.clone()))
        }
    );
    assert_eq!(
        events[1],
        SessionEvent::Failed {
            request: list,
            error: RequestError::Closed(reason.clone())
        }
    );
    assert_eq!(
        events[2],
        SessionEvent::Response {
            request: generic,
            result: Err(RequestError::Closed(reason.clone()))
        }
    );
    assert_eq!(events[3], SessionEvent::Closed { reason });
    assert_eq!(pair.client.poll_timeout(), None);
    pair.client.close("again");
    pair.send(json!({"jsonrpc": "2.0", "method": "notifications/tools/list_changed"}));
    pair.drain();
    assert!(pair.events.is_empty(), "nothing after Closed");
}

#[test]
fn malformed_lines_are_reported_and_the_session_goes_on() {
    let mut pair = Pair::ready();
    let id = pair
        .client
        .call_tool(pair.now, "t", json!({}), opts())
        .unwrap();
    pair.drain();
    let req = pair.recv();
    pair.send_raw("this is not json");
    assert!(
        matches!(pair.event(), SessionEvent::ProtocolError { message } if message.contains("invalid JSON") && message.contains("this is not json"))
    );
    pair.send_raw("[1,2]");
    assert!(
        matches!(pair.event(), SessionEvent::ProtocolError { message } if message.contains("batches"))
    );
    pair.reply(&req, text_result("fine"));
    assert!(
        matches!(pair.event(), SessionEvent::ToolResult { request, result: Ok(_) } if request == id)
    );

    // A broken response to a request in flight fails that request instead of letting it hang.
    let id = pair
        .client
        .call_tool(pair.now, "t", json!({}), opts())
        .unwrap();
    pair.drain();
    let req = pair.recv();
    pair.send(json!({"jsonrpc": "2.0", "id": req["id"]}));
    assert!(matches!(pair.event(), SessionEvent::ProtocolError { .. }));
    assert!(
        matches!(pair.event(), SessionEvent::ToolResult { request, result: Err(RequestError::InvalidResult(_)) } if request == id)
    );
}

#[test]
fn an_answer_over_the_frame_limit_fails_its_request_at_once() {
    let mut pair = Pair::ready_with(SessionConfig {
        max_frame_len: 4096,
        ..SessionConfig::default()
    });
    let huge = "x".repeat(100_000);
    // Servers write the id before the result (most) or after it (the TypeScript SDK):
    // either way the dropped answer is matched to its request, without waiting for a timeout.
    for id_first in [true, false] {
        let id = pair
            .client
            .call_tool(pair.now, "t", json!({}), opts())
            .unwrap();
        pair.drain();
        let req = pair.recv();
        let result = text_result(&huge).to_string();
        let wire_id = req["id"].to_string();
        let line = if id_first {
            format!("{{\"jsonrpc\":\"2.0\",\"id\":{wire_id},\"result\":{result}}}")
        } else {
            format!("{{\"result\":{result},\"jsonrpc\":\"2.0\",\"id\":{wire_id}}}")
        };
        // In pieces, as a pipe delivers it.
        for piece in line.as_bytes().chunks(4000) {
            pair.client.handle_bytes(pair.now, piece);
        }
        pair.client.handle_bytes(pair.now, b"\n");
        pair.drain();
        assert!(
            matches!(pair.event(), SessionEvent::ProtocolError { message } if message.contains("4096")),
            "the drop is reported"
        );
        match pair.event() {
            SessionEvent::ToolResult {
                request,
                result: Err(RequestError::InvalidResult(reason)),
            } => {
                assert_eq!(request, id);
                assert!(
                    reason.contains("dropped") && reason.contains("4096"),
                    "{reason}"
                );
            }
            other => panic!("expected the call to fail, got {other:?}"),
        }
    }
    // The session goes on.
    let id = pair
        .client
        .call_tool(pair.now, "t", json!({}), opts())
        .unwrap();
    pair.drain();
    let req = pair.recv();
    pair.reply(&req, text_result("small"));
    assert!(
        matches!(pair.event(), SessionEvent::ToolResult { request, result: Ok(_) } if request == id)
    );
}

#[test]
fn a_server_request_over_the_frame_limit_fails_none_of_ours_with_the_same_id() {
    let mut pair = Pair::ready_with(SessionConfig {
        max_frame_len: 4096,
        ..SessionConfig::default()
    });
    let id = pair
        .client
        .call_tool(pair.now, "t", json!({}), opts())
        .unwrap();
    pair.drain();
    let req = pair.recv();
    // The server's own numbering may hit the id of a request of ours: that is no answer.
    let sampling = json!({"jsonrpc": "2.0", "id": req["id"], "method": "sampling/createMessage",
        "params": {"messages": [{"role": "user", "content": {"type": "text",
            "text": "x".repeat(100_000)}}], "maxTokens": 10}});
    pair.client
        .handle_bytes(pair.now, format!("{sampling}\n").as_bytes());
    pair.drain();
    assert!(
        matches!(pair.event(), SessionEvent::ProtocolError { message } if message.contains("4096")),
        "the drop is reported"
    );
    pair.reply(&req, text_result("the answer"));
    match pair.event() {
        SessionEvent::ToolResult { request, result } => {
            assert_eq!(request, id);
            assert_eq!(result.unwrap().to_model_text(), "the answer");
        }
        other => panic!("expected the call to succeed, got {other:?}"),
    }
}

#[test]
fn execution_errors_are_results_and_bad_results_are_errors() {
    let mut pair = Pair::ready();
    pair.client
        .call_tool(pair.now, "t", json!({}), opts())
        .unwrap();
    pair.client
        .call_tool(pair.now, "t", json!({}), opts())
        .unwrap();
    pair.drain();
    let (a, b) = (pair.recv(), pair.recv());
    pair.reply(
        &a,
        json!({"content": [{"type": "text", "text": "no such repo"}], "isError": true}),
    );
    pair.reply(&b, json!({"content": "nope"}));
    assert!(
        matches!(pair.event(), SessionEvent::ToolResult { result: Ok(out), .. } if out.is_error)
    );
    assert!(
        matches!(pair.event(), SessionEvent::ToolResult { result: Err(RequestError::InvalidResult(m)), .. } if m.contains("content"))
    );
}

#[test]
fn ten_thousand_requests_in_flight() {
    let mut pair = Pair::ready();
    let ids: Vec<RequestId> = (0..10_000)
        .map(|i| {
            pair.client
                .call_tool(pair.now, "echo", json!({"i": i}), opts())
                .unwrap()
        })
        .collect();
    assert_eq!(pair.client.in_flight(), 10_000);
    pair.drain();
    let reqs: Vec<Value> = pair.sent.drain(..).collect();
    assert_eq!(reqs.len(), 10_000);
    // Answer from the middle outwards, so order never matches sending order.
    let mut order: Vec<usize> = (0..10_000).collect();
    order.sort_by_key(|i| (i * 7919) % 10_000);
    for i in order {
        let n = reqs[i]["params"]["arguments"]["i"].as_i64().unwrap();
        pair.reply(&reqs[i], text_result(&n.to_string()));
    }
    let mut seen = std::collections::HashSet::new();
    while let Some(SessionEvent::ToolResult { request, result }) = pair.events.pop_front() {
        let text = result.unwrap().to_model_text();
        assert_eq!(ids[text.parse::<usize>().unwrap()], request);
        assert!(seen.insert(request));
    }
    assert_eq!(seen.len(), 10_000);
    assert_eq!(pair.client.in_flight(), 0);
    assert_eq!(pair.client.poll_timeout(), None);
}
