//! Subagents' transcripts beside their session's: session `ID`'s children are
//! `<store>/ID.agents/N.jsonl` (N counts from 1 in the order they ended), each the session
//! format (a header, then entries), redacted as the session is. The first entry is a notice
//! saying which agent ran for which call of the parent; the parent's tool result names the
//! file.

use super::{check_id, SessionStore};
use crate::os::append_file;
use agentwire::subagent::ChildTranscript;
use agentwire::transcript::{parse_jsonl, Entry, Parsed, Transcript};
use std::path::{Path, PathBuf};

/// Most child files one session keeps (a runaway loop of children stops being recorded).
const MAX_CHILDREN: usize = 10_000;

/// One child transcript of a session, as `sessions show` reads it.
#[derive(Debug)]
pub struct ChildFile {
    /// The file.
    pub path: PathBuf,
    /// Its entries (the first is the notice naming the agent and the parent's call).
    pub parsed: Parsed,
}

/// The notice a child's file starts with.
fn heading(child: &ChildTranscript) -> String {
    let outcome = match &child.outcome {
        Some(Ok(_)) => "answered".to_owned(),
        Some(Err(why)) => format!("stopped: {why}"),
        None => "did not finish".to_owned(),
    };
    let tokens = child.usage.map_or_else(String::new, |u| {
        format!(
            ", {} input / {} output tokens",
            u.input_tokens, u.output_tokens
        )
    });
    format!(
        "agent {} for call {} (depth {}): {} step(s){tokens}, {outcome}",
        child.agent, child.parent_tool_use_id, child.depth, child.steps
    )
}

impl SessionStore {
    /// The folder of session `id`'s child transcripts.
    pub fn children_dir(&self, id: &str) -> Result<PathBuf, String> {
        check_id(id)?;
        Ok(self.dir.join(format!("{id}.agents")))
    }

    /// Writes `child`'s transcript beside session `id`'s, redacted, in a new file; its path.
    pub fn save_child(&self, id: &str, child: &ChildTranscript) -> Result<PathBuf, String> {
        let dir = self.children_dir(id)?;
        append_file::private_dir(&dir)?;
        let mut transcript = Transcript::new(id);
        transcript.append(Entry::Notice {
            text: heading(child),
        });
        for message in &child.history {
            transcript.append(Entry::from_message(message, None).redacted());
        }
        // Redacted as the session's own entries are (one core function for every home).
        let text = agentwire::transcript::hide_secrets(&transcript.to_jsonl(), &self.secrets);
        let start = count_children(&dir) + 1;
        for n in start..start + MAX_CHILDREN {
            let path = dir.join(format!("{n}.jsonl"));
            match append_file::create_new(&path) {
                Ok(mut file) => {
                    append_file::append_line(&mut file, &text)
                        .map_err(|e| format!("cannot write {}: {e}", path.display()))?;
                    return Ok(path);
                }
                // Taken (another process of this session): the next number.
                Err(_) if path.exists() => continue,
                Err(e) => return Err(e),
            }
        }
        Err(format!(
            "{}: more than {MAX_CHILDREN} child transcripts",
            dir.display()
        ))
    }

    /// Session `id`'s child transcripts, in the order they were written. A file that does not
    /// load is an error naming `file:line`.
    pub fn load_children(&self, id: &str) -> Result<Vec<ChildFile>, String> {
        let dir = self.children_dir(id)?;
        let mut numbered = Vec::new();
        let entries = match std::fs::read_dir(&dir) {
            Ok(entries) => entries,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(Vec::new()),
            Err(e) => return Err(format!("cannot list {}: {e}", dir.display())),
        };
        for entry in entries.flatten() {
            let path = entry.path();
            if let Some(n) = child_number(&path) {
                numbered.push((n, path));
            }
        }
        numbered.sort();
        let mut out = Vec::new();
        for (_, path) in numbered {
            let Some(text) = append_file::read(&path)? else {
                continue;
            };
            let parsed = parse_jsonl(&text)
                .map_err(|e| format!("{}:{}: {}", path.display(), e.line, e.message))?;
            out.push(ChildFile { path, parsed });
        }
        Ok(out)
    }
}

/// `N` of a child file `N.jsonl` (a regular file, not a link).
fn child_number(path: &Path) -> Option<u64> {
    let stem = path.file_name()?.to_str()?.strip_suffix(".jsonl")?;
    let n = stem.parse().ok()?;
    std::fs::symlink_metadata(path)
        .ok()
        .filter(|m| m.is_file())
        .map(|_| n)
}

