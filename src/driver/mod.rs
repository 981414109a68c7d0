//! The async driver: futures-only wrappers over the sans-IO machines, for hosts with an executor.
//!
//! No runtime, no `Send` bound: the same code runs on tokio's current-thread runtime natively and
//! on the JS event loop in wasm. Hosts supply a [`Transport`] (bytes in and out), a [`Clock`]
//! (now, and a sleep) and a way to spawn a local future; [`Runtime`] adds the agent loop, a
//! [`ModelBackend`], [`LocalTools`] and a [`RunObserver`].

mod backends;
mod client;
mod commands;
mod compact;
mod connection;
mod direct_call;
mod events;
mod gated;
mod hooks;
mod in_process;
mod interrupt;
mod mcp_features;
mod mcp_runtime;
mod progress;
mod resource_tools;
mod resume;
mod runtime;
mod sampling;
#[cfg(feature = "server-skills")]
mod server_skills;
mod server_status;
mod servers;
mod subagents;
mod traits;
mod turn;
mod waiters;

pub use backends::{LocalTools, ModelBackend, ModelStream, NoLocalTools, RunObserver};
pub use client::{ConnectError, McpClient, RequestHandler};
pub use direct_call::DirectCallOutput;
pub use events::{Empty, EventStream, EVENT_QUEUE_CAPACITY};
pub use gated::NotRun;
pub use hooks::HookRunner;
pub use in_process::MockGithubTransport;
pub use interrupt::{NothingRunning, RunInterrupt};
pub use mcp_runtime::NOT_CONNECTED;
pub use progress::{Progress, ProgressWatch, PROGRESS_INTERVAL, PROGRESS_MESSAGE_CHARS};
pub use resource_tools::{LIST_RESOURCES_TOOL, READ_RESOURCE_TOOL};
pub use runtime::{Runtime, ToolSearcher, TranscriptSink};
pub use server_status::ServerStatus;
pub use subagents::{ChildTranscriptSink, ModelResolver};
pub use traits::{Clock, Spawn, Transport};
pub use turn::RunError;
