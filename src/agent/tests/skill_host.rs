//! The agent's skills through a host's provider ([`Agent::set_skill_host`]), as the npm runtime
//! module runs them: every answer crosses as JSON (the forms the JS layer passes between the
//! runtime and the `ext` module) and must give the bytes, grants and refusals of the agent's
//! own skills.

use super::*;
use crate::ext::{
    check_from_json, check_json, parse_command_md, parse_skill_md, Activation, Expansion,
    LocalSkills, RenderContext, Scope, SkillHost, SkillTools,
};
use std::cell::Cell;
use std::rc::Rc;

/// [`LocalSkills`] behind the JSON boundary, counting the questions asked.
struct OverJson(LocalSkills, Rc<Cell<u32>>);

impl SkillHost for OverJson {
    fn tools(&self, catalog_chars: usize) -> SkillTools {
        self.1.set(self.1.get() + 1);
        let text = self.0.tools(catalog_chars).to_json().to_string();
        SkillTools::from_json(&serde_json::from_str(&text).unwrap())
    }

    fn activate(&self, name: &str, arguments: &str) -> Result<Activation, String> {
        let text = Activation::result_json(&self.0.activate(name, arguments)).to_string();
        Activation::from_json(&serde_json::from_str(&text).unwrap())
    }

    fn check_file(&self, skill: &str, path: &str) -> Result<(), String> {
        let text = check_json(&self.0.check_file(skill, path)).to_string();
        check_from_json(&serde_json::from_str(&text).unwrap())
    }

    fn expand(&self, input: &str) -> Option<Result<Expansion, String>> {
        let text = Expansion::result_json(&self.0.expand(input)).to_string();
        Expansion::from_json(&serde_json::from_str(&text).unwrap())
    }
}

const SKILLS: [(&str, &str); 3] = [
    (
        "pdf",
        "---\ndescription: Fill PDF forms\nallowed-tools: Bash\n---\nUse $ARGUMENTS. Ünïcode.",
    ),
    (
        "notes",
        "---\ndescription: Notes ✓\nwhen_to_use: always\n---\nN",
    ),
    (
        "hidden",
        "---\ndescription: Hidden\ndisable-model-invocation: true\n---\nH",
    ),
];

fn local(trusted: bool) -> LocalSkills {
    let mut skills = LocalSkills::default();
    for (name, text) in SKILLS {
        let scope = Scope::Project { trusted };
        let mut skill = parse_skill_md(&format!("{name}/SKILL.md"), name, text, scope).unwrap();
        if name == "pdf" {
            skill.files = vec!["forms.md".into()];
        }
        skills.set.insert(skill);
    }
    skills
}

/// An agent with `bash`, its skills its own (`hosted` false) or a host's provider's.
fn agent(hosted: bool, trusted: bool, asked: &Rc<Cell<u32>>) -> Harness {
    let mut h = Harness::default();
    h.agent
        .registry_mut()
        .register_builtin(ToolSpec::builtin(
            "bash",
            "Run",
            json!({"type": "object"}),
            Risk::Execute,
        ))
        .unwrap();
    if hosted {
        let host = OverJson(local(trusted), asked.clone());
        h.agent.set_skill_host(Some(Box::new(host)));
    } else {
        *h.agent.skills_mut() = local(trusted).set;
    }
    h.tools(|inv| Ok(ToolOutput::text(format!("ran {}", inv.name))))
}

/// What two runs showed: request bytes without messages, every tool result `(id, content,
/// is_error)`, the harness log.
type Transcript = (Vec<String>, Vec<(String, String, bool)>, Vec<String>);

/// The same two runs, with the skills the agent's own or a host's.
fn transcript(hosted: bool, trusted: bool) -> Transcript {
    let asked = Rc::new(Cell::new(0));
    let h = agent(hosted, trusted, &asked);
    let mut h = h
        .script([
            reply(
                None,
                &[
                    (
                        "a",
                        "activate_skill",
                        json!({"name": "pdf", "arguments": "x.pdf"}),
                    ),
                    (
                        "f",
                        "read_skill_file",
                        json!({"skill": "pdf", "path": "../etc/passwd"}),
                    ),
                    ("h", "activate_skill", json!({"name": "hidden"})),
                ],
            ),
            reply(None, &[("b", "bash", json!({"command": "ls"}))]),
            answer("one"),
            reply(
                None,
                &[(
                    "a2",
                    "activate_skill",
                    json!({"name": "pdf", "arguments": "x.pdf"}),
                )],
            ),
            answer("two"),
        ])
        .approvals(&[Approval::No, Approval::No]);
    let log = h.run("first");
    let log2 = h.run("second");
    // The last request carries the whole conversation.
    let results = h.all_tool_results();
    let options = crate::model::openai::OpenAiOptions::default();
    let bytes = h
        .requests
        .iter()
        .map(|r| {
            let mut body = crate::model::openai::encode_request(r, &options);
            body.as_object_mut().unwrap().remove("messages");
            format!("{body}{:?}", r.system)
        })
        .collect();
    if hosted {
        assert_eq!(asked.get(), 2, "the tools are asked for once per run");
    }
    (bytes, results, [log, log2].concat())
}

