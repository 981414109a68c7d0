//! The resolver for a host whose reads are asynchronous (the npm package): it answers from the
//! files the host already read, and names the ones it still needs; the host reads those and
//! asks again, until nothing is missing. The same resolution as [`super::resolve`], in JSON.

use super::{resolve, Access, InstructionReader, PathRule, PathRules, ReadError, Sources};
use serde_json::{json, Map, Value};
use std::cell::RefCell;
use std::collections::BTreeMap;

/// How many times a host may be asked for more before the answer is given as it stands:
/// the walk, the rules listing and four levels of imports fit in far fewer.
pub const MAX_ROUNDS: usize = 16;

/// Files and listings the host already has, and what the resolver asked for beyond them.
struct Prefetched<'a> {
    files: &'a Map<String, Value>,
    listings: &'a Map<String, Value>,
    wanted_files: RefCell<BTreeMap<String, Access>>,
    wanted_dirs: RefCell<BTreeMap<String, Access>>,
}

impl InstructionReader for Prefetched<'_> {
    fn read(&self, path: &str, access: Access) -> Result<String, ReadError> {
        match self.files.get(path) {
            Some(Value::String(text)) => Ok(text.clone()),
            Some(Value::Object(o)) => match o.get("error").and_then(Value::as_str) {
                Some(why) => Err(ReadError::Refused(why.to_owned())),
                None => Err(ReadError::Missing),
            },
            Some(_) => Err(ReadError::Missing),
            None => {
                self.wanted_files
                    .borrow_mut()
                    .insert(path.to_owned(), access);
                Err(ReadError::Missing)
            }
        }
    }

    fn list_markdown(&self, dir: &str, access: Access) -> Vec<String> {
        match self.listings.get(dir) {
            Some(Value::Array(items)) => items
                .iter()
                .filter_map(Value::as_str)
                .map(str::to_owned)
                .collect(),
            _ => {
                self.wanted_dirs.borrow_mut().insert(dir.to_owned(), access);
                Vec::new()
            }
        }
    }
}

fn access_str(access: Access) -> &'static str {
    match access {
        Access::Project => "project",
        Access::User => "user",
        Access::Outside => "outside",
    }
}

/// Sources from `{root, cwd, home?, userFiles?, userRules?, trusted?, budgetBytes?}`.
pub fn sources_from_json(value: &Value) -> Result<Sources, String> {
    let text = |key: &str| value.get(key).and_then(Value::as_str);
    let root = text("root").ok_or("instructions: `root` (an absolute path) is required")?;
    if !root.starts_with('/') {
        return Err(format!(
            "instructions: `root` must be absolute, not {root:?}"
        ));
    }
    let cwd = text("cwd").unwrap_or(root);
    let mut sources = Sources::new(root, cwd);
    sources.home = text("home").map(str::to_owned);
    sources.user_rules = text("userRules").map(str::to_owned);
    if let Some(Value::Array(files)) = value.get("userFiles") {
        sources.user_files = files
            .iter()
            .filter_map(Value::as_str)
            .map(str::to_owned)
            .collect();
    }
    sources.trusted = value
        .get("trusted")
        .and_then(Value::as_bool)
        .unwrap_or(false);
    if let Some(n) = value.get("budgetBytes").and_then(Value::as_u64) {
        sources.budget_bytes = usize::try_from(n).unwrap_or(usize::MAX);
    }
    Ok(sources)
}

/// One round: `{sources, files: {path: text | {error} | null}, listings: {dir: [paths]}}` →
/// `{"need": {"files": [{path, access}], "dirs": [{dir, access}]}}` while something is
/// missing, else `{"instructions": {...}}` ([`instructions_json`]); `{"error"}` for a request
/// that is not one.
pub fn resolve_round(request: &Value) -> Value {
    let sources = match request.get("sources").map(sources_from_json) {
        Some(Ok(sources)) => sources,
        Some(Err(e)) => return json!({ "error": e }),
        None => return json!({"error": "instructions: `sources` is required"}),
    };
    let empty = Map::new();
    let map = |key: &str| {
        request
            .get(key)
            .and_then(Value::as_object)
            .unwrap_or(&empty)
    };
    let reader = Prefetched {
        files: map("files"),
        listings: map("listings"),
        wanted_files: RefCell::default(),
        wanted_dirs: RefCell::default(),
    };
    let found = resolve(&sources, &reader);
    let files = reader.wanted_files.into_inner();
    let dirs = reader.wanted_dirs.into_inner();
    if files.is_empty() && dirs.is_empty() {
        return json!({ "instructions": instructions_json(&found) });
    }
    let files: Vec<Value> = files
        .into_iter()
        .map(|(path, a)| json!({"path": path, "access": access_str(a)}))
        .collect();
    let dirs: Vec<Value> = dirs
        .into_iter()
        .map(|(dir, a)| json!({"dir": dir, "access": access_str(a)}))
        .collect();
    json!({"need": {"files": files, "dirs": dirs}})
}

/// [`super::Instructions::to_json`] with the text and the path rules, as
/// `createAgent({ instructions })` takes it back.
pub fn instructions_json(found: &super::Instructions) -> Value {
    let mut value = found.to_json();
    value["text"] = found.text.clone().into();
    value["pathRules"] = path_rules_json(&found.path_rules);
    value
}

