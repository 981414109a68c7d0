//! Skills MCP servers serve (the Skills extension, SEP-2640), in the runtime: before a run, the
//! `skills/list` of every connected server that negotiated the extension (and was not listed
//! yet) puts its skills in the agent's skill set as `<server>:<skill>`; nothing else is read.
//! When the model activates one, its `SKILL.md` is read from that server with
//! `resources/read`, its size and SHA-256 digest checked against the entry, its frontmatter
//! compared with the entry's, and only then does its body enter the context, tagged with the
//! server. `read_skill_file` of such a skill reads a file the entry lists from the same server,
//! checked the same way. A mismatch is an error result naming the server and the file, and
//! nothing of the file reaches the model. Its `allowed-tools` grant nothing.

use super::client::McpClient;
use super::runtime::Runtime;
use super::traits::Clock;
use crate::agent::ToolInvocation;
use crate::content::ToolOutput;
use crate::ext::server_skill::{
    activation_text, add_server_skills, check_fetched, qualified_names,
};
use crate::ext::server_skill::{remove_server_skills, server_skill_record};
use crate::ext::tools::{ACTIVATE_SKILL, READ_SKILL_FILE};
use crate::json::quoted;
use crate::mcp::skills::{parse_skill_list, read_bytes, ServerSkill, SkillFile};
use crate::mcp::ListKind;
use futures::future::LocalBoxFuture;
use serde_json::Value;

/// One server skill the agent's set offers.
#[derive(Clone, Debug)]
pub(super) struct HeldSkill {
    server: String,
    qualified: String,
    skill: ServerSkill,
}

/// The server skills of a runtime.
#[derive(Debug, Default)]
pub(super) struct ServerSkills {
    held: Vec<HeldSkill>,
    /// Servers whose skills were listed (once per connection).
    listed: Vec<String>,
}

impl<C: Clock> Runtime<C> {
    /// Lists the skills of every connected server that negotiated the Skills extension and
    /// was not listed yet, and offers them from the next run on; returns the notices (entries
    /// left out, failed listings), each naming the server.
    pub async fn load_server_skills(&self) -> Vec<String> {
        let mut notices = Vec::new();
        for name in self.server_names() {
            let Some(client) = self.client(&name) else {
                continue;
            };
            if !client.skills_negotiated() || self.server_skills.borrow().listed.contains(&name) {
                continue;
            }
            self.server_skills.borrow_mut().listed.push(name.clone());
            match client.list(ListKind::Skills).await {
                Ok(items) => notices.extend(self.offer_server_skills(&name, &items)),
                Err(error) => notices.push(format!("MCP server {name}: skills/list: {error}")),
            }
        }
        self.keep_server_skills_in_set();
        notices
    }

    /// Forgets `server`'s skills (the server was removed, or connected anew): they leave the
    /// skill set, and a new connection's are listed before the next run.
    pub(super) fn forget_server_skills(&self, server: &str) {
        let mut state = self.server_skills.borrow_mut();
        state.listed.retain(|s| s != server);
        state.held.retain(|h| h.server != server);
        self.with_agent(|agent| remove_server_skills(agent.skills_mut(), server));
    }

    /// Puts back the held skills a host's reload of the skill set dropped (nothing is read:
    /// the listing is the one already held).
    fn keep_server_skills_in_set(&self) {
        let state = self.server_skills.borrow();
        self.with_agent(|agent| {
            for held in &state.held {
                if agent.skills().get(&held.qualified).is_none() {
                    let record = server_skill_record(&held.server, &held.qualified, &held.skill);
                    agent.skills_mut().insert(record);
                }
            }
        });
    }

    /// Puts one server's listing in the skill set; the notices of what was left out.
    fn offer_server_skills(&self, server: &str, items: &[Value]) -> Vec<String> {
        let (skills, warnings) = parse_skill_list(items);
        let mut notices: Vec<String> = warnings
            .into_iter()
            .map(|why| format!("MCP server {server}: skill left out: {why}"))
            .collect();
        let (added, refused) =
            self.with_agent(|agent| add_server_skills(agent.skills_mut(), server, &skills));
        notices.extend(refused);
        let names = qualified_names(server, &skills);
        let mut state = self.server_skills.borrow_mut();
        for (skill, qualified) in skills.into_iter().zip(names) {
            if added.contains(&qualified) {
                let server = server.to_owned();
                state.held.push(HeldSkill {
                    server,
                    qualified,
                    skill,
                });
            }
        }
        notices
    }

