//! `agentwire mcp login SERVER`: authorizes an OAuth server ahead of time and keeps its token,
//! says so when a kept token works already, and names the culprit when it cannot. The server
//! authorizes through cross-app access with a configured ID token, so no browser is involved.

mod common;

use agentwire_host::token_store::{TokenStore, FILE_NAME};
use common::oauth_server::{count, OAuthServer};
use serde_json::json;
use std::path::Path;

/// A project with `remote` (OAuth by cross-app access, the ID token from `$ADA_ID_TOKEN`),
/// `open` (http without OAuth) and `local` (stdio).
fn project(server: &OAuthServer) -> common::Project {
    let idp = server.url.replace("/mcp", "/idp/token");
    let mut project = common::Project::new();
    project
        .entry(
            "remote",
            json!({"type": "http", "url": server.url, "oauth": {
                "clientId": "enterprise-app", "clientSecret": "ent-secret",
                "enterprise": {"idpTokenEndpoint": idp, "idToken": "${ADA_ID_TOKEN}",
                    "idpClientId": "agentwire"}}}),
        )
        .entry("open", json!({"type": "http", "url": server.url}))
        .fixture("local", "normal.mjs", &[]);
    project
}

fn login(
    project: &common::Project,
    state: &Path,
    id_token: &str,
    extra: &[&str],
) -> common::CliOutput {
    let env = [
        ("AGENTWIRE_STATE_DIR", state.to_str().unwrap()),
        ("ADA_ID_TOKEN", id_token),
    ];
    let mut args = vec!["mcp", "login"];
    args.extend_from_slice(extra);
    project.run_with_env(&args, &env)
}

#[test]
fn login_authorizes_once_and_then_finds_the_kept_token() {
    let server = OAuthServer::start();
    let project = project(&server);
    let state = tempfile::tempdir().unwrap();
    let out = login(&project, state.path(), "id-token-of-ada", &["remote"]);
    assert_eq!(out.code, 0, "{out:?}");
    assert!(
        out.stdout
            .contains(&format!("authorized remote ({})", server.url))
            && out.stdout.contains(FILE_NAME)
            && (out.stdout.contains("valid for about 59 minutes")
                || out.stdout.contains("valid for about 60 minutes")),
        "{out:?}"
    );
    assert!(!out.stderr.contains("model"), "no model notice: {out:?}");
    let store = TokenStore::at(state.path().join(FILE_NAME));
    assert!(store.load(&server.url).is_some(), "the token is kept");
    assert_eq!(count(&server.stats(), "exchanges"), 1);

    let out = login(
        &project,
        state.path(),
        "id-token-of-ada",
        &["remote", "--json"],
    );
    assert_eq!(out.code, 0, "{out:?}");
    let report = out.json();
    assert_eq!(report["new"], false, "{report}");
    assert_eq!(report["url"], server.url.as_str(), "{report}");
    assert!(report["expiresAt"].as_u64().is_some(), "{report}");
    assert_eq!(
        count(&server.stats(), "exchanges"),
        1,
        "nothing asked again"
    );
    let out = login(&project, state.path(), "id-token-of-ada", &["remote"]);
    assert!(out.stdout.contains("is authorized already"), "{out:?}");
}

#[test]
fn login_names_what_is_wrong() {
    let server = OAuthServer::start();
    let project = project(&server);
    let state = tempfile::tempdir().unwrap();
    let out = login(&project, state.path(), "stale-token-of-ada", &["remote"]);
    assert_eq!(out.code, 1, "{out:?}");
    assert!(
        out.stderr.contains("could not authorize remote")
            && out
                .stderr
                .contains("invalid_grant (the ID token has expired)"),
        "{out:?}"
    );
    for (name, code, message) in [
        (
            "nowhere",
            2,
            "no MCP server named \"nowhere\" (configured: ",
        ),
        ("local", 2, "local is not an http server"),
        ("open", 2, "open does not use OAuth: add \"oauth\": true"),
    ] {
        let out = login(&project, state.path(), "id-token-of-ada", &[name]);
        assert_eq!(out.code, code, "{out:?}");
        assert!(out.stderr.contains(message), "{out:?}");
    }
    assert!(
        project.pid("local").is_none(),
        "no server was started for a refused login"
    );
}

#[test]
fn mcp_list_says_whether_each_oauth_server_keeps_a_token() {
    let server = OAuthServer::start();
    let mut project = project(&server);
    let idp = server.url.replace("/mcp", "/idp/token");
    project.entry(
        "memory",
        json!({"type": "http", "url": server.url, "oauth": {
            "clientId": "enterprise-app", "clientSecret": "ent-secret", "storeTokens": false,
            "enterprise": {"idpTokenEndpoint": idp, "idToken": "id-token-of-ada",
                "idpClientId": "agentwire"}}}),
    );
    let state = tempfile::tempdir().unwrap();
    let env = [
        ("AGENTWIRE_STATE_DIR", state.path().to_str().unwrap()),
        ("ADA_ID_TOKEN", "id-token-of-ada"),
    ];
    let out = project.run_with_env(&["mcp", "list", "--json"], &env);
    assert_eq!(out.code, 0, "{out:?}");
    let report = out.json();
    let server_entry = |name: &str| {
        report["servers"]
            .as_array()
            .unwrap()
            .iter()
            .find(|s| s["name"] == name)
            .cloned()
            .unwrap_or_else(|| panic!("{name} in {report}"))
    };
    // Connecting authorized `remote` (no browser needed), and its token is kept.
    let remote = server_entry("remote");
    assert_eq!(remote["oauth"]["kept"], true, "{remote}");
    assert!(remote["oauth"]["expiresAt"].as_u64().is_some(), "{remote}");
    assert_eq!(
        server_entry("memory")["oauth"],
        json!({"kept": false, "storeTokens": false})
    );
    assert!(
        server_entry("open").get("oauth").is_none(),
        "no OAuth, no field"
    );
    assert!(server_entry("local").get("oauth").is_none());

    let out = project.run_with_env(&["mcp", "list"], &env);
    assert!(
        out.stdout
            .contains("remote: connected, 1 tools (OAuth token kept, valid for about")
            && out
                .stdout
                .contains("memory: connected, 1 tools (OAuth tokens in memory only)"),
        "{out:?}"
    );
}
