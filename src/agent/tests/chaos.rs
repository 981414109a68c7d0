//! A chaotic model, tools and user: random tool calls (unknown names, odd or duplicate ids,
//! arguments of every JSON type, huge values), model failures, tool results in any order (some
//! for calls that do not exist, some twice), random approvals, and cancellations at any point,
//! over several runs of one conversation. The loop must never panic, end every run with exactly
//! one terminal event, and only ever show the model a history it can accept: every tool call
//! answered by exactly one tool message, after it.

use super::*;
use crate::test_rng::Rng;
use crate::tool_search::{Reveal, ToolSearchMode};
use std::collections::HashMap;

const SESSIONS: u64 = 300;
const RUNS_PER_SESSION: usize = 3;
/// Far more than any run needs: the step limit and the repeat guard end runs long before.
const MAX_ITERATIONS: usize = 400;

/// Checks the invariant the model APIs enforce: each assistant tool call id appears once, and
/// exactly one tool message answers it, after it. Returns what is wrong.
fn check_history(messages: &[ChatMessage]) -> Result<(), String> {
    let mut asked: HashMap<&str, usize> = HashMap::new();
    let mut answered: HashMap<&str, usize> = HashMap::new();
    for (at, message) in messages.iter().enumerate() {
        match message {
            ChatMessage::Assistant { tool_calls, .. } => {
                for call in tool_calls {
                    if asked.insert(&call.id, at).is_some() {
                        return Err(format!("call id {:?} used twice", call.id));
                    }
                }
            }
            ChatMessage::Tool { tool_call_id, .. } => {
                if !asked.contains_key(tool_call_id.as_str()) {
                    return Err(format!(
                        "a tool message answers {tool_call_id:?}, never asked"
                    ));
                }
                *answered.entry(tool_call_id).or_insert(0) += 1;
            }
            ChatMessage::User { .. } => {}
        }
    }
    for id in asked.keys() {
        match answered.get(id) {
            Some(1) => {}
            Some(n) => return Err(format!("call {id:?} answered {n} times")),
            None => return Err(format!("call {id:?} never answered")),
        }
    }
    Ok(())
}

/// Arguments of every shape a model might produce, bridge calls included.
fn arguments(rng: &mut Rng) -> Value {
    let pick = rng.below(11);
    arguments_from(rng, pick)
}

/// Arguments of kind `pick` (0–10; 7 and 8 are searches, 9 and 10 `call_tool`s).
fn arguments_from(rng: &mut Rng, pick: usize) -> Value {
    match pick {
        7 => json!({"query": *rng.pick(&["issue", "select:get_issue,list_issues", "", "zzz"])}),
        8 => json!({"query": "select:mcp__gh__create_issue", "limit": rng.below(4)}),
        9 => json!({"name": *rng.pick(&[GET, "list_issues", "delete_repo", "nope", "shell"]),
                    "arguments": *rng.pick(&[json!({}), json!("{\"n\": 1}"), json!("{bad"), json!([1])])}),
        10 => json!({"name": 42}),
        0 => json!({}),
        1 => json!({"owner": "vercel", "repo": "ai", "n": rng.below(5)}),
        2 => json!([1, 2, 3]),
        3 => json!("a string"),
        4 => Value::Null,
        5 => json!({"text": "x".repeat(rng.below(20_000))}),
        _ => json!({"deep": {"deeper": {"deepest": [null, true, 1.5, {"k": "v"}]}}}),
    }
}

/// What the model says: a failure, an answer, or tool calls.
fn model_reply(rng: &mut Rng) -> Result<ModelResponse, String> {
    match rng.below(10) {
        0 => Err("the model endpoint returned HTTP 500".into()),
        1 | 2 => Ok(ModelResponse::text(if rng.below(2) == 0 {
            "done"
        } else {
            ""
        })),
        _ => {
            let names = [
                GET,
                LIST,
                CREATE,
                DELETE,
                "shell",
                "nope",
                "",
                "mcp__gone__tool",
                "tool_search",
                "call_tool",
                "call_tool",
            ];
            let ids = ["call_1", "call_1", "", "call_2", "x"];
            let calls = (0..1 + rng.below(4))
                .map(|_| {
                    let name = *rng.pick(&names);
                    // Bridge calls mostly get bridge-shaped arguments, sometimes anything.
                    let arguments = match (name, rng.below(4)) {
                        ("tool_search", 0..=2) => {
                            let pick = 7 + rng.below(2);
                            arguments_from(rng, pick)
                        }
                        ("call_tool", 0..=2) => arguments_from(rng, 9),
                        _ => arguments(rng),
                    };
                    ToolCall {
                        id: (*rng.pick(&ids)).to_owned(),
                        name: name.to_owned(),
                        arguments,
                    }
                })
                .collect();
            Ok(ModelResponse {
                usage: None,
                text: (rng.below(3) == 0).then(|| "let me look".to_owned()),
                tool_calls: calls,
            })
        }
    }
}

/// A tool's result: text of any size, or a failure.
fn tool_result(rng: &mut Rng) -> Result<ToolOutput, ToolFailure> {
    match rng.below(6) {
        0 => Err(ToolFailure::Error("server gone".into())),
        1 => Err(ToolFailure::Timeout),
        2 => Err(ToolFailure::Cancelled),
        3 => Ok(ToolOutput::text("y".repeat(rng.below(100_000)))),
        _ => Ok(ToolOutput::text("ok")),
    }
}

