//! The `agentwire` command line: parse, assemble the app, dispatch.

pub mod account;
pub mod agents_command;
pub mod args;
pub mod commands;
pub mod doctor;
pub mod extension_commands;
pub mod extension_listing;
pub mod hooks_listing;
pub mod instructions_command;
pub mod mcp_prompts;
pub mod prompt_completion;
pub mod repl;
pub mod repl_commands;
pub mod repl_sessions;
pub mod server_skills_listing;
pub mod sessions_command;
pub mod trust_command;

use crate::app::{App, ServerSelection};
use crate::config::project_config::TrustPrompt;
use crate::os::signals::{decide, Response, Signals, Situation};
use agentwire::driver::RunInterrupt;
use args::{Cli, Command, McpCommand, ToolsCommand};
use std::future::Future;
use std::io::IsTerminal;
use std::pin::Pin;
use std::time::Duration;

/// Runs the parsed command line; returns the process exit status. SIGINT and SIGTERM are
/// handled as [`crate::os::signals`] describes.
pub async fn main(cli: Cli, signals: &mut Signals) -> i32 {
    let options = &cli.common;
    // What the application is assembled from.
    let settings = options.settings();
    // Needs the kernel only.
    if let Some(Command::Doctor) = &cli.command {
        return crate::cli::doctor::run(&settings, options.json);
    }
    // Needs the files only: no server is started.
    if let Some(Command::Instructions) = &cli.command {
        return crate::cli::instructions_command::run(&settings, options.json);
    }
    // Needs the trust store only.
    if let Some(Command::Trust { dir, revoke, list }) = &cli.command {
        return crate::cli::trust_command::run(dir.as_deref(), *revoke, *list, options.json);
    }
    // Needs the session store only.
    if let Some(Command::Sessions { command }) = &cli.command {
        return crate::cli::sessions_command::run(&settings, command, options.json);
    }
    // Needs discovery only: no server is started (unless servers serve skills to list).
    let lists_server_skills =
        crate::cli::server_skills_listing::wanted(cli.command.as_ref(), &settings);
    if !lists_server_skills {
        if let Some(code) = crate::cli::extension_commands::run(&cli) {
            return code;
        }
    }
    if let Some(code) = crate::cli::agents_command::run(&cli) {
        return code;
    }
    // Needs the config only: no server is started.
    if let Some(Command::Mcp {
        command: McpCommand::Logout { server },
    }) = &cli.command
    {
        return crate::cli::account::mcp_logout(&settings, server);
    }
    // Starts the one server itself, to report on its authorization.
    if let Some(Command::Mcp {
        command: McpCommand::Login { server },
    }) = &cli.command
    {
        // It may wait minutes for the browser: a signal ends it (dropping the login closes
        // its listener and stops the server it started).
        let login = crate::cli::account::mcp_login(&settings, server);
        tokio::pin!(login);
        return tokio::select! {
            code = &mut login => code,
            stop = signals.recv() => {
                eprintln!("agentwire: {} during mcp login; exiting", stop.reason());
                stop.exit_code()
            }
        };
    }
    let selection = match &cli.command {
        Some(Command::Mcp {
            command:
                McpCommand::Call { server, .. }
                | McpCommand::Read { server, .. }
                | McpCommand::Prompt { server, .. }
                | McpCommand::Resources {
                    server: Some(server),
                }
                | McpCommand::Prompts {
                    server: Some(server),
                },
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
    // An interactive session asks once whether to trust the workspace's `.mcp.json`.
    let asks_trust = match &cli.command {
        None => std::io::stdin().is_terminal(),
        Some(Command::Run { .. }) => {
            !options.json && std::io::stdin().is_terminal() && std::io::stderr().is_terminal()
        }
        _ => false,
    };
    let prompt = if asks_trust {
        TrustPrompt::Ask
    } else {
        TrustPrompt::Refuse
    };
    // A run or the interactive session keeps its conversation: announced before anything else.
    let decides = !settings.session.approve.is_empty() || !settings.session.reject.is_empty();
    if decides && settings.session.resume.is_none() && !settings.session.continue_latest {
        crate::errln!(
            "error: --approve and --reject continue a paused run: add --resume ID or --continue"
        );
        return 2;
    }
    let session = match &cli.command {
        Some(Command::Run { .. }) | None => match crate::app::session_attach::open(&settings) {
            Ok(session) => session,
            Err(message) => {
                crate::errln!("error: {message}");
                return 2;
            }
        },
        _ => None,
    };
    if let Some(session) = &session {
        announce_session(session, options.json);
    }
    let app = {
        let start = App::start(&settings, selection, quiet, prompt);
        tokio::pin!(start);
        tokio::select! {
            started = &mut start => match started {
                Ok(app) => app,
                Err(message) => {
                    crate::errln!("error: {message}");
                    return 2;
                }
            },
            // Servers still starting are dropped, which kills them; `main` ends what is left.
            stop = signals.recv() => {
                eprintln!("agentwire: {} while starting; exiting", stop.reason());
                return stop.exit_code();
            }
        }
    };
    if let Some(session) = &session {
        if let Err(message) = crate::app::session_attach::attach(&app, session) {
            crate::errln!("error: {message}");
            return 2;
        }
        // With a session, a run nobody can approve pauses instead of denying.
        app.terminal.pause_instead_of_denying(true);
    }
    let interactive = cli.command.is_none() && std::io::stdin().is_terminal();
    let interrupt = app.runtime.interrupt_handle();
    let command = dispatch(&app, &cli);
    tokio::pin!(command);
    // The exit status a signal asks for, when one did.
    let mut signalled = None;
    let code = loop {
        tokio::select! {
            code = &mut command => break code,
            stop = signals.recv() => {
                let now = Situation {
                    active: interrupt.is_active(),
                    interrupting: interrupt.is_requested(),
                    interactive,
                };
                match decide(stop, now) {
                    Response::Ignore => {}
                    Response::InterruptRun => {
                        let _ = interrupt.interrupt(stop.reason());
                        if !interactive {
                            signalled = Some(stop.exit_code());
                        }
                    }
                    Response::Exit(code) => {
                        let _ = interrupt.interrupt(stop.reason());
                        eprintln!("agentwire: {}; shutting down", stop.reason());
                        settle(command.as_mut(), &interrupt).await;
                        break code;
                    }
                }
            }
        }
    };
    app.shutdown().await;
    signalled.unwrap_or(code)
}

/// `{"type":"session","id","resumed"}` first on stdout with `--json`; a line on stderr otherwise.
fn announce_session(session: &crate::app::session_attach::OpenSession, json: bool) {
    for warning in &session.warnings {
        eprintln!("warning: {warning}");
    }
    if json {
        crate::outln!(
            "{}",
            serde_json::json!({"type": "session", "id": session.id, "resumed": session.resumed})
        );
    } else if session.resumed {
        crate::errln!("session {} (continued)", session.id);
    }
}

/// Lets an interrupted run record its end (audit lines, the terminal event) before the command
/// is abandoned: polls it until it finishes or its run is over, for at most 2 s.
async fn settle(mut command: Pin<&mut impl Future<Output = i32>>, interrupt: &RunInterrupt) {
    let give_up = tokio::time::sleep(Duration::from_secs(2));
    tokio::pin!(give_up);
    while interrupt.is_active() {
        tokio::select! {
            _ = command.as_mut() => return,
            _ = tokio::time::sleep(Duration::from_millis(10)) => {}
            _ = &mut give_up => return,
        }
    }
}

/// Runs the chosen command on a started app; returns its exit status.
async fn dispatch(app: &App, cli: &Cli) -> i32 {
    let options = &cli.common;
    match &cli.command {
        Some(Command::Run { prompt }) => {
            let session = &options.settings().session;
            if session.approve.is_empty() && session.reject.is_empty() {
                commands::run(app, prompt.as_deref().unwrap_or_default()).await
            } else {
                commands::resume_paused(app, &session.approve, &session.reject).await
            }
        }
        Some(Command::Mcp {
            command: McpCommand::List,
        }) => commands::mcp_list(app, options.json),
        Some(Command::Mcp {
            command: McpCommand::Call { server, tool, args },
        }) => commands::mcp_call(app, server, tool, args, options.json).await,
        Some(Command::Mcp {
            command: McpCommand::Resources { server },
        }) => mcp_prompts::resources(app, server.as_deref(), options.json).await,
        Some(Command::Mcp {
            command: McpCommand::Read { server, uri },
        }) => mcp_prompts::read(app, server, uri, options.json).await,
        Some(Command::Mcp {
            command: McpCommand::Prompts { server },
        }) => mcp_prompts::prompts(app, server.as_deref(), options.json).await,
        Some(Command::Mcp {
            command: McpCommand::Prompt { server, name, args },
        }) => mcp_prompts::prompt(app, server, name, args, options.json).await,
        Some(Command::Tools { command: None }) => commands::tools(app, options.json),
        Some(Command::Skills {
            command: args::SkillsCommand::List,
        }) => crate::cli::server_skills_listing::run(app, options.json).await,
        Some(Command::Tools {
            command: Some(ToolsCommand::Search { query, limit }),
        }) => commands::tools_search(app, query, *limit, options.json).await,
        Some(
            Command::Mcp {
                command: McpCommand::Logout { .. } | McpCommand::Login { .. },
            }
            | Command::Trust { .. }
            | Command::Doctor
            | Command::Sessions { .. }
            | Command::Instructions
            | Command::Skills { .. }
            | Command::Hooks { .. }
            | Command::Agents { .. }
            | Command::Plugins { .. },
        ) => unreachable!("handled before the app starts"),
        None if std::io::stdin().is_terminal() => match crate::cli::repl::run(app).await {
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
    }
}
