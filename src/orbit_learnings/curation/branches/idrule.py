"""Whose ID wins when two branches hold one learning ID.

The rule: the learning already on the target branch (the branch work merges into,
`origin/main` unless `.orbit/config.yaml` says `target_branch: ...`) keeps its ID;
only the newcomer is renumbered. A published ID has been voted on, linked by
`supersedes`, cited in injected context and in reviews: moving it would make all
of those point at a different lesson. `check --base`, `renumber` and
`resolve-conflict` all decide through this module.

A learning is recognised across branches by git's history first (the same text
as the target's, or already there when the branch forked) and by its birth record
(`created_at`, `created_by`) only to tell two sides apart: two developers' agents
can add learnings in the same second under the same name.
"""

from __future__ import annotations

from typing import Any

from orbit_learnings.core.errors import OrbitError, UsageError
from orbit_learnings.core.ids import is_learning_id
from orbit_learnings.core.timestamps import normalise_ts
from orbit_learnings.curation import gitutil
from orbit_learnings.store import config
from orbit_learnings.store.layout import LEARNINGS_PREFIX, bundle_display
from orbit_learnings.store.workspace import Workspace

DEFAULT_TARGET = "origin/main"
FALLBACK_TARGETS = ("main", "master")
TARGET_KEY = "target_branch"

Identity = tuple[str, str]


def target_ref(ws: Workspace, explicit: str | None = None) -> str | None:
    """The target branch to judge by: `explicit`, else the configured one, else `origin/main`,
    else a local `main`/`master`; None when none exists (a repository with no such branch)."""
    root = ws.root_str
    if explicit:
        if not gitutil.rev_exists(root, explicit):
            raise UsageError(f"unknown git revision {explicit!r}")
        return explicit
    configured = config.load(ws).get(TARGET_KEY)
    if configured is not None and not isinstance(configured, str):
        raise OrbitError(f".orbit/config.yaml: {TARGET_KEY} must be a branch name")
    candidates = (configured or DEFAULT_TARGET, *FALLBACK_TARGETS)
    try:  # one git process for the three names: every `learning add` asks
        found = gitutil.resolve_commits(root, candidates)
    except gitutil.GitUnavailable:
        return None
    return next((candidate for candidate in candidates if candidate in found), None)


def ids_on(ws: Workspace, rev: str | None) -> frozenset[str]:
    """Every learning ID `rev`'s tree holds (bundle folders and legacy flat files)."""
    if rev is None:
        return frozenset()
    out = gitutil.run_git(
        ws.root_str, "ls-tree", "--name-only", f"{rev}:{LEARNINGS_PREFIX}", check=False
    )
    names = (line.strip().removesuffix(".yaml") for line in out.splitlines())
    return frozenset(name for name in names if is_learning_id(name))


def taken_on_target(ws: Workspace, explicit: str | None = None) -> frozenset[str]:
    """The IDs a new ID must avoid besides this store's own: the target branch's, so an
    `add`, `renumber` or `resolve-conflict` on a branch never picks an ID the branch it
    merges into already has (following `check --base`'s advice once is enough). Empty for
    the personal store, random IDs (they do not collide) and outside git."""
    from orbit_learnings.store.config import id_mode

    if ws.level != "project" or id_mode(ws) == "random":
        return frozenset()
    try:
        return ids_on(ws, target_ref(ws, explicit))
    except gitutil.GitUnavailable:
        return frozenset()


def identity(text: str | None) -> Identity | None:
    """The birth record of a learning file's text; None when it has none (or is not YAML)."""
    if not text:
        return None
    from orbit_learnings.store.yamlio import YamlSyntaxError, safe_load

    try:
        data: Any = safe_load(text)
    except YamlSyntaxError:
        return None
    if not isinstance(data, dict) or data.get("created_at") is None:
        return None
    try:
        born = normalise_ts(data["created_at"])
    except ValueError:
        return None
    return born, str(data.get("created_by") or "")


def text_at(ws: Workspace, rev: str, learning_id: str) -> str | None:
    """`learning.yaml` of `learning_id` as `rev` has it; None when `rev` has no such learning."""
    return gitutil.show(ws.root_str, f"{rev}:{bundle_display(learning_id)}")


def is_published(ws: Workspace, target: str | None, learning_id: str, text: str) -> bool:
    """True when `text` (this branch's `learning_id`) is the learning the target branch has:
    the same text, or a learning the branch inherited from the target when it forked."""
    if target is None:
        return False
    published = text_at(ws, target, learning_id)
    if published is None:
        return False
    if published == text:
        return True
    try:
        fork = gitutil.run_git(ws.root_str, "merge-base", "HEAD", target).strip()
    except gitutil.GitUnavailable:
        return False
    inherited = text_at(ws, fork, learning_id)
    return inherited is not None and identity(inherited) == identity(text)
