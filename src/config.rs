//! Configuration: Claude-compatible `.mcp.json` parsing and `${VAR}` expansion.
//!
//! Sans-IO: [`McpConfig::parse`] takes the file's text and a variable lookup; the host reads the
//! file and the environment. The file name is only used in messages.
//!
//! ```json
//! {"mcpServers": {
//!   "github": {"command": "npx", "args": ["-y", "server-github"],
//!              "env": {"TOKEN": "${GITHUB_TOKEN}"}, "timeout": 20000},
//!   "remote": {"type": "http", "url": "https://example.test/mcp",
//!              "headers": {"Authorization": "Bearer ${API_KEY:-none}"}},
//!   "demo":   {"type": "mock", "risk": "read"}
//! }}
//! ```
//!
//! Per server: `type` (absent or `"stdio"`, `"http"`, `"streamable-http"`, `"sse"`, `"mock"`),
//! `command`/`args`/`env`/`cwd` (stdio), `url`/`headers` (http), `disabled`, `timeout`
//! (milliseconds per request, default 60000) and `startupTimeout` (milliseconds for spawn plus
//! handshake, default 30000). `protocol` picks the MCP era: `"auto"` (default: a
//! `server/discover` probe, falling back to `initialize` for a legacy server), `"2026-07-28"`
//! (the stateless revision only) or `"legacy"` (`initialize` only).
//!
//! agentwire extensions, ignored by other clients: `risk` (one of `read`, `write`, `execute`,
//! `network`) sets the risk of every tool of the server, and `toolRisk` (`{"tool": "read"}`)
//! overrides it per tool. Both feed the permission gate.
//!
//! For `http` servers, `"oauth": true` lets agentwire run the MCP OAuth flow when the server
//! answers `401` (the user authorizes in a browser); an object instead sets a pre-registered
//! client (`clientId`, with `clientSecret` or a `privateKey` PEM for `private_key_jwt`), the
//! `scope`, the `clientCredentials` grant, or
//! `storeTokens: false` (tokens in memory only, not kept by the host between runs; see
//! [`OAuthSettings`]).
//!
//! Remote servers as other clients write them: an entry without `type` and `command` but with
//! a `url` (Cursor, Claude Desktop's remote entries) or `serverUrl` (Windsurf) is a remote server
//! over Streamable HTTP that falls back to the legacy HTTP+SSE transport of 2024-11-05 when the
//! server refuses the first POST; `httpUrl` (Gemini CLI) is Streamable HTTP only; `"type":
//! "sse"` is the legacy transport only ([`RemoteProtocol`]).
//!
//! One broken entry fails only itself: it is kept as a server whose transport is
//! [`ServerTransport::Invalid`] (with the error naming file, server and field), so the other
//! servers of the file still start; only a file that is not JSON, or whose top level is wrong,
//! is an error as a whole.
//!
//! `${VAR}` and `${VAR:-default}` are expanded in `command`, `args`, `env` values, `cwd`, `url`
//! and `headers` values; `$${` stands for a literal `${` (see [`expand_vars`]). Unknown fields are
//! ignored for forward compatibility, each with a warning in [`McpConfig::warnings`].

mod duplicates;
mod expand;
mod oauth;
#[cfg(test)]
mod tests;

pub use expand::{expand_vars, ExpandError, MAX_NESTING};
pub use oauth::OAuthSettings;

use crate::json::quoted;
use crate::tool_search::{Defer, ServerDefer};
use serde_json::{Map, Value};
use std::fmt;
use std::time::Duration;

/// Default per-request timeout of an MCP server.
pub const DEFAULT_TIMEOUT: Duration = Duration::from_millis(60_000);
/// Default time allowed for a server to start and finish the MCP handshake.
pub const DEFAULT_STARTUP_TIMEOUT: Duration = Duration::from_millis(30_000);
/// Risk classes accepted by `risk` and `toolRisk`.
pub const RISKS: [&str; 4] = ["read", "write", "execute", "network"];

