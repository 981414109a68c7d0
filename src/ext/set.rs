//! [`SkillSet`]: every skill and command of a session, with precedence and collisions resolved.

use super::args::{find_snippets, substitute, Substitution};
use super::{Catalog, Scope, Skill, SkillKind};
use crate::registry::char_prefix;

/// REPL commands of the hosts; an item with one of these names is never reachable bare.
pub const BUILTIN_COMMANDS: &[&str] = &[
    "help",
    "tools",
    "mcp",
    "clear",
    "quit",
    "exit",
    "q",
    "skills",
    "plugins",
    "plugin",
    "reload",
    "commands",
    "memory",
    "instructions",
    "context",
    "compact",
    "resume",
];

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

impl Invocation<'_> {
    /// Why a user may not type this item (`user-invocable: false`), if so.
    pub fn refusal(&self) -> Option<String> {
        (!self.skill.user_invocable).then(|| {
            format!(
                "/{} is not user-invocable (user-invocable: false in {}); the model may still use it",
                self.skill.qualified, self.skill.location
            )
        })
    }
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

/// Longest catalog entry, in characters (Claude Code's cap).
pub const MAX_CATALOG_ENTRY_CHARS: usize = 1_536;

/// All skills and prompt commands of a session.
///
/// Bare names resolve by precedence: host > user > project, a skill before a command of the
/// same scope, then the first inserted (discovery order). Built-in command names never resolve
/// bare. Plugin items are always reachable as `plugin:name`, and bare only when nothing else
/// (and no other plugin) has that name. Qualified lookups are exact.
#[derive(Clone, Debug)]
pub struct SkillSet {
    items: Vec<Skill>,
    reserved: Vec<String>,
}

impl Default for SkillSet {
    fn default() -> Self {
        Self::new()
    }
}

fn rank(skill: &Skill) -> u8 {
    let scope = match skill.scope {
        Scope::Host => 0,
        Scope::User => 2,
        Scope::Project { .. } => 4,
        Scope::Plugin { .. } => 6,
        #[cfg(feature = "server-skills")]
        Scope::Server { .. } => 8,
    };
    scope + u8::from(skill.kind == SkillKind::Command)
}

/// Whether `skill` is served by an MCP server (the Skills extension).
fn served(skill: &Skill) -> bool {
    #[cfg(feature = "server-skills")]
    return matches!(skill.scope, Scope::Server { .. });
    #[cfg(not(feature = "server-skills"))]
    {
        let _ = skill;
        false
    }
}

fn escape_line(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            c if c.is_control() || c.is_whitespace() => {
                if !out.ends_with(' ') {
                    out.push(' ')
                }
            }
            c => out.push(c),
        }
    }
    out.trim().to_owned()
}

impl Rendered {
    /// The text with each snippet replaced by its output, in order (no re-scan); a missing
    /// output leaves the slot empty.
    pub fn fill(self, outputs: &[String]) -> String {
        super::host::fill_parts(&self.parts(), outputs)
    }

    /// The text cut at the snippet slots: one more piece than there are snippets, for a host
    /// that fills them elsewhere ([`super::Expansion::fill`]).
    pub fn parts(&self) -> Vec<String> {
        let mut parts = Vec::with_capacity(self.slots.len() + 1);
        let mut from = 0;
        for &at in &self.slots {
            parts.push(self.text[from..at].to_owned());
            from = at;
        }
        parts.push(self.text[from..].to_owned());
        parts
    }
}

impl SkillSet {
    /// An empty set with [`BUILTIN_COMMANDS`] reserved.
    pub fn new() -> Self {
        SkillSet {
            items: Vec::new(),
            reserved: BUILTIN_COMMANDS.iter().map(|s| (*s).to_owned()).collect(),
        }
    }

