//! A real server process that changes its tools mid-session (renames, re-annotates) and floods
//! `list_changed` and log notifications: the gate and deny rules hold for the new list, risks
//! never go down, re-listing is coalesced, and calls still answer.

mod common;

use agentwire::agent::{Agent, AgentConfig, DirectCallError};
use agentwire::driver::{NoLocalTools, Runtime};
use agentwire::model::MockModel;
use agentwire::policy::Policy;
use agentwire::registry::{Registry, Risk};
use agentwire_host::os::clock::TokioClock;
use common::lib_host::{connect, local, session, Recorder};
use serde_json::{json, Value};
use std::rc::Rc;
use std::time::{Duration, Instant};

fn runtime() -> Runtime<TokioClock> {
    let mut policy = Policy::new();
    policy.deny("mcp__shifty__wipe_disk").unwrap();
    let agent = Agent::new(Registry::new(), policy, AgentConfig::default());
    Runtime::new(
        agent,
        Rc::new(MockModel::new()),
        Rc::new(NoLocalTools),
        TokioClock,
    )
}

fn risks(runtime: &Runtime<TokioClock>, name: &str) -> Option<(Risk, Risk)> {
    runtime.with_agent(|a| a.registry().get(name).map(|t| (t.risk, t.gate_risk())))
}

#[test]
fn renamed_and_reannotated_tools_keep_their_risk_and_deny_rules_under_a_flood() {
    local(async {
        let fixture = connect(
            "shifty",
            "shifty.mjs",
            &["--flood", "3000"],
            session(Duration::from_secs(10)),
        )
        .await;
        let runtime = runtime();
        runtime
            .add_server("shifty", fixture.client.clone())
            .await
            .unwrap();
        let observer = Recorder::default();
        assert_eq!(
            risks(&runtime, "mcp__shifty__wipe_disk"),
            Some((Risk::Write, Risk::Write))
        );
        assert_eq!(
            risks(&runtime, "mcp__shifty__peek"),
            Some((Risk::Read, Risk::Read))
        );

        runtime
            .call_tool("mcp__shifty__shift", json!({}), &observer)
            .await
            .unwrap();
        // The flood is being read while this call is answered: calls are not starved.
        let started = Instant::now();
        let stats = runtime
            .call_tool("mcp__shifty__stats", json!({}), &observer)
            .await
            .unwrap();
        assert!(stats.failure.is_none(), "{:?}", stats.failure);
        assert!(started.elapsed() < Duration::from_secs(5));
        runtime.refresh_servers(&observer).await;
        runtime.refresh_servers(&observer).await;

        // wipe_disk now claims to be read-only: its risk stays write and the deny rule holds.
        assert_eq!(
            risks(&runtime, "mcp__shifty__wipe_disk"),
            Some((Risk::Write, Risk::Write))
        );
        let denied = runtime
            .call_tool("mcp__shifty__wipe_disk", json!({}), &observer)
            .await;
        assert!(
            matches!(denied, Err(DirectCallError::Denied { .. })),
            "{denied:?}"
        );
        // The renamed tool is new: the gate weighs it as at least write until allowed.
        assert_eq!(
            risks(&runtime, "mcp__shifty__peek_all"),
            Some((Risk::Read, Risk::Write))
        );
        // The vanished tool fails clearly.
        let gone = runtime
            .call_tool("mcp__shifty__peek", json!({}), &observer)
            .await;
        assert!(
            matches!(&gone, Err(DirectCallError::UnknownTool(n)) if n == "mcp__shifty__peek"),
            "{gone:?}"
        );

        // Thousands of list_changed became at most a couple of re-lists.
        let stats = runtime
            .call_tool("mcp__shifty__stats", json!({}), &observer)
            .await
            .unwrap();
        let counts: Value = serde_json::from_str(&stats.shaped.text).unwrap();
        let lists = counts["lists"].as_u64().unwrap();
        assert!((2..=4).contains(&lists), "tools/list requests: {lists}");
        let events = observer.server_events.borrow();
        let changed = events
            .iter()
            .filter(|e| e["type"] == "tools_changed")
            .count();
        assert!(changed >= 1, "{events:?}");
        assert!(events
            .iter()
            .any(|e| e["type"] == "server_log" && e["server"] == "shifty"));
    });
}
