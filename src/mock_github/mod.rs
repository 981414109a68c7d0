//! The built-in mock GitHub MCP server: real JSON-RPC over canned data.
//!
//! Where child processes are unavailable (browsers, WebContainer) or no GitHub token is set,
//! [`MockGithubServer`] stands in for `@modelcontextprotocol/server-github`. It is an ordinary
//! MCP server as far as the client can tell: NDJSON lines in, NDJSON lines out, the same tool
//! names, descriptions and input schemas as the npm package, and results shaped like the GitHub
//! REST API responses the real server passes through. Only the data is canned (see `data/`).
//!
//! Where the mock knowingly differs from the npm server:
//! - file contents are decoded text by default, as the npm server hands them to the model
//!   (it keeps `encoding: "base64"`); [`MockOptions::with_base64_file_contents`] gives the raw
//!   API's base64 instead;
//! - repository search items keep `stargazers_count`, `language` and `topics`, which the npm
//!   server's response schema strips;
//! - `list_issues` returns issues only, where GitHub's endpoint mixes pull requests in;
//! - failures are `isError` results, and an unknown tool is `-32602` (see [`MockGithubServer`]);
//! - resources (`repo://{owner}/{repo}/contents{/path*}`), two prompts and completion are the
//!   mock's own small set (see `resources.rs`);
//! - `create_issue` and `add_issue_comment` answer plausibly, with a fixed timestamp, and store
//!   nothing.
//!
//! ```
//! use agentwire::mock_github::MockGithubServer;
//!
//! let mut server = MockGithubServer::new();
//! let out = server.handle_line(br#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"list_issues","arguments":{"owner":"vercel","repo":"ai"}}}"#);
//! assert_eq!(out.len(), 1);
//! assert!(String::from_utf8_lossy(&out[0]).contains("pagination"));
//! ```

mod args;
mod base64;
mod data;
mod query;
mod render;
mod resources;
mod server;
mod tools;

#[cfg(test)]
mod tests;

pub use server::{
    MockGithubServer, MockOptions, LATEST_PROTOCOL_VERSION, MAX_LINE_BYTES, SERVER_NAME,
    SUPPORTED_PROTOCOL_VERSIONS,
};
