//! The `agentwire` command line: parse, assemble the app, dispatch.

pub mod args;

use crate::app::{App, ServerSelection};
use crate::commands;
use crate::project_config::TrustPrompt;
use args::{Cli, Command, McpCommand};
use std::io::IsTerminal;

/// Runs the parsed command line; returns the process exit status.
pub async fn main(cli: Cli) -> i32 {
    let options = &cli.common;
    // Needs the trust store only.
    if let Some(Command::Trust { dir, revoke, list }) = &cli.command {
        return crate::trust_command::run(dir.as_deref(), *revoke, *list, options.json);
    }
    // Needs the config only: no server is started.
    if let Some(Command::Mcp {
        command: McpCommand::Logout { server },
    }) = &cli.command
    {
        return crate::account::mcp_logout(options, server);
    }
    // Starts the one server itself, to report on its authorization.
    if let Some(Command::Mcp {
        command: McpCommand::Login { server },
    }) = &cli.command
    {
        return crate::account::mcp_login(options, server).await;
    }
    let selection = match &cli.command {
        Some(Command::Mcp {
            command: McpCommand::Call { server, .. },
        }) => ServerSelection::Only(server),
        _ => ServerSelection::All,
    };
    // `mcp` and `tools` print machine-readable results: keep startup chatter off unless asked.
    let quiet = options.json && !matches!(cli.command, Some(Command::Run { .. }) | None);
    // An interactive session asks once whether to trust the workspace's `.mcp.json`.
    let interactive = match &cli.command {
        None => std::io::stdin().is_terminal(),
        Some(Command::Run { .. }) => {
            !options.json && std::io::stdin().is_terminal() && std::io::stderr().is_terminal()
        }
        _ => false,
    };
    let prompt = if interactive {
        TrustPrompt::Ask
    } else {
        TrustPrompt::Refuse
    };
    let app = match App::start(options, selection, quiet, prompt).await {
        Ok(app) => app,
        Err(message) => {
            crate::errln!("error: {message}");
            return 2;
        }
    };
    let code = match &cli.command {
        Some(Command::Run { prompt }) => commands::run(&app, prompt).await,
        Some(Command::Mcp {
            command: McpCommand::List,
        }) => commands::mcp_list(&app, options.json),
        Some(Command::Mcp {
            command: McpCommand::Call { server, tool, args },
        }) => commands::mcp_call(&app, server, tool, args, options.json).await,
        Some(Command::Tools) => commands::tools(&app, options.json),
        Some(
            Command::Mcp {
                command: McpCommand::Logout { .. } | McpCommand::Login { .. },
            }
            | Command::Trust { .. },
        ) => unreachable!("handled before the app starts"),
        None if std::io::stdin().is_terminal() => match crate::repl::run(&app).await {
            Ok(()) => 0,
            Err(message) => {
                crate::errln!("error: {message}");
                1
            }
        },
        None => {
            eprintln!("error: no command given and stdin is not a terminal; try `agentwire run \"PROMPT\"` or `agentwire --help`");
            2
        }
    };
    app.shutdown().await;
    code
}
