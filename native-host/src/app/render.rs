//! How a run looks on a terminal (or as NDJSON), and how approvals are asked.

use crate::os::display_url::redact_message;
use crate::os::term_safe::{one_line, visible};
use agentwire::agent::{Approval, ApprovalRequest, UiEvent};
use agentwire::audit::AuditRecord;
use agentwire::driver::RunObserver;
use agentwire::model::Usage;
use agentwire::registry::char_prefix;
use futures::future::LocalBoxFuture;
use serde_json::{json, Value};
use std::borrow::Cow;
use std::cell::{Cell, RefCell};
use std::fs::File;
use std::io::{IsTerminal, Write};

/// How much of a tool's output a human sees per step.
const PREVIEW_CHARS: usize = 300;

/// Output format.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Format {
    /// Readable steps and the answer.
    Human,
    /// One JSON UI event per line on stdout, nothing else.
    Json,
}

/// How approvals are answered.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ApprovalMode {
    /// `--yes`: approve everything.
    ApproveAll,
    /// Ask on the terminal.
    Prompt,
    /// No terminal: deny, and say how to allow.
    Deny,
}

/// The terminal's view of a run.
pub struct Terminal {
    format: Format,
    approvals: ApprovalMode,
    audit: Option<RefCell<File>>,
    /// Whether model text was already streamed during this step (so it is not printed twice).
    streamed: Cell<bool>,
    /// The last model text shown, so the final answer is not printed a second time.
    last_text: RefCell<String>,
    /// A line of streamed reasoning is open (it ends before anything else is printed).
    reasoning_open: Cell<bool>,
    /// Whether stdout is a terminal (reasoning is then shown dimmed).
    color: bool,
    /// Tokens the model reported during the current run, for the line that ends it.
    run_usage: Cell<Option<Usage>>,
    /// Server log messages at this severity and above are shown (`--log-level`); none without.
    log_level: Option<usize>,
    /// The sandbox mode `bash` runs under, written into its audit records.
    sandbox_mode: Option<&'static str>,
    /// `bash` calls run without asking (`--auto-approve-sandboxed` with a sandbox that
    /// contains them); deny rules were applied before anything asks.
    approve_sandboxed_bash: bool,
    /// With no terminal to ask, pause the run (its session keeps it) instead of denying.
    pause_approvals: Cell<bool>,
}

/// MCP log severities, lowest first (RFC 5424 as the spec uses them).
const LOG_LEVELS: [&str; 8] = [
    "debug",
    "info",
    "notice",
    "warning",
    "error",
    "critical",
    "alert",
    "emergency",
];

/// Checks a `--log-level` value.
pub fn parse_log_level(level: &str) -> Result<String, String> {
    match LOG_LEVELS.contains(&level) {
        true => Ok(level.to_owned()),
        false => Err(format!("expected one of {}", LOG_LEVELS.join(", "))),
    }
}

fn severity(level: &str) -> usize {
    // An unknown level from a server is shown rather than lost.
    LOG_LEVELS
        .iter()
        .position(|l| *l == level)
        .unwrap_or(LOG_LEVELS.len())
}

fn plural(n: u32, noun: &str) -> String {
    if n == 1 {
        format!("1 {noun}")
    } else {
        format!("{n} {noun}s")
    }
}

fn cut(text: &str, max: usize) -> String {
    match char_prefix(text, max) {
        (head, 0) => head.to_owned(),
        (head, rest) => format!("{head}… [{rest} more characters]"),
    }
}

impl Terminal {
    /// A view with the given format, approval mode and optional audit file.
    pub fn new(format: Format, approvals: ApprovalMode, audit: Option<File>) -> Self {
        Terminal {
            format,
            approvals,
            audit: audit.map(RefCell::new),
            streamed: Cell::new(false),
            last_text: RefCell::new(String::new()),
            reasoning_open: Cell::new(false),
            color: std::io::stdout().is_terminal(),
            run_usage: Cell::new(None),
            log_level: None,
            pause_approvals: Cell::new(false),
            sandbox_mode: None,
            approve_sandboxed_bash: false,
        }
    }