fn count_children(dir: &Path) -> usize {
    std::fs::read_dir(dir).map_or(0, |entries| {
        entries
            .flatten()
            .filter(|e| child_number(&e.path()).is_some())
            .count()
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use agentwire::model::{ChatMessage, Usage};

    fn child(index: usize, answer: &str) -> ChildTranscript {
        ChildTranscript {
            index,
            agent: "reviewer".into(),
            parent_tool_use_id: format!("call_{index}"),
            depth: 1,
            history: vec![
                ChatMessage::User {
                    content: "review it; the token is sk-live-0123456789abcdef".into(),
                },
                ChatMessage::Assistant {
                    content: Some(answer.into()),
                    tool_calls: Vec::new(),
                },
            ],
            usage: Some(Usage {
                input_tokens: 10,
                output_tokens: 2,
                ..Usage::default()
            }),
            steps: 1,
            outcome: Some(Ok(answer.into())),
        }
    }

    #[test]
    fn children_are_kept_beside_the_session_redacted_and_read_back_in_order() {
        let state = tempfile::tempdir().unwrap();
        let root = tempfile::tempdir().unwrap();
        let store = SessionStore::new(state.path(), root.path(), vec!["hunter2-hunter2".into()]);
        let session = store.create().unwrap();
        let first = store.save_child(&session.id, &child(0, "fine")).unwrap();
        let second = store
            .save_child(&session.id, &child(1, "hunter2-hunter2 leaked"))
            .unwrap();
        assert_eq!(first.parent(), second.parent());
        assert_eq!(
            first.parent().unwrap(),
            store.dir().join(format!("{}.agents", session.id))
        );
        assert_eq!(first.file_name().unwrap(), "1.jsonl");
        assert_eq!(second.file_name().unwrap(), "2.jsonl");
        use std::os::unix::fs::PermissionsExt;
        let mode = std::fs::metadata(&second).unwrap().permissions().mode();
        assert_eq!(mode & 0o777, 0o600, "owner-only");
        let raw = std::fs::read_to_string(&second).unwrap();
        assert!(!raw.contains("hunter2-hunter2"), "{raw}");
        assert!(!raw.contains("sk-live-0123456789abcdef"), "{raw}");
        let loaded = store.load_children(&session.id).unwrap();
        assert_eq!(loaded.len(), 2);
        let entries = loaded[0].parsed.transcript.entries();
        assert_eq!(
            entries[0],
            Entry::Notice {
                text: "agent reviewer for call call_0 (depth 1): 1 step(s), 10 input / 2 \
                       output tokens, answered"
                    .into()
            }
        );
        assert!(matches!(&entries[2], Entry::Assistant { content: Some(c), .. } if c == "fine"));
        // The session itself is untouched and lists alone.
        let listed = store.list().unwrap();
        assert_eq!(listed.len(), 1);
        assert!(store.load(&session.id).is_ok());
        assert!(
            store.load_children("../x").is_err(),
            "ids stay in the store"
        );
    }

    #[test]
    fn a_session_keeps_at_most_max_children_and_then_says_so() {
        let state = tempfile::tempdir().unwrap();
        let root = tempfile::tempdir().unwrap();
        let store = SessionStore::new(state.path(), root.path(), Vec::new());
        let session = store.create().unwrap();
        let first = store.save_child(&session.id, &child(0, "fine")).unwrap();
        assert_eq!(first.file_name().unwrap(), "1.jsonl");
        // Every number the next MAX_CHILDREN tries is taken (by folders, which are not counted
        // as children): the child is refused, never written past the cap.
        let dir = store.children_dir(&session.id).unwrap();
        for n in 2..2 + MAX_CHILDREN {
            std::fs::create_dir(dir.join(format!("{n}.jsonl"))).unwrap();
        }
        let refused = store
            .save_child(&session.id, &child(1, "more"))
            .unwrap_err();
        assert!(
            refused.contains(&format!("more than {MAX_CHILDREN} child transcripts")),
            "{refused}"
        );
        assert!(!dir.join(format!("{}.jsonl", 2 + MAX_CHILDREN)).exists());
        // One free number within reach is taken.
        std::fs::remove_dir(dir.join(format!("{}.jsonl", 1 + MAX_CHILDREN))).unwrap();
        let last = store.save_child(&session.id, &child(1, "more")).unwrap();
        assert_eq!(
            last.file_name().unwrap().to_str().unwrap(),
            format!("{}.jsonl", 1 + MAX_CHILDREN)
        );
    }

    #[test]
    fn a_link_planted_where_the_next_child_goes_is_an_error_and_never_written_through() {
        let state = tempfile::tempdir().unwrap();
        let root = tempfile::tempdir().unwrap();
        let store = SessionStore::new(state.path(), root.path(), Vec::new());
        let session = store.create().unwrap();
        store.save_child(&session.id, &child(0, "fine")).unwrap();
        let dir = store.children_dir(&session.id).unwrap();
        let target = root.path().join("planted");
        std::os::unix::fs::symlink(&target, dir.join("2.jsonl")).unwrap();
        let refused = store
            .save_child(&session.id, &child(1, "more"))
            .unwrap_err();
        assert!(refused.contains("2.jsonl"), "{refused}");
        assert!(!target.exists(), "nothing was written through the link");
        assert!(!dir.join("3.jsonl").exists(), "nor around it");
    }
}
