//! The runtime's MCP servers: adding, listing and removing them, and applying what they report
//! (changed tools, log messages, resource updates, a closed connection).

use super::backends::RunObserver;
use super::client::McpClient;
use super::runtime::Runtime;
use super::server_status::{Server, ServerStatus};
use super::traits::Clock;
use crate::json::to_text;
use crate::mcp::SessionEvent;
use serde_json::Value;
use std::collections::VecDeque;

/// How many log lines and notices are kept per server.
const SERVER_LOG_LINES: usize = 50;

impl<C: Clock> Runtime<C> {
    /// Adds a connected server: lists its tools and registers them as `mcp__<name>__<tool>`.
    /// Returns how many tools were registered; on failure the server is recorded as failed.
    pub async fn add_server(&self, name: &str, client: McpClient) -> Result<usize, String> {
        let tools = Self::list_server_tools(&client).await;
        self.register_server(name, client, tools)
    }

    /// The first half of [`Runtime::add_server`]: lists a connected server's tools. Hosts that
    /// connect servers concurrently list them concurrently too, then register the servers in
    /// their configured order, so which of two clashing servers keeps the plain tool name is
    /// the same on every run.
    pub async fn list_server_tools(client: &McpClient) -> Result<Vec<Value>, String> {
        client
            .list_tools()
            .await
            .map_err(|error| format!("tools/list failed: {error}"))
    }

    /// The second half of [`Runtime::add_server`]: registers a server with what
    /// [`Runtime::list_server_tools`] returned (a failure closes it and records it as failed).
    pub fn register_server(
        &self,
        name: &str,
        client: McpClient,
        tools: Result<Vec<Value>, String>,
    ) -> Result<usize, String> {
        let events = client.take_events();
        let tools = match tools {
            Ok(tools) => tools,
            Err(reason) => {
                client.close(&reason);
                self.add_failed_server(name, &reason);
                return Err(reason);
            }
        };
        let count = self.load_tools(name, &tools);
        // A new connection lists its skills afresh.
        #[cfg(feature = "server-skills")]
        self.forget_server_skills(name);
        let server = Server {
            client: Some(client),
            events,
            status: ServerStatus::Connected { tools: count },
            log: VecDeque::new(),
        };
        if let Some(old) = self.servers.borrow_mut().insert(name.to_owned(), server) {
            if let Some(client) = old.client {
                client.close("replaced by a new connection");
            }
        }
        self.offer_resource_tools();
        Ok(count)
    }

    fn load_tools(&self, name: &str, tools: &[Value]) -> usize {
        let report = self
            .agent
            .borrow_mut()
            .registry_mut()
            .load_server(name, tools);
        report.loaded.len()
    }

    /// Records a server that could not connect: it has no tools, and `/mcp` shows the reason.
    pub fn add_failed_server(&self, name: &str, reason: &str) {
        self.agent
            .borrow_mut()
            .registry_mut()
            .record_server_failure(name, reason);
        let server = Server {
            client: None,
            events: None,
            status: ServerStatus::Failed {
                reason: reason.to_owned(),
            },
            log: VecDeque::new(),
        };
        self.servers.borrow_mut().insert(name.to_owned(), server);
    }

    /// Records a server that is disabled in the configuration.
    pub fn add_disabled_server(&self, name: &str) {
        let server = Server {
            client: None,
            events: None,
            status: ServerStatus::Disabled,
            log: VecDeque::new(),
        };
        self.servers.borrow_mut().insert(name.to_owned(), server);
    }

    /// Disconnects a server and removes exactly its tools.
    pub fn remove_server(&self, name: &str) -> bool {
        let removed = self.servers.borrow_mut().remove(name);
        self.agent.borrow_mut().registry_mut().remove_server(name);
        #[cfg(feature = "server-skills")]
        self.forget_server_skills(name);
        if let Some(client) = removed.as_ref().and_then(|s| s.client.as_ref()) {
            client.close("removed by the host");
        }
        removed.is_some()
    }

    /// Every server with its status, in name order.
    pub fn servers(&self) -> Vec<(String, ServerStatus)> {
        self.servers
            .borrow()
            .iter()
            .map(|(name, s)| (name.clone(), s.status.clone()))
            .collect()
    }

    /// The names of the configured servers, in order.
    pub(super) fn server_names(&self) -> Vec<String> {
        self.servers
            .borrow()
            .iter()
            .map(|(name, _)| name.clone())
            .collect()
    }

    /// The last log lines and notices of a server (its `notifications/message`, and why it
    /// died); the native host adds stderr separately.
    pub fn server_log(&self, name: &str) -> Vec<String> {
        self.servers
            .borrow()
            .get(name)
            .map(|s| s.log.iter().cloned().collect())
            .unwrap_or_default()
    }