const COMMON_FIELDS: [&str; 12] = [
    "type",
    "protocol",
    "disabled",
    "sampling",
    "tasks",
    "skills",
    "defer",
    "alwaysLoad",
    "timeout",
    "startupTimeout",
    "risk",
    "toolRisk",
];
const STDIO_FIELDS: [&str; 5] = ["command", "args", "env", "cwd", "sandbox"];
const HTTP_FIELDS: [&str; 5] = ["url", "httpUrl", "serverUrl", "headers", "oauth"];
/// The fields other clients name a remote server's URL with, in the order they are looked at.
const URL_FIELDS: [&str; 3] = ["url", "httpUrl", "serverUrl"];

/// A parsed `.mcp.json`.
#[derive(Clone, Debug, PartialEq)]
pub struct McpConfig {
    /// Servers in file order, disabled ones included.
    pub servers: Vec<ServerConfig>,
    /// Non-fatal findings (unknown or inapplicable fields, transport notes), ready to print.
    pub warnings: Vec<String>,
}

/// One entry of `mcpServers`.
#[derive(Clone, Debug, PartialEq)]
pub struct ServerConfig {
    /// The server's name: non-empty, `[A-Za-z0-9_-]` only.
    pub name: String,
    /// `"disabled": true` keeps the entry but starts nothing.
    pub disabled: bool,
    /// agentwire extension: `"sampling": true` lets the server use the agent's model
    /// (`sampling/createMessage`), spending the user's model budget; off by default.
    pub sampling: bool,
    /// agentwire extension: `"tasks": true` declares the MCP Tasks extension to this server
    /// (modern era) and follows the tasks it answers tool calls with; off by default.
    pub tasks: bool,
    /// agentwire extension: `"skills": true` declares the MCP Skills extension to this server
    /// (modern era) and offers the skills it serves in the skill catalog; off by default.
    pub skills: bool,
    /// Per-request timeout.
    pub timeout: Duration,
    /// Time allowed for start-up and the MCP handshake.
    pub startup_timeout: Duration,
    /// How to reach the server.
    pub transport: ServerTransport,
    /// `"protocol"`: the MCP era to speak, `"auto"` (the default: probe with
    /// `server/discover`, fall back to `initialize`), `"2026-07-28"` or `"legacy"`.
    pub protocol: crate::mcp::ProtocolChoice,
    /// agentwire extension: risk class of every tool of this server, if set.
    pub risk: Option<String>,
    /// agentwire extension: per-tool risk overrides, in file order.
    pub tool_risk: Vec<(String, String)>,
    /// agentwire extensions: `"defer": "auto" | true | false` and `"alwaysLoad": [tool names]`
    /// (deferred tool loading, see [`crate::tool_search`]).
    pub tool_search: ServerDefer,
    /// agentwire extension for local servers: `"sandbox": "read-only" | "workspace-write"`, or
    /// `{"mode": ..., "network": false}`: the host confines the process (network allowed
    /// unless the entry says otherwise). `None`: unconfined.
    pub sandbox: Option<ServerSandbox>,
}

/// How a local server asks to be confined.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ServerSandbox {
    /// Writes only a private temporary folder (`true`), or also the workspace (`false`).
    pub read_only: bool,
    /// Whether the network stays reachable.
    pub network: bool,
}

impl ServerSandbox {
    /// Whether `self` allows no more than `other`.
    pub fn at_least_as_strict_as(&self, other: &ServerSandbox) -> bool {
        (self.read_only || !other.read_only) && (!self.network || other.network)
    }
}

