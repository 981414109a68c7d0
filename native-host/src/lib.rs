//! The native home of agentwire: processes, stdio, HTTP, built-in tools and the CLI.

pub mod clock;
pub mod model;
pub mod stdio;
