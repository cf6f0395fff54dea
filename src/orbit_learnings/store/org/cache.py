"""The org repository's clone in the user cache, and each pinned commit's files.

`fetch` brings the followed branch into a bare clone (never the work tree; the network
only here, never on a hot path) and keeps every commit ever pinned reachable, so a
force-pushed or deleted branch never takes the pin's learnings away. `materialise`
writes a pinned commit's `.orbit/learnings/` once, through git plumbing (`ls-tree`,
`cat-file --batch`), into `trees/<sha>/`: reads then stat a plain folder as they do a
project store, and nothing git or the org repository does runs at read time.

The org repository is data from anyone: only regular blobs are written (links,
submodules and odd names are skipped), each at most `MAX_FILE_BYTES`, the whole tree
bounded in files and bytes, and every path stays below the tree folder. Its IDs take the
prefix its `.orbit/config.yaml` declares (`id_prefix`, `O` when none or when it cannot
be one: `L`, `../x`, 300 letters): only bundles named with that prefix are written, so
an org's `L-0001` can never pass for a project's, and the checked prefix is written as
the tree's one-line config (`store.org.prefix`).
"""

from __future__ import annotations

import os
import subprocess

from orbit_learnings.core import ids
from orbit_learnings.core.errors import OrbitError
from orbit_learnings.store.fileops import MAX_FILE_BYTES
from orbit_learnings.store.layout import CONFIG_FILE, LEARNINGS_DIR, ORBIT_DIR
from orbit_learnings.store.org.pin import CLONE_DIR, TREES_DIR, Pin, checkout_dir, tree_dir

MAX_TREE_FILES = 200_000  # 5,000 learnings with sidecars are ~15,000
MAX_TREE_BYTES = 512 * 1024 * 1024
MAX_CONFIG_BYTES = 64 * 1024
GIT_TIMEOUT = 300.0
PIN_REFS = "refs/orbit/pins/"  # every pinned commit stays reachable in the clone
_LEARNINGS = f"{ORBIT_DIR}/{LEARNINGS_DIR}/"


def git(
    args: list[str],
    *,
    cwd: str | None = None,
    check: bool = True,
    stdin: bytes | None = None,
    env: dict[str, str] | None = None,
) -> subprocess.CompletedProcess[bytes]:
    """Run git without prompts, hooks or the user's pager; a failure is one OrbitError."""
    env = {
        **os.environ,
        "GIT_TERMINAL_PROMPT": "0",
        "GIT_ASKPASS": "true",
        "LC_ALL": "C",
        **(env or {}),
    }
    try:
        done = subprocess.run(
            ["git", "-c", "core.hooksPath=/dev/null", *args],
            cwd=cwd,
            input=stdin,
            capture_output=True,
            env=env,
            timeout=GIT_TIMEOUT,
            check=False,
        )
    except FileNotFoundError:
        raise OrbitError("git is not installed; the org level needs it") from None
    except subprocess.TimeoutExpired:
        raise OrbitError(f"git {args[0]} took longer than {GIT_TIMEOUT:.0f} s; stopped") from None
    if check and done.returncode != 0:
        raise OrbitError(f"git {args[0]} failed: {git_reason(done.stderr) or done.returncode}")
    return done


def git_reason(stderr: bytes) -> str:
    """The line of git's complaint that says what went wrong: its first `fatal:` or
    `error:` line (the last one is often "and the repository exists.")."""
    lines = [line.strip() for line in stderr.decode(errors="replace").splitlines() if line.strip()]
    said = [line for line in lines if line.startswith(("fatal:", "error:"))]
    return (said or lines or [""])[0].removeprefix("fatal: ").removeprefix("error: ")


def clone_dir(url: str) -> str:
    return os.path.join(checkout_dir(url), CLONE_DIR)


def ensure_clone(url: str) -> str:
    """The bare clone of `url` in the cache, created empty on first use."""
    folder = clone_dir(url)
    if not os.path.isdir(os.path.join(folder, "objects")):
        os.makedirs(folder, exist_ok=True)
        git(["init", "--bare", "--quiet", folder])
        git(["config", "remote.origin.url", url], cwd=folder)
        git(["config", "gc.auto", "0"], cwd=folder)  # a pinned commit is never pruned
    return folder


def remote_ref(branch: str) -> str:
    return f"refs/remotes/origin/{branch}"


def tip(clone: str, branch: str) -> str | None:
    """The branch's commit as last fetched, None when the clone has no such branch."""
    done = git(
        ["rev-parse", "--verify", "-q", remote_ref(branch) + "^{commit}"], cwd=clone, check=False
    )
    return done.stdout.decode().strip() or None if done.returncode == 0 else None


