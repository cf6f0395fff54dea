"""Anchors in curation: citing code when a learning is written, and reporting, fixing and
reviewing anchors across the whole store (where git may be asked about renames and diffs).
"""
