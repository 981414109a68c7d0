//! `agentwire mcp logout SERVER`: forgets the OAuth tokens kept for one server, so its next
//! connection authorizes anew (another account, revoked access, a changed scope).

use crate::cli::args::CommonOptions;
use crate::commands::ExitCode;
use crate::servers::plan;
use crate::token_store::TokenStore;
use agentwire::config::ServerTransport;
use serde_json::json;

/// Forgets the stored tokens of `server` (an `http` server of the config). Exit 0 whether or
/// not a token was stored; 2 for an unknown server, one that is not `http`, or a store that
/// cannot be rewritten.
pub fn mcp_logout(options: &CommonOptions, server: &str) -> ExitCode {
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
            eprintln!("error: {message}");
            2
        }
    }
}

/// The server's URL, the store's path, and whether an entry was removed.
fn forget(options: &CommonOptions, server: &str) -> Result<(String, String, bool), String> {
    let servers = plan(options.config.as_deref())?.servers;
    let Some(config) = servers.iter().find(|s| s.name == server) else {
        let known: Vec<_> = servers.iter().map(|s| s.name.as_str()).collect();
        return Err(format!(
            "no MCP server named {server:?} (configured: {})",
            known.join(", ")
        ));
    };
    let ServerTransport::Http { url, .. } = &config.transport else {
        return Err(format!(
            "{server} is not an http server: only http servers keep OAuth tokens"
        ));
    };
    let store = TokenStore::default_location()
        .ok_or("no place for the token store: set AGENTWIRE_STATE_DIR or HOME")?;
    let forgotten = store.forget(url)?;
    Ok((url.clone(), store.path().display().to_string(), forgotten))
}
