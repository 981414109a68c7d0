//! The MCP era found for each HTTP origin, remembered for the life of the process (the
//! 2026-07-28 versioning page: a client probes once per origin, not once per connection). A
//! stdio server is probed once per process it runs as, which its session already does.

use agentwire::config::{ServerConfig, ServerTransport};
use agentwire::mcp::{Era, ProtocolChoice};
use std::collections::BTreeMap;
use std::sync::Mutex;

static BY_ORIGIN: Mutex<BTreeMap<String, Era>> = Mutex::new(BTreeMap::new());

/// `scheme://host[:port]` of an HTTP server's URL; `None` for other transports.
fn origin(server: &ServerConfig) -> Option<String> {
    let ServerTransport::Http { url, .. } = &server.transport else {
        return None;
    };
    let parsed = reqwest::Url::parse(url).ok()?;
    Some(parsed.origin().ascii_serialization())
}

/// The protocol to open `server` with: its configured choice, or under `auto` the era already
/// found for its origin.
pub fn protocol_for(server: &ServerConfig) -> ProtocolChoice {
    if server.protocol != ProtocolChoice::Auto {
        return server.protocol;
    }
    let known = origin(server).and_then(|o| BY_ORIGIN.lock().ok()?.get(&o).copied());
    match known {
        Some(Era::Modern) => ProtocolChoice::Modern,
        Some(_) => ProtocolChoice::Legacy,
        None => ProtocolChoice::Auto,
    }
}

/// Remembers the era an `auto` server turned out to speak.
pub fn remember(server: &ServerConfig, era: Era) {
    if server.protocol != ProtocolChoice::Auto {
        return;
    }
    if let (Some(origin), Ok(mut map)) = (origin(server), BY_ORIGIN.lock()) {
        map.insert(origin, era);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use agentwire::config::McpConfig;

    fn http(url: &str, protocol: &str) -> ServerConfig {
        let text =
            format!(r#"{{"mcpServers": {{"s": {{"type": "http", "url": "{url}"{protocol}}}}}}}"#);
        let config = McpConfig::parse("t.json", &text, &|_| None).unwrap();
        config.servers.into_iter().next().unwrap()
    }

    #[test]
    fn an_origins_era_is_remembered_for_auto_servers_only() {
        let first = http("http://127.0.0.1:9/a", "");
        let same_origin = http("http://127.0.0.1:9/b", "");
        let other = http("http://127.0.0.1:10/a", "");
        assert_eq!(protocol_for(&first), ProtocolChoice::Auto);
        remember(&first, Era::Modern);
        assert_eq!(protocol_for(&same_origin), ProtocolChoice::Modern);
        assert_eq!(protocol_for(&other), ProtocolChoice::Auto);
        let pinned = http("http://127.0.0.1:9/c", r#", "protocol": "legacy""#);
        assert_eq!(protocol_for(&pinned), ProtocolChoice::Legacy);
    }
}
