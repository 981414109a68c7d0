//! What the runtime offers from servers beyond tools: resources (listed, read, attached with
//! `@server:uri`), prompts, argument completion and log levels.

use super::client::McpClient;
use super::runtime::Runtime;
use super::traits::Clock;
use crate::content::{ContentBlock, ToolOutput};
use crate::mcp::ListKind;
use crate::registry::{truncate_output, DEFAULT_MAX_OUTPUT_CHARS};
use serde_json::{json, Value};

impl<C: Clock> Runtime<C> {
    /// Connected servers (all, or just `only`) that offer `method`; naming a server that is
    /// not connected is an error.
    fn offering(
        &self,
        only: Option<&str>,
        method: &str,
    ) -> Result<Vec<(String, McpClient)>, String> {
        if let Some(name) = only {
            let client = self
                .client(name)
                .ok_or_else(|| format!("MCP server {name} is not connected"))?;
            return Ok(vec![(name.to_owned(), client)]);
        }
        let servers = self.servers().into_iter().map(|(name, _)| name);
        Ok(servers
            .filter_map(|name| self.client(&name).map(|c| (name, c)))
            .filter(|(_, client)| client.offers(method))
            .collect())
    }

    /// Lists resources and resource templates of every server offering them (or of `server`),
    /// each entry tagged with `"server"`: `{"resources": [...], "resourceTemplates": [...]}`.
    pub async fn resources(&self, server: Option<&str>) -> Result<Value, String> {
        let mut resources = Vec::new();
        let mut templates = Vec::new();
        for (name, client) in self.offering(server, "resources/list")? {
            let listed = client.list(ListKind::Resources).await;
            resources.extend(tagged(&name, "resources/list", listed)?);
            // Templates are optional even for servers with resources.
            if let Ok(listed) = client.list(ListKind::ResourceTemplates).await {
                templates.extend(tagged(&name, "", Ok(listed))?);
            }
        }
        Ok(json!({"resources": resources, "resourceTemplates": templates}))
    }

    /// Reads one resource of `server`; the error names the server and the URI.
    pub async fn read_resource(&self, server: &str, uri: &str) -> Result<ToolOutput, String> {
        let failed = |why: String| format!("reading {uri} from MCP server {server} failed: {why}");
        let client = self
            .client(server)
            .ok_or_else(|| failed("the server is not connected".into()))?;
        client
            .read_resource(uri)
            .await
            .map_err(|e| failed(e.to_string()))
    }

    /// Lists the prompts of every server offering them (or of `server`), tagged with `"server"`.
    pub async fn prompts(&self, server: Option<&str>) -> Result<Vec<Value>, String> {
        let mut prompts = Vec::new();
        for (name, client) in self.offering(server, "prompts/list")? {
            let listed = client.list(ListKind::Prompts).await;
            prompts.extend(tagged(&name, "prompts/list", listed)?);
        }
        Ok(prompts)
    }

    /// Gets prompt `name` of `server` with `arguments` (an object of strings): the raw result.
    pub async fn get_prompt(
        &self,
        server: &str,
        name: &str,
        arguments: Value,
    ) -> Result<Value, String> {
        let client = self.connected(server)?;
        client
            .get_prompt(name, arguments)
            .await
            .map_err(|e| format!("MCP server {server}: prompt {name}: {e}"))
    }

    /// Completion values for argument `argument` of prompt `prompt` on `server`; empty when
    /// the server does not offer completion.
    pub async fn complete(
        &self,
        server: &str,
        prompt: &str,
        argument: &str,
        value: &str,
        context: Value,
    ) -> Result<Vec<String>, String> {
        let client = self.connected(server)?;
        if !client.offers("completion/complete") {
            return Ok(Vec::new());
        }
        client
            .complete_prompt_argument(prompt, argument, value, context)
            .await
            .map_err(|e| format!("MCP server {server}: completion: {e}"))
    }

    /// Asks every server that offers logging to send messages at `level` and above; returns
    /// the servers that refused, with why.
    pub async fn set_log_level(&self, level: &str) -> Vec<String> {
        let mut failures = Vec::new();
        for (name, client) in self.offering(None, "logging/setLevel").unwrap_or_default() {
            let params = json!({ "level": level });
            if let Err(e) = client.feature_request("logging/setLevel", params).await {
                failures.push(format!("MCP server {name}: logging/setLevel: {e}"));
            }
        }
        failures
    }

    /// Attaches every `@server:uri` of `prompt` (a connected server's name at the start of a
    /// word) to it: the text stays, each resource's content follows, cut to the usual tool
    /// output limit. A resource that cannot be read fails the whole prompt, naming it.
    pub async fn attach_mentions(&self, prompt: &str) -> Result<String, String> {
        let mut attached = String::new();
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
            attached.push_str(&format!(
                "\n\n<resource server=\"{server}\" uri=\"{uri}\">\n{text}\n</resource>"
            ));
        }
        Ok(format!("{prompt}{attached}"))
    }

    /// The `@server:uri` mentions of `prompt` whose server is configured, in order, once each.
    pub fn mentions(&self, prompt: &str) -> Vec<(String, String)> {
        let servers: Vec<String> = self.servers().into_iter().map(|(n, _)| n).collect();
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

    fn connected(&self, server: &str) -> Result<McpClient, String> {
        self.client(server)
            .ok_or_else(|| format!("MCP server {server} is not connected"))
    }
}

/// Tags each listed entry with its server; a failed list names the server and method.
fn tagged(
    server: &str,
    method: &str,
    listed: Result<Vec<Value>, crate::mcp::RequestError>,
) -> Result<Vec<Value>, String> {
    let items = listed.map_err(|e| format!("MCP server {server}: {method}: {e}"))?;
    Ok(items
        .into_iter()
        .filter_map(|mut item| {
            item.as_object_mut()?.insert("server".into(), server.into());
            Some(item)
        })
        .collect())
}
