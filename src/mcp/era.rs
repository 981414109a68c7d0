//! The two eras of MCP: the `initialize` handshake (2025-11-25 and before) and the stateless
//! revision (2026-07-28), and how a session picks one.

use std::fmt;

/// The stateless revision: no handshake, `_meta` on every request, `server/discover`.
pub const MODERN_PROTOCOL_VERSION: &str = "2026-07-28";

/// Which era a session speaks.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum Era {
    /// `initialize`, a session, server requests (2025-11-25 and before).
    Legacy,
    /// Per-request `_meta`, `server/discover`, `input_required` results (2026-07-28).
    Modern,
}

impl Era {
    /// `"legacy"` or `"modern"`, as shown by `mcp list` and the npm package.
    pub fn as_str(self) -> &'static str {
        match self {
            Era::Legacy => "legacy",
            Era::Modern => "modern",
        }
    }
}

impl fmt::Display for Era {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// The `"protocol"` a server is configured with.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum ProtocolChoice {
    /// Probe with `server/discover`; fall back to `initialize` when the answer is not modern.
    Auto,
    /// 2026-07-28 only: a server that does not speak it is an error.
    Modern,
    /// `initialize` only, byte for byte as before the modern era existed.
    #[default]
    Legacy,
}

impl ProtocolChoice {
    /// Reads `"auto"`, `"2026-07-28"` or `"legacy"`; anything else is an error naming the value.
    pub fn parse(text: &str) -> Result<ProtocolChoice, String> {
        match text {
            "auto" => Ok(ProtocolChoice::Auto),
            MODERN_PROTOCOL_VERSION => Ok(ProtocolChoice::Modern),
            "legacy" => Ok(ProtocolChoice::Legacy),
            other => Err(format!(
                "unknown protocol {}: expected \"auto\", \"{MODERN_PROTOCOL_VERSION}\" or \"legacy\"",
                crate::json::quoted(other)
            )),
        }
    }

    /// The text [`parse`](Self::parse) reads back.
    pub fn as_str(self) -> &'static str {
        match self {
            ProtocolChoice::Auto => "auto",
            ProtocolChoice::Modern => MODERN_PROTOCOL_VERSION,
            ProtocolChoice::Legacy => "legacy",
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn choices_read_back_and_unknown_ones_are_named() {
        for choice in [
            ProtocolChoice::Auto,
            ProtocolChoice::Modern,
            ProtocolChoice::Legacy,
        ] {
            assert_eq!(ProtocolChoice::parse(choice.as_str()), Ok(choice));
        }
        let error = ProtocolChoice::parse("2025-11-25").unwrap_err();
        assert!(error.contains("\"2025-11-25\""), "{error}");
    }
}
