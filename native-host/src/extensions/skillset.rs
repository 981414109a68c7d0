//! From files found to the core's [`SkillSet`]: each text parsed by `agentwire::ext` with its
//! scope (project and plugin items carry whether the workspace is trusted, so their
//! `allowed-tools` count only then), the bundled-file listing and folder attached, built-in
//! command names reserved.

use super::discover::{Found, ItemFile, Scope};
use super::plugin_dir::PluginFolder;
use agentwire::ext::{
    parse_command_md, parse_skill_md, Collision, Scope as CoreScope, Skill, SkillSet,
    BUILTIN_COMMANDS,
};
use std::collections::BTreeMap;
use std::path::PathBuf;

/// The parsed set, what could not be parsed, and where each skill's files are.
#[derive(Debug, Default)]
pub struct Parsed {
    /// Every skill and command, precedence resolved.
    pub set: SkillSet,
    /// Files that could not be loaded at all, each naming the file.
    pub errors: Vec<String>,
    /// Items that lost their bare name, with why.
    pub collisions: Vec<Collision>,
    /// Each skill's folder by qualified name (for `read_skill_file`).
    pub dirs: BTreeMap<String, PathBuf>,
}

fn core_scope(scope: Scope, trusted: bool) -> CoreScope {
    match scope {
        Scope::User => CoreScope::User,
        Scope::Project => CoreScope::Project { trusted },
    }
}

/// Parses one file; a command in `commands/a/b.md` is named `a:b`.
fn parse(item: &ItemFile, kind: &str, scope: CoreScope) -> Result<Skill, String> {
    let location = item.path.display().to_string();
    let parsed = if kind == "skill" {
        parse_skill_md(&location, &item.name, &item.text, scope)
    } else {
        let stem = match &item.group {
            Some(group) => format!("{group}:{}", item.name),
            None => item.name.clone(),
        };
        parse_command_md(&location, &stem, &item.text, scope)
    };
    let mut skill = parsed.map_err(|e| e.to_string())?;
    if kind == "skill" {
        skill.files = item.files.clone();
        skill.dir = Some(item.dir().display().to_string());
        if item.files_cut {
            skill.warnings.push(format!(
                "{location}: more bundled files than listed (the listing stops at {})",
                super::discover::MAX_BUNDLED_FILES
            ));
        }
    }
    skill.warnings.extend(item.warnings.iter().cloned());
    Ok(skill)
}

/// One file to parse: the file, `"skill"` or `"command"`, its scope, its own `${VAR}` values.
type Item<'a> = (
    &'a ItemFile,
    &'static str,
    CoreScope,
    &'a [(String, String)],
);

/// Builds the set from files found and plugins read; `trusted`: the project is trusted.
pub fn build_from(found: &Found, plugins: &[PluginFolder], trusted: bool) -> Parsed {
    let mut parsed = Parsed::default();
    parsed.set.reserve(BUILTIN_COMMANDS);
    let mut items: Vec<Item> = Vec::new();
    for skill in &found.skills {
        items.push((skill, "skill", core_scope(skill.scope, trusted), &[]));
    }
    for command in &found.commands {
        items.push((command, "command", core_scope(command.scope, trusted), &[]));
    }
    for plugin in plugins {
        let scope = CoreScope::Plugin {
            plugin: plugin.name.clone(),
            // A project plugin loads only in a trusted workspace; a user's is the user's.
            trusted: plugin.scope == Scope::User || trusted,
        };
        for skill in &plugin.skills {
            items.push((skill, "skill", scope.clone(), &plugin.vars));
        }
        for command in &plugin.commands {
            items.push((command, "command", scope.clone(), &plugin.vars));
        }
    }
    for (item, kind, scope, vars) in items {
        match parse(item, kind, scope) {
            Ok(mut skill) => {
                skill.vars = vars.to_vec();
                // `read_skill_file` reads in the folder as resolved when it was discovered.
                if let Some(dir) = item.real_dir.as_ref().filter(|_| skill.dir.is_some()) {
                    parsed.dirs.insert(skill.qualified.clone(), dir.clone());
                }
                parsed.collisions.extend(parsed.set.insert(skill));
            }
            Err(error) => parsed.errors.push(error),
        }
    }
    parsed
}
