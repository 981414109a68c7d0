//! Real skills from public repositories (Apache-2.0 anthropics/skills, MIT obra/superpowers,
//! licences alongside in `tests/fixtures/ext/`) load with the warnings a user would want.

use agentwire::ext::{
    parse_skill_md, tools, PluginManifest, RenderContext, Scope, SkillSet, DEFAULT_CATALOG_CHARS,
};
use agentwire::registry::Registry;
use std::path::Path;

const ROOT: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fixtures/ext");

fn load(set: &mut SkillSet, repo: &str, name: &str, scope: Scope) -> Vec<String> {
    let dir = Path::new(ROOT).join(repo).join("skills").join(name);
    let text = std::fs::read_to_string(dir.join("SKILL.md")).unwrap();
    let location = format!("{repo}/skills/{name}/SKILL.md");
    let mut skill = parse_skill_md(&location, name, &text, scope).unwrap();
    let files = std::fs::read_to_string(dir.join("FILES")).unwrap();
    skill.files = files
        .lines()
        .filter(|f| *f != "SKILL.md")
        .map(str::to_owned)
        .collect();
    skill.dir = Some(dir.display().to_string());
    let warnings = skill.warnings.clone();
    assert!(set.insert(skill).is_empty(), "{name}: no collisions");
    warnings
}

#[test]
fn public_skills_load_whole_with_sensible_warnings() {
    let mut set = SkillSet::new();
    let superpowers = Scope::Plugin {
        plugin: "superpowers".into(),
        trusted: true,
    };
    let cases = [
        ("anthropics-skills", "mcp-builder", Scope::User, 0),
        ("anthropics-skills", "skill-creator", Scope::User, 1),
        ("superpowers", "brainstorming", superpowers.clone(), 0),
        (
            "superpowers",
            "systematic-debugging",
            superpowers.clone(),
            0,
        ),
        ("superpowers", "writing-skills", superpowers, 1),
    ];
    for (repo, name, scope, expected) in cases {
        let warnings = load(&mut set, repo, name, scope);
        assert_eq!(warnings.len(), expected, "{name}: {warnings:?}");
        if expected == 1 {
            assert!(warnings[0].contains("loaded whole"), "{name}: {warnings:?}");
        }
    }
    let catalog = set.catalog(DEFAULT_CATALOG_CHARS);
    assert_eq!(
        catalog.names,
        [
            "mcp-builder",
            "skill-creator",
            "superpowers:brainstorming",
            "superpowers:systematic-debugging",
            "superpowers:writing-skills"
        ]
    );
    assert!(!catalog.shortened);
    assert!(catalog
        .text
        .contains("- mcp-builder: Guide for creating high-quality MCP"));
    // Over the recommended size, the body still arrives whole.
    let creator = set.get("skill-creator").unwrap();
    assert!(creator.body.len() > 20_000);
    let body = tools::activate(&set, "skill-creator", "", &RenderContext::default()).unwrap();
    assert!(body.contains(creator.body.trim_end()));
    assert!(body.len() < tools::MAX_SKILL_CHARS);
    let spec = tools::activate_skill_spec(&catalog, &Registry::new()).unwrap();
    assert!(spec
        .description
        .contains("superpowers:brainstorming: You MUST use this"));
    // Bundled files are reachable, and only those.
    let mcp = set.get("mcp-builder").unwrap();
    assert!(
        mcp.files.iter().any(|f| f.starts_with("reference/")),
        "{:?}",
        mcp.files
    );
    let first = mcp.files[0].clone();
    assert!(tools::check_skill_file(&set, "mcp-builder", &first).is_ok());
    assert!(tools::check_skill_file(&set, "mcp-builder", "../pdf/SKILL.md").is_err());
    // The plugin's manifest loads clean; removing the plugin removes exactly its skills.
    let manifest =
        std::fs::read_to_string(Path::new(ROOT).join("superpowers/.claude-plugin/plugin.json"))
            .unwrap();
    let m = PluginManifest::parse("plugin.json", "superpowers", &manifest).unwrap();
    assert_eq!(
        (m.name.as_str(), m.version.as_deref()),
        ("superpowers", Some("6.2.0"))
    );
    assert!(m.warnings.is_empty() && m.ignored.is_empty(), "{m:?}");
    assert_eq!(set.remove_plugin("superpowers"), 3);
    let left: Vec<&str> = set.items().iter().map(|s| s.qualified.as_str()).collect();
    assert_eq!(left, ["mcp-builder", "skill-creator"]);
}