#[test]
fn a_chaotic_model_tools_and_user_never_break_the_loop_or_its_history() {
    // What the bridge did over all sessions, to show the chaos reached it.
    let (mut searches, mut bridged_runs) = (0, 0);
    for session in 0..SESSIONS {
        let mut rng = Rng(0x000a_9e47 + session * 104_729);
        let mut config = AgentConfig {
            max_steps: 1 + rng.below(6) as u32,
            output_budget_chars: *rng.pick(&[1_000, 50_000, 1_000_000]),
            ..AgentConfig::default()
        };
        // Most sessions defer the MCP tools behind the bridge, some with the host searching.
        let bridged = rng.below(4) != 0;
        if bridged {
            config.tool_search.mode = ToolSearchMode::On;
            config.tool_search.reveal = *rng.pick(&[Reveal::Bridge, Reveal::Append]);
        }
        let host_search = bridged && rng.below(2) == 0;
        let mut agent = Agent::new(registry(), Policy::new(), config);
        agent.set_host_search(host_search);
        let mut searching: Vec<String> = Vec::new();
        let mut frozen_tools: Option<Vec<crate::model::ToolDefinition>> = None;
        let mut now = 1_000;
        for run in 0..RUNS_PER_SESSION {
            agent
                .start_run(Instant::from_millis(now), "look at vercel/ai")
                .unwrap();
            let mut running: Vec<String> = Vec::new();
            searching.clear();
            let mut terminal = 0;
            for _ in 0..MAX_ITERATIONS {
                now += rng.below(2_000) as u64;
                let at = Instant::from_millis(now);
                while let Some(event) = agent.poll_event() {
                    terminal += event.is_terminal() as usize;
                    searches += matches!(event, UiEvent::ToolSearch { .. }) as usize;
                }
                while agent.poll_audit().is_some() {}
                if !agent.is_running() {
                    break;
                }
                if rng.below(40) == 0 {
                    agent.cancel_run(at).unwrap();
                    continue;
                }
                match agent.poll_action() {
                    Some(Action::CallModel(request)) => {
                        check_history(&request.messages)
                            .unwrap_or_else(|e| panic!("session {session} run {run}: {e}"));
                        // A bridged session's `tools` never change (reveal: bridge).
                        if agent.tool_session().is_some_and(|s| s.is_bridged())
                            && agent.config().tool_search.reveal == Reveal::Bridge
                        {
                            let first = frozen_tools.get_or_insert_with(|| request.tools.clone());
                            assert_eq!(*first, request.tools, "session {session}: tools changed");
                        }
                        agent
                            .handle_model_response(at, model_reply(&mut rng))
                            .unwrap();
                    }
                    Some(Action::CallTools(invocations)) => {
                        let call_ids: VecSet<&str> = last_bridge_calls(&agent);
                        bridged_runs += invocations
                            .iter()
                            .filter(|i| call_ids.contains(i.call_id.as_str()))
                            .count();
                        running.extend(invocations.into_iter().map(|i| i.call_id));
                    }
                    Some(Action::SearchTools(request)) => {
                        assert!(host_search, "only a host searcher is asked");
                        searching.push(request.call_id);
                    }
                    Some(Action::RunHooks(request)) => {
                        panic!("no hooks are configured, yet {request:?}")
                    }
                    Some(Action::RequestApproval(request)) => {
                        let answer = *rng.pick(&[Approval::Yes, Approval::No, Approval::Always]);
                        let id = if rng.below(10) == 0 {
                            "wrong"
                        } else {
                            &request.call_id
                        };
                        if agent.handle_approval(at, id, answer).is_err() {
                            // A wrong id changes nothing; the real answer follows.
                            agent.handle_approval(at, &request.call_id, answer).unwrap();
                        }
                    }
                    None if !searching.is_empty() && (running.is_empty() || rng.below(2) == 0) => {
                        let id = searching.swap_remove(rng.below(searching.len()));
                        let ranking = match rng.below(3) {
                            0 => Err("searcher failed".to_owned()),
                            1 => Ok(vec![LIST.to_owned(), "not_a_tool".to_owned()]),
                            _ => Ok(Vec::new()),
                        };
                        agent.handle_search_result(at, &id, ranking).unwrap();
                        assert!(agent.handle_search_result(at, &id, Ok(Vec::new())).is_err());
                    }
                    None if !running.is_empty() => {
                        let id = running.swap_remove(rng.below(running.len()));
                        let result = tool_result(&mut rng);
                        agent.handle_tool_result(at, &id, result).unwrap();
                        // A late or duplicate result is refused, and changes nothing.
                        if rng.below(5) == 0 {
                            assert!(agent
                                .handle_tool_result(at, &id, tool_result(&mut rng))
                                .is_err());
                        }
                    }
                    None => panic!("session {session} run {run}: running, with nothing to do"),
                }
            }
            while let Some(event) = agent.poll_event() {
                terminal += event.is_terminal() as usize;
            }
            assert!(
                !agent.is_running(),
                "session {session} run {run} did not end"
            );
            assert_eq!(
                terminal, 1,
                "session {session} run {run}: one terminal event"
            );
            check_history(agent.history())
                .unwrap_or_else(|e| panic!("session {session} run {run}, history: {e}"));
        }
    }
    assert!(searches > 100, "only {searches} searches");
    assert!(
        bridged_runs > 20,
        "only {bridged_runs} tools run through call_tool"
    );
}

/// Ids of the `call_tool` calls of the model's last turn.
fn last_bridge_calls(agent: &Agent) -> VecSet<&str> {
    let mut ids = VecSet::new();
    if let Some(ChatMessage::Assistant { tool_calls, .. }) = agent.history().last() {
        for call in tool_calls.iter().filter(|c| c.name == "call_tool") {
            ids.insert(call.id.as_str());
        }
    }
    ids
}
