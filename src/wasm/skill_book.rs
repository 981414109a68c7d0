//! An agent's skills and prompt commands, held in the on-demand `ext` module (feature
//! `wasm-ext`): [`SkillBook`], one per agent. The runtime module carries no skill set; the JS
//! layer keeps a book beside each agent that has skills and answers the runtime's
//! [`crate::ext::SkillHost`] questions (`WasmAgent.setSkillHost`) from it, with
//! [`LocalSkills`], the code the native agent runs, so definitions and answers are the same
//! bytes in both homes.

use crate::ext::server_skill::HeldSkill;
use crate::ext::server_skill::{admit_server_skills, remove_server_skills};
use crate::ext::{
    check_json, skill_from_json, skill_json, Activation, Expansion, LocalSkills, Scope, Skill,
    SkillHost,
};
use crate::json::to_text;
use crate::registry::names::plugin_part;
use serde_json::Value;
use wasm_bindgen::prelude::*;

/// The scope of items a plugin (`Some(name)`) or the host (`None`) adds.
fn scope_of(plugin: Option<&str>, trusted: bool) -> Scope {
    match plugin {
        Some(name) => Scope::Plugin {
            plugin: plugin_part(name),
            trusted,
        },
        None => Scope::Host,
    }
}

/// A listing entry: the record without its body (`bodyChars` tells its size).
fn listed(skill: &Skill) -> Value {
    let mut value = skill_json(skill);
    if let Some(map) = value.as_object_mut() {
        map.remove("body");
    }
    value
}

/// The skills and prompt commands of one agent.
#[wasm_bindgen]
#[derive(Default)]
pub struct SkillBook {
    skills: LocalSkills,
    /// Skills MCP servers serve (the Skills extension), with the entries their reads are
    /// checked against.
    served: Vec<HeldSkill>,
}

impl SkillBook {
    /// Adds parsed records for the host or for plugin `plugin` (all or nothing); returns the
    /// collisions' messages.
    fn add(&mut self, args: &Value) -> Result<Value, String> {
        let Some(Value::Array(records)) = args.get("records") else {
            return Err("\"records\" must be an array".into());
        };
        let plugin = args.get("plugin").and_then(Value::as_str);
        let trusted = args.get("trusted") == Some(&Value::Bool(true));
        let scope = scope_of(plugin, trusted);
        let mut skills = Vec::new();
        for (i, record) in records.iter().enumerate() {
            skills.push(
                skill_from_json(record, scope.clone()).map_err(|e| format!("skills[{i}]: {e}"))?,
            );
        }
        let mut collisions = Vec::new();
        for skill in skills {
            for c in self.skills.set.insert(skill) {
                collisions.push(Value::from(c.message));
            }
        }
        Ok(Value::Array(collisions))
    }

    /// Puts server `server`'s `skills/list` entries (`items`) in the set as
    /// `<server>:<skill>`, replacing what it served before → the notices, each naming the
    /// server (entries left out, names taken).
    fn add_server(&mut self, server: &str, items: &[Value]) -> Value {
        self.remove_server(server);
        let (held, notices) = admit_server_skills(&mut self.skills.set, server, items);
        self.served.extend(held);
        Value::from(notices)
    }

    /// Removes every skill of `server` → how many.
    fn remove_server(&mut self, server: &str) -> usize {
        self.served.retain(|h| h.server != server);
        remove_server_skills(&mut self.skills.set, server)
    }

    /// What a call of a served skill reads: `{server, uri}`, `{error}` for an unlisted path,
    /// or null when `name` is no served skill (`path` absent: its activation).
    fn served(&self, name: &str, path: Option<&str>) -> Value {
        let Some(held) = self.served.iter().find(|h| h.qualified == name) else {
            return Value::Null;
        };
        match held.file(path) {
            Ok(file) => serde_json::json!({ "server": held.server, "uri": file.uri }),
            Err(why) => serde_json::json!({ "error": why }),
        }
    }

