//! The built-in mock GitHub MCP server: real JSON-RPC over canned data.