def has_commit(clone: str, sha: str) -> bool:
    done = git(["cat-file", "-e", sha + "^{commit}"], cwd=clone, check=False)
    return done.returncode == 0


def is_ancestor(clone: str, older: str, newer: str) -> bool:
    done = git(["merge-base", "--is-ancestor", older, newer], cwd=clone, check=False)
    return done.returncode == 0


class Fetched:
    """What a fetch found: the branch's tip before and after, and what became of it."""

    __slots__ = ("after", "before", "gone", "rewritten")

    def __init__(self, before: str | None, after: str | None, *, gone: bool) -> None:
        self.before, self.after, self.gone = before, after, gone
        self.rewritten = False  # the old tip is not in the new one's history: force-pushed


def fetch(url: str, branch: str) -> Fetched:
    """Bring `branch` of the org repository into the cache. A branch gone from the remote
    keeps its last fetched tip here (and every pinned commit stays reachable)."""
    clone = ensure_clone(url)
    git(["config", "remote.origin.url", url], cwd=clone)
    before = tip(clone, branch)
    done = git(
        ["fetch", "--quiet", "--no-tags", "origin", f"+refs/heads/{branch}:{remote_ref(branch)}"],
        cwd=clone,
        check=False,
    )
    if done.returncode != 0:
        message = done.stderr.decode(errors="replace")
        if "couldn't find remote ref" in message or "no such ref" in message.lower():
            return Fetched(before, before, gone=True)
        raise OrbitError(f"cannot fetch {url}: {git_reason(done.stderr) or 'git fetch failed'}")
    result = Fetched(before, tip(clone, branch), gone=False)
    if before and result.after and not is_ancestor(clone, before, result.after):
        result.rewritten = True
    return result


def fetch_commit(url: str, sha: str) -> bool:
    """Ask the remote for one commit by its SHA (a teammate's pin this cache never saw)."""
    clone = ensure_clone(url)
    if has_commit(clone, sha):
        return True
    git(["fetch", "--quiet", "--no-tags", "origin", sha], cwd=clone, check=False)
    return has_commit(clone, sha)


def keep_pinned(url: str, sha: str) -> None:
    git(["update-ref", PIN_REFS + sha, sha], cwd=clone_dir(url))


class Skipped:
    """A file of the org tree left out, and why (a link, a submodule, too large, a name)."""

    __slots__ = ("path", "reason")

    def __init__(self, path: str, reason: str) -> None:
        self.path, self.reason = path, reason

    def __str__(self) -> str:
        return f"{self.path}: {self.reason}"


def materialise(pin: Pin) -> tuple[str, list[Skipped]]:
    """The pinned commit's learnings as plain files in the cache (written once, then
    reused by every repository on this machine that pins the same commit)."""
    final = tree_dir(pin)
    if os.path.isdir(os.path.join(final, ORBIT_DIR, LEARNINGS_DIR)):
        return final, []
    clone = clone_dir(pin.url)
    if not os.path.isdir(clone) or not has_commit(clone, pin.commit):
        raise OrbitError(
            f"the pinned org commit {pin.short} is not in the cache; `orbit org fetch` brings it"
        )
    prefix, problem = declared_prefix(clone, pin.commit)
    wanted, skipped = _listing(clone, pin.commit, prefix)
    if problem:
        skipped.insert(0, Skipped(f"{ORBIT_DIR}/{CONFIG_FILE}", problem))
    contents = _blobs(clone, [oid for _, oid in wanted])
    trees = os.path.join(checkout_dir(pin.url), TREES_DIR)
    staging = os.path.join(trees, f".tmp-{pin.commit}-{os.getpid()}")
    _write_tree(staging, wanted, contents)
    if prefix != ids.PREFIXES["org"]:
        from orbit_learnings.store.org.prefix import TREE_CONFIG, tree_config_text

        with open(os.path.join(staging, *TREE_CONFIG.split("/")), "x", encoding="ascii") as out:
            out.write(tree_config_text(prefix))
    try:
        os.rename(staging, final)
    except OSError:  # another process wrote it first: same commit, same files
        import shutil

        shutil.rmtree(staging, ignore_errors=True)
    return final, skipped


