"""docs/org.md's five-command set-up, run as written by a new user: an empty folder, a
bare org remote, an org repository with nothing but git, a repository that never ran orbit."""

from __future__ import annotations

import os
import re
import subprocess
from pathlib import Path

from tests.testing import ORBIT_BIN, git

DOC = Path(__file__).resolve().parents[3] / "docs" / "org.md"
URL = "git@github.com:acme/learnings.git"


def _five_commands() -> list[str]:
    text = DOC.read_text()
    section = text.split("## Set-up for an organisation in five commands", 1)[1]
    block = re.search(r"```sh\n(.*?)```", section, re.DOTALL)
    assert block is not None
    lines = [line for line in block.group(1).splitlines() if line.strip()]
    assert len(lines) == 5 and "# 1." in lines[0] and "# 5." in lines[4]
    return lines


def _sh(line: str, cwd: Path, env: dict[str, str]) -> str:
    done = subprocess.run(
        ["sh", "-ec", line], cwd=cwd, env=env, capture_output=True, text=True, check=False
    )
    assert done.returncode == 0, f"{line}\n{done.stdout}{done.stderr}"
    return done.stdout


def test_the_five_commands_work_in_an_empty_folder(tmp_path: Path) -> None:
    env = {
        **os.environ,
        "PATH": f"{ORBIT_BIN.parent}:{os.environ['PATH']}",
        "ORBIT_ORG_CACHE": str(tmp_path / "cache"),
        "ORBIT_USER_HOME": str(tmp_path / "home"),
    }
    env.pop("ORBIT_ROOT", None)
    remote = tmp_path / "learnings.git"
    git(tmp_path, "init", "-q", "--bare", "-b", "main", str(remote))
    org, repo = tmp_path / "learnings", tmp_path / "payments-api"
    for folder in (org, repo):
        folder.mkdir()
        git(folder, "init", "-q", "-b", "main")
    git(org, "remote", "add", "origin", str(remote))
    lines = [line.replace(URL, str(remote)) for line in _five_commands()]
    for line in lines[:3]:
        _sh(line, org, env)
    for line in lines[3:]:
        _sh(line, repo, env)
    assert git(repo, "status", "--porcelain") == ""  # step 5 committed all of it
    (repo / "db" / "migrations").mkdir(parents=True)
    (repo / "db" / "migrations" / "001.py").write_text("")
    out = _sh("orbit learning list --path db/migrations/001.py", repo, env)
    assert out.startswith("O-0001\tMigrations run in one transaction")
