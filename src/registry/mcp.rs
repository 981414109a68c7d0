//! Loading MCP servers' tool lists into the registry.

use super::checks::{MAX_MCP_TOOLS, MAX_TOOLS_PER_SERVER};
use super::names::{mcp_tool_name, with_hash_suffix};
use super::{names, vetting, Registry, RegistryError, Risk, ToolSource, ToolSpec};
use crate::json::quoted;
use serde_json::{json, Map, Value};
use std::borrow::Cow;

/// A tool from a `tools/list` result that was not registered, and why.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SkippedTool {
    /// The tool's name as the server sent it (or `#<index>` when it had none).
    pub name: String,
    /// Why it was skipped.
    pub reason: String,
}

/// What [`Registry::load_server`] did.
#[derive(Clone, Debug, PartialEq, Eq, Default)]
pub struct LoadReport {
    /// The server.
    pub server: String,
    /// Registered model-facing names, in list order.
    pub loaded: Vec<String>,
    /// Tools that were refused, with reasons.
    pub skipped: Vec<SkippedTool>,
    /// How many tools of an earlier load of this server were replaced.
    pub replaced: usize,
}

impl LoadReport {
    /// Whether every listed tool was registered.
    pub fn is_clean(&self) -> bool {
        self.skipped.is_empty()
    }

    /// `{"server", "loaded": [...], "skipped": [{"name", "reason"}], "replaced"}`.
    pub fn to_value(&self) -> Value {
        json!({
            "server": self.server,
            "loaded": self.loaded,
            "skipped": self.skipped.iter()
                .map(|s| json!({"name": s.name, "reason": s.reason}))
                .collect::<Vec<_>>(),
            "replaced": self.replaced,
        })
    }
}

/// The fields of one `tools/list` entry that the registry keeps.
struct RawTool<'a> {
    name: &'a str,
    description: Cow<'a, str>,
    input_schema: Value,
    annotations: Option<Value>,
}

fn read_tool<'a>(
    server: &str,
    index: usize,
    value: &'a Value,
) -> Result<RawTool<'a>, RegistryError> {
    let invalid = |tool: String, reason: &str| RegistryError::InvalidTool {
        server: server.to_owned(),
        tool,
        reason: reason.to_owned(),
    };
    let obj = value
        .as_object()
        .ok_or_else(|| invalid(format!("#{index}"), "a tool must be a JSON object"))?;
    let name = match obj.get("name") {
        Some(Value::String(s)) if !s.is_empty() => s.as_str(),
        _ => {
            return Err(invalid(
                format!("#{index}"),
                "a tool needs a non-empty string \"name\"",
            ))
        }
    };
    let description = match obj.get("description") {
        None | Some(Value::Null) => Cow::Borrowed(""),
        Some(Value::String(s)) => super::checks::cut_description(s),
        Some(_) => {
            return Err(invalid(
                quoted(name).to_string(),
                "\"description\" must be a string",
            ))
        }
    };
    let input_schema = match obj.get("inputSchema") {
        // Model APIs want an object schema; a tool without one takes no arguments.
        None | Some(Value::Null) => json!({"type": "object", "properties": Map::new()}),
        Some(schema) => {
            let mut schema = super::checks::object_schema(schema.clone())
                .map_err(|reason| invalid(quoted(name).to_string(), &reason))?;
            // Lossless slimming: the model gains nothing from the dialect URI, and it costs
            // about 11% of the definitions' tokens.
            if let Value::Object(map) = &mut schema {
                map.shift_remove("$schema");
            }
            schema
        }
    };
    let annotations = obj.get("annotations").filter(|a| a.is_object()).cloned();
    Ok(RawTool {
        name,
        description,
        input_schema,
        annotations,
    })
}

/// Whether a `tools/list` entry's name is already a valid model-facing tool name part.
fn has_plain_name(value: &Value) -> bool {
    value
        .get("name")
        .and_then(Value::as_str)
        .is_some_and(|name| names::sanitize(name) == name)
}

