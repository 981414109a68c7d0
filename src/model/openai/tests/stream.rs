use serde_json::json;

use crate::model::openai::{ChatCompletionStream, DecodeError, StreamAccumulator, StreamDelta};
use crate::model::{ModelResponse, ToolCall, Usage};

/// A text answer streamed by OpenAI, with `stream_options.include_usage`.
const OPENAI_TEXT_STREAM: &str = concat!(
    "data: {\"id\":\"chatcmpl-1\",\"object\":\"chat.completion.chunk\",\"created\":1741569952,\"model\":\"gpt-4o-mini\",\"choices\":[{\"index\":0,\"delta\":{\"role\":\"assistant\",\"content\":\"\",\"refusal\":null},\"logprobs\":null,\"finish_reason\":null}],\"usage\":null}\n\n",
    "data: {\"id\":\"chatcmpl-1\",\"object\":\"chat.completion.chunk\",\"created\":1741569952,\"model\":\"gpt-4o-mini\",\"choices\":[{\"index\":0,\"delta\":{\"content\":\"你好\"},\"logprobs\":null,\"finish_reason\":null}],\"usage\":null}\n\n",
    ": OPENROUTER PROCESSING\n\n",
    "data: {\"id\":\"chatcmpl-1\",\"object\":\"chat.completion.chunk\",\"created\":1741569952,\"model\":\"gpt-4o-mini\",\"choices\":[{\"index\":0,\"delta\":{\"content\":\"! How can\"},\"logprobs\":null,\"finish_reason\":null}],\"usage\":null}\n\n",
    "data: {\"id\":\"chatcmpl-1\",\"object\":\"chat.completion.chunk\",\"created\":1741569952,\"model\":\"gpt-4o-mini\",\"choices\":[{\"index\":0,\"delta\":{\"content\":\" I help?\"},\"logprobs\":null,\"finish_reason\":null}],\"usage\":null}\n\n",
    "data: {\"id\":\"chatcmpl-1\",\"object\":\"chat.completion.chunk\",\"created\":1741569952,\"model\":\"gpt-4o-mini\",\"choices\":[{\"index\":0,\"delta\":{},\"logprobs\":null,\"finish_reason\":\"stop\"}],\"usage\":null}\n\n",
    "data: {\"id\":\"chatcmpl-1\",\"object\":\"chat.completion.chunk\",\"created\":1741569952,\"model\":\"gpt-4o-mini\",\"choices\":[],\"usage\":{\"prompt_tokens\":9,\"completion_tokens\":8,\"total_tokens\":17}}\n\n",
    "data: [DONE]\n\n",
);

