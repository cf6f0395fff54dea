"""Which org learnings a repository reads: `.orbit/org.lock`, and where their tree is cached.

A subscribing repository commits `.orbit/org.lock`; every teammate and CI then reads
the same org commit, and moving it (`orbit org update`) is a one-line diff:

    # orbit org lock: `orbit org update` moves the commit, `orbit org fetch` never does
    url: git@example.com:acme/learnings.git
    branch: main
    commit: 0123456789abcdef0123456789abcdef01234567

The org repository's clone and each pinned commit's files live in the user cache
(`ORBIT_ORG_CACHE`, else platformdirs' user cache), never in the work tree. Stdlib only
and no git (nor anything that knows a workspace): every hot read asks
`org_tree` which tree to read, and a tree is a plain
folder written once per commit by `store.org.cache`.
"""

from __future__ import annotations

import os
import sys

from orbit_learnings.core.errors import OrbitError
from orbit_learnings.store.layout import LEARNINGS_DIR, ORBIT_DIR, ORG_LOCK_FILE

ORG_CACHE_ENV = "ORBIT_ORG_CACHE"
APP_NAME = "orbit-learnings"
LOCK_HEADER = "# orbit org lock: `orbit org update` moves the commit, `orbit org fetch` never does"
LOCK_KEYS = ("url", "branch", "commit")
MAX_LOCK_BYTES = 4096
TREES_DIR = "trees"
CLONE_DIR = "clone.git"


class Pin:
    """An org repository, the branch followed, and the commit read (40 hex digits)."""

    __slots__ = ("branch", "commit", "url")

    def __init__(self, url: str, branch: str, commit: str) -> None:
        self.url = url
        self.branch = branch
        self.commit = commit

    def text(self) -> str:
        """The lock file: one key a line, so moving the pin changes one line."""
        return f"{LOCK_HEADER}\nurl: {self.url}\nbranch: {self.branch}\ncommit: {self.commit}\n"

    @property
    def short(self) -> str:
        return self.commit[:12]


def lock_path(root: str) -> str:
    """`.orbit/org.lock` of the repository at `root`."""
    return os.path.join(root, ORBIT_DIR, ORG_LOCK_FILE)


def read_pin(root: str) -> Pin | None:
    """The committed pin, None when this repository subscribes to no org. A lock that is
    not ours to read (a link out, a FIFO, too big) or is malformed is a clear error."""
    from orbit_learnings.store.fileops import read_repo_text

    orbit = os.path.join(root, ORBIT_DIR)
    try:
        text = read_repo_text(
            lock_path(root),
            within=orbit,
            name=f"{ORBIT_DIR}/{ORG_LOCK_FILE}",
            limit=MAX_LOCK_BYTES,
        )
    except (FileNotFoundError, NotADirectoryError):
        return None
    return parse_pin(text)


def parse_pin(text: str) -> Pin:
    values: dict[str, str] = {}
    for line in text.splitlines():
        key, colon, value = line.partition(":")
        if colon and not line.startswith("#") and key.strip() in LOCK_KEYS:
            values[key.strip()] = value.strip()
    missing = [k for k in LOCK_KEYS if not values.get(k)]
    commit = values.get("commit", "")
    if missing or len(commit) != 40 or any(c not in "0123456789abcdef" for c in commit):
        problem = f"no {missing[0]}" if missing else f"commit {commit[:60]!r} is not a full SHA"
        raise OrbitError(
            f"{ORBIT_DIR}/{ORG_LOCK_FILE}: {problem}; `orbit org subscribe URL` writes it"
        )
    return Pin(values["url"], values["branch"], commit)


def cache_root() -> str:
    """Where org checkouts live: `ORBIT_ORG_CACHE`, else the user cache (on Linux the XDG
    rule computed directly: importing platformdirs costs a hook more than the lookup)."""
    explicit = os.environ.get(ORG_CACHE_ENV, "").strip()
    if explicit:
        return os.path.abspath(os.path.expanduser(explicit))
    if sys.platform.startswith("linux"):
        base = os.environ.get("XDG_CACHE_HOME", "").strip() or os.path.expanduser("~/.cache")
        return os.path.join(base, APP_NAME, "org")
    from platformdirs import user_cache_dir

    return os.path.join(user_cache_dir(APP_NAME, appauthor=False), "org")


def checkout_dir(url: str) -> str:
    """One folder per org repository URL: a readable name plus a hash of the URL."""
    tail = url.rstrip("/").rsplit("/", 1)[-1].rsplit(":", 1)[-1].removesuffix(".git")
    slug = "".join(c if c.isalnum() or c in "-_." else "-" for c in tail)[:40].strip(".") or "org"
    return os.path.join(cache_root(), f"{slug}-{_fnv1a(url):016x}")


def _fnv1a(text: str) -> int:
    """FNV-1a, 64 bits: a folder name, not a defence; hashlib would cost a hook 20 ms."""
    value = 0xCBF29CE484222325
    for byte in text.encode("utf-8", "surrogateescape"):
        value = ((value ^ byte) * 0x100000001B3) & 0xFFFFFFFFFFFFFFFF
    return value


def tree_dir(pin: Pin) -> str:
    """The pinned commit's files, written once (`store.org.cache.materialise`)."""
    return os.path.join(checkout_dir(pin.url), TREES_DIR, pin.commit)


def org_tree(root: str) -> tuple[str | None, str | None]:
    """The pinned org tree the repository at `root` reads, or (None, a one-line hint) when
    its pinned commit is not in the cache yet; (None, None) when it subscribes to no org.
    Reads only: never git, never the network."""
    try:
        pin = read_pin(root)
    except OrbitError as exc:
        return None, exc.message
    if pin is None:
        return None, None
    folder = tree_dir(pin)
    if not os.path.isdir(os.path.join(folder, ORBIT_DIR, LEARNINGS_DIR)):
        return None, (
            f"org learnings at {pin.short} are not in the cache; `orbit org fetch` brings them"
            " (project and personal learnings still answer)"
        )
    return folder, None
