//! How dangerous a tool is: `read`, `network`, `write` or `execute`, and how it is worked out.
//!
//! For MCP tools the risk comes, in order, from:
//! 1. the user's overrides (per tool, then per server): the user's word wins, up or down;
//! 2. the tool's annotations (`readOnlyHint`, `destructiveHint`, `openWorldHint`). From a trusted
//!    server they decide; from any other server (the default) they only ever raise the risk the
//!    name suggests, never lower it, because the MCP spec calls annotations untrusted hints;
//! 3. the name, then the first sentence of the description (see [`risk_from_name`]);
//! 4. nothing known: `write`, so the default policy asks.
//!
//! Steps 2 and 3 read what the server says about itself. For a server the host distrusts (one
//! a project configured, not the user: [`RiskOverrides::distrust_server`]) the inferred risk
//! is kept for display and concurrency, but the permission gate does not rely on it: see
//! [`crate::registry::ToolSpec::risk_trusted`].

use crate::json::quoted;
use crate::vec_map::{VecMap, VecSet};
use serde_json::Value;
use std::fmt;
use std::str::FromStr;

/// The risk class of a tool, ordered from least to most severe.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
#[non_exhaustive]
pub enum Risk {
    /// Reads data; changes nothing. Allowed by default and safe to run concurrently.
    Read,
    /// Reaches arbitrary network destinations (fetch a URL, search the web).
    Network,
    /// Changes state: files, issues, branches, settings.
    Write,
    /// Runs commands or code.
    Execute,
}

impl Risk {
    /// Every risk, least severe first.
    pub const ALL: [Risk; 4] = [Risk::Read, Risk::Network, Risk::Write, Risk::Execute];

    /// `"read"`, `"network"`, `"write"` or `"execute"`.
    pub fn as_str(self) -> &'static str {
        match self {
            Risk::Read => "read",
            Risk::Network => "network",
            Risk::Write => "write",
            Risk::Execute => "execute",
        }
    }

    /// Reads `read` / `write` / `execute` / `network` (case-insensitive); errors list the choices.
    pub fn parse(text: &str) -> Result<Risk, String> {
        let lower = text.trim().to_ascii_lowercase();
        Risk::ALL
            .into_iter()
            .find(|r| r.as_str() == lower)
            .ok_or_else(|| {
                format!(
                    "unknown risk {text}: expected read, write, execute or network",
                    text = quoted(text)
                )
            })
    }

    /// Whether the tool only reads (and so may run concurrently with other reads).
    pub fn is_read_only(self) -> bool {
        self == Risk::Read
    }
}

impl fmt::Display for Risk {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl FromStr for Risk {
    type Err = String;
    fn from_str(s: &str) -> Result<Risk, String> {
        Risk::parse(s)
    }
}

/// The user's risk settings for MCP tools: explicit risks per tool or server, and trusted servers.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct RiskOverrides {
    tools: VecMap<(String, String), Risk>,
    servers: VecMap<String, Risk>,
    builtins: VecMap<String, Risk>,
    trusted: VecSet<String>,
    distrusted: VecSet<String>,
}

impl RiskOverrides {
    /// No overrides, no trusted servers.
    pub fn new() -> Self {
        Self::default()
    }

    /// Fixes the risk of tool `tool` (its original MCP name) on `server`.
    pub fn set_tool(&mut self, server: &str, tool: &str, risk: Risk) -> &mut Self {
        self.tools
            .insert((server.to_owned(), tool.to_owned()), risk);
        self
    }

    /// Fixes the risk of every tool on `server` without a per-tool override.
    pub fn set_server(&mut self, server: &str, risk: Risk) -> &mut Self {
        self.servers.insert(server.to_owned(), risk);
        self
    }

    /// Fixes the risk of built-in tool `name`, whatever the host declared.
    pub fn set_builtin(&mut self, name: &str, risk: Risk) -> &mut Self {
        self.builtins.insert(name.to_owned(), risk);
        self
    }

