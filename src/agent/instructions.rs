//! Project instructions in the agent: the block in the system prompt, fixed for the
//! conversation, and the conditional rules that join it when a tool uses a matching file.

use super::{Agent, AgentError};
use crate::instructions::{Instructions, PathRules};

impl Agent {
    /// Puts `instructions` into the system prompt after `base` and waits with its conditional
    /// rules for the files they match; refused while a run is active. Call it at a session's
    /// start and for a new conversation only (`/clear`, after compaction): the system prompt
    /// is the cached prefix, so it must not change within one.
    pub fn set_instructions(
        &mut self,
        base: &str,
        instructions: &Instructions,
    ) -> Result<(), AgentError> {
        if self.run.is_some() {
            return Err(AgentError::RunActive);
        }
        self.config.system_prompt = instructions.system_prompt(base);
        self.path_rules = instructions.path_rules.clone();
        Ok(())
    }

    /// The conditional rules and which joined the conversation.
    pub fn path_rules(&self) -> &PathRules {
        &self.path_rules
    }
}
