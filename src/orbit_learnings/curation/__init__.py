"""Keeping the store healthy: check, staleness, merge collisions, import/export, drafts."""
