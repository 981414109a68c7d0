//! `agentwire mcp login SERVER` and `agentwire mcp logout SERVER`: the OAuth authorization of
//! one `http` server, ahead of time (so an unattended run finds a token) or forgotten (so the
//! next connection authorizes anew: another account, revoked access, a changed scope).

use crate::app::servers::plan;
use crate::app::{App, ServerSelection};
use crate::config::project_config::{choose_config_without_asking, TrustPrompt};
use crate::config::settings::Settings;
use crate::transport::token_store::{unix_now, StoredToken, TokenStore};
use agentwire::config::{OAuthSettings, ServerConfig, ServerTransport};
use agentwire::driver::ServerStatus;
use serde_json::{json, Value};

/// A process exit status, as `commands` returns them (named here, not imported: `commands`
/// imports this file's OAuth state, and files import each other in one direction only).
type ExitCode = i32;

/// Connects `server` (authorizing it if no kept token works) and says how it went. Exit 0 when
/// authorized; 1 when the authorization failed; 2 for an unknown server, one that is not
/// `http`, or one without `oauth`.
pub async fn mcp_login(options: &Settings, server: &str) -> ExitCode {
    let (url, settings) = match oauth_server(options, server) {
        Ok(found) => found,
        Err(message) => {
            crate::errln!("error: {message}");
            return 2;
        }
    };
    let store = settings
        .store_tokens
        .then(TokenStore::default_location)
        .flatten();
    let before = store.as_ref().and_then(|s| s.load(&url));
    // The normal connection: a kept token is tried first, and a refusal authorizes. Quiet:
    // the model notice and the status line would only repeat what is reported below (the
    // browser prompt, if any, still shows).
    let app = match App::start(
        options,
        ServerSelection::Only(server),
        true,
        TrustPrompt::Refuse,
    )
    .await
    {
        Ok(app) => app,
        Err(message) => {
            crate::errln!("error: {message}");
            return 2;
        }
    };
    let failure = app
        .runtime
        .servers()
        .into_iter()
        .find_map(|(name, status)| match status {
            ServerStatus::Failed { reason } if name == server => Some(reason),
            _ => None,
        });
    app.shutdown().await;
    if let Some(reason) = failure {
        let message = crate::os::display_url::redact_message(&format!(
            "could not authorize {server} ({url}): {reason}"
        ));
        if options.json {
            crate::outln!(
                "{}",
                json!({"server": server, "url": url, "error": message})
            );
        } else {
            crate::errln!("error: {message}");
        }
        return 1;
    }
    let after = store.as_ref().and_then(|s| s.load(&url));
    let fresh = after.is_some() && after != before;
    let path = store.as_ref().map(|s| s.path().display().to_string());
    if options.json {
        let expires = after.as_ref().and_then(|t| t.expires_at);
        let out = json!({"server": server, "url": url, "store": path, "new": fresh,
            "expiresAt": expires});
        crate::outln!("{out}");
        return 0;
    }
    match (&path, fresh) {
        (Some(path), true) => crate::outln!(
            "authorized {server} ({url}); the token is kept in {path}{}",
            lifetime(after.as_ref())
        ),
        (Some(path), false) if after.is_some() => crate::outln!(
            "{server} ({url}) is authorized already: it accepted the token kept in {path}"
        ),
        // A server that asked for nothing, a store that could not be written (the warning
        // said why), or a DPoP-bound token (useless without this process's key).
        (Some(_), false) => crate::outln!(
            "{server} ({url}) is connected; no token is kept for it (none was needed, the store \
             could not be written, or the token is bound to this run's DPoP key)"
        ),
        (None, _) => crate::outln!(
            "authorized {server} ({url}) for this run only: its \"oauth\" has \"storeTokens\": \
             false, so the next run authorizes again"
        ),
    }
    0
}

