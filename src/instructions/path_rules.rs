//! Rules with `paths:` globs: they join the conversation, appended to the result of the first
//! tool call that reads or writes a file they match, never in the cached prefix.

use super::glob::matches;
use super::paths::{join, normalize, relative};
use serde_json::Value;

/// The built-in tools that read or write one file, named by their `path` argument.
pub const FILE_TOOLS: [&str; 3] = ["read_file", "write_file", "edit_file"];

/// One conditional rule.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PathRule {
    /// Its absolute path.
    pub path: String,
    /// How it is shown (relative to the project root, or `~/…`).
    pub shown: String,
    /// Its `paths:` globs, relative to the project root.
    pub globs: Vec<String>,
    /// Its body (frontmatter and block comments removed, within the budget).
    pub text: String,
}

/// The conditional rules of a conversation and which of them already joined it.
#[derive(Clone, Debug, PartialEq, Eq, Default)]
pub struct PathRules {
    root: String,
    base: String,
    rules: Vec<PathRule>,
    joined: Vec<bool>,
}

impl PathRules {
    /// The `rules` of the project at `root`; relative tool paths start at `base`.
    pub fn new(root: &str, base: &str, rules: Vec<PathRule>) -> PathRules {
        let joined = vec![false; rules.len()];
        PathRules {
            root: normalize(root),
            base: normalize(base),
            rules,
            joined,
        }
    }

    /// The project root the globs are relative to.
    pub fn root(&self) -> &str {
        &self.root
    }

    /// Where relative tool paths start.
    pub fn base(&self) -> &str {
        &self.base
    }

    /// The rules, in load order.
    pub fn rules(&self) -> &[PathRule] {
        &self.rules
    }

    /// Whether there are none.
    pub fn is_empty(&self) -> bool {
        self.rules.is_empty()
    }

    /// A new conversation: every rule may join again.
    pub fn forget_joined(&mut self) {
        self.joined.iter_mut().for_each(|j| *j = false);
    }

    /// The text to append to the result of the call `name(arguments)`, when it is a file tool
    /// whose `path` matches rules that have not joined yet (they are marked joined).
    pub fn for_call(&mut self, name: &str, arguments: &Value) -> Option<String> {
        if !FILE_TOOLS.contains(&name) {
            return None;
        }
        let path = arguments.get("path").and_then(Value::as_str)?;
        self.touch(path)
    }

    /// The text of the rules matching `path` (absolute, or relative to the base) that have not
    /// joined yet, marking them joined; `None` when there are none or `path` is outside the
    /// project.
    pub fn touch(&mut self, path: &str) -> Option<String> {
        let absolute = if path.starts_with('/') {
            normalize(path)
        } else {
            join(&self.base, path)
        };
        let inside = relative(&absolute, &self.root)?;
        let mut text = String::new();
        for (rule, joined) in self.rules.iter().zip(self.joined.iter_mut()) {
            if *joined || !rule.globs.iter().any(|g| matches(g, inside)) {
                continue;
            }
            *joined = true;
            text.push_str(&format!(
                "\n\n[Instructions for files like {inside}, from {}]\n{}",
                rule.shown, rule.text
            ));
        }
        (!text.is_empty()).then_some(text)
    }
}
