//! The demo stand-ins for the JS layer, compiled into their own wasm module (feature
//! `wasm-mocks`) so the runtime module does not carry them: the mock model as a function, and the
//! mock GitHub server as a line-in, lines-out object (JS wraps it into an ordinary transport).

use super::request::{parse_json, request_from_value};
use crate::mock_github::MockGithubServer;
use crate::model::MockModel;
use wasm_bindgen::prelude::*;

/// The mock model's answer to a request in the core's shape.
#[wasm_bindgen(js_name = mockModelComplete)]
pub fn mock_model_complete(request_json: &str) -> Result<String, JsError> {
    let request = request_from_value(&parse_json(request_json, "the request")?)
        .map_err(|e| JsError::new(&e))?;
    Ok(MockModel::new().complete(&request).to_value().to_string())
}

/// The mock GitHub MCP server, one line in, reply lines out.
#[wasm_bindgen]
pub struct MockGithubBridge {
    server: MockGithubServer,
}

#[wasm_bindgen]
impl MockGithubBridge {
    /// A fresh server over the canned data.
    #[wasm_bindgen(constructor)]
    #[allow(clippy::new_without_default)]
    pub fn new() -> MockGithubBridge {
        MockGithubBridge {
            server: MockGithubServer::new(),
        }
    }

    /// Handles one message (a line, with or without its newline); returns the reply lines,
    /// each ending in a newline (empty for notifications).
    pub fn handle(&mut self, line: &str) -> String {
        let mut bytes = line.as_bytes().to_vec();
        if !bytes.ends_with(b"\n") {
            bytes.push(b'\n');
        }
        String::from_utf8_lossy(&self.server.handle_bytes(&bytes)).into_owned()
    }
}