    /// Adds `skill`; never fails; reports which item lost a bare name to which.
    pub fn insert(&mut self, skill: Skill) -> Vec<Collision> {
        let name = skill.name.clone();
        let before = self.get(&name).map(|s| s.location.clone());
        let location = skill.location.clone();
        let plugin = skill.scope.plugin().is_some();
        let qualified = skill.qualified.clone();
        self.items.push(skill);
        let mut out = Vec::new();
        let collide = |winner: &str, shadowed: &str, message: String| Collision {
            name: name.clone(),
            winner: winner.to_owned(),
            shadowed: shadowed.to_owned(),
            message,
        };
        if self.reserved.iter().any(|r| r.eq_ignore_ascii_case(&name)) {
            let reach = if plugin {
                format!("reachable as /{qualified}")
            } else {
                "unreachable by name".to_owned()
            };
            out.push(collide(
                "built-in command",
                &location,
                format!("/{name} is a built-in command; {location} is {reach}"),
            ));
            return out;
        }
        let after = self.get(&name).map(|s| s.location.clone());
        match (&before, &after) {
            (Some(old), Some(new)) if old != new => out.push(collide(
                new,
                old,
                format!("/{name}: {new} takes precedence over {old}"),
            )),
            (Some(_), None) if plugin => out.push(collide(
                "",
                &location,
                format!("/{name} is offered by several plugins; use /{qualified}"),
            )),
            (Some(old), _) if *old != location => {
                let reach = if plugin {
                    format!(" (still /{qualified})")
                } else {
                    String::new()
                };
                out.push(collide(
                    old,
                    &location,
                    format!("/{name}: {old} takes precedence over {location}{reach}"),
                ))
            }
            _ => {}
        }
        if out.is_empty() {
            // ASCII case only: Unicode case tables would cost the wasm runtime ~5 KB for a
            // warning (names differing only in non-ASCII case are not reported).
            if let Some(other) = self
                .items
                .iter()
                .find(|s| s.name != name && s.name.eq_ignore_ascii_case(&name))
            {
                out.push(collide(
                    &other.location,
                    &location,
                    format!("/{name} and /{} differ only in letter case", other.name),
                ));
            }
        }
        out
    }

    /// Reserves more built-in command names.
    pub fn reserve(&mut self, names: &[&str]) {
        for name in names {
            if !self.reserved.iter().any(|r| r == name) {
                self.reserved.push((*name).to_owned());
            }
        }
    }

    /// Every item, sorted by qualified name (then insertion order).
    pub fn items(&self) -> Vec<&Skill> {
        let mut items: Vec<&Skill> = self.items.iter().collect();
        items.sort_by(|a, b| a.qualified.cmp(&b.qualified));
        items
    }

    /// The item a bare or qualified name reaches (built-ins reach nothing).
    pub fn get(&self, name: &str) -> Option<&Skill> {
        if name.contains(':') {
            let mut best: Option<&Skill> = None;
            for s in self.items.iter().filter(|s| s.qualified == name) {
                if best.is_none_or(|b| rank(s) < rank(b)) {
                    best = Some(s);
                }
            }
            return best;
        }
        if self.reserved.iter().any(|r| r.eq_ignore_ascii_case(name)) {
            return None;
        }
        let mut best: Option<&Skill> = None;
        let mut plugins: Vec<&Skill> = Vec::new();
        // A server's skill never answers to a bare name: it may not shadow, or stand in for,
        // a skill of the same name from anywhere else.
        let bare = |s: &&Skill| s.name == name && !served(s);
        for s in self.items.iter().filter(bare) {
            if let Scope::Plugin { plugin, .. } = &s.scope {
                if !plugins.iter().any(|p| p.scope.plugin() == Some(plugin)) {
                    plugins.push(s);
                }
            } else if best.is_none_or(|b| rank(s) < rank(b)) {
                best = Some(s);
            }
        }
        best.or(if plugins.len() == 1 {
            Some(plugins[0])
        } else {
            None
        })
    }

    /// Whether `skill` is the item its own qualified name reaches (not shadowed).
    fn reachable(&self, skill: &Skill) -> bool {
        self.get(&skill.qualified)
            .is_some_and(|s| std::ptr::eq(s, skill))
    }