    /// Writes `mode` as `"sandbox"` into the audit records of `bash` calls.
    pub fn with_sandbox_mode(mut self, mode: &'static str) -> Self {
        self.sandbox_mode = Some(mode);
        self
    }

    /// Answers yes, without asking, when `bash` would ask (`--auto-approve-sandboxed`, only
    /// given when the sandbox contains its effects).
    pub fn approving_sandboxed_bash(mut self, on: bool) -> Self {
        self.approve_sandboxed_bash = on;
        self
    }

    /// `record` as one JSONL line, with the sandbox mode of a `bash` call.
    fn audit_line(&self, record: &AuditRecord) -> String {
        match self.sandbox_mode {
            Some(mode) if record.tool == "bash" && record.server.is_none() => {
                let mut value = record.to_value();
                value["sandbox"] = json!(mode);
                value.to_string()
            }
            _ => record.to_json_line(),
        }
    }

    /// Where nobody can be asked, pause a run that needs an approval instead of denying the
    /// call (its session carries it to `run --continue --approve ID`).
    pub fn pause_instead_of_denying(&self, on: bool) {
        self.pause_approvals.set(on);
    }

    /// Shows server log messages at `level` and above.
    pub fn with_log_level(mut self, level: Option<&str>) -> Self {
        self.log_level = level.map(severity);
        self
    }

    /// Keeps the model's token usage: summed for the end of the run, and in the audit log
    /// (a `step_end` line per reporting step, a `run_usage` line per run), beside the tool calls.
    fn track_usage(&self, event: &UiEvent) {
        let line = match event {
            UiEvent::StepEnd { usage, .. } => {
                let mut total = self.run_usage.get();
                Usage::accumulate(&mut total, usage);
                self.run_usage.set(total);
                Some(event.to_value())
            }
            UiEvent::Done { steps, usage, .. } => usage.map(
                |usage| json!({"type": "run_usage", "steps": steps, "usage": usage.to_value()}),
            ),
            _ => None,
        };
        if let (Some(line), Some(file)) = (line, &self.audit) {
            if let Err(error) = writeln!(file.borrow_mut(), "{line}") {
                eprintln!("warning: could not write the audit log: {error}");
            }
        }
    }

    /// Ends an open line of reasoning, so what follows starts on a line of its own.
    fn end_reasoning(&self, out: &mut impl Write) {
        if self.reasoning_open.replace(false) {
            let reset = if self.color { "\x1b[0m" } else { "" };
            let _ = writeln!(out, "{reset}");
        }
    }

    /// The approval mode for these flags: `--yes`, else a prompt when stdin and stderr are a
    /// terminal (and output is not JSON), else deny.
    pub fn approval_mode(yes: bool, format: Format) -> ApprovalMode {
        if yes {
            ApprovalMode::ApproveAll
        } else if format == Format::Human
            && std::io::stdin().is_terminal()
            && std::io::stderr().is_terminal()
        {
            ApprovalMode::Prompt
        } else {
            ApprovalMode::Deny
        }
    }

    fn print_human(&self, event: &UiEvent) {
        let mut out = std::io::stdout().lock();
        self.end_reasoning(&mut out);
        if let Some(text) = self.human_text(event) {
            // Everything shown passes through `visible`: tool output, names, arguments, model
            // text and errors all come from peers.
            let _ = writeln!(out, "{}", visible(&text));
        }
        // A failed run spent tokens too: say so whichever way it ended, once, if the model told.
        if event.is_terminal() {
            if let Some(usage) = self.run_usage.take() {
                let _ = writeln!(out, "{}", usage.summary());
            }
        }
    }

