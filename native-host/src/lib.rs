//! The native home of agentwire: processes, stdio, HTTP, built-in tools and the CLI.

pub mod clock;
pub mod http_transport;
pub mod stdio;
