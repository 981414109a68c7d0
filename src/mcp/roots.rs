//! Roots (MCP `roots` capability): the directories the client lets a server work in, which
//! servers such as a filesystem server ask for with `roots/list`.

use serde_json::{json, Value};

/// One root: a `file://` URI and an optional display name.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Root {
    /// The root's URI, `file:///...`.
    pub uri: String,
    /// A name to show for it.
    pub name: Option<String>,
}

impl Root {
    /// The root as the protocol writes it: `{"uri", "name"?}`.
    pub fn to_value(&self) -> Value {
        match &self.name {
            Some(name) => json!({"uri": self.uri, "name": name}),
            None => json!({"uri": self.uri}),
        }
    }
}

/// The result of `roots/list` for `roots`.
pub(crate) fn roots_result(roots: &[Root]) -> Value {
    json!({"roots": roots.iter().map(Root::to_value).collect::<Vec<_>>()})
}
