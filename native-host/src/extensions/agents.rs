//! Agent definitions on disk, where Claude Code and Codex keep them: `~/.claude/agents/*.md`
//! and `~/.codex/agents/*.toml` (the user's), the same under each project directory (only in a
//! trusted workspace), and each loaded plugin's `agents/*.md` (named `plugin:name`). Every
//! file is read through a [`Bound`] (confined, regular, bounded); parsing and precedence are
//! the core's (`agentwire::subagent`).

use super::discover::{entries_dropped, first_by_name, Places, MAX_ENTRIES};
use super::plugin_dir::PluginFolder;
use super::read::Bound;
use super::session::Extensions;
use agentwire::subagent::{parse_codex_toml, parse_markdown, AgentDefinition, AgentSet};
use std::path::{Path, PathBuf};

/// The session's agents and what reading them said.
#[derive(Debug, Default)]
pub struct AgentFiles {
    /// Every agent, the built-in one included, precedence resolved.
    pub set: AgentSet,
    /// Where each agent came from (`built-in` for the built-in one), by name.
    pub paths: Vec<(String, String)>,
    /// Files that could not be read or parsed, each naming the file.
    pub errors: Vec<String>,
    /// What was not loaded and why (an untrusted workspace, a folder past its bound).
    pub notes: Vec<String>,
}

/// One folder of agent files and how to read it.
struct Folder {
    dir: PathBuf,
    /// `user`, `project` or `plugin:<p>`.
    source: String,
    /// The qualifier of a plugin's agents (`<p>:`).
    prefix: String,
    /// Where its files must resolve; `None`: the folder itself (the user's own, possibly a
    /// link the user made).
    bound: Option<Bound>,
}

/// Finds and reads every agent of `extensions` (its places and loaded plugins).
pub fn agent_files(extensions: &Extensions) -> AgentFiles {
    read_agents(&extensions.places, &extensions.plugins)
}

/// Finds and reads every agent of `places` and `plugins`.
pub fn read_agents(places: &Places, plugins: &[PluginFolder]) -> AgentFiles {
    let mut files = AgentFiles {
        set: AgentSet::with_builtin(),
        paths: vec![("general-purpose".into(), "built-in".into())],
        ..AgentFiles::default()
    };
    let mut folders = Vec::new();
    if !places.bare {
        if let Some(home) = &places.home {
            for sub in [".claude/agents", ".codex/agents"] {
                folders.push(Folder {
                    dir: home.join(sub),
                    source: "user".into(),
                    prefix: String::new(),
                    bound: None,
                });
            }
        }
        let project = places
            .project
            .last()
            .and_then(|root| Bound::new(root, "the project").ok());
        for dir in &places.project {
            for sub in [".claude/agents", ".codex/agents"] {
                let dir = dir.join(sub);
                if !places.trusted {
                    if dir.is_dir() {
                        files.notes.push(format!(
                            "project agents in {} not loaded: the workspace is not trusted \
                             (agentwire trust, or --trust-workspace)",
                            dir.display()
                        ));
                    }
                    continue;
                }
                if let Some(bound) = &project {
                    folders.push(Folder {
                        dir,
                        source: "project".into(),
                        prefix: String::new(),
                        bound: Some(bound.clone()),
                    });
                }
            }
        }
    }
    for plugin in plugins {
        let bound = Bound::new(&plugin.root, "the plugin's folder").ok();
        folders.push(Folder {
            dir: plugin.root.join("agents"),
            source: format!("plugin:{}", plugin.name),
            prefix: format!("{}:", plugin.name),
            bound,
        });
    }
    for folder in folders {
        read_folder(&folder, &mut files);
    }
    files.notes.extend(files.set.notes().iter().cloned());
    files
}

/// Reads the `*.md` and `*.toml` files directly in `folder`, sorted by name.
fn read_folder(folder: &Folder, files: &mut AgentFiles) {
    if std::fs::symlink_metadata(&folder.dir).is_err() {
        return;
    }
    let bound = match &folder.bound {
        Some(bound) => match bound.resolve(&folder.dir) {
            Ok(_) => bound.clone(),
            Err(error) => {
                files.errors.push(error);
                return;
            }
        },
        None => match Bound::new(&folder.dir, "the agents folder") {
            Ok(bound) => bound,
            Err(error) => {
                files.errors.push(error);
                return;
            }
        },
    };
    let Some((entries, total)) = first_by_name(&folder.dir, MAX_ENTRIES) else {
        return;
    };
    files.notes.extend(entries_dropped(&folder.dir, total));
    for path in entries {
        let ext = path.extension().and_then(|e| e.to_str()).unwrap_or("");
        if ext != "md" && ext != "toml" {
            continue;
        }
        match read_one(&path, ext, folder, &bound) {
            Ok(def) => {
                files
                    .paths
                    .push((def.name.clone(), path.display().to_string()));
                files.set.insert(def);
            }
            Err(error) => files.errors.push(format!("{}: {error}", path.display())),
        }
    }
}

