//! Deferred tool loading through the whole runtime: a GitHub-like MCP server whose tools are
//! deferred (`tool_search: on`), scripted and mock models, the real gate, audit and events.
//! The prompt prefix stays byte-identical while tools are searched, loaded, called and
//! re-listed; `call_tool` is gated exactly like a direct call of its target.

mod support;

use agentwire::agent::{Agent, AgentConfig, Approval, UiEvent};
use agentwire::audit::Outcome;
use agentwire::driver::{MockGithubTransport, Transport};
use agentwire::model::{encode_request, ChatMessage, MockModel, OpenAiOptions};
use agentwire::policy::Policy;
use agentwire::registry::Registry;
use agentwire::tool_search::{definition_text, ToolSearchMode};
use futures::channel::mpsc;
use futures::executor::LocalPool;
use futures::task::LocalSpawnExt;
use futures::StreamExt;
use serde_json::{json, Value};
use std::cell::RefCell;
use std::rc::Rc;
use support::async_io::memory_pipe;
use support::host::{answer, calls, Host, Observer, RecordingModel, ScriptedModel};

fn tool(name: &str, description: &str, read_only: bool) -> Value {
    let mut tool = json!({
        "name": name,
        "description": description,
        "inputSchema": {
            "$schema": "http://json-schema.org/draft-07/schema#",
            "type": "object",
            "properties": {"repo": {"type": "string", "description": "owner/name"}},
        },
    });
    if read_only {
        tool["annotations"] = json!({"readOnlyHint": true});
    }
    tool
}

/// The tools before the first call: reads, and writes the default policy asks about.
fn first_list() -> Value {
    json!([
        tool("list_issues", "List issues of a repository", true),
        tool("get_issue", "Get one issue", true),
        tool("create_issue", "Open an issue", false),
        tool("merge_pull_request", "Merge a pull request", false),
        tool("delete_repo", "Delete a repository", false),
    ])
}

/// After the first call the server re-lists: `archive_repo` added, `delete_repo` gone.
fn second_list() -> Value {
    json!([
        tool("list_issues", "List issues of a repository", true),
        tool("get_issue", "Get one issue", true),
        tool("create_issue", "Open an issue", false),
        tool("merge_pull_request", "Merge a pull request", false),
        tool("archive_repo", "Archive a repository", false),
    ])
}

/// Serves `first_list`, answers every call with `<tool> ran`, and on the first call sends
/// `tools/list_changed` and lists `second_list` from then on. Returns the transport and the
/// names of the tools called.
fn catalog_server(pool: &LocalPool) -> (impl Transport, Rc<RefCell<Vec<String>>>) {
    let (transport, mut from_client, to_client) = memory_pipe();
    let called = Rc::new(RefCell::new(Vec::new()));
    let seen = Rc::clone(&called);
    let send = move |to: &mpsc::UnboundedSender<Vec<u8>>, v: Value| {
        let _ = to.unbounded_send(format!("{v}\n").into_bytes());
    };
    let serve = async move {
        let mut buffer = Vec::new();
        while let Some(chunk) = from_client.next().await {
            buffer.extend_from_slice(&chunk);
            while let Some(pos) = buffer.iter().position(|b| *b == b'\n') {
                let line: Vec<u8> = buffer.drain(..=pos).collect();
                let Ok(msg) = serde_json::from_slice::<Value>(&line) else {
                    continue;
                };
                let result = match msg["method"].as_str() {
                    Some("initialize") => json!({
                        "protocolVersion": "2025-11-25",
                        "capabilities": {"tools": {"listChanged": true}},
                        "serverInfo": {"name": "catalog", "version": "1.0"}
                    }),
                    Some("tools/list") if seen.borrow().is_empty() => {
                        json!({"tools": first_list()})
                    }
                    Some("tools/list") => json!({"tools": second_list()}),
                    Some("tools/call") => {
                        let name = msg["params"]["name"].as_str().unwrap_or("").to_owned();
                        if seen.borrow().is_empty() {
                            send(
                                &to_client,
                                json!({"jsonrpc": "2.0", "method": "notifications/tools/list_changed"}),
                            );
                        }
                        seen.borrow_mut().push(name.clone());
                        json!({"content": [{"type": "text", "text": format!("{name} ran")}]})
                    }
                    _ => continue,
                };
                send(
                    &to_client,
                    json!({"jsonrpc": "2.0", "id": msg["id"], "result": result}),
                );
            }
        }
    };
    pool.spawner().spawn_local(serve).unwrap();
    (transport, called)
}

