//! `agentwire skills …` and `agentwire plugins …`: discovery and listing; no server starts.

use super::listing::{plugins_json, print_plugins, print_skills, skills_json};
use super::session::Extensions;
use crate::cli::args::{Cli, Command, PluginsCommand, SkillsCommand};

/// Runs a `skills` or `plugins` command; `None` for any other command.
pub fn run(cli: &Cli) -> Option<i32> {
    let options = &cli.common;
    let discover =
        || Extensions::discover(&options.plugin_dirs, options.bare, options.trust_workspace);
    match cli.command.as_ref()? {
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
            let json = skills_json(&extensions);
            let found = json["skills"]
                .as_array()
                .into_iter()
                .flatten()
                .find(|s| s["qualified"] == name.as_str() || s["name"] == name.as_str());
            match found {
                Some(skill) => {
                    crate::outln!(
                        "{}",
                        serde_json::to_string_pretty(skill).unwrap_or_default()
                    );
                    Some(0)
                }
                None => {
                    eprintln!("error: no skill or command named {name:?}; `agentwire skills list` lists them");
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
            command: PluginsCommand::Validate { .. },
        } => {
            eprintln!("error: plugins validate needs the plugin manifest parser");
            Some(2)
        }
        _ => None,
    }
}
