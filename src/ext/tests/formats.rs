use crate::ext::args::{find_snippets, positional_lint, split_args, substitute, Substitution};
use crate::ext::frontmatter::{self, split_list};
use crate::ext::*;
use crate::test_rng::Rng;
use serde_json::json;

fn fm(text: &str) -> frontmatter::Frontmatter {
    frontmatter::parse(text).unwrap().0
}

#[test]
fn frontmatter_keeps_raw_text_where_yaml_would_read_a_list() {
    let f = fm("---\nname: x\nargument-hint: [pr-number] [priority]\nallowed-tools: [Read, \"Bash(git add:*)\"]\n---\nbody");
    assert_eq!(f.text("argument-hint").unwrap(), "[pr-number] [priority]");
    assert_eq!(f.list("allowed-tools"), ["Read", "Bash(git add:*)"]);
    let f = fm("---\nargument-hint: [x]\n---\n");
    assert_eq!(f.text("argument-hint").unwrap(), "[x]");
}

#[test]
fn frontmatter_lists_come_in_every_shape() {
    assert_eq!(
        fm("---\na: Read, Grep Glob\n---\n").list("a"),
        ["Read", "Grep", "Glob"]
    );
    assert_eq!(
        fm("---\na:\n  - Read\n  - \"Bash(git *)\"\n---\n").list("a"),
        ["Read", "Bash(git *)"]
    );
    assert_eq!(
        fm("---\na: [Read,\n  Grep]\n---\n").list("a"),
        ["Read", "Grep"]
    );
    assert_eq!(
        split_list("Bash(git add:*) Read"),
        ["Bash(git add:*)", "Read"]
    );
}

#[test]
fn frontmatter_scalars_quotes_blocks_and_comments() {
    let f = fm("\u{feff}---\r\nq: \"a \\\"b\\\" \\u00e9\"\r\ns: 'it''s'\r\nc: plain # comment\r\nn: ~\r\nb: true\r\ni: 42\r\nlit: |\r\n  one\r\n  two\r\nfold: >-\r\n  one\r\n  two\r\nmeta:\r\n  author: me\r\n  version: \"1.0\"\r\n---\r\nbody\r\n");
    assert_eq!(f.get("q").unwrap().value, json!("a \"b\" é"));
    assert_eq!(f.get("s").unwrap().value, json!("it's"));
    assert_eq!(f.get("c").unwrap().value, json!("plain"));
    assert_eq!(f.get("n").unwrap().value, json!(null));
    assert_eq!(f.get("b").unwrap().value, json!(true));
    assert_eq!(f.get("i").unwrap().value, json!(42));
    assert_eq!(f.get("lit").unwrap().value, json!("one\ntwo\n"));
    assert_eq!(f.get("fold").unwrap().value, json!("one two"));
    assert_eq!(
        f.get("meta").unwrap().value,
        json!({"author": "me", "version": "1.0"})
    );
    assert!(f.warnings.is_empty(), "{:?}", f.warnings);
}

#[test]
fn frontmatter_is_lenient_and_says_why() {
    let f = fm("---\ndescription: Use when: the user asks\nname: a\nname: b\nstray line\n---\n");
    assert_eq!(f.text("description").unwrap(), "Use when: the user asks");
    assert_eq!(f.text("name").unwrap(), "b");
    let all = f.warnings.join("\n");
    assert!(all.contains("unquoted `: `"), "{all}");
    assert!(all.contains("more than once"), "{all}");
    assert!(all.contains("line 4 ignored"), "{all}");
    // No frontmatter: all body. Unclosed: an error.
    let (f, body) = frontmatter::parse("just text\n").unwrap();
    assert!(f.fields.is_empty());
    assert_eq!(body, "just text\n");
    assert!(frontmatter::parse("---\nname: x\n")
        .unwrap_err()
        .contains("never closed"));
    assert_eq!(fm("---\nb: Yes\n---\n").flag("b"), Some(Ok(true)));
    assert_eq!(fm("---\nb: OFF\n---\n").flag("b"), Some(Ok(false)));
    assert!(fm("---\nb: maybe\n---\n").flag("b").unwrap().is_err());
}

