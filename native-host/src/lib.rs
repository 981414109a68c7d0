//! agentwire native host: built-in tools (and, later, processes, stdio and HTTP transports).

pub mod tools;
