//! A run's or REPL's session: which one (new, `--continue`, `--resume ID`, none), loading it
//! into the agent, and the sink that appends every entry to its file.

use crate::app::sessions::{environment_secrets, SessionFile, SessionStore};
use crate::app::App;
use crate::config::settings::Settings;
use crate::os::clock::TokioClock;
use agentwire::context::{window_for_model, ContextConfig};
use agentwire::driver::Runtime;
use agentwire::model::ChatMessage;
use agentwire::transcript::{close_dangling_calls, Entry};
use std::cell::{Cell, RefCell};
use std::path::PathBuf;
use std::rc::Rc;

/// The result given to calls a crash left without one, when the session is continued.
pub const NOT_FINISHED: &str =
    "not run: the session ended before this call finished (agentwire was stopped)";

/// The agent's context settings from the options: `--context-window` or the model's entry in
/// the table, `--compact-at`, `--no-compact`.
pub fn context_config(settings: &Settings, model: Option<&str>) -> ContextConfig {
    let mut config = ContextConfig {
        window: settings
            .context_window
            .or_else(|| model.and_then(window_for_model)),
        auto_compact: !settings.session.no_compact,
        ..ContextConfig::default()
    };
    if let Some(pct) = settings.session.compact_at {
        config.compact_at_pct = pct;
    }
    config
}

/// The workspace whose sessions these are.
fn workspace(settings: &Settings) -> PathBuf {
    settings
        .workspace
        .clone()
        .or_else(|| std::env::current_dir().ok())
        .unwrap_or_else(|| PathBuf::from("."))
}

/// The sessions of the settings' workspace; `None` without a state directory.
pub fn store(settings: &Settings) -> Option<SessionStore> {
    let state = crate::os::private_file::state_dir()?;
    Some(SessionStore::new(
        &state,
        &workspace(settings),
        environment_secrets(&[]),
    ))
}

/// A session picked for a run, not yet attached to a runtime.
pub struct OpenSession {
    store: SessionStore,
    /// Its id.
    pub id: String,
    /// Whether it continues an earlier one.
    pub resumed: bool,
    file: Rc<RefCell<SessionFile>>,
    history: Vec<ChatMessage>,
    /// Warnings while loading (a torn last line).
    pub warnings: Vec<String>,
}

/// Picks the session the settings ask for: none with `--no-session-persistence` or without a
/// state directory, the latest or `--resume ID` one (loaded whole, or an error), else a new one.
pub fn open(settings: &Settings) -> Result<Option<OpenSession>, String> {
    let wanted = &settings.session;
    if wanted.no_persistence {
        return Ok(None);
    }
    let Some(store) = store(settings) else {
        if wanted.continue_latest || wanted.resume.is_some() {
            return Err(
                "no state directory (set AGENTWIRE_STATE_DIR or HOME): no sessions to continue"
                    .into(),
            );
        }
        return Ok(None);
    };
    let id = match (&wanted.resume, wanted.continue_latest) {
        (Some(id), _) => Some(id.clone()),
        (None, true) => Some(store.latest()?.ok_or_else(|| {
            format!(
                "no session to continue in this workspace ({})",
                workspace(settings).display()
            )
        })?),
        (None, false) => None,
    };
    let Some(id) = id else {
        let file = store.create()?;
        return Ok(Some(OpenSession {
            store,
            id: file.id.clone(),
            resumed: false,
            file: Rc::new(RefCell::new(file)),
            history: Vec::new(),
            warnings: Vec::new(),
        }));
    };
    let (mut file, parsed) = store.resume(&id)?;
    let mut history = parsed.transcript.history();
    // A paused run keeps its pending calls for `--approve`/`--reject`; otherwise calls a crash
    // left open are answered now, in the file too, so the next request is well formed.
    let paused = !wanted.approve.is_empty() || !wanted.reject.is_empty();
    if !paused {
        let before = history.len();
        close_dangling_calls(&mut history, NOT_FINISHED);
        for message in &history[before..] {
            file.append(&Entry::from_message(message, None))?;
        }
    }
    Ok(Some(OpenSession {
        store,
        id: file.id.clone(),
        resumed: true,
        file: Rc::new(RefCell::new(file)),
        history,
        warnings: parsed.warnings,
    }))
}

/// Loads the session's history into the agent and sends every new entry to its file. A write
/// that fails is reported once, on stderr; the run goes on.
pub fn attach(app: &App, session: &OpenSession) -> Result<(), String> {
    if session.resumed {
        app.resumed.set(true);
        let history = session.history.clone();
        app.runtime
            .with_agent(|agent| agent.set_history(history))
            .map_err(|e| e.to_string())?;
    }
    *app.sessions.borrow_mut() = Some(session.store.clone());
    sink(&app.runtime, Rc::clone(&session.file));
    child_sink(&app.runtime, session.store.clone(), session.id.clone());
    Ok(())
}

/// Switches the conversation to session `id` of this workspace (`/resume`): its history
/// replaces the agent's, and new entries go to its file. Refused while a run is active.
pub fn switch(app: &App, id: &str) -> Result<usize, String> {
    let store = app
        .sessions
        .borrow()
        .clone()
        .ok_or("sessions are not kept (--no-session-persistence, or no state directory)")?;
    let (mut file, parsed) = store.resume(id)?;
    for warning in &parsed.warnings {
        eprintln!("warning: {warning}");
    }
    let mut history = parsed.transcript.history();
    let before = history.len();
    close_dangling_calls(&mut history, NOT_FINISHED);
    for message in &history[before..] {
        file.append(&Entry::from_message(message, None))?;
    }
    let n = history.len();
    if app.runtime.with_agent(|agent| agent.is_running()) {
        return Err("a run is active".into());
    }
    // Detached first: replacing the history is no event of the old session.
    app.runtime.flush_transcript();
    app.runtime.set_transcript_sink(None);
    app.runtime
        .with_agent(|agent| agent.set_history(history))
        .map_err(|e| e.to_string())?;
    let id = file.id.clone();
    sink(&app.runtime, Rc::new(RefCell::new(file)));
    child_sink(&app.runtime, store, id);
    Ok(n)
}

fn sink(runtime: &Runtime<TokioClock>, file: Rc<RefCell<SessionFile>>) {
    let warned = Cell::new(false);
    runtime.set_transcript_sink(Some(Rc::new(move |entry: &Entry| {
        if let Err(e) = file.borrow_mut().append(entry) {
            if !warned.replace(true) {
                eprintln!("warning: the session is no longer saved: {e}");
            }
        }
    })));
}

/// Keeps each subagent's transcript in a file beside session `id`'s; the parent's tool result
/// names the file. A write that fails is reported once; the child's answer still counts.
fn child_sink(runtime: &Runtime<TokioClock>, store: SessionStore, id: String) {
    let warned = Cell::new(false);
    runtime.set_child_transcript_sink(Some(Rc::new(move |child| {
        match store.save_child(&id, child) {
            Ok(path) => Some(path.display().to_string()),
            Err(e) => {
                if !warned.replace(true) {
                    eprintln!("warning: subagent transcripts are no longer saved: {e}");
                }
                None
            }
        }
    })));
}
