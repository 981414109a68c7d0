//! The loop's main paths, output by output.

use super::*;

#[test]
fn plain_answer() {
    let mut h = Harness::default().script([answer("Hello!")]);
    let log = h.run("hi");
    assert_eq!(log, ["step 1", "model", "text: Hello!", "done 1: Hello!"]);
    assert!(!h.agent.is_running());
    let request = &h.requests[0];
    assert_eq!(request.system, DEFAULT_SYSTEM_PROMPT);
    assert_eq!(
        request.messages,
        [ChatMessage::User {
            content: "hi".into()
        }]
    );
    let names: Vec<_> = request.tools.iter().map(|t| t.name.as_str()).collect();
    assert_eq!(names, ["shell", GET, LIST, CREATE, DELETE]);
    assert_eq!(h.agent.history().len(), 2);
}

#[test]
fn one_tool_call_then_answer() {
    let mut h = Harness::default().script([
        reply(None, &[("c1", GET, json!({"n": 1}))]),
        answer("Issue 1 is open"),
    ]);
    let log = h.run("status of issue 1?");
    assert_eq!(
        log,
        [
            "step 1",
            "model",
            "start c1 mcp__gh__get_issue",
            "tools c1",
            "end c1 ok",
            "step 2",
            "audit c1 ok",
            "model",
            "text: Issue 1 is open",
            "done 2: Issue 1 is open",
        ]
    );
    assert_eq!(
        h.last_tool_results(),
        [("c1".into(), format!("result of {GET}"), false)]
    );
    let record = &h.audit[0];
    assert_eq!(record.server.as_deref(), Some("gh"));
    assert_eq!(record.args_summary, r#"{"n":1}"#);
    assert_eq!(record.duration.as_millis(), 5);
    assert_eq!(record.output_chars, format!("result of {GET}").len());
    assert_history_consistent(h.agent.history());
}

#[test]
fn read_only_calls_are_batched_and_writes_go_one_by_one() {
    let mut policy = Policy::new();
    policy.allow(CREATE).unwrap();
    let mut h = Harness::new(policy, AgentConfig::default()).script([
        reply(
            Some("Looking."),
            &[
                ("c1", GET, json!({"n": 1})),
                ("c2", LIST, json!({})),
                ("c3", CREATE, json!({"title": "a"})),
                ("c4", CREATE, json!({"title": "b"})),
                ("c5", GET, json!({"n": 2})),
            ],
        ),
        answer("Done."),
    ]);
    h.reverse_batches = true;
    let log = h.run("tidy up");
    assert_eq!(
        log,
        [
            "step 1",
            "model",
            "text: Looking.",
            "start c1 mcp__gh__get_issue",
            "start c2 mcp__gh__list_issues",
            "tools c1,c2",
            "end c2 ok",
            "end c1 ok",
            "start c3 mcp__gh__create_issue",
            "audit c2 ok",
            "audit c1 ok",
            "tools c3",
            "end c3 ok",
            "start c4 mcp__gh__create_issue",
            "audit c3 ok",
            "tools c4",
            "end c4 ok",
            "start c5 mcp__gh__get_issue",
            "audit c4 ok",
            "tools c5",
            "end c5 ok",
            "step 2",
            "audit c5 ok",
            "model",
            "text: Done.",
            "done 2: Done.",
        ]
    );
    // Results reach the model in call order even though c2 finished before c1.
    let ids: Vec<_> = h.last_tool_results().into_iter().map(|r| r.0).collect();
    assert_eq!(ids, ["c1", "c2", "c3", "c4", "c5"]);
    assert_history_consistent(h.agent.history());
}

#[test]
fn refused_calls_do_not_break_a_batch() {
    let mut policy = Policy::new();
    policy.deny("mcp__gh__delete_*").unwrap();
    let mut h = Harness::new(policy, AgentConfig::default()).script([
        reply(
            None,
            &[
                ("c1", GET, json!({})),
                ("c2", DELETE, json!({})),
                ("c3", LIST, json!({})),
            ],
        ),
        answer("ok"),
    ]);
    let log = h.run("go");
    assert_eq!(
        log[2..8],
        [
            "start c1 mcp__gh__get_issue",
            "start c2 mcp__gh__delete_repo",
            "end c2 err",
            "start c3 mcp__gh__list_issues",
            "audit c2 denied",
            "tools c1,c3",
        ]
    );
}

#[test]
fn deny_rule_tells_the_model_and_audits_denied() {
    let mut policy = Policy::new();
    policy.deny("mcp__gh__delete_*").unwrap();
    let mut h = Harness::new(policy, AgentConfig::default()).script([
        reply(None, &[("c1", DELETE, json!({"repo": "x"}))]),
        answer("I may not delete it."),
    ]);
    let log = h.run("delete repo x");
    assert_eq!(
        log,
        [
            "step 1",
            "model",
            "start c1 mcp__gh__delete_repo",
            "end c1 err",
            "step 2",
            "audit c1 denied",
            "model",
            "text: I may not delete it.",
            "done 2: I may not delete it.",
        ]
    );
    let (_, content, is_error) = &h.last_tool_results()[0];
    assert!(is_error);
    assert_eq!(
        content,
        "denied: the permission rule `deny mcp__gh__delete_*` does not allow \
         mcp__gh__delete_repo; do not retry it"
    );
    assert!(h.audit[0]
        .error
        .as_deref()
        .unwrap()
        .contains("deny mcp__gh__delete_*"));
}

#[test]
fn ask_then_yes_runs_the_call() {
    let mut h = Harness::default()
        .script([
            reply(None, &[("c1", CREATE, json!({"title": "t"}))]),
            answer("Created."),
        ])
        .approvals(&[Approval::Yes]);
    let log = h.run("file a bug");
    assert_eq!(
        log,
        [
            "step 1",
            "model",
            "start c1 mcp__gh__create_issue",
            "approve? c1 write",
            "ask c1",
            "tools c1",
            "end c1 ok",
            "step 2",
            "audit c1 ok",
            "model",
            "text: Created.",
            "done 2: Created.",
        ]
    );
    assert!(
        h.agent.policy().session_allows().is_empty(),
        "yes is one-off"
    );
}

#[test]
fn ask_then_no_tells_the_model_the_user_declined() {
    let mut h = Harness::default()
        .script([
            reply(None, &[("c1", CREATE, json!({"title": "t"}))]),
            answer("Understood."),
        ])
        .approvals(&[Approval::No]);
    let log = h.run("file a bug");
    assert_eq!(
        log,
        [
            "step 1",
            "model",
            "start c1 mcp__gh__create_issue",
            "approve? c1 write",
            "ask c1",
            "end c1 err",
            "step 2",
            "audit c1 denied",
            "model",
            "text: Understood.",
            "done 2: Understood.",
        ]
    );
    let (_, content, is_error) = &h.last_tool_results()[0];
    assert!(*is_error && content.starts_with("denied: the user declined this call"));
}

#[test]
fn always_does_not_ask_again() {
    // Only one approval is scripted: a second question would panic the harness.
    let mut h = Harness::default()
        .script([
            reply(None, &[("c1", CREATE, json!({"title": "a"}))]),
            reply(None, &[("c2", CREATE, json!({"title": "b"}))]),
            answer("Two issues."),
        ])
        .approvals(&[Approval::Always]);
    let log = h.run("file two bugs");
    assert_eq!(
        log,
        [
            "step 1",
            "model",
            "start c1 mcp__gh__create_issue",
            "approve? c1 write",
            "ask c1",
            "tools c1",
            "end c1 ok",
            "step 2",
            "audit c1 ok",
            "model",
            "start c2 mcp__gh__create_issue",
            "tools c2",
            "end c2 ok",
            "step 3",
            "audit c2 ok",
            "model",
            "text: Two issues.",
            "done 3: Two issues.",
        ]
    );
    assert_eq!(h.agent.policy().session_allows(), [CREATE]);
}

#[test]
fn timeout_is_audited_and_the_loop_goes_on() {
    let mut h = Harness::default()
        .script([
            reply(None, &[("c1", GET, json!({"n": 1}))]),
            answer("The tracker is slow."),
        ])
        .tools(|_| Err(ToolFailure::Timeout));
    let log = h.run("issue 1?");
    assert_eq!(
        log,
        [
            "step 1",
            "model",
            "start c1 mcp__gh__get_issue",
            "tools c1",
            "end c1 err",
            "step 2",
            "audit c1 timeout",
            "model",
            "text: The tracker is slow.",
            "done 2: The tracker is slow.",
        ]
    );
    let (_, content, is_error) = &h.last_tool_results()[0];
    assert!(is_error);
    assert_eq!(
        content,
        "error: the tool did not answer within 60000 ms and was abandoned"
    );
    assert_eq!(
        h.audit[0].error.as_deref(),
        Some("timed out after 60000 ms")
    );
}

#[test]
fn tool_errors_and_error_results_reach_the_model() {
    let mut h = Harness::default()
        .script([
            reply(
                None,
                &[("c1", GET, json!({"n": 1})), ("c2", LIST, json!({}))],
            ),
            answer("Both failed."),
        ])
        .tools(|inv| match inv.name.as_str() {
            GET => Err(ToolFailure::Error("server exited".into())),
            _ => Ok(ToolOutput::error(
                "rate limited, token ghp_abcdefghijklmnop",
            )),
        });
    h.run("go");
    assert_eq!(
        h.last_tool_results(),
        [
            ("c1".into(), "error: server exited".into(), true),
            (
                "c2".into(),
                "rate limited, token ghp_abcdefghijklmnop".into(),
                true
            ),
        ]
    );
    assert_eq!(
        h.outcomes(),
        [("c1".into(), Outcome::Error), ("c2".into(), Outcome::Error)]
    );
    assert_eq!(
        h.audit[1].error.as_deref(),
        Some("rate limited, token [REDACTED]"),
        "the audit log redacts what the model may see"
    );
}

#[test]
fn unknown_tools_and_bad_arguments_are_errors_for_the_model() {
    let mut h = Harness::default().script([
        reply(None, &[("c1", "nope", json!({})), ("c2", GET, json!([7]))]),
        answer("Sorry."),
    ]);
    let log = h.run("go");
    assert_eq!(
        log[2..8],
        [
            "start c1 nope",
            "end c1 err",
            "start c2 mcp__gh__get_issue",
            "end c2 err",
            "step 2",
            "audit c1 error",
        ]
    );
    let results = h.last_tool_results();
    assert_eq!(
        results[0].1,
        "error: unknown tool \"nope\"; call only the tools you were given"
    );
    assert_eq!(
        results[1].1,
        "error: the arguments for mcp__gh__get_issue must be a JSON object"
    );
    assert_eq!(h.audit[0].server, None);
}

#[test]
fn arguments_that_are_not_json_are_answered_and_the_model_retries() {
    // The decoders keep text that is not JSON as a string (`model::openai`): the call fails
    // with the parser's complaint, is audited and shown, and the run goes on.
    let mut h = Harness::default().script([
        reply(None, &[("c1", GET, json!("{\"n\": 7"))]),
        reply(None, &[("c2", GET, json!({"n": 7}))]),
        answer("Issue 7 is open."),
    ]);
    let log = h.run("issue 7?");
    assert_eq!(
        log,
        [
            "step 1",
            "model",
            "start c1 mcp__gh__get_issue",
            "end c1 err",
            "step 2",
            "audit c1 error",
            "model",
            "start c2 mcp__gh__get_issue",
            "tools c2",
            "end c2 ok",
            "step 3",
            "audit c2 ok",
            "model",
            "text: Issue 7 is open.",
            "done 3: Issue 7 is open.",
        ]
    );
    let told = &h.requests[1];
    let Some(ChatMessage::Tool {
        content, is_error, ..
    }) = told.messages.last()
    else {
        panic!("the broken call's result: {:?}", told.messages);
    };
    assert!(is_error);
    assert_eq!(
        content,
        "error: the arguments for mcp__gh__get_issue are not valid JSON (EOF while parsing an \
         object at line 1 column 7): \"{\\\"n\\\": 7\"; call mcp__gh__get_issue again with a \
         JSON object"
    );
    assert_eq!(
        h.audit[0].args_summary, r#""{\"n\": 7""#,
        "the text as sent"
    );
    assert_eq!(
        h.audit[0].error.as_deref(),
        Some(content.as_str()),
        "the audit says why"
    );

    // A JSON string that is JSON but not an object is still refused, without a parse error.
    let mut h =
        Harness::default().script([reply(None, &[("c1", GET, json!("[7]"))]), answer("Sorry.")]);
    h.run("go");
    assert_eq!(
        h.last_tool_results()[0].1,
        "error: the arguments for mcp__gh__get_issue must be a JSON object, not a string"
    );
}

#[test]
fn multi_turn_keeps_history() {
    let mut h = Harness::default().script([
        reply(None, &[("c1", GET, json!({"n": 7}))]),
        answer("Issue 7 is open."),
        answer("You asked about issue 7."),
    ]);
    h.run("issue 7?");
    let log = h.run("what did I ask?");
    assert_eq!(
        log,
        [
            "step 1",
            "model",
            "text: You asked about issue 7.",
            "done 1: You asked about issue 7."
        ]
    );
    let roles: Vec<_> = h.requests[2]
        .messages
        .iter()
        .map(|m| m.to_value()["role"].as_str().unwrap_or("").to_owned())
        .collect();
    assert_eq!(roles, ["user", "assistant", "tool", "assistant", "user"]);
    assert_eq!(h.agent.history().len(), 6);
    assert_history_consistent(h.agent.history());
    h.agent.clear_history().unwrap();
    assert!(h.agent.history().is_empty());
}

#[test]
fn model_error_ends_the_run_cleanly() {
    let mut h = Harness::default().script([Err("HTTP 500 from the model".into())]);
    let log = h.run("hi");
    assert_eq!(
        log,
        [
            "step 1",
            "model",
            "error: model call failed: HTTP 500 from the model"
        ]
    );
    assert!(!h.agent.is_running());
    assert_eq!(
        h.agent.history(),
        [ChatMessage::User {
            content: "hi".into()
        }]
    );

    // A failure after a tool step leaves every call answered, and the next run works.
    let mut h = Harness::default().script([
        reply(None, &[("c1", GET, json!({}))]),
        Err("connection reset".into()),
        answer("Back."),
    ]);
    let log = h.run("one");
    assert_eq!(
        log.last().unwrap(),
        "error: model call failed: connection reset"
    );
    assert_history_consistent(h.agent.history());
    assert_eq!(h.run("two").last().unwrap(), "done 1: Back.");
}
