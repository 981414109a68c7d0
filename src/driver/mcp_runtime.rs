//! What the runtime offers from servers beyond tools: resources (listed, read, attached with
//! `@server:uri`), prompts, argument completion and log levels.
//!
//! Every operation goes through [`Runtime::mcp`] (prepared and finished synchronously around one
//! wire exchange), so the wasm build carries one async state machine for all of them rather
//! than one per feature and per caller.

use super::mcp_features::Ask;
use super::runtime::Runtime;
use super::traits::Clock;
use crate::content::{ContentBlock, ToolOutput};
use crate::json::{parse_str, quoted, to_text};
use crate::mcp::{read_resource_result, ListKind};
use crate::registry::{truncate_output, DEFAULT_MAX_OUTPUT_CHARS};
use serde_json::{json, Value};

/// An operation on MCP servers beyond tools, for [`Runtime::mcp`].
#[derive(Debug)]
pub enum McpOp<'a> {
    /// Resources and resource templates: `{"resources": [...], "resourceTemplates": [...]}`.
    Resources,
    /// Prompts: `[...]`.
    Prompts,
    /// `resources/read` of a URI: the raw result, once its contents read as tool content do.
    Read(&'a str),
    /// `prompts/get` of a prompt with its arguments (an object of strings): the raw result.
    GetPrompt(&'a str, Value),
    /// `completion/complete` of a prompt's argument: the suggested values, `[]` when the
    /// server does not offer completion.
    Complete {
        /// The prompt.
        prompt: &'a str,
        /// The argument being typed.
        argument: &'a str,
        /// What is typed of it so far.
        value: &'a str,
        /// The arguments already given (an object of strings).
        context: Value,
    },
}

impl McpOp<'_> {
    /// The lists this operation gathers across servers (none for a single request); the
    /// second, when there is one, is optional even for servers offering the first.
    fn lists(&self) -> &'static [ListKind] {
        match self {
            McpOp::Resources => &[ListKind::Resources, ListKind::ResourceTemplates],
            McpOp::Prompts => &[ListKind::Prompts],
            _ => &[],
        }
    }

    /// Why asking `server` failed, naming what was asked.
    fn failed(&self, server: &str, why: &str) -> String {
        let what = match self {
            McpOp::Read(uri) => {
                return format!("reading {uri} from MCP server {server} failed: {why}")
            }
            McpOp::GetPrompt(name, _) => {
                return format!("MCP server {server}: prompt {name}: {why}")
            }
            McpOp::Complete { .. } => "completion",
            _ => self.lists()[0].method_and_key().0,
        };
        format!("MCP server {server}: {what}: {why}")
    }
}

/// Request params from their JSON text (always valid: names through [`quoted`], values through
/// [`to_text`]); text costs the wasm build less than a `json!` expansion per key.
fn params(text: String) -> Value {
    parse_str(&text).unwrap_or_default()
}

/// Marks an exchange that is a single request rather than one of the gathered lists.
const SINGLE: usize = usize::MAX;

impl<C: Clock> Runtime<C> {
    /// Names of connected servers (all, or just `only`) that offer `method`.
    fn offering(&self, only: Option<&str>, method: &str) -> Vec<String> {
        self.server_names()
            .into_iter()
            .filter(|name| only.is_none_or(|o| o == name))
            .filter(|name| {
                let client = self.client(name);
                only.is_some() || client.is_some_and(|c| c.offers(method))
            })
            .collect()
    }

