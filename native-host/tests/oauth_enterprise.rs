//! Cross-app access: a `.mcp.json` with `oauth.enterprise` reaches a server behind OAuth
//! through the identity provider's token exchange and the JWT bearer grant, with no browser,
//! and an expired ID token fails that server with an error naming the provider. Without an ID
//! token, the user signs in at the identity provider first (headless here).

mod common;

use agentwire::mcp::oauth::{EnterpriseGrant, OAuthClient};
use agentwire_host::transport::oauth::{Authorizer, OAuthOptions};
use common::oauth_server::{count, whoami_with, OAuthServer};
use serde_json::json;
use std::path::Path;

/// A project whose `remote` server uses cross-app access with the ID token from `$ADA_ID_TOKEN`.
fn enterprise_project(server: &OAuthServer) -> common::Project {
    let idp = server.url.replace("/mcp", "/idp/token");
    let mut project = common::Project::new();
    project.entry(
        "remote",
        json!({"type": "http", "url": server.url, "oauth": {
            "clientId": "enterprise-app", "clientSecret": "${ENT_SECRET}",
            "enterprise": {"idpTokenEndpoint": idp, "idToken": "${ADA_ID_TOKEN}",
                "idpClientId": "agentwire"}}}),
    );
    project
}

/// `agentwire mcp call remote whoami --json`, with tokens kept under `state` and `id_token` as
/// the user's ID token from the identity provider.
fn call_whoami(project: &common::Project, state: &Path, id_token: &str) -> common::CliOutput {
    let env = [
        ("AGENTWIRE_STATE_DIR", state.to_str().unwrap()),
        ("ENT_SECRET", "ent-secret"),
        ("ADA_ID_TOKEN", id_token),
    ];
    project.run_with_env(&["mcp", "call", "remote", "whoami", "--json"], &env)
}

#[test]
fn the_cli_reaches_the_server_through_the_identity_provider() {
    let server = OAuthServer::start();
    let project = enterprise_project(&server);
    let state = tempfile::tempdir().unwrap();
    let out = call_whoami(&project, state.path(), "id-token-of-ada");
    assert_eq!(out.code, 0, "{out:?}");
    assert!(out.stdout.contains("called with at-1"), "{out:?}");
    assert!(!out.stderr.contains("open this URL"), "no browser: {out:?}");
    let stats = server.stats();
    assert_eq!(count(&stats, "exchanges"), 1, "{stats}");
    assert_eq!(count(&stats, "jwtGrants"), 1, "{stats}");
    assert_eq!(count(&stats, "authorizations"), 0, "{stats}");
    assert_eq!(count(&stats, "registrations"), 0, "{stats}");

    // The token is kept like any other: the next run asks nobody.
    let out = call_whoami(&project, state.path(), "id-token-of-ada");
    assert_eq!(out.code, 0, "{out:?}");
    assert!(out.stdout.contains("called with at-1"), "{out:?}");
    assert_eq!(count(&server.stats(), "exchanges"), 1);
}

#[test]
fn an_expired_id_token_fails_the_server_naming_the_identity_provider() {
    let server = OAuthServer::start();
    let project = enterprise_project(&server);
    let state = tempfile::tempdir().unwrap();
    let out = call_whoami(&project, state.path(), "stale-token-of-ada");
    assert_ne!(out.code, 0, "{out:?}");
    let idp = server.url.replace("/mcp", "/idp/token");
    let all = format!("{}{}", out.stdout, out.stderr);
    assert!(
        all.contains(&idp) && all.contains("invalid_grant (the ID token has expired)"),
        "{out:?}"
    );
    assert!(
        !all.contains("stale-token-of-ada"),
        "the ID token is never shown: {out:?}"
    );
    let stats = server.stats();
    assert_eq!(count(&stats, "jwtGrants"), 0, "{stats}");
    assert_eq!(count(&stats, "authorizations"), 0, "{stats}");
}

#[test]
fn without_an_id_token_the_user_signs_in_at_the_identity_provider_first() {
    let server = OAuthServer::start();
    let mut options = OAuthOptions::new(Authorizer::Headless);
    options.config.client = Some(OAuthClient {
        client_id: "enterprise-app".into(),
        client_secret: Some("ent-secret".into()),
        auth_method: None,
    });
    options.config.enterprise = Some(EnterpriseGrant {
        idp_issuer: Some(server.url.replace("/mcp", "/idp")),
        idp_token_endpoint: None,
        id_token: None,
        idp_client_id: "agentwire".into(),
        idp_client_secret: None,
    });
    assert_eq!(whoami_with(&server.url, options), "called with at-1");
    let stats = server.stats();
    assert_eq!(count(&stats, "idpSignIns"), 1, "{stats}");
    assert_eq!(count(&stats, "exchanges"), 1, "{stats}");
    assert_eq!(count(&stats, "jwtGrants"), 1, "{stats}");
    assert_eq!(
        count(&stats, "authorizations"),
        0,
        "no consent at the server: {stats}"
    );
}
