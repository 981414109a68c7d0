//! Skills, prompt commands and file plugins (Claude Code / Agent Skills formats), sans-IO.
//!
//! # API
//! - [`frontmatter::parse`]: the lenient `---` block reader; every field keeps its raw text.
//! - [`parse_skill_md`], [`parse_command_md`]: one `SKILL.md` / `commands/*.md` text → [`Skill`].
//! - [`PluginManifest::parse`], [`parse_plugin_servers`]: `.claude-plugin/plugin.json` and a
//!   plugin's `.mcp.json` (wrapped `mcpServers` or flat map) → server configs `plugin_<p>_<s>`.
//! - [`args`]: argument splitting, `$ARGUMENTS`/`$N`/named substitution, `` !`cmd` `` snippets.
//! - [`SkillSet`]: every skill and command of a session with precedence and collisions resolved;
//!   resolves `/name args`, renders invocations and activations, builds the catalog.
//! - [`tools`]: the two model-facing tools `activate_skill` and `read_skill_file`.
//! - [`skill_json`], [`skill_from_json`]: a parsed record as JSON and back (what the npm
//!   package's JS layer hands its skill set).
//! - [`SkillHost`]: where an agent's skills come from; [`LocalSkills`] (a set and its render
//!   context) natively, a host's provider in the npm runtime module, which carries none of the
//!   above (feature `skill-set` off) and asks the `ext` module's copy of [`LocalSkills`].
//!
//! # Driving contract
//! The core reads no file. The host discovers folders, reads each text (UTF-8, lossy), lists
//! the files a skill ships (relative paths), and hands `(location, name, text, files, scope)`
//! in. Parsing never fails on content it can make sense of: oddities become `warnings` on the
//! record; only a file with no usable content (unclosed frontmatter, no description and no
//! body) is an [`ExtError`] that names the file. Items from another scope or plugin never
//! replace existing ones silently: [`SkillSet::insert`] returns the [`Collision`]s. The set is
//! changed between runs only; the host re-builds tool definitions from it with [`tools`].
//! Snippets of a rendered user command are run by the host as gated `bash` calls (origin
//! `command:/name`), then the outputs are put back with [`Rendered::fill`];
//! [`crate::driver::Runtime::run`] does all of this for a leading `/name args`.
//!
//! The [`crate::agent::Agent`] owns the set (`skills_mut()`, applied at the next run; or asks
//! a host's [`SkillHost`], `set_skill_host`): it registers the skill tools when a run starts,
//! answers `activate_skill` itself after the gate, and checks `read_skill_file {skill, path}`
//! against the skill's listing; only a listed path reaches the host, as a
//! [`crate::registry::ToolSource::Skill`] invocation that the host's local tools serve by
//! reading `<skill.dir>/<path>`. Plugin tools
//! ([`crate::registry::Registry::register_plugin_tool`]) reach the host's local tools under
//! their `plugin__<p>__<tool>` name; plugin code calling tools goes through
//! [`crate::agent::Agent::begin_gated_call`] with origin `plugin:<p>`, never the direct path.

#[cfg(feature = "skill-set")]
pub mod args;
#[cfg(feature = "skill-set")]
pub mod frontmatter;
mod host;
#[cfg(feature = "skill-set")]
mod local;
#[cfg(feature = "skill-set")]
mod plugin;
#[cfg(feature = "skill-set")]
mod record;
#[cfg(feature = "server-skills")]
pub mod server_skill;
#[cfg(feature = "skill-set")]
mod set;
#[cfg(feature = "skill-set")]
mod skill;
pub mod tools;

pub use host::{
    check_from_json, check_json, Activation, Catalog, Expansion, SkillHost, SkillTools,
};
#[cfg(feature = "skill-set")]
pub use local::LocalSkills;
#[cfg(feature = "skill-set")]
pub use plugin::{parse_plugin_servers, sanitize_plugin_name, Plugin, PluginManifest};
#[cfg(feature = "skill-set")]
pub use record::{skill_from_json, skill_json};
#[cfg(feature = "skill-set")]
pub use set::{
    Collision, Invocation, RenderContext, Rendered, ShellSnippet, SkillSet, BUILTIN_COMMANDS,
};
#[cfg(feature = "skill-set")]
pub use skill::{parse_command_md, parse_skill_md};

/// Default character budget of the skill catalog.
pub const DEFAULT_CATALOG_CHARS: usize = 8_000;

use serde_json::{Map, Value};
use std::fmt;

