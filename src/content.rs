//! Tool results, normalised: what MCP's `tools/call` returns and what built-in tools produce.
//!
//! An execution error (`isError: true`) is a result for the model to read, not a transport
//! failure; only malformed results are errors here.

use crate::json::{quoted, to_text};
use serde_json::{json, Map, Value};

/// One block of tool output.
#[derive(Clone, Debug, PartialEq)]
#[non_exhaustive]
pub enum ContentBlock {
    /// Plain text.
    Text {
        /// The text.
        text: String,
    },
    /// A base64-encoded image.
    Image {
        /// Base64 data.
        data: String,
        /// MIME type such as `image/png`.
        mime_type: String,
    },
    /// Base64-encoded audio.
    Audio {
        /// Base64 data.
        data: String,
        /// MIME type such as `audio/wav`.
        mime_type: String,
    },
    /// A link to a resource the client may read later.
    ResourceLink {
        /// Resource URI.
        uri: String,
        /// Resource name.
        name: String,
        /// Optional description.
        description: Option<String>,
        /// Optional MIME type.
        mime_type: Option<String>,
    },
    /// An embedded resource: text or base64 blob.
    Resource {
        /// Resource URI.
        uri: String,
        /// Optional MIME type.
        mime_type: Option<String>,
        /// Text contents, for text resources.
        text: Option<String>,
        /// Base64 contents, for binary resources.
        blob: Option<String>,
    },
}

/// The normalised result of one tool call.
#[derive(Clone, Debug, PartialEq, Default)]
pub struct ToolOutput {
    /// Content blocks, in order.
    pub content: Vec<ContentBlock>,
    /// `structuredContent`, when the tool returned one.
    pub structured_content: Option<Value>,
    /// Whether the tool reported an execution error.
    pub is_error: bool,
}

fn opt_str(map: &Map<String, Value>, key: &str) -> Option<String> {
    map.get(key).and_then(Value::as_str).map(str::to_owned)
}

fn req_str(map: &Map<String, Value>, key: &str, kind: &str) -> Result<String, String> {
    opt_str(map, key).ok_or_else(|| format!("{kind} content block without a string \"{key}\""))
}

impl ContentBlock {
    /// Text content.
    pub fn text(text: impl Into<String>) -> Self {
        ContentBlock::Text { text: text.into() }
    }

    /// Reads one MCP content block; unknown types are an error naming the type.
    pub fn from_value(value: &Value) -> Result<ContentBlock, String> {
        let map = value.as_object().ok_or("content block must be an object")?;
        let kind = map
            .get("type")
            .and_then(Value::as_str)
            .ok_or("content block without \"type\"")?;
        Ok(match kind {
            "text" => ContentBlock::Text {
                text: req_str(map, "text", kind)?,
            },
            "image" => ContentBlock::Image {
                data: req_str(map, "data", kind)?,
                mime_type: req_str(map, "mimeType", kind)?,
            },
            "audio" => ContentBlock::Audio {
                data: req_str(map, "data", kind)?,
                mime_type: req_str(map, "mimeType", kind)?,
            },
            "resource_link" => ContentBlock::ResourceLink {
                uri: req_str(map, "uri", kind)?,
                name: req_str(map, "name", kind)?,
                description: opt_str(map, "description"),
                mime_type: opt_str(map, "mimeType"),
            },
            "resource" => {
                let res = map
                    .get("resource")
                    .and_then(Value::as_object)
                    .ok_or("resource content block without a \"resource\" object")?;
                ContentBlock::Resource {
                    uri: req_str(res, "uri", kind)?,
                    mime_type: opt_str(res, "mimeType"),
                    text: opt_str(res, "text"),
                    blob: opt_str(res, "blob"),
                }
            }
            other => {
                return Err(format!(
                    "unknown content block type {other}",
                    other = quoted(other)
                ))
            }
        })
    }

    /// The MCP JSON form of this block.
    pub fn to_value(&self) -> Value {
        match self {
            ContentBlock::Text { text } => json!({"type": "text", "text": text}),
            ContentBlock::Image { data, mime_type } => {
                json!({"type": "image", "data": data, "mimeType": mime_type})
            }
            ContentBlock::Audio { data, mime_type } => {
                json!({"type": "audio", "data": data, "mimeType": mime_type})
            }
            ContentBlock::ResourceLink {
                uri,
                name,
                description,
                mime_type,
            } => {
                let mut v = json!({"type": "resource_link", "uri": uri, "name": name});
                if let Some(d) = description {
                    v["description"] = d.clone().into();
                }
                if let Some(m) = mime_type {
                    v["mimeType"] = m.clone().into();
                }
                v
            }
            ContentBlock::Resource {
                uri,
                mime_type,
                text,
                blob,
            } => {
                let mut res = json!({"uri": uri});
                for (key, val) in [("mimeType", mime_type), ("text", text), ("blob", blob)] {
                    if let Some(val) = val {
                        res[key] = val.clone().into();
                    }
                }
                json!({"type": "resource", "resource": res})
            }
        }
    }