/// How a server is reached.
#[derive(Clone, Debug, PartialEq)]
#[non_exhaustive]
pub enum ServerTransport {
    /// A child process speaking NDJSON on stdin/stdout.
    Stdio {
        /// Program to run (after variable expansion).
        command: String,
        /// Arguments.
        args: Vec<String>,
        /// Extra environment variables, in file order.
        env: Vec<(String, String)>,
        /// Working directory, if given.
        cwd: Option<String>,
    },
    /// A remote server over HTTP: Streamable HTTP, the legacy HTTP+SSE transport, or the first
    /// with a fall back to the second.
    Http {
        /// Endpoint URL (for the legacy transport, the URL of its SSE stream).
        url: String,
        /// Which of MCP's HTTP transports to speak.
        protocol: RemoteProtocol,
        /// Extra request headers, in file order.
        headers: Vec<(String, String)>,
        /// `"oauth"`: authorize with OAuth when the server asks (agentwire extension); `None`
        /// when off.
        oauth: Option<OAuthSettings>,
    },
    /// The built-in mock GitHub MCP server.
    Mock,
    /// An entry that could not be read: connecting it fails with this error, and only it.
    Invalid {
        /// What is wrong, naming the file, the server and the field.
        error: ConfigError,
    },
}

/// Which of MCP's HTTP transports a remote server speaks.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum RemoteProtocol {
    /// Streamable HTTP (2025-03-26 and later): `"type": "http"`, `"streamable-http"`, or
    /// `httpUrl`.
    Streamable,
    /// Streamable HTTP, falling back to the legacy HTTP+SSE transport when the server answers
    /// the first POST with 400, 404 or 405 (the 2025-03-26 spec's backwards compatibility): a
    /// `url` or `serverUrl` without `type`.
    StreamableOrSse,
    /// The legacy HTTP+SSE transport of 2024-11-05 (`"type": "sse"`): a GET opens the event
    /// stream, whose `endpoint` event names where to POST messages.
    LegacySse,
}

/// A configuration error naming the file and, when known, the server, the field and the position.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ConfigError {
    /// The file name the caller passed in.
    pub file: String,
    /// The server whose entry is broken.
    pub server: Option<String>,
    /// The field, as a path such as `args[1]` or `env.TOKEN`.
    pub field: Option<String>,
    /// 1-based line and column, for JSON syntax errors.
    pub position: Option<(usize, usize)>,
    /// What is wrong, as a sentence fragment that already names the field.
    pub message: String,
}

impl fmt::Display for ConfigError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.file)?;
        if let Some((line, column)) = self.position {
            write!(f, ":{line}:{column}")?;
        }
        if let Some(server) = &self.server {
            write!(f, ": server {server}", server = quoted(server))?;
        }
        write!(f, ": {}", self.message)
    }
}

impl std::error::Error for ConfigError {}

impl McpConfig {
    /// Parses `.mcp.json` text. `file` is used in messages; `lookup` resolves `${VAR}`.
    pub fn parse(
        file: &str,
        text: &str,
        lookup: &dyn Fn(&str) -> Option<String>,
    ) -> Result<McpConfig, ConfigError> {
        let root = crate::json::parse_str(text).map_err(|e| syntax_error(file, &e))?;
        let top_err = |message: String| ConfigError {
            file: file.to_owned(),
            server: None,
            field: None,
            position: None,
            message,
        };
        let root = root
            .as_object()
            .ok_or_else(|| top_err("the top level must be a JSON object".into()))?;
        let mut warnings = Vec::new();
        let duplicates = duplicates::find_duplicates(text);
        if duplicates.servers_object {
            warnings.push(format!(
                "{file}: \"mcpServers\" appears more than once; only the last one is used"
            ));
        }
        for name in &duplicates.names {
            warnings.push(format!(
                "{file}: server {name} is defined more than once in \"mcpServers\"; only the \
                 last definition is used",
                name = quoted(name)
            ));
        }
        for key in root.keys().filter(|k| *k != "mcpServers") {
            warnings.push(format!(
                "{file}: unknown top-level field {key} ignored",
                key = quoted(key)
            ));
        }
        let servers = match root.get("mcpServers") {
            None => {
                warnings.push(format!("{file}: no \"mcpServers\" object; no servers"));
                return Ok(McpConfig {
                    servers: Vec::new(),
                    warnings,
                });
            }
            Some(Value::Object(map)) => map,
            Some(_) => return Err(top_err("\"mcpServers\" must be an object".into())),
        };
        let mut parsed = Vec::with_capacity(servers.len());
        for (name, entry) in servers {
            let mut ctx = EntryCtx {
                file,
                name,
                lookup,
                warnings: &mut warnings,
            };
            // A broken entry fails only itself.
            parsed.push(
                ctx.server(entry)
                    .unwrap_or_else(|error| invalid(name, error)),
            );
        }
        Ok(McpConfig {
            servers: parsed,
            warnings,
        })
    }

