//! `agentwire mcp login SERVER`: authorizes an OAuth server ahead of time and keeps its token,
//! says so when a kept token works already, and names the culprit when it cannot. Most tests
//! authorize through cross-app access with a configured ID token (no browser); one goes
//! through the browser flow with a stand-in `xdg-open` that follows the URL like a user who
//! approves.

mod common;

use agentwire_host::transport::token_store::{TokenStore, FILE_NAME};
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
            .contains("remote: connected, 1 tools, ~30 tokens (OAuth token kept, valid for about")
            && out
                .stdout
                .contains("memory: connected, 1 tools, ~30 tokens (OAuth tokens in memory only)"),
        "{out:?}"
    );
}

/// Unix only: the stand-in browser is a shell script.
#[cfg(unix)]
#[test]
fn login_through_the_browser_keeps_the_token_for_later_runs() {
    use std::os::unix::fs::PermissionsExt;
    let server = OAuthServer::start();
    let mut project = common::Project::new();
    project.entry(
        "remote",
        json!({"type": "http", "url": server.url, "oauth": true}),
    );
    // The "browser": an `xdg-open` first on PATH that follows the authorization URL, as a user
    // who approves would; the fixture approves at once and redirects to the CLI's listener.
    let bin = tempfile::tempdir().unwrap();
    let opener = bin.path().join("xdg-open");
    std::fs::write(
        &opener,
        "#!/bin/sh\nexec node -e 'fetch(process.argv[1]).catch(() => {})' \"$1\"\n",
    )
    .unwrap();
    std::fs::set_permissions(&opener, std::fs::Permissions::from_mode(0o755)).unwrap();
    let path = format!(
        "{}:{}",
        bin.path().display(),
        std::env::var("PATH").unwrap_or_default()
    );
    let state = tempfile::tempdir().unwrap();
    let env = [
        ("PATH", path.as_str()),
        ("AGENTWIRE_STATE_DIR", state.path().to_str().unwrap()),
    ];
    let out = project.run_with_env(&["mcp", "login", "remote"], &env);
    assert_eq!(out.code, 0, "{out:?}");
    assert!(
        out.stderr.contains("To authorize agentwire, open this URL"),
        "{out:?}"
    );
    assert!(out.stdout.contains("authorized remote"), "{out:?}");
    let stats = server.stats();
    assert_eq!(count(&stats, "registrations"), 1, "{stats}");
    assert_eq!(count(&stats, "authorizations"), 1, "{stats}");

    // A later run uses the kept token: no browser, no new authorization.
    let out = project.run_with_env(&["mcp", "call", "remote", "whoami", "--json"], &env);
    assert_eq!(out.code, 0, "{out:?}");
    assert!(out.stdout.contains("called with at-1"), "{out:?}");
    assert!(!out.stderr.contains("open this URL"), "{out:?}");
    assert_eq!(count(&server.stats(), "authorizations"), 1);
}
