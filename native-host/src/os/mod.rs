//! What the host needs of the operating system, with no agentwire policy in it: process
//! groups and reaping, signals, the clock, private files, bounded config reads, terminal-safe
//! text and URLs fit for display.

pub mod append_file;
pub mod clock;
pub mod config_file;
pub mod display_url;
pub mod private_file;
pub mod reaper;
pub mod sandbox;
pub mod signals;
pub mod term_safe;