    /// How the block reads to a model: text verbatim, binary data summarised (never dumped).
    pub fn to_model_text(&self) -> String {
        match self {
            ContentBlock::Text { text } => text.clone(),
            ContentBlock::Image { data, mime_type } => {
                format!("[image {mime_type}, {} bytes base64]", data.len())
            }
            ContentBlock::Audio { data, mime_type } => {
                format!("[audio {mime_type}, {} bytes base64]", data.len())
            }
            ContentBlock::ResourceLink {
                uri,
                name,
                description,
                ..
            } => match description {
                Some(d) => format!("[resource link {name}: {uri} — {d}]"),
                None => format!("[resource link {name}: {uri}]"),
            },
            ContentBlock::Resource {
                uri,
                text: Some(text),
                ..
            } => {
                format!("[resource {uri}]\n{text}")
            }
            ContentBlock::Resource {
                uri,
                blob,
                mime_type,
                ..
            } => format!(
                "[resource {uri}, {}, {} bytes base64]",
                mime_type.as_deref().unwrap_or("binary"),
                blob.as_ref().map_or(0, String::len)
            ),
        }
    }
}

impl ToolOutput {
    /// A successful text result.
    pub fn text(text: impl Into<String>) -> Self {
        ToolOutput {
            content: vec![ContentBlock::text(text)],
            ..Default::default()
        }
    }

    /// An execution-error result carrying a message for the model.
    pub fn error(message: impl Into<String>) -> Self {
        ToolOutput {
            content: vec![ContentBlock::text(message)],
            is_error: true,
            ..Default::default()
        }
    }

    /// Reads an MCP `CallToolResult`; malformed results are an error naming what is wrong.
    pub fn from_mcp_result(value: &Value) -> Result<ToolOutput, String> {
        let map = value
            .as_object()
            .ok_or("tools/call result must be an object")?;
        let content = match map.get("content") {
            Some(Value::Array(blocks)) => blocks
                .iter()
                .map(ContentBlock::from_value)
                .collect::<Result<Vec<_>, _>>()?,
            // structuredContent alone is acceptable; a missing content array reads as empty.
            None if map.contains_key("structuredContent") => Vec::new(),
            None => return Err("tools/call result without a \"content\" array".into()),
            Some(_) => return Err("tools/call result \"content\" must be an array".into()),
        };
        let is_error = match map.get("isError") {
            None | Some(Value::Null) => false,
            Some(Value::Bool(b)) => *b,
            Some(_) => return Err("tools/call result \"isError\" must be a boolean".into()),
        };
        Ok(ToolOutput {
            content,
            structured_content: map.get("structuredContent").cloned(),
            is_error,
        })
    }

    /// The MCP `CallToolResult` JSON form: `content`, `isError`, and `structuredContent` if any.
    pub fn to_mcp_value(&self) -> Value {
        let mut v = json!({
            "content": self.content.iter().map(ContentBlock::to_value).collect::<Vec<_>>(),
            "isError": self.is_error,
        });
        if let Some(s) = &self.structured_content {
            v["structuredContent"] = s.clone();
        }
        v
    }

    /// The whole result as one text for the model. Structured content is included only when no
    /// text block carries it already (the spec asks servers to mirror it as text).
    pub fn to_model_text(&self) -> String {
        let mut parts: Vec<String> = self
            .content
            .iter()
            .map(ContentBlock::to_model_text)
            .collect();
        let has_text = self
            .content
            .iter()
            .any(|b| matches!(b, ContentBlock::Text { .. }));
        if let (Some(structured), false) = (&self.structured_content, has_text) {
            parts.push(to_text(structured));
        }
        parts.join("\n")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_block_type_round_trips() {
        let result = json!({
            "content": [
                {"type": "text", "text": "hi"},
                {"type": "image", "data": "aGk=", "mimeType": "image/png"},
                {"type": "audio", "data": "aGk=", "mimeType": "audio/wav"},
                {"type": "resource_link", "uri": "file:///a", "name": "a", "description": "d"},
                {"type": "resource", "resource": {"uri": "mem://x", "mimeType": "text/plain", "text": "body"}},
            ],
            "structuredContent": {"n": 1},
            "isError": false
        });
        let out = ToolOutput::from_mcp_result(&result).unwrap();
        assert_eq!(out.content.len(), 5);
        assert_eq!(out.to_mcp_value(), result);
        let text = out.to_model_text();
        assert!(
            text.starts_with("hi\n[image image/png, 4 bytes base64]"),
            "{text}"
        );
        assert!(text.contains("[resource mem://x]\nbody"));
        assert!(
            !text.contains("\"n\""),
            "structured content is mirrored by text already"
        );
    }

    #[test]
    fn structured_only_results_reach_the_model() {
        let out = ToolOutput::from_mcp_result(&json!({"structuredContent": {"temp": 21}})).unwrap();
        assert_eq!(out.to_model_text(), r#"{"temp":21}"#);
    }

    #[test]
    fn is_error_is_a_result_and_malformed_results_are_errors() {
        let out = ToolOutput::from_mcp_result(
            &json!({"content": [{"type":"text","text":"boom"}], "isError": true}),
        );
        assert!(out.unwrap().is_error);
        for (bad, needle) in [
            (json!([]), "must be an object"),
            (json!({}), "without a \"content\""),
            (
                json!({"content": [{"type": "video"}]}),
                "unknown content block type \"video\"",
            ),
            (json!({"content": [{"type": "text"}]}), "\"text\""),
            (json!({"content": [], "isError": "yes"}), "isError"),
        ] {
            let err = ToolOutput::from_mcp_result(&bad).unwrap_err();
            assert!(err.contains(needle), "{bad}: {err}");
        }
    }
}
