use super::*;
use crate::ext::{parse_skill_md, LocalSkills, SkillHost};
use crate::mcp::skills::parse_skill_entry;
use serde_json::json;

const ZERO: &str = "sha256:0000000000000000000000000000000000000000000000000000000000000000";

fn served(uri: &str, name: &str, extra: Value) -> ServerSkill {
    let root = uri.strip_suffix("/SKILL.md").unwrap();
    let mut frontmatter = json!({"name": name, "description": format!("About {name}")});
    for (k, v) in extra.as_object().unwrap() {
        frontmatter[k] = v.clone();
    }
    parse_skill_entry(&json!({
        "uri": uri,
        "frontmatter": frontmatter,
        "resources": [
            {"uri": uri, "digest": ZERO, "size": 1},
            {"uri": format!("{root}/notes/a.md"), "digest": ZERO, "size": 1},
        ]
    }))
    .unwrap()
}

#[test]
fn names_are_server_qualified_and_a_shared_name_keeps_its_path() {
    let skills = [
        served(
            "skill://acme/billing/refunds/SKILL.md",
            "refunds",
            json!({}),
        ),
        served(
            "skill://acme/support/refunds/SKILL.md",
            "refunds",
            json!({}),
        ),
        served("skill://pdf/SKILL.md", "pdf", json!({})),
    ];
    assert_eq!(
        qualified_names("docs", &skills),
        [
            "docs:acme/billing/refunds",
            "docs:acme/support/refunds",
            "docs:pdf"
        ]
    );
}

#[test]
fn a_server_skill_joins_the_catalog_without_shadowing_a_local_one() {
    let mut set = SkillSet::new();
    let local = parse_skill_md(
        "/home/u/.claude/skills/pdf/SKILL.md",
        "pdf",
        "---\nname: pdf\ndescription: The user's own PDF skill\n---\nbody",
        Scope::User,
    )
    .unwrap();
    set.insert(local);
    let skills = [served("skill://pdf/SKILL.md", "pdf", json!({}))];
    let (added, warnings) = add_server_skills(&mut set, "docs", &skills);
    assert_eq!((added, warnings), (vec!["docs:pdf".to_owned()], vec![]));
    // The bare name still reaches the user's skill; the server's only by its qualified name.
    assert_eq!(set.get("pdf").unwrap().scope, Scope::User);
    let server = set.get("docs:pdf").unwrap();
    assert_eq!(
        server.scope,
        Scope::Server {
            server: "docs".into()
        }
    );
    assert!(!server.user_invocable && server.model_invocable);
    assert_eq!(server.files, ["notes/a.md"]);
    let catalog = set.catalog(8_000);
    assert_eq!(catalog.names, ["docs:pdf", "pdf"]);
    assert!(
        catalog
            .text
            .contains("- docs:pdf: [MCP server docs] About pdf"),
        "{}",
        catalog.text
    );
    // Byte-stable: the same skills give the same catalog.
    let mut again = SkillSet::new();
    add_server_skills(&mut again, "docs", &skills);
    assert_eq!(again.catalog(8_000).names, ["docs:pdf"]);
    // Alone, it still answers to no bare name: `pdf` and `/pdf` reach nothing.
    assert!(again.get("pdf").is_none());
    assert!(again.resolve("/pdf").is_none());
    assert!(again.get("docs:pdf").is_some());
    assert_eq!(remove_server_skills(&mut set, "docs"), 1);
    assert!(set.get("docs:pdf").is_none() && set.get("pdf").is_some());
}

#[test]
fn a_taken_qualified_name_leaves_the_server_skill_out_with_a_warning() {
    let mut set = SkillSet::new();
    let plugin = Scope::Plugin {
        plugin: "docs".into(),
        trusted: true,
    };
    let text = "---\nname: pdf\ndescription: A plugin's PDF skill\n---\nbody";
    set.insert(parse_skill_md("/p/docs/skills/pdf/SKILL.md", "pdf", text, plugin).unwrap());
    let skills = [served("skill://pdf/SKILL.md", "pdf", json!({}))];
    let (added, warnings) = add_server_skills(&mut set, "docs", &skills);
    assert!(added.is_empty());
    assert_eq!(warnings.len(), 1);
    assert!(
        warnings[0].contains("skill://pdf/SKILL.md") && warnings[0].contains("/p/docs/skills"),
        "{warnings:?}"
    );
    assert_eq!(
        set.get("docs:pdf").unwrap().location,
        "/p/docs/skills/pdf/SKILL.md"
    );
}

