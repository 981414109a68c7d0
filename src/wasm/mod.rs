//! The wasm32 bindings behind the npm package `agentwire` (compiled only for wasm32).
//!
//! These exports are the private half of the package: the JS layer (`js/` in the repository)
//! validates arguments, gives the API its shape and TypeScript types, and calls in here. The
//! boundary speaks JSON strings, JS functions and promises only, so every JS object is read and
//! checked by the JS layer and every JSON value by the core.
//!
//! What the JS host provides, as implementations of the driver's traits:
//! - [`clock::JsClock`]: `performance.now()` and cancellable `setTimeout` sleeps; futures run
//!   with `wasm_bindgen_futures::spawn_local`;
//! - [`transport::JsTransport`]: an MCP server behind any JS object that sends lines and calls
//!   back with messages;
//! - [`backends`]: a model, tools and a run observer made of JS functions.

mod agent;
mod backends;
mod clock;
mod codec;
mod http;
mod js;
mod transport;

pub use agent::WasmAgent;
pub use codec::{
    decode_openai_response, encode_openai_request, mock_model_complete, MockGithubBridge,
    OpenAiStream,
};
pub use http::HttpMachine;
