//! Skills, commands and plugins on disk: where they are found and how they are read. Parsing,
//! precedence and the gate belong to the core (`agentwire::ext`); this module brings it text.

pub mod agents;
pub mod discover;
pub mod hook_runner;
pub mod hooks;
pub mod instructions;
pub mod plugin_dir;
pub mod plugin_paths;
pub mod read;
pub mod session;
pub mod skillset;

#[cfg(test)]
mod tests;
