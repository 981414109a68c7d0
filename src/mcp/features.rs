//! MCP beyond tools: resources, prompts, completion and logging, each asked for only when the
//! server declared it in its `initialize` capabilities.

use super::events::{RequestId, SessionEvent};
use super::session::{CallOptions, ClientSession, Purpose, SessionError};
use crate::content::{ContentBlock, ToolOutput};
use crate::time::Instant;
use serde_json::{json, Value};

/// A paginated list of a server: tools, and what it may offer besides.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum ListKind {
    /// `tools/list` → `tools` (ends in [`SessionEvent::ToolsListed`](super::SessionEvent::ToolsListed)).
    Tools,
    /// `resources/list` → `resources`.
    Resources,
    /// `resources/templates/list` → `resourceTemplates`.
    ResourceTemplates,
    /// `prompts/list` → `prompts`.
    Prompts,
    /// `skills/list` → `skills` (the Skills extension; see [`super::skills`]).
    #[cfg(feature = "mcp-skills")]
    Skills,
}

impl ListKind {
    /// The list's method and the result field that holds each page.
    pub fn method_and_key(self) -> (&'static str, &'static str) {
        match self {
            ListKind::Tools => ("tools/list", "tools"),
            ListKind::Resources => ("resources/list", "resources"),
            ListKind::ResourceTemplates => ("resources/templates/list", "resourceTemplates"),
            ListKind::Prompts => ("prompts/list", "prompts"),
            #[cfg(feature = "mcp-skills")]
            ListKind::Skills => ("skills/list", "skills"),
        }
    }

    /// The list `method` asks for (`resources/list`, ...), if it is a list method.
    pub fn of_method(method: &str) -> Option<ListKind> {
        let kinds = [
            ListKind::Tools,
            ListKind::Resources,
            ListKind::ResourceTemplates,
            ListKind::Prompts,
            #[cfg(feature = "mcp-skills")]
            ListKind::Skills,
        ];
        kinds
            .into_iter()
            .find(|kind| kind.method_and_key().0 == method)
    }
}

/// The capability (and sub-flag, if any) a method needs from the server.
fn needed_capability(method: &str) -> Option<(&'static str, Option<&'static str>)> {
    Some(match method {
        "resources/subscribe" | "resources/unsubscribe" => ("resources", Some("subscribe")),
        m if m.starts_with("resources/") => ("resources", None),
        m if m.starts_with("prompts/") => ("prompts", None),
        "completion/complete" => ("completions", None),
        "logging/setLevel" => ("logging", None),
        #[cfg(feature = "mcp-skills")]
        m if m.starts_with("skills/") => ("extensions", Some(super::skills::SKILLS_EXTENSION)),
        _ => return None,
    })
}

impl ClientSession {
    /// Whether the server declared what `method` needs (`resources`, `prompts`,
    /// `completions`, `logging`, `resources.subscribe`); other methods are always offered.
    pub fn offers(&self, method: &str) -> bool {
        let Some((capability, flag)) = needed_capability(method) else {
            return true;
        };
        #[cfg(feature = "mcp-skills")]
        if capability == "extensions" {
            return self.skills_negotiated();
        }
        let declared = self
            .server()
            .and_then(|s| s.capabilities.get(capability))
            .filter(|c| c.is_object());
        match (declared, flag) {
            (Some(c), Some(flag)) => c.get(flag) == Some(&Value::Bool(true)),
            (declared, _) => declared.is_some(),
        }
    }