    /// Runs `op` on `server`, or for lists on every server offering them (each entry tagged
    /// with `"server"`); errors name the server and what was asked. Every operation goes
    /// through this one function with one wire exchange in it, so the wasm build carries a
    /// single async body for all of them (bindings, resource tools and `@server:uri`).
    pub async fn mcp(&self, server: Option<&str>, op: McpOp<'_>) -> Result<Value, String> {
        let lists = op.lists();
        let name = server.unwrap_or_default();
        // What to ask whom, in order: (server, exchange, index of its list if it is one).
        let mut asks: Vec<(String, Ask<'_>, usize)> = Vec::new();
        match &op {
            McpOp::Resources | McpOp::Prompts => {
                if server.is_some() && self.client(name).is_none() {
                    return Err(op.failed(name, "not connected"));
                }
                for server in self.offering(server, lists[0].method_and_key().0) {
                    for (i, kind) in lists.iter().enumerate() {
                        asks.push((server.clone(), Ask::List(*kind), i));
                    }
                }
            }
            McpOp::Read(uri) => {
                let text = format!(r#"{{"uri":{}}}"#, quoted(uri));
                asks.push((
                    name.into(),
                    Ask::Request("resources/read", params(text)),
                    SINGLE,
                ));
            }
            McpOp::GetPrompt(prompt, arguments) => {
                let (prompt, arguments) = (quoted(prompt), to_text(arguments));
                let text = format!(r#"{{"name":{prompt},"arguments":{arguments}}}"#);
                asks.push((
                    name.into(),
                    Ask::Request("prompts/get", params(text)),
                    SINGLE,
                ));
            }
            McpOp::Complete {
                prompt,
                argument,
                value,
                context,
            } => {
                let method = "completion/complete";
                if !self.client(name).is_some_and(|c| c.offers(method)) {
                    return Ok(json!([]));
                }
                let text = format!(
                    r#"{{"ref":{{"type":"ref/prompt","name":{}}},"argument":{{"name":{},"value":{}}},"context":{{"arguments":{}}}}}"#,
                    quoted(prompt),
                    quoted(argument),
                    quoted(value),
                    to_text(context)
                );
                asks.push((name.into(), Ask::Request(method, params(text)), SINGLE));
            }
        }
        let mut gathered: [Vec<Value>; 2] = Default::default();
        let mut single = Value::Null;
        for (server, ask, list) in asks {
            let Some(client) = self.client(&server) else {
                if list == SINGLE {
                    return Err(op.failed(&server, "the server is not connected"));
                }
                continue;
            };
            match (client.ask(ask).await, list) {
                (Ok(result), SINGLE) => single = result,
                (Ok(Value::Array(items)), i) => {
                    gathered[i].extend(items.into_iter().filter_map(|mut item| {
                        item.as_object_mut()?
                            .insert("server".into(), server.as_str().into());
                        Some(item)
                    }))
                }
                (Ok(_), _) => {}
                // Templates are optional even for servers with resources.
                (Err(_), 1) => {}
                (Err(e), _) => return Err(op.failed(&server, &e.to_string())),
            }
        }
        let [first, second] = gathered;
        match op {
            McpOp::Resources => Ok(json!({"resources": first, "resourceTemplates": second})),
            McpOp::Prompts => Ok(Value::Array(first)),
            McpOp::Read(_) => match read_resource_result(&single) {
                Ok(_) => Ok(single),
                Err(why) => Err(op.failed(name, &why)),
            },
            McpOp::GetPrompt(..) => Ok(single),
            McpOp::Complete { .. } => {
                let values = single
                    .pointer("/completion/values")
                    .and_then(Value::as_array);
                let values = values.ok_or_else(|| op.failed(name, "no values"))?;
                let strings = values.iter().filter(|v| v.is_string()).cloned();
                Ok(Value::Array(strings.collect()))
            }
        }
    }

    /// Lists resources and resource templates of every server offering them (or of `server`),
    /// each entry tagged with `"server"`: `{"resources": [...], "resourceTemplates": [...]}`.
    pub async fn resources(&self, server: Option<&str>) -> Result<Value, String> {
        self.mcp(server, McpOp::Resources).await
    }

    /// Lists the prompts of every server offering them (or of `server`), tagged with `"server"`.
    pub async fn prompts(&self, server: Option<&str>) -> Result<Vec<Value>, String> {
        match self.mcp(server, McpOp::Prompts).await? {
            Value::Array(prompts) => Ok(prompts),
            _ => Ok(Vec::new()),
        }
    }

    /// Reads one resource of `server`; the error names the server and the URI.
    pub async fn read_resource(&self, server: &str, uri: &str) -> Result<ToolOutput, String> {
        let result = self.mcp(Some(server), McpOp::Read(uri)).await?;
        // Already checked by `mcp`: this cannot fail.
        read_resource_result(&result)
    }

    /// Gets prompt `name` of `server` with `arguments` (an object of strings): the raw result.
    pub async fn get_prompt(
        &self,
        server: &str,
        name: &str,
        arguments: Value,
    ) -> Result<Value, String> {
        self.mcp(Some(server), McpOp::GetPrompt(name, arguments))
            .await
    }

    /// Completion values for argument `argument` of prompt `prompt` on `server` (typed so far
    /// as `value`, with the arguments already given in `context`); empty when the server does
    /// not offer completion.
    pub async fn complete(
        &self,
        server: &str,
        prompt: &str,
        argument: &str,
        value: &str,
        context: Value,
    ) -> Result<Vec<String>, String> {
        let op = McpOp::Complete {
            prompt,
            argument,
            value,
            context,
        };
        let values = self.mcp(Some(server), op).await?;
        let values = values.as_array().into_iter().flatten();
        Ok(values
            .filter_map(|v| Some(v.as_str()?.to_owned()))
            .collect())
    }

    /// Asks every server that offers logging to send messages at `level` and above; returns
    /// the servers that refused, with why.
    pub async fn set_log_level(&self, level: &str) -> Vec<String> {
        let mut failures = Vec::new();
        for name in self.offering(None, "logging/setLevel") {
            let Some(client) = self.client(&name) else {
                continue;
            };
            let result = client.feature_request("logging/setLevel", json!({ "level": level }));
            if let Err(e) = result.await {
                failures.push(format!("MCP server {name}: logging/setLevel: {e}"));
            }
        }
        failures
    }

    /// Attaches every `@server:uri` of `prompt` (a connected server's name at the start of a
    /// word) to it: the text stays, each resource's content follows, cut to the usual tool
    /// output limit. A resource that cannot be read fails the whole prompt, naming it.
    pub async fn attach_mentions(&self, prompt: &str) -> Result<String, String> {
        let mut attached = prompt.to_owned();
        for (server, uri) in self.mentions(prompt) {
            let result = self.mcp(Some(&server), McpOp::Read(&uri)).await?;
            // Already checked by `mcp`: this cannot fail.
            let output = read_resource_result(&result)?;
            // The tag already names the resource: text contents go in bare.
            let parts: Vec<String> = output
                .content
                .iter()
                .map(|block| match block {
                    ContentBlock::Resource { text: Some(t), .. } => t.clone(),
                    other => other.to_model_text(),
                })
                .collect();
            let (text, _) = truncate_output(&parts.join("\n"), DEFAULT_MAX_OUTPUT_CHARS);
            attached +=
                &format!("\n\n<resource server=\"{server}\" uri=\"{uri}\">\n{text}\n</resource>");
        }
        Ok(attached)
    }

    /// The `@server:uri` mentions of `prompt` whose server is configured, in order, once each.
    pub fn mentions(&self, prompt: &str) -> Vec<(String, String)> {
        let servers = self.server_names();
        let mut found: Vec<(String, String)> = Vec::new();
        for word in prompt.split_whitespace() {
            let Some((server, uri)) = word.strip_prefix('@').and_then(|w| w.split_once(':')) else {
                continue;
            };
            // Closing punctuation belongs to the sentence, not the URI.
            let uri = uri.trim_end_matches(['.', ',', ';', ')', '!', '?', '"', '\'']);
            let mention = (server.to_owned(), uri.to_owned());
            if servers.iter().any(|s| s == server) && !uri.is_empty() && !found.contains(&mention) {
                found.push(mention);
            }
        }
        found
    }
}
