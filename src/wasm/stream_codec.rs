//! What the model codecs' streaming decoders share across wasm modules (the runtime's OpenAI
//! codec, the on-demand Anthropic codec): deltas as the JS layer reads them, and one shape of
//! wasm class around a core stream decoder.

use crate::model::StreamDelta;
use serde_json::{json, Value};

/// A stream delta as the JS layer reads it (`{"type": "text" | "reasoning" | "tool_call", ...}`).
pub(super) fn delta_value(delta: StreamDelta) -> Value {
    match delta {
        StreamDelta::Text(text) => json!({"type": "text", "text": text}),
        StreamDelta::Reasoning(text) => json!({"type": "reasoning", "text": text}),
        StreamDelta::ToolCallStarted { index, id, name } => {
            json!({"type": "tool_call", "index": index, "id": id, "name": name})
        }
    }
}

/// Declares a wasm class `$name` decoding one streamed response body with the core decoder
/// `$inner` (which has `new()`, `push(&[u8]) -> Result<Vec<StreamDelta>, _>` and
/// `finish(self) -> Result<ModelResponse, _>`): `new`, `push` (a JSON array of deltas, see
/// [`delta_value`]) and `finish` (the response in the core's shape); a finished stream refuses.
macro_rules! wasm_delta_stream {
    ($(#[$meta:meta])* $name:ident, $inner:ty) => {
        $(#[$meta])*
        #[wasm_bindgen::prelude::wasm_bindgen]
        pub struct $name {
            inner: Option<$inner>,
        }

        #[wasm_bindgen::prelude::wasm_bindgen]
        impl $name {
            /// A decoder for one response body.
            #[wasm_bindgen(constructor)]
            #[allow(clippy::new_without_default)]
            pub fn new() -> $name {
                $name {
                    inner: Some(<$inner>::new()),
                }
            }

            /// A decoder for one response body of at most `max_bytes` bytes (the JS layer
            /// checks the number); a longer body fails with the core's size error.
            #[wasm_bindgen(js_name = withMaxBytes)]
            pub fn with_max_bytes(max_bytes: f64) -> $name {
                // `as` saturates: NaN and negatives become 0, huge values usize::MAX.
                $name {
                    inner: Some(<$inner>::with_max_bytes(max_bytes as usize)),
                }
            }

            /// Feeds a chunk; returns a JSON array of what can be shown now: `{"type": "text",
            /// "text"}`, `{"type": "reasoning", "text"}`, `{"type": "tool_call", "index", "id",
            /// "name"}`.
            pub fn push(&mut self, bytes: &[u8]) -> Result<String, wasm_bindgen::JsError> {
                let stream = self.inner.as_mut().ok_or_else(|| {
                    wasm_bindgen::JsError::new("the stream was already finished")
                })?;
                let deltas = stream
                    .push(bytes)
                    .map_err(|e| wasm_bindgen::JsError::new(&e.to_string()))?;
                Ok($crate::json::to_text(&serde_json::Value::Array(
                    deltas
                        .into_iter()
                        .map($crate::wasm::stream_codec::delta_value)
                        .collect(),
                )))
            }

            /// Ends the body: the response in the core's shape, or why there is none.
            pub fn finish(&mut self) -> Result<String, wasm_bindgen::JsError> {
                let stream = self.inner.take().ok_or_else(|| {
                    wasm_bindgen::JsError::new("the stream was already finished")
                })?;
                stream
                    .finish()
                    .map(|response| $crate::json::to_text(&response.to_value()))
                    .map_err(|e| wasm_bindgen::JsError::new(&e.to_string()))
            }
        }
    };
}
pub(super) use wasm_delta_stream;
