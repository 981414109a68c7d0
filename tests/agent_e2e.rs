//! The core alone, with a test host, runs whole agent conversations: the mock model decides, the
//! built-in mock GitHub server answers over real MCP (in process), and the runtime in between
//! gates, calls, audits and reports every step. Time is simulated and nothing sleeps.

mod support;

use agentwire::driver::{McpClient, MockGithubTransport, ModelBackend, ModelStream};
use agentwire::mcp::CallOptions;
use agentwire::model::{ChatMessage, MockModel, ModelRequest, ModelResponse};
use agentwire::policy::Policy;
use futures::future::LocalBoxFuture;
use serde_json::{json, Value};
use std::rc::Rc;
use support::host::{Host, Observer, RecordingModel};
use support::stepper::Stepper;

type Mock = RecordingModel<MockModel>;

/// A runtime with the mock model and the mock GitHub server connected as `github`.
fn github_host() -> (Host, McpClient, Rc<Mock>) {
    let model = RecordingModel::new(MockModel::new());
    let mut host = Host::with_policy(Policy::new(), model.clone());
    let client = host.add_server("github", MockGithubTransport::default());
    (host, client, model)
}

/// Calls a tool of the mock server directly, bypassing the agent, and parses its JSON text.
fn ask_server(host: &mut Host, client: &McpClient, tool: &str, args: Value) -> Value {
    let call = client.call_tool(tool, args, CallOptions::default());
    let output = Stepper::new(call)
        .step(&mut host.pool)
        .expect("the mock server answers at once")
        .expect("the call succeeds");
    assert!(
        !output.is_error,
        "{tool} failed: {}",
        output.to_model_text()
    );
    serde_json::from_str(&output.to_model_text()).expect("the mock server answers JSON")
}

/// `#<number> <title>` of every canned issue of vercel/ai in `state`.
fn issue_lines(host: &mut Host, client: &McpClient, state: &str) -> Vec<String> {
    let args = json!({"owner": "vercel", "repo": "ai", "state": state});
    let issues = ask_server(host, client, "list_issues", args);
    let issues = issues.as_array().expect("list_issues returns an array");
    issues
        .iter()
        .map(|i| format!("#{} {}", i["number"], i["title"].as_str().unwrap()))
        .collect()
}

/// Every `#n title` of `expected` is in `answer`, and none of `absent`.
fn assert_lists(answer: &str, expected: &[String], absent: &[String]) {
    assert!(!expected.is_empty(), "the mock has issues to list");
    for line in expected {
        assert!(
            answer.contains(line.as_str()),
            "{line:?} missing from:\n{answer}"
        );
    }
    for line in absent {
        assert!(
            !answer.contains(line.as_str()),
            "{line:?} wrongly in:\n{answer}"
        );
    }
}

const ISSUES_ZH: &[&str] = &[
    "step_start 1",
    r#"tool_start mock_call_1 mcp__github__list_issues {"owner":"vercel","repo":"ai"}"#,
    "tool_end mock_call_1 mcp__github__list_issues ok=true",
    "step_start 2",
    "model_text",
    "done steps=2",
];