/// `{root, base, rules: [{path, shown, globs, text}]}`.
pub fn path_rules_json(rules: &PathRules) -> Value {
    let list: Vec<Value> = rules
        .rules()
        .iter()
        .map(|r| json!({"path": r.path, "shown": r.shown, "globs": r.globs, "text": r.text}))
        .collect();
    json!({"root": rules.root(), "base": rules.base(), "rules": list})
}

/// The path rules of [`path_rules_json`]; `Err` naming what is wrong.
pub fn path_rules_from_json(value: &Value) -> Result<PathRules, String> {
    let text = |v: &Value, key: &str| v.get(key).and_then(Value::as_str).map(str::to_owned);
    let root = text(value, "root").ok_or("instructions.pathRules: `root` is required")?;
    let base = text(value, "base").unwrap_or_else(|| root.clone());
    let mut rules = Vec::new();
    for (i, rule) in value
        .get("rules")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .enumerate()
    {
        let globs: Vec<String> = rule
            .get("globs")
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
            .filter_map(Value::as_str)
            .map(str::to_owned)
            .collect();
        let body = text(rule, "text")
            .ok_or_else(|| format!("instructions.pathRules.rules[{i}]: `text` is required"))?;
        if globs.is_empty() {
            return Err(format!(
                "instructions.pathRules.rules[{i}]: `globs` is empty"
            ));
        }
        let path = text(rule, "path").unwrap_or_default();
        rules.push(PathRule {
            shown: text(rule, "shown").unwrap_or_else(|| path.clone()),
            path,
            globs,
            text: body,
        });
    }
    Ok(PathRules::new(&root, &base, rules))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Answers rounds from an in-memory tree the way the JS loader does from the disk.
    fn drive(tree: &[(&str, &str)], sources: Value) -> (Value, usize) {
        let mut files = Map::new();
        let mut listings = Map::new();
        for round in 1..=MAX_ROUNDS {
            let request = json!({"sources": sources, "files": files, "listings": listings});
            let answer = resolve_round(&request);
            let Some(need) = answer.get("need") else {
                return (answer, round);
            };
            for want in need["files"].as_array().unwrap() {
                let path = want["path"].as_str().unwrap();
                let text = tree.iter().find(|(p, _)| *p == path).map(|(_, t)| *t);
                files.insert(path.to_owned(), text.map_or(Value::Null, Value::from));
            }
            for want in need["dirs"].as_array().unwrap() {
                let dir = want["dir"].as_str().unwrap();
                let found: Vec<&str> = tree
                    .iter()
                    .map(|(p, _)| *p)
                    .filter(|p| p.starts_with(&format!("{dir}/")))
                    .collect();
                listings.insert(dir.to_owned(), json!(found));
            }
        }
        panic!("no answer in {MAX_ROUNDS} rounds");
    }

    #[test]
    fn rounds_reach_the_same_result_as_a_synchronous_read() {
        let tree = [
            ("/r/AGENTS.md", "top @a.md"),
            ("/r/a.md", "A @b.md"),
            ("/r/b.md", "B"),
            ("/r/.claude/rules/x.md", "---\npaths: src/*\n---\nX"),
        ];
        let (answer, rounds) = drive(&tree, json!({"root": "/r", "cwd": "/r"}));
        assert!(rounds <= 5, "{rounds} rounds");
        let found = &answer["instructions"];
        assert!(found["text"].as_str().unwrap().contains("\nB\n"), "{found}");
        assert_eq!(found["files"].as_array().unwrap().len(), 4);
        let rules = path_rules_from_json(&found["pathRules"]).unwrap();
        assert_eq!(rules.rules()[0].globs, ["src/*"]);
        let mut rules = rules;
        assert!(rules.touch("src/y").unwrap().ends_with("\nX"));
        // An untrusted request never asks for a file outside the workspace.
        let (answer, _) = drive(
            &[("/r/AGENTS.md", "@/etc/passwd @~/.ssh/id_rsa")],
            json!({"root": "/r", "home": "/home/u"}),
        );
        assert_eq!(
            answer["instructions"]["warnings"].as_array().unwrap().len(),
            2
        );
        let refused = json!({"sources": {"root": "/r"}, "files": {"/r/CLAUDE.md": {"error": "CLAUDE.md: a FIFO"}}});
        assert!(resolve_round(&refused)["need"].is_object());
    }

    #[test]
    fn bad_requests_are_errors_naming_the_field() {
        assert!(resolve_round(&json!({}))["error"]
            .as_str()
            .unwrap()
            .contains("`sources`"));
        let relative = json!({"sources": {"root": "repo"}});
        assert!(resolve_round(&relative)["error"]
            .as_str()
            .unwrap()
            .contains("absolute"));
        let no_globs = json!({"root": "/r", "rules": [{"text": "x", "globs": []}]});
        assert!(path_rules_from_json(&no_globs)
            .unwrap_err()
            .contains("rules[0]"));
        assert!(path_rules_from_json(&json!({})).is_err());
    }
}
