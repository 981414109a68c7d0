//! Explicit calls of any offered tool, with JSON arguments.

use super::*;

fn everything() -> Vec<ToolDefinition> {
    let mut tools = all_tools();
    tools.extend(
        [
            "mcp__everything__echo",
            "mcp__everything__get-sum",
            "mcp__everything__get-env",
        ]
        .map(tool),
    );
    tools
}

fn called(text: &str) -> (String, Value) {
    let response = ask(text, everything());
    match response.tool_calls.as_slice() {
        [call] => (call.name.clone(), call.arguments.clone()),
        _ => panic!("{text:?} should call one tool, got {response:?}"),
    }
}

#[test]
fn any_offered_tool_can_be_called_by_name_with_json_arguments() {
    for (text, name, args) in [
        (
            r#"call echo {"message":"hi"}"#,
            "mcp__everything__echo",
            json!({"message": "hi"}),
        ),
        (
            r#"Call `echo` with {"message": "hi there"}."#,
            "mcp__everything__echo",
            json!({"message": "hi there"}),
        ),
        (
            r#"use mcp__everything__get-sum {"a": 1, "b": 2}"#,
            "mcp__everything__get-sum",
            json!({"a": 1, "b": 2}),
        ),
        (
            r#"调用 get-sum 参数 {"a":1,"b":2}"#,
            "mcp__everything__get-sum",
            json!({"a": 1, "b": 2}),
        ),
        ("执行 get-env", "mcp__everything__get-env", json!({})),
        ("run get-env.", "mcp__everything__get-env", json!({})),
        // A tool of the patterns can be called explicitly too.
        (
            r#"call calculator {"expression":"6*7"}"#,
            "calculator",
            json!({"expression": "6*7"}),
        ),
    ] {
        assert_eq!(called(text), (name.to_owned(), args), "{text}");
    }
}

#[test]
fn words_after_the_tool_name_leave_the_message_to_the_other_patterns() {
    // "use the calculator ..." names no tool right after the verb; "use calculator to ..." has
    // words, not JSON, after it: both reach the calculator pattern with its expression.
    for text in [
        "use the calculator to compute 2+3",
        "use calculator to compute 2+3",
    ] {
        assert_eq!(
            called(text),
            ("calculator".to_owned(), json!({"expression": "2+3"})),
            "{text}"
        );
    }
    // An unknown tool is no explicit call either.
    let response = ask(r#"call teleport {"to":"Mars"}"#, everything());
    assert!(response.tool_calls.is_empty());
    assert!(
        response.text.unwrap().contains("call <tool>"),
        "the reply says how to call a tool"
    );
}

#[test]
fn arguments_that_are_not_one_json_object_are_explained() {
    for (text, needle) in [
        (r#"call echo {"message": "hi""#, "EOF"),
        ("call echo [1, 2]", "JSON object"),
        (r#"调用 echo {"message": 1,}"#, "JSON"),
    ] {
        let response = ask(text, everything());
        assert!(response.tool_calls.is_empty(), "{text}: {response:?}");
        let reply = response.text.unwrap();
        assert!(
            reply.contains("mcp__everything__echo") && reply.contains(needle),
            "{text}: {reply}"
        );
    }
}

#[test]
fn the_answer_shows_what_an_unknown_tool_returned() {
    let reply = answer(
        r#"call echo {"message":"hi"}"#,
        "mcp__everything__echo",
        json!({"message": "hi"}),
        "Echo: hi",
    );
    assert!(reply.contains("Echo: hi"), "{reply}");
}