    /// Judges a read of a served skill's file (`result`: the `resources/read` result, or
    /// `{error}` when the read failed) → `{text}` for the model, or `{error}`.
    fn accept(&self, name: &str, path: Option<&str>, result: &Value) -> Value {
        let Some(held) = self.served.iter().find(|h| h.qualified == name) else {
            return serde_json::json!({ "error": format!("{name} is no skill of an MCP server") });
        };
        let outcome = held.file(path).and_then(|file| {
            let read = match result.get("error").and_then(Value::as_str) {
                Some(why) => Err(why.to_owned()),
                None => Ok(result.clone()),
            };
            held.accept(file, read)
        });
        match outcome {
            Ok(text) => serde_json::json!({ "text": text }),
            Err(why) => serde_json::json!({ "error": why }),
        }
    }
}

#[wasm_bindgen]
impl SkillBook {
    /// An empty book.
    #[wasm_bindgen(constructor)]
    pub fn new() -> SkillBook {
        SkillBook::default()
    }

    /// One entry for every operation (one export costs the module less than nine). `op` and
    /// `args_json`:
    /// - `add` `{records, plugin?, trusted?}`: parsed records (see [`skill_json`]) for the host
    ///   or a plugin, all or nothing (a bad record throws naming its index and field) → the
    ///   collisions' messages;
    /// - `remove` `{name}`: the skill or command `name` reaches → whether there was one;
    /// - `removePlugin` `{plugin}`: exactly its skills and commands → how many;
    /// - `list` `{}`: every item sorted by qualified name, records without bodies;
    /// - `resolve` `{input}`: the qualified name `/name args` reaches, or null;
    /// - the runtime's questions ([`SkillHost`]): `tools` `{chars}`, `activate` `{name,
    ///   arguments}`, `file` `{skill, path}`, `expand` `{input}`, in the JSON forms of
    ///   [`crate::ext::SkillTools`], [`Activation`], [`crate::ext::check_from_json`] and
    ///   [`Expansion`];
    /// - skills MCP servers serve (the Skills extension; the JS layer lists and reads, the
    ///   book checks): `addServer` `{server, items}` (a `skills/list`'s entries, replacing the
    ///   server's earlier ones) → the notices; `removeServer` `{server}` → how many;
    ///   `served` `{name, path?}` → `{server, uri}` to read (`SKILL.md` without `path`), `{error}`
    ///   for an unlisted path, or null for a skill no server serves; `accept` `{name, path?,
    ///   result}` (the `resources/read` result, or `{error}`) → `{text}` or `{error}`, digest and
    ///   size checked, naming the server and the file.
    pub fn op(&mut self, op: &str, args_json: &str) -> Result<String, JsError> {
        let args = crate::json::parse_str(args_json).unwrap_or(Value::Null);
        if op == "add" {
            let collisions = self.add(&args).map_err(|e| JsError::new(&e))?;
            return Ok(to_text(&collisions));
        }
        let text = |key: &str| args.get(key).and_then(Value::as_str).unwrap_or_default();
        let path = args.get("path").and_then(Value::as_str);
        match op {
            "addServer" => {
                let items = args.get("items").and_then(Value::as_array);
                let notices = self.add_server(text("server"), items.map_or(&[][..], Vec::as_slice));
                return Ok(to_text(&notices));
            }
            "removeServer" => return Ok(to_text(&Value::from(self.remove_server(text("server"))))),
            "served" => return Ok(to_text(&self.served(text("name"), path))),
            "accept" => {
                let result = args.get("result").unwrap_or(&Value::Null);
                return Ok(to_text(&self.accept(text("name"), path, result)));
            }
            _ => {}
        }
        let skills = &mut self.skills;
        let out = match op {
            "remove" => Value::from(skills.set.remove(text("name")).is_some()),
            "removePlugin" => Value::from(skills.set.remove_plugin(&plugin_part(text("plugin")))),
            "list" => Value::Array(skills.set.items().into_iter().map(listed).collect()),
            "resolve" => skills
                .set
                .resolve(text("input"))
                .map_or(Value::Null, |inv| inv.skill.qualified.as_str().into()),
            "tools" => {
                let chars = args.get("chars").and_then(Value::as_u64).unwrap_or(0);
                skills
                    .tools(usize::try_from(chars).unwrap_or(usize::MAX))
                    .to_json()
            }
            "activate" => {
                Activation::result_json(&skills.activate(text("name"), text("arguments")))
            }
            "file" => check_json(&skills.check_file(text("skill"), text("path"))),
            "expand" => Expansion::result_json(&skills.expand(text("input"))),
            other => return Err(JsError::new(&format!("unknown operation {other}"))),
        };
        Ok(to_text(&out))
    }
}