#[test]
fn parsers_never_panic_on_random_bytes() {
    let alphabet: [&str; 36] = [
        "---",
        "\n",
        "\r\n",
        ":",
        " ",
        "  ",
        "\t",
        "-",
        "[",
        "]",
        "'",
        "\"",
        "\\",
        "|",
        ">",
        "#",
        "$",
        "0",
        "1",
        "ARGUMENTS",
        "{",
        "}",
        "!",
        "`",
        "```!",
        "name",
        "description",
        "é",
        "\u{feff}",
        "allowed-tools",
        ",",
        "(",
        ")",
        "~",
        "..",
        "/",
    ];
    let mut rng = Rng(0x5eed_1234);
    for round in 0..3000 {
        let mut text = String::new();
        if round % 2 == 0 {
            text.push_str("---\n");
        }
        for _ in 0..rng.below(60) {
            let piece: &&str = rng.pick(&alphabet);
            text.push_str(piece);
        }
        if round % 3 == 0 {
            let bytes: Vec<u8> = (0..rng.below(40)).map(|_| rng.below(256) as u8).collect();
            text.push_str(&String::from_utf8_lossy(&bytes));
        }
        let _ = parse_skill_md("x/SKILL.md", "x", &text, Scope::User);
        if let Ok(skill) = parse_command_md("c.md", "c", &text, Scope::User) {
            let mut set = SkillSet::new();
            set.insert(skill);
            let inv = set.resolve(&format!("/c {text}")).unwrap();
            let r = set.render(&inv, &RenderContext::default());
            let n = r.snippets.len();
            let _ = r.fill(&vec!["out".to_owned(); n]);
            let _ = tools::activate(&set, "c", &text, &RenderContext::default());
        }
        let _ = PluginManifest::parse("p.json", "p", &text);
        let _ = parse_plugin_servers("m.json", &text, "p", &|_| None);
        let _ = substitute(
            &text,
            &Substitution {
                raw: &text,
                ..Default::default()
            },
            true,
        );
    }
}

#[test]
fn substitution_follows_current_claude_code() {
    let names = vec!["issue".to_owned(), "level".to_owned()];
    let vars = vec![("CLAUDE_SKILL_DIR".to_owned(), "/s".to_owned())];
    let sub = Substitution {
        raw: "42 \"very high\" $1",
        names: &names,
        vars: &vars,
    };
    let run = |t: &str| substitute(t, &sub, false).0;
    assert_eq!(run("$ARGUMENTS"), "42 \"very high\" $1");
    assert_eq!(
        run("$0|$1|$ARGUMENTS[1]|$5|$ARGUMENTS[7]"),
        "42|very high|very high|$5|$ARGUMENTS[7]"
    );
    assert_eq!(run("$2"), "$1", "an inserted value is not scanned again");
    assert_eq!(run("$issue/$level/$other"), "42/very high/$other");
    assert_eq!(run("\\$0 and \\n"), "$0 and \\n");
    assert_eq!(run("${CLAUDE_SKILL_DIR}/x ${UNKNOWN}"), "/s/x ${UNKNOWN}");
    assert_eq!(run("US$ 5"), "US$ 5");
    assert!(!substitute("no placeholders", &sub, false).1);
    assert!(substitute("$0", &sub, false).1);
    // Inside a snippet, values are single-quoted for the shell.
    let evil = Substitution {
        raw: "'; rm -rf / #",
        ..Default::default()
    };
    assert_eq!(
        substitute("echo $ARGUMENTS", &evil, true).0,
        "echo ''\\''; rm -rf / #'"
    );
    assert_eq!(split_args("a 'b c' \"d"), ["a", "b c", "d"]);
    assert!(positional_lint("use $1 and $2")
        .unwrap()
        .contains("$0 is the first"));
    assert!(positional_lint("use $0 and $1").is_none());
    assert!(positional_lint("costs $10").is_none(), "$10 is not $1");
    assert!(positional_lint("$ARGUMENTS").is_none());
}

#[test]
fn snippets_are_inline_at_word_start_or_fenced() {
    let t = "Status: !`git status`\nKEY=!`no`\n!`git diff`\n```!\nls -l\n```\nend";
    let s = find_snippets(t);
    let cmds: Vec<&str> = s.iter().map(|s| s.command.as_str()).collect();
    assert_eq!(cmds, ["git status", "git diff", "ls -l"]);
    assert_eq!(&t[s[0].start..s[0].end], "!`git status`");
}

