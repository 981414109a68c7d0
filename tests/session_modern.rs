//! The MCP client session in the modern era (2026-07-28) against a scripted server, with
//! simulated time: the `server/discover` probe and its fallback, the `_meta` envelope,
//! `resultType`, and multi-round-trip requests with their bounds.

mod support;

use agentwire::jsonrpc::{codes, Id};
use agentwire::mcp::{
    CallOptions, Era, ProtocolChoice, RequestError, Root, SessionConfig, SessionEvent,
    MAX_INPUT_ROUNDS, MAX_REQUEST_STATE_BYTES,
};
use serde_json::{json, Value};
use std::time::Duration;
use support::{text_result, Pair};

const MODERN: &str = "2026-07-28";

fn config(protocol: ProtocolChoice) -> SessionConfig {
    SessionConfig {
        protocol,
        elicitation: true,
        ..SessionConfig::default()
    }
}

fn discover_result() -> Value {
    json!({"resultType": "complete", "supportedVersions": [MODERN, "2025-11-25"],
           "capabilities": {"tools": {}, "logging": {}},
           "serverInfo": {"name": "modern-srv", "version": "2"}, "instructions": "hi"})
}

/// A session that found a modern server; outbox and events emptied.
fn modern_pair(config: SessionConfig) -> Pair {
    let mut pair = Pair::new(config);
    let probe = pair.recv();
    assert_eq!(probe["method"], "server/discover");
    pair.reply(&probe, discover_result());
    let SessionEvent::Ready(details) = pair.event() else {
        panic!("expected Ready")
    };
    assert_eq!(details.era, Era::Modern);
    pair
}

fn call(pair: &mut Pair, tool: &str) -> Value {
    pair.client
        .call_tool(pair.now, tool, json!({}), CallOptions::default())
        .unwrap();
    pair.recv()
}

#[test]
fn auto_probes_with_discover_and_every_modern_request_carries_the_envelope() {
    let mut pair = Pair::new(SessionConfig {
        client_name: "probe-client".into(),
        ..config(ProtocolChoice::Auto)
    });
    let probe = pair.recv();
    assert_eq!(probe["method"], "server/discover");
    let meta = &probe["params"]["_meta"];
    assert_eq!(meta["io.modelcontextprotocol/protocolVersion"], MODERN);
    assert_eq!(
        meta["io.modelcontextprotocol/clientCapabilities"],
        json!({"elicitation": {"form": {}}})
    );
    assert_eq!(
        meta["io.modelcontextprotocol/clientInfo"]["name"],
        "probe-client"
    );
    pair.reply(&probe, discover_result());
    let SessionEvent::Ready(details) = pair.event() else {
        panic!("expected Ready")
    };
    assert_eq!(
        (details.era, details.protocol_version.as_str()),
        (Era::Modern, MODERN)
    );
    assert_eq!(details.name(), "modern-srv");
    assert_eq!(details.instructions.as_deref(), Some("hi"));
    assert!(
        pair.sent.is_empty(),
        "no initialize, no initialized: {:?}",
        pair.sent
    );
    assert_eq!(pair.client.era(), Some(Era::Modern));

    let request = call(&mut pair, "echo");
    let meta = &request["params"]["_meta"];
    assert_eq!(meta["progressToken"], request["id"]);
    assert_eq!(meta["io.modelcontextprotocol/protocolVersion"], MODERN);
    assert!(meta["io.modelcontextprotocol/clientCapabilities"].is_object());
    assert!(meta["io.modelcontextprotocol/clientInfo"].is_object());
    // A result without resultType is complete.
    pair.reply(&request, text_result("hello"));
    let SessionEvent::ToolResult {
        result: Ok(output), ..
    } = pair.event()
    else {
        panic!("expected a tool result")
    };
    assert_eq!(output.to_model_text(), "hello");
}

#[test]
fn log_level_and_ping_stay_off_the_wire_and_the_level_rides_in_meta() {
    let mut pair = modern_pair(config(ProtocolChoice::Modern));
    let now = pair.now;
    let level = pair
        .client
        .feature_request(now, "logging/setLevel", json!({"level": "debug"}))
        .unwrap();
    let ping = pair
        .client
        .request(now, "ping", None, CallOptions::default())
        .unwrap();
    assert_ne!(level, ping, "handles stay unique");
    pair.drain();
    assert!(pair.sent.is_empty(), "{:?}", pair.sent);
    for expected in [level, ping] {
        let SessionEvent::Response { request, result } = pair.event() else {
            panic!("expected a response")
        };
        assert_eq!((request, result), (expected, Ok(json!({}))));
    }
    let request = call(&mut pair, "echo");
    assert_eq!(
        request["params"]["_meta"]["io.modelcontextprotocol/logLevel"],
        "debug"
    );
}

