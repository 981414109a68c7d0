//! Tab completion in the interactive session: slash commands, `/mcp__<server>__<prompt>`
//! names, and prompt arguments through the server's `completion/complete`.
//!
//! The line editor runs on a blocking thread while the runtime lives on the async one, so an
//! argument completion is a question sent to the async side ([`Question`]) and answered within
//! [`ANSWER_WAIT`]; the REPL answers questions while it waits for the line.

use rustyline::completion::Completer;
use rustyline::highlight::Highlighter;
use rustyline::hint::Hinter;
use rustyline::validate::Validator;
use rustyline::{Context, Helper};
use serde_json::{Map, Value};
use std::sync::mpsc;
use std::time::Duration;

/// How long Tab waits for a server's completion before offering nothing.
pub const ANSWER_WAIT: Duration = Duration::from_secs(2);

/// A completion to ask a server for.
#[derive(Debug, PartialEq)]
pub struct Query {
    /// The server.
    pub server: String,
    /// The prompt.
    pub prompt: String,
    /// The argument being typed.
    pub argument: String,
    /// What is typed of it so far.
    pub value: String,
    /// The arguments already given.
    pub context: Value,
}

/// A query and where its answer goes.
pub type Question = (Query, mpsc::Sender<Vec<String>>);

/// What Tab should complete at the cursor.
#[derive(Debug, PartialEq)]
pub enum Plan {
    /// Nothing to offer.
    Nothing,
    /// These words, replacing the text from `start`.
    Words(usize, Vec<String>),
    /// A prompt argument, replacing from `start` (`prefix` is kept in front of each value).
    Argument(usize, String, Query),
}

/// Works out the completion for `line` up to `pos`, given the slash commands and the server
/// prompts (as `agentwire mcp prompts --json` lists them).
pub fn plan(line: &str, pos: usize, commands: &[String], prompts: &[Value]) -> Plan {
    let typed = &line[..pos];
    let start = typed.rfind(' ').map_or(0, |i| i + 1);
    let word = &typed[start..];
    let mut words = typed.split_whitespace();
    let Some(first) = words.next() else {
        return Plan::Nothing;
    };
    if start == 0 {
        let names = commands
            .iter()
            .filter(|c| c.starts_with(word))
            .cloned()
            .collect();
        return Plan::Words(0, names);
    }
    let Some(prompt) = prompts.iter().find(|p| command_of(p) == first) else {
        return Plan::Nothing;
    };
    let declared: Vec<&str> = prompt["arguments"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|a| a["name"].as_str())
        .collect();
    let before: Vec<String> = typed[first.len()..start]
        .split_whitespace()
        .map(str::to_owned)
        .collect();
    let Ok(Value::Object(given)) = crate::cli::mcp_prompts::parse_arguments(
        &declared.iter().map(|s| s.to_string()).collect::<Vec<_>>(),
        &before,
    ) else {
        return Plan::Nothing;
    };
    let (argument, prefix, value) = match word.split_once('=') {
        Some((name, value)) if declared.contains(&name) => (name, format!("{name}="), value),
        _ => match declared.iter().find(|d| !given.contains_key(**d)) {
            Some(next) => (*next, String::new(), word),
            None => return Plan::Nothing,
        },
    };
    let query = Query {
        server: prompt["server"].as_str().unwrap_or_default().to_owned(),
        prompt: prompt["name"].as_str().unwrap_or_default().to_owned(),
        argument: argument.to_owned(),
        value: value.to_owned(),
        context: Value::Object(given.into_iter().collect::<Map<_, _>>()),
    };
    Plan::Argument(start, prefix, query)
}

/// `/mcp__<server>__<name>` of a listed prompt.
pub fn command_of(prompt: &Value) -> String {
    format!(
        "/mcp__{}__{}",
        prompt["server"].as_str().unwrap_or_default(),
        prompt["name"].as_str().unwrap_or_default()
    )
}

