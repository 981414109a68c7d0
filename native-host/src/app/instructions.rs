//! The session's instructions in the application: loaded at start unless skipped, put in the
//! agent's system prompt, read again for a new conversation.

use crate::app::App;
use crate::config::settings::Settings;
use crate::extensions::instructions::{Lookup, SessionInstructions};
use agentwire::agent::{Agent, DEFAULT_SYSTEM_PROMPT};

/// Why instructions were not loaded, when they were not.
pub fn skipped_by(options: &Settings) -> Option<&'static str> {
    if options.bare {
        Some("--bare")
    } else if options.no_instructions {
        Some("--no-instructions")
    } else {
        None
    }
}

/// The instructions `options` ask for (`None` under `--bare` or `--no-instructions`).
pub fn load(options: &Settings) -> Option<SessionInstructions> {
    if skipped_by(options).is_some() {
        return None;
    }
    let lookup = Lookup::from_env(
        options.workspace.as_deref(),
        options.trust_workspace,
        options.instructions_budget,
    );
    Some(SessionInstructions::load(lookup))
}

/// Puts `instructions` into `agent` (between runs, so it cannot fail).
pub fn install(agent: &mut Agent, instructions: &SessionInstructions) {
    let _ = agent.set_instructions(DEFAULT_SYSTEM_PROMPT, &instructions.found);
}

impl App {
    /// Reads the instruction files again and puts them in the agent, for a new conversation
    /// (`/clear`; compaction calls it too). Returns the warnings of the new read.
    pub fn reload_instructions(&self) -> Vec<String> {
        let mut slot = self.instructions.borrow_mut();
        let Some(instructions) = slot.as_mut() else {
            return Vec::new();
        };
        instructions.reload();
        self.runtime
            .with_agent(|agent| install(agent, instructions));
        instructions.found.warnings.clone()
    }

    /// Says the instruction problems on stderr (always), and the summary line unless `quiet`.
    pub(super) fn report_instructions(&self, quiet: bool) {
        let slot = self.instructions.borrow();
        let Some(instructions) = slot.as_ref() else {
            return;
        };
        for warning in &instructions.found.warnings {
            crate::errln!("warning: {warning}");
        }
        if let Some(line) = instructions.summary() {
            if !quiet && self.format == crate::app::render::Format::Human {
                crate::errln!("{line}");
            }
        }
    }
}
