"""The cloud-agent recipes (docs/push/cloud-agents.md), run as each cloud runs them.

A cloud container has the repository (and the hook entries committed in it) but no `orbit`.
Each test commits the entries the page says to commit, shows that in such a container they
answer nothing, runs the page's setup lines there (the `pipx install` line installs this
checkout, as in test_recipes_ci.py, without the network), and then feeds the committed entry
the agent's own payload: it must answer with the learnings.
"""

from __future__ import annotations

import json
import os
from collections.abc import Mapping
from pathlib import Path

import pytest

from tests.docs.recipes import Block, blocks, load, recipes_for, workflow_steps
from tests.docs.sandbox import Sandbox, Snapshot, Templates, make_sandbox
from tests.docs.test_recipes_ci import PIPX, _install
from tests.testing import REPO

PAGE = REPO / "docs/push/cloud-agents.md"
SCOPED = "services/billing/invoice.py"  # L-0003 of the example store covers it
SYSTEM_PATH = "/usr/local/bin:/usr/bin:/bin"  # a cloud container: no orbit on it


def setup_scripts() -> dict[str, Block]:
    """The page's setup scripts (the blocks whose `pipx install` the generic run skips), by
    the heading they sit under."""
    found: dict[str, Block] = {}
    heading = ""
    lines = PAGE.read_text(encoding="utf-8").splitlines()
    for block in blocks(PAGE):
        heading = next(line for line in reversed(lines[: block.line]) if line.startswith("## "))
        if any(prefix == "pipx install" for prefix, _ in block.marker.skip_commands):
            found[heading.removeprefix("## ")] = block
    return found


def cloud(box: Sandbox) -> Sandbox:
    """The same checkout in a container that has no orbit."""
    return Sandbox(box.repo, box.home, box.env | {"PATH": SYSTEM_PATH})


def run_setup(lines: list[str], container: Sandbox, snapshot: Snapshot, where: str) -> Sandbox:
    """The setup lines in order; after the install, `orbit` is the installed one."""
    for line in lines:
        if found := PIPX.match(line):
            with_python = Sandbox(
                container.repo, container.home, container.env | {"PATH": os.environ["PATH"]}
            )
            installed = _install(found["spec"], with_python, snapshot)
            path = installed.env["PATH"].split(":")[0]  # the install's bin, then the container's
            container = Sandbox(
                container.repo, container.home, installed.env | {"PATH": f"{path}:{SYSTEM_PATH}"}
            )
            continue
        assert line.startswith("orbit "), f"{where}: teach test_recipes_cloud.py to run `{line}`"
        done = container.run(line + "\n")
        assert done.returncode == 0, f"{where}: `{line}`\n{done.stdout}{done.stderr}"
    return container


def run_hook(box: Sandbox, command: str, payload: Mapping[str, object]) -> str:
    done = box.run(command + "\n", stdin=json.dumps(payload))
    assert done.returncode == 0, done.stderr
    return done.stdout


def test_the_copilot_setup_steps_make_the_committed_hook_deliver(
    templates: Templates, snapshot: Snapshot, tmp_path: Path
) -> None:
    (block,) = recipes_for(".github/workflows/copilot-setup-steps.yml")
    workflow = load(block)
    assert list(workflow["jobs"]) == ["copilot-setup-steps"], "Copilot runs only that job"
    box = make_sandbox(templates, tmp_path)
    assert box.run("orbit hooks install --copilot >/dev/null\n").returncode == 0  # committed
    settings = json.loads((box.repo / ".github/hooks/orbit-learnings.json").read_text())
    command = settings["hooks"]["postToolUse"][0]["bash"]
    view: dict[str, object] = {"sessionId": "cloud", "cwd": str(box.repo), "toolName": "view"}
    view["toolArgs"] = json.dumps({"path": SCOPED})
    assert run_hook(cloud(box), command, view) == ""  # no orbit: a silent nothing
    lines = [str(step["run"]) for step in workflow_steps(workflow) if "run" in step]
    ready = run_setup(lines, cloud(box), snapshot, block.where)
    assert "L-0003" in json.loads(run_hook(ready, command, view))["additionalContext"]


def test_the_claude_code_web_setup_script_makes_the_committed_entries_deliver(
    templates: Templates, snapshot: Snapshot, tmp_path: Path
) -> None:
    block = setup_scripts()["Claude Code on the web"]
    box = make_sandbox(templates, tmp_path)
    assert box.run("orbit hooks install --claude >/dev/null\n").returncode == 0  # committed
    settings = json.loads((box.repo / ".claude/settings.json").read_text())
    command = settings["hooks"]["PostToolUse"][0]["hooks"][0]["command"]
    read: dict[str, object] = {"session_id": "web", "cwd": str(box.repo)}
    read["hook_event_name"] = "PostToolUse"
    read |= {"tool_name": "Read", "tool_input": {"file_path": str(box.repo / SCOPED)}}
    assert run_hook(cloud(box), command, read) == ""
    ready = run_setup(block.text.strip().splitlines(), cloud(box), snapshot, block.where)
    answer = json.loads(run_hook(ready, command, read))
    assert "L-0003" in answer["hookSpecificOutput"]["additionalContext"]


def test_the_codex_cloud_setup_script_leaves_orbit_and_agents_md_for_the_agent(
    templates: Templates, snapshot: Snapshot, tmp_path: Path
) -> None:
    block = setup_scripts()["Codex cloud"]
    box = make_sandbox(templates, tmp_path)
    ready = run_setup(block.text.strip().splitlines(), cloud(box), snapshot, block.where)
    assert "L-0003" in (box.repo / "AGENTS.md").read_text(encoding="utf-8")
    listed = ready.run(f"orbit learning list --path {SCOPED} --json\n")
    assert "L-0003" in listed.stdout, listed.stderr


@pytest.mark.parametrize("heading", ["Codex cloud", "Claude Code on the web"])
def test_every_setup_script_is_found(heading: str) -> None:
    assert heading in setup_scripts()
