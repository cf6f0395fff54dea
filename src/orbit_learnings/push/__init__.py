"""Choosing what an agent sees: injection caps, session dedup, rendering, attaching, context."""