def declared_prefix(clone: str, sha: str) -> tuple[str, str | None]:
    """The ID prefix the org commit declares (`id_prefix` in its `.orbit/config.yaml`),
    and why its declaration was not taken when it cannot be one (then `O`)."""
    default = ids.PREFIXES["org"]
    name = f"{ORBIT_DIR}/{CONFIG_FILE}"
    listed = git(["ls-tree", "-l", "-z", sha, "--", name], cwd=clone).stdout.split(b"\0")[0]
    if not listed:
        return default, None
    mode, kind, oid, size = listed.partition(b"\t")[0].decode().split()
    if mode == "120000" or kind != "blob" or int(size) > MAX_CONFIG_BYTES:
        return (
            default,
            f"not a plain file of at most {MAX_CONFIG_BYTES} bytes; IDs read as {default}-",
        )
    text = git(["cat-file", "blob", oid], cwd=clone).stdout.decode("utf-8", errors="replace")
    from orbit_learnings.store.yamlio import YamlSyntaxError, safe_load

    try:
        data = safe_load(text)
    except (YamlSyntaxError, OrbitError) as exc:
        return default, f"unreadable ({exc}); IDs read as {default}-"
    value = data.get("id_prefix") if isinstance(data, dict) else None
    if value is None:
        return default, None
    problem = ids.prefix_problem(value)
    if problem is not None:
        return default, f"id_prefix refused: {problem}; IDs read as {default}-"
    return str(value), None


def _listing(clone: str, sha: str, prefix: str) -> tuple[list[tuple[str, str]], list[Skipped]]:
    """(path below the learnings folder, blob id) of every file worth writing: those of
    bundles named with the org's prefix (and any file beside the bundles)."""
    out = git(["ls-tree", "-r", "-z", "-l", sha, "--", _LEARNINGS], cwd=clone).stdout
    wanted: list[tuple[str, str]] = []
    skipped: list[Skipped] = []
    total = 0
    for entry in out.split(b"\0"):
        if not entry:
            continue
        meta, _, raw_path = entry.partition(b"\t")
        mode, kind, oid, size = meta.decode().split()
        path = raw_path.decode("utf-8", errors="replace")
        inner = path.removeprefix(_LEARNINGS)
        reason = _refusal(mode, kind, size, inner) or _foreign(inner, prefix)
        if reason:
            skipped.append(Skipped(path, reason))
            continue
        total += int(size)
        wanted.append((inner, oid))
        if len(wanted) > MAX_TREE_FILES or total > MAX_TREE_BYTES:
            raise OrbitError(
                f"the org commit {sha[:12]} holds more than {MAX_TREE_FILES} files or"
                f" {MAX_TREE_BYTES // 2**20} MiB of learnings; orbit does not read it"
            )
    return wanted, skipped


def _refusal(mode: str, kind: str, size: str, inner: str) -> str | None:
    """Why a tree entry is not written: only a regular file of a bundle (or beside the
    bundles) with a plain name and at most the readers' bound is."""
    if mode == "120000":
        return "a symbolic link; orbit does not follow links"
    if kind != "blob":
        return f"a {kind}, not a file"
    parts = inner.split("/")
    if len(parts) > 2 or any(p in ("", ".", "..") or p.lower() == ".git" for p in parts):
        return "not a learning's file"
    if "\\" in inner or "\ufffd" in inner:
        return "not a plain file name"
    if int(size) > MAX_FILE_BYTES:
        return f"larger than {MAX_FILE_BYTES} bytes; orbit does not read it"
    return None


def _foreign(inner: str, prefix: str) -> str | None:
    """Why a bundle's file is not the org's: its folder is not named with the org prefix
    (an `L-0001` in an org store would pass for a project learning)."""
    folder, slash, _ = inner.partition("/")
    if slash and not folder.startswith(prefix + "-"):
        return f"not a {prefix}- learning (the org's IDs are {prefix}-)"
    return None


def _blobs(clone: str, oids: list[str]) -> list[bytes]:
    """Each blob's bytes, in order, from one `git cat-file --batch`."""
    if not oids:
        return []
    out = git(["cat-file", "--batch"], cwd=clone, stdin="\n".join(oids).encode() + b"\n").stdout
    contents: list[bytes] = []
    position = 0
    for _ in oids:
        header_end = out.index(b"\n", position)
        size = int(out[position:header_end].split()[2])
        start = header_end + 1
        contents.append(out[start : start + size])
        position = start + size + 1
    return contents


def _write_tree(staging: str, wanted: list[tuple[str, str]], contents: list[bytes]) -> None:
    """Write into a fresh folder, creating every file (never opening one that exists,
    never through a link), so nothing lands outside it."""
    import shutil

    shutil.rmtree(staging, ignore_errors=True)
    learnings = os.path.join(staging, ORBIT_DIR, LEARNINGS_DIR)
    os.makedirs(learnings)
    flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_NOFOLLOW", 0)
    for (inner, _), data in zip(wanted, contents, strict=True):
        target = os.path.join(learnings, *inner.split("/"))
        os.makedirs(os.path.dirname(target), exist_ok=True)
        fd = os.open(target, flags, 0o444)
        with os.fdopen(fd, "wb") as handle:
            handle.write(data)
