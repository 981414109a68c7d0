//! The wasm32 bindings behind the npm package `agentwire` (compiled only for wasm32).
//!
//! These exports are the private half of the package: the JS layer (`js/` in the repository)
//! validates arguments, gives the API its shape and TypeScript types, and calls in here. The
//! boundary speaks JSON strings, JS functions and promises only, so every JS object is read and
//! checked by the JS layer and every JSON value by the core.
//!
//! The package is several wasm modules built from this crate, so that optional capabilities
//! cost no download until they are used: the runtime (feature `wasm-runtime`: [`WasmAgent`],
//! the OpenAI codec and [`HttpMachine`], the Streamable HTTP machine that JS drives with
//! `fetch`), and on-demand modules that JS loads on first use: the Anthropic codec (feature
//! `wasm-anthropic`), the tool_search lexical index (feature `wasm-search`), the mocks (feature
//! `wasm-mocks`: the mock model and the mock GitHub server, plugged in as an ordinary model and
//! transport) and the extension parsers (feature `wasm-ext`: SKILL.md, commands, plugin
//! manifests, and each agent's skill set, [`SkillBook`], which answers the runtime's skill
//! questions; loaded with an agent's first skill, command or plugin).
//!
//! What the JS host provides to the runtime, as implementations of the driver's traits:
//! - [`clock::JsClock`]: `performance.now()` and cancellable `setTimeout` sleeps; futures run
//!   with `wasm_bindgen_futures::spawn_local`;
//! - [`transport::JsTransport`]: an MCP server behind any JS object that sends lines and calls
//!   back with messages;
//! - [`backends`]: a model, tools and a run observer made of JS functions.

#[cfg(feature = "wasm-runtime")]
mod agent;
#[cfg(feature = "wasm-ext")]
mod agent_set;
#[cfg(feature = "wasm-anthropic")]
mod anthropic_codec;
#[cfg(feature = "wasm-runtime")]
mod backends;
#[cfg(feature = "wasm-runtime")]
mod clock;
#[cfg(feature = "wasm-runtime")]
mod codec;
#[cfg(feature = "wasm-runtime")]
mod diagnostics;
#[cfg(feature = "wasm-runtime")]
mod extensions;
#[cfg(feature = "wasm-runtime")]
mod hooks;
#[cfg(feature = "wasm-runtime")]
mod http;
#[cfg(feature = "wasm-runtime")]
mod js;
#[cfg(feature = "wasm-runtime")]
mod mcp;
#[cfg(feature = "wasm-mocks")]
mod mocks;
#[cfg(feature = "wasm-ext")]
mod parsers;
#[cfg(any(
    feature = "wasm-runtime",
    feature = "wasm-mocks",
    feature = "wasm-anthropic"
))]
mod request;
#[cfg(feature = "wasm-search")]
mod search;
#[cfg(feature = "wasm-runtime")]
mod session;
#[cfg(feature = "wasm-ext")]
mod skill_book;
#[cfg(feature = "wasm-ext")]
mod store_lines;
#[cfg(any(feature = "wasm-runtime", feature = "wasm-anthropic"))]
mod stream_codec;
#[cfg(feature = "wasm-runtime")]
mod subagents;
#[cfg(feature = "wasm-runtime")]
mod tool_search;
#[cfg(feature = "wasm-runtime")]
mod transport;

#[cfg(feature = "wasm-runtime")]
pub use agent::WasmAgent;
#[cfg(feature = "wasm-ext")]
pub use agent_set::agent_set_record;
#[cfg(feature = "wasm-anthropic")]
pub use anthropic_codec::{decode_anthropic_response, encode_anthropic_request, AnthropicStream};
#[cfg(feature = "wasm-runtime")]
pub use codec::{decode_openai_response, encode_openai_request, OpenAiStream};
#[cfg(feature = "wasm-runtime")]
pub use diagnostics::runtime_diagnostics;
#[cfg(feature = "wasm-runtime")]
pub use http::HttpMachine;
#[cfg(feature = "wasm-mocks")]
pub use mocks::{mock_model_complete, MockGithubBridge};
#[cfg(feature = "wasm-ext")]
pub use parsers::{
    parse_command_text, parse_plugin_manifest_text, parse_plugin_servers_text, parse_skill_text,
};
#[cfg(feature = "wasm-search")]
pub use search::{rank_tools_json, search_tools_json};
#[cfg(feature = "wasm-ext")]
pub use skill_book::SkillBook;
#[cfg(feature = "wasm-ext")]
pub use store_lines::StoreRedactor;
