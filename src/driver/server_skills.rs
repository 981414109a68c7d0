//! Skills MCP servers serve (the Skills extension, SEP-2640), in the runtime: before a run, the
//! `skills/list` of every connected server that negotiated the extension (and was not listed
//! yet) puts its skills in the agent's skill set as `<server>:<skill>`; nothing else is read.
//! When the model activates one, its `SKILL.md` is read from that server with
//! `resources/read`, its size and SHA-256 digest checked against the entry, its frontmatter
//! compared with the entry's, and only then does its body enter the context, tagged with the
//! server. `read_skill_file` of such a skill reads a file the entry lists from the same server,
//! checked the same way. A mismatch is an error result naming the server and the file, and
//! nothing of the file reaches the model. Its `allowed-tools` grant nothing.

use super::runtime::Runtime;
use super::traits::Clock;
use crate::agent::ToolInvocation;
use crate::content::ToolOutput;
use crate::ext::server_skill::{admit_server_skills, HeldSkill};
use crate::ext::server_skill::{remove_server_skills, server_skill_record};
use crate::ext::tools::{ACTIVATE_SKILL, READ_SKILL_FILE};
use crate::json::quoted;
use crate::mcp::ListKind;
use futures::future::LocalBoxFuture;
use serde_json::Value;

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
        let (held, notices) =
            self.with_agent(|agent| admit_server_skills(agent.skills_mut(), server, items));
        self.server_skills.borrow_mut().held.extend(held);
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
            // The agent let only listed paths through; checked again against the held entry,
            // which is what is read: an unlisted file is never fetched.
            let path = match call.name == ACTIVATE_SKILL {
                true => None,
                false => Some(
                    call.arguments
                        .get("path")
                        .and_then(Value::as_str)
                        .unwrap_or_default(),
                ),
            };
            let outcome = match held.file(path) {
                Ok(file) => {
                    let result = self.read_from(&held.server, &file.uri).await;
                    held.accept(file, result)
                }
                Err(why) => Err(why),
            };
            outcome.map_or_else(ToolOutput::error, ToolOutput::text)
        }))
    }

    /// `resources/read` of `uri` from `server`: the raw result, or why there is none.
    async fn read_from(&self, server: &str, uri: &str) -> Result<Value, String> {
        let client = self.client(server).ok_or(super::NOT_CONNECTED)?;
        let params =
            crate::json::parse_str(&format!(r#"{{"uri":{}}}"#, quoted(uri))).unwrap_or_default();
        client
            .feature_request("resources/read", params)
            .await
            .map_err(|e| e.to_string())
    }
}