#[test]
fn a_server_skill_is_activated_by_the_host_and_its_allowed_tools_grant_nothing() {
    let mut local = LocalSkills::default();
    let skills = [served(
        "skill://pdf/SKILL.md",
        "pdf",
        json!({"allowed-tools": "Bash Write"}),
    )];
    add_server_skills(&mut local.set, "docs", &skills);
    assert!(local.served_remotely("docs:pdf"));
    assert!(!local.served_remotely("pdf"));
    assert!(!local.served_remotely("docs:other"));
    // Were it activated locally, its scope would still grant nothing.
    assert!(!Scope::Server {
        server: "docs".into()
    }
    .is_trusted());
    assert_eq!(local.check_file("docs:pdf", "notes/a.md"), Ok(()));
    assert!(local.check_file("docs:pdf", "notes/b.md").is_err());
    assert!(
        local.expand("/docs:pdf").unwrap().is_err(),
        "not user-invocable"
    );
}

#[test]
fn the_fetched_frontmatter_must_be_the_entry_s() {
    let skill = served(
        "skill://pdf/SKILL.md",
        "pdf",
        json!({"license": "MIT", "metadata": {"version": "2"}}),
    );
    let good = "---\nname: pdf\ndescription: About pdf\nlicense: MIT\nmetadata:\n  version: \"2\"\n---\n# Body\n";
    assert_eq!(check_fetched(&skill, good).unwrap().trim(), "# Body");
    for (bad, culprit) in [
        (
            good.replace("About pdf", "Something else"),
            "\"description\"",
        ),
        (good.replace("license: MIT\n", ""), "\"license\" (missing"),
        (
            good.replace("license: MIT\n", "license: MIT\nallowed-tools: Bash\n"),
            "\"allowed-tools\" (not in the entry)",
        ),
        (
            good.replace("version: \"2\"", "version: \"3\""),
            "\"metadata\"",
        ),
    ] {
        let error = check_fetched(&skill, &bad).unwrap_err();
        assert!(
            error.contains(culprit) && error.contains("skill://pdf/SKILL.md"),
            "{culprit}: {error}"
        );
    }
    assert!(
        check_fetched(&skill, "---\nname: pdf\n").is_err(),
        "unclosed"
    );
}

#[test]
fn the_activation_names_its_server_and_what_was_not_granted() {
    let skill = served(
        "skill://pdf/SKILL.md",
        "pdf",
        json!({"allowed-tools": ["Bash"]}),
    );
    let text = activation_text("docs", "docs:pdf", &skill, "\n# Fill forms\n");
    assert!(text.starts_with(
        "<mcp_skill server=\"docs\" name=\"docs:pdf\" uri=\"skill://pdf/SKILL.md\">\n"
    ));
    assert!(
        text.contains("Its allowed-tools (Bash) were not granted"),
        "{text}"
    );
    assert!(text.contains("\n# Fill forms\n</mcp_skill>"), "{text}");
    assert!(text.ends_with("Bundled files (read with read_skill_file): notes/a.md"));
}

/// A held skill whose `SKILL.md` and `notes/a.md` have the digests and sizes of `md` and `note`.
fn held(md: &str, note: &str) -> HeldSkill {
    let digest = |text: &str| {
        let bytes = crate::mcp::oauth::encoding::sha256(text.as_bytes());
        let hex: String = bytes.iter().map(|b| format!("{b:02x}")).collect();
        format!("sha256:{hex}")
    };
    let skill = parse_skill_entry(&json!({
        "uri": "skill://pdf/SKILL.md",
        "frontmatter": {"name": "pdf", "description": "About pdf", "allowed-tools": "Bash"},
        "resources": [
            {"uri": "skill://pdf/SKILL.md", "digest": digest(md), "size": md.len()},
            {"uri": "skill://pdf/notes/a.md", "digest": digest(note), "size": note.len()},
        ]
    }))
    .unwrap();
    HeldSkill {
        server: "docs".into(),
        qualified: "docs:pdf".into(),
        skill,
    }
}

