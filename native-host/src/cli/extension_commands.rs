//! `agentwire skills …` and `agentwire plugins …`: discovery and listing; no server starts.

use crate::cli::args::{Cli, Command, HooksCommand, PluginsCommand, SkillsCommand};
use crate::cli::extension_listing::{plugins_json, print_plugins, print_skills, skills_json};
use crate::extensions::discover::Scope;
use crate::extensions::plugin_dir::{host_lookup, read_plugin};
use crate::extensions::session::Extensions;
use serde_json::json;
use std::path::Path;

/// `plugins validate DIR`: 0 when the plugin loads (with `strict`, also without warnings),
/// else 1; every message names its file.
fn validate(dir: &Path, strict: bool, as_json: bool) -> i32 {
    let lookup = host_lookup(dir);
    let (errors, warnings, ignored) = match read_plugin(dir, Scope::User, &lookup) {
        Ok(plugin) => (Vec::new(), plugin.warnings, plugin.ignored),
        Err(error) => (vec![error], Vec::new(), Vec::new()),
    };
    let failed = !errors.is_empty() || (strict && !(warnings.is_empty() && ignored.is_empty()));
    if as_json {
        crate::outln!(
            "{}",
            json!({"valid": !failed, "errors": errors, "warnings": warnings, "ignored": ignored})
        );
    } else {
        for error in &errors {
            crate::outln!("error: {error}");
        }
        for warning in warnings.iter().chain(&ignored) {
            crate::outln!("{}: {warning}", if strict { "error" } else { "warning" });
        }
        crate::outln!(
            "{}: {}",
            dir.display(),
            if failed { "invalid" } else { "valid" }
        );
    }
    i32::from(failed)
}

/// Runs a `skills` or `plugins` command; `None` for any other command.
pub fn run(cli: &Cli) -> Option<i32> {
    let options = &cli.common;
    let discover =
        || Extensions::discover(&options.plugin_dirs, options.bare, options.trust_workspace);
    match cli.command.as_ref()? {
        Command::Hooks {
            command: HooksCommand::List,
        } => {
            let hooks = crate::extensions::hooks::load_hooks(&discover(), &options.settings_files);
            crate::cli::hooks_listing::print(&hooks, options.json);
            Some(0)
        }
        Command::Skills {
            command: SkillsCommand::List,
        } => {
            let extensions = discover();
            if options.json {
                crate::outln!("{}", skills_json(&extensions));
            } else {
                print_skills(&extensions);
            }
            Some(0)
        }
        Command::Skills {
            command: SkillsCommand::Show { name },
        } => {
            let extensions = discover();
            let set = &extensions.parsed.set;
            let found = set
                .get(name)
                .or_else(|| set.items().into_iter().find(|s| s.name == *name));
            match found {
                Some(skill) => {
                    let shown = crate::cli::extension_listing::show_json(skill);
                    if options.json {
                        crate::outln!("{shown}");
                    } else {
                        crate::outln!(
                            "{}",
                            serde_json::to_string_pretty(&shown).unwrap_or_default()
                        );
                        crate::outln!("---\n{}", skill.body);
                    }
                    Some(0)
                }
                None => {
                    eprintln!(
                        "error: no skill or command named {name:?}; `agentwire skills list` lists them"
                    );
                    Some(1)
                }
            }
        }
        Command::Plugins {
            command: PluginsCommand::List,
        } => {
            let extensions = discover();
            if options.json {
                crate::outln!("{}", plugins_json(&extensions));
            } else {
                print_plugins(&extensions);
            }
            Some(0)
        }
        Command::Plugins {
            command: PluginsCommand::Validate { dir, strict },
        } => Some(validate(
            dir.as_deref().unwrap_or(Path::new(".")),
            *strict,
            options.json,
        )),
        _ => None,
    }
}