    /// The server with this name.
    pub fn server(&self, name: &str) -> Option<&ServerConfig> {
        self.servers.iter().find(|s| s.name == name)
    }

    /// Servers not marked `disabled`, in file order.
    pub fn enabled(&self) -> impl Iterator<Item = &ServerConfig> {
        self.servers.iter().filter(|s| !s.disabled)
    }
}

/// The stand-in for an entry that could not be read: enabled, so that connecting it reports
/// `error` as its failure.
fn invalid(name: &str, error: ConfigError) -> ServerConfig {
    ServerConfig {
        name: name.to_owned(),
        disabled: false,
        sampling: false,
        tasks: false,
        skills: false,
        timeout: DEFAULT_TIMEOUT,
        startup_timeout: DEFAULT_STARTUP_TIMEOUT,
        transport: ServerTransport::Invalid { error },
        risk: None,
        tool_risk: Vec::new(),
        tool_search: ServerDefer::default(),
        protocol: crate::mcp::ProtocolChoice::Auto,
        sandbox: None,
    }
}

impl McpConfig {
    /// The entries that could not be read, each with its error.
    pub fn invalid(&self) -> impl Iterator<Item = &ConfigError> {
        self.servers.iter().filter_map(|s| match &s.transport {
            ServerTransport::Invalid { error } => Some(error),
            _ => None,
        })
    }
}

impl ServerConfig {
    /// The configured risk of `tool`: its `toolRisk` entry, else the server's `risk`, else none.
    pub fn risk_of(&self, tool: &str) -> Option<&str> {
        self.tool_risk
            .iter()
            .find(|(t, _)| t == tool)
            .map(|(_, r)| r.as_str())
            .or(self.risk.as_deref())
    }
}

fn syntax_error(file: &str, err: &serde_json::Error) -> ConfigError {
    // serde_json appends " at line L column C"; the position is reported separately.
    let text = err.to_string();
    let suffix = format!(" at line {} column {}", err.line(), err.column());
    let message = text.strip_suffix(&suffix).unwrap_or(&text);
    ConfigError {
        file: file.to_owned(),
        server: None,
        field: None,
        position: Some((err.line(), err.column())),
        message: format!("invalid JSON: {message}"),
    }
}

/// Reading one server entry: carries what every error and warning needs.
struct EntryCtx<'a> {
    file: &'a str,
    name: &'a str,
    lookup: &'a dyn Fn(&str) -> Option<String>,
    warnings: &'a mut Vec<String>,
}

