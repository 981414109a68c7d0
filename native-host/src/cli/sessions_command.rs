//! `agentwire sessions list|show|rm [--json]`: the saved sessions of this workspace.

use crate::app::session_attach::store;
use crate::app::sessions::info_json;
use crate::cli::args::SessionsCommand;
use crate::config::settings::Settings;
use agentwire::transcript::Entry;
use serde_json::Value;

/// Runs the command; exit 0, 1 on an error (named on stderr).
pub fn run(settings: &Settings, command: &SessionsCommand, as_json: bool) -> i32 {
    match execute(settings, command, as_json) {
        Ok(()) => 0,
        Err(e) => {
            crate::errln!("error: {e}");
            1
        }
    }
}

fn execute(settings: &Settings, command: &SessionsCommand, as_json: bool) -> Result<(), String> {
    let store = store(settings).ok_or("no state directory (set AGENTWIRE_STATE_DIR or HOME)")?;
    match command {
        SessionsCommand::List => {
            let sessions: Vec<Value> = store
                .list()?
                .iter()
                .map(|info| info_json(&store, info))
                .collect();
            if as_json {
                crate::outln!("{}", Value::Array(sessions));
            } else if sessions.is_empty() {
                crate::outln!("no sessions in this workspace");
            } else {
                for s in sessions {
                    let what = match (&s["error"], &s["title"]) {
                        (Value::String(e), _) => format!("unreadable: {e}"),
                        (_, Value::String(t)) => t.clone(),
                        _ => String::new(),
                    };
                    crate::outln!(
                        "{}  {:>5} entries  {}",
                        s["id"].as_str().unwrap_or(""),
                        s["entries"].as_u64().unwrap_or(0),
                        what
                    );
                }
            }
        }
        SessionsCommand::Show { id } => {
            let parsed = store.load(id)?;
            for warning in &parsed.warnings {
                eprintln!("warning: {warning}");
            }
            for entry in parsed.transcript.entries() {
                if as_json {
                    crate::outln!("{}", entry.to_value());
                } else {
                    crate::outln!("{}", human(entry));
                }
            }
            // The subagents' transcripts, kept beside the session's, each after a heading.
            for child in store.load_children(id)? {
                let file = child.path.display().to_string();
                if !as_json {
                    crate::outln!("── {file}");
                }
                for entry in child.parsed.transcript.entries() {
                    if as_json {
                        let mut value = entry.to_value();
                        value["agent_transcript"] = file.clone().into();
                        crate::outln!("{value}");
                    } else {
                        crate::outln!("  {}", human(entry));
                    }
                }
            }
        }
        SessionsCommand::Rm { id } => {
            store.remove(id)?;
            if as_json {
                crate::outln!("{}", serde_json::json!({"removed": id}));
            } else {
                crate::outln!("removed session {id}");
            }
        }
    }
    Ok(())
}

/// One entry as a line for people.
fn human(entry: &Entry) -> String {
    let clip = |t: &str| {
        agentwire::registry::char_prefix(t, 200)
            .0
            .replace('\n', " ")
    };
    match entry {
        Entry::User { content } => format!("user: {}", clip(content)),
        Entry::Assistant {
            content,
            tool_calls,
            ..
        } => {
            let calls: Vec<String> = tool_calls
                .iter()
                .map(|c| format!("{} [{}]", c.name, c.id))
                .collect();
            match (content, calls.is_empty()) {
                (Some(text), true) => format!("assistant: {}", clip(text)),
                (Some(text), false) => {
                    format!("assistant: {} → {}", clip(text), calls.join(", "))
                }
                (None, _) => format!("assistant → {}", calls.join(", ")),
            }
        }
        Entry::ToolResult {
            call_id,
            name,
            content,
            is_error,
        } => format!(
            "{} {name} [{call_id}]: {}",
            if *is_error { "tool error" } else { "tool" },
            clip(content)
        ),
        Entry::Compaction {
            mode,
            tokens_before,
            tokens_after,
            ..
        } => format!(
            "compacted ({}): {tokens_before} → {tokens_after} tokens",
            mode.as_str()
        ),
        other => format!("{}: {}", other.kind(), other.to_value()),
    }
}