/// Two parallel tool calls streamed by DashScope (CRLF line endings, reasoning first, fragments
/// of the two calls interleaved; later fragments repeat an empty id and a null name).
const DASHSCOPE_TOOLS_STREAM: &str = concat!(
    "data: {\"choices\":[{\"delta\":{\"content\":null,\"role\":\"assistant\",\"reasoning_content\":\"用户想看 issues。\"},\"index\":0,\"finish_reason\":null}],\"object\":\"chat.completion.chunk\",\"model\":\"qwen-plus\",\"id\":\"chatcmpl-7\"}\r\n\r\n",
    "data: {\"choices\":[{\"delta\":{\"content\":\"好的，\"},\"index\":0,\"finish_reason\":null}],\"object\":\"chat.completion.chunk\",\"model\":\"qwen-plus\",\"id\":\"chatcmpl-7\"}\r\n\r\n",
    "data: {\"choices\":[{\"delta\":{\"tool_calls\":[{\"index\":0,\"id\":\"call_a1\",\"type\":\"function\",\"function\":{\"name\":\"mcp__github__list_issues\",\"arguments\":\"\"}}]},\"index\":0,\"finish_reason\":null}],\"object\":\"chat.completion.chunk\",\"model\":\"qwen-plus\",\"id\":\"chatcmpl-7\"}\r\n\r\n",
    "data: {\"choices\":[{\"delta\":{\"tool_calls\":[{\"index\":0,\"id\":\"\",\"type\":\"function\",\"function\":{\"name\":null,\"arguments\":\"{\\\"owner\\\": \\\"ver\"}}]},\"index\":0,\"finish_reason\":null}],\"object\":\"chat.completion.chunk\",\"model\":\"qwen-plus\",\"id\":\"chatcmpl-7\"}\r\n\r\n",
    "data: {\"choices\":[{\"delta\":{\"tool_calls\":[{\"index\":1,\"id\":\"call_b2\",\"type\":\"function\",\"function\":{\"name\":\"get_weather\",\"arguments\":\"{\\\"city\\\"\"}}]},\"index\":0,\"finish_reason\":null}],\"object\":\"chat.completion.chunk\",\"model\":\"qwen-plus\",\"id\":\"chatcmpl-7\"}\r\n\r\n",
    "data: {\"choices\":[{\"delta\":{\"tool_calls\":[{\"index\":0,\"id\":\"\",\"type\":\"function\",\"function\":{\"arguments\":\"cel\\\", \\\"repo\\\": \\\"ai\\\"}\"}}]},\"index\":0,\"finish_reason\":null}],\"object\":\"chat.completion.chunk\",\"model\":\"qwen-plus\",\"id\":\"chatcmpl-7\"}\r\n\r\n",
    "data: {\"choices\":[{\"delta\":{\"tool_calls\":[{\"index\":1,\"id\":\"\",\"type\":\"function\",\"function\":{\"arguments\":\": \\\"北京\\\"}\"}}]},\"index\":0,\"finish_reason\":null}],\"object\":\"chat.completion.chunk\",\"model\":\"qwen-plus\",\"id\":\"chatcmpl-7\"}\r\n\r\n",
    "data: {\"choices\":[{\"delta\":{\"content\":\"\"},\"index\":0,\"finish_reason\":\"tool_calls\"}],\"object\":\"chat.completion.chunk\",\"model\":\"qwen-plus\",\"id\":\"chatcmpl-7\"}\r\n\r\n",
    "data: [DONE]\r\n\r\n",
);

/// Runs a whole body through `ChatCompletionStream` in pieces of `size` bytes.
fn run(body: &[u8], size: usize) -> (Vec<StreamDelta>, Result<ModelResponse, DecodeError>) {
    let mut stream = ChatCompletionStream::new();
    let mut deltas = Vec::new();
    for chunk in body.chunks(size.max(1)) {
        match stream.push(chunk) {
            Ok(d) => deltas.extend(d),
            Err(e) => return (deltas, Err(e)),
        }
    }
    (deltas, stream.finish())
}

fn text_of(deltas: &[StreamDelta]) -> String {
    deltas
        .iter()
        .filter_map(|d| match d {
            StreamDelta::Text(t) => Some(t.as_str()),
            _ => None,
        })
        .collect()
}

#[test]
fn text_arrives_as_deltas_and_as_the_final_answer() {
    let (deltas, response) = run(OPENAI_TEXT_STREAM.as_bytes(), usize::MAX);
    assert_eq!(
        deltas,
        [
            StreamDelta::Text("你好".into()),
            StreamDelta::Text("! How can".into()),
            StreamDelta::Text(" I help?".into()),
        ]
    );
    let usage = Usage {
        input_tokens: 9,
        output_tokens: 8,
        ..Usage::default()
    };
    assert_eq!(
        response,
        Ok(ModelResponse {
            usage: Some(usage),
            ..ModelResponse::text("你好! How can I help?")
        })
    );
}