    /// The server skills offered: `(server, qualified name, SKILL.md URI, description)`.
    pub fn server_skills(&self) -> Vec<(String, String, String, String)> {
        let state = self.server_skills.borrow();
        state
            .held
            .iter()
            .map(|h| {
                let s = &h.skill;
                (
                    h.server.clone(),
                    h.qualified.clone(),
                    s.uri.clone(),
                    s.description.clone(),
                )
            })
            .collect()
    }

    /// The held skill the model named, for `activate_skill` or `read_skill_file` of a server
    /// skill; `None` for every other call.
    fn held_for(&self, call: &ToolInvocation) -> Option<HeldSkill> {
        let key = match call.name.as_str() {
            ACTIVATE_SKILL => "name",
            READ_SKILL_FILE => "skill",
            _ => return None,
        };
        let name = call.arguments.get(key).and_then(Value::as_str)?;
        let state = self.server_skills.borrow();
        state.held.iter().find(|h| h.qualified == name).cloned()
    }

    /// Runs `activate_skill` or `read_skill_file` of a server skill; `None` when `call` is
    /// neither (the host's local tools answer it).
    pub(super) fn server_skill_call<'a>(
        &'a self,
        call: &'a ToolInvocation,
    ) -> Option<LocalBoxFuture<'a, ToolOutput>> {
        let held = self.held_for(call)?;
        Some(Box::pin(async move {
            let outcome = if call.name == ACTIVATE_SKILL {
                self.activate_server_skill(&held).await
            } else {
                let path = call.arguments.get("path").and_then(Value::as_str);
                self.read_server_skill_file(&held, path.unwrap_or_default())
                    .await
            };
            outcome.unwrap_or_else(ToolOutput::error)
        }))
    }

    async fn activate_server_skill(&self, held: &HeldSkill) -> Result<ToolOutput, String> {
        let bytes = self.fetch_verified(held, held.skill.skill_md()).await?;
        let text = String::from_utf8(bytes).map_err(|_| {
            failed(
                held,
                &held.skill.skill_md().uri,
                "SKILL.md is not UTF-8 text",
            )
        })?;
        let body = check_fetched(&held.skill, &text).map_err(|why| refused(held, &why))?;
        let text = activation_text(&held.server, &held.qualified, &held.skill, &body);
        Ok(ToolOutput::text(text))
    }

    async fn read_server_skill_file(
        &self,
        held: &HeldSkill,
        path: &str,
    ) -> Result<ToolOutput, String> {
        // The agent let only listed paths through; checked again against the held entry,
        // which is what is read: an unlisted file is never fetched.
        let file = held
            .skill
            .file_at(path)
            .ok_or_else(|| format!("{path:?} is not a file of skill {}", held.qualified))?;
        let bytes = self.fetch_verified(held, file).await?;
        match String::from_utf8(bytes) {
            Ok(text) => Ok(ToolOutput::text(text)),
            Err(_) => Err(failed(held, &file.uri, "the file is not UTF-8 text")),
        }
    }

    /// Reads `file` of `held` from its own server and verifies it against the entry: the
    /// bytes, or the error naming the server and the file.
    async fn fetch_verified(&self, held: &HeldSkill, file: &SkillFile) -> Result<Vec<u8>, String> {
        let client: McpClient = self
            .client(&held.server)
            .ok_or_else(|| failed(held, &file.uri, super::NOT_CONNECTED))?;
        let params = crate::json::parse_str(&format!(r#"{{"uri":{}}}"#, quoted(&file.uri)))
            .unwrap_or_default();
        let result = client
            .feature_request("resources/read", params)
            .await
            .map_err(|e| failed(held, &file.uri, &e.to_string()))?;
        let bytes = read_bytes(&result, &file.uri).map_err(|why| failed(held, &file.uri, &why))?;
        held.skill
            .verify(file, &bytes)
            .map_err(|why| refused(held, &why))?;
        Ok(bytes)
    }
}

/// Reading a file of a server skill failed.
fn failed(held: &HeldSkill, uri: &str, why: &str) -> String {
    format!(
        "skill {} of MCP server {}: reading {uri} failed: {why}",
        held.qualified, held.server
    )
}

/// A file of a server skill did not match its entry: nothing of it was used.
fn refused(held: &HeldSkill, why: &str) -> String {
    format!(
        "skill {} of MCP server {} refused: {why}; nothing of it entered the context",
        held.qualified, held.server
    )
}
