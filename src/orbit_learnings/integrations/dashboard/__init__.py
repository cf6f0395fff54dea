"""The Knowledge > Learnings page and its JSON API (Starlette)."""