/// The OAuth state of a configured server, for `mcp list`: `None` without OAuth, else whether
/// a token is kept (`kept`), when it expires (`expiresAt`, Unix seconds) and whether tokens are
/// kept at all (`storeTokens`).
pub fn oauth_state(server: &ServerConfig) -> Option<Value> {
    let ServerTransport::Http {
        url,
        oauth: Some(settings),
        ..
    } = &server.transport
    else {
        return None;
    };
    if !settings.store_tokens {
        return Some(json!({"kept": false, "storeTokens": false}));
    }
    let kept = TokenStore::default_location().and_then(|store| store.load(url));
    Some(json!({
        "kept": kept.is_some(),
        "expiresAt": kept.and_then(|t| t.expires_at),
        "storeTokens": true,
    }))
}

/// `oauth_state` in words: "OAuth token kept, valid for about 42 minutes".
pub fn describe_oauth_state(state: &Value) -> String {
    if state["storeTokens"] == false {
        return "OAuth tokens in memory only".into();
    }
    if state["kept"] != true {
        return "no OAuth token kept (`agentwire mcp login` authorizes ahead of time)".into();
    }
    match state["expiresAt"].as_u64() {
        Some(at) if at <= unix_now() => "OAuth token kept, expired (refreshed on next use)".into(),
        Some(at) => format!(
            "OAuth token kept, valid for about {} minutes",
            (at - unix_now()) / 60
        ),
        None => "OAuth token kept".into(),
    }
}

/// ", valid for about N minutes" when the token says when it expires.
fn lifetime(token: Option<&StoredToken>) -> String {
    match token.and_then(|t| t.expires_at) {
        Some(at) => format!(
            ", valid for about {} minutes",
            at.saturating_sub(unix_now()) / 60
        ),
        None => String::new(),
    }
}

/// Forgets the stored tokens of `server` (an `http` server of the config). Exit 0 whether or
/// not a token was stored; 2 for an unknown server, one that is not `http`, or a store that
/// cannot be rewritten.
pub fn mcp_logout(options: &Settings, server: &str) -> ExitCode {
    match forget(options, server) {
        Ok((url, path, forgotten)) => {
            if options.json {
                let out =
                    json!({"server": server, "url": url, "store": path, "forgotten": forgotten});
                crate::outln!("{out}");
            } else if forgotten {
                crate::outln!("forgot the OAuth token of {server} ({url}) in {path}");
            } else {
                crate::outln!("no OAuth token was stored for {server} ({url}) in {path}");
            }
            0
        }
        Err(message) => {
            crate::errln!("error: {message}");
            2
        }
    }
}

/// The server's URL, the store's path, and whether an entry was removed.
fn forget(options: &Settings, server: &str) -> Result<(String, String, bool), String> {
    let url = http_server(options, server)?.0;
    let store = TokenStore::default_location()
        .ok_or("no place for the token store: set AGENTWIRE_STATE_DIR or HOME")?;
    let forgotten = store.forget(&url)?;
    Ok((url, store.path().display().to_string(), forgotten))
}

/// The URL and OAuth settings of `server`, which must be an `http` server with `oauth`.
fn oauth_server(options: &Settings, server: &str) -> Result<(String, OAuthSettings), String> {
    match http_server(options, server)? {
        (url, Some(settings)) => Ok((url, settings)),
        (_, None) => Err(format!(
            "{server} does not use OAuth: add \"oauth\": true (or an object) to its entry in the \
             config"
        )),
    }
}

/// The URL and OAuth settings (if any) of `server`, which must be an `http` server of the
/// config; the error lists the configured servers.
fn http_server(
    options: &Settings,
    server: &str,
) -> Result<(String, Option<OAuthSettings>), String> {
    let choice = choose_config_without_asking(options)?;
    let servers = plan(&choice)?.servers;
    let Some(config) = servers.iter().find(|s| s.name == server) else {
        let known: Vec<_> = servers.iter().map(|s| s.name.as_str()).collect();
        let untrusted = match choice.refusal {
            Some(refusal) => format!("; {refusal}"),
            None => String::new(),
        };
        return Err(format!(
            "no MCP server named {server:?} (configured: {}){untrusted}",
            known.join(", ")
        ));
    };
    match &config.transport {
        ServerTransport::Http { url, oauth, .. } => Ok((url.clone(), oauth.clone())),
        _ => Err(format!(
            "{server} is not an http server: only http servers keep OAuth tokens"
        )),
    }
}
