"""The GitHub Actions recipe (docs/curation.md), run step by step as a runner would.

No runner here, so each `run:` line runs in a pull request's clone: the install line installs
this checkout (a commit of the work tree, standing in for the reader's fork) the way pipx would,
without the network, and the `orbit` lines run with that install first on PATH, once on a
clean pull request (exit 0) and once on one whose new ID `main` took meanwhile (exit 1, with
an Actions annotation).
"""

from __future__ import annotations

import re
import shlex
import sys
import tempfile
from pathlib import Path

import pytest

from tests.docs.recipes import Block, load, recipes_for, workflow_steps
from tests.docs.sandbox import Sandbox, Snapshot, environment, shell

WORKFLOWS = [  # the Copilot setup steps are a cloud agent's, run in test_recipes_cloud.py
    b
    for b in recipes_for(".github/workflows/*")
    if b.marker.file != ".github/workflows/copilot-setup-steps.yml"
]
CONTEXT = {"github.base_ref": "main"}  # what a pull_request event into main sets
PIPX = re.compile(r"^pipx install (?P<spec>.+)$")
FORK = re.compile(r"^git\+https://github\.com/[^/]+/orbit-learnings(?:\.git)?@\S+$")  # pinned


def expand(line: str) -> str:
    """`${{ ... }}` as the runner fills it in; an expression not in CONTEXT fails."""

    def value(match: re.Match[str]) -> str:
        assert match[1] in CONTEXT, f"teach test_recipes_ci.py the value of {match[1]}"
        return CONTEXT[match[1]]

    return re.sub(r"\$\{\{\s*([\w.]+)\s*\}\}", value, line)


@pytest.mark.parametrize("block", WORKFLOWS, ids=lambda b: b.where)
def test_the_workflow_installs_orbit_and_checks_a_pull_request(
    block: Block, snapshot: Snapshot, tmp_path: Path
) -> None:
    lines = [expand(str(step["run"])) for step in workflow_steps(load(block)) if "run" in step]
    runner = _pull_request(tmp_path)
    _run_steps(block, lines, runner, snapshot, expect=0)
    _main_takes_the_same_id(tmp_path)
    annotations = _run_steps(block, lines, runner, snapshot, expect=1)
    assert "::error" in annotations, annotations


def _run_steps(
    block: Block, lines: list[str], runner: Sandbox, snapshot: Snapshot, expect: int
) -> str:
    """The `run:` lines in order, on a fresh runner; the output of the `orbit` ones."""
    output = ""
    for line in lines:
        if found := PIPX.match(line):
            runner = _install(found["spec"], runner, snapshot)
        elif line.startswith("orbit "):
            assert "PYTHONPATH" in runner.env, f"{block.where}: orbit runs before it is installed"
            done = runner.run(line + "\n")
            assert done.returncode == expect, f"{line}\n{done.stdout}{done.stderr}"
            output += done.stdout
        else:
            pytest.fail(f"{block.where}: teach tests/docs/test_recipes_ci.py to run `{line}`")
    return output


def _install(spec: str, runner: Sandbox, snapshot: Snapshot) -> Sandbox:
    """pipx's install, minus the network: the fork's URL is this checkout's snapshot, and the
    runner that follows has the installed `orbit` first on PATH."""
    words = shlex.split(spec)
    assert len(words) == 1 and FORK.match(words[0]), (
        f"install from a fork's git URL and a tag or SHA, not {spec}"
    )
    target = Path(tempfile.mkdtemp(prefix="pipx-", dir=runner.home.parent))
    local = f"git+file://{snapshot.path}@{snapshot.sha}"
    pip = [sys.executable, "-m", "pip", "install", "--quiet", "--no-deps", "--no-build-isolation"]
    done = runner.run(" ".join([*pip, "--no-index", "--target", str(target), local]) + "\n")
    assert done.returncode == 0, done.stderr
    installed = Sandbox(
        runner.repo,
        runner.home,
        runner.env
        | {
            "PATH": f"{target / 'bin'}:{runner.env['PATH']}",
            "PYTHONPATH": str(target),  # the venv supplies the dependencies pipx would install
        },
    )
    where = installed.run("python -c 'import orbit_learnings as o; print(o.__file__)'\n")
    assert where.stdout.startswith(str(target)), where.stdout + where.stderr
    return installed


def _pull_request(tmp_path: Path) -> Sandbox:
    """A clone on branch `feature`, one learning ahead of origin's main, as checkout@v4 leaves it."""
    home = tmp_path / "home"
    home.mkdir()
    origin, clone = tmp_path / "origin", tmp_path / "clone"
    origin.mkdir()
    shell(origin, home, _learning("db/migrations/0001.sql", "Run each migration in a transaction"))
    shell(origin, home, "git init -q -b main\n" + _commit("main"))
    shell(tmp_path, home, f"git clone -q {origin} {clone}\n")
    feature = _learning("services/billing/invoice.py", "Bill in integer cents, never floats")
    shell(clone, home, f"git checkout -q -b feature\n{feature}{_commit('feature')}")
    return Sandbox(clone, home, environment(home))


def _main_takes_the_same_id(tmp_path: Path) -> None:
    """Meanwhile main adds its own L-0002: the pull request's L-0002 now collides."""
    home = tmp_path / "home"
    main = _learning("deploy/app.yaml", "Secrets come from the environment only")
    shell(tmp_path / "origin", home, main + _commit("main again"))
    shell(tmp_path / "clone", home, "git fetch -q origin\n")


def _learning(path: str, summary: str) -> str:
    return (
        f"mkdir -p {Path(path).parent}\necho x > {path}\norbit init >/dev/null\n"
        f"orbit learning add --summary '{summary}' --path '{Path(path).parent}/**' >/dev/null\n"
    )


def _commit(message: str) -> str:
    return f"git add -A\ngit commit -q -m '{message}'\n"
