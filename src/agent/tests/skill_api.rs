//! The agent's own skill API as hosts drive it: render context, catalog budget, tool refresh,
//! `/name` expansion and what a new conversation forgets.

use super::*;
use crate::ext::{parse_command_md, parse_skill_md, RenderContext, Scope};

const NOTES: &str =
    "---\ndescription: Take notes in the project\n---\nWrite to ${CLAUDE_PROJECT_DIR}/NOTES.md";

/// An agent whose skills are `notes` and the command `go`.
fn agent_with_skills() -> Harness {
    let mut h = Harness::default();
    let skill = parse_skill_md("notes/SKILL.md", "notes", NOTES, Scope::User).unwrap();
    let command = parse_command_md(
        "c/go.md",
        "go",
        "---\ndescription: Go\n---\nGo to $0",
        Scope::User,
    )
    .unwrap();
    h.agent.skills_mut().insert(skill);
    h.agent.skills_mut().insert(command);
    h
}

/// The results of the tool calls in the last request, `(id, content)`.
fn tool_results(h: &Harness) -> Vec<(String, String)> {
    let results = h.all_tool_results().into_iter();
    results.map(|(id, content, _)| (id, content)).collect()
}

/// `activate_skill`'s description (the catalog) as the registry holds it.
fn activate_skill_description(h: &Harness) -> String {
    let spec = h.agent.registry().get("activate_skill");
    spec.expect("activate_skill is registered")
        .description
        .clone()
}

fn activate(id: &str) -> Result<ModelResponse, String> {
    reply(None, &[(id, "activate_skill", json!({"name": "notes"}))])
}

#[test]
fn the_hosts_render_context_fills_a_skills_variables() {
    let h = agent_with_skills();
    let mut h = h.script([activate("a"), answer("done")]);
    let vars = vec![("CLAUDE_PROJECT_DIR".to_owned(), "/work/p".to_owned())];
    h.agent
        .set_skill_context(RenderContext { vars: vars.clone() });
    assert_eq!(h.agent.skill_context().vars, vars);
    h.run("take a note");
    let body = &tool_results(&h)[0].1;
    assert!(body.contains("Write to /work/p/NOTES.md"), "{body}");
}

#[test]
fn a_new_conversation_forgets_which_skills_were_loaded() {
    let h = agent_with_skills();
    let mut h = h.script([activate("a"), answer("one"), activate("b"), answer("two")]);
    h.run("first");
    assert!(tool_results(&h)[0].1.contains("NOTES.md"));
    h.agent.clear_history().unwrap();
    h.run("second");
    let results = tool_results(&h);
    assert_eq!(
        results.len(),
        1,
        "the new conversation has only its own call"
    );
    assert!(
        results[0].1.contains("NOTES.md"),
        "the body again, not 'already loaded': {}",
        results[0].1
    );
}

#[test]
fn the_skill_tools_follow_the_set_and_the_catalog_budget_when_refreshed() {
    let mut h = agent_with_skills();
    assert!(
        h.agent.registry().get("activate_skill").is_none(),
        "skill tools appear when refreshed (or a run starts), never mid-run"
    );
    h.agent.refresh_skill_tools();
    let full = activate_skill_description(&h);
    assert!(full.contains("notes: Take notes in the project"), "{full}");
    h.agent.set_skill_catalog_chars(10);
    h.agent.refresh_skill_tools();
    let cut = activate_skill_description(&h);
    assert!(!cut.contains("Take notes in the project"), "{cut}");
    assert!(cut.len() < full.len());
}

#[test]
fn a_users_slash_command_expands_and_other_text_does_not() {
    let h = agent_with_skills();
    let expansion = h.agent.expand_skill_command("/go home").unwrap().unwrap();
    assert_eq!(expansion.typed, "go");
    let text = expansion.fill(&[]);
    assert!(
        text.contains("<command name=\"go\"") && text.contains("Go to home"),
        "{text}"
    );
    assert!(h.agent.expand_skill_command("/nowhere").is_none());
    assert!(h.agent.expand_skill_command("go home").is_none());
}

#[test]
fn the_agents_debug_output_says_who_answers_for_skills_and_what_was_loaded() {
    let h = agent_with_skills();
    let mut h = h.script([activate("a"), answer("done")]);
    h.run("take a note");
    let shown = format!("{:?}", h.agent);
    assert!(
        shown.contains("SkillState { host: false, loaded: 1"),
        "{shown}"
    );
}
