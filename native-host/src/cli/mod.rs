//! The `agentwire` command line: parse, assemble the app, dispatch.

pub mod args;

use crate::app::{App, ServerSelection};
use crate::commands;
use args::{Cli, Command, McpCommand, ToolsCommand};
use std::io::IsTerminal;

/// Runs the parsed command line; returns the process exit status.
pub async fn main(cli: Cli) -> i32 {
    let options = &cli.common;
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
    // `tools search -` answers in JSON lines whatever `--json` says.
    let stdin_search = matches!(&cli.command, Some(Command::Tools {
        command: Some(ToolsCommand::Search { query, .. }),
    }) if query == "-");
    let quiet =
        (options.json || stdin_search) && !matches!(cli.command, Some(Command::Run { .. }) | None);
    let app = match App::start(options, selection, quiet).await {
        Ok(app) => app,
        Err(message) => {
            eprintln!("error: {message}");
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
        Some(Command::Tools { command: None }) => commands::tools(&app, options.json),
        Some(Command::Tools {
            command: Some(ToolsCommand::Search { query, limit }),
        }) => commands::tools_search(&app, query, *limit, options.json).await,
        Some(Command::Mcp {
            command: McpCommand::Logout { .. } | McpCommand::Login { .. },
        }) => unreachable!("handled before the app starts"),
        None if std::io::stdin().is_terminal() => match crate::repl::run(&app).await {
            Ok(()) => 0,
            Err(message) => {
                eprintln!("error: {message}");
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