#[test]
fn chinese_issue_listing_runs_end_to_end() {
    let (mut host, client, model) = github_host();
    let observer = Observer::default();
    let answer = host.run("查看 vercel/ai 的 issues", &observer).unwrap();
    assert_eq!(observer.take_log(), ISSUES_ZH);

    // The answer lists exactly the open issues (GitHub's default state), in Chinese.
    let open = issue_lines(&mut host, &client, "open");
    let closed = issue_lines(&mut host, &client, "closed");
    assert!(
        !closed.is_empty(),
        "the mock has closed issues to leave out"
    );
    assert_lists(&answer, &open, &closed);
    assert!(
        answer.contains(&format!("共 {} 个", open.len())),
        "{answer}"
    );

    // What the model saw: the server's tools under their namespace, then the server's own
    // output as the tool result.
    let requests = model.requests.borrow();
    assert_eq!(requests.len(), 2);
    let names: Vec<&str> = requests[0].tools.iter().map(|t| t.name.as_str()).collect();
    assert!(names.contains(&"mcp__github__list_issues"), "{names:?}");
    // Besides the server's tools, only the two resource tools (the mock offers resources).
    let others: Vec<&&str> = names
        .iter()
        .filter(|n| !n.starts_with("mcp__github__"))
        .collect();
    assert_eq!(others, [&"list_mcp_resources", &"read_mcp_resource"]);
    let direct = ask_server(
        &mut host,
        &client,
        "list_issues",
        json!({"owner": "vercel", "repo": "ai"}),
    );
    match requests[1].messages.last() {
        Some(ChatMessage::Tool {
            content, is_error, ..
        }) => {
            assert!(!is_error);
            assert_eq!(serde_json::from_str::<Value>(content).unwrap(), direct);
        }
        other => panic!("expected the tool result last, got {other:?}"),
    }

    // The final answer reaches the UI both as model text and in `done`.
    let events = observer.events.borrow();
    let done = events.last().unwrap().to_value();
    assert_eq!(done["answer"], answer);
    assert_eq!(events[events.len() - 2].to_value()["text"], answer);
    let audits = observer.audits.borrow();
    assert_eq!(audits.len(), 1);
    assert_eq!(audits[0].server.as_deref(), Some("github"));
    assert_eq!(audits[0].args_summary, r#"{"owner":"vercel","repo":"ai"}"#);
}

const ISSUES_EN: &[&str] = &[
    "step_start 1",
    r#"tool_start mock_call_1 mcp__github__list_issues {"owner":"vercel","repo":"ai","state":"open"}"#,
    "tool_end mock_call_1 mcp__github__list_issues ok=true",
    "step_start 2",
    "model_text",
    "done steps=2",
];

#[test]
fn english_open_issue_listing_runs_end_to_end() {
    let (mut host, client, _) = github_host();
    let observer = Observer::default();
    let answer = host
        .run("show the open issues in vercel/ai", &observer)
        .unwrap();
    assert_eq!(observer.take_log(), ISSUES_EN);
    assert_eq!(
        observer.audit_log(),
        ["mock_call_1 mcp__github__list_issues ok"]
    );
    let open = issue_lines(&mut host, &client, "open");
    let closed = issue_lines(&mut host, &client, "closed");
    assert_lists(&answer, &open, &closed);
    assert!(
        answer.starts_with(&format!("Issues in vercel/ai ({}):", open.len())),
        "{answer}"
    );
}

const README_ZH: &[&str] = &[
    "step_start 1",
    r#"tool_start mock_call_5 mcp__github__get_file_contents {"owner":"vercel","repo":"ai","path":"README.md"}"#,
    "tool_end mock_call_5 mcp__github__get_file_contents ok=true",
    "step_start 2",
    "model_text",
    "done steps=2",
];

#[test]
fn a_second_run_continues_the_conversation() {
    let (mut host, client, model) = github_host();
    let observer = Observer::default();
    host.run("查看 vercel/ai 的 issues", &observer).unwrap();
    observer.take_log();
    observer.take_audits();
    let first_run = host.history();
    assert_eq!(first_run.len(), 4, "user, tool call, tool result, answer");

    let answer = host.run("读取 vercel/ai 的 README.md", &observer).unwrap();
    assert_eq!(observer.take_log(), README_ZH);
    assert_eq!(
        observer.audit_log(),
        ["mock_call_5 mcp__github__get_file_contents ok"]
    );

    // The history grew by the second run, and the model saw the first run in its request.
    let history = host.history();
    assert_eq!(history.len(), 8);
    assert_eq!(history[..4], first_run[..]);
    assert_eq!(
        history[4],
        ChatMessage::User {
            content: "读取 vercel/ai 的 README.md".into()
        }
    );
    let requests = model.requests.borrow();
    assert_eq!(requests.len(), 4);
    assert_eq!(requests[2].messages[..4], first_run[..]);

    // The answer quotes the README the mock server serves.
    let file = ask_server(
        &mut host,
        &client,
        "get_file_contents",
        json!({"owner": "vercel", "repo": "ai", "path": "README.md"}),
    );
    let readme = file["content"].as_str().expect("the file's text");
    let lines: Vec<&str> = readme.lines().filter(|l| !l.trim().is_empty()).collect();
    assert!(lines.len() > 5, "the README has some substance");
    for line in lines {
        assert!(answer.contains(line), "{line:?} missing from:\n{answer}");
    }
}

const SEARCH_ZH: &[&str] = &[
    "step_start 1",
    r#"tool_start mock_call_1 mcp__github__search_repositories {"query":"mcp"}"#,
    "tool_end mock_call_1 mcp__github__search_repositories ok=true",
    "step_start 2",
    "model_text",
    "done steps=2",
];

#[test]
fn repository_search_runs_end_to_end() {
    let (mut host, client, _) = github_host();
    let observer = Observer::default();
    let answer = host.run("搜索 mcp 相关的仓库", &observer).unwrap();
    assert_eq!(observer.take_log(), SEARCH_ZH);
    assert_eq!(
        observer.audit_log(),
        ["mock_call_1 mcp__github__search_repositories ok"]
    );

    let found = ask_server(
        &mut host,
        &client,
        "search_repositories",
        json!({"query": "mcp"}),
    );
    let items = found["items"].as_array().expect("search items");
    assert!(!items.is_empty(), "the mock has repositories about mcp");
    for item in items {
        let name = item["full_name"].as_str().unwrap();
        assert!(answer.contains(name), "{name} missing from:\n{answer}");
    }
    let total = found["total_count"].as_u64().unwrap();
    assert!(answer.contains(&format!("找到 {total} 个")), "{answer}");
}

#[test]
fn a_prompt_nothing_fits_gets_the_capabilities_and_no_tool_call() {
    for (prompt, says_so, fits, absent) in [
        (
            "给我讲个笑话",
            "这条消息不在其中",
            ["查看 vercel/ai 的 issues", "搜索 mcp 相关的仓库"],
            "北京的天气",
        ),
        (
            "tell me a joke",
            "matches none of them",
            ["list issues in vercel/ai", "search repositories about mcp"],
            "weather in Paris",
        ),
    ] {
        let (mut host, _, model) = github_host();
        let observer = Observer::default();
        let answer = host.run(prompt, &observer).unwrap();
        assert_eq!(
            observer.take_log(),
            ["step_start 1", "model_text", "done steps=1"],
            "{prompt}"
        );
        assert!(answer.contains(says_so), "{answer}");
        for example in fits {
            assert!(
                answer.contains(example),
                "{example:?} missing from:\n{answer}"
            );
        }
        // Only what the connected tools can do is offered: there is no weather tool.
        assert!(!answer.contains(absent), "{answer}");
        assert!(observer.audits.borrow().is_empty());
        assert_eq!(model.requests.borrow().len(), 1);
        assert_eq!(host.history().len(), 2);
    }
}

/// A model that streams reasoning, then text, before answering.
struct Thinking;

impl ModelBackend for Thinking {
    fn complete<'a>(
        &'a self,
        _request: ModelRequest,
        on_stream: &'a dyn Fn(ModelStream<'_>),
    ) -> LocalBoxFuture<'a, Result<ModelResponse, String>> {
        Box::pin(async move {
            on_stream(ModelStream::Reasoning("The user says hi; "));
            on_stream(ModelStream::Reasoning("greet back."));
            on_stream(ModelStream::Text("Hello"));
            on_stream(ModelStream::Text("!"));
            Ok(ModelResponse {
                usage: None,
                text: Some("Hello!".into()),
                tool_calls: Vec::new(),
            })
        })
    }
}

