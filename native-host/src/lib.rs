//! The native home of agentwire: processes, stdio, HTTP, built-in tools and the CLI.

pub mod account;
pub mod app;
pub mod cli;
pub mod clock;
pub mod commands;
pub mod config_file;
pub mod connect;
pub mod http_transport;
pub mod jwt;
pub mod local_tools;
pub mod model;
pub mod oauth;
pub mod private_file;
pub mod project_config;
pub mod reaper;
pub mod render;
pub mod repl;
pub mod servers;
pub mod signals;
pub mod stdio;
pub mod term_safe;
pub mod token_store;
pub mod tool_search;
pub mod tools;
pub mod trust;
pub mod trust_command;