/// What the line editor is given for `words` (server text: completion values, prompt names),
/// each after `prefix`: through [`one_line`](crate::os::term_safe::one_line), so a value carrying
/// `ESC [ 2 J` or a newline is shown as its escapes, never obeyed by the terminal or typed into
/// the line as a control character.
pub fn candidates(prefix: &str, words: Vec<String>) -> Vec<String> {
    words
        .into_iter()
        .map(|w| format!("{prefix}{}", crate::os::term_safe::one_line(&w)))
        .collect()
}

/// The line editor's helper: completes with [`plan`], asking the async side for arguments.
pub struct PromptCompleter {
    /// Slash commands, built-in and prompts.
    pub commands: Vec<String>,
    /// Server prompts, as listed.
    pub prompts: Vec<Value>,
    /// Where argument questions go.
    pub ask: tokio::sync::mpsc::UnboundedSender<Question>,
}

impl Completer for PromptCompleter {
    type Candidate = String;

    fn complete(
        &self,
        line: &str,
        pos: usize,
        _: &Context<'_>,
    ) -> rustyline::Result<(usize, Vec<String>)> {
        Ok(match plan(line, pos, &self.commands, &self.prompts) {
            Plan::Nothing => (pos, Vec::new()),
            // Prompt commands carry the server's prompt names.
            Plan::Words(start, words) => (start, candidates("", words)),
            Plan::Argument(start, prefix, query) => {
                let (tx, rx) = mpsc::channel();
                let values = match self.ask.send((query, tx)) {
                    Ok(()) => rx.recv_timeout(ANSWER_WAIT).unwrap_or_default(),
                    Err(_) => Vec::new(),
                };
                (start, candidates(&prefix, values))
            }
        })
    }
}

impl Hinter for PromptCompleter {
    type Hint = String;
}
impl Highlighter for PromptCompleter {}
impl Validator for PromptCompleter {}
impl Helper for PromptCompleter {}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn prompts() -> Vec<Value> {
        vec![json!({"server": "github", "name": "explain_file",
            "arguments": [{"name": "owner"}, {"name": "repo"}, {"name": "path"}]})]
    }

    #[test]
    fn candidates_from_a_server_carry_no_control_characters() {
        let values = vec![
            "v0\x1b[2J".to_owned(),
            "v1\nrm -rf ~".to_owned(),
            "v2\u{202e}".to_owned(),
        ];
        let shown = candidates("path=", values);
        assert_eq!(
            shown,
            [
                "path=v0\\u001b[2J",
                "path=v1\\u000arm -rf ~",
                "path=v2\\u202e"
            ]
        );
        assert_eq!(candidates("", vec!["/help".into()]), ["/help"]);
    }

    #[test]
    fn plans_commands_then_arguments_in_order_or_by_name() {
        let commands = vec!["/help".to_owned(), "/mcp__github__explain_file".to_owned()];
        assert_eq!(
            plan("/mc", 3, &commands, &prompts()),
            Plan::Words(0, vec![commands[1].clone()])
        );
        let line = "/mcp__github__explain_file vercel a";
        let Plan::Argument(start, prefix, query) = plan(line, line.len(), &commands, &prompts())
        else {
            panic!()
        };
        assert_eq!((start, prefix.as_str()), (line.len() - 1, ""));
        assert_eq!(
            (query.argument.as_str(), query.value.as_str()),
            ("repo", "a")
        );
        assert_eq!(query.context, json!({"owner": "vercel"}));
        let line = "/mcp__github__explain_file path=pack";
        let Plan::Argument(_, prefix, query) = plan(line, line.len(), &commands, &prompts()) else {
            panic!()
        };
        assert_eq!(
            (
                prefix.as_str(),
                query.argument.as_str(),
                query.value.as_str()
            ),
            ("path=", "path", "pack")
        );
        assert_eq!(plan("/unknown x", 10, &commands, &prompts()), Plan::Nothing);
        assert_eq!(
            plan(
                "/mcp__github__explain_file a b c ",
                33,
                &commands,
                &prompts()
            ),
            Plan::Nothing
        );
    }
}
