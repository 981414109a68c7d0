//! The skills, commands and plugins of one CLI session: where to look (from the options and
//! the environment), what was found, and re-discovery for `/reload`.

use super::discover::{discover, project_dirs, project_root, Found, Places, Scope};
use super::plugin_dir::{host_lookup, read_plugin, PluginFolder};
use crate::config::trust::{canonical_dir, TrustStore};
use agentwire::config::ServerConfig;
use std::cell::RefCell;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::rc::Rc;

/// Each skill's folder by qualified name, shared with the built-in tools (updated by
/// `/reload`): where `read_skill_file` reads.
pub type SkillDirs = Rc<RefCell<BTreeMap<String, PathBuf>>>;

/// What discovery found, and how to find it again.
#[derive(Debug)]
pub struct Extensions {
    /// Where discovery looks.
    pub places: Places,
    /// What it found last.
    pub found: Found,
    /// The plugins read (those found and allowed to load), in discovery order.
    pub plugins: Vec<PluginFolder>,
    /// Plugins that could not be read, one error naming the file each.
    pub plugin_errors: Vec<String>,
    /// The core's parse of every skill and command found.
    pub parsed: super::skillset::Parsed,
    /// Each skill's folder, shared with the `read_skill_file` tool.
    pub skill_dirs: SkillDirs,
    /// The directory `${CLAUDE_PROJECT_DIR}` names.
    cwd: PathBuf,
}

/// Whether the project at `cwd` is trusted: `--trust-workspace`, or the trust store lists its
/// git root or `cwd` itself (what `agentwire trust` records when run there).
pub fn workspace_trusted(cwd: &Path, home: Option<&Path>, flag: bool) -> bool {
    if flag {
        return true;
    }
    let Some(store) = TrustStore::default_location() else {
        return false;
    };
    [project_root(cwd, home), cwd.to_path_buf()]
        .iter()
        .filter_map(|dir| canonical_dir(dir).ok())
        .any(|dir| store.is_trusted(&dir))
}

impl Extensions {
    /// Looks where the options say: `$HOME`, the current directory's project, `plugin_dirs`;
    /// nothing but `plugin_dirs` under `bare`.
    pub fn discover(plugin_dirs: &[PathBuf], bare: bool, trust_flag: bool) -> Extensions {
        let home = std::env::var_os("HOME")
            .filter(|h| !h.is_empty())
            .map(PathBuf::from);
        let cwd = std::env::current_dir()
            .and_then(std::fs::canonicalize)
            .unwrap_or_else(|_| PathBuf::from("."));
        let places = Places {
            project: if bare {
                Vec::new()
            } else {
                project_dirs(&cwd, home.as_deref())
            },
            trusted: !bare && workspace_trusted(&cwd, home.as_deref(), trust_flag),
            home,
            plugin_dirs: plugin_dirs.to_vec(),
            bare,
        };
        let mut extensions = Extensions {
            places,
            found: Found::default(),
            plugins: Vec::new(),
            plugin_errors: Vec::new(),
            parsed: Default::default(),
            skill_dirs: Default::default(),
            cwd,
        };
        extensions.load();
        extensions
    }

    /// Discovers, then reads every plugin allowed to load. Two plugins with one name: the
    /// second is refused with an error naming both roots.
    fn load(&mut self) {
        self.found = discover(&self.places);
        self.plugins.clear();
        self.plugin_errors.clear();
        for root in self.found.plugins.iter().filter(|p| p.not_loaded.is_none()) {
            let lookup = host_lookup(&self.cwd);
            match read_plugin(&root.root, root.scope, &lookup) {
                Ok(mut plugin) => {
                    if let Some(first) = self.plugins.iter().find(|p| p.name == plugin.name) {
                        self.plugin_errors.push(format!(
                            "plugin {} ({}) not loaded: {} already has that name",
                            plugin.name,
                            plugin.root.display(),
                            first.root.display()
                        ));
                    } else {
                        if let Err(error) = plugin.ensure_data_dir() {
                            plugin.warnings.push(error);
                        }
                        self.plugins.push(plugin);
                    }
                }
                Err(error) => self.plugin_errors.push(error),
            }
        }
        self.parsed = super::skillset::build_from(&self.found, &self.plugins, self.places.trusted);
        *self.skill_dirs.borrow_mut() = self.parsed.dirs.clone();
    }

    /// The directory `${CLAUDE_PROJECT_DIR}` names (the current directory, resolved).
    pub fn cwd(&self) -> &Path {
        &self.cwd
    }

    /// Puts the parsed set into `agent` (it applies from the next run).
    pub fn install(&self, agent: &mut agentwire::agent::Agent) {
        *agent.skills_mut() = self.parsed.set.clone();
    }

    /// The servers whose tools' own words (name, description, annotations) the gate must not
    /// rely on: every plugin's, user or project scope; only the user's config, `--allow` rules
    /// and answers make their tools run unasked.
    pub fn distrusted_servers(&self) -> Vec<String> {
        self.plugins
            .iter()
            .flat_map(|p| p.servers.iter().map(|s| s.name.clone()))
            .collect()
    }

    /// The MCP servers of the loaded plugins (`plugin_<p>_<s>`).
    pub fn plugin_servers(&self) -> Vec<ServerConfig> {
        self.plugins
            .iter()
            .flat_map(|p| p.servers.iter().cloned())
            .collect()
    }

    /// Discovers again in the same places; returns what changed, one line per item.
    pub fn reload(&mut self) -> Vec<String> {
        let before = self.names();
        self.load();
        let after = self.names();
        let mut changes: Vec<String> = before
            .iter()
            .filter(|name| !after.contains(name))
            .map(|name| format!("removed {name}"))
            .collect();
        changes.extend(
            after
                .iter()
                .filter(|name| !before.contains(name))
                .map(|name| format!("added {name}")),
        );
        changes
    }

    /// A label per item found (`skill x (user)`), for change reports.
    fn names(&self) -> Vec<String> {
        let items = |kind: &str, list: &[super::discover::ItemFile]| -> Vec<String> {
            list.iter()
                .map(|i| {
                    format!(
                        "{kind} {} ({}: {})",
                        i.name,
                        i.scope.as_str(),
                        i.path.display()
                    )
                })
                .collect()
        };
        let mut names = items("skill", &self.found.skills);
        names.extend(items("command", &self.found.commands));
        names.extend(self.plugins.iter().map(|p| format!("plugin {}", p.name)));
        names
    }

    /// The one-line startup summary: `skills: 5 (2 project, 3 user), commands: 3, plugins: 1`.
    pub fn summary(&self) -> String {
        let count = |list: &[super::discover::ItemFile], scope: Scope| {
            list.iter().filter(|i| i.scope == scope).count()
        };
        let skills = &self.found.skills;
        let mut line = format!("skills: {}", skills.len());
        if !skills.is_empty() {
            line.push_str(&format!(
                " ({} user, {} project)",
                count(skills, Scope::User),
                count(skills, Scope::Project)
            ));
        }
        line.push_str(&format!(
            ", commands: {}, plugins: {}",
            self.found.commands.len(),
            self.found
                .plugins
                .iter()
                .filter(|p| p.not_loaded.is_none())
                .count()
        ));
        let problems = self.found.errors.len()
            + self.found.warnings.len()
            + skills
                .iter()
                .chain(&self.found.commands)
                .map(|i| i.warnings.len())
                .sum::<usize>();
        if problems > 0 {
            line.push_str(&format!("; {problems} problems (agentwire skills list)"));
        }
        line
    }
}
