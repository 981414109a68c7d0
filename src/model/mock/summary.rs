//! The mock model's summaries: when asked to summarise for a compaction, it lists the user's
//! requests and the tools called, and ends with a task list, so the offline demo shows
//! compaction without a key.

use crate::context::compact::{SUMMARY_HEADING, SUMMARY_INSTRUCTION};
use crate::model::{ChatMessage, ModelRequest};

/// The summary, when the request ends with the summarising instruction.
pub(super) fn summarise(request: &ModelRequest) -> Option<String> {
    let (last, earlier) = request.messages.split_last()?;
    match last {
        ChatMessage::User { content } if content.starts_with(SUMMARY_INSTRUCTION) => {}
        _ => return None,
    }
    let mut requests = Vec::new();
    let mut tools: Vec<(String, usize)> = Vec::new();
    for message in earlier {
        match message {
            ChatMessage::User { content } => {
                // A previous summary's own lines are carried over, not nested.
                let text = match content.strip_prefix(SUMMARY_HEADING) {
                    Some(rest) => rest.lines().find(|l| l.starts_with("- [ ]")).unwrap_or(""),
                    None => content.lines().next().unwrap_or(""),
                };
                if !text.is_empty() {
                    requests.push(crate::model::clip(text, 80));
                }
            }
            ChatMessage::Assistant { tool_calls, .. } => {
                for call in tool_calls {
                    match tools.iter_mut().find(|(name, _)| *name == call.name) {
                        Some((_, n)) => *n += 1,
                        None => tools.push((call.name.clone(), 1)),
                    }
                }
            }
            ChatMessage::Tool { .. } => {}
        }
    }
    let mut out = String::from("Requests so far:\n");
    for request in &requests {
        out.push_str(&format!("- {request}\n"));
    }
    if !tools.is_empty() {
        let calls: Vec<String> = tools.iter().map(|(n, k)| format!("{n} ×{k}")).collect();
        out.push_str(&format!("Tools called: {}\n", calls.join(", ")));
    }
    if let Some(latest) = requests.last() {
        out.push_str(&format!("- [ ] finish: {latest}\n"));
    }
    Some(out)
}