fn read_one(
    path: &Path,
    ext: &str,
    folder: &Folder,
    bound: &Bound,
) -> Result<AgentDefinition, String> {
    let read = bound.read(path)?;
    let stem = path
        .file_stem()
        .map(|s| s.to_string_lossy().into_owned())
        .unwrap_or_default();
    let mut def = if ext == "toml" {
        parse_codex_toml(&read.text, &stem, &folder.source)?
    } else {
        parse_markdown(&read.text, &stem, &folder.source)?
    };
    if !folder.prefix.is_empty() {
        // A plugin's agents are its own: `plugin:name`, never a bare name.
        let bare = def.name.rsplit(':').next().unwrap_or(&def.name).to_owned();
        def.name = format!("{}{bare}", folder.prefix);
    }
    def.warnings.extend(read.warnings);
    Ok(def)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn write(path: &Path, text: &str) {
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, text).unwrap();
    }

    const REVIEWER: &str =
        "---\nname: reviewer\ndescription: Reviews code.\ntools: Read, Grep\n---\nReview.\n";

    #[test]
    fn user_project_and_codex_agents_are_read_with_user_precedence() {
        let home = tempfile::tempdir().unwrap();
        let project = tempfile::tempdir().unwrap();
        write(&home.path().join(".claude/agents/reviewer.md"), REVIEWER);
        write(
            &home.path().join(".codex/agents/explorer.toml"),
            "name = \"explorer\"\ndescription = \"Explores.\"\ndeveloper_instructions = \"Look.\"\n",
        );
        write(
            &project.path().join(".claude/agents/reviewer.md"),
            "---\nname: reviewer\ndescription: The project's.\n---\n",
        );
        write(
            &project.path().join(".claude/agents/tester.md"),
            "---\ndescription: Tests.\n---\nTest.",
        );
        write(
            &project.path().join(".claude/agents/broken.md"),
            "---\nname: x\n",
        );
        write(&project.path().join(".claude/agents/notes.txt"), "ignored");
        let places = Places {
            home: Some(home.path().to_path_buf()),
            project: vec![project.path().to_path_buf()],
            trusted: true,
            ..Places::default()
        };
        let files = read_agents(&places, &[]);
        let names: Vec<&str> = files.set.sorted().iter().map(|d| d.name.as_str()).collect();
        assert_eq!(names, ["explorer", "general-purpose", "reviewer", "tester"]);
        assert_eq!(files.set.get("reviewer").unwrap().source, "user");
        assert_eq!(files.set.get("explorer").unwrap().instructions, "Look.");
        assert_eq!(files.errors.len(), 1, "{:?}", files.errors);
        assert!(files.errors[0].contains("broken.md"), "{:?}", files.errors);
        assert!(files
            .notes
            .iter()
            .any(|n| n.contains("user takes precedence over project")));
    }

    #[test]
    fn project_agents_wait_for_trust() {
        let project = tempfile::tempdir().unwrap();
        write(
            &project.path().join(".claude/agents/tester.md"),
            "---\ndescription: T.\n---\n",
        );
        let places = Places {
            project: vec![project.path().to_path_buf()],
            trusted: false,
            ..Places::default()
        };
        let files = read_agents(&places, &[]);
        assert!(files.set.get("tester").is_none());
        assert!(files.notes[0].contains("not trusted"), "{:?}", files.notes);
    }

    #[test]
    fn a_project_agent_linking_out_of_the_project_is_refused_unread() {
        let project = tempfile::tempdir().unwrap();
        let outside = tempfile::tempdir().unwrap();
        write(&outside.path().join("secret.md"), REVIEWER);
        std::fs::create_dir_all(project.path().join(".claude/agents")).unwrap();
        std::os::unix::fs::symlink(
            outside.path().join("secret.md"),
            project.path().join(".claude/agents/linked.md"),
        )
        .unwrap();
        let fifo = project.path().join(".claude/agents/pipe.md");
        nix::unistd::mkfifo(&fifo, nix::sys::stat::Mode::S_IRWXU).unwrap();
        let places = Places {
            project: vec![project.path().to_path_buf()],
            trusted: true,
            ..Places::default()
        };
        let files = read_agents(&places, &[]);
        assert!(files.set.get("reviewer").is_none());
        assert_eq!(files.errors.len(), 2, "{:?}", files.errors);
        assert!(files
            .errors
            .iter()
            .any(|e| e.contains("leads outside the project")));
        assert!(files.errors.iter().any(|e| e.contains("pipe.md")));
    }
}

#[cfg(test)]
mod plugin_tests {
    use super::*;
    use crate::extensions::discover::Scope;
    use crate::extensions::plugin_dir::read_plugin;

    #[test]
    fn a_plugins_agents_are_named_after_the_plugin() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().join("superpowers");
        let write = |path: &Path, text: &str| {
            std::fs::create_dir_all(path.parent().unwrap()).unwrap();
            std::fs::write(path, text).unwrap();
        };
        write(
            &root.join(".claude-plugin/plugin.json"),
            r#"{"name": "superpowers"}"#,
        );
        write(
            &root.join("agents/code-reviewer.md"),
            "---\nname: code-reviewer\ndescription: Reviews a finished step.\nmodel: inherit\n---\nReview it.\n",
        );
        let plugin = read_plugin(&root, Scope::User, &|_| None).unwrap();
        assert!(plugin.ignored.is_empty(), "{:?}", plugin.ignored);
        let files = read_agents(&Places::default(), &[plugin]);
        let def = files
            .set
            .get("superpowers:code-reviewer")
            .expect("qualified");
        assert_eq!(def.source, "plugin:superpowers");
        assert_eq!(def.instructions, "Review it.");
        assert!(
            files.set.get("code-reviewer").is_none(),
            "never a bare name"
        );
    }
}
