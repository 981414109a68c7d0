//! Configuration: Claude-compatible `.mcp.json` parsing and `${VAR}` expansion.