    /// Trusts `server`'s annotations: they may then lower risk below what the name suggests.
    pub fn trust_server(&mut self, server: &str) -> &mut Self {
        self.trusted.insert(server.to_owned());
        self
    }

    /// Whether `server`'s annotations are trusted.
    pub fn is_trusted(&self, server: &str) -> bool {
        self.trusted.contains(server)
    }

    /// Distrusts what `server` says about its own tools (a server a project configured, not
    /// the user): the gate asks for its tools unless an override or an allow rule covers them,
    /// whatever risk their names and annotations suggest.
    pub fn distrust_server(&mut self, server: &str) -> &mut Self {
        self.distrusted.insert(server.to_owned());
        self
    }

    /// Whether `server` is distrusted (see [`RiskOverrides::distrust_server`]).
    pub fn is_distrusted(&self, server: &str) -> bool {
        self.distrusted.contains(server)
    }

    /// The user's explicit risk for MCP tool `tool` on `server`, if any.
    pub fn for_mcp_tool(&self, server: &str, tool: &str) -> Option<Risk> {
        self.tools
            .get(&(server.to_owned(), tool.to_owned()))
            .or_else(|| self.servers.get(server))
            .copied()
    }

    /// The user's explicit risk for built-in tool `name`, if any.
    pub fn for_builtin(&self, name: &str) -> Option<Risk> {
        self.builtins.get(name).copied()
    }

    /// The final risk of MCP tool `tool` on `server`: override, else inference.
    pub fn mcp_risk(
        &self,
        server: &str,
        tool: &str,
        description: &str,
        annotations: Option<&Value>,
    ) -> Risk {
        self.for_mcp_tool(server, tool)
            .unwrap_or_else(|| infer_risk(tool, description, annotations, self.is_trusted(server)))
    }
}

/// Infers a risk from annotations, name and description (see the module docs for the order).
pub fn infer_risk(
    name: &str,
    description: &str,
    annotations: Option<&Value>,
    trusted_annotations: bool,
) -> Risk {
    let hinted = annotations.and_then(risk_from_annotations);
    let named = risk_from_name(name, description);
    match (hinted, named) {
        (Some(h), _) if trusted_annotations => h,
        (Some(h), Some(n)) => h.max(n),
        (Some(h), None) => h,
        (None, Some(n)) => n,
        (None, None) => Risk::Write,
    }
}

/// The risk MCP tool annotations claim, or `None` when they say nothing about it.
///
/// `readOnlyHint: true` is `read`, or `network` with an explicit `openWorldHint: true` (a web
/// search reads, but from anywhere). `readOnlyHint: false` or `destructiveHint: true` is `write`.
/// `openWorldHint: true` alone is `network`. `idempotentHint` does not change the class.
pub fn risk_from_annotations(annotations: &Value) -> Option<Risk> {
    let hint = |key: &str| annotations.get(key).and_then(Value::as_bool);
    let open_world = hint("openWorldHint") == Some(true);
    match hint("readOnlyHint") {
        Some(true) if open_world => Some(Risk::Network),
        Some(true) => Some(Risk::Read),
        Some(false) => Some(Risk::Write),
        None if hint("destructiveHint") == Some(true) => Some(Risk::Write),
        None if open_world => Some(Risk::Network),
        None => None,
    }
}

