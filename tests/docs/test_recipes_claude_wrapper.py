"""The wrapper recipe: `--command` naming `$CLAUDE_PROJECT_DIR`, as the docs and the script say.

The variable exists only when Claude Code runs a hook. Typed in a terminal inside double
quotes, the reader's shell expands it to nothing and the settings file gets
`/scripts/claude-code-hook.sh`; so every documented install command runs here in a shell
without the variable, the literal `$CLAUDE_PROJECT_DIR` must reach `.claude/settings.json`, and
the entry must then work when run the way Claude Code runs it.
"""

from __future__ import annotations

import json
import re
import shlex
import shutil
from pathlib import Path

import pytest

from tests.docs.recipes import all_blocks, commands
from tests.docs.sandbox import Sandbox
from tests.testing import REPO

VARIABLE = "$CLAUDE_PROJECT_DIR"
WRAPPER = REPO / "scripts" / "claude-code-hook.sh"
PAYLOAD = {
    "hook_event_name": "PostToolUse",
    "tool_name": "Read",
    "tool_input": {"file_path": "services/billing/invoice.py"},
    "session_id": "wrapper-1",
}


def documented() -> list[tuple[str, str]]:
    """(where, command) for each install command naming the variable: docs and the script."""
    found = [
        (block.where, command)
        for block in all_blocks()
        for command in commands(block)
        if "CLAUDE_PROJECT_DIR" in command and "hooks install" in command
    ]
    for number, line in enumerate(WRAPPER.read_text(encoding="utf-8").splitlines(), 1):
        if match := re.match(r"#\s+(orbit hooks install .*CLAUDE_PROJECT_DIR.*)$", line):
            found.append((f"scripts/{WRAPPER.name}:{number}", match[1]))
    return found


def test_the_docs_and_the_script_both_give_the_command() -> None:
    places = {where.split(":")[0] for where, _ in documented()}
    assert f"scripts/{WRAPPER.name}" in places and len(places) >= 2, places


@pytest.mark.parametrize(("where", "command"), documented(), ids=[w for w, _ in documented()])
def test_the_settings_keep_the_variable_and_the_entry_runs(
    where: str, command: str, sandbox: Sandbox
) -> None:
    assert "CLAUDE_PROJECT_DIR" not in sandbox.env  # a terminal, not a hook
    done = sandbox.run(command + "\n")
    assert done.returncode == 0, done.stderr
    written = hook_commands(sandbox.repo / ".claude" / "settings.json")
    assert written and all(VARIABLE in c for c in written), f"{where} wrote {written}"

    (sandbox.repo / "scripts").mkdir(exist_ok=True)
    shutil.copy(WRAPPER, sandbox.repo / "scripts")
    sandbox.env["CLAUDE_PROJECT_DIR"] = str(sandbox.repo)  # what Claude Code sets for its hooks
    ran = sandbox.run(f"sh -c {shlex.quote(written[0])}\n", stdin=json.dumps(PAYLOAD))
    assert ran.returncode == 0, ran.stderr
    assert "L-0003" in json.loads(ran.stdout)["hookSpecificOutput"]["additionalContext"]


def hook_commands(settings: Path) -> list[str]:
    events = json.loads(settings.read_text(encoding="utf-8"))["hooks"].values()
    return [hook["command"] for entries in events for entry in entries for hook in entry["hooks"]]