    /// What a human sees for an event (without its final newline), before escaping.
    fn human_text(&self, event: &UiEvent) -> Option<String> {
        match event {
            UiEvent::StepStart { step } => {
                self.streamed.set(false);
                Some(format!("── step {step}"))
            }
            UiEvent::ToolStart { name, args, .. } => Some(format!("→ {name} {args}")),
            UiEvent::ToolEnd {
                name,
                ok,
                duration_ms,
                truncated,
                output,
                ..
            } => {
                let status = if *ok { "ok" } else { "failed" };
                let cut_note = if *truncated { ", output truncated" } else { "" };
                // JSON results are mostly indentation: squeeze whitespace so the preview says more.
                let squeezed = output.split_whitespace().collect::<Vec<_>>().join(" ");
                let preview = cut(&squeezed, PREVIEW_CHARS);
                Some(format!(
                    "← {name} {status} ({duration_ms} ms{cut_note}): {preview}"
                ))
            }
            UiEvent::ApprovalRequest { .. } => None,
            UiEvent::ModelText { text } => {
                *self.last_text.borrow_mut() = text.clone();
                if self.streamed.get() {
                    Some(String::new())
                } else {
                    Some(text.clone())
                }
            }
            UiEvent::CommandExpanded {
                qualified,
                source,
                chars,
                ..
            } => Some(format!(
                "── /{qualified} ({source}) expanded to {chars} characters"
            )),
            UiEvent::Error { message } => Some(format!("error: {message}")),
            UiEvent::Paused { pending } => {
                let ids: Vec<&str> = pending.iter().map(|p| p.id.as_str()).collect();
                Some(format!(
                    "── paused: no terminal to ask about {}. Continue with `agentwire run \
                     --continue --approve ID` (or `--reject ID`) for each of: {}",
                    pending
                        .iter()
                        .find(|p| p.awaiting_approval)
                        .map_or("a call", |p| p.name.as_str()),
                    ids.join(", ")
                ))
            }
            UiEvent::Compacted {
                mode,
                tokens_before,
                tokens_after,
            } => Some(format!(
                "── compacted the conversation ({}): {tokens_before} → {tokens_after} tokens",
                mode.as_str()
            )),
            UiEvent::HookNotice { event, message } => Some(format!("hook ({event}): {message}")),
            UiEvent::Subagent {
                agent,
                parent_tool_use_id,
                event,
            } => child_progress(event)
                .map(|what| format!("  ↳ {agent} [{parent_tool_use_id}] {what}")),
            UiEvent::Done { answer, steps, .. } => {
                if self.streamed.get() || answer.is_empty() || *answer == *self.last_text.borrow() {
                    Some(format!("── done in {}", plural(*steps, "step")))
                } else {
                    Some(format!("── answer ({})\n{answer}", plural(*steps, "step")))
                }
            }
            _ => None,
        }
    }
}

/// One progress line of a subagent's run (its text and approvals are shown elsewhere: the
/// report comes back as the parent's tool result, approvals at the prompt).
fn child_progress(event: &UiEvent) -> Option<String> {
    match event {
        UiEvent::StepStart { step } => Some(format!("step {step}")),
        UiEvent::ToolStart { name, .. } => Some(format!("→ {name}")),
        UiEvent::ToolEnd {
            name,
            ok,
            duration_ms,
            ..
        } => Some(format!(
            "← {name} {} ({duration_ms} ms)",
            if *ok { "ok" } else { "failed" }
        )),
        UiEvent::Done { steps, .. } => Some(format!("done in {}", plural(*steps, "step"))),
        UiEvent::Error { message } => Some(format!("stopped: {message}")),
        _ => None,
    }
}