#[rustfmt::skip]
const EXECUTE_WORDS: &[&str] = &[
    "exec", "execute", "run", "shell", "command", "cmd", "bash", "sh", "zsh", "powershell",
    "eval", "evaluate", "spawn", "terminal", "script", "invoke", "launch", "subprocess",
];
#[rustfmt::skip]
const WRITE_WORDS: &[&str] = &[
    "create", "update", "delete", "write", "push", "merge", "fork", "edit", "remove", "add",
    "set", "put", "post", "patch", "modify", "rename", "move", "upload", "commit", "close",
    "reopen", "assign", "unassign", "publish", "deploy", "insert", "drop", "clear", "reset",
    "archive", "unarchive", "approve", "submit", "send", "comment", "label", "lock", "unlock",
    "dismiss", "cancel", "rerun", "revert", "transfer", "install", "uninstall", "save", "apply",
    "enable", "disable", "mark", "trigger", "dispatch", "kill", "stop", "start", "restart",
    "star", "unstar", "follow", "unfollow", "subscribe", "unsubscribe", "invite", "block",
    "unblock", "replace", "append", "prepend", "sync", "import", "store", "destroy", "purge",
    "erase", "wipe", "truncate", "overwrite", "manage", "change", "configure", "toggle",
    "register", "unregister", "attach", "detach", "react", "vote", "pin", "unpin", "reply",
    "notify", "upsert", "mutate", "new", "make", "generate", "copy", "tag",
];
#[rustfmt::skip]
const NETWORK_WORDS: &[&str] = &[
    "fetch", "http", "https", "url", "web", "browse", "browser", "download", "curl", "wget",
    "scrape", "crawl", "navigate", "internet", "online", "webhook", "websearch", "webfetch",
];
#[rustfmt::skip]
const READ_WORDS: &[&str] = &[
    "get", "list", "read", "search", "find", "show", "view", "describe", "query", "lookup",
    "look", "count", "stat", "stats", "check", "inspect", "status", "diff", "log", "logs",
    "retrieve", "return", "info", "explain", "summarize", "analyze", "compare", "validate",
    "verify", "whoami", "peek", "cat", "ls", "grep", "glob", "tree", "echo", "ping", "version",
    "help", "calculate", "compute", "convert", "format", "parse", "preview", "print", "load",
    "watch", "poll", "wait",
];

/// Words that mean the same class wherever they sit in a name: `issue_delete` deletes even though
/// the first word is a noun. Nouns that double as verbs (`request`, `review`) are left out.
#[rustfmt::skip]
const STRONG_EXECUTE: &[&str] = &[
    "exec", "execute", "shell", "bash", "eval", "spawn",
];
#[rustfmt::skip]
const STRONG_WRITE: &[&str] = &[
    "delete", "remove", "destroy", "drop", "purge", "erase", "wipe", "write", "overwrite",
    "push",
];
#[rustfmt::skip]
const STRONG_NETWORK: &[&str] = &[
    "web", "http", "https", "curl", "wget", "internet", "websearch",
];

fn classify(word: &str) -> Option<Risk> {
    [
        (EXECUTE_WORDS, Risk::Execute),
        (WRITE_WORDS, Risk::Write),
        (NETWORK_WORDS, Risk::Network),
        (READ_WORDS, Risk::Read),
    ]
    .into_iter()
    .find(|(words, _)| words.contains(&word))
    .map(|(_, risk)| risk)
}

fn classify_strong(word: &str) -> Option<Risk> {
    [
        (STRONG_EXECUTE, Risk::Execute),
        (STRONG_WRITE, Risk::Write),
        (STRONG_NETWORK, Risk::Network),
    ]
    .into_iter()
    .find(|(words, _)| words.contains(&word))
    .map(|(_, risk)| risk)
}

/// Lowercase words of an identifier or sentence: split at anything not an ASCII letter or digit
/// and at camelCase humps (`getIssue` → `get`, `issue`). The risk words are English, so ASCII is
/// enough, and it keeps Unicode's letter and case tables out of the wasm module.
fn words(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut current = String::new();
    let mut prev_lower = false;
    for c in text.chars() {
        if !c.is_ascii_alphanumeric() {
            if !current.is_empty() {
                out.push(std::mem::take(&mut current));
            }
            prev_lower = false;
            continue;
        }
        if c.is_ascii_uppercase() && prev_lower && !current.is_empty() {
            out.push(std::mem::take(&mut current));
        }
        prev_lower = c.is_ascii_lowercase() || c.is_ascii_digit();
        current.push(c.to_ascii_lowercase());
    }
    if !current.is_empty() {
        out.push(current);
    }
    out
}