    /// Resolves `/name args`; `None` when `input` is not a slash command naming an item.
    /// A resolved item may still refuse the user ([`Invocation::refusal`]).
    pub fn resolve(&self, input: &str) -> Option<Invocation<'_>> {
        let rest = input.trim_start().strip_prefix('/')?;
        let end = rest.find(char::is_whitespace).unwrap_or(rest.len());
        let skill = self.get(&rest[..end])?;
        Some(Invocation {
            skill,
            args: rest[end..].trim().to_owned(),
        })
    }

    /// Renders a user-typed invocation: arguments, variables, snippets (to be run gated).
    pub fn render(&self, inv: &Invocation<'_>, ctx: &RenderContext) -> Rendered {
        render(inv.skill, &inv.args, ctx)
    }

    /// The catalog of model-invocable, reachable items within `budget_chars`; deterministic:
    /// sorted by qualified name; over budget, descriptions are cut to one common length.
    pub fn catalog(&self, budget_chars: usize) -> Catalog {
        let mut entries: Vec<(String, String)> = Vec::new();
        for skill in self.items() {
            if !skill.model_invocable || !self.reachable(skill) {
                continue;
            }
            let mut text = escape_line(&skill.description);
            if let Some(when) = &skill.when_to_use {
                text.push(' ');
                text.push_str(&escape_line(when));
            }
            let head = format!("- {}: ", escape_line(&skill.qualified));
            let room = MAX_CATALOG_ENTRY_CHARS.saturating_sub(head.chars().count());
            let text = char_prefix(&text, room).0.to_owned();
            if entries.last().is_some_and(|(h, _)| *h == head) {
                continue;
            }
            entries.push((head, text));
        }
        let names = entries
            .iter()
            .map(|(h, _)| h[2..h.len() - 2].to_owned())
            .collect();
        let total = |cut: usize| -> usize {
            let mut sum = 0;
            for (head, text) in &entries {
                let len = text.chars().count();
                sum += head.chars().count() + len.min(cut) + usize::from(len > cut) + 1;
            }
            sum
        };
        let longest = entries
            .iter()
            .map(|(_, t)| t.chars().count())
            .max()
            .unwrap_or(0);
        let mut cut = longest;
        if total(cut) > budget_chars {
            let (mut lo, mut hi) = (0, longest);
            while lo < hi {
                let mid = (lo + hi).div_ceil(2);
                if total(mid) <= budget_chars {
                    lo = mid;
                } else {
                    hi = mid - 1;
                }
            }
            cut = lo;
        }
        let mut text = String::new();
        for (head, entry) in &entries {
            let (kept, dropped) = char_prefix(entry, cut);
            text.push_str(head.trim_end_matches(' '));
            if !kept.is_empty() {
                text.push(' ');
                text.push_str(kept.trim_end());
            }
            if dropped > 0 {
                text.push('…');
            }
            text.push('\n');
        }
        Catalog {
            text,
            names,
            shortened: cut < longest,
        }
    }

    /// Removes every item of `plugin`; returns how many.
    pub fn remove_plugin(&mut self, plugin: &str) -> usize {
        let before = self.items.len();
        self.items.retain(|s| s.scope.plugin() != Some(plugin));
        before - self.items.len()
    }

    /// Removes the item with this qualified name (the one that name reaches).
    pub fn remove(&mut self, qualified: &str) -> Option<Skill> {
        let target = self.get(qualified)? as *const Skill;
        let at = self.items.iter().position(|s| std::ptr::eq(s, target))?;
        Some(self.items.remove(at))
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

/// Renders `skill` with `args`: the wrapper block, arguments substituted once, snippet slots.
pub(crate) fn render(skill: &Skill, args: &str, ctx: &RenderContext) -> Rendered {
    // The first value of a name wins: the item's own, then the host's.
    let mut vars = Vec::new();
    if let Some(dir) = &skill.dir {
        vars.push(("CLAUDE_SKILL_DIR".into(), dir.clone()));
    }
    vars.extend(skill.vars.iter().cloned());
    vars.extend(ctx.vars.iter().cloned());
    let sub = Substitution {
        raw: args,
        names: &skill.arguments,
        vars: &vars,
    };
    let tag = if skill.kind == SkillKind::Command {
        "command"
    } else {
        "skill"
    };
    let mut text = format!(
        "<{tag} name=\"{}\" source=\"{}\"",
        escape_line(&skill.qualified),
        skill.scope.label()
    );
    if let Some(dir) = &skill.dir {
        text.push_str(&format!(" dir=\"{}\"", escape_line(dir)));
    }
    text.push_str(">\n");
    let body = &skill.body;
    let mut used = false;
    let mut snippets = Vec::new();
    let mut slots = Vec::new();
    let mut at = 0;
    for snippet in find_snippets(body) {
        let (part, u) = substitute(&body[at..snippet.start], &sub, false);
        used |= u;
        text.push_str(&part);
        let (command, u) = substitute(&snippet.command, &sub, true);
        used |= u;
        snippets.push(ShellSnippet { command });
        slots.push(text.len());
        at = snippet.end;
    }
    let (part, u) = substitute(&body[at..], &sub, false);
    used |= u;
    text.push_str(part.trim_end());
    if !used && !args.is_empty() {
        text.push_str("\n\nARGUMENTS: ");
        text.push_str(args);
    }
    text.push_str(&format!("\n</{tag}>"));
    Rendered {
        text,
        snippets,
        warnings: Vec::new(),
        slots,
    }
}
