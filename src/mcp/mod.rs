//! The MCP client session: handshake, tools, notifications and server requests.