/// The human line of a `tool_progress` event (a child's labelled), before escaping:
/// `⋯ <tool>: 3/10 message`; a count without a total is shown only without a message (a
/// task's is the time it has run).
fn progress_line(event: &UiEvent) -> Option<String> {
    match event {
        UiEvent::ToolProgress {
            name,
            progress,
            total,
            message,
            ..
        } => {
            let count = match (total, message) {
                (Some(total), _) => Some(format!("{progress}/{total}")),
                (None, None) => Some(progress.to_string()),
                (None, Some(_)) => None,
            };
            let what: Vec<&str> = [count.as_deref(), message.as_deref()]
                .into_iter()
                .flatten()
                .collect();
            Some(format!("⋯ {name}: {}", what.join(" ")))
        }
        UiEvent::Subagent {
            agent,
            parent_tool_use_id,
            event,
        } => progress_line(event).map(|line| format!("  ↳ {agent} [{parent_tool_use_id}] {line}")),
        _ => None,
    }
}

/// `event` as it may be shown: an error's message and a failed tool's output are a peer's
/// text (an MCP server's error, a model server's complaint), which quotes whatever it was
/// given, so they go through the redactor as every other error does. A successful tool's
/// output is the user's data and stays as it is.
fn shown(event: &UiEvent) -> Cow<'_, UiEvent> {
    match event {
        UiEvent::Error { message } => Cow::Owned(UiEvent::Error {
            message: redact_message(message),
        }),
        // A hook's words quote its command line, which may carry a token.
        UiEvent::HookNotice { event, message } => Cow::Owned(UiEvent::HookNotice {
            event: event.clone(),
            message: redact_message(message),
        }),
        // A server's progress message is a peer's text too (it may quote a command line).
        UiEvent::ToolProgress {
            id,
            name,
            server,
            progress,
            total,
            message: Some(message),
        } => Cow::Owned(UiEvent::ToolProgress {
            id: id.clone(),
            name: name.clone(),
            server: server.clone(),
            progress: *progress,
            total: *total,
            message: Some(redact_message(message)),
        }),
        UiEvent::ToolEnd {
            ok: false,
            id,
            name,
            duration_ms,
            truncated,
            output,
        } => Cow::Owned(UiEvent::ToolEnd {
            id: id.clone(),
            name: name.clone(),
            ok: false,
            duration_ms: *duration_ms,
            truncated: *truncated,
            output: redact_message(output),
        }),
        UiEvent::Subagent {
            agent,
            parent_tool_use_id,
            event: inner,
        } => match shown(inner) {
            Cow::Owned(inner) => Cow::Owned(UiEvent::Subagent {
                agent: agent.clone(),
                parent_tool_use_id: parent_tool_use_id.clone(),
                event: Box::new(inner),
            }),
            Cow::Borrowed(_) => Cow::Borrowed(event),
        },
        other => Cow::Borrowed(other),
    }
}

impl RunObserver for Terminal {
    fn on_event(&self, event: &UiEvent) {
        self.track_usage(event);
        let event = &*shown(event);
        match self.format {
            Format::Json => {
                let mut out = std::io::stdout().lock();
                // `visible` keeps JSON valid: it writes DEL, C1 and bidi characters (which
                // serde_json leaves raw) in JSON's own `\uXXXX` notation.
                let _ = writeln!(out, "{}", visible(&event.to_value().to_string()));
            }
            Format::Human => match progress_line(event) {
                // Progress goes with the other live status lines, on stderr, one line each.
                Some(line) => {
                    let _ = writeln!(std::io::stderr().lock(), "{}", one_line(&line));
                }
                None => self.print_human(event),
            },
        }
        if event.is_terminal() {
            self.run_usage.set(None);
        }
    }

    fn on_text_delta(&self, text: &str) {
        let mut out = std::io::stdout().lock();
        if self.format == Format::Json {
            // The same shape as the npm package's event, for consumers that stream the answer.
            let line = json!({"type": "text_delta", "text": text}).to_string();
            let _ = writeln!(out, "{}", visible(&line));
            return;
        }
        self.streamed.set(true);
        self.end_reasoning(&mut out);
        let _ = write!(out, "{}", visible(text));
        let _ = out.flush();
    }

