//! The native home of agentwire: processes, stdio, HTTP, built-in tools and the CLI.

/// `println!` that ignores a closed stdout (`agentwire tools | head` must not panic).
#[macro_export]
macro_rules! outln {
    ($($arg:tt)*) => {{
        use std::io::Write as _;
        let _ = writeln!(std::io::stdout().lock(), $($arg)*);
    }};
}

pub mod account;
pub mod app;
pub mod cli;
pub mod clock;
pub mod commands;
pub mod connect;
pub mod display_url;
pub mod http_transport;
pub mod jwt;
pub mod local_tools;
pub mod model;
pub mod oauth;
pub mod redirect;
pub mod render;
pub mod repl;
pub mod servers;
pub mod stdio;
pub mod token_store;
pub mod tools;
