//! The interactive session: a prompt with history and a few slash commands.

use crate::app::App;
use crate::cli::commands;
use crate::cli::mcp_prompts;
use crate::cli::prompt_completion::{command_of, PromptCompleter, Question};
use crate::cli::repl_commands::{help_text, parse, reserved_names, Action, Input};
use agentwire::driver::ServerStatus;
use rustyline::error::ReadlineError;
use rustyline::history::DefaultHistory;
use rustyline::Editor;

/// Said after the generated `/help` table: what a request line may also carry.
const HELP_TAIL: &str = "\
@server:uri in a request attaches that MCP resource; Tab completes commands and prompt arguments.";

/// `~/.agentwire_history`, when it is absent or a regular file: the line editor opens it with
/// a plain blocking `open`, which a FIFO there would hang forever.
fn history_file() -> Option<std::path::PathBuf> {
    let home = std::env::var_os("HOME").filter(|h| !h.is_empty())?;
    let path = std::path::PathBuf::from(home).join(".agentwire_history");
    match std::fs::metadata(&path) {
        Ok(meta) if !meta.is_file() => {
            eprintln!(
                "warning: history not kept: {} is not a regular file ({})",
                path.display(),
                crate::os::config_file::kind_of(&meta)
            );
            None
        }
        _ => Some(path),
    }
}

/// Runs the interactive session until `/quit` or end of input.
pub async fn run(app: &App) -> Result<(), String> {
    app.session_start("startup").await;
    let mut editor: Editor<PromptCompleter, DefaultHistory> =
        Editor::new().map_err(|e| format!("cannot start the line editor: {e}"))?;
    let (ask, mut questions) = tokio::sync::mpsc::unbounded_channel::<Question>();
    let history = history_file();
    if let Some(path) = &history {
        let _ = editor.load_history(path);
    }
    eprintln!("agentwire — type /help for commands, /quit to leave.");
    loop {
        // Tab completes slash commands, server prompts and (through the server) their arguments.
        let prompts = app.runtime.prompts(None).await.unwrap_or_default();
        let mut commands: Vec<String> = reserved_names().iter().map(|c| format!("/{c}")).collect();
        commands.extend(prompts.iter().map(command_of));
        editor.set_helper(Some(PromptCompleter {
            commands,
            prompts,
            ask: ask.clone(),
        }));
        // The editor blocks on the terminal; run it off the async thread, then take it back,
        // answering completion questions meanwhile.
        let reading = tokio::task::spawn_blocking(move || {
            let line = editor.readline("you › ");
            (editor, line)
        });
        tokio::pin!(reading);
        let (returned, line) = loop {
            tokio::select! {
                done = &mut reading => break done.map_err(|e| format!("line editor stopped: {e}"))?,
                Some((q, answer)) = questions.recv() => {
                    let values = app.runtime.complete(&q.server, &q.prompt, &q.argument, &q.value, q.context).await;
                    let _ = answer.send(values.unwrap_or_default());
                }
            }
        };
        editor = returned;
        let line = match line {
            Ok(line) => line,
            Err(ReadlineError::Interrupted) => continue,
            Err(ReadlineError::Eof) => break,
            Err(e) => return Err(format!("cannot read input: {e}")),
        };
        let input = line.trim();
        if input.is_empty() {
            continue;
        }
        let _ = editor.add_history_entry(input);
        match parse(input) {
            Input::Builtin(Action::Quit) => break,
            Input::Builtin(Action::Help) => {
                let entries = crate::cli::extension_listing::help_entries(app);
                crate::outln!("{}\n{HELP_TAIL}", help_text(&entries));
                let prompts = mcp_prompts::help_lines(app).await;
                if !prompts.is_empty() {
                    crate::outln!("MCP server prompts (arguments positional or name=value):");
                }
                for line in prompts {
                    crate::outln!("{line}");
                }
            }
            Input::Builtin(action @ (Action::Context | Action::Compact | Action::Resume)) => {
                let args = input
                    .split_once(char::is_whitespace)
                    .map_or("", |(_, a)| a.trim());
                crate::cli::repl_sessions::run(app, action, args).await
            }
            Input::Builtin(action) => {
                let clear = action == Action::Clear;
                builtin(app, action);
                if clear {
                    app.session_start("clear").await;
                }
            }
            Input::Slash { .. } if mcp_prompts::is_prompt_command(input) => {
                mcp_prompts::run_command(app, input).await
            }
            Input::Slash { name, .. } => slash(app, input, name).await,
            // Ctrl-C while a slow server reads a mentioned resource stops the wait.
            Input::Prompt(prompt) => match app
                .runtime
                .interruptible(app.runtime.attach_mentions(prompt))
                .await
            {
                Ok(Ok(prompt)) => {
                    let _ = app.runtime.run(&prompt, &app.terminal).await;
                }
                Ok(Err(e)) => {
                    crate::errln!("error: {}", crate::os::display_url::redact_message(&e))
                }
                Err(reason) => {
                    crate::errln!("interrupted: {reason} stopped reading the mentioned resources")
                }
            },
        }
    }
    if let Some(path) = &history {
        let _ = editor.save_history(path);
    }
    Ok(())
}

