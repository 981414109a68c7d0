//! Compaction as pure functions over a history: stub old tool results, build the summary
//! request, and assemble the compacted history around the model's summary.
//!
//! Why this shape keeps the prompt cache: the summary request is the request the provider just
//! saw plus one appended message, so its prefix is already cached; the system prompt and
//! `tools` never change, so they stay cached after the compaction too.

use crate::model::{ChatMessage, ModelRequest};

/// The instruction appended to the current request to get a summary. The mock model
/// recognises it by this start.
pub const SUMMARY_INSTRUCTION: &str = "Summarise the conversation so far for yourself, to \
continue it after the earlier messages are removed to fit the context window. Keep: the user's \
goals and every request, decisions and constraints, what was done (tools called, key results, \
files touched), facts needed to go on, and what remains as a task list of `- [ ]` lines. Reply \
with the summary only, no tool calls.";

/// Start of the user message that opens a compacted history.
pub const SUMMARY_HEADING: &str =
    "[Summary of the earlier conversation, compacted to fit the context window]";

/// The tool whose results carry activated skills' instructions (never stubbed, re-injected).
const SKILL_TOOL: &str = "activate_skill";

/// The text that replaces an old tool result: it names the tool and the call, so the model
/// knows the call happened and can repeat it.
pub fn stub_text(name: &str, call_id: &str, chars: usize) -> String {
    // Pushed piece by piece: a `format!` here costs the npm runtime more than the text.
    let mut text = String::from("[result of ");
    text.push_str(name);
    text.push_str(" (call ");
    text.push_str(call_id);
    text.push_str(", ");
    text.push_str(&chars.to_string());
    text.push_str(" characters) cleared to save context; call the tool again if it is needed]");
    text
}

fn is_stub(content: &str) -> bool {
    content.starts_with("[result of ") && content.ends_with("call the tool again if it is needed]")
}

/// `history` with every tool result but the newest `keep` replaced by a stub; `None` when
/// nothing would change. Skill activations and results shorter than their stub stay.
pub fn stub_tool_results(history: &[ChatMessage], keep: usize) -> Option<Vec<ChatMessage>> {
    let results = history
        .iter()
        .filter(|m| matches!(m, ChatMessage::Tool { .. }))
        .count();
    // The oldest `cut` results are candidates; a plain loop rather than a collected index list.
    let mut cut = results.saturating_sub(keep);
    let mut out = history.to_vec();
    let mut changed = false;
    for message in &mut out {
        if cut == 0 {
            break;
        }
        if let ChatMessage::Tool {
            tool_call_id,
            name,
            content,
            ..
        } = message
        {
            cut -= 1;
            if name == SKILL_TOOL || is_stub(content) {
                continue;
            }
            let stub = stub_text(name, tool_call_id, content.chars().count());
            if stub.len() < content.len() {
                *content = stub;
                changed = true;
            }
        }
    }
    changed.then_some(out)
}

/// `base` with the summarising instruction (and the user's `focus`, if any) appended.
pub fn summary_request(base: &ModelRequest, focus: Option<&str>) -> ModelRequest {
    let mut request = base.clone();
    request.messages.push(summary_message(focus));
    request
}

/// The message [`summary_request`] appends: the summarising instruction, then the user's
/// `focus`, if any.
pub fn summary_message(focus: Option<&str>) -> ChatMessage {
    let mut text = SUMMARY_INSTRUCTION.to_owned();
    if let Some(focus) = focus.map(str::trim).filter(|f| !f.is_empty()) {
        text.push_str("\n\nFocus the summary on: ");
        text.push_str(focus);
    }
    ChatMessage::User { content: text }
}

/// Where the verbatim tail starts: the latest model step of the current request (it and its
/// results stay), or the end when the latest message is the user's request.
fn tail_start(history: &[ChatMessage], latest_user: usize) -> usize {
    match history
        .iter()
        .rposition(|m| matches!(m, ChatMessage::Assistant { .. }))
    {
        Some(a) if a > latest_user => a,
        _ => history.len(),
    }
}

/// The history after a summary: one user message with the summary, the activated skills'
/// instructions and the user's latest request, then the latest step and its results verbatim.
/// `None` when the history has no user request.
pub fn compacted_history(history: &[ChatMessage], summary: &str) -> Option<Vec<ChatMessage>> {
    let latest_user = history
        .iter()
        .rposition(|m| matches!(m, ChatMessage::User { .. }))?;
    let ChatMessage::User { content: latest } = &history[latest_user] else {
        return None;
    };
    let tail = tail_start(history, latest_user);
    let mut text = String::from(SUMMARY_HEADING);
    text.push('\n');
    text.push_str(summary.trim());
    text.push('\n');
    let mut skills = false;
    for message in &history[..tail] {
        if let ChatMessage::Tool {
            name,
            content,
            is_error: false,
            ..
        } = message
        {
            if name != SKILL_TOOL {
                continue;
            }
            if !skills {
                text.push_str(
                    "\n[Skills activated earlier in this conversation, still in force]\n",
                );
                skills = true;
            }
            text.push_str(content);
            text.push('\n');
        }
    }
    text.push_str("\n[The user's latest request, verbatim]\n");
    // A request that was itself a summary opening (compacted twice) is not nested.
    let latest = match latest.find("\n[The user's latest request, verbatim]\n") {
        Some(at) if latest.starts_with(SUMMARY_HEADING) => {
            &latest[at + "\n[The user's latest request, verbatim]\n".len()..]
        }
        _ => latest.as_str(),
    };
    text.push_str(latest);
    let mut out = vec![ChatMessage::User { content: text }];
    out.extend_from_slice(&history[tail..]);
    Some(out)
}
