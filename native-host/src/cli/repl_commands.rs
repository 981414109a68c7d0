//! The REPL's built-in slash commands as one table: input is looked up in it, `/help` is
//! generated from it, and its names are reserved so no skill or command can shadow them.

/// What a built-in command does; [`crate::cli::repl`] carries it out.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Action {
    /// Leave the session.
    Quit,
    /// Print the generated help.
    Help,
    /// List the tools.
    Tools,
    /// MCP server status.
    Mcp,
    /// Forget the conversation.
    Clear,
    /// List skills and commands.
    Skills,
    /// List plugins.
    Plugins,
    /// Discover skills, commands and plugins again.
    Reload,
    /// What the conversation takes of the context window.
    Context,
    /// Compact the conversation now (`/compact [focus]`).
    Compact,
    /// List this workspace's sessions, or continue one (`/resume [N|ID]`).
    Resume,
    /// Show the instruction files loaded.
    Memory,
}

/// One built-in command.
#[derive(Debug)]
pub struct Builtin {
    /// Its name, without the slash.
    pub name: &'static str,
    /// Other names for it.
    pub aliases: &'static [&'static str],
    /// One line for `/help`.
    pub help: &'static str,
    /// What it does.
    pub action: Action,
}

/// Every built-in command, in `/help` order.
pub const BUILTINS: &[Builtin] = &[
    Builtin {
        name: "tools",
        aliases: &[],
        help: "list the tools the agent can use",
        action: Action::Tools,
    },
    Builtin {
        name: "mcp",
        aliases: &[],
        help: "MCP servers: status, tool counts, last stderr lines of failed servers",
        action: Action::Mcp,
    },
    Builtin {
        name: "skills",
        aliases: &["commands"],
        help: "skills and commands: source, description, warnings",
        action: Action::Skills,
    },
    Builtin {
        name: "plugins",
        aliases: &["plugin"],
        help: "plugins: what each contributes, what is not supported yet",
        action: Action::Plugins,
    },
    Builtin {
        name: "reload",
        aliases: &[],
        help: "discover skills, commands and plugins again (between runs)",
        action: Action::Reload,
    },
    Builtin {
        name: "memory",
        aliases: &["instructions"],
        help: "instruction files loaded (CLAUDE.md, AGENTS.md, rules): from where, size",
        action: Action::Memory,
    },
    Builtin {
        name: "clear",
        aliases: &[],
        help: "forget the conversation so far",
        action: Action::Clear,
    },
    Builtin {
        name: "context",
        aliases: &[],
        help: "what the conversation takes of the context window, in tokens",
        action: Action::Context,
    },
    Builtin {
        name: "compact",
        aliases: &[],
        help: "summarise the conversation now to free context (/compact [focus])",
        action: Action::Compact,
    },
    Builtin {
        name: "resume",
        aliases: &[],
        help: "list this workspace's sessions; /resume N or ID continues one",
        action: Action::Resume,
    },
    Builtin {
        name: "help",
        aliases: &["?"],
        help: "this text",
        action: Action::Help,
    },
    Builtin {
        name: "quit",
        aliases: &["exit", "q"],
        help: "leave (Ctrl-D works too)",
        action: Action::Quit,
    },
];

/// Every name a built-in answers to: no skill or command may take one of them.
pub fn reserved_names() -> Vec<&'static str> {
    BUILTINS
        .iter()
        .flat_map(|b| std::iter::once(b.name).chain(b.aliases.iter().copied()))
        .collect()
}

/// What a line typed at the prompt is.
#[derive(Debug, PartialEq, Eq)]
pub enum Input<'a> {
    /// A built-in command (its arguments are ignored).
    Builtin(Action),
    /// `/name args` naming no built-in: a skill or command, or unknown.
    Slash {
        /// The name after the slash (may be qualified, `plugin:name`).
        name: &'a str,
        /// The rest of the line, trimmed.
        args: &'a str,
    },
    /// Anything else: a request for the agent.
    Prompt(&'a str),
}

