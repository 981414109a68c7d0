//! The session's resources, prompts, completion and logging against a scripted server.

mod support;

use agentwire::content::ContentBlock;
use agentwire::mcp::{
    prompt_messages, read_resource_result, ListKind, RequestError, SessionConfig, SessionError,
    SessionEvent,
};
use serde_json::{json, Value};
use support::Pair;

/// A ready pair whose server declared `capabilities`.
fn ready(capabilities: Value) -> Pair {
    let mut pair = Pair::new(SessionConfig::default());
    let init = pair.recv();
    pair.reply(
        &init,
        json!({"protocolVersion": "2025-11-25", "capabilities": capabilities,
               "serverInfo": {"name": "s", "version": "1"}}),
    );
    pair.recv();
    assert!(matches!(pair.event(), SessionEvent::Ready(_)));
    pair
}

#[test]
fn only_declared_capabilities_are_asked_for() {
    let refused = |method: &str| Err(SessionError::NotOffered(method.to_owned()));
    // A server with tools only: no resource method is sent.
    let mut pair = ready(json!({"tools": {}, "prompts": {}}));
    let now = pair.now;
    assert_eq!(
        pair.client.list(now, ListKind::Resources),
        refused("resources/list")
    );
    assert_eq!(
        pair.client
            .feature_request(now, "resources/read", json!({"uri": "x:/"})),
        refused("resources/read")
    );
    assert!(pair.sent.is_empty());
    // A capability that is not an object is not a declaration.
    let mut pair = ready(json!({"resources": true}));
    assert_eq!(
        pair.client.list(pair.now, ListKind::Resources),
        refused("resources/list")
    );

    let mut pair = ready(json!({"tools": {}, "resources": {}}));
    assert_eq!(
        pair.client.list(pair.now, ListKind::Prompts),
        refused("prompts/list")
    );
    let now = pair.now;
    assert_eq!(
        pair.client
            .feature_request(now, "completion/complete", json!({})),
        refused("completion/complete")
    );
    assert_eq!(
        pair.client
            .feature_request(now, "logging/setLevel", json!({"level": "info"})),
        refused("logging/setLevel")
    );
    // Resources are offered, but subscribing needs `resources.subscribe: true`.
    assert_eq!(
        pair.client
            .feature_request(now, "resources/subscribe", json!({"uri": "x:/"})),
        refused("resources/subscribe")
    );
    assert!(pair.sent.is_empty(), "nothing undeclared reached the wire");
    assert!(pair.client.list(now, ListKind::Resources).is_ok());
    assert_eq!(pair.recv()["method"], "resources/list");

    let mut pair = ready(json!({"resources": {"subscribe": true}, "logging": {}}));
    let now = pair.now;
    assert!(pair
        .client
        .feature_request(now, "resources/subscribe", json!({"uri": "x:/"}))
        .is_ok());
    assert!(pair
        .client
        .feature_request(now, "logging/setLevel", json!({"level": "debug"}))
        .is_ok());
    assert_eq!(pair.recv()["method"], "resources/subscribe");
    assert_eq!(pair.recv()["params"], json!({"level": "debug"}));
}

