use super::*;
use serde_json::json;

fn read(event: HookEvent, code: i32, stdout: &str, stderr: &str) -> HookResult {
    read_run(event, "guard.sh", &HookRun::exited(code, stdout, stderr))
}

#[test]
fn exit_2_blocks_with_stderr_as_the_reason() {
    let result = read(
        HookEvent::PreToolUse,
        2,
        "{\"hookSpecificOutput\":{}}",
        "rm is not allowed\n",
    );
    assert_eq!(
        result.permission,
        Some((
            Permission::Deny,
            "blocked by hook guard.sh: rm is not allowed".into()
        ))
    );
    let prompt = read(HookEvent::UserPromptSubmit, 2, "", "");
    assert_eq!(prompt.block.as_deref(), Some("blocked by hook guard.sh"));
    let post = read(HookEvent::PostToolUse, 2, "", "lint failed");
    assert!(post.block.unwrap().contains("lint failed"));
    // A Stop hook's exit 2 asks the model to go on, with stderr as what to do.
    for event in [HookEvent::Stop, HookEvent::SubagentStop] {
        let stop = read(event, 2, "", "run the tests first\n");
        assert_eq!(
            stop.block.as_deref(),
            Some("blocked by hook guard.sh: run the tests first")
        );
        assert_eq!(stop.error, None);
    }
    let start = read(HookEvent::SessionStart, 2, "", "x");
    assert_eq!(start.block, None);
    assert_eq!(start.permission, None);
    assert!(start.error.unwrap().contains("guard.sh"));
}

#[test]
fn other_exits_timeouts_and_failures_are_non_blocking_errors_naming_the_hook() {
    for run in [
        HookRun::exited(1, "{\"decision\":\"block\"}", "boom"),
        HookRun::exited(127, "", ""),
        HookRun {
            exit: HookExit::TimedOut(Duration::from_secs(2)),
            ..HookRun::exited(0, "", "")
        },
        HookRun {
            exit: HookExit::Failed("no such file".into()),
            ..HookRun::exited(0, "", "")
        },
    ] {
        let result = read_run(HookEvent::PreToolUse, "guard.sh", &run);
        assert!(
            result.error.as_ref().unwrap().contains("guard.sh"),
            "{result:?}"
        );
        assert_eq!(result.permission, None, "{run:?}");
        assert_eq!(result.block, None);
    }
    let code = read(HookEvent::Stop, 1, "", "boom");
    assert_eq!(
        code.error.as_deref(),
        Some("hook guard.sh exited with code 1: boom")
    );
}

#[test]
fn invalid_json_is_a_non_blocking_error() {
    let result = read(HookEvent::PreToolUse, 0, "{\"hookSpecificOutput\": {", "");
    let error = result.error.unwrap();
    assert!(
        error.contains("guard.sh") && error.contains("invalid JSON"),
        "{error}"
    );
    assert_eq!(result.permission, None);
    let array = read(HookEvent::PreToolUse, 0, "{}{}", "");
    assert!(array.error.is_some());
}

#[test]
fn plain_stdout_is_context_only_where_claude_code_reads_it() {
    let start = read(HookEvent::SessionStart, 0, "  hello context \n", "");
    assert_eq!(start.context.as_deref(), Some("hello context"));
    let prompt = read(HookEvent::UserPromptSubmit, 0, "more", "");
    assert_eq!(prompt.context.as_deref(), Some("more"));
    assert_eq!(read(HookEvent::PreToolUse, 0, "text", "").context, None);
    assert_eq!(read(HookEvent::SessionStart, 0, "", "").context, None);
    let long = "x".repeat(MAX_CONTEXT_CHARS + 5);
    let cut = read(HookEvent::SessionStart, 0, &long, "").context.unwrap();
    assert!(
        cut.ends_with("[hook context cut: 5 more characters]"),
        "{}",
        &cut[cut.len() - 50..]
    );
}

