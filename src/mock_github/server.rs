//! The JSON-RPC / MCP side of the mock: lines in, response lines out.

use super::resources;
use super::tools::{self, Session, ToolDef};
use crate::jsonrpc::{codes, ErrorObject, Message, MessageError, Request, Response};
use serde_json::{json, Map, Value};
use std::fmt;

/// Protocol versions the mock speaks, newest first.
pub const SUPPORTED_PROTOCOL_VERSIONS: &[&str] =
    &["2025-11-25", "2025-06-18", "2025-03-26", "2024-11-05"];

/// The version offered when a client asks for one the mock does not speak.
pub const LATEST_PROTOCOL_VERSION: &str = "2025-11-25";

/// The `serverInfo.name` the mock reports.
pub const SERVER_NAME: &str = "github-mock";

/// Longest line [`MockGithubServer::handle_bytes`] buffers before answering with a parse error.
pub const MAX_LINE_BYTES: usize = 8 * 1024 * 1024;

const INSTRUCTIONS: &str = "This is agentwire's built-in mock of the GitHub MCP server. It \
    answers from canned data about a few repositories (such as vercel/ai, facebook/react and \
    rust-lang/rust) and never contacts GitHub; create_issue and add_issue_comment return \
    plausible results but store nothing.";

/// Options for [`MockGithubServer`]; build with [`MockOptions::new`] and the `with_` methods.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
#[non_exhaustive]
pub struct MockOptions {
    /// Tools per `tools/list` page; `None` (the default) lists every tool in one page.
    pub tools_page_size: Option<usize>,
    /// Serve file bodies base64-encoded, as the raw GitHub API does. By default they are decoded
    /// text, which is what the real MCP server hands to the model.
    pub base64_file_contents: bool,
}

impl MockOptions {
    /// The defaults: one `tools/list` page, decoded file contents.
    pub fn new() -> Self {
        Self::default()
    }

    /// Splits `tools/list` into pages of `size` tools (at least one), to exercise a client's
    /// cursor handling.
    pub fn with_tools_page_size(mut self, size: usize) -> Self {
        self.tools_page_size = Some(size.max(1));
        self
    }

    /// Chooses base64-encoded (`true`) or decoded (`false`) file contents.
    pub fn with_base64_file_contents(mut self, base64: bool) -> Self {
        self.base64_file_contents = base64;
        self
    }
}

/// An in-process, sans-IO stand-in for `@modelcontextprotocol/server-github` over canned data.
///
/// It speaks JSON-RPC 2.0 / MCP over newline-delimited JSON, so a client talks to it exactly as
/// to a real server. Contract: feed each line the client sends to [`handle_line`] (or raw
/// bytes to [`handle_bytes`]) and deliver what it returns back to the client. Every request
/// gets exactly one response; notifications and responses get none. The server never sends
/// requests or notifications of its own.
///
/// Requests are answered whether or not `initialize` came first, as the reference SDK does.
///
/// Tool failures follow the current MCP guidance rather than the npm server's accident: bad
/// arguments, unknown repositories and the like are `isError: true` results the model can read
/// and correct (`Invalid arguments: owner: Required`, `Not Found: Resource not found: ...`).
/// An unknown tool name is a protocol error, `-32602` with the message `Unknown tool: <name>`,
/// so the mock exercises both of a client's failure paths. (The npm server throws for all
/// three, and its SDK turns every thrown error into a `-32603` response with that message.)
///
/// [`handle_line`]: MockGithubServer::handle_line
/// [`handle_bytes`]: MockGithubServer::handle_bytes
pub struct MockGithubServer {
    options: MockOptions,
    tools: Vec<ToolDef>,
    session: Session,
    protocol_version: Option<String>,
    initialized: bool,
    /// The unfinished line [`MockGithubServer::handle_bytes`] has buffered so far.
    pending: Vec<u8>,
    /// Skipping the rest of an over-long line, up to its newline.
    discarding: bool,
}

impl fmt::Debug for MockGithubServer {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("MockGithubServer")
            .field("options", &self.options)
            .field("tools", &self.tools.len())
            .field("protocol_version", &self.protocol_version)
            .field("initialized", &self.initialized)
            .field("pending_bytes", &self.pending.len())
            .finish()
    }
}

