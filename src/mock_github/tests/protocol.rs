//! JSON-RPC and MCP lifecycle behaviour: transcripts, negotiation, pagination, framing.

use super::{request, send, send_raw, server};
use crate::mock_github::{
    MockGithubServer, MockOptions, LATEST_PROTOCOL_VERSION, MAX_LINE_BYTES, SERVER_NAME,
    SUPPORTED_PROTOCOL_VERSIONS,
};
use serde_json::{json, Value};

/// `pattern` matches `actual` when equal, where the string `"*"` in the pattern matches any
/// value and objects must have exactly the same keys.
fn matches(pattern: &Value, actual: &Value) -> bool {
    match (pattern, actual) {
        (Value::String(s), _) if s == "*" => true,
        (Value::Object(p), Value::Object(a)) => {
            p.len() == a.len()
                && p.iter()
                    .all(|(k, v)| a.get(k).is_some_and(|x| matches(v, x)))
        }
        (Value::Array(p), Value::Array(a)) => {
            p.len() == a.len() && p.iter().zip(a).all(|(x, y)| matches(x, y))
        }
        _ => pattern == actual,
    }
}

fn error(id: Value, code: i64) -> Value {
    json!({"jsonrpc": "2.0", "id": id, "error": {"code": code, "message": "*"}})
}

