//! `agentwire agents list [--json]`: the subagents a session offers; no server starts.

use crate::cli::args::{AgentsCommand, Cli, Command};
use crate::extensions::agents::{agent_files, AgentFiles};
use crate::extensions::session::Extensions;
use agentwire::subagent::AgentDefinition;
use serde_json::{json, Value};

/// Where `def` came from, as read.
fn path_of<'a>(files: &'a AgentFiles, def: &AgentDefinition) -> &'a str {
    files
        .paths
        .iter()
        .rev()
        .find(|(name, path)| *name == def.name && (def.source != "built-in" || path == "built-in"))
        .map_or("", |(_, path)| path.as_str())
}

/// One agent as `agents list --json` shows it.
fn agent_json(files: &AgentFiles, def: &AgentDefinition) -> Value {
    json!({
        "name": def.name,
        "description": def.description,
        "source": def.source,
        "location": path_of(files, def),
        "tools": def.tools,
        "disallowedTools": def.disallowed_tools,
        "model": def.model,
        "maxTurns": def.max_turns,
        "skills": def.skills,
        "mcpServers": def.mcp_servers,
        "permissionMode": def.permission_mode.as_str(),
        "instructionsChars": def.instructions.chars().count(),
        "warnings": def.warnings,
    })
}

/// `agents list --json`.
pub fn agents_json(files: &AgentFiles) -> Value {
    let agents: Vec<Value> = files
        .set
        .sorted()
        .into_iter()
        .map(|def| agent_json(files, def))
        .collect();
    json!({"agents": agents, "errors": files.errors, "notes": files.notes})
}

/// `agents list` for a person.
pub fn print_agents(files: &AgentFiles) {
    for def in files.set.sorted() {
        let tools = match &def.tools {
            None => "all of the parent's tools".to_owned(),
            Some(list) if list.is_empty() => "no tools".to_owned(),
            Some(list) => list.join(", "),
        };
        crate::outln!("{} ({}) {}", def.name, def.source, path_of(files, def));
        crate::outln!(
            "  {}",
            def.description
                .split_whitespace()
                .collect::<Vec<_>>()
                .join(" ")
        );
        let mut line = format!("  tools: {tools}");
        if !def.disallowed_tools.is_empty() {
            line.push_str(&format!("; not: {}", def.disallowed_tools.join(", ")));
        }
        line.push_str(&format!(
            "; model: {}; permission mode: {}",
            def.model.as_deref().unwrap_or("inherit"),
            def.permission_mode.as_str()
        ));
        if let Some(turns) = def.max_turns {
            line.push_str(&format!("; max turns: {turns}"));
        }
        crate::outln!("{line}");
        for warning in &def.warnings {
            crate::outln!("  warning: {warning}");
        }
    }
    for note in &files.notes {
        crate::outln!("note: {note}");
    }
    for error in &files.errors {
        crate::outln!("error: {error}");
    }
}

/// Runs an `agents` command; `None` for any other command.
pub fn run(cli: &Cli) -> Option<i32> {
    let options = &cli.common;
    let Command::Agents {
        command: AgentsCommand::List,
    } = cli.command.as_ref()?
    else {
        return None;
    };
    let extensions =
        Extensions::discover(&options.plugin_dirs, options.bare, options.trust_workspace);
    let mut files = agent_files(&extensions);
    let provider = crate::app::agent_models::session_provider(
        options.model.as_deref(),
        options.base_url.as_deref(),
    );
    crate::app::agent_models::check_models(&mut files, provider);
    if options.json {
        crate::outln!("{}", agents_json(&files));
    } else {
        print_agents(&files);
    }
    Some(0)
}