fn read(uri: &str, text: &str) -> Result<Value, String> {
    Ok(json!({"contents": [{"uri": uri, "text": text}]}))
}

const MD: &str = "---\nname: pdf\ndescription: About pdf\nallowed-tools: Bash\n---\n# Fill forms\n";

#[test]
fn a_held_skill_reads_skill_md_for_an_activation_and_only_listed_files_otherwise() {
    let held = held(MD, "a note\n");
    assert_eq!(held.file(None).unwrap().uri, "skill://pdf/SKILL.md");
    assert_eq!(
        held.file(Some("notes/a.md")).unwrap().uri,
        "skill://pdf/notes/a.md"
    );
    let refused = held.file(Some("../secret")).unwrap_err();
    assert_eq!(refused, "\"../secret\" is not a file of skill docs:pdf");
}

#[test]
fn a_held_skill_accepts_only_bytes_that_match_their_entry() {
    let held = held(MD, "a note\n");
    let md = held.file(None).unwrap().clone();
    let note = held.file(Some("notes/a.md")).unwrap().clone();

    let activation = held.accept(&md, read(&md.uri, MD)).unwrap();
    assert!(
        activation.starts_with(
            "<mcp_skill server=\"docs\" name=\"docs:pdf\" uri=\"skill://pdf/SKILL.md\">"
        ),
        "{activation}"
    );
    assert!(activation.contains("# Fill forms"), "{activation}");
    assert!(activation.contains("allowed-tools (Bash) were not granted"));
    assert_eq!(
        held.accept(&note, read(&note.uri, "a note\n")).unwrap(),
        "a note\n"
    );

    // Same size, other bytes: only the digest tells.
    let tampered = held.accept(&note, read(&note.uri, "a nope\n")).unwrap_err();
    assert!(
        tampered.starts_with("skill docs:pdf of MCP server docs refused: skill://pdf/notes/a.md does not match its SHA-256 digest sha256:"),
        "{tampered}"
    );
    assert!(tampered.ends_with("; nothing of it entered the context"));
    assert!(!tampered.contains("nope"), "{tampered}");
    let longer = held
        .accept(&note, read(&note.uri, "a note!\n"))
        .unwrap_err();
    assert!(
        longer.contains("is 8 bytes, but the skill's entry says 7"),
        "{longer}"
    );

    let failed = held.accept(&note, Err("the server is not connected".into()));
    assert_eq!(
        failed.unwrap_err(),
        "skill docs:pdf of MCP server docs: reading skill://pdf/notes/a.md failed: the server is not connected"
    );
    let elsewhere = held.accept(&note, read("skill://pdf/other.md", "a note\n"));
    assert!(elsewhere
        .unwrap_err()
        .contains("has no contents for skill://pdf/notes/a.md"));
}

#[test]
fn a_held_skill_md_whose_frontmatter_differs_from_the_entry_is_refused() {
    // Matching bytes, but the file's frontmatter is not the entry's (the digest was taken of it).
    let other = "---\nname: pdf\ndescription: Something else\nallowed-tools: Bash\n---\nbody\n";
    let held = held(other, "a note\n");
    let md = held.file(None).unwrap().clone();
    let refused = held.accept(&md, read(&md.uri, other)).unwrap_err();
    assert!(
        refused.starts_with("skill docs:pdf of MCP server docs refused: skill://pdf/SKILL.md: frontmatter field \"description\" differs"),
        "{refused}"
    );
}

#[test]
fn a_held_file_that_is_not_utf8_is_refused_after_its_digest_matched() {
    let bytes = [0xff_u8, 0xfe];
    let mut held = held(MD, "a note\n");
    held.skill.files[1].digest = crate::mcp::oauth::encoding::sha256(&bytes);
    held.skill.files[1].size = 2;
    let note = held.file(Some("notes/a.md")).unwrap().clone();
    let blob = json!({"contents": [{"uri": note.uri, "blob": "//4="}]});
    let refused = held.accept(&note, Ok(blob)).unwrap_err();
    assert_eq!(
        refused,
        "skill docs:pdf of MCP server docs: reading skill://pdf/notes/a.md failed: the file is not UTF-8 text"
    );
}