impl EntryCtx<'_> {
    fn err(&self, field: Option<&str>, message: String) -> ConfigError {
        ConfigError {
            file: self.file.to_owned(),
            server: Some(self.name.to_owned()),
            field: field.map(str::to_owned),
            position: None,
            message,
        }
    }

    fn warn(&mut self, message: String) {
        self.warnings.push(format!(
            "{}: server {}: {message}",
            self.file,
            quoted(self.name)
        ));
    }

    fn server(&mut self, entry: &Value) -> Result<ServerConfig, ConfigError> {
        let ok_name = !self.name.is_empty()
            && self
                .name
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-');
        if !ok_name {
            return Err(self.err(
                None,
                "server names must be non-empty and use only letters, digits, '_' and '-'".into(),
            ));
        }
        let map = entry
            .as_object()
            .ok_or_else(|| self.err(None, "the entry must be a JSON object".into()))?;
        let remote =
            !map.contains_key("command") && URL_FIELDS.iter().any(|f| map.contains_key(*f));
        let kind = match map.get("type") {
            // A URL and no command: a remote server, as other clients write one.
            None if remote => "remote",
            None => "stdio",
            Some(Value::String(s)) => s.as_str(),
            Some(_) => return Err(self.err(Some("type"), "\"type\" must be a string".into())),
        };
        let transport = match kind {
            "stdio" => self.stdio(map)?,
            "http" | "streamable-http" => self.http(map, RemoteProtocol::Streamable)?,
            "sse" => self.http(map, RemoteProtocol::LegacySse)?,
            // `httpUrl` is Streamable HTTP only, as Gemini CLI reads it.
            "remote" if !map.contains_key("url") && !map.contains_key("serverUrl") => {
                self.http(map, RemoteProtocol::Streamable)?
            }
            "remote" => self.http(map, RemoteProtocol::StreamableOrSse)?,
            "mock" => ServerTransport::Mock,
            other => {
                return Err(self.err(
                    Some("type"),
                    format!(
                        "unknown \"type\" {other} (expected \"stdio\", \"http\", \"sse\", \
                         \"streamable-http\" or \"mock\")",
                        other = quoted(other)
                    ),
                ))
            }
        };
        self.warn_unknown(map, &transport);
        let flag = |key: &str| match map.get(key) {
            None | Some(Value::Null) => Ok(false),
            Some(Value::Bool(b)) => Ok(*b),
            Some(_) => Err(self.err(Some(key), format!("\"{key}\" must be a boolean"))),
        };
        let disabled = flag("disabled")?;
        let sampling = flag("sampling")?;
        let tasks = flag("tasks")?;
        let skills = flag("skills")?;
        let risk = match map.get("risk") {
            None | Some(Value::Null) => None,
            Some(v) => Some(self.risk_value("risk", v)?),
        };
        let mut tool_risk = Vec::new();
        if let Some(v) = map.get("toolRisk") {
            let obj = v.as_object().ok_or_else(|| {
                self.err(Some("toolRisk"), "\"toolRisk\" must be an object".into())
            })?;
            for (tool, r) in obj {
                tool_risk.push((
                    tool.clone(),
                    self.risk_value(&format!("toolRisk.{tool}"), r)?,
                ));
            }
        }
        let tool_search = self.server_defer(map)?;
        let protocol = match map.get("protocol") {
            None | Some(Value::Null) => crate::mcp::ProtocolChoice::Auto,
            Some(Value::String(text)) => crate::mcp::ProtocolChoice::parse(text)
                .map_err(|e| self.err(Some("protocol"), e))?,
            Some(_) => {
                return Err(self.err(Some("protocol"), "\"protocol\" must be a string".into()))
            }
        };
        let sandbox = match (&transport, map.get("sandbox")) {
            (ServerTransport::Stdio { .. }, Some(value)) => self.sandbox(value)?,
            _ => None,
        };
        Ok(ServerConfig {
            sandbox,
            protocol,
            name: self.name.to_owned(),
            disabled,
            sampling,
            tasks,
            skills,
            tool_search,
            timeout: self.millis(map, "timeout", DEFAULT_TIMEOUT)?,
            startup_timeout: self.millis(map, "startupTimeout", DEFAULT_STARTUP_TIMEOUT)?,
            transport,
            risk,
            tool_risk,
        })
    }

    /// `"sandbox"`: a mode name, or `{"mode", "network"}`; anything else makes the entry
    /// invalid (a confinement asked for is never dropped).
    fn sandbox(&self, value: &Value) -> Result<Option<ServerSandbox>, ConfigError> {
        let bad = |why: &str| {
            self.err(
                Some("sandbox"),
                format!(
                    "\"sandbox\" {why} (expected \"read-only\", \"workspace-write\" or \
                     {{\"mode\": ..., \"network\": true|false}})"
                ),
            )
        };
        let mode = |v: Option<&Value>| match v.and_then(Value::as_str) {
            Some("read-only") => Ok(true),
            Some("workspace-write") => Ok(false),
            _ => Err(bad("names no mode")),
        };
        match value {
            Value::Null => Ok(None),
            Value::String(_) => Ok(Some(ServerSandbox {
                read_only: mode(Some(value))?,
                network: true,
            })),
            Value::Object(obj) => {
                if obj.keys().any(|k| k != "mode" && k != "network") {
                    return Err(bad("has an unknown key"));
                }
                let network = match obj.get("network") {
                    None => true,
                    Some(Value::Bool(on)) => *on,
                    Some(_) => return Err(bad("has a \"network\" that is not true or false")),
                };
                Ok(Some(ServerSandbox {
                    read_only: mode(obj.get("mode"))?,
                    network,
                }))
            }
            _ => Err(bad("is neither a mode nor an object")),
        }
    }

    fn server_defer(&self, map: &Map<String, Value>) -> Result<ServerDefer, ConfigError> {
        let defer = match map.get("defer") {
            None | Some(Value::Null) => Defer::Auto,
            Some(Value::Bool(true)) => Defer::Always,
            Some(Value::Bool(false)) => Defer::Never,
            Some(Value::String(s)) if s == "auto" => Defer::Auto,
            Some(_) => {
                return Err(self.err(
                    Some("defer"),
                    "\"defer\" must be \"auto\", true or false".into(),
                ))
            }
        };
        let always_load = match map.get("alwaysLoad") {
            None | Some(Value::Null) => Vec::new(),
            Some(Value::Array(items)) => items
                .iter()
                .map(|item| item.as_str().map(str::to_owned))
                .collect::<Option<Vec<_>>>()
                .ok_or_else(|| {
                    self.err(
                        Some("alwaysLoad"),
                        "\"alwaysLoad\" must be an array of tool names".into(),
                    )
                })?,
            Some(_) => {
                return Err(self.err(
                    Some("alwaysLoad"),
                    "\"alwaysLoad\" must be an array of tool names".into(),
                ))
            }
        };
        Ok(ServerDefer { defer, always_load })
    }

    fn stdio(&self, map: &Map<String, Value>) -> Result<ServerTransport, ConfigError> {
        let command = match map.get("command") {
            Some(Value::String(s)) => self.expand("command", s)?,
            Some(_) => return Err(self.err(Some("command"), "\"command\" must be a string".into())),
            None => {
                return Err(self.err(
                    Some("command"),
                    "\"command\" is required for a stdio server (or give a remote server's \
                     \"url\", or set \"type\")"
                        .into(),
                ))
            }
        };
        if command.trim().is_empty() {
            return Err(self.err(Some("command"), "\"command\" must not be empty".into()));
        }
        let args = match map.get("args") {
            None | Some(Value::Null) => Vec::new(),
            Some(Value::Array(items)) => {
                let mut args = Vec::with_capacity(items.len());
                for (i, item) in items.iter().enumerate() {
                    let s = item.as_str().ok_or_else(|| self.args_error(Some(i)))?;
                    args.push(self.expand(&format!("args[{i}]"), s)?);
                }
                args
            }
            Some(_) => return Err(self.args_error(None)),
        };
        let cwd = match map.get("cwd") {
            None | Some(Value::Null) => None,
            Some(Value::String(s)) => Some(self.expand("cwd", s)?),
            Some(_) => return Err(self.err(Some("cwd"), "\"cwd\" must be a string".into())),
        };
        Ok(ServerTransport::Stdio {
            command,
            args,
            env: self.string_map(map, "env")?,
            cwd,
        })
    }

    fn args_error(&self, index: Option<usize>) -> ConfigError {
        let detail = index.map_or(String::new(), |i| format!(" (item {i} is not)"));
        self.err(
            Some("args"),
            format!("\"args\" must be an array of strings{detail}"),
        )
    }

    fn http(
        &mut self,
        map: &Map<String, Value>,
        protocol: RemoteProtocol,
    ) -> Result<ServerTransport, ConfigError> {
        let given: Vec<&str> = URL_FIELDS
            .into_iter()
            .filter(|f| map.contains_key(*f))
            .collect();
        let Some(&field) = given.first() else {
            return Err(self.err(Some("url"), "\"url\" is required for an http server".into()));
        };
        if given.len() > 1 {
            self.warn(format!(
                "both {} and {} are given; {} is used",
                quoted(given[0]),
                quoted(given[1]),
                quoted(field)
            ));
        }
        let url = match &map[field] {
            Value::String(s) => self.expand(field, s)?,
            _ => return Err(self.err(Some(field), format!("{} must be a string", quoted(field)))),
        };
        if !(url.starts_with("http://") || url.starts_with("https://")) {
            return Err(self.err(
                Some(field),
                format!(
                    "{} must start with http:// or https:// (got {url})",
                    quoted(field),
                    url = quoted(&url)
                ),
            ));
        }
        let oauth = self.oauth(map)?;
        Ok(ServerTransport::Http {
            url,
            protocol,
            headers: self.string_map(map, "headers")?,
            oauth,
        })
    }

    /// An object of string values (`env`, `headers`), expanded, in file order.
    fn string_map(
        &self,
        map: &Map<String, Value>,
        field: &str,
    ) -> Result<Vec<(String, String)>, ConfigError> {
        match map.get(field) {
            None | Some(Value::Null) => Ok(Vec::new()),
            Some(Value::Object(obj)) => obj
                .iter()
                .map(|(key, value)| {
                    let path = format!("{field}.{key}");
                    let s = value.as_str().ok_or_else(|| {
                        self.err(
                            Some(&path),
                            format!(
                                "{path} must be a string (\"{field}\" maps names to strings)",
                                path = quoted(&path)
                            ),
                        )
                    })?;
                    Ok((key.clone(), self.expand(&path, s)?))
                })
                .collect(),
            Some(_) => Err(self.err(
                Some(field),
                format!(
                    "{field} must be an object of strings",
                    field = quoted(field)
                ),
            )),
        }
    }

    fn expand(&self, field: &str, text: &str) -> Result<String, ConfigError> {
        expand_vars(text, self.lookup)
            .map_err(|e| self.err(Some(field), format!("{field}: {e}", field = quoted(field))))
    }

    fn millis(
        &self,
        map: &Map<String, Value>,
        field: &str,
        default: Duration,
    ) -> Result<Duration, ConfigError> {
        match map.get(field) {
            None | Some(Value::Null) => Ok(default),
            Some(Value::Number(n)) => match n.as_u64() {
                Some(ms) if ms > 0 => Ok(Duration::from_millis(ms)),
                _ => Err(self.err(
                    Some(field),
                    format!(
                        "{field} must be a positive whole number of milliseconds (got {n})",
                        field = quoted(field)
                    ),
                )),
            },
            Some(_) => Err(self.err(
                Some(field),
                format!(
                    "{field} must be a number of milliseconds",
                    field = quoted(field)
                ),
            )),
        }
    }

    fn risk_value(&self, field: &str, value: &Value) -> Result<String, ConfigError> {
        match value.as_str() {
            Some(r) if RISKS.contains(&r) => Ok(r.to_owned()),
            _ => Err(self.err(
                Some(field),
                format!("{field} must be one of \"read\", \"write\", \"execute\", \"network\" (got {value})", field = quoted(field)),
            )),
        }
    }

    fn warn_unknown(&mut self, map: &Map<String, Value>, transport: &ServerTransport) {
        let own: &[&str] = match transport {
            ServerTransport::Stdio { .. } => &STDIO_FIELDS,
            ServerTransport::Http { .. } => &HTTP_FIELDS,
            _ => &[],
        };
        let mut notes = Vec::new();
        for key in map.keys() {
            let key = key.as_str();
            if COMMON_FIELDS.contains(&key) || own.contains(&key) {
                continue;
            }
            if STDIO_FIELDS.contains(&key) || HTTP_FIELDS.contains(&key) {
                notes.push(format!(
                    "field {key} does not apply to this server's type; ignored",
                    key = quoted(key)
                ));
            } else {
                notes.push(format!("unknown field {key} ignored", key = quoted(key)));
            }
        }
        for note in notes {
            self.warn(note);
        }
    }
}
