"""The syntax-tree oracle of scripts/eval_anchors_history.py on a tiny real git history (no
network): a black-style reformat, a method changed next to its twin, a rename, a deletion.
Its labels are checked by hand here, then orbit is judged against them at every commit."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.fixtures.anchor_oracle import (
    BROKEN,
    DRIFTED,
    MOVED,
    OK,
    Snapshot,
    Target,
    Verdict,
    candidates,
    label,
)
from tests.testing import git, isolate, run_orbit

BASE = '''"""Decoders."""


class DeflateDecoder:
    def decode(self, data):
        if not data:
            return data
        return self._obj.decompress(data)


class GZipDecoder:
    def decode(self, data):
        "Decode one chunk.   "
        if not data:
            return data
        if self._first_try:
            self._first_try = False
        return self._obj.decompress(data)


def ready(conn, timeout):
    if conn.sock is not None and \\
            conn.is_connected:
        return (conn.sock)
    return conn.wait(timeout = timeout)


def helper():
    return 1
'''


def reformat(text: str) -> str:
    """What black did to it."""
    return (
        text.replace("and \\\n            conn.is_connected", "and conn.is_connected")
        .replace("return (conn.sock)", "return conn.sock")
        .replace("timeout = timeout", "timeout=timeout")
        .replace('"Decode one chunk.   "', '"""Decode one chunk."""\n')
    )


def deflate_gains_the_branch(text: str) -> str:
    return text.replace(
        "            return data\n        return self._obj.decompress(data)\n\n\nclass GZip",
        "            return data\n        if self._first_try:\n            self._first_try = False\n"
        "        return self._obj.decompress(data)\n\n\nclass GZip",
    )


@pytest.fixture
def history(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> tuple[Path, list[str]]:
    isolate(monkeypatch, tmp_path / "home")
    root = tmp_path / "repo"
    (root / "pkg").mkdir(parents=True)
    git(root, "init", "-q", "-b", "main")
    commits: list[str] = []
    steps = [
        ("base", lambda t: BASE),
        ("black", reformat),
        ("deflate gains a branch", deflate_gains_the_branch),
        ("rename", None),
        ("helper deleted", lambda t: t.replace("\n\ndef helper():\n    return 1\n", "")),
    ]
    for message, change in steps:
        if change is None:
            git(root, "mv", "pkg/codec.py", "pkg/decoders.py")
        else:
            path = root / ("pkg/decoders.py" if commits[3:] else "pkg/codec.py")
            path.write_text(change(path.read_text() if path.exists() else ""), encoding="utf-8")
        git(root, "add", "-A")
        git(root, "commit", "-q", "-m", message)
        commits.append(git(root, "rev-parse", "HEAD").strip())
    return root, commits


def targets(root: Path, base: str) -> dict[str, Target]:
    snapshot = Snapshot(root, base, base)
    tree = snapshot.tree("pkg/codec.py")
    assert tree is not None
    return {f"{t.kind} {t.owner} {t.start}": t for t in candidates("pkg/codec.py", tree)}


def test_the_oracle_labels_a_small_history_as_a_reader_would(
    history: tuple[Path, list[str]],
) -> None:
    root, commits = history
    found = targets(root, commits[0])
    deflate = found["def DeflateDecoder.decode 5"]
    gzip = found["symbol GZipDecoder.decode 12"]
    ready = found["def ready 21"]
    helper = found["symbol helper 28"]
    branch = found["block DeflateDecoder.decode 6"]  # `if not data: return data`
    expected = {  # per commit after the base: deflate, gzip, ready, helper, branch
        1: (OK, OK, MOVED, OK, OK),  # black joined `ready`'s lines: it is shorter
        2: (DRIFTED, OK, MOVED, OK, OK),  # a symbol is ok wherever it sits in its file
        3: (DRIFTED, MOVED, MOVED, MOVED, MOVED),  # renamed with git mv
        4: (DRIFTED, MOVED, MOVED, BROKEN, MOVED),
    }
    for number, states in expected.items():
        snapshot = Snapshot(root, commits[0], commits[number])
        got = tuple(
            (verdict.state if verdict else None)
            for verdict in (label(t, snapshot) for t in (deflate, gzip, ready, helper, branch))
        )
        assert got == states, number


def test_orbit_agrees_with_the_oracle_on_every_anchor_at_every_commit(
    history: tuple[Path, list[str]],
) -> None:
    root, commits = history
    git(root, "checkout", "-q", "--detach", commits[0])
    chosen = list(targets(root, commits[0]).values())
    assert run_orbit("init", cwd=root).code == 0
    specs = [a for t in chosen for a in ("--anchor", t.spec)]
    assert run_orbit("learning", "add", "-s", "decoders", "--force", *specs, cwd=root).code == 0
    for commit in commits[1:]:
        git(root, "checkout", "-q", "--detach", commit)
        out = run_orbit("learning", "anchors", "--json", cwd=root)
        reported = [a["state"] for a in json.loads(out.out)["anchors"]]
        snapshot = Snapshot(root, commits[0], commit)
        expected = [verdict.state if verdict else None for verdict in map_label(chosen, snapshot)]
        wrong = [
            f"{t.spec} ({t.kind}): oracle {e}, orbit {r}"
            for t, e, r in zip(chosen, expected, reported, strict=True)
            if e != r
        ]
        assert not wrong, commit


def map_label(chosen: list[Target], snapshot: Snapshot) -> list[Verdict | None]:
    return [label(t, snapshot) for t in chosen]
