"""Claude Code: the hook that adds learnings to file-tool calls, and its installer."""