    fn on_reasoning_delta(&self, text: &str) {
        let mut out = std::io::stdout().lock();
        if self.format == Format::Json {
            let line = json!({"type": "reasoning_delta", "text": text}).to_string();
            let _ = writeln!(out, "{}", visible(&line));
            return;
        }
        if !self.reasoning_open.replace(true) {
            // Dimmed on a terminal, labelled everywhere: it is not part of the answer.
            let dim = if self.color { "\x1b[2m" } else { "" };
            let _ = write!(out, "{dim}thinking: ");
        }
        // One line: the model's own line breaks would interleave badly with the steps.
        let _ = write!(out, "{}", visible(&text.replace('\n', " ")));
        let _ = out.flush();
    }

    fn can_approve(&self, request: &ApprovalRequest) -> bool {
        // A call `--auto-approve-sandboxed` answers needs nobody: it never pauses the run.
        (self.approve_sandboxed_bash && request.name == "bash")
            || !(self.pause_approvals.get() && self.approvals == ApprovalMode::Deny)
    }

    fn approve<'a>(&'a self, request: &'a ApprovalRequest) -> LocalBoxFuture<'a, Approval> {
        Box::pin(async move {
            if self.approve_sandboxed_bash && request.name == "bash" {
                return Approval::Yes;
            }
            match self.approvals {
                ApprovalMode::ApproveAll => Approval::Yes,
                ApprovalMode::Deny => {
                    let who = request
                        .agent
                        .as_deref()
                        .map_or_else(String::new, |agent| format!(" for agent {agent}"));
                    crate::errln!(
                        "denied {}{who} (risk {}): no terminal to ask. Re-run with --yes, or --allow {} to allow it.",
                        request.name, request.risk.as_str(), request.name
                    );
                    Approval::No
                }
                ApprovalMode::Prompt => prompt(request).await,
            }
        })
    }

    fn on_audit(&self, record: &AuditRecord) {
        if let Some(file) = &self.audit {
            if let Err(error) = writeln!(file.borrow_mut(), "{}", self.audit_line(record)) {
                eprintln!("warning: could not write the audit log: {error}");
            }
        }
    }

    fn on_notice(&self, message: &str) {
        crate::errln!("{message}");
    }

    fn on_server_event(&self, event: &Value) {
        let level = event["level"].as_str();
        if let (Some(level), Some(floor)) = (level, self.log_level) {
            if severity(level) < floor {
                return;
            }
        } else if level.is_some() {
            return;
        }
        if self.format == Format::Json {
            let _ = writeln!(std::io::stdout().lock(), "{}", visible(&event.to_string()));
        } else if let Some(level) = level {
            let data = match &event["data"] {
                Value::String(s) => s.clone(),
                other => other.to_string(),
            };
            crate::errln!(
                "[{} {level}] {data}",
                event["server"].as_str().unwrap_or("?")
            );
        }
    }
}

/// Asks on the terminal until the answer is yes, no or always.
async fn prompt(request: &ApprovalRequest) -> Approval {
    let who = request
        .agent
        .as_deref()
        .map_or_else(String::new, |agent| format!("[agent {agent}] "));
    let question = format!(
        "{who}Allow {} (risk {}) with {}? [y]es / [n]o / [a]lways: ",
        request.name,
        request.risk.as_str(),
        cut(&request.arguments.to_string(), 200)
    );
    loop {
        eprint!("{}", visible(&question));
        let line = tokio::task::spawn_blocking(|| {
            let mut line = String::new();
            std::io::stdin().read_line(&mut line).map(|n| (n, line))
        })
        .await;
        match line {
            Ok(Ok((0, _))) | Ok(Err(_)) | Err(_) => return Approval::No,
            Ok(Ok((_, answer))) => match Approval::parse(&answer) {
                Ok(approval) => return approval,
                Err(message) => crate::errln!("{message}"),
            },
        }
    }
}