impl Registry {
    /// Loads (or reloads) `server`'s tools from its `tools/list` result entries.
    ///
    /// Exactly the server's previous tools are replaced; other servers and built-in tools are
    /// untouched, and any failure recorded for the server is cleared. Entries that cannot be
    /// registered (malformed, duplicated, name clash) are skipped and listed in the report.
    pub fn load_server(&mut self, server: &str, tools: &[Value]) -> LoadReport {
        // What each tool weighed before this listing: a re-listing may not lower it.
        let previous: Vec<(String, Risk)> = self
            .server_tools(server)
            .map(|t| (t.call_name().to_owned(), t.risk))
            .collect();
        let mut report = LoadReport {
            server: server.to_owned(),
            replaced: self.drop_server_tools(server),
            ..Default::default()
        };
        self.server_errors.remove(server);
        self.loaded_servers.insert(server.to_owned());
        // Caps first: only the first `room` entries of the list are considered at all.
        let others = self.tools.iter().filter(|t| t.server().is_some()).count();
        let room = MAX_TOOLS_PER_SERVER.min(MAX_MCP_TOOLS.saturating_sub(others));
        // The cap counts tools that can be registered: malformed entries before it do not
        // use up room.
        let mut considered = tools.len();
        let mut valid = 0;
        for (index, value) in tools.iter().enumerate() {
            if valid == room {
                considered = index;
                break;
            }
            if read_tool(server, index, value).is_ok() {
                valid += 1;
            }
        }
        // Tools whose names need no sanitising claim their plain names first, so `delete_repo`
        // is `mcp__s__delete_repo` whatever the list order, and `delete.repo` gets the suffix.
        let mut order: Vec<usize> = (0..considered).collect();
        order.sort_by_key(|&i| !has_plain_name(&tools[i]));
        let mut block: Vec<ToolSpec> = Vec::new();
        let mut placed: Vec<(usize, Result<ToolSpec, RegistryError>)> = Vec::new();
        for index in order {
            let result = self.prepare_mcp_tool(server, index, &tools[index], &block);
            if let Ok(spec) = &result {
                block.push(spec.clone());
            }
            placed.push((index, result));
        }
        // Back to the server's list order.
        placed.sort_by_key(|(index, _)| *index);
        block.clear();
        for (index, result) in placed {
            match result {
                Ok(spec) => {
                    report.loaded.push(spec.name.clone());
                    block.push(spec);
                }
                Err(err) => report.skipped.push(SkippedTool {
                    name: tools[index]
                        .get("name")
                        .and_then(Value::as_str)
                        .map_or_else(|| format!("#{index}"), str::to_owned),
                    reason: err.to_string(),
                }),
            }
        }
        if considered < tools.len() {
            let over = tools.len() - considered;
            let limit = if room == MAX_TOOLS_PER_SERVER {
                format!("the limit of {MAX_TOOLS_PER_SERVER} tools per server")
            } else {
                format!("the limit of {MAX_MCP_TOOLS} MCP tools in all")
            };
            report.skipped.push(SkippedTool {
                name: format!("#{considered}…#{}", tools.len() - 1),
                reason: format!(
                    "MCP server {}: {over} more tools over {limit} were not loaded",
                    quoted(server)
                ),
            });
        }
        // The first listing of a connection is what later listings are compared with.
        if self.first_listings.get(server).is_none() {
            let first = block.iter().map(vetting::Listed::of).collect();
            self.first_listings.insert(server.to_owned(), first);
        }
        for spec in &mut block {
            spec.risk_trusted = self.risk_is_trusted(server, spec);
            if !spec.risk_trusted {
                let floor = self.risk_floor(server, spec.call_name(), &previous);
                spec.risk = spec.risk.max(floor);
                spec.concurrency_safe = spec.risk.is_read_only();
            }
        }
        // Keep servers sorted by name so definitions come out in a stable order.
        let at = self
            .tools
            .iter()
            .position(|t| matches!(t.server(), Some(s) if s > server))
            .unwrap_or(self.tools.len());
        self.tools.splice(at..at, block);
        if report.skipped.is_empty() {
            self.skipped.remove(server);
        } else {
            self.skipped
                .insert(server.to_owned(), report.skipped.clone());
        }
        report
    }

    /// The tools of `server`'s last load that were not registered, and why.
    pub fn skipped_tools(&self, server: &str) -> &[SkippedTool] {
        self.skipped.get(server).map_or(&[], Vec::as_slice)
    }

    fn owner_of<'a>(&'a self, name: &str, block: &'a [ToolSpec]) -> Option<&'a ToolSpec> {
        self.get(name)
            .or_else(|| block.iter().find(|t| t.name == name))
    }

    fn prepare_mcp_tool(
        &self,
        server: &str,
        index: usize,
        value: &Value,
        block: &[ToolSpec],
    ) -> Result<ToolSpec, RegistryError> {
        let raw = read_tool(server, index, value)?;
        let source = ToolSource::Mcp {
            server: server.to_owned(),
            original_name: raw.name.to_owned(),
        };
        let risk =
            self.overrides
                .mcp_risk(server, raw.name, &raw.description, raw.annotations.as_ref());
        let limits = self.limits_for(server);
        let mut spec = ToolSpec {
            name: mcp_tool_name(server, raw.name),
            // No `[MCP:<server>]` prefix: the name already carries the server.
            description: raw.description.into_owned(),
            input_schema: raw.input_schema,
            risk,
            concurrency_safe: risk.is_read_only(),
            timeout: limits.timeout,
            max_output_chars: limits.max_output_chars,
            annotations: raw.annotations,
            source,
            // Decided once the whole list is read (see `load_server`).
            risk_trusted: false,
        };
        if let Some(existing) = self.owner_of(&spec.name, block) {
            // The same tool listed twice is a real clash; a different tool that sanitised to the
            // same name gets a hash suffix so both stay callable.
            let hashed = with_hash_suffix(&spec.name, server, raw.name);
            let distinct_tool = existing.source != spec.source;
            if !distinct_tool || hashed == spec.name || self.owner_of(&hashed, block).is_some() {
                return Err(RegistryError::Clash {
                    name: spec.name.clone(),
                    existing: existing.describe_owner(),
                    rejected: spec.describe_owner(),
                });
            }
            spec.name = hashed;
        }
        debug_assert!(names::is_valid_tool_name(&spec.name));
        Ok(spec)
    }
}