/// Usage in the final chunk (empty `choices`, after `finish_reason`), with the cached share.
const CACHED_USAGE_STREAM: &str = concat!(
    "data: {\"choices\":[{\"index\":0,\"delta\":{\"content\":\"ok\"},\"finish_reason\":null}],\"usage\":null}\n\n",
    "data: {\"choices\":[{\"index\":0,\"delta\":{},\"finish_reason\":\"stop\"}],\"usage\":null}\n\n",
    "data: {\"choices\":[],\"usage\":{\"prompt_tokens\":1412,\"completion_tokens\":96,\"total_tokens\":1508,\"prompt_tokens_details\":{\"cached_tokens\":1024,\"audio_tokens\":0},\"completion_tokens_details\":{\"reasoning_tokens\":0}}}\n\n",
    "data: [DONE]\n\n",
);

#[test]
fn usage_in_the_final_chunk_is_read_whatever_the_chunking() {
    let want = Some(Usage {
        input_tokens: 1412,
        output_tokens: 96,
        cache_read_tokens: Some(1024),
        cache_write_tokens: None,
    });
    for size in [1, 2, 3, 7, 64, usize::MAX] {
        let (_, response) = run(CACHED_USAGE_STREAM.as_bytes(), size);
        let response = response.unwrap();
        assert_eq!(response.text.as_deref(), Some("ok"), "chunk size {size}");
        assert_eq!(response.usage, want, "chunk size {size}");
    }
    // A stream without usage has none: nothing is invented.
    let (_, response) = run(DASHSCOPE_TOOLS_STREAM.as_bytes(), 5);
    assert_eq!(response.unwrap().usage, None);
    // Usage after [DONE] is ignored like any other data.
    let mut acc = StreamAccumulator::new();
    acc.push_data(r#"{"choices":[{"index":0,"delta":{"content":"a"}}]}"#)
        .unwrap();
    acc.push_data("[DONE]").unwrap();
    acc.push_data(r#"{"choices":[],"usage":{"prompt_tokens":1,"completion_tokens":1}}"#)
        .unwrap();
    assert_eq!(acc.finish().unwrap().usage, None);
}

#[test]
fn parallel_tool_calls_are_assembled_by_index() {
    let (deltas, response) = run(DASHSCOPE_TOOLS_STREAM.as_bytes(), usize::MAX);
    assert_eq!(
        deltas,
        [
            StreamDelta::Reasoning("用户想看 issues。".into()),
            StreamDelta::Text("好的，".into()),
            StreamDelta::ToolCallStarted {
                index: 0,
                id: "call_a1".into(),
                name: "mcp__github__list_issues".into()
            },
            StreamDelta::ToolCallStarted {
                index: 1,
                id: "call_b2".into(),
                name: "get_weather".into()
            },
        ]
    );
    assert_eq!(
        response,
        Ok(ModelResponse {
            usage: None,
            text: Some("好的，".into()),
            tool_calls: vec![
                ToolCall {
                    id: "call_a1".into(),
                    name: "mcp__github__list_issues".into(),
                    arguments: json!({"owner": "vercel", "repo": "ai"}),
                },
                ToolCall {
                    id: "call_b2".into(),
                    name: "get_weather".into(),
                    arguments: json!({"city": "北京"}),
                },
            ],
        })
    );
}

#[test]
fn any_chunking_gives_the_same_result() {
    for body in [OPENAI_TEXT_STREAM, DASHSCOPE_TOOLS_STREAM] {
        let (whole_deltas, whole) = run(body.as_bytes(), usize::MAX);
        let whole_text = text_of(&whole_deltas);
        for size in 1..=64 {
            let (deltas, response) = run(body.as_bytes(), size);
            assert_eq!(response, whole, "chunk size {size}");
            assert_eq!(text_of(&deltas), whole_text, "chunk size {size}");
        }
        // Byte by byte, the deltas themselves are identical (one SSE event is one delta).
        assert_eq!(run(body.as_bytes(), 1).0, whole_deltas);
    }
}

#[test]
fn errors_inside_the_stream() {
    let mid_stream = "data: {\"choices\":[{\"index\":0,\"delta\":{\"content\":\"Hi\"}}]}\n\n\
        data: {\"error\":{\"message\":\"The server had an error while processing your request.\",\"type\":\"server_error\",\"code\":null}}\n\n";
    let (deltas, response) = run(mid_stream.as_bytes(), 7);
    assert_eq!(deltas, [StreamDelta::Text("Hi".into())]);
    assert_eq!(
        response.unwrap_err().to_string(),
        "model API error: The server had an error while processing your request. (type server_error)"
    );

    let (_, response) = run(b"event: error\ndata: overloaded\n\n", 3);
    assert_eq!(
        response.unwrap_err().to_string(),
        "model API error: overloaded"
    );

    let (_, response) = run(
        b"data: {\"choices\":[{\"delta\":{\"content\":\"cut\"}}]}\n\ndata: {\"cho",
        5,
    );
    assert_eq!(
        response.unwrap_err().to_string(),
        "model response is not JSON (EOF while parsing a string at line 1 column 5): \"{\\\"cho\""
    );

    let (_, response) = run(
        b"data: {\"choices\":[{\"delta\":{\"content\":\"cut\"}}]}\n\n",
        5,
    );
    assert_eq!(
        response,
        Err(DecodeError::Incomplete(
            "the stream stopped before any finish_reason or [DONE]".into()
        ))
    );
}

#[test]
fn a_plain_json_body_is_decoded_instead() {
    let error = br#"{"error":{"message":"Invalid API-key provided.","type":"invalid_request_error","code":"invalid_api_key"}}"#;
    let (deltas, response) = run(error, 10);
    assert!(deltas.is_empty());
    assert_eq!(
        response.unwrap_err().to_string(),
        "model API error: Invalid API-key provided. (type invalid_request_error, code invalid_api_key)"
    );
    // A server that ignored "stream": true.
    let (_, response) = run(br#"{"choices":[{"message":{"content":"whole"}}]}"#, 10);
    assert_eq!(response, Ok(ModelResponse::text("whole")));

    let (_, response) = run(b"<html>Bad Gateway</html>", 4);
    assert_eq!(
        response.unwrap_err().to_string(),
        "model stream ended early: the body carried no server-sent events; it starts with \"<html>Bad Gateway</html>\""
    );
    let (_, response) = run(b"data: [DONE]\n\n", 4);
    assert_eq!(
        response,
        Err(DecodeError::Incomplete(
            "the stream carried no chat.completion.chunk".into()
        ))
    );
}

#[test]
fn accumulator_rules() {
    // A stream ending in finish_reason without [DONE] is complete; data after [DONE] is ignored.
    let mut acc = StreamAccumulator::new();
    acc.push_chunk(
        &json!({"choices": [{"index": 0, "delta": {"content": "a"}, "finish_reason": "length"}]}),
    )
    .unwrap();
    assert_eq!(acc.finish_reason(), Some("length"));
    acc.push_data("[DONE]").unwrap();
    assert!(acc.is_done());
    assert_eq!(acc.push_data("not even json"), Ok(vec![]));
    assert_eq!(acc.finish(), Ok(ModelResponse::text("a")));

    // Only choice 0 is followed.
    let mut acc = StreamAccumulator::new();
    let d = acc
        .push_chunk(&json!({"choices": [{"index": 1, "delta": {"content": "other"}},
                                        {"index": 0, "delta": {"content": "mine"}, "finish_reason": "stop"}]}))
        .unwrap();
    assert_eq!(d, [StreamDelta::Text("mine".into())]);
    assert_eq!(acc.finish(), Ok(ModelResponse::text("mine")));

    // Whole calls without an index (some gateways): a new id opens a new call.
    let mut acc = StreamAccumulator::new();
    for (id, name) in [("c1", "a"), ("c2", "b")] {
        acc.push_chunk(&json!({"choices": [{"delta": {"tool_calls": [
            {"id": id, "function": {"name": name, "arguments": "{\"n\":1}"}}]}}]}))
            .unwrap();
    }
    acc.push_data("[DONE]").unwrap();
    let names: Vec<_> = acc
        .finish()
        .unwrap()
        .tool_calls
        .into_iter()
        .map(|c| (c.id, c.name))
        .collect();
    assert_eq!(
        names,
        [("c1".into(), "a".into()), ("c2".into(), "b".into())]
    );
}

#[test]
fn broken_tool_calls_in_a_stream() {
    let finish = |fragments: serde_json::Value| {
        let mut acc = StreamAccumulator::new();
        acc.push_chunk(&json!({"choices": [{"delta": {"tool_calls": fragments}, "finish_reason": "tool_calls"}]}))?;
        acc.finish()
    };
    // Arguments that are not JSON are kept as text: the agent loop answers the call with the
    // parse error instead of the whole answer failing.
    let response = finish(json!([{"index": 0, "id": "c", "function": {"name": "calculator", "arguments": "{\"expression\": "}}]))
        .expect("the answer decodes");
    assert_eq!(response.tool_calls[0].arguments, json!("{\"expression\": "));
    assert_eq!(
        finish(json!([{"index": 3, "function": {"arguments": "{}"}}])),
        Err(DecodeError::Malformed(
            "streamed tool call at index 3 never received a function name".into()
        ))
    );
    assert_eq!(
        finish(json!({"index": 0})),
        Err(DecodeError::Malformed(
            "stream chunk delta.tool_calls must be an array".into()
        ))
    );
    let ok = finish(json!([{"index": 0, "function": {"name": "t"}}])).unwrap();
    assert_eq!(
        ok.tool_calls,
        [ToolCall {
            id: "call_0".into(),
            name: "t".into(),
            arguments: json!({})
        }],
        "a missing id is generated and missing arguments mean {{}}"
    );
}

/// Feeds `ChatCompletionStream::with_max_bytes(max)` `repeat` for ever; returns how many
/// bytes went in and the error that stopped it.
fn flood(max: usize, repeat: &str) -> (usize, DecodeError) {
    let mut stream = ChatCompletionStream::with_max_bytes(max);
    let mut fed = 0;
    loop {
        fed += repeat.len();
        if let Err(e) = stream.push(repeat.as_bytes()) {
            return (fed, e);
        }
        assert!(fed < 100 * max, "the stream was never stopped");
    }
}

#[test]
fn an_endless_stream_of_text_tool_arguments_or_comments_stops_at_the_size_bound() {
    let text = "data: {\"choices\":[{\"index\":0,\"delta\":{\"content\":\"aaaa\"}}]}\n\n";
    let arguments = "data: {\"choices\":[{\"index\":0,\"delta\":{\"tool_calls\":[{\"index\":0,\"id\":\"c\",\"function\":{\"name\":\"x\",\"arguments\":\"[1,\"}}]}}]}\n\n";
    let keep_alive = ": ping\n\n";
    for repeat in [text, arguments, keep_alive] {
        let (fed, error) = flood(2048, repeat);
        assert_eq!(error, DecodeError::TooLarge { limit: 2048 });
        assert!(fed > 2048 && fed <= 2048 + repeat.len(), "{fed}");
        assert!(error.to_string().contains("size limit of 2 KiB"), "{error}");
    }
}

#[test]
fn an_answer_within_the_bound_is_unaffected_and_one_byte_less_is_refused() {
    let body = OPENAI_TEXT_STREAM.as_bytes();
    let mut exact = ChatCompletionStream::with_max_bytes(body.len());
    assert!(exact.push(body).is_ok());
    assert!(exact.finish().is_ok());
    let mut short = ChatCompletionStream::with_max_bytes(body.len() - 1);
    assert_eq!(
        short.push(body).unwrap_err(),
        DecodeError::TooLarge {
            limit: body.len() - 1
        }
    );
    // Once refused, later pushes stay refused.
    assert!(short.push(b"").is_err());
}