#[test]
fn an_unsupported_version_is_retried_once_with_the_mutual_one() {
    let mut pair = Pair::new(config(ProtocolChoice::Auto));
    let probe = pair.recv();
    pair.send(
        json!({"jsonrpc": "2.0", "id": probe["id"], "error": {"code": -32022,
        "message": "Unsupported protocol version",
        "data": {"supported": [MODERN], "requested": "x"}}}),
    );
    let retry = pair.recv();
    assert_eq!(retry["method"], "server/discover");
    assert_ne!(retry["id"], probe["id"], "a new id");
    pair.reply(&retry, discover_result());
    assert!(matches!(pair.event(), SessionEvent::Ready(d) if d.era == Era::Modern));

    // A server that refuses the version it lists twice is not asked a third time.
    let mut pair = Pair::new(config(ProtocolChoice::Modern));
    for _ in 0..2 {
        let probe = pair.recv();
        pair.send(
            json!({"jsonrpc": "2.0", "id": probe["id"], "error": {"code": -32022,
            "message": "no", "data": {"supported": [MODERN]}}}),
        );
    }
    assert!(pair.sent.is_empty());
    let SessionEvent::Closed { reason } = pair.event() else {
        panic!("expected Closed")
    };
    assert!(reason.contains("does not accept 2026-07-28"), "{reason}");
}

#[test]
fn a_legacy_server_answering_the_probe_with_an_error_costs_no_timeout() {
    let mut pair = Pair::new(config(ProtocolChoice::Auto));
    let probe = pair.recv();
    let start = pair.now;
    pair.reply_error(&probe, codes::METHOD_NOT_FOUND, "Method not found");
    let init = pair.recv();
    assert_eq!(pair.now, start, "initialize follows at once");
    assert_eq!(init["method"], "initialize");
    assert!(
        init["params"].get("_meta").is_none(),
        "a legacy request: {init}"
    );
    assert_eq!(
        init["params"]["capabilities"],
        json!({"elicitation": {"form": {}}})
    );
    pair.reply(
        &init,
        json!({"protocolVersion": "2025-11-25", "capabilities": {},
        "serverInfo": {"name": "old"}}),
    );
    assert_eq!(pair.recv()["method"], "notifications/initialized");
    assert!(matches!(pair.event(), SessionEvent::Ready(d) if d.era == Era::Legacy));
    let request = call(&mut pair, "echo");
    assert_eq!(
        request["params"]["_meta"],
        json!({"progressToken": request["id"]})
    );
}

#[test]
fn a_silent_probe_falls_back_within_the_start_up_time() {
    let mut pair = Pair::new(SessionConfig {
        initialize_timeout: Duration::from_millis(3_000),
        discover_timeout: Duration::from_millis(1_000),
        ..config(ProtocolChoice::Auto)
    });
    let probe = pair.recv();
    pair.advance(999);
    assert!(pair.sent.is_empty());
    pair.advance(1);
    let init = pair.recv();
    assert_eq!(init["method"], "initialize");
    // The initialize gets what is left of the 3 s, not 3 s more.
    pair.advance(1_999);
    assert!(pair.events.is_empty());
    pair.advance(1);
    let SessionEvent::Closed { reason } = pair.event() else {
        panic!("expected Closed")
    };
    assert_eq!(reason, "server did not answer initialize within 3000 ms");
    let _ = probe;
}

#[test]
fn a_late_modern_answer_to_the_probe_wins_over_initialize() {
    let mut pair = Pair::new(SessionConfig {
        discover_timeout: Duration::from_millis(500),
        ..config(ProtocolChoice::Auto)
    });
    let probe = pair.recv();
    pair.advance(500);
    let init = pair.recv();
    assert_eq!(init["method"], "initialize");
    pair.reply(&probe, discover_result());
    assert!(matches!(pair.event(), SessionEvent::Ready(d) if d.era == Era::Modern));
    // The modern-only server's refusal of initialize is now an answer nobody waits for.
    pair.reply_error(&init, codes::INVALID_REQUEST, "initialize is not supported");
    assert!(pair.client.is_ready());
    assert!(pair.sent.is_empty());
}

