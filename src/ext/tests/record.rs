//! A skill as JSON and back.

use crate::ext::{parse_command_md, parse_skill_md, skill_from_json, skill_json, Scope};
use serde_json::json;

const SKILL: &str = "---\nname: Pdf Tools\ndescription: Work with PDFs\nwhen_to_use: when a PDF is named\nargument-hint: [file]\narguments: [file, pages]\nallowed-tools: Read, Bash(git add:*)\ndisallowed-tools: bash\nlicense: Apache-2.0\nmetadata:\n  team: docs\nmodel: opus\nuser-invocable: false\n---\n# PDF\nRead $file, pages $pages.\n";

#[test]
fn a_parsed_skill_survives_json_in_another_scope() {
    let mut skill = parse_skill_md("/u/pdf/SKILL.md", "pdf", SKILL, Scope::User).unwrap();
    skill.files = vec!["reference.md".into()];
    skill.dir = Some("/u/pdf".into());
    let value = skill_json(&skill);
    assert_eq!(value["source"], "user");
    assert_eq!(value["bodyChars"], skill.body.chars().count());
    assert_eq!(value["ignoredFields"], json!(skill.ignored_fields));
    let back = skill_from_json(&value, Scope::User).unwrap();
    assert_eq!(back, skill);
    // The record's own `source` never decides its scope.
    let hosted = skill_from_json(&value, Scope::Host).unwrap();
    assert_eq!(hosted.scope, Scope::Host);
    let plugin = Scope::Plugin {
        plugin: "docs".into(),
        trusted: false,
    };
    let in_plugin = skill_from_json(&value, plugin.clone()).unwrap();
    assert_eq!(
        (in_plugin.name.as_str(), in_plugin.qualified.as_str()),
        ("pdf", "docs:pdf")
    );
    assert_eq!(in_plugin.scope, plugin);
}

#[test]
fn a_command_keeps_its_kind_and_nested_name() {
    let skill = parse_command_md("c.md", "frontend:component", "Make $0", Scope::User).unwrap();
    let back = skill_from_json(&skill_json(&skill), Scope::User).unwrap();
    assert_eq!(back, skill);
    assert_eq!(
        (back.name.as_str(), back.qualified.as_str()),
        ("component", "frontend:component")
    );
}

#[test]
fn a_minimal_object_loads_and_bad_fields_are_named() {
    let skill = skill_from_json(&json!({"name": "x", "body": "Do x"}), Scope::Host).unwrap();
    assert_eq!(skill.location, "js:x");
    assert!(
        !skill.model_invocable,
        "no description: not offered to the model"
    );
    assert!(skill.user_invocable);
    // A `qualified` that does not end in the record's own name is not taken.
    let odd = json!({"name": "x", "qualified": "sub:other", "body": "b"});
    assert_eq!(skill_from_json(&odd, Scope::Host).unwrap().qualified, "x");
    let nested = json!({"name": "x", "qualified": "sub:x", "body": "b"});
    assert_eq!(
        skill_from_json(&nested, Scope::Host).unwrap().qualified,
        "sub:x"
    );
    let with_desc = json!({"name": "x", "description": "X things", "body": "b"});
    assert!(
        skill_from_json(&with_desc, Scope::Host)
            .unwrap()
            .model_invocable
    );
    for (bad, field) in [
        (json!({"body": "b"}), "\"name\" is required"),
        (json!({"name": "x"}), "\"body\" is required"),
        (
            json!({"name": "a b", "body": ""}),
            "\"name\" must be one word",
        ),
        (
            json!({"name": "x", "body": "", "allowedTools": "bash"}),
            "\"allowedTools\"",
        ),
        (
            json!({"name": "x", "body": "", "userInvocable": "no"}),
            "\"userInvocable\"",
        ),
        (
            json!({"name": "x", "body": "", "kind": "agent"}),
            "\"kind\"",
        ),
        (
            json!({"name": "x", "body": "", "metadata": []}),
            "\"metadata\"",
        ),
        (json!(["x"]), "must be an object"),
    ] {
        let error = skill_from_json(&bad, Scope::Host).unwrap_err();
        assert!(error.contains(field), "{bad}: {error}");
    }
}