    /// The MCP extensions in use with this server: asked for in the config, the modern era,
    /// and declared by the server too (what `mcp list` shows).
    pub fn negotiated_extensions(&self) -> Vec<&'static str> {
        let declared = |name: &str| {
            self.server().is_some_and(|s| {
                s.era == super::Era::Modern
                    && s.capabilities
                        .get("extensions")
                        .and_then(|e| e.get(name))
                        .is_some_and(Value::is_object)
            })
        };
        // Mutated only by the extensions a build has.
        #[cfg_attr(
            not(any(feature = "mcp-tasks", feature = "mcp-skills")),
            allow(unused_mut)
        )]
        let mut names = Vec::new();
        #[cfg(feature = "mcp-tasks")]
        if self.config.tasks && declared(super::tasks::TASKS_EXTENSION) {
            names.push(super::tasks::TASKS_EXTENSION);
        }
        #[cfg(feature = "mcp-skills")]
        if self.config.skills && declared(super::skills::SKILLS_EXTENSION) {
            names.push(super::skills::SKILLS_EXTENSION);
        }
        let _ = declared;
        names
    }

    /// Lists every entry of `kind` across pages (at most `max_tool_pages`); ends in
    /// [`SessionEvent::Listed`](super::SessionEvent::Listed) (`ToolsListed` for tools) or
    /// `Failed`. Every kind shares this one path, on the wire and in the wasm build.
    pub fn list(&mut self, now: Instant, kind: ListKind) -> Result<RequestId, SessionError> {
        let (method, _) = kind.method_and_key();
        self.check_offered(method)?;
        let op = RequestId(self.peek_next_id());
        if let Some(items) = self.hints.list(kind, self.last_input.max(now)) {
            // Fresh by the server's own cache hint: nothing to send.
            let items = items.clone();
            self.pending.skip_id();
            self.events.push_back(match kind {
                ListKind::Tools => SessionEvent::ToolsListed {
                    request: op,
                    tools: items,
                },
                _ => SessionEvent::Listed { request: op, items },
            });
            return Ok(op);
        }
        let purpose = Purpose::List {
            kind,
            op,
            items: Vec::new(),
            pages: 1,
        };
        Ok(self.send_request(now, method, None, self.deadlines(now, None), purpose))
    }

    /// Sends a request of an optional feature (`resources/read`, `prompts/get`,
    /// `completion/complete`, `logging/setLevel`, `resources/subscribe`, ...), refused with
    /// [`SessionError::NotOffered`] when the server did not declare it; ends in `Response`.
    pub fn feature_request(
        &mut self,
        now: Instant,
        method: &str,
        params: Value,
    ) -> Result<RequestId, SessionError> {
        self.check_offered(method)?;
        self.request(now, method, Some(params), CallOptions::default())
    }

    /// A fresh cached answer to `resources/read` of the URI in `params` (modern era only).
    pub(super) fn cached_read(&self, method: &str, params: Option<&Value>) -> Option<Value> {
        if method != "resources/read" || self.envelope.is_none() {
            return None;
        }
        let uri = params?.get("uri")?.as_str()?;
        self.hints.read(uri, self.last_input).cloned()
    }

    fn check_offered(&self, method: &str) -> Result<(), SessionError> {
        self.check_ready()?;
        if self.offers(method) {
            Ok(())
        } else {
            Err(SessionError::NotOffered(method.to_owned()))
        }
    }
}

/// Reads a `resources/read` result: each of `contents` becomes a resource block (text or
/// base64 blob), so it is shown, truncated and audited like tool output.
pub fn read_resource_result(result: &Value) -> Result<ToolOutput, String> {
    let contents = result
        .get("contents")
        .and_then(Value::as_array)
        .ok_or("resources/read result without a \"contents\" array")?;
    // Each content read as an embedded resource block, through one wrapper.
    let mut block = json!({"type": "resource", "resource": null});
    let mut content = Vec::with_capacity(contents.len());
    for c in contents {
        block["resource"] = c.clone();
        content.push(ContentBlock::from_value(&block)?);
    }
    Ok(ToolOutput {
        content,
        ..Default::default()
    })
}

/// Reads a `prompts/get` result: its messages as (role, content block) pairs, in order.
pub fn prompt_messages(result: &Value) -> Result<Vec<(String, ContentBlock)>, String> {
    let messages = result
        .get("messages")
        .and_then(Value::as_array)
        .ok_or("prompts/get result without a \"messages\" array")?;
    messages
        .iter()
        .map(|m| {
            let role = m.get("role").and_then(Value::as_str).unwrap_or("user");
            let block = ContentBlock::from_value(m.get("content").unwrap_or(&Value::Null))?;
            Ok((role.to_owned(), block))
        })
        .collect()
}

/// A prompt's messages as one text for the model (each block as tool output shows it).
pub fn prompt_text(result: &Value) -> Result<String, String> {
    let messages = prompt_messages(result)?;
    Ok(messages
        .iter()
        .map(|(_, block)| block.to_model_text())
        .collect::<Vec<_>>()
        .join("\n\n"))
}