#[test]
fn a_discover_answer_without_the_modern_version_is_legacy_or_an_error() {
    let lying = json!({"supportedVersions": ["2025-11-25"], "capabilities": {}});
    let mut pair = Pair::new(config(ProtocolChoice::Auto));
    let probe = pair.recv();
    pair.reply(&probe, lying.clone());
    assert_eq!(pair.recv()["method"], "initialize");

    let mut pair = Pair::new(config(ProtocolChoice::Modern));
    let probe = pair.recv();
    pair.reply(&probe, lying);
    let SessionEvent::Closed { reason } = pair.event() else {
        panic!("expected Closed")
    };
    assert!(reason.contains("\"protocol\" requires"), "{reason}");
    assert!(
        reason.contains(r#"supportedVersions: ["2025-11-25"]"#),
        "{reason}"
    );
}

#[test]
fn input_required_is_answered_by_the_host_and_re_sent_with_the_state_unchanged() {
    let mut pair = modern_pair(config(ProtocolChoice::Modern));
    let first = call(&mut pair, "ask_color");
    let state = "ask_color.eyJ0b29sIjoiYXNrX2NvbG9yIn0";
    pair.reply(
        &first,
        json!({"resultType": "input_required",
        "inputRequests": {"color": {"method": "elicitation/create",
            "params": {"message": "Pick a color", "mode": "form",
                       "requestedSchema": {"type": "object"}}}},
        "requestState": state}),
    );
    let SessionEvent::ServerRequest { id, method, params } = pair.event() else {
        panic!("expected the input request")
    };
    assert_eq!(method, "elicitation/create");
    assert_eq!(params.unwrap()["message"], "Pick a color");
    assert!(pair.sent.is_empty(), "nothing is sent before the answer");
    pair.client
        .respond(
            &id,
            Ok(json!({"action": "accept", "content": {"color": "teal"}})),
        )
        .unwrap();
    let second = pair.recv();
    assert_eq!(second["method"], "tools/call");
    assert_ne!(second["id"], first["id"]);
    assert_eq!(second["params"]["name"], "ask_color");
    assert_eq!(second["params"]["requestState"], state);
    assert_eq!(
        second["params"]["inputResponses"],
        json!({"color": {"action": "accept", "content": {"color": "teal"}}})
    );
    assert_eq!(second["params"]["_meta"]["progressToken"], second["id"]);
    assert_eq!(
        second["params"]["_meta"]["io.modelcontextprotocol/protocolVersion"],
        MODERN
    );
    // The same answer twice is refused: the input request is closed.
    assert!(pair.client.respond(&id, Ok(json!({}))).is_err());
    pair.reply(
        &second,
        json!({"resultType": "complete", "content": [{"type": "text", "text": "teal"}]}),
    );
    let SessionEvent::ToolResult {
        request,
        result: Ok(output),
    } = pair.event()
    else {
        panic!("expected the tool result")
    };
    assert_eq!(
        request.0,
        first["id"].as_u64().unwrap(),
        "the caller's handle"
    );
    assert_eq!(output.to_model_text(), "teal");
}

#[test]
fn without_request_state_none_is_sent_and_fixed_roots_need_no_host() {
    let mut pair = modern_pair(SessionConfig {
        fixed_roots: vec![Root {
            uri: "file:///work".into(),
            name: Some("work".into()),
        }],
        ..config(ProtocolChoice::Modern)
    });
    let first = call(&mut pair, "where");
    pair.reply(
        &first,
        json!({"resultType": "input_required",
        "inputRequests": {"roots": {"method": "roots/list"}}}),
    );
    let second = pair.recv();
    assert!(second["params"].get("requestState").is_none(), "{second}");
    assert_eq!(
        second["params"]["inputResponses"]["roots"]["roots"][0]["uri"],
        "file:///work"
    );
    assert!(
        pair.events.is_empty(),
        "the host was not asked: {:?}",
        pair.events
    );
}

fn failure(pair: &mut Pair) -> RequestError {
    match pair.event() {
        SessionEvent::ToolResult {
            result: Err(error), ..
        } => error,
        other => panic!("expected a failed tool call, got {other:?}"),
    }
}

#[test]
fn input_required_forever_ends_after_the_round_limit_naming_the_server() {
    let mut pair = modern_pair(config(ProtocolChoice::Modern));
    let mut request = call(&mut pair, "forever");
    let mut rounds = 0;
    loop {
        pair.reply(&request, json!({"resultType": "input_required",
            "inputRequests": {"q": {"method": "elicitation/create", "params": {"message": "again"}}},
            "requestState": "s"}));
        let Some(SessionEvent::ServerRequest { id, .. }) = pair.events.front().cloned() else {
            break;
        };
        pair.events.pop_front();
        rounds += 1;
        pair.client
            .respond(&id, Ok(json!({"action": "decline"})))
            .unwrap();
        request = pair.recv();
    }
    assert_eq!(rounds, MAX_INPUT_ROUNDS);
    let text = failure(&mut pair).to_string();
    assert!(
        text.contains("\"modern-srv\"") && text.contains("8 rounds"),
        "{text}"
    );
}

#[test]
fn hostile_results_fail_the_request_with_a_reason() {
    let big = "x".repeat(MAX_REQUEST_STATE_BYTES + 1);
    let cases = [
        (
            json!({"resultType": "input_required", "inputRequests": {"q": {"method": "elicitation/create"}},
                "requestState": big}),
            "requestState of 1048577 bytes",
        ),
        (
            json!({"resultType": "input_required"}),
            "without inputRequests",
        ),
        (
            json!({"resultType": "input_required", "inputRequests": {}}),
            "without inputRequests",
        ),
        (
            json!({"resultType": "input_required", "inputRequests": {"s": {"method": "sampling/createMessage"}}}),
            "did not declare",
        ),
        (
            json!({"resultType": "input_required", "inputRequests": {"q": {"method": "elicitation/create"}},
                "requestState": {"an": "object"}}),
            "not a string",
        ),
        (
            json!({"resultType": "tampered", "content": []}),
            "unknown resultType \"tampered\"",
        ),
    ];
    for (result, expected) in cases {
        let mut pair = modern_pair(config(ProtocolChoice::Modern));
        let request = call(&mut pair, "hostile");
        pair.reply(&request, result);
        let text = failure(&mut pair).to_string();
        assert!(
            text.contains(expected) && text.contains("modern-srv"),
            "{expected}: {text}"
        );
        assert!(pair.client.is_ready(), "the session goes on");
        assert!(pair.sent.is_empty());
    }
}

#[test]
fn a_refused_or_late_answer_and_a_cancel_end_a_waiting_request() {
    let ask = json!({"resultType": "input_required",
        "inputRequests": {"q": {"method": "elicitation/create", "params": {"message": "?"}}}});
    // The host refuses: the request fails, nothing is re-sent.
    let mut pair = modern_pair(config(ProtocolChoice::Modern));
    let request = call(&mut pair, "t");
    pair.reply(&request, ask.clone());
    let SessionEvent::ServerRequest { id, .. } = pair.event() else {
        panic!()
    };
    pair.client
        .respond(
            &id,
            Err(agentwire::jsonrpc::ErrorObject::new(
                -1,
                "user declined the prompt",
            )),
        )
        .unwrap();
    pair.drain();
    assert!(failure(&mut pair)
        .to_string()
        .contains("user declined the prompt"));
    assert!(pair.sent.is_empty());

    // Nobody answers: the total-time cap ends it.
    let mut pair = modern_pair(SessionConfig {
        max_total_timeout: Some(Duration::from_secs(10)),
        ..config(ProtocolChoice::Modern)
    });
    let request = call(&mut pair, "t");
    pair.reply(&request, ask.clone());
    let _ = pair.event();
    assert!(pair.client.poll_timeout().is_some());
    pair.advance(10_000);
    assert!(matches!(failure(&mut pair), RequestError::Timeout { .. }));

    // The caller cancels while the host is being asked.
    let mut pair = modern_pair(config(ProtocolChoice::Modern));
    let request = call(&mut pair, "t");
    pair.reply(&request, ask);
    let SessionEvent::ServerRequest { id, .. } = pair.event() else {
        panic!()
    };
    let handle = agentwire::mcp::RequestId(request["id"].as_u64().unwrap());
    pair.client.cancel(handle, "stop").unwrap();
    pair.drain();
    assert!(matches!(failure(&mut pair), RequestError::Cancelled(_)));
    assert!(pair.client.respond(&id, Ok(json!({}))).is_err());
    let _ = Id::from(1);
}

#[test]
fn tools_with_invalid_header_declarations_are_left_out_in_the_modern_era() {
    let tools = json!({"tools": [
        {"name": "good", "inputSchema": {"type": "object",
            "properties": {"region": {"type": "string", "x-mcp-header": "Region"}}}},
        {"name": "bad", "inputSchema": {"type": "object",
            "properties": {"region": {"type": "string", "x-mcp-header": "Bad Name"}}}}
    ]});
    let mut pair = modern_pair(config(ProtocolChoice::Modern));
    pair.client.list_tools(pair.now).unwrap();
    let list = pair.recv();
    pair.reply(&list, tools.clone());
    let mut names = Vec::new();
    let mut reports = Vec::new();
    while let Some(event) = pair.events.pop_front() {
        match event {
            SessionEvent::ToolsListed { tools, .. } => {
                names = tools.iter().map(|t| t["name"].clone()).collect();
            }
            SessionEvent::ProtocolError { message } => reports.push(message),
            _ => {}
        }
    }
    assert_eq!(names, [json!("good")]);
    assert!(
        reports[0].contains("\"bad\"") && reports[0].contains("not an HTTP token"),
        "{reports:?}"
    );

    // The legacy era has no such headers and keeps every tool, as before.
    let mut pair = Pair::ready();
    pair.client.list_tools(pair.now).unwrap();
    let list = pair.recv();
    pair.reply(&list, tools);
    assert!(matches!(pair.event(), SessionEvent::ToolsListed { tools, .. } if tools.len() == 2));
}

#[test]
fn cache_hints_spare_a_re_list_inside_the_ttl_and_a_list_changed_ends_them() {
    let mut pair = modern_pair(config(ProtocolChoice::Modern));
    let tools = json!([{"name": "b"}, {"name": "a"}]);
    pair.client.list_tools(pair.now).unwrap();
    let list = pair.recv();
    pair.reply(
        &list,
        json!({"resultType": "complete", "tools": tools, "ttlMs": 60_000, "cacheScope": "private"}),
    );
    assert!(matches!(pair.event(), SessionEvent::ToolsListed { .. }));

    pair.advance(59_000);
    let again = pair.client.list_tools(pair.now).unwrap();
    pair.drain();
    assert!(
        pair.sent.is_empty(),
        "nothing sent inside the TTL: {:?}",
        pair.sent
    );
    let SessionEvent::ToolsListed {
        request,
        tools: cached,
    } = pair.event()
    else {
        panic!("expected the cached list")
    };
    assert_eq!(request, again);
    assert_eq!(Value::Array(cached), tools, "server order kept");

    pair.advance(1_000);
    pair.client.list_tools(pair.now).unwrap();
    let relist = pair.recv();
    assert_eq!(relist["method"], "tools/list", "stale after the TTL");
    pair.reply(&relist, json!({"tools": tools, "ttlMs": 60_000}));
    let _ = pair.event();
    pair.send(json!({"jsonrpc": "2.0", "method": "notifications/tools/list_changed"}));
    let _ = pair.event();
    pair.client.list_tools(pair.now).unwrap();
    assert_eq!(
        pair.recv()["method"],
        "tools/list",
        "list_changed ends the hint"
    );

    // resources/read, by URI, until resources/updated.
    let mut pair = modern_pair(config(ProtocolChoice::Modern));
    let read = |pair: &mut Pair| {
        pair.client
            .request(
                pair.now,
                "resources/read",
                Some(json!({"uri": "memo://a"})),
                CallOptions::default(),
            )
            .unwrap();
        pair.drain();
    };
    read(&mut pair);
    let request = pair.recv();
    pair.reply(
        &request,
        json!({"contents": [{"uri": "memo://a", "text": "x"}], "ttlMs": 5_000}),
    );
    let _ = pair.event();
    read(&mut pair);
    assert!(pair.sent.is_empty());
    assert!(
        matches!(pair.event(), SessionEvent::Response { result: Ok(r), .. } if r["contents"][0]["text"] == "x")
    );
    pair.send(json!({"jsonrpc": "2.0", "method": "notifications/resources/updated", "params": {"uri": "memo://a"}}));
    let _ = pair.event();
    read(&mut pair);
    assert_eq!(pair.recv()["method"], "resources/read");
}

#[test]
fn subscriptions_listen_opens_for_the_declared_list_changes_and_its_end_is_reported() {
    let mut pair = Pair::new(config(ProtocolChoice::Modern));
    let probe = pair.recv();
    let mut result = discover_result();
    result["capabilities"] = json!({"tools": {"listChanged": true}, "prompts": {},
        "resources": {"listChanged": true, "subscribe": true}});
    pair.reply(&probe, result);
    assert!(matches!(pair.event(), SessionEvent::Ready(_)));
    let listen = pair.recv();
    assert_eq!(listen["method"], "subscriptions/listen");
    assert_eq!(
        listen["params"]["notifications"],
        json!({"toolsListChanged": true, "resourcesListChanged": true})
    );
    assert_eq!(
        listen["params"]["_meta"]["io.modelcontextprotocol/protocolVersion"],
        MODERN
    );
    // It has no timeout: it is meant to stay open.
    assert_eq!(pair.client.poll_timeout(), None);
    assert_eq!(pair.client.in_flight(), 0);
    pair.send(
        json!({"jsonrpc": "2.0", "method": "notifications/subscriptions/acknowledged",
        "params": {"notifications": {"toolsListChanged": true}}}),
    );
    pair.send(
        json!({"jsonrpc": "2.0", "method": "notifications/tools/list_changed",
        "params": {"_meta": {"io.modelcontextprotocol/subscriptionId": listen["id"]}}}),
    );
    let _ack = pair.event();
    assert_eq!(pair.event(), SessionEvent::ToolsListChanged);
    // A later request gets an id of its own.
    let call = call(&mut pair, "echo");
    assert_ne!(call["id"], listen["id"]);
    pair.reply_error(&listen, -32603, "Subscription limit reached");
    let SessionEvent::ProtocolError { message } = pair.event() else {
        panic!("expected the end of listen reported")
    };
    assert!(message.contains("Subscription limit reached"), "{message}");
    assert!(pair.client.is_ready());

    // A server declaring no list changes gets no listen request.
    let pair = modern_pair(config(ProtocolChoice::Modern));
    assert!(pair.sent.is_empty());
}

#[test]
fn finished_modern_requests_leave_nothing_behind() {
    let mut pair = modern_pair(SessionConfig {
        request_timeout: Duration::from_millis(100),
        ..config(ProtocolChoice::Modern)
    });
    assert_eq!(
        pair.client.resendable(),
        0,
        "the probe is forgotten once answered"
    );
    for _ in 0..50 {
        let request = call(&mut pair, "t");
        assert_eq!(pair.client.resendable(), 1);
        let handle = agentwire::mcp::RequestId(request["id"].as_u64().unwrap());
        pair.client.cancel(handle, "stop").unwrap();
        pair.drain();
        pair.sent.clear();
    }
    for _ in 0..50 {
        let _ = call(&mut pair, "t");
        pair.advance(100);
        pair.sent.clear();
    }
    let request = call(&mut pair, "t");
    pair.reply_error(&request, -32603, "boom");
    pair.drain();
    assert_eq!(
        pair.client.resendable(),
        0,
        "cancelled, timed out and failed ones are gone"
    );
    pair.client.close("done");
    assert_eq!(pair.client.resendable(), 0);
}

#[test]
fn time_paused_for_an_authorization_is_not_taken_from_the_start_up_time() {
    let mut pair = Pair::new(SessionConfig {
        initialize_timeout: Duration::from_millis(200),
        ..config(ProtocolChoice::Auto)
    });
    let probe = pair.recv();
    pair.advance(30);
    // The transport waits for the user's consent, three times the start-up time.
    pair.client.pause_timeouts(pair.now);
    pair.advance(600);
    // The probe's refusal arrives before the transport says the consent is over.
    pair.reply_error(&probe, codes::METHOD_NOT_FOUND, "Method not found");
    let init = pair.recv();
    assert_eq!(init["method"], "initialize");
    pair.advance(1);
    pair.client.resume_timeouts(pair.now);
    // 30 ms of the 200 were spent before the pause: initialize has the other 170.
    pair.advance(169);
    assert!(pair.events.is_empty(), "{:?}", pair.events);
    pair.advance(1);
    let SessionEvent::Closed { reason } = pair.event() else {
        panic!("expected Closed")
    };
    assert_eq!(reason, "server did not answer initialize within 200 ms");
    let _ = init;
}

#[test]
fn an_initialize_after_a_pause_has_the_start_up_time_the_pause_left() {
    let mut pair = Pair::new(SessionConfig {
        initialize_timeout: Duration::from_millis(200),
        ..config(ProtocolChoice::Auto)
    });
    let probe = pair.recv();
    pair.advance(50);
    pair.client.pause_timeouts(pair.now);
    pair.advance(1_000);
    pair.client.resume_timeouts(pair.now);
    pair.reply_error(&probe, codes::METHOD_NOT_FOUND, "Method not found");
    let init = pair.recv();
    assert_eq!(init["method"], "initialize");
    pair.advance(149);
    assert!(pair.events.is_empty(), "{:?}", pair.events);
    pair.advance(1);
    assert!(matches!(pair.event(), SessionEvent::Closed { .. }));
}
