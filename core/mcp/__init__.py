"""MCP servers as a second source of tools: which servers a session may start (:mod:`.config`)."""
