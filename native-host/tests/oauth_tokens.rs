//! OAuth tokens kept between runs: a server behind OAuth (`fixtures/oauth-server.mjs`, its own
//! authorization server included) is authorized once; later connections reuse the stored token,
//! refresh it when the server stops accepting it (keeping a refresh token the refresh answer
//! left out), and a store that cannot be written costs only the convenience.

mod common;

use agentwire_host::transport::oauth::{Authorizer, OAuthOptions};
use agentwire_host::transport::token_store::{StoredToken, TokenStore, FILE_NAME};
use common::oauth_server::{count, whoami_with, OAuthServer};
use serde_json::json;

/// One "run": connect with OAuth and `store`, call `whoami`, close. Returns the tool's text
/// (which names the access token the server saw).
fn run_once(url: &str, store: &TokenStore) -> String {
    let mut options = OAuthOptions::new(Authorizer::Headless);
    options.store = Some(store.clone());
    whoami_with(url, options)
}

#[test]
fn one_authorization_serves_later_runs_and_refreshes_keep_the_refresh_token() {
    let server = OAuthServer::start();
    let dir = tempfile::tempdir().unwrap();
    let store = TokenStore::at(dir.path().join(FILE_NAME));

    // First run: nothing stored, so the whole flow runs once and its token is kept.
    assert_eq!(run_once(&server.url, &store), "called with at-1");
    let stats = server.stats();
    assert_eq!(count(&stats, "registrations"), 1, "{stats}");
    assert_eq!(count(&stats, "authorizations"), 1, "{stats}");
    assert_eq!(count(&stats, "codeGrants"), 1, "{stats}");
    let stored = store.load(&server.url).expect("the token was kept");
    assert_eq!(stored.access_token, "at-1");
    assert_eq!(stored.refresh_token.as_deref(), Some("rt-1"));
    assert_eq!(stored.client.client_id, "client-1");
    let refused_after_first = count(&stats, "refused");

    // Second run: the stored token goes out with the first request; no 401, no new flow.
    assert_eq!(run_once(&server.url, &store), "called with at-1");
    let stats = server.stats();
    assert_eq!(count(&stats, "authorizations"), 1, "{stats}");
    assert_eq!(count(&stats, "registrations"), 1, "{stats}");
    assert_eq!(count(&stats, "refused"), refused_after_first, "{stats}");

    // The server stops accepting it: one 401, a refresh grant with the stored refresh token
    // and client, no user step. The refresh answer has no refresh token: the old one is kept.
    server.revoke_access_tokens();
    assert_eq!(run_once(&server.url, &store), "called with at-2");
    let stats = server.stats();
    assert_eq!(count(&stats, "refreshGrants"), 1, "{stats}");
    assert_eq!(count(&stats, "authorizations"), 1, "{stats}");
    assert_eq!(count(&stats, "registrations"), 1, "{stats}");
    let stored = store.load(&server.url).expect("still kept");
    assert_eq!(stored.access_token, "at-2");
    assert_eq!(stored.refresh_token.as_deref(), Some("rt-1"));

    // So it can refresh again next time.
    server.revoke_access_tokens();
    assert_eq!(run_once(&server.url, &store), "called with at-3");
    let stats = server.stats();
    assert_eq!(count(&stats, "refreshGrants"), 2, "{stats}");
    assert_eq!(count(&stats, "authorizations"), 1, "{stats}");
}

#[test]
fn stored_credentials_stay_with_their_authorization_server_when_the_resource_moves() {
    let server = OAuthServer::start();
    let dir = tempfile::tempdir().unwrap();
    let store = TokenStore::at(dir.path().join(FILE_NAME));
    assert_eq!(run_once(&server.url, &store), "called with at-1");
    let base = server.url.trim_end_matches("/mcp").to_owned();
    let stored = store.load(&server.url).unwrap();
    assert_eq!(stored.issuer.as_deref(), Some(base.as_str()));
    assert!(stored.client_registered);

    // The resource now names another authorization server: the stored client and refresh
    // token (of the first) are not presented there; the client registers anew.
    server.migrate_authorization_server();
    assert_eq!(run_once(&server.url, &store), "called with at-2");
    let stats = server.stats();
    assert_eq!(count(&stats, "as2Registrations"), 1, "{stats}");
    assert_eq!(count(&stats, "foreignAtAs2"), 0, "{stats}");
    assert_eq!(count(&stats, "refreshGrants"), 0, "{stats}");
    let stored = store.load(&server.url).unwrap();
    assert_eq!(stored.issuer, Some(format!("{base}/as2")));
    assert_eq!(stored.client.client_id, "as2-client-1");
    assert_eq!(
        stored.refresh_token, None,
        "the first server's is not kept for the second"
    );
}

