//! The MCP client session: handshake, tools, resources, prompts, completion, logging,
//! notifications and server requests.

mod cache;
mod discover;
mod era;
mod events;
mod features;
pub mod http;
mod incoming;
mod listen;
pub mod meta;
mod mrtr;
pub mod oauth;
pub(crate) mod param_headers;
mod roots;
pub mod sampling;
mod session;
#[cfg(feature = "mcp-skills")]
pub mod skills;
#[cfg(feature = "mcp-tasks")]
mod task_listen;
#[cfg(feature = "mcp-tasks")]
mod tasks;

pub use cache::{MAX_CACHED_READS, MAX_CACHED_READ_BYTES, MAX_TTL};
pub use era::{Era, ProtocolChoice, MODERN_PROTOCOL_VERSION};
pub use events::{RequestError, RequestId, ServerDetails, SessionEvent};
pub use features::{prompt_messages, prompt_text, read_resource_result, ListKind};
pub use mrtr::{MAX_INPUT_REQUESTS, MAX_INPUT_ROUNDS, MAX_INPUT_WAIT, MAX_REQUEST_STATE_BYTES};
pub use roots::Root;
pub use session::{CallOptions, ClientSession, SessionConfig, SessionError, MAX_QUEUED_EVENTS};
#[cfg(feature = "mcp-tasks")]
pub use task_listen::TASK_FALLBACK_POLL;
#[cfg(feature = "mcp-tasks")]
pub use tasks::{
    FIRST_TASK_POLL, MAX_TASK_ID_BYTES, MAX_TASK_POLL, MIN_TASK_POLL, TASKS_EXTENSION,
};

/// The protocol version agentwire asks for.
pub const LATEST_PROTOCOL_VERSION: &str = "2025-11-25";

/// Every protocol version agentwire accepts from a server, newest first.
pub const SUPPORTED_PROTOCOL_VERSIONS: [&str; 4] =
    ["2025-11-25", "2025-06-18", "2025-03-26", "2024-11-05"];
