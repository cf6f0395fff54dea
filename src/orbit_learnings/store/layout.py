"""Where everything lives under `.orbit/`: every folder and file name, defined once.

    .orbit/
      config.yaml                     team settings (ids, search weights)
      glossary.yaml                   the team's acronyms and aliases for search
      org.lock                        the org store this repository reads, pinned to a commit
      learnings/<id>/learning.yaml    the record
      learnings/<id>/votes.jsonl      append-only sidecars, merged by union
      learnings/<id>/feedback.jsonl
      learnings/tags.yaml             the store-wide tag list
      org-feedback/<id>/votes.jsonl   this repository's votes on an org learning (`O-0012`),
      org-feedback/<id>/feedback.jsonl  and its feedback: committed here, never in the org cache
      state/                          derived and disposable, never in git:
        index.sqlite3, locks/, sessions/, injections.jsonl, drafts/, capture-moments.json,
        stale.json                    the last staleness report and what it was computed for
        org/                          this repository's index of its org store, its feedback in

Stdlib only: the freshness scan reads these names on every hot read.
"""

from __future__ import annotations

import os

ORBIT_DIR = ".orbit"
LEARNINGS_DIR = "learnings"
STATE_DIR = "state"
CONFIG_FILE = "config.yaml"
GLOSSARY_FILE = "glossary.yaml"
ORG_LOCK_FILE = "org.lock"  # committed: the org learnings' repository, branch and pinned commit
LEARNING_FILE = "learning.yaml"
VOTES_FILE = "votes.jsonl"
FEEDBACK_FILE = "feedback.jsonl"
SIDECARS = (VOTES_FILE, FEEDBACK_FILE)  # append-only: git's union merge combines them
ORG_FEEDBACK_DIR = "org-feedback"  # beside learnings/: a subscriber's sidecars of org learnings
ORG_STATE_DIR = "org"  # in state/: a subscriber's own index of the org store it reads
TAGS_FILE = "tags.yaml"  # the store-wide tag list, beside the bundles
LEGACY_SUPERSEDED_DIR = "superseded"  # the flat layout's folder of superseded records
INDEX_FILE = "index.sqlite3"
LOCKS_DIR = "locks"
SESSIONS_DIR = "sessions"
SESSION_SHOWN_FILE = "learnings.json"  # in a session folder: the IDs it was shown
SESSION_LOCK_FILE = "lock"  # in a session folder: guards its files, taken with a deadline
SESSION_CLAIMED_FILE = "subagent-tasks.json"  # in a session folder: tasks handed to subagents
DRAFTS_DIR = "drafts"  # in state/: `extract`'s drafts awaiting triage
DRAFTS_LOCK_FILE = ".lock"  # in drafts/: two `extract` runs (two sessions ending) take turns
CAPTURE_MOMENTS_FILE = "capture-moments.json"  # in state/: the capture nudge's per-session hint
INJECTIONS_FILE = "injections.jsonl"
STALE_CACHE_FILE = "stale.json"  # in state/: the last `find_stale` result and its key
TASKS_DIR = "tasks"  # an optional task store beside the learnings

LEARNINGS_PREFIX = f"{ORBIT_DIR}/{LEARNINGS_DIR}"  # repo-relative, POSIX


def bundle_display(folder: str, filename: str = LEARNING_FILE) -> str:
    """The repo-relative name of a file in a bundle, as problems and messages show it."""
    return f"{LEARNINGS_PREFIX}/{folder}/{filename}"


def legacy_files(folder: str, others: list[str]) -> list[str]:
    """YAML files of the flat pre-bundle layout (`<id>.yaml`, `superseded/<id>.yaml`),
    relative to the learnings folder; `others` are its entries that are not bundles.
    Reads and writes both refuse them until `migrate-layout` moves them."""
    legacy = [n for n in others if n.endswith((".yaml", ".yml")) and n != TAGS_FILE]
    if LEGACY_SUPERSEDED_DIR in others:
        legacy += [
            f"{LEGACY_SUPERSEDED_DIR}/{n}"
            for n in os.listdir(os.path.join(folder, LEGACY_SUPERSEDED_DIR))
            if n.endswith((".yaml", ".yml"))
        ]
    return sorted(legacy)