#[cfg(test)]
mod shown_tests {
    use super::*;

    const LEAK: &str = "upstream refused: Authorization: Bearer abcdefghijklmnop1234";

    #[test]
    fn errors_and_failed_tool_output_are_redacted_on_every_format() {
        let error = UiEvent::Error {
            message: LEAK.into(),
        };
        let failed = UiEvent::ToolEnd {
            id: "c1".into(),
            name: "mcp__srv__leak".into(),
            ok: false,
            duration_ms: 3,
            truncated: false,
            output: LEAK.into(),
        };
        for event in [error, failed] {
            let shown = shown(&event);
            let json = shown.to_value().to_string();
            assert!(!json.contains("abcdefghijklmnop1234"), "{json}");
            assert!(json.contains("upstream refused"), "{json}");
            let terminal = Terminal::new(Format::Human, ApprovalMode::Deny, None);
            let human = terminal.human_text(&shown).unwrap();
            assert!(!human.contains("abcdefghijklmnop1234"), "{human}");
        }
    }

    #[test]
    fn a_subagents_errors_are_redacted_too() {
        let child = UiEvent::Subagent {
            agent: "general-purpose".into(),
            parent_tool_use_id: "call_1".into(),
            event: Box::new(UiEvent::Error {
                message: LEAK.into(),
            }),
        };
        let shown = shown(&child);
        let json = shown.to_value().to_string();
        assert!(!json.contains("abcdefghijklmnop1234"), "{json}");
        assert!(json.contains("\"agent\":\"general-purpose\""), "{json}");
        let terminal = Terminal::new(Format::Human, ApprovalMode::Deny, None);
        let human = terminal.human_text(&shown).unwrap();
        assert!(
            human.starts_with("  ↳ general-purpose [call_1] stopped: upstream refused"),
            "{human}"
        );
        assert!(!human.contains("abcdefghijklmnop1234"), "{human}");
    }

    fn progress(total: Option<f64>, message: Option<&str>) -> UiEvent {
        UiEvent::ToolProgress {
            id: "c1".into(),
            name: "mcp__srv__slow".into(),
            server: Some("srv".into()),
            progress: 3.0,
            total,
            message: message.map(str::to_owned),
        }
    }

    #[test]
    fn progress_lines_say_count_total_and_message_redacted() {
        let cases = [
            (
                progress(Some(10.0), Some("copying")),
                "⋯ mcp__srv__slow: 3/10 copying",
            ),
            (progress(Some(10.0), None), "⋯ mcp__srv__slow: 3/10"),
            (progress(None, None), "⋯ mcp__srv__slow: 3"),
            (progress(None, Some("polling")), "⋯ mcp__srv__slow: polling"),
        ];
        for (event, want) in cases {
            assert_eq!(progress_line(&shown(&event)).as_deref(), Some(want));
        }
        let child = UiEvent::Subagent {
            agent: "general-purpose".into(),
            parent_tool_use_id: "call_1".into(),
            event: Box::new(progress(None, Some(LEAK))),
        };
        let shown = shown(&child);
        let line = progress_line(&shown).unwrap();
        assert!(
            line.starts_with("  ↳ general-purpose [call_1] ⋯ mcp__srv__slow: upstream refused"),
            "{line}"
        );
        assert!(!line.contains("abcdefghijklmnop1234"), "{line}");
        assert!(!shown
            .to_value()
            .to_string()
            .contains("abcdefghijklmnop1234"));
        assert_eq!(progress_line(&UiEvent::StepStart { step: 1 }), None);
    }

    #[test]
    fn a_successful_tool_output_is_the_users_data_and_stays() {
        let ok = UiEvent::ToolEnd {
            id: "c1".into(),
            name: "read_file".into(),
            ok: true,
            duration_ms: 3,
            truncated: false,
            output: LEAK.into(),
        };
        assert_eq!(*shown(&ok), ok);
    }
}