#[test]
fn transcript_of_a_session() {
    let initialize_result = json!({
        "jsonrpc": "2.0",
        "id": 1,
        "result": {
            "protocolVersion": "2025-06-18",
            "capabilities": {"tools": {"listChanged": false}, "resources": {}, "prompts": {}, "completions": {}},
            "serverInfo": {"name": SERVER_NAME, "title": "*", "version": "*"},
            "instructions": "*",
        },
    });
    // (line sent, responses expected), in order, on one server.
    let transcript: Vec<(&str, Vec<Value>)> = vec![
        (
            r#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"0"}}}"#,
            vec![initialize_result],
        ),
        (
            r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#,
            vec![],
        ),
        (
            r#"{"jsonrpc":"2.0","id":"p","method":"ping"}"#,
            vec![json!({"jsonrpc": "2.0", "id": "p", "result": {}})],
        ),
        (
            r#"{"jsonrpc":"2.0","id":2,"method":"sampling/createMessage"}"#,
            vec![error(json!(2), -32601)],
        ),
        (
            r#"{"jsonrpc":"2.0","id":3,"method":"elicitation/create","params":{}}"#,
            vec![error(json!(3), -32601)],
        ),
        (
            r#"{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":2}}"#,
            vec![],
        ),
        (
            r#"{"jsonrpc":"2.0","method":"notifications/whatever"}"#,
            vec![],
        ),
        (r#"{"jsonrpc":"2.0","method":"tools/list"}"#, vec![]),
        (r#"{"jsonrpc":"2.0","id":40,"result":{}}"#, vec![]),
        (
            r#"{"jsonrpc":"2.0","id":41,"error":{"code":-1,"message":"x"}}"#,
            vec![],
        ),
        ("", vec![]),
        ("  \r\n", vec![]),
        ("{nope", vec![error(Value::Null, -32700)]),
        ("[]", vec![error(Value::Null, -32600)]),
        (
            r#"[{"jsonrpc":"2.0","id":5,"method":"ping"}]"#,
            vec![error(Value::Null, -32600)],
        ),
        ("42", vec![error(Value::Null, -32600)]),
        (
            r#"{"jsonrpc":"1.0","id":6,"method":"ping"}"#,
            vec![error(json!(6), -32600)],
        ),
        (r#"{"id":7,"method":"ping"}"#, vec![error(json!(7), -32600)]),
        (
            r#"{"jsonrpc":"2.0","id":8,"method":5}"#,
            vec![error(json!(8), -32600)],
        ),
        (
            r#"{"jsonrpc":"2.0","id":9,"method":"ping","params":"x"}"#,
            vec![error(json!(9), -32600)],
        ),
        (
            r#"{"jsonrpc":"2.0","id":[1],"method":"ping"}"#,
            vec![error(Value::Null, -32600)],
        ),
        (
            r#"{"jsonrpc":"2.0","id":10,"method":"tools/call","params":{"name":"nope","arguments":{}}}"#,
            vec![
                json!({"jsonrpc": "2.0", "id": 10, "error": {"code": -32602, "message": "Unknown tool: nope"}}),
            ],
        ),
        (
            r#"{"jsonrpc":"2.0","id":11,"method":"tools/call","params":{"arguments":{}}}"#,
            vec![error(json!(11), -32602)],
        ),
        (
            r#"{"jsonrpc":"2.0","id":12,"method":"tools/call","params":{"name":"get_issue","arguments":[1]}}"#,
            vec![error(json!(12), -32602)],
        ),
        (
            r#"{"jsonrpc":"2.0","id":13,"method":"tools/list","params":{"cursor":"zzz"}}"#,
            vec![error(json!(13), -32602)],
        ),
        (
            r#"{"jsonrpc":"2.0","id":14,"method":"tools/call","params":{"name":"get_issue","arguments":{"owner":"vercel","repo":"ai"}}}"#,
            vec![json!({"jsonrpc": "2.0", "id": 14, "result": {
                "content": [{"type": "text", "text": "Invalid arguments: issue_number: Required"}],
                "isError": true,
            }})],
        ),
        (
            "{\"jsonrpc\":\"2.0\",\"id\":\"last\",\"method\":\"ping\"}\r\n",
            vec![json!({"jsonrpc": "2.0", "id": "last", "result": {}})],
        ),
    ];
    let mut server = server();
    for (line, expected) in transcript {
        let actual = send_raw(&mut server, line.as_bytes());
        assert!(
            expected.len() == actual.len()
                && expected.iter().zip(&actual).all(|(e, a)| matches(e, a)),
            "line {line:?}\n expected {expected:?}\n      got {actual:?}"
        );
    }
    assert!(server.is_initialized());
    assert_eq!(server.protocol_version(), Some("2025-06-18"));
}

#[test]
fn non_utf8_bytes_are_a_parse_error() {
    let out = send_raw(
        &mut server(),
        b"{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"\xff\"}",
    );
    assert!(matches(&error(Value::Null, -32700), &out[0]), "{out:?}");
}

#[test]
fn initialize_negotiates_the_protocol_version() {
    for version in SUPPORTED_PROTOCOL_VERSIONS {
        let mut s = server();
        let r = request(&mut s, 1, "initialize", json!({"protocolVersion": version}));
        assert_eq!(
            r["result"]["protocolVersion"], *version,
            "a supported version is echoed"
        );
        assert_eq!(s.protocol_version(), Some(*version));
    }
    for unknown in ["1999-01-01", "2026-01-01", ""] {
        let r = request(
            &mut server(),
            1,
            "initialize",
            json!({"protocolVersion": unknown}),
        );
        assert_eq!(
            r["result"]["protocolVersion"], LATEST_PROTOCOL_VERSION,
            "for {unknown:?}"
        );
    }
    for bad in [json!({}), json!({"protocolVersion": 20250618}), json!([1])] {
        let r = request(&mut server(), 1, "initialize", bad.clone());
        assert_eq!(r["error"]["code"], -32602, "initialize with {bad}");
    }
    let r = send(
        &mut server(),
        &json!({"jsonrpc": "2.0", "id": 1, "method": "initialize"}),
    );
    assert_eq!(r[0]["error"]["code"], -32602, "initialize without params");
}

fn tool_names(result: &Value) -> Vec<String> {
    result["tools"]
        .as_array()
        .map(|t| {
            t.iter()
                .map(|t| t["name"].as_str().unwrap_or_default().to_owned())
                .collect()
        })
        .unwrap_or_default()
}

#[test]
fn tools_list_is_one_page_by_default() {
    let mut s = server();
    let r = request(&mut s, 1, "tools/list", json!({}));
    assert!(r["result"].get("nextCursor").is_none());
    let names = tool_names(&r["result"]);
    assert_eq!(names, s.tool_names());
    for required in [
        "list_issues",
        "search_repositories",
        "get_file_contents",
        "get_issue",
        "list_pull_requests",
        "search_code",
    ] {
        assert!(names.iter().any(|n| n == required), "{required} is listed");
    }
    // No params at all is the same request.
    let bare = send(
        &mut s,
        &json!({"jsonrpc": "2.0", "id": 2, "method": "tools/list"}),
    );
    assert_eq!(bare[0]["result"], r["result"]);
}

#[test]
fn tools_list_pages_follow_next_cursor_to_the_full_list() {
    let all = tool_names(&request(&mut server(), 1, "tools/list", json!({}))["result"]);
    for size in [1, 3, 4, all.len() - 1, all.len(), all.len() + 5] {
        let mut s = MockGithubServer::with_options(MockOptions::new().with_tools_page_size(size));
        let mut collected = Vec::new();
        let mut cursor: Option<String> = None;
        let mut pages = 0;
        loop {
            let params = cursor.as_ref().map_or(json!({}), |c| json!({"cursor": c}));
            let r = request(&mut s, pages + 1, "tools/list", params);
            let page = tool_names(&r["result"]);
            assert!(
                !page.is_empty() && page.len() <= size,
                "page size {size}: {page:?}"
            );
            collected.extend(page);
            pages += 1;
            match r["result"].get("nextCursor") {
                Some(Value::String(next)) => cursor = Some(next.clone()),
                None => break,
                Some(other) => panic!("nextCursor must be a string, got {other}"),
            }
            assert!(pages <= 20, "pagination must end");
        }
        assert_eq!(collected, all, "page size {size}");
        assert_eq!(pages as usize, all.len().div_ceil(size), "page size {size}");
    }
}

#[test]
fn tools_list_refuses_cursors_it_did_not_issue() {
    let mut s = MockGithubServer::with_options(MockOptions::new().with_tools_page_size(0));
    let first = request(&mut s, 1, "tools/list", json!({}));
    assert_eq!(
        tool_names(&first["result"]).len(),
        1,
        "a page size of 0 means 1"
    );
    for bad in [
        json!("abc"),
        json!("0"),
        json!("-1"),
        json!("999"),
        json!(3),
        json!({}),
    ] {
        let r = request(&mut s, 2, "tools/list", json!({"cursor": bad}));
        assert_eq!(r["error"]["code"], -32602, "cursor {bad}");
    }
    let r = request(&mut s, 3, "tools/list", json!({"cursor": null}));
    assert_eq!(
        r["result"], first["result"],
        "a null cursor is the first page"
    );
}

#[test]
fn every_request_gets_exactly_one_response_even_when_streamed_in_pieces() {
    let mut lines = Vec::new();
    let mut ids = Vec::new();
    let methods = [
        ("initialize", json!({"protocolVersion": "2025-03-26"})),
        ("ping", json!({})),
        ("tools/list", json!({})),
        (
            "tools/call",
            json!({"name": "list_issues", "arguments": {"owner": "vercel", "repo": "ai"}}),
        ),
        (
            "tools/call",
            json!({"name": "get_issue", "arguments": {"owner": "x", "repo": "y", "issue_number": 1}}),
        ),
        ("tools/call", json!({"name": "missing"})),
        ("nope/nope", json!({})),
    ];
    for round in 0..4 {
        for (i, (method, params)) in methods.iter().enumerate() {
            let id = if i % 2 == 0 {
                json!(round * 100 + i)
            } else {
                json!(format!("s{round}-{i}"))
            };
            ids.push(id.clone());
            lines.push(
                json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params}).to_string(),
            );
            lines.push(
                r#"{"jsonrpc":"2.0","method":"notifications/progress","params":{}}"#.to_owned(),
            );
        }
    }
    let stream: Vec<u8> = lines
        .iter()
        .flat_map(|l| l.bytes().chain([b'\n']))
        .collect();

    let mut whole = server();
    let all_at_once = whole.handle_bytes(&stream);
    let responses: Vec<Value> = all_at_once
        .split(|&b| b == b'\n')
        .filter(|l| !l.is_empty())
        .map(|l| serde_json::from_slice(l).unwrap_or_else(|e| panic!("bad response line: {e}")))
        .collect();
    let answered: Vec<Value> = responses.iter().map(|r| r["id"].clone()).collect();
    assert_eq!(
        answered, ids,
        "one response per request, in order, none for notifications"
    );

    // Byte by byte and in uneven chunks, the output is identical.
    let mut bytewise = server();
    let mut out = Vec::new();
    for b in &stream {
        out.extend(bytewise.handle_bytes(std::slice::from_ref(b)));
    }
    assert_eq!(out, all_at_once);
    let mut chunked = server();
    let mut out = Vec::new();
    let mut rest = &stream[..];
    let mut size = 1;
    while !rest.is_empty() {
        let (chunk, tail) = rest.split_at(size.min(rest.len()));
        out.extend(chunked.handle_bytes(chunk));
        rest = tail;
        size = size * 3 % 97 + 1;
    }
    assert_eq!(out, all_at_once);
}

#[test]
fn an_over_long_line_is_refused_and_the_stream_recovers() {
    let mut s = server();
    let mut out = s.handle_bytes(b"{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\",\"x\":\"");
    let filler = vec![b'a'; MAX_LINE_BYTES];
    out.extend(s.handle_bytes(&filler));
    out.extend(s.handle_bytes(&filler));
    out.extend(s.handle_bytes(b"\"}\n{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"ping\"}\n"));
    let responses: Vec<Value> = out
        .split(|&b| b == b'\n')
        .filter(|l| !l.is_empty())
        .map(|l| serde_json::from_slice(l).unwrap_or(Value::Null))
        .collect();
    assert_eq!(responses.len(), 2, "{responses:?}");
    assert!(matches(&error(Value::Null, -32700), &responses[0]));
    assert_eq!(
        responses[1],
        json!({"jsonrpc": "2.0", "id": 2, "result": {}})
    );
}

#[test]
fn debug_output_is_a_summary() {
    let s = server();
    let text = format!("{s:?}");
    assert!(
        text.contains("MockGithubServer") && text.contains("tools: 11"),
        "{text}"
    );
}
