//! The runtime's resources for users and models: `@server:uri` attachments and the two
//! resource tools, against the built-in mock GitHub server.

mod support;

use agentwire::driver::MockGithubTransport;
use agentwire::policy::Policy;
use agentwire::registry::Risk;
use serde_json::json;
use support::host::{answer, calls, Host, Observer, ScriptedModel};
use support::scripted_server::{spawn_server, Behaviour};
use support::stepper::Stepper;

fn attach(host: &mut Host, prompt: &str) -> Result<String, String> {
    Stepper::new(host.runtime.attach_mentions(prompt))
        .step(&mut host.pool)
        .expect("the mock answers at once")
}

#[test]
fn mentions_attach_resources_and_name_what_failed() {
    let mut host = Host::with_policy(Policy::new(), ScriptedModel::new([]));
    host.add_server("github", MockGithubTransport::default());
    let prompt = "explain @github:repo://vercel/ai/contents/LICENSE. mail me@github:x or @nope:y";
    let mentions = host.runtime.mentions(prompt);
    assert_eq!(
        mentions,
        [(
            "github".to_owned(),
            "repo://vercel/ai/contents/LICENSE".to_owned()
        )]
    );
    let attached = attach(&mut host, prompt).unwrap();
    assert!(attached.starts_with(prompt));
    assert!(attached.contains(
        "<resource server=\"github\" uri=\"repo://vercel/ai/contents/LICENSE\">\nApache License"
    ));
    let error = attach(&mut host, "see @github:repo://vercel/ai/contents/NOPE").unwrap_err();
    assert!(
        error.starts_with("reading repo://vercel/ai/contents/NOPE from MCP server github failed"),
        "{error}"
    );
    assert!(attach(&mut host, "no mentions here").unwrap() == "no mentions here");
}

#[test]
fn resource_tools_are_read_tools_through_the_gate_and_audit() {
    let model = ScriptedModel::new([
        calls(&[(
            "c1",
            "read_mcp_resource",
            json!({"server": "github", "uri": "repo://vercel/ai/contents/LICENSE"}),
        )]),
        calls(&[("c2", "list_mcp_resources", json!({}))]),
        calls(&[("c3", "read_mcp_resource", json!({"server": "github"}))]),
        answer("done"),
    ]);
    let mut host = Host::with_policy(Policy::new(), model.clone());
    host.add_server("github", MockGithubTransport::default());
    let risk = host
        .runtime
        .with_agent(|a| a.registry().get("read_mcp_resource").map(|t| t.gate_risk()));
    assert_eq!(risk, Some(Risk::Read));
    let observer = Observer::default();
    assert_eq!(host.run("go", &observer).unwrap(), "done");
    assert!(
        observer.asked.borrow().is_empty(),
        "read tools do not ask by default"
    );
    let first = model.tool_results(1);
    assert!(
        first[0].1.contains("Apache License") && !first[0].2,
        "{first:?}"
    );
    let second = model.tool_results(2);
    assert!(
        second[0]
            .1
            .contains("repo://facebook/react/contents/README.md"),
        "{second:?}"
    );
    let third = model.tool_results(3);
    assert!(
        third[0].2 && third[0].1.contains("needs string \"server\" and \"uri\""),
        "{third:?}"
    );
    assert_eq!(
        observer.audit_log(),
        [
            "c1 read_mcp_resource ok",
            "c2 list_mcp_resources ok",
            "c3 read_mcp_resource error"
        ]
    );
}

#[test]
fn a_deny_rule_stops_resource_reads_and_servers_without_resources_get_no_tools() {
    let model = ScriptedModel::new([
        calls(&[(
            "c1",
            "read_mcp_resource",
            json!({"server": "github", "uri": "repo://vercel/ai/contents/LICENSE"}),
        )]),
        answer("ok"),
    ]);
    let mut policy = Policy::new();
    policy.deny("read_mcp_resource").unwrap();
    let mut host = Host::with_policy(policy, model.clone());
    host.add_server("github", MockGithubTransport::default());
    let observer = Observer::default();
    host.run("go", &observer).unwrap();
    let result = &model.tool_results(1)[0];
    assert!(result.2 && !result.1.contains("Apache"), "{result:?}");
    assert_eq!(observer.audit_log(), ["c1 read_mcp_resource denied"]);

    let mut host = Host::with_policy(Policy::new(), ScriptedModel::new([]));
    let server = spawn_server(&host.pool, "plain", Behaviour::Normal);
    host.add_server("plain", server.transport);
    let names: Vec<String> = host.runtime.with_agent(|a| {
        a.registry()
            .tools()
            .iter()
            .map(|t| t.name.clone())
            .collect()
    });
    assert!(!names.iter().any(|n| n.contains("resource")), "{names:?}");
}

fn exchange(host: &mut Host, server: &str, method: &str) -> Result<serde_json::Value, String> {
    let params = json!({"uri": "repo://vercel/ai/contents/LICENSE"});
    Stepper::new(host.runtime.exchange(server, method, params))
        .step(&mut host.pool)
        .expect("the mock answers at once")
}

/// The npm package's JS layer words errors and skips servers by these exact texts.
#[test]
fn exchanges_give_lists_results_and_the_reasons_the_js_layer_matches() {
    let mut host = Host::with_policy(Policy::new(), ScriptedModel::new([]));
    host.add_server("github", MockGithubTransport::default());
    let listed = exchange(&mut host, "github", "resources/list").unwrap();
    assert!(listed.as_array().is_some_and(|l| !l.is_empty()), "{listed}");
    let read = exchange(&mut host, "github", "resources/read").unwrap();
    assert!(read["contents"][0]["text"]
        .as_str()
        .unwrap()
        .starts_with("Apache License"));
    assert_eq!(
        exchange(&mut host, "nope", "resources/list"),
        Err(agentwire::driver::NOT_CONNECTED.to_owned())
    );
    let js = include_str!("../js/lib/agent.js");
    let constant = format!(
        "const NOT_CONNECTED = '{}';",
        agentwire::driver::NOT_CONNECTED
    );
    assert!(
        js.contains(&constant),
        "js/lib/agent.js must say {constant}"
    );
    let not_offered = "`the server does not offer ${method} (not in its capabilities)`";
    assert!(
        js.contains(not_offered),
        "js/lib/agent.js must word refusals as {not_offered}"
    );
    assert_eq!(
        exchange(&mut host, "github", "logging/setLevel"),
        Err("the server does not offer logging/setLevel (not in its capabilities)".to_owned())
    );
}