/// Where an extension item came from; decides precedence and trust.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum Scope {
    /// Given by the embedding program (npm code): beats files.
    Host,
    /// The user's own folders (`~/.claude`, `--plugin-dir`).
    User,
    /// A project's folders; `trusted` once the user trusted the workspace.
    Project {
        /// Whether the workspace is trusted (grants count, plugins start processes).
        trusted: bool,
    },
    /// Shipped by plugin `plugin`, which itself came from `scope`.
    Plugin {
        /// The plugin's sanitised name.
        plugin: String,
        /// Whether the plugin's origin is trusted (host, user, or a trusted project).
        trusted: bool,
    },
    /// Served by MCP server `server` (the Skills extension): never trusted, reachable only
    /// by its qualified name `<server>:<skill>`.
    #[cfg(feature = "server-skills")]
    Server {
        /// The server's configured name (the host's label, not its self-reported name).
        server: String,
    },
}

impl Scope {
    /// Label for listings: `host`, `user`, `project`, `plugin:<p>`.
    pub fn label(&self) -> String {
        match self {
            Scope::Host => "host".into(),
            Scope::User => "user".into(),
            Scope::Project { .. } => "project".into(),
            Scope::Plugin { plugin, .. } => format!("plugin:{plugin}"),
            #[cfg(feature = "server-skills")]
            Scope::Server { server } => format!("mcp:{server}"),
        }
    }

    /// Whether grants (`allowed-tools`) from this scope may count.
    pub fn is_trusted(&self) -> bool {
        match self {
            Scope::Host | Scope::User => true,
            Scope::Project { trusted } | Scope::Plugin { trusted, .. } => *trusted,
            // A server is not a trusted source: its `allowed-tools` never grant anything.
            #[cfg(feature = "server-skills")]
            Scope::Server { .. } => false,
        }
    }

    /// The owning plugin, if any.
    pub fn plugin(&self) -> Option<&str> {
        match self {
            Scope::Plugin { plugin, .. } => Some(plugin),
            _ => None,
        }
    }
}

/// What kind of file an item came from.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum SkillKind {
    /// `<dir>/SKILL.md`.
    Skill,
    /// `commands/*.md`.
    Command,
}

/// One skill or prompt command, as parsed.
#[derive(Clone, Debug, PartialEq)]
pub struct Skill {
    /// Invocation name (directory name, file stem).
    pub name: String,
    /// `plugin:name` for plugin items, `sub:name` for nested command dirs, else `name`.
    pub qualified: String,
    /// The frontmatter `name` when it differs from the invocation name.
    pub display_name: Option<String>,
    /// One line, sanitised; derived from the body when absent (with a warning).
    pub description: String,
    /// `when_to_use`, appended in the catalog.
    pub when_to_use: Option<String>,
    /// `argument-hint`, raw text.
    pub argument_hint: Option<String>,
    /// Declared named arguments (`$name`).
    pub arguments: Vec<String>,
    /// Offered to the model (not `disable-model-invocation`, has a description).
    pub model_invocable: bool,
    /// Reachable as `/name` (not `user-invocable: false`).
    pub user_invocable: bool,
    /// `allowed-tools` entries, raw.
    pub allowed_tools: Vec<String>,
    /// `disallowed-tools` entries, raw.
    pub disallowed_tools: Vec<String>,
    /// `license`.
    pub license: Option<String>,
    /// `compatibility`.
    pub compatibility: Option<String>,
    /// `metadata` mapping.
    pub metadata: Map<String, Value>,
    /// Markdown after the frontmatter.
    pub body: String,
    /// Bundled files, relative, as the host listed them.
    pub files: Vec<String>,
    /// The skill's directory as the host shows it (for `${CLAUDE_SKILL_DIR}`).
    pub dir: Option<String>,
    /// `${VAR}` values of this item alone (a plugin item's `CLAUDE_PLUGIN_ROOT` and
    /// `CLAUDE_PLUGIN_DATA`); they win over the host-wide [`RenderContext`] ones.
    pub vars: Vec<(String, String)>,
    /// File path (or `js:<plugin>/<name>`) for messages.
    pub location: String,
    /// Skill or command.
    pub kind: SkillKind,
    /// Where it came from.
    pub scope: Scope,
    /// Recognised but unsupported fields (`model`, `hooks`, `context`, …).
    pub ignored_fields: Vec<String>,
    /// What a user would want to know about the file.
    pub warnings: Vec<String>,
}

/// Why a file could not be loaded at all.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ExtError {
    /// The file, as the host named it.
    pub location: String,
    /// What is wrong.
    pub message: String,
}

impl fmt::Display for ExtError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}", self.location, self.message)
    }
}

impl std::error::Error for ExtError {}

#[cfg(all(test, feature = "skill-set"))]
mod tests;
