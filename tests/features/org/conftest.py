"""An organisation for the org-level tests: a bare org remote, the org repository it is
pushed from, and two subscribing repositories (`payments-api`, `web`), all real git."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import pytest

from tests.testing import CliRunner, git


@dataclass
class Org:
    remote: Path  # the bare repository everyone fetches from
    source: Path  # the org repository's working copy (where org learnings are written)
    payments: Path  # a subscriber named payments-api (by its origin URL)
    web: Path  # a subscriber named web (by its folder)
    cache: Path
    orbit: CliRunner

    def run(self, repo: Path, *args: str) -> tuple[int, str, str]:
        outcome = self.orbit("--root", str(repo), *args)
        return outcome.code, outcome.out, outcome.err

    def add(self, *args: str) -> str:
        code, out, err = self.run(self.source, "learning", "add", "--force", *args)
        assert code == 0, err
        return out.strip().split()[-1]

    def scope_repos(self, learning_id: str, *globs: str) -> None:
        """Give an org learning `scope.repos` (no command writes it: authors edit YAML)."""
        path = self.source / ".orbit" / "learnings" / learning_id / "learning.yaml"
        listed = "".join(f"    - '{g}'\n" for g in globs)
        path.write_text(path.read_text().replace("scope:\n", f"scope:\n  repos:\n{listed}", 1))

    def publish(self, message: str = "org learnings") -> str:
        git(self.source, "add", "-A")
        git(self.source, "commit", "-q", "-m", message)
        git(self.source, "push", "-q", "origin", "HEAD:main")
        return git(self.source, "rev-parse", "HEAD").strip()


def _repository(folder: Path, orbit: CliRunner, origin: str | None = None) -> Path:
    folder.mkdir()
    git(folder, "init", "-q", "-b", "main")
    if origin:
        git(folder, "remote", "add", "origin", origin)
    from orbit_learnings.store.setup import init_store

    init_store(folder)
    (folder / "src").mkdir()
    (folder / "src" / "app.py").write_text("print('hi')\n")
    git(folder, "add", "-A")
    git(folder, "commit", "-q", "-m", "init")
    return folder


@pytest.fixture
def org(tmp_path: Path, orbit: CliRunner, monkeypatch: pytest.MonkeyPatch) -> Org:
    cache = tmp_path / "cache"
    monkeypatch.setenv("ORBIT_ORG_CACHE", str(cache))
    monkeypatch.setenv("ORBIT_USER_HOME", str(tmp_path / "personal"))
    remote = tmp_path / "org.git"
    git(tmp_path, "init", "-q", "--bare", "-b", "main", str(remote))
    source = tmp_path / "org"
    source.mkdir()
    git(source, "init", "-q", "-b", "main")
    git(source, "remote", "add", "origin", str(remote))
    assert orbit("--root", str(source), "org", "init").code == 0
    payments = _repository(tmp_path / "checkout-1", orbit, "git@example.com:acme/payments-api.git")
    web = _repository(tmp_path / "web", orbit)
    monkeypatch.chdir(tmp_path)
    return Org(remote, source, payments, web, cache, orbit)
