//! What the runtime offers from servers beyond tools: resources (listed, read, attached with
//! `@server:uri`), prompts, argument completion and log levels.
//!
//! Every request goes through one private `request` (and lists through `collect`), so the wasm
//! build carries one async state machine per kind of wire exchange rather than one per feature.

use super::runtime::Runtime;
use super::traits::Clock;
use crate::content::{ContentBlock, ToolOutput};
use crate::mcp::{read_resource_result, ListKind};
use crate::registry::{truncate_output, DEFAULT_MAX_OUTPUT_CHARS};
use serde_json::{json, Value};

impl<C: Clock> Runtime<C> {
    /// Names of connected servers (all, or just `only`) that offer `method`.
    fn offering(&self, only: Option<&str>, method: &str) -> Vec<String> {
        let names = self.servers().into_iter().map(|(name, _)| name);
        names
            .filter(|name| only.is_none_or(|o| o == name))
            .filter(|name| {
                let client = self.client(name);
                only.is_some() || client.is_some_and(|c| c.offers(method))
            })
            .collect()
    }

    /// One optional-feature request to `server`; the error says why without naming it.
    async fn request(&self, server: &str, method: &str, params: Value) -> Result<Value, String> {
        let client = self.client(server).ok_or("the server is not connected")?;
        let result = client.feature_request(method, params).await;
        result.map_err(|e| e.to_string())
    }

    /// Every entry of `kind` of every server offering it (or of `server`), tagged with
    /// `"server"`. With `optional`, a server that fails is skipped rather than an error.
    async fn collect(
        &self,
        server: Option<&str>,
        kind: ListKind,
        optional: bool,
    ) -> Result<Vec<Value>, String> {
        let (method, _) = kind.method_and_key();
        if let Some(name) = server.filter(|s| self.client(s).is_none()) {
            return Err(format!("MCP server {name} is not connected"));
        }
        let mut all = Vec::new();
        for name in self.offering(server, method) {
            let Some(client) = self.client(&name) else {
                continue;
            };
            match client.list(kind).await {
                Ok(items) => all.extend(items.into_iter().filter_map(|mut item| {
                    item.as_object_mut()?
                        .insert("server".into(), name.as_str().into());
                    Some(item)
                })),
                Err(_) if optional => {}
                Err(e) => return Err(format!("MCP server {name}: {method}: {e}")),
            }
        }
        Ok(all)
    }

    /// Lists resources and resource templates of every server offering them (or of `server`),
    /// each entry tagged with `"server"`: `{"resources": [...], "resourceTemplates": [...]}`.
    pub async fn resources(&self, server: Option<&str>) -> Result<Value, String> {
        let resources = self.collect(server, ListKind::Resources, false).await?;
        // Templates are optional even for servers with resources.
        let templates = self
            .collect(server, ListKind::ResourceTemplates, true)
            .await?;
        Ok(json!({"resources": resources, "resourceTemplates": templates}))
    }

    /// Lists the prompts of every server offering them (or of `server`), tagged with `"server"`.
    pub async fn prompts(&self, server: Option<&str>) -> Result<Vec<Value>, String> {
        self.collect(server, ListKind::Prompts, false).await
    }

    /// Reads one resource of `server`; the error names the server and the URI.
    pub async fn read_resource(&self, server: &str, uri: &str) -> Result<ToolOutput, String> {
        let result = self
            .request(server, "resources/read", json!({ "uri": uri }))
            .await;
        result
            .and_then(|r| read_resource_result(&r))
            .map_err(|why| format!("reading {uri} from MCP server {server} failed: {why}"))
    }

    /// Gets prompt `name` of `server` with `arguments` (an object of strings): the raw result.
    pub async fn get_prompt(
        &self,
        server: &str,
        name: &str,
        arguments: Value,
    ) -> Result<Value, String> {
        let params = json!({"name": name, "arguments": arguments});
        let result = self.request(server, "prompts/get", params).await;
        result.map_err(|e| format!("MCP server {server}: prompt {name}: {e}"))
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
        if !self
            .client(server)
            .is_some_and(|c| c.offers("completion/complete"))
        {
            return Ok(Vec::new());
        }
        let params = json!({
            "ref": {"type": "ref/prompt", "name": prompt},
            "argument": {"name": argument, "value": value},
            "context": {"arguments": context},
        });
        let result = self.request(server, "completion/complete", params).await;
        let result = result.map_err(|e| format!("MCP server {server}: completion: {e}"))?;
        let values = result
            .pointer("/completion/values")
            .and_then(Value::as_array);
        let values =
            values.ok_or_else(|| format!("MCP server {server}: completion without values"))?;
        Ok(values
            .iter()
            .filter_map(|v| Some(v.as_str()?.to_owned()))
            .collect())
    }

    /// Asks every server that offers logging to send messages at `level` and above; returns
    /// the servers that refused, with why.
    pub async fn set_log_level(&self, level: &str) -> Vec<String> {
        let mut failures = Vec::new();
        for name in self.offering(None, "logging/setLevel") {
            let result = self
                .request(&name, "logging/setLevel", json!({ "level": level }))
                .await;
            if let Err(e) = result {
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
        let servers = self.servers();
        let mut found: Vec<(String, String)> = Vec::new();
        for word in prompt.split_whitespace() {
            let Some((server, uri)) = word.strip_prefix('@').and_then(|w| w.split_once(':')) else {
                continue;
            };
            // Closing punctuation belongs to the sentence, not the URI.
            let uri = uri.trim_end_matches(['.', ',', ';', ')', '!', '?', '"', '\'']);
            let mention = (server.to_owned(), uri.to_owned());
            if servers.iter().any(|(s, _)| s == server)
                && !uri.is_empty()
                && !found.contains(&mention)
            {
                found.push(mention);
            }
        }
        found
    }
}
