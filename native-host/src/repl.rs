//! The interactive session: a prompt with history and a few slash commands.

use crate::app::App;
use crate::commands;
use crate::repl_commands::{help_text, parse, Action, Input};
use agentwire::driver::ServerStatus;
use rustyline::error::ReadlineError;
use rustyline::DefaultEditor;

fn history_file() -> Option<std::path::PathBuf> {
    std::env::var_os("HOME").map(|home| std::path::PathBuf::from(home).join(".agentwire_history"))
}

/// Runs the interactive session until `/quit` or end of input.
pub async fn run(app: &App) -> Result<(), String> {
    let mut editor =
        DefaultEditor::new().map_err(|e| format!("cannot start the line editor: {e}"))?;
    if let Some(path) = history_file() {
        let _ = editor.load_history(&path);
    }
    eprintln!("agentwire — type /help for commands, /quit to leave.");
    loop {
        // The editor blocks on the terminal; run it off the async thread, then take it back.
        let (returned, line) = tokio::task::spawn_blocking(move || {
            let line = editor.readline("you › ");
            (editor, line)
        })
        .await
        .map_err(|e| format!("line editor stopped: {e}"))?;
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
            Input::Builtin(action) => builtin(app, action),
            Input::Slash { name, .. } => slash(app, input, name).await,
            Input::Prompt(prompt) => {
                let _ = app.runtime.run(prompt, &app.terminal).await;
            }
        }
    }
    if let Some(path) = history_file() {
        let _ = editor.save_history(&path);
    }
    Ok(())
}

/// Carries out a built-in command other than `/quit`.
fn builtin(app: &App, action: Action) {
    match action {
        Action::Help => crate::outln!(
            "{}",
            help_text(&crate::extensions::listing::help_entries(app))
        ),
        Action::Tools => {
            commands::tools(app, false);
        }
        Action::Mcp => show_servers(app),
        Action::Clear => match app.runtime.with_agent(|agent| agent.clear_history()) {
            Ok(()) => crate::outln!("conversation cleared"),
            Err(e) => crate::outln!("cannot clear: {e}"),
        },
        Action::Skills => crate::extensions::listing::print_skills(&app.extensions.borrow()),
        Action::Plugins => crate::extensions::listing::print_plugins(&app.extensions.borrow()),
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
        Action::Quit => {}
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
