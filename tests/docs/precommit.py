"""Running the real pre-commit tool on the documented config, pointed at this checkout.

The documented config names the reader's fork; `pointed_at` swaps in a commit of this work
tree (uncommitted changes included) and its SHA, so what is tested is what a fork would
publish. pre-commit builds the hook's environment with pip, which needs the package index for
orbit's dependencies (about 20 s, and ruamel.yaml's C extension compiled from source): `WarmUp`
starts that build in the background while the other recipes run, in the session's
PRE_COMMIT_HOME, and the real run then finds it built. pip's cache outlives the session
(`pip_cache`), keyed by pyproject.toml: the next run downloads and compiles nothing.
"""

from __future__ import annotations

import hashlib
import json
import shutil
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ruamel.yaml import YAML

from tests.docs.recipes import Block, load
from tests.docs.sandbox import Sandbox, Snapshot, Templates, make_sandbox
from tests.testing import REPO

PRE_COMMIT = str(Path(sys.executable).with_name("pre-commit"))


def pip_cache() -> Path:
    """pip's cache for the hook's environment, in this checkout's .pytest_cache and named by
    the hash of pyproject.toml: the environment is new for every snapshot, its dependencies
    are not, until the dependency list changes (then the old cache is dropped)."""
    digest = hashlib.sha256((REPO / "pyproject.toml").read_bytes()).hexdigest()[:16]
    folder = REPO / ".pytest_cache" / "pre-commit-pip"
    for old in folder.glob("*"):
        if old.name != digest:
            shutil.rmtree(old, ignore_errors=True)
    return folder / digest


def with_pre_commit(box: Sandbox, home: Path) -> Sandbox:
    """The sandbox with the network back (pip installs the hook's dependencies), the
    session's PRE_COMMIT_HOME, so the hook's environment is built once, and pip's cache."""
    env = {k: v for k, v in box.env.items() if not k.lower().endswith("_proxy")}
    env.pop("PIP_NO_INDEX", None)
    cache = {"PRE_COMMIT_HOME": str(home), "PIP_CACHE_DIR": str(pip_cache())}
    return Sandbox(box.repo, box.home, env | cache)


def pre_commit(box: Sandbox, *args: str) -> subprocess.CompletedProcess[str]:
    return box.run(" ".join([PRE_COMMIT, *args]) + "\n")


def hook_ids() -> set[str]:
    manifest = YAML(typ="safe", pure=True).load(REPO / ".pre-commit-hooks.yaml")
    return {hook["id"] for hook in manifest}


def pointed_at(config: Any, snapshot: Snapshot) -> str:
    """The documented config with its remote repository replaced by the snapshot."""
    assert isinstance(config, dict) and "repos" in config, "a config is a map with `repos:`"
    remote = [r for r in config["repos"] if r["repo"] not in ("local", "meta")]
    assert len(remote) == 1, "the recipe names one remote repository: orbit-learnings"
    assert {h["id"] for h in remote[0]["hooks"]} <= hook_ids(), "a hook id the manifest lacks"
    remote[0] |= {"repo": str(snapshot.path), "rev": snapshot.sha}
    return json.dumps(config, indent=2)  # JSON is YAML


def configured(
    block: Block, snapshot: Snapshot, templates: Templates, home: Path, tmp: Path
) -> Sandbox:
    """A sandbox whose staged .pre-commit-config.yaml is the recipe, pointed at the snapshot."""
    box = with_pre_commit(make_sandbox(templates, tmp), home)
    (box.repo / ".pre-commit-config.yaml").write_text(pointed_at(load(block), snapshot))
    assert box.run("git add .pre-commit-config.yaml\n").returncode == 0
    return box


@dataclass
class WarmUp:
    """`pre-commit install-hooks` running in the background; `wait` before the real run."""

    process: subprocess.Popen[str] | None

    @classmethod
    def start(cls, box: Sandbox) -> WarmUp:
        process = subprocess.Popen(
            [PRE_COMMIT, "install-hooks"],
            cwd=box.repo,
            env=box.env,
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            text=True,
        )
        return cls(process)

    def wait(self) -> None:
        """Only a head start: a failure here shows, with its output, in the real run."""
        if self.process is not None:
            self.process.wait(timeout=900)  # a safety net, not a timing assertion

    def stop(self) -> None:
        if self.process is not None and self.process.poll() is None:
            self.process.terminate()
            self.process.wait()
