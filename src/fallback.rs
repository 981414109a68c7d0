//! Which GitHub MCP server to use: the real one, or the mock with a visible notice.