impl Default for MockGithubServer {
    fn default() -> Self {
        Self::new()
    }
}

fn invalid_params(message: impl Into<String>) -> ErrorObject {
    ErrorObject::new(
        codes::INVALID_PARAMS,
        format!("Invalid params: {}", message.into()),
    )
}

fn encode(response: Response) -> Vec<u8> {
    let mut bytes = Message::Response(response).to_bytes();
    bytes.push(b'\n');
    bytes
}

impl MockGithubServer {
    /// A server with default [`MockOptions`].
    pub fn new() -> Self {
        Self::with_options(MockOptions::default())
    }

    /// A server with the given options.
    pub fn with_options(options: MockOptions) -> Self {
        let session = Session {
            base64_contents: options.base64_file_contents,
            ..Session::default()
        };
        MockGithubServer {
            options,
            tools: tools::definitions(),
            session,
            protocol_version: None,
            initialized: false,
            pending: Vec::new(),
            discarding: false,
        }
    }

    /// The protocol version agreed in the last `initialize`, if any.
    pub fn protocol_version(&self) -> Option<&str> {
        self.protocol_version.as_deref()
    }

    /// Whether the client has sent `notifications/initialized`.
    pub fn is_initialized(&self) -> bool {
        self.initialized
    }

    /// The names of the tools the mock offers, in `tools/list` order.
    pub fn tool_names(&self) -> Vec<&'static str> {
        self.tools.iter().map(|t| t.name).collect()
    }

    /// Handles one NDJSON line (a trailing `\r\n` or `\n` is allowed) and returns the response
    /// lines to send back, each ending in `\n`: one for a request or an unreadable line, none
    /// for a notification, a response or a blank line.
    pub fn handle_line(&mut self, line: &[u8]) -> Vec<Vec<u8>> {
        if line.iter().all(u8::is_ascii_whitespace) {
            return Vec::new();
        }
        match Message::parse(line) {
            Ok(message) => self
                .handle_message(message)
                .map(encode)
                .into_iter()
                .collect(),
            Err(error) => {
                // Answer with the offending request's id when it could be read, else null.
                let id = match &error {
                    MessageError::Invalid { id, .. } => id.clone(),
                    _ => None,
                };
                vec![encode(Response {
                    id,
                    outcome: Err(error.to_error_object()),
                })]
            }
        }
    }

    /// Handles a chunk of a byte stream that may hold several lines or part of one, and
    /// returns every response line it completes, concatenated. Partial lines are kept for the
    /// next call; a line longer than [`MAX_LINE_BYTES`] is answered with a parse error and
    /// skipped up to its newline.
    pub fn handle_bytes(&mut self, bytes: &[u8]) -> Vec<u8> {
        let mut out = Vec::new();
        let mut rest = bytes;
        while let Some(pos) = rest.iter().position(|&b| b == b'\n') {
            let (head, tail) = rest.split_at(pos);
            rest = &tail[1..];
            if std::mem::take(&mut self.discarding) {
                self.pending.clear();
                continue;
            }
            if self.pending.len() + head.len() > MAX_LINE_BYTES {
                self.pending.clear();
                out.extend(Self::too_long());
                continue;
            }
            let replies = if self.pending.is_empty() {
                self.handle_line(head)
            } else {
                self.pending.extend_from_slice(head);
                let line = std::mem::take(&mut self.pending);
                self.handle_line(&line)
            };
            out.extend(replies.into_iter().flatten());
        }
        if !rest.is_empty() && !self.discarding {
            self.pending.extend_from_slice(rest);
            if self.pending.len() > MAX_LINE_BYTES {
                self.pending = Vec::new();
                self.discarding = true;
                out.extend(Self::too_long());
            }
        }
        out
    }

    fn too_long() -> Vec<u8> {
        encode(Response {
            id: None,
            outcome: Err(ErrorObject::new(
                codes::PARSE_ERROR,
                format!("Parse error: line longer than {MAX_LINE_BYTES} bytes"),
            )),
        })
    }

    /// Handles one parsed message; returns the response for a request, `None` otherwise.
    pub fn handle_message(&mut self, message: Message) -> Option<Response> {
        match message {
            Message::Request(request) => Some(self.handle_request(request)),
            Message::Notification(n) => {
                // Notifications are never answered; `notifications/cancelled` needs no action
                // because every request is answered synchronously before the next line.
                if n.method == "notifications/initialized" {
                    self.initialized = true;
                }
                None
            }
            // The mock sends no requests, so any response is stray; it is dropped.
            Message::Response(_) => None,
        }
    }

    fn handle_request(&mut self, request: Request) -> Response {
        let params = request.params.as_ref().and_then(Value::as_object);
        let outcome = match request.method.as_str() {
            "initialize" => self.initialize(params),
            "ping" => Ok(json!({})),
            "tools/list" => self.list_tools(params),
            "tools/call" => self.call_tool(params),
            "resources/list" => Ok(resources::list()),
            "resources/templates/list" => Ok(resources::templates()),
            "resources/read" => resources::read(params),
            "prompts/list" => Ok(resources::prompts()),
            "prompts/get" => resources::get(params),
            "completion/complete" => Ok(resources::complete(params)),
            other => Err(ErrorObject::method_not_found(other)),
        };
        Response {
            id: Some(request.id),
            outcome,
        }
    }

    fn initialize(&mut self, params: Option<&Map<String, Value>>) -> Result<Value, ErrorObject> {
        let requested = params
            .and_then(|p| p.get("protocolVersion"))
            .and_then(Value::as_str)
            .ok_or_else(|| invalid_params("initialize needs a string \"protocolVersion\""))?;
        let version = if SUPPORTED_PROTOCOL_VERSIONS.contains(&requested) {
            requested
        } else {
            LATEST_PROTOCOL_VERSION
        };
        self.protocol_version = Some(version.to_owned());
        Ok(json!({
            "protocolVersion": version,
            "capabilities": {"tools": {"listChanged": false}, "resources": {},
                "prompts": {}, "completions": {}},
            "serverInfo": {
                "name": SERVER_NAME,
                "title": "GitHub (built-in mock, canned data)",
                "version": env!("CARGO_PKG_VERSION"),
            },
            "instructions": INSTRUCTIONS,
        }))
    }

    /// Cursors are the offset of the page's first tool, as a decimal string; clients must treat
    /// them as opaque, and anything the mock did not hand out is refused.
    fn list_tools(&self, params: Option<&Map<String, Value>>) -> Result<Value, ErrorObject> {
        let start = match params.and_then(|p| p.get("cursor")) {
            None | Some(Value::Null) => 0,
            Some(Value::String(cursor)) => cursor
                .parse::<usize>()
                .ok()
                .filter(|&n| n > 0 && n < self.tools.len())
                .ok_or_else(|| invalid_params(format!("unknown cursor {cursor:?}")))?,
            Some(_) => return Err(invalid_params("\"cursor\" must be a string")),
        };
        let size = self.options.tools_page_size.unwrap_or(self.tools.len());
        let end = start.saturating_add(size).min(self.tools.len());
        let page: Vec<Value> = self.tools[start..end]
            .iter()
            .map(ToolDef::to_value)
            .collect();
        let mut result = json!({ "tools": page });
        if end < self.tools.len() {
            result["nextCursor"] = end.to_string().into();
        }
        Ok(result)
    }

    fn call_tool(&mut self, params: Option<&Map<String, Value>>) -> Result<Value, ErrorObject> {
        let name = params
            .and_then(|p| p.get("name"))
            .and_then(Value::as_str)
            .ok_or_else(|| invalid_params("tools/call needs a string \"name\""))?;
        let empty = Map::new();
        let arguments = match params.and_then(|p| p.get("arguments")) {
            None | Some(Value::Null) => &empty,
            Some(Value::Object(map)) => map,
            Some(_) => return Err(invalid_params("\"arguments\" must be an object")),
        };
        let tool = self.tools.iter().find(|t| t.name == name).ok_or_else(|| {
            ErrorObject::new(codes::INVALID_PARAMS, format!("Unknown tool: {name}"))
        })?;
        Ok(match tools::call(tool, &mut self.session, arguments) {
            Ok(value) => {
                let text = serde_json::to_string_pretty(&value).unwrap_or_default();
                json!({"content": [{"type": "text", "text": text}]})
            }
            Err(error) => json!({
                "content": [{"type": "text", "text": error.message()}],
                "isError": true,
            }),
        })
    }
}
