//! The native home of agentwire: processes, stdio, HTTP, built-in tools and the CLI.
//!
//! Layered by folder, each importing only those below it (`scripts/check-layering` checks):
//! [`cli`] → [`app`] → [`extensions`], [`model`], [`tools`], [`config`] → [`transport`] → [`os`].

pub mod app;
pub mod cli;
pub mod config;
pub mod extensions;
pub mod model;
pub mod os;
pub mod tools;
pub mod transport;