    /// The client of a connected server.
    pub fn client(&self, name: &str) -> Option<McpClient> {
        self.servers
            .borrow()
            .get(name)
            .and_then(|s| s.client.clone())
    }

    /// Closes every server.
    pub fn close(&self) {
        for server in self.servers.borrow_mut().values_mut() {
            if let Some(client) = server.client.take() {
                client.close("the runtime is shutting down");
            }
        }
    }

    /// Applies what servers reported since the last look: refreshes the tools of servers that
    /// sent `tools/list_changed`, and marks servers that closed as failed.
    pub async fn refresh_servers(&self, observer: &dyn RunObserver) {
        let mut to_refresh = Vec::new();
        let mut died: Vec<(String, String)> = Vec::new();
        {
            let mut servers = self.servers.borrow_mut();
            for (name, server) in servers.iter_mut() {
                let Some(events) = server.events.as_mut() else {
                    continue;
                };
                while let Ok(event) = events.try_recv() {
                    match event {
                        SessionEvent::ToolsListChanged if !to_refresh.contains(name) => {
                            to_refresh.push(name.clone());
                        }
                        SessionEvent::Log {
                            level,
                            logger,
                            data,
                        } => {
                            push_log(&mut server.log, format!("[{level}] {}", log_text(&data)));
                            let fields = vec![
                                ("level", level.into()),
                                ("logger", logger.into()),
                                ("data", data),
                            ];
                            observer.on_server_event(&server_event("server_log", name, fields));
                        }
                        SessionEvent::ResourceUpdated { uri } => observer.on_server_event(
                            &server_event("resource_updated", name, vec![("uri", uri.into())]),
                        ),
                        SessionEvent::ListChanged(kind) => observer.on_notice(&format!(
                            "MCP server {name} changed its {}",
                            kind.method_and_key().1
                        )),
                        SessionEvent::ProtocolError { message } => {
                            push_log(&mut server.log, format!("protocol error: {message}"));
                        }
                        SessionEvent::EventsDropped { count } => {
                            let line = format!(
                                "dropped {count} notifications: the server sent them faster than \
                                 they were read (queue of {})",
                                super::EVENT_QUEUE_CAPACITY
                            );
                            observer.on_notice(&format!("MCP server {name}: {line}"));
                            push_log(&mut server.log, line);
                        }
                        SessionEvent::Closed { reason } => {
                            push_log(&mut server.log, format!("closed: {reason}"));
                            server.status = ServerStatus::Failed {
                                reason: reason.clone(),
                            };
                            server.client = None;
                            died.push((name.clone(), reason.clone()));
                            observer
                                .on_notice(&format!("MCP server {name} disconnected: {reason}"));
                        }
                        _ => {}
                    }
                }
            }
        }
        // A dead server's tools leave the registry, so the model is no longer offered them.
        for (name, reason) in died {
            let mut agent = self.agent.borrow_mut();
            agent.registry_mut().remove_server(&name);
            agent.registry_mut().record_server_failure(&name, reason);
            to_refresh.retain(|n| *n != name);
        }
        for name in to_refresh {
            let Some(client) = self.client(&name) else {
                continue;
            };
            match client.list_tools().await {
                Ok(tools) => {
                    let count = self.load_tools(&name, &tools);
                    if let Some(server) = self.servers.borrow_mut().get_mut(&name) {
                        server.status = ServerStatus::Connected { tools: count };
                    }
                    observer
                        .on_notice(&format!("MCP server {name} changed its tools: now {count}"));
                    let tools = vec![("tools", count.into())];
                    observer.on_server_event(&server_event("tools_changed", &name, tools));
                }
                Err(error) => observer.on_notice(&format!(
                    "MCP server {name}: refreshing tools failed: {error}"
                )),
            }
        }
    }
}

/// `{"type": kind, "server": server, ...fields}` for [`RunObserver::on_server_event`]
/// (built by hand: `json!` at each site costs the wasm build more).
fn server_event(kind: &str, server: &str, fields: Vec<(&str, Value)>) -> Value {
    let mut map = serde_json::Map::new();
    map.insert("type".into(), kind.into());
    map.insert("server".into(), server.into());
    for (key, value) in fields {
        map.insert(key.into(), value);
    }
    Value::Object(map)
}

fn push_log(log: &mut VecDeque<String>, line: String) {
    if log.len() == SERVER_LOG_LINES {
        log.pop_front();
    }
    log.push_back(line);
}

fn log_text(data: &Value) -> String {
    match data {
        Value::String(s) => s.clone(),
        other => to_text(other),
    }
}
