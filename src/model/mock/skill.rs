//! The mock model's skill intent: it activates a skill the user names ("use the mcp-builder
//! skill", "用 mcp-builder 技能") or whose description the request plainly matches, when
//! `activate_skill` is offered; after the body comes back it says what it loaded.

use crate::model::{ChatMessage, ModelRequest, ToolDefinition};

const ACTIVATE: &str = "activate_skill";

/// Offered skill names and their catalog descriptions.
fn offered(tools: &[ToolDefinition]) -> Vec<(String, String)> {
    let Some(tool) = tools.iter().find(|t| t.name == ACTIVATE) else {
        return Vec::new();
    };
    let mut out = Vec::new();
    let names = tool.input_schema["properties"]["name"]["enum"].as_array();
    for name in names.into_iter().flatten().filter_map(|n| n.as_str()) {
        let head = format!("- {name}: ");
        let description = tool
            .description
            .lines()
            .find_map(|l| l.strip_prefix(head.as_str()))
            .unwrap_or("");
        out.push((name.to_owned(), description.to_lowercase()));
    }
    out
}

fn words(text: &str) -> Vec<String> {
    let mut out: Vec<String> = text
        .split(|c: char| !c.is_alphanumeric())
        .filter(|w| w.chars().count() >= 5)
        .map(str::to_lowercase)
        .collect();
    out.sort();
    out.dedup();
    out
}

/// The skill to activate for `text`, if any: a named one first, else the best plain match of
/// at least three long words of its description (ties: first name).
pub(super) fn pick(tools: &[ToolDefinition], text: &str) -> Option<String> {
    let skills = offered(tools);
    let lower = text.to_lowercase();
    for (name, _) in &skills {
        let leaf = name.rsplit(':').next().unwrap_or(name).to_lowercase();
        let spaced = leaf.replace('-', " ");
        let named = [
            format!("{leaf} skill"),
            format!("{spaced} skill"),
            format!("/{leaf}"),
            format!("{leaf} 技能"),
            format!("{leaf}技能"),
        ];
        if named.iter().any(|n| lower.contains(n.as_str())) {
            return Some(name.clone());
        }
    }
    let asked = words(&lower);
    let mut best: Option<(usize, &String)> = None;
    for (name, description) in &skills {
        let hits = words(description)
            .iter()
            .filter(|w| asked.contains(w))
            .count();
        if hits >= 3 && best.is_none_or(|(b, _)| hits > b) {
            best = Some((hits, name));
        }
    }
    best.map(|(_, name)| name.clone())
}

/// "Loaded skill X: <first heading>" after an activation, else `None`.
pub(super) fn loaded(request: &ModelRequest) -> Option<String> {
    let Some(ChatMessage::Tool {
        name,
        content,
        is_error: false,
        ..
    }) = request.messages.last()
    else {
        return None;
    };
    if name != ACTIVATE {
        return None;
    }
    let skill = content
        .strip_prefix("<skill name=\"")
        .and_then(|rest| rest.split('"').next())
        .unwrap_or("?");
    let heading = content
        .lines()
        .find_map(|l| {
            l.strip_prefix('#')
                .map(|h| h.trim_start_matches('#').trim())
        })
        .unwrap_or("instructions received");
    Some(format!("Loaded skill {skill}: {heading}"))
}
