"""Which ID prefix besides `L`, `U` and `O` a repository knows: the one it declares as an
org repository (`id_prefix: ACME` in its `.orbit/config.yaml`, `orbit org init --prefix`),
or the one the org it subscribes to declares, as written into the pinned commit's cached
tree (`TREE_CONFIG`, one validated line) when the commit was materialised.

`store.workspace.declare_prefixes` only names the repository: nothing is read until an
ID with an unknown prefix needs judging (`core.ids.declared_prefixes`), so a hook reading
`L-`, `U-` and `O-` learnings never pays for it. A declaration that is not a valid
prefix is no prefix.
"""

from __future__ import annotations

import os
import re

from orbit_learnings.core import ids
from orbit_learnings.core.errors import OrbitError
from orbit_learnings.store.layout import CONFIG_FILE, ORBIT_DIR
from orbit_learnings.store.org.pin import read_pin, tree_dir

_PLAIN = re.compile(r"^id_prefix:[ \t]*['\"]?([A-Za-z]{1,8})['\"]?[ \t]*(?:#.*)?$", re.MULTILINE)


def declared(root: str, level: str) -> list[str]:
    """The prefixes the store at `root` declares or reads: an org tree its own; a project
    its own declaration (an org repository) or its subscribed org's. (Paths, not a
    `Workspace`: the workspace module asks this.)"""
    if level == "org":
        found = tree_prefix(root)
        return [found] if found else []
    if level != "project":
        return []
    own = own_prefix(root)
    if own is not None:
        return [own]
    try:
        pin = read_pin(root)
    except OrbitError:
        return []
    found = tree_prefix(tree_dir(pin)) if pin is not None else None
    return [found] if found else []


def own_prefix(root: str) -> str | None:
    """The prefix this repository declares (`id_prefix`), None when it declares none or
    one that is not valid (`store.config.id_prefix` says why, where a write needs it)."""
    from orbit_learnings.store.fileops import read_config_text

    try:
        text = read_config_text(root)
    except (OSError, OrbitError):
        return None
    if "id_prefix" not in text:
        return None
    plain = _PLAIN.search(text)  # the line `org init` writes: no YAML parser needed
    value: object = plain.group(1) if plain else None
    if plain is None:  # another spelling: the YAML parser reads it
        from orbit_learnings.store.yamlio import YamlSyntaxError, safe_load

        try:
            data = safe_load(text)
        except (YamlSyntaxError, OrbitError):
            return None
        value = data.get("id_prefix") if isinstance(data, dict) else None
    return value if isinstance(value, str) and ids.prefix_problem(value) is None else None


TREE_CONFIG = f"{ORBIT_DIR}/{CONFIG_FILE}"  # in a cached org tree: `id_prefix: X`, checked


def tree_prefix(tree: str) -> str | None:
    """The prefix a cached org tree was materialised with, None for the default `O`."""
    path = os.path.join(tree, *TREE_CONFIG.split("/"))
    try:
        with open(path, encoding="ascii", errors="replace") as handle:
            text = handle.read(256)
    except OSError:
        return None
    plain = _PLAIN.search(text)
    found = plain.group(1) if plain else None
    return found if found is not None and ids.prefix_problem(found) is None else None


def tree_config_text(prefix: str) -> str:
    return f"id_prefix: {prefix}\n"