#[test]
fn a_hosted_set_gives_the_same_definitions_answers_and_grants_as_the_agents_own() {
    for trusted in [true, false] {
        let own = transcript(false, trusted);
        let hosted = transcript(true, trusted);
        assert_eq!(own, hosted, "trusted: {trusted}");
        let (bytes, results, log) = own;
        assert!(bytes.windows(2).all(|w| w[0] == w[1]), "stable across runs");
        assert!(bytes[0].contains("- notes: Notes ✓ always\\n- pdf: Fill PDF forms"));
        assert!(
            !bytes[0].contains("Hidden"),
            "user-only skills are not offered"
        );
        assert!(bytes[0].contains("read_skill_file"));
        let body = &results.iter().find(|r| r.0 == "a").unwrap().1;
        assert!(
            body.contains("Use x.pdf. Ünïcode.") && body.contains("forms.md"),
            "{body}"
        );
        let file = results.iter().find(|r| r.0 == "f").unwrap();
        assert!(
            file.2 && file.1.contains("is not a file of skill pdf"),
            "{file:?}"
        );
        let hidden = results.iter().find(|r| r.0 == "h").unwrap();
        assert!(hidden.2 && hidden.1.contains("user-only"), "{hidden:?}");
        // A trusted skill's `Bash` grant lets bash run unasked in that run only; untrusted, it asks.
        assert_eq!(log.contains(&"ask b".to_owned()), !trusted, "{log:?}");
        let again = results.iter().find(|r| r.0 == "a2").unwrap();
        assert_eq!(
            again.1, "Skill pdf is already loaded above; follow it.",
            "once per conversation"
        );
    }
}

#[test]
fn a_command_expands_the_same_through_a_host() {
    let mut skills = LocalSkills::default();
    let text = "---\ndescription: d\n---\nA é !`echo $0` B !`date` C $1";
    let command = parse_command_md("c/go.md", "go", text, Scope::User).unwrap();
    skills.set.insert(command);
    let inv = skills.set.resolve("/go one two").unwrap();
    let rendered = skills.set.render(&inv, &RenderContext::default());
    let outputs = ["out1".to_owned(), "ß2".to_owned()];
    let asked = Rc::new(Cell::new(0));
    let host = OverJson(skills, asked);
    let expansion = host.expand("  /go one two").unwrap().unwrap();
    assert_eq!(expansion.typed, "go");
    assert_eq!(expansion.source, "user");
    assert_eq!(expansion.snippets, ["echo 'one'", "date"]);
    assert_eq!(expansion.fill(&outputs), rendered.clone().fill(&outputs));
    assert_eq!(
        expansion.fill(&[]),
        rendered.fill(&[]),
        "missing outputs stay empty"
    );
    assert!(host.expand("/nope").is_none());
    assert!(host.expand("plain text").is_none());
}

#[test]
fn malformed_host_answers_are_refusals_never_panics() {
    let torn = json!({"typed": "x", "parts": ["a"], "snippets": ["rm -rf /"]});
    assert!(
        Expansion::from_json(&torn).unwrap().is_err(),
        "a snippet without its place"
    );
    assert!(Expansion::from_json(&json!(null)).is_none());
    assert_eq!(
        Expansion::from_json(&json!({"error": "no"})),
        Some(Err("no".to_owned()))
    );
    assert!(
        Activation::from_json(&json!({"allowed": ["bash"]})).is_err(),
        "no body, no grant"
    );
    assert!(Activation::from_json(&json!([1])).is_err());
    assert!(
        check_from_json(&json!(null)).is_err(),
        "no answer is no access"
    );
    assert!(check_from_json(&json!("ok")).is_err());
    assert_eq!(
        check_from_json(&json!({})),
        Ok(()),
        "an empty object allows"
    );
    assert_eq!(check_from_json(&check_json(&Ok(()))), Ok(()));
    assert_eq!(SkillTools::from_json(&json!(7)), SkillTools::default());
    // An agent with no skills anywhere refuses the skill tools' calls.
    let mut h = Harness::default();
    h.agent.set_skill_host(None);
    *h.agent.skills_mut() = Default::default();
    h.agent.refresh_skill_tools();
    assert!(h.agent.registry().get("activate_skill").is_none());
    assert!(h.agent.expand_skill_command("/help").is_none());
}