#[test]
fn streamed_reasoning_and_text_reach_the_observer_and_only_the_text_is_kept() {
    let mut host = Host::with_policy(Policy::default(), Rc::new(Thinking));
    let observer = Observer::default();
    assert_eq!(host.run("hi", &observer).as_deref(), Ok("Hello!"));
    assert_eq!(
        *observer.streamed.borrow(),
        [
            "reasoning: The user says hi; ",
            "reasoning: greet back.",
            "text: Hello",
            "text: !"
        ]
    );
    // The reasoning is shown, never remembered: the history holds the answer alone.
    let history = host.history();
    assert!(
        matches!(history.last(), Some(ChatMessage::Assistant { content: Some(c), .. }) if c == "Hello!")
    );
    assert!(!format!("{history:?}").contains("greet back"));
}

#[test]
fn sampling_uses_the_model_of_the_moment() {
    let host = Host::with_policy(Policy::new(), Rc::new(MockModel::new()));
    let handler = host.runtime.sampling_handler();
    let params = json!({"maxTokens": 20,
        "messages": [{"role": "user", "content": {"type": "text", "text": "hello"}}]});
    let first =
        futures::executor::block_on(handler("sampling/createMessage", Some(params.clone())))
            .unwrap();
    assert_eq!(first["model"], "agentwire-mock");
    // A model set later serves servers connected before (their handler was made then).
    let scripted = support::host::ScriptedModel::new([ModelResponse::text("from the new model")]);
    host.runtime.set_model(scripted.clone());
    let second =
        futures::executor::block_on(handler("sampling/createMessage", Some(params))).unwrap();
    assert_eq!(second["content"]["text"], "from the new model");
    assert_eq!(scripted.requests.borrow().len(), 1);
    let other = futures::executor::block_on(handler("roots/list", None)).unwrap_err();
    assert_eq!(other.code, agentwire::jsonrpc::codes::METHOD_NOT_FOUND);
}