fn deferring_config() -> AgentConfig {
    let mut config = AgentConfig::default();
    config.tool_search.mode = ToolSearchMode::On;
    config
}

/// A host whose `gh` server's tools are all deferred; returns the host and the calls the
/// server saw.
fn host(policy: Policy, model: Rc<ScriptedModel>) -> (Host, Rc<RefCell<Vec<String>>>) {
    let agent = Agent::new(Registry::new(), policy, deferring_config());
    let mut host = Host::new(agent, model);
    let (transport, called) = catalog_server(&host.pool);
    host.add_server("gh", transport);
    (host, called)
}

/// The request body's parts as bytes: `tools`, the system message, and the messages array
/// without its closing bracket (so an append-only history makes each a prefix of the next).
fn parts(body: &Value) -> (String, String, String) {
    let messages = body["messages"].to_string();
    (
        body["tools"].to_string(),
        body["messages"][0].to_string(),
        messages[..messages.len() - 1].to_owned(),
    )
}

#[test]
fn the_prompt_prefix_is_byte_stable_through_searches_calls_and_a_list_change() {
    let model = ScriptedModel::new([
        calls(&[("s1", "tool_search", json!({"query": "list_issues"}))]),
        calls(&[(
            "c1",
            "call_tool",
            json!({"name": "mcp__gh__list_issues", "arguments": {"repo": "vercel/ai"}}),
        )]),
        calls(&[(
            "s2",
            "tool_search",
            json!({"query": "select:archive_repo,create_issue"}),
        )]),
        calls(&[(
            "c2",
            "call_tool",
            json!({"name": "archive_repo", "arguments": "{\"repo\": \"vercel/ai\"}"}),
        )]),
        answer("archived"),
    ]);
    let observer = Observer::answering([Approval::Yes]);
    let (mut host, called) = host(Policy::new(), model.clone());
    assert_eq!(
        host.run("tidy up vercel/ai", &observer).unwrap(),
        "archived"
    );
    assert_eq!(*called.borrow(), ["list_issues", "archive_repo"]);

    let options = OpenAiOptions::new("m");
    let requests = model.requests.borrow();
    assert_eq!(requests.len(), 5);
    let bodies: Vec<Value> = requests
        .iter()
        .map(|r| encode_request(r, &options))
        .collect();
    let first = parts(&bodies[0]);
    let names: Vec<&str> = bodies[0]["tools"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["function"]["name"].as_str().unwrap())
        .collect();
    assert_eq!(
        names,
        ["tool_search", "call_tool"],
        "every gh tool deferred"
    );
    let index = bodies[0]["tools"][0]["function"]["description"]
        .as_str()
        .unwrap();
    assert!(
        index.ends_with(
            "\ngh: list_issues, get_issue, create_issue, merge_pull_request, delete_repo"
        ),
        "{index}"
    );
    for (n, pair) in bodies.windows(2).enumerate() {
        let (a, b) = (parts(&pair[0]), parts(&pair[1]));
        assert_eq!(a.0, b.0, "tools bytes of request {} and {}", n + 1, n + 2);
        assert_eq!(a.1, b.1, "system of request {} and {}", n + 1, n + 2);
        assert!(
            b.2.starts_with(&a.2),
            "messages of request {} are not a prefix of request {}'s",
            n + 1,
            n + 2
        );
        assert_eq!(first.0, b.0);
    }

    // The search answers with the definitions exactly as `tools` would carry them.
    let results = model.tool_results(1);
    let live = host.runtime.with_agent(|a| {
        let get = |n: &str| definition_text(&a.registry().get(n).unwrap().definition());
        (get("mcp__gh__archive_repo"), get("mcp__gh__create_issue"))
    });
    let first_result = &results[0].1;
    let first_lines: Vec<&str> = first_result.lines().collect();
    assert_eq!(
        first_lines[0],
        format!(
            "{} tool definitions found; call them with call_tool:",
            first_lines.len() - 1
        )
    );
    assert!(first_lines[1].starts_with(r#"{"type":"function","function":{"name":"mcp__gh__list_issues","description":"List issues of a repository","parameters":{"type":"object","properties""#),
        "the exact name first, slim (no prefix, no $schema): {first_result}");
    let second = model.tool_results(3);
    let lines: Vec<&str> = second[0].1.lines().collect();
    assert_eq!(
        lines[1..3],
        [live.0.as_str(), live.1.as_str()],
        "select: order"
    );
    // The re-listing reached the model as a notice on the newest message, not in `tools`.
    assert!(
        second[0]
            .1
            .ends_with("\n\n[catalog: + mcp__gh__archive_repo; \u{2212} mcp__gh__delete_repo]"),
        "{}",
        second[0].1
    );
    // Events and audit name the target, never `call_tool`.
    let starts: Vec<String> = observer
        .events
        .borrow()
        .iter()
        .filter_map(|e| match e {
            UiEvent::ToolStart { name, .. } => Some(name.clone()),
            // A free query's best hit; a `select:` query's whole answer.
            UiEvent::ToolSearch { query, results } if query.starts_with("select:") => {
                Some(format!("{query} -> {results:?}"))
            }
            UiEvent::ToolSearch { query, results } => {
                Some(format!("{query} -> {:?}", &results[..1]))
            }
            _ => None,
        })
        .collect();
    assert_eq!(
        starts,
        [
            "tool_search",
            r#"list_issues -> ["mcp__gh__list_issues"]"#,
            "mcp__gh__list_issues",
            "tool_search",
            r#"select:archive_repo,create_issue -> ["mcp__gh__archive_repo", "mcp__gh__create_issue"]"#,
            "mcp__gh__archive_repo",
        ]
    );
    let asked: Vec<String> = observer
        .asked
        .borrow()
        .iter()
        .map(|r| r.name.clone())
        .collect();
    assert_eq!(
        asked,
        ["mcp__gh__archive_repo"],
        "the write asks, as its target"
    );
    assert_eq!(
        observer.audit_log(),
        [
            "s1 tool_search ok",
            "c1 mcp__gh__list_issues ok",
            "s2 tool_search ok",
            "c2 mcp__gh__archive_repo ok",
        ]
    );
    // History keeps what the model said: `call_tool`.
    let history = host.history();
    assert!(matches!(&history[4], ChatMessage::Tool { name, .. } if name == "call_tool"));
}

/// `(call id, content, is_error)` of the tool results the model saw in request `index`.
fn results(model: &ScriptedModel, index: usize) -> Vec<(String, String, bool)> {
    model.tool_results(index)
}

fn search_then_call(name: &str) -> Vec<agentwire::model::ModelResponse> {
    vec![
        calls(&[(
            "s",
            "tool_search",
            json!({"query": format!("select:{name}")}),
        )]),
        calls(&[(
            "c",
            "call_tool",
            json!({"name": name, "arguments": {"repo": "a/b"}}),
        )]),
        answer("done"),
    ]
}

#[test]
fn a_deny_pattern_denies_the_target_through_call_tool() {
    let model = ScriptedModel::new(search_then_call("merge_pull_request"));
    let policy = Policy::from_lists(&[], &[], &["mcp__gh__merge_*".to_owned()]).unwrap();
    let observer = Observer::default();
    let (mut host, called) = host(policy, model.clone());
    host.run("merge it", &observer).unwrap();
    assert!(called.borrow().is_empty(), "never reached the server");
    let (_, content, is_error) = &results(&model, 2)[0];
    assert!(is_error);
    assert!(
        content.contains("`deny mcp__gh__merge_*` does not allow mcp__gh__merge_pull_request"),
        "{content}"
    );
    let audits = observer.take_audits();
    let last = audits.last().unwrap();
    assert_eq!(last.tool, "mcp__gh__merge_pull_request");
    assert_eq!(last.server.as_deref(), Some("gh"));
    assert_eq!(last.outcome, Outcome::Denied);
    assert!(last.args_summary.contains("a/b"), "the target's arguments");
}

#[test]
fn ask_and_always_apply_to_the_target() {
    let model = ScriptedModel::new([
        calls(&[("s", "tool_search", json!({"query": "select:create_issue"}))]),
        calls(&[(
            "c1",
            "call_tool",
            json!({"name": "create_issue", "arguments": {"repo": "a/b"}}),
        )]),
        calls(&[(
            "c2",
            "call_tool",
            json!({"name": "mcp__gh__create_issue", "arguments": {"repo": "c/d"}}),
        )]),
        // Native call of a loaded deferred tool: the same gate, the same target.
        calls(&[("c3", "mcp__gh__create_issue", json!({"repo": "e/f"}))]),
        answer("done"),
    ]);
    let observer = Observer::answering([Approval::Always]);
    let (mut host, called) = host(Policy::new(), model.clone());
    host.run("open issues", &observer).unwrap();
    let asked: Vec<(String, Value)> = observer
        .asked
        .borrow()
        .iter()
        .map(|r| (r.name.clone(), r.arguments.clone()))
        .collect();
    assert_eq!(
        asked,
        [("mcp__gh__create_issue".to_owned(), json!({"repo": "a/b"}))],
        "asked once, about the target and its own arguments; `always` covers the rest"
    );
    assert_eq!(
        *called.borrow(),
        ["create_issue", "create_issue", "create_issue"]
    );
}

#[test]
fn declining_the_target_is_reported_under_its_name() {
    let model = ScriptedModel::new(search_then_call("create_issue"));
    let observer = Observer::answering([Approval::No]);
    let (mut host, called) = host(Policy::new(), model.clone());
    host.run("open an issue", &observer).unwrap();
    assert!(called.borrow().is_empty());
    let (_, content, _) = &results(&model, 2)[0];
    assert!(
        content.contains("declined this call of mcp__gh__create_issue"),
        "{content}"
    );
    assert_eq!(
        observer.audit_log().last().unwrap(),
        "c mcp__gh__create_issue denied"
    );
}

#[test]
fn a_call_before_the_definition_was_returned_gets_the_definition_not_an_execution() {
    let model = ScriptedModel::new([
        // Called blind, then in the same batch as the search that returns it: neither runs.
        calls(&[(
            "c1",
            "call_tool",
            json!({"name": "list_issues", "arguments": {}}),
        )]),
        calls(&[
            ("s", "tool_search", json!({"query": "select:get_issue"})),
            (
                "c2",
                "call_tool",
                json!({"name": "get_issue", "arguments": {"repo": "a/b"}}),
            ),
        ]),
        // Now both are loaded (c1's answer carried list_issues' definition): both run.
        calls(&[
            (
                "c3",
                "call_tool",
                json!({"name": "list_issues", "arguments": {"repo": "a/b"}}),
            ),
            (
                "c4",
                "call_tool",
                json!({"name": "get_issue", "arguments": {"repo": "a/b"}}),
            ),
        ]),
        answer("done"),
    ]);
    let observer = Observer::default();
    let (mut host, called) = host(Policy::new(), model.clone());
    host.run("look", &observer).unwrap();
    let list_def = host.runtime.with_agent(|a| {
        definition_text(
            &a.registry()
                .get("mcp__gh__list_issues")
                .unwrap()
                .definition(),
        )
    });
    let first = &results(&model, 1)[0];
    assert!(first.2, "an error result");
    assert!(first
        .1
        .starts_with("not run: mcp__gh__list_issues was called before its definition was loaded"));
    assert!(first.1.ends_with(&list_def), "{}", first.1);
    let second = results(&model, 2);
    assert!(!second[0].2, "the search found it");
    assert!(
        second[1].1.starts_with("not run: mcp__gh__get_issue"),
        "{}",
        second[1].1
    );
    assert_eq!(
        *called.borrow(),
        ["list_issues", "get_issue"],
        "only c3 and c4 ran"
    );
    let log = observer.audit_log();
    assert_eq!(
        log,
        [
            "c1 mcp__gh__list_issues error",
            "s tool_search ok",
            "c2 mcp__gh__get_issue error",
            "c3 mcp__gh__list_issues ok",
            "c4 mcp__gh__get_issue ok",
        ]
    );
}

#[test]
fn unknown_and_malformed_bridge_calls_are_answered_with_what_is_wrong() {
    let model = ScriptedModel::new([
        calls(&[
            (
                "u",
                "call_tool",
                json!({"name": "merge_pull", "arguments": {}}),
            ),
            ("n", "call_tool", json!({"arguments": {}})),
            (
                "j",
                "call_tool",
                json!({"name": "get_issue", "arguments": "{oops"}),
            ),
            ("q", "tool_search", json!({"query": ""})),
            ("z", "tool_search", json!({"query": "qqqq"})),
        ]),
        answer("done"),
    ]);
    let (mut host, called) = host(Policy::new(), model.clone());
    host.run("try", &Observer::default()).unwrap();
    assert!(called.borrow().is_empty());
    let r = results(&model, 1);
    assert!(
        r[0].1
            .contains("unknown tool \"merge_pull\"; close names: mcp__gh__merge_pull_request"),
        "{}",
        r[0].1
    );
    assert!(
        r[1].1.contains("call_tool needs a string \"name\""),
        "{}",
        r[1].1
    );
    assert!(
        r[2].1
            .contains("\"arguments\" for \"get_issue\" are not valid JSON"),
        "{}",
        r[2].1
    );
    assert!(
        r[3].1
            .contains("tool_search needs a non-empty string \"query\""),
        "{}",
        r[3].1
    );
    assert_eq!(
        r[4].1,
        "no tool matches \"qqqq\". Servers with tools to search: gh. Try other words, or \
         select:NAME with a name from tool_search's description."
    );
    assert!(!r[4].2, "no match is an answer, not an error");
    assert!(r[..4].iter().all(|x| x.2), "the others are errors");
}

#[test]
fn repeated_bridge_calls_count_as_calls_of_the_target() {
    let call = |id: &str, name: &str| {
        calls(&[(
            id,
            "call_tool",
            json!({"name": name, "arguments": {"repo": "a/b"}}),
        )])
    };
    let model = ScriptedModel::new([
        calls(&[("s", "tool_search", json!({"query": "select:list_issues"}))]),
        call("c1", "list_issues"),
        call("c2", "mcp__gh__list_issues"),
        calls(&[("c3", "mcp__gh__list_issues", json!({"repo": "a/b"}))]),
        answer("unreachable"),
    ]);
    let (mut host, called) = host(Policy::new(), model.clone());
    let error = host.run("loop", &Observer::default()).unwrap_err();
    assert!(
        error
            .0
            .contains("called mcp__gh__list_issues with the same arguments 3 times"),
        "{error}"
    );
    assert_eq!(called.borrow().len(), 2);
}

/// T5: the offline demo follows the bridge in exactly three model steps.
#[test]
fn the_mock_model_searches_calls_and_answers_in_three_steps_when_its_tool_is_deferred() {
    let model = RecordingModel::new(MockModel::new());
    let agent = Agent::new(Registry::new(), Policy::new(), deferring_config());
    let mut host = Host::new(agent, model.clone());
    host.add_server("github", MockGithubTransport::default());
    let observer = Observer::default();
    let answer = host.run("查看 vercel/ai 的 issues", &observer).unwrap();
    assert!(answer.contains("vercel/ai"), "{answer}");
    assert!(answer.contains("#"), "lists issues: {answer}");
    let log = observer.take_log();
    assert_eq!(
        log,
        [
            "step_start 1",
            r#"tool_start mock_call_1 tool_search {"query":"select:mcp__github__list_issues"}"#,
            "tool_search",
            "tool_end mock_call_1 tool_search ok=true",
            "step_start 2",
            r#"tool_start mock_call_3 mcp__github__list_issues {"owner":"vercel","repo":"ai"}"#,
            "tool_end mock_call_3 mcp__github__list_issues ok=true",
            "step_start 3",
            "model_text",
            "done steps=3",
        ]
    );
    let requests = model.requests.borrow();
    let tools: Vec<&str> = requests[0].tools.iter().map(|t| t.name.as_str()).collect();
    // Built-in tools are never deferred: the two resource tools (the mock offers resources)
    // stay beside the bridge.
    assert_eq!(
        tools,
        [
            "list_mcp_resources",
            "read_mcp_resource",
            "tool_search",
            "call_tool"
        ]
    );
}

#[test]
fn a_host_searcher_ranks_the_catalog_and_its_answer_is_fused_with_the_index() {
    let model = ScriptedModel::new([
        calls(&[(
            "s",
            "tool_search",
            json!({"query": "delete things", "limit": 2}),
        )]),
        answer("done"),
    ]);
    let (mut host, _) = host(Policy::new(), model.clone());
    // What the searcher was asked: (query, catalog names, limit).
    type Asked = Vec<(String, Vec<String>, usize)>;
    let asked: Rc<RefCell<Asked>> = Rc::default();
    let seen = Rc::clone(&asked);
    host.runtime
        .set_tool_searcher(Some(Rc::new(move |query, catalog, limit| {
            let names = catalog.iter().map(|t| t.name.clone()).collect();
            seen.borrow_mut().push((query, names, limit));
            Box::pin(async { Ok(vec!["mcp__gh__delete_repo".to_owned(), "nope".to_owned()]) })
        })));
    let observer = Observer::default();
    host.run("clean up", &observer).unwrap();
    let asked = asked.borrow();
    assert_eq!(asked.len(), 1);
    assert_eq!(asked[0].0, "delete things");
    assert_eq!(asked[0].1.len(), 5, "the whole deferred catalog");
    assert_eq!(asked[0].2, 2, "the limit the model asked for");
    let found = observer.events.borrow().iter().find_map(|e| match e {
        UiEvent::ToolSearch { results, .. } => Some(results.clone()),
        _ => None,
    });
    assert_eq!(found.unwrap(), ["mcp__gh__delete_repo"]);
    let (_, content, _) = &model.tool_results(1)[0];
    assert!(
        content.contains(r#""name":"mcp__gh__delete_repo""#),
        "{content}"
    );
}

#[test]
fn a_new_conversation_partitions_and_renders_the_index_afresh() {
    let model = ScriptedModel::new([answer("one"), answer("two")]);
    let (mut host, _) = host(Policy::new(), model.clone());
    host.run("first", &Observer::default()).unwrap();
    host.runtime.with_agent(|a| {
        a.config_mut().tool_search.mode = ToolSearchMode::Off;
        // The conversation keeps its partition until it is cleared.
        assert!(a.tool_session().unwrap().is_bridged());
        a.clear_history().unwrap();
    });
    host.run("second", &Observer::default()).unwrap();
    let requests = model.requests.borrow();
    assert_eq!(requests[0].tools.len(), 2, "tool_search and call_tool");
    assert_eq!(requests[1].tools.len(), 5, "all five gh tools, direct");
}

#[test]
fn direct_tools_of_a_bridged_session_run_as_themselves_whatever_their_arguments() {
    // get_issue stays direct (alwaysLoad); an argument called "name" is not a bridge call.
    let model = ScriptedModel::new([
        calls(&[(
            "d",
            "mcp__gh__get_issue",
            json!({"name": "list_issues", "arguments": {}}),
        )]),
        answer("done"),
    ]);
    let mut config = deferring_config();
    config.tool_search.always_load = vec!["mcp__gh__get_issue".to_owned()];
    let agent = Agent::new(Registry::new(), Policy::new(), config);
    let mut host = Host::new(agent, model.clone());
    let (transport, called) = catalog_server(&host.pool);
    host.add_server("gh", transport);
    let observer = Observer::default();
    host.run("get it", &observer).unwrap();
    let tools: Vec<String> = model.requests.borrow()[0]
        .tools
        .iter()
        .map(|t| t.name.clone())
        .collect();
    assert_eq!(tools, ["mcp__gh__get_issue", "tool_search", "call_tool"]);
    assert_eq!(*called.borrow(), ["get_issue"], "ran at once, as itself");
    assert_eq!(observer.audit_log(), ["d mcp__gh__get_issue ok"]);
}