#[test]
fn resource_and_prompt_lists_follow_cursors_up_to_the_cap() {
    let mut pair = ready(json!({"resources": {}, "prompts": {}}));
    let op = pair
        .client
        .list(pair.now, ListKind::ResourceTemplates)
        .unwrap();
    let first = pair.recv();
    assert_eq!(first["method"], "resources/templates/list");
    pair.reply(
        &first,
        json!({"resourceTemplates": [{"uriTemplate": "a/{x}"}], "nextCursor": "2"}),
    );
    let second = pair.recv();
    assert_eq!(second["params"], json!({"cursor": "2"}));
    pair.reply(
        &second,
        json!({"resourceTemplates": [{"uriTemplate": "b/{y}"}]}),
    );
    let SessionEvent::Listed { request, items } = pair.event() else {
        panic!()
    };
    assert_eq!(request, op);
    assert_eq!(items.len(), 2);

    // A page without the list's own field fails the list, naming it.
    pair.client.list(pair.now, ListKind::Prompts).unwrap();
    let req = pair.recv();
    pair.reply(&req, json!({"tools": []}));
    assert!(
        matches!(pair.event(), SessionEvent::Failed { error: RequestError::InvalidResult(m), .. }
        if m.contains("prompts/list result without a \"prompts\" array"))
    );

    // A cursor loop ends at the page cap.
    let mut pair = Pair::new(SessionConfig {
        max_tool_pages: 2,
        ..SessionConfig::default()
    });
    let init = pair.recv();
    pair.reply(
        &init,
        json!({"protocolVersion": "2025-11-25", "capabilities": {"resources": {}}}),
    );
    pair.recv();
    pair.event();
    pair.client.list(pair.now, ListKind::Resources).unwrap();
    for _ in 0..2 {
        let req = pair.recv();
        pair.reply(&req, json!({"resources": [], "nextCursor": "same"}));
    }
    assert!(pair.sent.is_empty());
    assert!(
        matches!(pair.event(), SessionEvent::Failed { error: RequestError::InvalidResult(m), .. }
        if m.contains("resources/list still had more pages after 2"))
    );
}

#[test]
fn list_changed_and_updated_notifications_become_events() {
    let mut pair = ready(json!({"resources": {"subscribe": true, "listChanged": true}}));
    for method in [
        "notifications/resources/list_changed",
        "notifications/prompts/list_changed",
    ] {
        pair.send(json!({"jsonrpc": "2.0", "method": method}));
    }
    pair.send(
        json!({"jsonrpc": "2.0", "method": "notifications/resources/updated",
                     "params": {"uri": "file:///a"}}),
    );
    pair.send(json!({"jsonrpc": "2.0", "method": "notifications/resources/updated"}));
    assert_eq!(pair.event(), SessionEvent::ListChanged(ListKind::Resources));
    assert_eq!(pair.event(), SessionEvent::ListChanged(ListKind::Prompts));
    assert_eq!(
        pair.event(),
        SessionEvent::ResourceUpdated {
            uri: "file:///a".into()
        }
    );
    assert!(pair.events.is_empty(), "one without a URI is dropped");
}

#[test]
fn read_results_and_prompt_messages_are_normalised() {
    let read = json!({"contents": [
        {"uri": "a://t", "mimeType": "text/plain", "text": "hello"},
        {"uri": "a://b", "mimeType": "image/png", "blob": "AAEC"},
    ]});
    let output = read_resource_result(&read).unwrap();
    assert_eq!(output.content.len(), 2);
    assert!(output.to_model_text().contains("hello"));
    assert!(output
        .to_model_text()
        .contains("[resource a://b, image/png, 4 bytes base64]"));
    assert!(read_resource_result(&json!({"contents": [{"text": "no uri"}]})).is_err());
    assert!(read_resource_result(&json!({}))
        .unwrap_err()
        .contains("\"contents\""));

    let prompt = json!({"messages": [
        {"role": "user", "content": {"type": "text", "text": "hi"}},
        {"role": "assistant", "content": {"type": "image", "data": "AA", "mimeType": "image/png"}},
        {"role": "user", "content": {"type": "audio", "data": "AA", "mimeType": "audio/wav"}},
        {"role": "user", "content": {"type": "resource",
            "resource": {"uri": "r://1", "text": "body"}}},
    ]});
    let messages = prompt_messages(&prompt).unwrap();
    assert_eq!(
        messages[0],
        ("user".into(), ContentBlock::Text { text: "hi".into() })
    );
    assert_eq!(messages[1].0, "assistant");
    assert!(matches!(messages[2].1, ContentBlock::Audio { .. }));
    assert!(matches!(&messages[3].1, ContentBlock::Resource { text: Some(t), .. } if t == "body"));
    assert!(prompt_messages(
        &json!({"messages": [{"role": "user", "content": {"type": "video"}}]})
    )
    .unwrap_err()
    .contains("video"));
}