#[test]
fn skills_load_with_claude_fields_and_warnings() {
    let text = "---\nname: Review_PR\ndescription: Reviews a PR\nargument-hint: [pr]\narguments: [pr, level]\nallowed-tools: Read Grep\nmodel: opus\ncontext: fork\nfoo: bar\ndisable-model-invocation: yes\nuser-invocable: false\n---\nReview $pr at $level.\n";
    let s = parse_skill_md(
        "/u/.claude/skills/review/SKILL.md",
        "review",
        text,
        Scope::User,
    )
    .unwrap();
    assert_eq!(s.name, "review");
    assert_eq!(s.display_name.as_deref(), Some("Review_PR"));
    assert_eq!(s.argument_hint.as_deref(), Some("[pr]"));
    assert_eq!(s.arguments, ["pr", "level"]);
    assert_eq!(s.allowed_tools, ["Read", "Grep"]);
    assert_eq!(s.ignored_fields, ["model", "context"]);
    assert!(!s.model_invocable && !s.user_invocable);
    let all = s.warnings.join("\n");
    for needle in [
        "differs from the directory",
        "unknown field `foo`",
        "not supported yet",
        "lowercase",
    ] {
        assert!(all.contains(needle), "{needle}: {all}");
    }
    // No description: derived, with a warning; a command needs an explicit one for the model.
    let s = parse_skill_md(
        "a/SKILL.md",
        "a",
        "# Title\n\nFirst para\nstill.\n\nSecond.",
        Scope::User,
    )
    .unwrap();
    assert_eq!(s.description, "First para still.");
    assert!(s.model_invocable);
    let c = parse_command_md("c.md", "sub:c", "Do the thing\nnow", Scope::User).unwrap();
    assert_eq!((c.name.as_str(), c.qualified.as_str()), ("c", "sub:c"));
    assert_eq!(c.description, "Do the thing");
    assert!(!c.model_invocable && c.user_invocable);
    let err = parse_skill_md("e/SKILL.md", "e", "---\nname: e\n---\n", Scope::User).unwrap_err();
    assert!(err.to_string().starts_with("e/SKILL.md: "), "{err}");
    let big = format!("---\ndescription: big\n---\n{}", "x".repeat(60_000));
    let s = parse_skill_md("b/SKILL.md", "b", &big, Scope::User).unwrap();
    assert_eq!(s.body.len(), 60_000, "loaded whole");
    assert!(s.warnings.iter().any(|w| w.contains("loaded whole")));
}

#[test]
fn plugin_manifest_fields_paths_and_ignored_parts() {
    let m = PluginManifest::parse(
        "plugin.json",
        "dir",
        r#"{"name": "Commit Commands", "version": "1.0.0", "author": {"name": "x"},
            "skills": "./extra", "commands": ["./c/a.md"], "hooks": {"SessionStart": []},
            "agents": ["./agents/a.md"], "allow": ["*"]}"#,
    )
    .unwrap();
    assert_eq!(m.name, "commit-commands");
    assert_eq!(m.skills, ["./extra"]);
    assert_eq!(m.commands.as_deref(), Some(&["./c/a.md".to_owned()][..]));
    assert_eq!(m.ignored.len(), 2, "{:?}", m.ignored);
    assert!(
        m.warnings.iter().any(|w| w.contains("\"allow\" ignored")),
        "{:?}",
        m.warnings
    );
    let err = PluginManifest::parse("p.json", "d", r#"{"skills": "../../etc"}"#).unwrap_err();
    assert!(
        err.to_string().contains("skills") && err.to_string().contains("inside"),
        "{err}"
    );
    let err = PluginManifest::parse("p.json", "d", r#"{"name": 7}"#).unwrap_err();
    assert!(err.to_string().contains("name: expected string"), "{err}");
    assert_eq!(
        PluginManifest::parse("p.json", "My_Dir", "{}")
            .unwrap()
            .name,
        "my-dir"
    );
    assert!(PluginManifest::from_dir_name("???").is_none());
}

#[test]
fn plugin_servers_in_both_shapes_fail_alone_and_never_sample() {
    let lookup = |v: &str| (v == "CLAUDE_PLUGIN_ROOT").then(|| "/p".to_owned());
    let flat = r#"{"fast": {"command": "${CLAUDE_PLUGIN_ROOT}/fast", "sampling": true},
                   "broken": {"command": "${UNSET_VAR}"},
                   "cfg": {"command": "x", "args": ["${user_config.token}"]}}"#;
    let (servers, errors, _) = parse_plugin_servers(".mcp.json", flat, "evil", &lookup);
    assert_eq!(servers.len(), 1);
    assert_eq!(servers[0].name, "plugin_evil_fast");
    assert!(!servers[0].sampling);
    assert_eq!(errors.len(), 2);
    assert!(
        errors.iter().any(|e| e.to_string().contains("UNSET_VAR")),
        "{errors:?}"
    );
    assert!(
        errors.iter().any(|e| e.to_string().contains("userConfig")),
        "{errors:?}"
    );
    let wrapped = r#"{"$schema": "x", "mcpServers": {"s": {"command": "y"}}}"#;
    let (servers, errors, _) = parse_plugin_servers(".mcp.json", wrapped, "evil", &lookup);
    assert_eq!((servers.len(), errors.len()), (1, 0));
    assert_eq!(servers[0].name, "plugin_evil_s");
}
