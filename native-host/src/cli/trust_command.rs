//! `agentwire trust [DIR] [--revoke] [--list]`: the user's word on a workspace, kept in the
//! trust store (see [`crate::config::trust`]). Starts no server and reads no config.

use crate::cli::commands::ExitCode;
use crate::config::trust::{canonical_dir, TrustStore};
use serde_json::{json, Value};
use std::path::Path;

/// Trusts DIR (default: the current directory), revokes that, or lists the answers. Exit 0 on
/// success, 2 for a directory that does not exist or a store that cannot be read or written.
pub fn run(dir: Option<&Path>, revoke: bool, list: bool, as_json: bool) -> ExitCode {
    let outcome = TrustStore::default_location()
        .ok_or_else(|| "no place for the trust store: set AGENTWIRE_STATE_DIR or HOME".to_owned())
        .and_then(|store| {
            let dir = dir.unwrap_or(Path::new("."));
            if list {
                list_entries(&store, as_json)
            } else if revoke {
                revoke_dir(&store, dir, as_json)
            } else {
                trust_dir(&store, dir, as_json)
            }
        });
    match outcome {
        Ok(()) => 0,
        Err(message) => {
            if as_json {
                crate::outln!("{}", json!({"error": message}));
            } else {
                eprintln!("error: {message}");
            }
            2
        }
    }
}

fn trust_dir(store: &TrustStore, dir: &Path, as_json: bool) -> Result<(), String> {
    let dir = canonical_dir(dir)?;
    store.set(&dir, true)?;
    let shown = dir.display();
    let file = store.path().display();
    if as_json {
        let out =
            json!({"workspace": shown.to_string(), "trusted": true, "store": file.to_string()});
        crate::outln!("{out}");
    } else {
        crate::outln!("trusted {shown}: its .mcp.json is used from now on (kept in {file})");
    }
    Ok(())
}

fn revoke_dir(store: &TrustStore, dir: &Path, as_json: bool) -> Result<(), String> {
    // A directory that is gone can still be revoked, by the absolute path it had.
    let dir =
        canonical_dir(dir).or_else(|problem| std::path::absolute(dir).map_err(|_| problem))?;
    let revoked = store.forget(&dir)?;
    let shown = dir.display();
    let file = store.path().display();
    if as_json {
        let out = json!({"workspace": shown.to_string(), "trusted": false, "revoked": revoked,
            "store": file.to_string()});
        crate::outln!("{out}");
    } else if revoked {
        crate::outln!(
            "{shown} is no longer trusted: its .mcp.json is ignored (removed from {file})"
        );
    } else {
        crate::outln!("{shown} had no entry in {file}; it is not trusted");
    }
    Ok(())
}

fn list_entries(store: &TrustStore, as_json: bool) -> Result<(), String> {
    let entries = store.list()?;
    let file = store.path().display();
    if as_json {
        let workspaces: Vec<Value> = entries
            .iter()
            .map(|(dir, entry)| json!({"path": dir, "trusted": entry.trusted, "at": entry.at}))
            .collect();
        crate::outln!(
            "{}",
            json!({"store": file.to_string(), "workspaces": workspaces})
        );
        return Ok(());
    }
    if entries.is_empty() {
        crate::outln!("no workspace is trusted ({file})");
    }
    for (dir, entry) in &entries {
        let answer = if entry.trusted {
            "trusted "
        } else {
            "declined"
        };
        crate::outln!("{answer} {dir}");
    }
    Ok(())
}
