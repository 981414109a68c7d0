//! Getting bytes to and from MCP servers: child processes over stdio, Streamable HTTP with its
//! redirects, OAuth with its token store, signed client assertions and DPoP proofs.

pub mod browser_open;
pub mod dpop;
pub mod eras;
pub mod http_request;
pub mod http_transport;
pub mod jwt;
pub mod oauth;
pub mod redirect;
pub mod sse_transport;
pub mod stdio;
pub mod token_store;