#[test]
fn an_entry_without_an_issuer_lends_no_credentials() {
    // Written by a version that did not bind credentials to their issuer: nothing says the
    // refresh token and client belong to the authorization server the resource names now.
    let dir = tempfile::tempdir().unwrap();
    let store = TokenStore::at(dir.path().join(FILE_NAME));
    let old = StoredToken {
        access_token: "at-old".into(),
        expires_at: None,
        refresh_token: Some("rt-old".into()),
        client: agentwire::mcp::oauth::OAuthClient {
            client_id: "client-old".into(),
            client_secret: None,
            auth_method: None,
        },
        client_registered: false,
        issuer: None,
    };
    store.save("https://a.example/mcp", &old).unwrap();
    let mut options = OAuthOptions::new(Authorizer::Headless);
    options.store = Some(store);
    assert_eq!(
        options.restore("https://a.example/mcp").as_deref(),
        Some("at-old")
    );
    assert!(options.config.refresh_token.is_none());
    assert!(options.config.client.is_none());
}

#[test]
fn an_expired_stored_token_is_not_sent_and_is_refreshed() {
    let server = OAuthServer::start();
    let dir = tempfile::tempdir().unwrap();
    let store = TokenStore::at(dir.path().join(FILE_NAME));
    assert_eq!(run_once(&server.url, &store), "called with at-1");
    let mut stored = store.load(&server.url).unwrap();
    stored.expires_at = Some(1);
    store.save(&server.url, &stored).unwrap();
    let refused_before = count(&server.stats(), "refused");

    assert_eq!(run_once(&server.url, &store), "called with at-2");
    let stats = server.stats();
    assert_eq!(count(&stats, "refreshGrants"), 1, "{stats}");
    assert_eq!(count(&stats, "authorizations"), 1, "{stats}");
    // The expired token was never sent: the one refusal is the request that carried none.
    assert_eq!(count(&stats, "refused"), refused_before + 1, "{stats}");
}

#[test]
fn an_unwritable_store_only_costs_the_next_runs_a_new_authorization() {
    let server = OAuthServer::start();
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join(FILE_NAME);
    std::fs::write(&path, "not a token store").unwrap();
    let store = TokenStore::at(&path);

    assert_eq!(run_once(&server.url, &store), "called with at-1");
    assert_eq!(run_once(&server.url, &store), "called with at-2");
    let stats = server.stats();
    assert_eq!(count(&stats, "authorizations"), 2, "{stats}");
    assert_eq!(
        std::fs::read_to_string(&path).unwrap(),
        "not a token store",
        "the file is left as it was"
    );

    // A stored entry of another client than the configured one is not used.
    let other = TokenStore::at(dir.path().join("other.json"));
    let foreign = StoredToken {
        access_token: "at-1".into(),
        expires_at: None,
        refresh_token: Some("rt-1".into()),
        client: agentwire::mcp::oauth::OAuthClient {
            client_id: "someone-else".into(),
            client_secret: None,
            auth_method: None,
        },
        client_registered: true,
        issuer: Some(server.url.clone()),
    };
    other.save(&server.url, &foreign).unwrap();
    let mut options = OAuthOptions::new(Authorizer::Headless);
    options.store = Some(other);
    options.config.client = Some(agentwire::mcp::oauth::OAuthClient {
        client_id: "client-9".into(),
        client_secret: None,
        auth_method: None,
    });
    assert_eq!(options.restore(&server.url), None);
    assert!(options.config.refresh_token.is_none());
}

