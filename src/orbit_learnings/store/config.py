"""Team settings that travel with the repository: `.orbit/config.yaml` and the glossary.

    ids: sequential        # or "random" for teams with many parallel branches
    unused_days: 90        # the window of "unused" (check, the dashboard's filter)

`.orbit/glossary.yaml` maps a term to the words that mean the same in this
codebase (`PDB: [PodDisruptionBudget]`); search adds them to the built-in groups.
Missing file or key means the default. An invalid file is a clear error.
"""

from __future__ import annotations

import os

from orbit_learnings.core.errors import OrbitError
from orbit_learnings.store.layout import CONFIG_FILE, GLOSSARY_FILE, ORBIT_DIR
from orbit_learnings.store.workspace import Workspace

TYPE_CHECKING = False  # `typing` costs a hot command 2 ms: only the type checker imports it
if TYPE_CHECKING:
    from typing import Any

    from orbit_learnings.core.fts import Glossary

ID_MODES = ("sequential", "random")


def load(ws: Workspace) -> dict[str, Any]:
    return _mapping(ws, CONFIG_FILE, "a mapping of settings")


def _mapping(ws: Workspace, name: str, expected: str) -> dict[str, Any]:
    from orbit_learnings.store.fileops import read_repo_text

    orbit = os.path.join(ws.root_str, ORBIT_DIR)
    try:  # a committed link to ~/.aws/config or /dev/zero is refused, never read
        text = read_repo_text(os.path.join(orbit, name), within=orbit, name=f"{ORBIT_DIR}/{name}")
    except (FileNotFoundError, NotADirectoryError):
        return {}
    from orbit_learnings.store.yamlio import YamlSyntaxError, safe_load

    try:
        data = safe_load(text)
    except YamlSyntaxError as exc:
        raise OrbitError(f".orbit/{name}:{exc.line}: {exc.message}") from None
    if data is None:
        return {}
    if not isinstance(data, dict):
        raise OrbitError(f".orbit/{name}:1: expected {expected}")
    return data


def glossary(ws: Workspace) -> Glossary:
    """The built-in groups plus the team's `.orbit/glossary.yaml`."""
    from orbit_learnings.core.fts import Glossary

    entries = _mapping(ws, GLOSSARY_FILE, "a mapping of term: [words that mean the same]")
    result = Glossary()
    team: dict[str, list[str]] = {}
    for key, value in entries.items():
        aliases = [value] if isinstance(value, str) else value
        if not isinstance(aliases, list) or not all(isinstance(a, str) for a in aliases):
            raise OrbitError(f".orbit/{GLOSSARY_FILE}: {key!r} must map to a list of words")
        team[str(key)] = aliases
    result.extend(team)
    return result


def id_mode(ws: Workspace) -> str:
    mode = load(ws).get("ids", "sequential")
    if mode not in ID_MODES:
        raise OrbitError(
            f".orbit/{CONFIG_FILE}: ids must be one of {', '.join(ID_MODES)}, got {mode!r}"
        )
    return str(mode)


UNUSED_KEY = "unused_days"


def unused_days(ws: Workspace) -> int | None:
    """The team's window for "unused" learnings (`unused_days`), or None when unset."""
    value = load(ws).get(UNUSED_KEY)
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int) or value < 1:
        raise OrbitError(
            f".orbit/{CONFIG_FILE}: {UNUSED_KEY} must be a whole number of days, 1 or more,"
            f" got {value!r}"
        )
    return value


ID_PREFIX_KEY = "id_prefix"  # an org store's declaration (`orbit org init`): its IDs' prefix
ORG_KEY = "org"  # a subscriber's org repository: {url, branch} (`orbit org subscribe`)
REPO_NAME_KEY = "repo_name"  # the name `scope.repos` globs match (else origin's, else the folder's)


def id_prefix(ws: Workspace) -> str:
    """The prefix `add` allocates here: the store's own (`L`, `U`), or the one an org
    repository declares (`id_prefix: O`, or its own such as `ACME`: 1-4 capitals, never
    `L` or `U`, whose IDs are the project's and the personal store's)."""
    from orbit_learnings.core.ids import prefix_problem

    declared = load(ws).get(ID_PREFIX_KEY) if ws.level == "project" else None
    if declared is None:
        return ws.prefix
    problem = prefix_problem(declared)
    if problem is not None:
        raise OrbitError(f".orbit/{CONFIG_FILE}: {ID_PREFIX_KEY}: {problem}")
    return str(declared)


def org_subscription(ws: Workspace) -> tuple[str, str] | None:
    """(url, branch) of the org repository this one reads, None when it subscribes to none."""
    value = load(ws).get(ORG_KEY)
    if value is None:
        return None
    if (
        not isinstance(value, dict)
        or not isinstance(value.get("url"), str)
        or not isinstance(value.get("branch"), str)
        or not value["url"].strip()
        or not value["branch"].strip()
    ):
        raise OrbitError(f".orbit/{CONFIG_FILE}: {ORG_KEY} must be a mapping with url and branch")
    return value["url"].strip(), value["branch"].strip()


def configured_repo_name(ws: Workspace) -> str | None:
    value = load(ws).get(REPO_NAME_KEY)
    if value is None:
        return None
    if not isinstance(value, str) or not value.strip() or "/" in value:
        raise OrbitError(f".orbit/{CONFIG_FILE}: {REPO_NAME_KEY} must be a name without '/'")
    return value.strip()


def set_setting(ws: Workspace, key: str, value: Any) -> None:
    """Set one top-level key of `.orbit/config.yaml`, leaving every other line as written."""
    from orbit_learnings.store.fileops import read_repo_text, write_repo_text
    from orbit_learnings.store.yamlio import SurgicalEditor, dump_new

    orbit = os.path.join(ws.root_str, ORBIT_DIR)
    path, name = os.path.join(orbit, CONFIG_FILE), f"{ORBIT_DIR}/{CONFIG_FILE}"
    try:
        text = read_repo_text(path, within=orbit, name=name)
    except FileNotFoundError:
        text = ""
    load(ws)  # a malformed file is reported, never overwritten
    if not text.strip() or not load(ws):
        new = text + dump_new({key: value})
    else:
        editor = SurgicalEditor(text)
        editor.set((key,), value)
        new = editor.text
    write_repo_text(path, new, within=orbit, name=name)
