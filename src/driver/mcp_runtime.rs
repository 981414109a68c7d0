//! What the runtime offers from servers beyond tools: resources (listed, read, attached with
//! `@server:uri`), prompts, argument completion and log levels.
//!
//! Two async bodies carry every operation: [`Runtime::exchange`] (one request, or one whole
//! list, with one server) and `gather` (a list across servers); each operation prepares and
//! finishes around them synchronously. The npm package's JS layer shapes its results itself
//! over `exchange` (the wasm `mcp` export), so the runtime module carries no prompt or
//! completion code.

use super::client::McpClient;
use super::runtime::Runtime;
use super::traits::Clock;
use crate::content::{ContentBlock, ToolOutput};
use crate::json::{parse_str, quoted, to_text};
use crate::mcp::{read_resource_result, ListKind};
use crate::policy::Decision;
use crate::registry::{truncate_output, DEFAULT_MAX_OUTPUT_CHARS};
use serde_json::{json, Value};

/// The lists of `resources()` and the `list_mcp_resources` tool: resources, then templates.
pub(super) const RESOURCE_LISTS: [ListKind; 2] = [ListKind::Resources, ListKind::ResourceTemplates];

/// Why an exchange with a server that is not connected failed.
pub const NOT_CONNECTED: &str = "the server is not connected";

/// Request params from their JSON text (always valid: names through [`quoted`], values through
/// [`to_text`]); text costs the wasm build less than a `json!` expansion per key.
fn params(text: String) -> Value {
    parse_str(&text).unwrap_or_default()
}

/// Appends the object entries of `items` to `into`, each tagged with `"server": server`.
fn tag_into(into: &mut Vec<Value>, items: Vec<Value>, server: &str) {
    for mut item in items {
        if let Some(object) = item.as_object_mut() {
            object.insert("server".into(), server.into());
            into.push(item);
        }
    }
}

impl<C: Clock> Runtime<C> {
    /// Why `server`'s resources, prompts and completions may not be used: a deny rule covering
    /// the whole server ([`Policy::decide_server`](crate::policy::Policy::decide_server)).
    fn denied(&self, server: &str) -> Option<String> {
        match self.agent.borrow().policy().decide_server(server) {
            Decision::Deny { rule } => Some(format!("denied by the permission rule `{rule}`")),
            _ => None,
        }
    }

    /// The clients to ask for `method`: every connected server's that offers it and is not
    /// denied, or `only`'s (which must be connected and not denied); the error names the
    /// server and the method.
    fn offering(
        &self,
        only: Option<&str>,
        method: &str,
    ) -> Result<Vec<(String, McpClient)>, String> {
        if let Some(name) = only {
            if let Some(why) = self.denied(name) {
                return Err(format!("MCP server {name}: {method}: {why}"));
            }
            return match self.client(name) {
                Some(client) => Ok(vec![(name.to_owned(), client)]),
                None => Err(format!("MCP server {name}: {method}: not connected")),
            };
        }
        let mut clients = Vec::new();
        for name in self.server_names() {
            if self.denied(&name).is_some() {
                continue;
            }
            if let Some(client) = self.client(&name).filter(|c| c.offers(method)) {
                clients.push((name, client));
            }
        }
        Ok(clients)
    }

    /// One exchange with `server` (see [`McpClient::exchange`](super::McpClient::exchange)):
    /// a whole list for a list method, else the raw result of one request; the error is why
    /// (the caller names the server and what was asked).
    pub async fn exchange(
        &self,
        server: &str,
        method: &str,
        params: Value,
    ) -> Result<Value, String> {
        if let Some(why) = self.denied(server) {
            return Err(why);
        }
        let Some(client) = self.client(server) else {
            return Err(NOT_CONNECTED.to_owned());
        };
        client
            .exchange(method, params)
            .await
            .map_err(|e| e.to_string())
    }