/// Carries out a built-in command other than `/quit`.
fn builtin(app: &App, action: Action) {
    match action {
        Action::Help => crate::outln!(
            "{}",
            help_text(&crate::cli::extension_listing::help_entries(app))
        ),
        Action::Tools => {
            commands::tools(app, false);
        }
        Action::Mcp => show_servers(app),
        Action::Clear => match app.runtime.with_agent(|agent| agent.clear_history()) {
            Ok(()) => {
                // A new conversation reads the instruction files again.
                for warning in app.reload_instructions() {
                    crate::errln!("warning: {warning}");
                }
                crate::outln!("conversation cleared")
            }
            Err(e) => crate::outln!("cannot clear: {e}"),
        },
        Action::Memory => crate::outln!(
            "{}",
            crate::cli::instructions_command::listing(app.instructions.borrow().as_ref(), None)
        ),
        Action::Skills => crate::cli::extension_listing::print_skills(&app.extensions.borrow()),
        Action::Plugins => crate::cli::extension_listing::print_plugins(&app.extensions.borrow()),
        Action::Reload => {
            let mut extensions = app.extensions.borrow_mut();
            let changes = extensions.reload();
            let catalog = |agent: &agentwire::agent::Agent| {
                agent
                    .skills()
                    .catalog(agentwire::ext::DEFAULT_CATALOG_CHARS)
            };
            let before = app.runtime.with_agent(|agent| catalog(agent));
            let after = app.runtime.with_agent(|agent| {
                extensions.install(agent);
                catalog(agent)
            });
            if changes.is_empty() {
                crate::outln!("nothing changed");
            }
            for change in changes {
                crate::outln!("{change}");
            }
            if before != after {
                crate::outln!(
                    "the skill catalog changed: the next request's cached prompt prefix will too"
                );
            }
        }
        Action::Quit | Action::Context | Action::Compact | Action::Resume => {}
    }
}

/// `/name args` for a skill or command (the runtime expands it and runs its snippets as gated
/// `bash` calls); an unknown name is said so, not sent to the model.
async fn slash(app: &App, line: &str, name: &str) {
    let known = app
        .runtime
        .with_agent(|agent| agent.skills().resolve(line).is_some());
    if known {
        let _ = app.runtime.run(line, &app.terminal).await;
    } else {
        crate::outln!("unknown command /{name}; /help lists them");
    }
}

fn show_servers(app: &App) {
    for (name, status) in app.runtime.servers() {
        match status {
            ServerStatus::Connected { tools } => crate::outln!("{name}: connected, {tools} tools"),
            ServerStatus::Failed { reason } => {
                crate::outln!("{name}: failed — {reason}");
                for line in app.stderr_tail(&name, 5) {
                    crate::outln!("    stderr: {line}");
                }
            }
            ServerStatus::Disabled => crate::outln!("{name}: disabled"),
            _ => crate::outln!("{name}: {}", status.as_str()),
        }
        for line in app.runtime.server_log(&name).iter().rev().take(3).rev() {
            crate::outln!("    log: {line}");
        }
    }
}
