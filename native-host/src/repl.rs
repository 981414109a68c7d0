//! The interactive session: a prompt with history and a few slash commands.

use crate::app::App;
use crate::commands;
use crate::mcp_prompts;
use crate::prompt_completion::{command_of, PromptCompleter, Question};
use agentwire::driver::ServerStatus;
use rustyline::error::ReadlineError;
use rustyline::history::DefaultHistory;
use rustyline::Editor;

const HELP: &str = "\
Type a request and press Enter; the agent keeps the conversation's history.
  /tools   list the tools the agent can use
  /mcp     MCP servers: status, tool counts, last stderr lines of failed servers
  /clear   forget the conversation so far
  /help    this text
  /quit    leave (Ctrl-D works too)
@server:uri in a request attaches that MCP resource; Tab completes commands and prompt arguments.
MCP server prompts (arguments positional or name=value):";

const BUILT_IN: [&str; 5] = ["/tools", "/mcp", "/clear", "/help", "/quit"];

fn history_file() -> Option<std::path::PathBuf> {
    std::env::var_os("HOME").map(|home| std::path::PathBuf::from(home).join(".agentwire_history"))
}

/// Runs the interactive session until `/quit` or end of input.
pub async fn run(app: &App) -> Result<(), String> {
    let mut editor: Editor<PromptCompleter, DefaultHistory> =
        Editor::new().map_err(|e| format!("cannot start the line editor: {e}"))?;
    let (ask, mut questions) = tokio::sync::mpsc::unbounded_channel::<Question>();
    if let Some(path) = history_file() {
        let _ = editor.load_history(&path);
    }
    eprintln!("agentwire — type /help for commands, /quit to leave.");
    loop {
        // Tab completes slash commands, server prompts and (through the server) their arguments.
        let prompts = app.runtime.prompts(None).await.unwrap_or_default();
        let mut commands: Vec<String> = BUILT_IN.iter().map(|c| (*c).to_owned()).collect();
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
        match input {
            "/quit" | "/exit" | "/q" => break,
            "/help" | "/?" => {
                crate::outln!("{HELP}");
                for line in mcp_prompts::help_lines(app).await {
                    crate::outln!("{line}");
                }
            }
            "/tools" => {
                commands::tools(app, false);
            }
            "/mcp" => show_servers(app),
            "/clear" => match app.runtime.with_agent(|agent| agent.clear_history()) {
                Ok(()) => crate::outln!("conversation cleared"),
                Err(e) => crate::outln!("cannot clear: {e}"),
            },
            command if mcp_prompts::is_prompt_command(command) => {
                mcp_prompts::run_command(app, command).await
            }
            command if command.starts_with('/') => {
                crate::outln!("unknown command {command}; /help lists them")
            }
            prompt => match app.runtime.attach_mentions(prompt).await {
                Ok(prompt) => {
                    let _ = app.runtime.run(&prompt, &app.terminal).await;
                }
                Err(e) => crate::errln!("error: {}", crate::display_url::redact_message(&e)),
            },
        }
    }
    if let Some(path) = history_file() {
        let _ = editor.save_history(&path);
    }
    Ok(())
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
