//! The modern era's per-request `_meta` envelope, and how its results are read.

use serde_json::{Map, Value};

/// `_meta` key of the protocol version a modern request speaks.
pub const META_PROTOCOL_VERSION: &str = "io.modelcontextprotocol/protocolVersion";
/// `_meta` key of the client's capabilities.
pub const META_CLIENT_CAPABILITIES: &str = "io.modelcontextprotocol/clientCapabilities";
/// `_meta` key of the client's name and version.
pub const META_CLIENT_INFO: &str = "io.modelcontextprotocol/clientInfo";
/// `_meta` key of the log level the server may send `notifications/message` at.
pub const META_LOG_LEVEL: &str = "io.modelcontextprotocol/logLevel";
/// Result `_meta` key where a modern server names itself.
pub const META_SERVER_INFO: &str = "io.modelcontextprotocol/serverInfo";

/// Error code of a protocol version the server does not speak (`data.supported` lists those it
/// does).
pub const UNSUPPORTED_PROTOCOL_VERSION: i64 = -32022;
/// Error code of a request whose HTTP headers do not match its body (`Mcp-Method`, ...).
pub const HEADER_MISMATCH: i64 = -32020;

/// The name of an MCP error code of the `-32020…-32099` range (2026-07-28), for messages.
pub fn error_code_name(code: i64) -> Option<&'static str> {
    Some(match code {
        HEADER_MISMATCH => "header mismatch",
        -32021 => "missing required client capability",
        UNSUPPORTED_PROTOCOL_VERSION => "unsupported protocol version",
        -32042 => "URL elicitation required",
        _ => return None,
    })
}

/// The envelope every modern request carries, built once per session.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct Envelope {
    /// `protocolVersion`, `clientCapabilities`, `clientInfo`, in that order.
    fields: Map<String, Value>,
}

impl Envelope {
    /// The envelope of a client speaking `version` with these capabilities and identity.
    pub(crate) fn new(version: &str, capabilities: Value, client_info: Value) -> Self {
        let mut fields = Map::new();
        fields.insert(META_PROTOCOL_VERSION.into(), version.into());
        fields.insert(META_CLIENT_CAPABILITIES.into(), capabilities);
        fields.insert(META_CLIENT_INFO.into(), client_info);
        Envelope { fields }
    }

    /// `params` with the envelope (and `logLevel`, if set) merged into its `_meta`; keys the
    /// caller already put in `_meta` (such as `progressToken`) are kept. Params that are not an
    /// object are left alone: the server will say what is wrong with them.
    pub(crate) fn wrap(&self, params: Option<Value>, log_level: Option<&str>) -> Option<Value> {
        let mut params = match params {
            None => Map::new(),
            Some(Value::Object(map)) => map,
            Some(other) => return Some(other),
        };
        if !params.contains_key("_meta") {
            params.insert("_meta".into(), Value::Object(Map::new()));
        }
        if let Some(Value::Object(meta)) = params.get_mut("_meta") {
            for (key, value) in &self.fields {
                meta.insert(key.clone(), value.clone());
            }
            if let Some(level) = log_level {
                meta.insert(META_LOG_LEVEL.into(), level.into());
            }
        }
        Some(Value::Object(params))
    }
}

/// What a modern result says it is.
#[derive(Debug, PartialEq)]
pub(crate) enum ResultKind {
    /// The answer (`resultType` `"complete"`, or absent).
    Complete,
    /// The server needs input first (`resultType` `"input_required"`).
    InputRequired,
    /// A task handle instead of the result (`resultType` `"task"`, the Tasks extension).
    #[cfg(feature = "mcp-tasks")]
    Task,
}

/// Reads `resultType`: absent means complete; anything but the two known kinds is an error
/// quoting it.
pub(crate) fn result_kind(result: &Value) -> Result<ResultKind, String> {
    match result.get("resultType") {
        None => Ok(ResultKind::Complete),
        Some(Value::String(kind)) if kind == "complete" => Ok(ResultKind::Complete),
        Some(Value::String(kind)) if kind == "input_required" => Ok(ResultKind::InputRequired),
        #[cfg(feature = "mcp-tasks")]
        Some(Value::String(kind)) if kind == "task" => Ok(ResultKind::Task),
        Some(other) => Err(format!(
            "unknown resultType {}",
            crate::framing::excerpt(crate::json::to_text(other).as_bytes())
        )),
    }
}

/// The versions listed in an unsupported-version error's `data.supported`.
pub(crate) fn supported_versions(data: Option<&Value>) -> Vec<&str> {
    data.and_then(|d| d.get("supported"))
        .and_then(Value::as_array)
        .map(|list| list.iter().filter_map(Value::as_str).collect())
        .unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn the_envelope_joins_what_the_caller_put_in_meta() {
        let envelope = Envelope::new("2026-07-28", json!({"roots": {}}), json!({"name": "a"}));
        let params = envelope.wrap(
            Some(json!({"name": "t", "_meta": {"progressToken": 4}})),
            None,
        );
        assert_eq!(
            params,
            Some(json!({"name": "t", "_meta": {
                "progressToken": 4,
                "io.modelcontextprotocol/protocolVersion": "2026-07-28",
                "io.modelcontextprotocol/clientCapabilities": {"roots": {}},
                "io.modelcontextprotocol/clientInfo": {"name": "a"},
            }}))
        );
        let bare = envelope.wrap(None, Some("debug")).unwrap();
        assert_eq!(bare["_meta"][META_LOG_LEVEL], "debug");
        assert_eq!(envelope.wrap(Some(json!([1])), None), Some(json!([1])));
    }

    #[test]
    fn result_type_absent_is_complete_and_unknown_is_an_error() {
        assert_eq!(result_kind(&json!({})), Ok(ResultKind::Complete));
        assert_eq!(
            result_kind(&json!({"resultType": "complete"})),
            Ok(ResultKind::Complete)
        );
        assert_eq!(
            result_kind(&json!({"resultType": "input_required"})),
            Ok(ResultKind::InputRequired)
        );
        #[cfg(feature = "mcp-tasks")]
        assert_eq!(
            result_kind(&json!({"resultType": "task"})),
            Ok(ResultKind::Task)
        );
        let error = result_kind(&json!({"resultType": "job"})).unwrap_err();
        assert!(error.contains("\"job\""), "{error}");
        assert!(result_kind(&json!({"resultType": 7})).is_err());
    }
}
