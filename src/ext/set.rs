//! [`SkillSet`]: every skill and command of a session, with precedence and collisions resolved.

use super::args::Snippet;
use super::Skill;

/// REPL commands of the hosts; an item with one of these names is never reachable bare.
pub const BUILTIN_COMMANDS: &[&str] = &[
    "help", "tools", "mcp", "clear", "quit", "exit", "q", "skills", "plugins", "plugin",
    "reload", "commands",
];

/// Default character budget of the skill catalog.
pub const DEFAULT_CATALOG_CHARS: usize = 8_000;

/// An item that lost its bare name to another.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Collision {
    /// The contested bare name.
    pub name: String,
    /// Location (or `built-in command`) of the item that keeps it.
    pub winner: String,
    /// Location of the item that lost it.
    pub shadowed: String,
    /// Why, as a sentence for the user.
    pub message: String,
}

/// A resolved `/name args`.
#[derive(Clone, Debug, PartialEq)]
pub struct Invocation<'a> {
    /// The item invoked.
    pub skill: &'a Skill,
    /// The raw argument string (trimmed).
    pub args: String,
}

/// Values the host supplies to rendering.
#[derive(Clone, Debug, Default)]
pub struct RenderContext {
    /// `${VAR}` values: `CLAUDE_PLUGIN_ROOT`, `CLAUDE_PROJECT_DIR`, `CLAUDE_SESSION_ID`, …
    /// (`CLAUDE_SKILL_DIR` comes from the skill's `dir`).
    pub vars: Vec<(String, String)>,
}

/// A shell snippet to run as a gated `bash` call, placeholders already filled (single-quoted).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ShellSnippet {
    /// The command for `bash`.
    pub command: String,
}

/// A rendered invocation: text with snippet slots, the snippets, and warnings.
#[derive(Clone, Debug, PartialEq)]
pub struct Rendered {
    /// The rendered block; snippet outputs go where [`Rendered::fill`] puts them.
    pub text: String,
    /// Shell snippets, in order, for the host to run as gated `bash` calls.
    pub snippets: Vec<ShellSnippet>,
    /// Notes for the user (missing arguments, …).
    pub warnings: Vec<String>,
    slots: Vec<usize>,
}

/// The model-facing catalog: text for the tool description and the enum of names.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Catalog {
    /// `- <qualified>: <description>` lines, sorted, within the budget.
    pub text: String,
    /// Model-invocable qualified names, sorted.
    pub names: Vec<String>,
    /// Whether descriptions were shortened to fit the budget.
    pub shortened: bool,
}

/// All skills and prompt commands of a session.
#[derive(Clone, Debug, Default)]
#[allow(dead_code)] // filled in the next commit
pub struct SkillSet {
    items: Vec<Skill>,
    reserved: Vec<String>,
}

impl Rendered {
    /// The text with each snippet replaced by its output, in order (no re-scan).
    pub fn fill(self, outputs: &[String]) -> String {
        let _ = (outputs, &self.slots);
        todo!()
    }
}

impl SkillSet {
    /// An empty set with [`BUILTIN_COMMANDS`] reserved.
    pub fn new() -> Self {
        todo!()
    }

    /// Adds `skill`; never fails; reports which item lost a bare name to which.
    pub fn insert(&mut self, skill: Skill) -> Vec<Collision> {
        let _ = skill;
        todo!()
    }

    /// Reserves more built-in command names.
    pub fn reserve(&mut self, names: &[&str]) {
        let _ = names;
        todo!()
    }

    /// Every item, sorted by qualified name.
    pub fn items(&self) -> Vec<&Skill> {
        todo!()
    }

    /// The item a bare or qualified name reaches (built-ins reach nothing).
    pub fn get(&self, name: &str) -> Option<&Skill> {
        let _ = name;
        todo!()
    }

    /// Resolves `/name args`; `None` when `input` is not a slash command naming an item.
    pub fn resolve(&self, input: &str) -> Option<Invocation<'_>> {
        let _ = input;
        todo!()
    }

    /// Renders a user-typed invocation: arguments, variables, snippets (to be run gated).
    pub fn render(&self, inv: &Invocation<'_>, ctx: &RenderContext) -> Rendered {
        let _ = (inv, ctx);
        todo!()
    }

    /// The catalog of model-invocable items within `budget_chars`; deterministic.
    pub fn catalog(&self, budget_chars: usize) -> Catalog {
        let _ = budget_chars;
        todo!()
    }

    /// Removes every item of `plugin`; returns how many.
    pub fn remove_plugin(&mut self, plugin: &str) -> usize {
        let _ = plugin;
        todo!()
    }

    /// Removes the item with this qualified name.
    pub fn remove(&mut self, qualified: &str) -> Option<Skill> {
        let _ = qualified;
        todo!()
    }

    /// Number of items.
    pub fn len(&self) -> usize {
        self.items.len()
    }

    /// Whether the set is empty.
    pub fn is_empty(&self) -> bool {
        self.items.is_empty()
    }
}

#[allow(dead_code)]
fn unused(_: Snippet) {}