/// Classifies a trimmed input line.
pub fn parse(line: &str) -> Input<'_> {
    let Some(rest) = line.strip_prefix('/') else {
        return Input::Prompt(line);
    };
    let (name, args) = match rest.split_once(char::is_whitespace) {
        Some((name, args)) => (name, args.trim()),
        None => (rest, ""),
    };
    match BUILTINS
        .iter()
        .find(|b| b.name == name || b.aliases.contains(&name))
    {
        Some(builtin) => Input::Builtin(builtin.action),
        None => Input::Slash { name, args },
    }
}

/// One user-invocable skill or command, as `/help` lists it.
#[derive(Debug, Clone)]
pub struct HelpEntry {
    /// How to type it, without the slash (the qualified name for plugin items).
    pub name: String,
    /// Its `argument-hint`, if any.
    pub hint: Option<String>,
    /// Its description's first line.
    pub description: String,
    /// Where it comes from: `user`, `project`, `plugin:<p>`.
    pub source: String,
}

/// The `/help` text: the built-ins from [`BUILTINS`], then the skills and commands given.
pub fn help_text(custom: &[HelpEntry]) -> String {
    let usage = |b: &Builtin| {
        std::iter::once(b.name)
            .chain(b.aliases.iter().copied())
            .map(|n| format!("/{n}"))
            .collect::<Vec<_>>()
            .join(" ")
    };
    let width = BUILTINS.iter().map(|b| usage(b).len()).max().unwrap_or(0);
    let mut text = String::from(
        "Type a request and press Enter; the agent keeps the conversation's history.\n",
    );
    for builtin in BUILTINS {
        text.push_str(&format!("  {:width$}  {}\n", usage(builtin), builtin.help));
    }
    if !custom.is_empty() {
        text.push_str("Skills and commands (/name arguments):\n");
    }
    for entry in custom {
        let typed = match &entry.hint {
            Some(hint) => format!("/{} {hint}", entry.name),
            None => format!("/{}", entry.name),
        };
        text.push_str(&format!(
            "  {typed}  {} [{}]\n",
            entry.description, entry.source
        ));
    }
    text.pop();
    text
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_builtin_and_alias_is_reached_by_its_name() {
        for builtin in BUILTINS {
            for name in std::iter::once(builtin.name).chain(builtin.aliases.iter().copied()) {
                assert_eq!(parse(&format!("/{name}")), Input::Builtin(builtin.action));
            }
        }
        assert_eq!(parse("/q"), Input::Builtin(Action::Quit));
        assert_eq!(parse("/plugin"), Input::Builtin(Action::Plugins));
    }

    #[test]
    fn other_slash_lines_carry_name_and_arguments() {
        assert_eq!(
            parse("/review  42 high "),
            Input::Slash {
                name: "review",
                args: "42 high"
            }
        );
        assert_eq!(
            parse("/acme:deploy"),
            Input::Slash {
                name: "acme:deploy",
                args: ""
            }
        );
        assert_eq!(parse("hello /tools"), Input::Prompt("hello /tools"));
    }

    #[test]
    fn help_is_generated_from_the_table_and_the_custom_entries() {
        let help = help_text(&[HelpEntry {
            name: "review".into(),
            hint: Some("[pr] [priority]".into()),
            description: "Review a pull request".into(),
            source: "project".into(),
        }]);
        for builtin in BUILTINS {
            assert!(help.contains(&format!("/{}", builtin.name)), "{help}");
            assert!(help.contains(builtin.help), "{help}");
        }
        assert!(help.contains("/quit /exit /q"), "{help}");
        assert!(
            help.contains("/review [pr] [priority]  Review a pull request [project]"),
            "{help}"
        );
        assert!(!help_text(&[]).contains("Skills and commands"));
    }

    #[test]
    fn reserved_names_are_the_cores_builtin_commands() {
        let mut reserved = reserved_names();
        // `?` is only an alias of /help: no item could be named that anyway.
        reserved.retain(|name| *name != "?");
        reserved.sort_unstable();
        let mut core = agentwire::ext::BUILTIN_COMMANDS.to_vec();
        core.sort_unstable();
        assert_eq!(reserved, core);
    }
}
