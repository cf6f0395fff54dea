"""The last staleness report, kept in `.orbit/state/` and recomputed off the request path.

`find_stale` asks git for every file of the repository and matches every active
learning's globs against them: seconds on a large store. Its answer changes only
when the repository or the learnings do, so it is cached under a key made of what
invalidates it: HEAD's commit, the stat of git's index file (staging, checkouts and
merges rewrite it) and the learnings index's freshness number. A reader asks
`current()`, which never runs `find_stale` itself: on a miss it starts one
recomputation in a background thread (which runs it in a child process, so that
seconds of pure Python never hold the server's GIL) and answers with the last known
report, marked pending. `fresh()` waits for the answer (tests, and `check --stale` later).

Outside git, files added or removed under the workspace do not change the key;
a change to any learning does.
"""

from __future__ import annotations

import json
import os
import threading
from dataclasses import dataclass, field

from orbit_learnings.store.layout import STALE_CACHE_FILE
from orbit_learnings.store.workspace import Workspace


@dataclass(frozen=True)
class StaleView:
    """Stale reasons by learning ID, as of `key`; `pending` while a newer one is computed."""

    reasons: dict[str, list[str]] = field(default_factory=dict)
    key: str = ""
    pending: bool = False
    error: str | None = None


def git_state(root: str) -> str:
    """HEAD's commit and the stat signature of git's index file, from one git process;
    "no-git" outside a repository (or without git)."""
    from orbit_learnings.curation.gitutil import GitUnavailable, run_git

    try:
        out = run_git(root, "rev-parse", "--git-path", "index", "HEAD", check=False)
    except (GitUnavailable, OSError):
        return "no-git"
    lines = out.splitlines()
    if len(lines) < 2:
        return "no-git"
    index_path, head = lines[0], lines[1]  # head is "HEAD" before the first commit
    from orbit_learnings.index.freshness import signature

    try:
        index_stat = signature(os.stat(os.path.join(root, index_path)).st_ctime_ns)
    except OSError:
        index_stat = "-"
    return f"{head}:{index_stat}"


class StaleCache:
    """One workspace's staleness, cached on disk and refreshed by at most one thread."""

    def __init__(self, ws: Workspace) -> None:
        self.ws = ws
        self._lock = threading.Lock()
        self._known: StaleView | None = None
        self._loaded = False
        self._wanted = ""
        self._worker: threading.Thread | None = None
        self._done = threading.Event()
        self._done.set()

    def key(self, quick: str | None = None) -> str:
        """What the report depends on right now. `quick` is the index's freshness number
        when the caller has just read it (it is empty while a file is too young to
        trust; the scan's own number is used then)."""
        if not quick:
            from orbit_learnings.index.freshness import scan

            quick = scan(self.ws).quick
        return f"{git_state(self.ws.root_str)}|{quick}"

    def current(self, quick: str | None = None) -> StaleView:
        """The report for the current key if known, else the last one, marked pending
        (and a recomputation started). Never runs `find_stale` on the caller's thread."""
        key = self.key(quick)
        known = self._last()
        if known is not None and known.key == key:
            return known
        self._start(key)
        last = known or StaleView()
        return StaleView(last.reasons, last.key, pending=True, error=last.error)

    def fresh(self, timeout: float | None = None) -> StaleView:
        """The report for the current key, waiting for it to be computed."""
        view = self.current()
        while view.pending:
            if not self._done.wait(timeout):
                return view
            view = self.current()
        return view

    def _last(self) -> StaleView | None:
        with self._lock:
            if not self._loaded:
                self._known = self._known or _load(self.ws)
                self._loaded = True
            return self._known

    def _start(self, key: str) -> None:
        with self._lock:
            self._wanted = key
            if self._worker is not None:
                return  # the running one recomputes again if the key moved meanwhile
            self._done.clear()
            self._worker = threading.Thread(target=self._run, name="orbit-stale", daemon=True)
            self._worker.start()

    def _run(self) -> None:
        """Recompute until the key holds still. Whatever goes wrong, the worker is
        released and the waiters woken: a thread that died holding `_worker` once left
        the page saying "checking…" forever."""
        key = ""
        try:
            while True:
                with self._lock:
                    key = self._wanted
                view = _compute(self.ws, key, self._known)
                _save(self.ws, view)
                with self._lock:
                    self._known = view
                    if self._wanted == key:
                        return
        except Exception as exc:  # a background thread has no caller to tell
            with self._lock:
                kept = self._known.reasons if self._known is not None else {}
                self._known = StaleView(kept, key, error=f"staleness could not be computed: {exc}")
        finally:
            with self._lock:
                self._worker = None
                self._done.set()


def _compute(ws: Workspace, key: str, previous: StaleView | None) -> StaleView:
    """Run `find_stale` in a child process: it is seconds of pure Python on a large store,
    and in a thread of the server it would hold the GIL that every request needs. A
    failure keeps the previous reasons and says why."""
    import subprocess
    import sys

    from orbit_learnings.core import SAFE_PATH_FLAG

    module = "orbit_learnings.curation.stalecache"
    args = [sys.executable, SAFE_PATH_FLAG, "-m", module, ws.root_str]
    try:
        child = subprocess.run(args, capture_output=True, text=True, check=False)
        if child.returncode != 0:
            raise RuntimeError((child.stderr.strip().splitlines() or ["no output"])[-1])
        reasons = json.loads(child.stdout)
    except (OSError, ValueError, RuntimeError) as exc:
        kept = previous.reasons if previous is not None else {}
        return StaleView(kept, key, error=f"staleness could not be computed: {exc}")
    return StaleView(reasons, key)


def main(root: str) -> int:
    """The child process: the stale reasons of the workspace at `root`, as JSON, computed
    at a lower priority than the server that asked."""
    from orbit_learnings.curation.staleness import find_stale

    if hasattr(os, "nice"):
        os.nice(10)
    report = find_stale(Workspace(root))
    print(json.dumps({s.id: s.reasons for s in report.stale}))
    return 0


def _path(ws: Workspace) -> str:
    return os.path.join(ws.state_dir_str, STALE_CACHE_FILE)


def _load(ws: Workspace) -> StaleView | None:
    from orbit_learnings.core.errors import OrbitError
    from orbit_learnings.store.fileops import read_repo_text

    try:  # a committed link to an outside file, /dev/zero or a FIFO is not known state
        data = json.loads(read_repo_text(_path(ws), within=ws.state_dir_str))
        reasons = {str(k): [str(r) for r in v] for k, v in data["reasons"].items()}
        return StaleView(reasons, str(data["key"]), error=data.get("error"))
    except (OSError, ValueError, KeyError, TypeError, AttributeError, OrbitError):
        return None  # derived state: missing, damaged or refused means "not known yet"


def _save(ws: Workspace, view: StaleView) -> None:
    """Keep the report on disk. The file is derived and ours: a link or anything else
    in its place is removed, never followed, and the report written beside the files."""
    from orbit_learnings.core.errors import OrbitError
    from orbit_learnings.store.fileops import atomic_write_text

    payload = {"key": view.key, "reasons": view.reasons, "error": view.error}
    path = _path(ws)
    try:
        os.makedirs(ws.state_dir_str, exist_ok=True)
        if os.path.islink(path) or (os.path.lexists(path) and not os.path.isfile(path)):
            os.unlink(path)
        atomic_write_text(path, json.dumps(payload, sort_keys=True), durable=False)
    except (OSError, OrbitError):
        pass  # a read-only state folder: the cache lives in memory only


if __name__ == "__main__":
    import sys

    raise SystemExit(main(sys.argv[1]))