/// Verb forms in prose: "Creates" → "create", "Fetches" → "fetch", "Running" → "run".
fn stems(word: &str) -> Vec<&str> {
    let mut out = vec![word];
    for suffix in ["es", "s", "ing", "ed", "d"] {
        if let Some(stem) = word.strip_suffix(suffix) {
            if stem.len() >= 2 {
                out.push(stem);
            }
        }
    }
    // "running" → "runn" → "run".
    if let Some(stem) = word.strip_suffix("ning") {
        out.push(stem);
    }
    out
}

fn risk_of_words<'a>(words: impl IntoIterator<Item = Vec<&'a str>>) -> Option<Risk> {
    let mut first = None;
    let mut strong = None;
    for forms in words {
        if first.is_none() {
            first = forms.iter().find_map(|w| classify(w));
        }
        if let Some(s) = forms.iter().find_map(|w| classify_strong(w)) {
            strong = strong.max(Some(s));
        }
    }
    first.max(strong)
}

/// The risk a tool's name suggests, else the first sentence of its description, else `None`.
///
/// The first known verb decides (`get_pull_request` reads, `create_or_update_file` writes), and
/// unambiguous words anywhere raise it (`issue_delete` writes, `search_web` is network). Word
/// lists: run/exec/shell/command… execute; create/update/delete/push/merge/fork/edit… write;
/// fetch/http/url/web/download… network; get/list/read/search/find/view… read.
pub fn risk_from_name(name: &str, description: &str) -> Option<Risk> {
    let name_words = words(name);
    if let Some(risk) = risk_of_words(name_words.iter().map(|w| vec![w.as_str()])) {
        return Some(risk);
    }
    let first_sentence = description
        .split(['.', '\n', ';'])
        .next()
        .unwrap_or_default();
    let prose = words(first_sentence);
    risk_of_words(prose.iter().take(24).map(|w| stems(w)))
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn words_split_at_non_ascii_and_camel_humps() {
        assert_eq!(words("getIssue_listPRs"), ["get", "issue", "list", "prs"]);
        assert_eq!(
            words("Löschen: deleteFile"),
            ["l", "schen", "delete", "file"]
        );
        assert_eq!(words("naïve2Go"), ["na", "ve2", "go"]);
    }

    #[test]
    fn risk_strings_round_trip() {
        for risk in Risk::ALL {
            assert_eq!(Risk::parse(risk.as_str()), Ok(risk));
            assert_eq!(risk.to_string().parse::<Risk>(), Ok(risk));
        }
        assert_eq!(Risk::parse(" WRITE "), Ok(Risk::Write));
        assert!(Risk::parse("dangerous")
            .unwrap_err()
            .contains("\"dangerous\""));
        assert!(Risk::Read < Risk::Network && Risk::Write < Risk::Execute);
    }

    #[test]
    fn names_map_to_risks() {
        let cases = [
            ("get_issue", Some(Risk::Read)),
            ("list_pull_requests", Some(Risk::Read)),
            ("search_repositories", Some(Risk::Read)),
            ("get_pull_request", Some(Risk::Read)),
            ("pull_request_read", Some(Risk::Read)),
            ("getFileContents", Some(Risk::Read)),
            ("list_workflow_runs", Some(Risk::Read)),
            ("create_issue", Some(Risk::Write)),
            ("create_or_update_file", Some(Risk::Write)),
            ("push_files", Some(Risk::Write)),
            ("merge_pull_request", Some(Risk::Write)),
            ("fork_repository", Some(Risk::Write)),
            ("issue_delete", Some(Risk::Write)),
            ("issue_write", Some(Risk::Write)),
            ("run_command", Some(Risk::Execute)),
            ("shell", Some(Risk::Execute)),
            ("get_exec_output", Some(Risk::Execute)),
            ("fetch", Some(Risk::Network)),
            ("web_search", Some(Risk::Network)),
            ("search_web", Some(Risk::Network)),
            ("http-get", Some(Risk::Network)),
            ("add_issue_comment", Some(Risk::Write)),
            ("list_commits", Some(Risk::Read)),
            ("search_code", Some(Risk::Read)),
            ("weather", None),
        ];
        for (name, want) in cases {
            assert_eq!(risk_from_name(name, ""), want, "{name}");
        }
    }

    #[test]
    fn description_decides_only_when_the_name_is_silent() {
        assert_eq!(
            risk_from_name("issue_tool", "Creates an issue. Use get tools to read."),
            Some(Risk::Write)
        );
        assert_eq!(
            risk_from_name("resolve-library-id", "Resolves a name and returns a list."),
            Some(Risk::Read)
        );
        assert_eq!(
            risk_from_name("python", "Runs Python code in a sandbox."),
            Some(Risk::Execute)
        );
        assert_eq!(
            risk_from_name("get_thing", "Deletes everything."),
            Some(Risk::Read),
            "the name spoke first"
        );
        assert_eq!(risk_from_name("weather", "Weather for a city."), None);
    }

    #[test]
    fn annotations_map_to_risks() {
        let cases = [
            (json!({"readOnlyHint": true}), Some(Risk::Read)),
            (
                json!({"readOnlyHint": true, "openWorldHint": true}),
                Some(Risk::Network),
            ),
            (json!({"readOnlyHint": false}), Some(Risk::Write)),
            (json!({"destructiveHint": true}), Some(Risk::Write)),
            (json!({"openWorldHint": true}), Some(Risk::Network)),
            (json!({"title": "x", "idempotentHint": true}), None),
            (json!("junk"), None),
        ];
        for (ann, want) in cases {
            assert_eq!(risk_from_annotations(&ann), want, "{ann}");
        }
    }

    #[test]
    fn untrusted_annotations_only_raise() {
        let ro = json!({"readOnlyHint": true});
        let destructive = json!({"destructiveHint": true});
        // Claims read-only, but the name says delete: stays write.
        assert_eq!(infer_risk("delete_repo", "", Some(&ro), false), Risk::Write);
        // Raises a read-looking name.
        assert_eq!(
            infer_risk("get_issue", "", Some(&destructive), false),
            Risk::Write
        );
        // Fills in when the name says nothing.
        assert_eq!(infer_risk("weather", "", Some(&ro), false), Risk::Read);
        // Trusted annotations decide, even downwards.
        assert_eq!(infer_risk("delete_repo", "", Some(&ro), true), Risk::Read);
        // Nothing known at all: write, so the default policy asks.
        assert_eq!(infer_risk("weather", "", None, false), Risk::Write);
    }

    #[test]
    fn overrides_beat_inference_tool_before_server() {
        let mut o = RiskOverrides::new();
        o.set_server("gh", Risk::Execute)
            .set_tool("gh", "get_issue", Risk::Read)
            .trust_server("docs");
        assert_eq!(o.mcp_risk("gh", "get_issue", "", None), Risk::Read);
        assert_eq!(o.mcp_risk("gh", "list_issues", "", None), Risk::Execute);
        assert_eq!(o.mcp_risk("other", "list_issues", "", None), Risk::Read);
        let ro = json!({"readOnlyHint": true});
        assert_eq!(o.mcp_risk("docs", "delete_page", "", Some(&ro)), Risk::Read);
        assert_eq!(o.mcp_risk("web", "delete_page", "", Some(&ro)), Risk::Write);
        o.set_builtin("shell", Risk::Read);
        assert_eq!(o.for_builtin("shell"), Some(Risk::Read));
        assert_eq!(o.for_builtin("other"), None);
    }
}