    /// The entries of `lists` of every server offering the first (or of `server` alone), each
    /// tagged with `"server"`, one vector per list; the lists after the first are optional
    /// (a server failing them adds nothing). Errors name the server and the first list. (What
    /// to ask and how to file answers are plain functions: the async body only awaits.)
    pub(super) async fn gather(
        &self,
        server: Option<&str>,
        lists: &[ListKind],
    ) -> Result<Vec<Vec<Value>>, String> {
        let method = lists[0].method_and_key().0;
        let mut gathered: Vec<Vec<Value>> = lists.iter().map(|_| Vec::new()).collect();
        for (name, client) in self.offering(server, method)? {
            for (i, kind) in lists.iter().enumerate() {
                match client.list(*kind).await {
                    Ok(items) => tag_into(&mut gathered[i], items, &name),
                    Err(_) if i > 0 => {}
                    Err(e) => return Err(format!("MCP server {name}: {method}: {e}")),
                }
            }
        }
        Ok(gathered)
    }

    /// Lists resources and resource templates of every server offering them (or of `server`),
    /// each entry tagged with `"server"`: `{"resources": [...], "resourceTemplates": [...]}`.
    pub async fn resources(&self, server: Option<&str>) -> Result<Value, String> {
        let mut gathered = self.gather(server, &RESOURCE_LISTS).await?;
        let templates = gathered.pop().unwrap_or_default();
        let resources = gathered.pop().unwrap_or_default();
        // Built by hand: `json!` would serialize each array again (a `to_value` per entry).
        let mut listed = serde_json::Map::new();
        listed.insert("resources".into(), Value::Array(resources));
        listed.insert("resourceTemplates".into(), Value::Array(templates));
        Ok(Value::Object(listed))
    }

    /// Lists the prompts of every server offering them (or of `server`), tagged with `"server"`.
    pub async fn prompts(&self, server: Option<&str>) -> Result<Vec<Value>, String> {
        let gathered = self.gather(server, &[ListKind::Prompts]).await?;
        Ok(gathered.into_iter().next().unwrap_or_default())
    }

    /// Reads one resource of `server`; the error names the server and the URI.
    pub async fn read_resource(&self, server: &str, uri: &str) -> Result<ToolOutput, String> {
        let failed = |why: String| format!("reading {uri} from MCP server {server} failed: {why}");
        if let Some(why) = self.denied(server) {
            return Err(failed(why));
        }
        let params = params(format!(r#"{{"uri":{}}}"#, quoted(uri)));
        let client = self
            .client(server)
            .ok_or(NOT_CONNECTED)
            .map_err(|why| failed(why.into()))?;
        let result = client.feature_request("resources/read", params).await;
        read_resource_result(&result.map_err(|e| failed(e.to_string()))?).map_err(failed)
    }

    /// Gets prompt `name` of `server` with `arguments` (an object of strings): the raw result.
    pub async fn get_prompt(
        &self,
        server: &str,
        name: &str,
        arguments: Value,
    ) -> Result<Value, String> {
        let text = format!(
            r#"{{"name":{},"arguments":{}}}"#,
            quoted(name),
            to_text(&arguments)
        );
        self.exchange(server, "prompts/get", params(text))
            .await
            .map_err(|why| format!("MCP server {server}: prompt {name}: {why}"))
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
        let method = "completion/complete";
        if let Some(why) = self.denied(server) {
            return Err(format!("MCP server {server}: completion: {why}"));
        }
        if !self.client(server).is_some_and(|c| c.offers(method)) {
            return Ok(Vec::new());
        }
        let text = format!(
            r#"{{"ref":{{"type":"ref/prompt","name":{}}},"argument":{{"name":{},"value":{}}},"context":{{"arguments":{}}}}}"#,
            quoted(prompt),
            quoted(argument),
            quoted(value),
            to_text(&context)
        );
        let failed = |why: &str| format!("MCP server {server}: completion: {why}");
        let result = self.exchange(server, method, params(text)).await;
        let result = result.map_err(|why| failed(&why))?;
        let values = result
            .pointer("/completion/values")
            .and_then(Value::as_array);
        let values = values.ok_or_else(|| failed("no values"))?;
        Ok(values
            .iter()
            .filter_map(|v| Some(v.as_str()?.to_owned()))
            .collect())
    }

    /// Asks every server that offers logging to send messages at `level` and above; returns
    /// the servers that refused, with why.
    pub async fn set_log_level(&self, level: &str) -> Vec<String> {
        let mut failures = Vec::new();
        for (name, client) in self.offering(None, "logging/setLevel").unwrap_or_default() {
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
            let output = self.read_resource(&server, &uri).await?;
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
