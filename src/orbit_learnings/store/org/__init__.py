"""The org level: a repository of learnings many repositories subscribe to, pinned by commit."""
