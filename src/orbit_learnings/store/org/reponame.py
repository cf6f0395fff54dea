"""A subscribing repository's name, which the org learnings' `scope.repos` globs match.

Asked on a hot read whenever an org learning names repositories, so it never starts git
or parses YAML when it need not: `origin` is read from git's config file, and a plain
`repo_name: web` line of `.orbit/config.yaml` is read as it is.
"""

from __future__ import annotations

import os

from orbit_learnings.store.workspace import Workspace


def repo_name(project: Workspace) -> str:
    """The name `scope.repos` globs match: `repo_name` in `.orbit/config.yaml`, else the
    last part of the `origin` URL without `.git`, else the folder's name."""
    named = _configured_name(project)
    if named:
        return named
    url = _origin_url(project.root_str)
    if url:
        tail = url.rstrip("/").rsplit("/", 1)[-1].rsplit(":", 1)[-1].removesuffix(".git")
        if tail:
            return tail
    return os.path.basename(project.root_str.rstrip(os.sep))


def _origin_url(root: str) -> str | None:
    """`remote.origin.url` read from git's config file (no git process on a hot read);
    a worktree's `.git` file leads to the common folder's config."""
    dot_git = os.path.join(root, ".git")
    try:
        if os.path.isfile(dot_git):
            with open(dot_git, encoding="utf-8") as handle:
                gitdir = handle.read(4096).strip().removeprefix("gitdir:").strip()
            gitdir = os.path.join(root, gitdir)
            common = os.path.join(gitdir, "commondir")
            if os.path.isfile(common):
                with open(common, encoding="utf-8") as handle:
                    gitdir = os.path.join(gitdir, handle.read(4096).strip())
            dot_git = gitdir
        with open(os.path.join(dot_git, "config"), encoding="utf-8", errors="replace") as handle:
            lines = handle.read(256 * 1024).splitlines()
    except OSError:
        return None
    inside = False
    for line in lines:
        text = line.strip()
        if text.startswith("["):
            inside = text.replace(" ", "") in ('[remote"origin"]',)
        elif inside and text.partition("=")[0].strip().lower() == "url":
            return text.partition("=")[2].strip()
    return None


def _configured_name(project: Workspace) -> str | None:
    """`repo_name` from `.orbit/config.yaml`: a plain `repo_name: web` line is read as it
    is, since a hook that asks must not import a YAML parser (50 ms); any other spelling of
    the key goes through `store.config`."""
    import re

    from orbit_learnings.store.fileops import read_config_text

    try:
        text = read_config_text(project.root_str)
    except (FileNotFoundError, NotADirectoryError):
        return None
    if "repo_name" not in text:
        return None
    plain = re.search(r"^repo_name:[ \t]*([A-Za-z0-9._-]+)[ \t]*(?:#.*)?$", text, re.MULTILINE)
    if plain:
        return plain.group(1)
    from orbit_learnings.store.config import configured_repo_name

    return configured_repo_name(project)