#[test]
fn the_cli_uses_a_stored_token_and_mcp_logout_forgets_it() {
    let server = OAuthServer::start();
    let state = tempfile::tempdir().unwrap();
    let store = TokenStore::at(state.path().join(FILE_NAME));
    // A token kept by an earlier run (headless here: the CLI would open a browser).
    assert_eq!(run_once(&server.url, &store), "called with at-1");

    let mut project = common::Project::new();
    project
        .entry(
            "remote",
            json!({"type": "http", "url": server.url, "oauth": true}),
        )
        .fixture("local", "normal.mjs", &[]);
    let state_dir = state.path().to_str().unwrap();
    let env = [("AGENTWIRE_STATE_DIR", state_dir)];

    // The CLI finds the store through AGENTWIRE_STATE_DIR and needs no browser.
    let out = project.run_with_env(&["mcp", "call", "remote", "whoami", "--json"], &env);
    assert_eq!(out.code, 0, "{out:?}");
    assert!(out.stdout.contains("called with at-1"), "{out:?}");
    assert!(!out.stderr.contains("open this URL"), "{out:?}");
    assert_eq!(count(&server.stats(), "authorizations"), 1);

    let out = project.run_with_env(&["mcp", "logout", "remote"], &env);
    assert_eq!(out.code, 0, "{out:?}");
    assert!(
        out.stdout.contains("forgot the OAuth token of remote") && out.stdout.contains(&server.url),
        "{out:?}"
    );
    assert_eq!(store.load(&server.url), None);
    let out = project.run_with_env(&["mcp", "logout", "remote", "--json"], &env);
    assert_eq!(out.code, 0, "{out:?}");
    let report = out.json();
    assert_eq!(report["forgotten"], false, "{report}");
    assert_eq!(report["url"], server.url.as_str(), "{report}");

    for (name, message) in [
        ("nowhere", "no MCP server named \"nowhere\" (configured: "),
        ("local", "local is not an http server"),
    ] {
        let out = project.run_with_env(&["mcp", "logout", name], &env);
        assert_eq!(out.code, 2, "{out:?}");
        assert!(out.stderr.contains(message), "{out:?}");
    }
    assert!(project.pid("local").is_none(), "logout starts no server");
}

#[test]
fn a_client_registered_at_a_new_authorization_server_replaces_the_old_one_in_memory() {
    use agentwire::mcp::oauth::{OAuthClient, OAuthToken};
    let client = |id: &str| OAuthClient {
        client_id: id.into(),
        client_secret: None,
        auth_method: None,
    };
    let token = |id: &str, registered: bool, issuer: &str, refresh: Option<&str>| OAuthToken {
        access_token: "at".into(),
        refresh_token: refresh.map(str::to_owned),
        expires_in: None,
        scope: Some("mcp:basic".into()),
        client: client(id),
        client_registered: registered,
        issuer: issuer.into(),
        dpop: false,
    };
    let mut options = OAuthOptions::new(Authorizer::Headless);
    options.adopt(&mut token(
        "as1-client",
        true,
        "https://as1.example",
        Some("rt-1"),
    ));
    assert_eq!(options.config.client, Some(client("as1-client")));
    // The next round (same process) found another authorization server and registered there:
    // the first server's client must not stay on for the rounds after.
    let mut moved = token("as2-client", true, "https://as2.example", None);
    options.adopt(&mut moved);
    assert_eq!(options.config.client, Some(client("as2-client")));
    assert!(options.config.client_registered);
    assert_eq!(
        options.config.credentials_issuer.as_deref(),
        Some("https://as2.example")
    );
    assert_eq!(
        options.config.refresh_token, None,
        "rt-1 is the first server's"
    );
    assert_eq!(moved.refresh_token, None);
    assert_eq!(options.config.previous_scope.as_deref(), Some("mcp:basic"));
    // A refresh at the same server without a new refresh token keeps the one in force.
    options.adopt(&mut token(
        "as2-client",
        true,
        "https://as2.example",
        Some("rt-2"),
    ));
    let mut refreshed = token("as2-client", true, "https://as2.example", None);
    options.adopt(&mut refreshed);
    assert_eq!(refreshed.refresh_token.as_deref(), Some("rt-2"));
    // A pre-registered client is the user's and stays.
    let mut options = OAuthOptions::new(Authorizer::Headless);
    options.config.client = Some(client("mine"));
    options.adopt(&mut token("mine", false, "https://as1.example", None));
    options.adopt(&mut token("mine", false, "https://as2.example", None));
    assert_eq!(options.config.client, Some(client("mine")));
    assert!(!options.config.client_registered);
}