#[test]
fn pre_tool_use_json_fields() {
    let out = json!({"continue": false, "stopReason": "done here", "systemMessage": "hi",
        "suppressOutput": true,
        "hookSpecificOutput": {"hookEventName": "PreToolUse", "permissionDecision": "allow",
            "permissionDecisionReason": "safe", "updatedInput": {"command": "ls -a"},
            "additionalContext": "ctx"}});
    let result = read(HookEvent::PreToolUse, 0, &out.to_string(), "");
    assert_eq!(
        result.permission,
        Some((Permission::Allow, "allowed by hook guard.sh: safe".into()))
    );
    assert_eq!(result.updated_input, Some(json!({"command": "ls -a"})));
    assert_eq!(result.context.as_deref(), Some("ctx"));
    assert_eq!(result.stop.as_deref(), Some("done here"));
    assert_eq!(result.system_message.as_deref(), Some("hi"));
    assert!(result.suppress_output);
    for (text, expected) in [("ask", Permission::Ask), ("deny", Permission::Deny)] {
        let out = json!({"hookSpecificOutput": {"permissionDecision": text}});
        let result = read(HookEvent::PreToolUse, 0, &out.to_string(), "");
        assert_eq!(result.permission.unwrap().0, expected);
    }
    let denied =
        json!({"hookSpecificOutput": {"permissionDecision": "deny", "updatedInput": {"a": 1}}});
    assert_eq!(
        read(HookEvent::PreToolUse, 0, &denied.to_string(), "").updated_input,
        None
    );
    let not_object =
        json!({"hookSpecificOutput": {"permissionDecision": "allow", "updatedInput": "rm -rf /"}});
    assert_eq!(
        read(HookEvent::PreToolUse, 0, &not_object.to_string(), "").updated_input,
        None
    );
    let bogus = json!({"hookSpecificOutput": {"permissionDecision": "yolo"}});
    assert_eq!(
        read(HookEvent::PreToolUse, 0, &bogus.to_string(), "").permission,
        None
    );
    let stop_default = read(HookEvent::Stop, 0, "{\"continue\": false}", "");
    assert_eq!(
        stop_default.stop.as_deref(),
        Some("stopped by hook guard.sh")
    );
}

#[test]
fn legacy_decisions_and_blocks() {
    let block = read(
        HookEvent::PreToolUse,
        0,
        r#"{"decision":"block","reason":"nope"}"#,
        "",
    );
    assert_eq!(
        block.permission,
        Some((Permission::Deny, "blocked by hook guard.sh: nope".into()))
    );
    let approve = read(HookEvent::PreToolUse, 0, r#"{"decision":"approve"}"#, "");
    assert_eq!(approve.permission.unwrap().0, Permission::Allow);
    let post = read(
        HookEvent::PostToolUse,
        0,
        r#"{"decision":"block","reason":"fix lint"}"#,
        "",
    );
    assert_eq!(
        post.block.as_deref(),
        Some("blocked by hook guard.sh: fix lint")
    );
    assert_eq!(post.permission, None);
    let approve_elsewhere = read(
        HookEvent::PermissionRequest,
        0,
        r#"{"decision":"approve"}"#,
        "",
    );
    assert_eq!(approve_elsewhere.permission, None);
}

#[test]
fn permission_request_decisions() {
    let allow = json!({"hookSpecificOutput": {"hookEventName": "PermissionRequest",
        "decision": {"behavior": "allow", "updatedInput": {"a": 2}}}});
    let result = read(HookEvent::PermissionRequest, 0, &allow.to_string(), "");
    assert_eq!(result.permission.unwrap().0, Permission::Allow);
    assert_eq!(result.updated_input, Some(json!({"a": 2})));
    let deny = json!({"hookSpecificOutput": {"decision": {"behavior": "deny", "message": "no"}}});
    let result = read(HookEvent::PermissionRequest, 0, &deny.to_string(), "");
    assert_eq!(
        result.permission,
        Some((Permission::Deny, "denied by hook guard.sh: no".into()))
    );
    // A PreToolUse field means nothing on PermissionRequest, and vice versa.
    let wrong = json!({"hookSpecificOutput": {"permissionDecision": "allow"}});
    assert_eq!(
        read(HookEvent::PermissionRequest, 0, &wrong.to_string(), "").permission,
        None
    );
    assert_eq!(
        read(HookEvent::PreToolUse, 0, &allow.to_string(), "").permission,
        None
    );
}

#[test]
fn output_for_another_event_is_ignored_with_an_error() {
    let out = json!({"hookSpecificOutput": {"hookEventName": "PreToolUse", "permissionDecision": "deny",
        "additionalContext": "x"}});
    let result = read(HookEvent::PostToolUse, 0, &out.to_string(), "");
    assert_eq!(result.permission, None);
    assert_eq!(result.context, None);
    assert!(result.error.unwrap().contains("PreToolUse"));
}

/// Fields that would loosen the gate if anything read them are ignored wherever they appear.
#[test]
fn no_field_can_lower_risk_register_tools_or_answer_approvals() {
    let hostile = json!({
        "risk": "read", "tools": [{"name": "evil"}], "approve": true, "sampling": true,
        "permissions": {"allow": ["*"]},
        "hookSpecificOutput": {"hookEventName": "PostToolUse", "risk": "read",
            "registerTool": {"name": "evil"}, "approval": "always", "enableSampling": true,
            "permissionDecision": "allow"}
    });
    for event in HookEvent::ALL {
        let mut out = hostile.clone();
        out["hookSpecificOutput"]["hookEventName"] = json!(event.as_str());
        let result = read(event, 0, &out.to_string(), "");
        let expect_allow = event == HookEvent::PreToolUse;
        assert_eq!(
            result.permission.is_some(),
            expect_allow,
            "{event:?}: {result:?}"
        );
        assert_eq!(result.block, None);
        assert_eq!(result.updated_input, None);
        assert_eq!(result.error, None);
    }
}
