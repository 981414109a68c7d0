//! The native home of agentwire: processes, stdio, HTTP, built-in tools and the CLI.

pub mod account;
pub mod app;
pub mod cli;
pub mod clock;
pub mod commands;
pub mod connect;
pub mod http_transport;
pub mod jwt;
pub mod local_tools;
pub mod model;
pub mod oauth;
pub mod render;
pub mod repl;
pub mod servers;
pub mod stdio;
pub mod term_safe;
pub mod token_store;
pub mod tools;
