"""Reads: list by path and tag, free-text search, show; scoring and near-duplicates."""
