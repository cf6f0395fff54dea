"""Every invalid file is reported at once, with `file:line`, in text and in `--json`.

`sync` with three broken files once printed the first and "(and 2 more)"; `sync --json`
printed nothing on stdout when it failed; `scope: path:` passed `check`.
"""

from __future__ import annotations

import json
from pathlib import Path

from tests.testing import CliRunner, add_learning

BROKEN = {
    "L-0001": ("summary: Lesson", "summary: [unclosed", "invalid YAML"),
    "L-0002": ("status: active", "status: wobbly", "status must be one of"),
    "L-0003": ("  paths:", "  path:", "did you mean 'paths'"),
}


def break_three(root: Path) -> dict[str, Path]:
    files = {}
    for learning_id, (needle, replacement, _) in BROKEN.items():
        assert add_learning(root, "Lesson") == learning_id
        path = root / ".orbit/learnings" / learning_id / "learning.yaml"
        text = path.read_text()
        assert needle in text, text
        path.write_text(text.replace(needle, replacement, 1))
        files[learning_id] = path
    add_learning(root, "A good one")
    return files


def line_of(path: Path, fragment: str) -> int:
    return next(n for n, line in enumerate(path.read_text().splitlines(), 1) if fragment in line)


def test_sync_names_every_broken_file_with_its_line(workspace: Path, orbit: CliRunner) -> None:
    files = break_three(workspace)
    outcome = orbit("learning", "sync")
    assert outcome.code == 1
    assert "more)" not in outcome.err
    for learning_id, (_, replacement, said) in BROKEN.items():
        line = line_of(files[learning_id], replacement.strip().split(":")[0] + ":")
        lines = (line, line + 1) if said == "invalid YAML" else (line,)  # where the parser noticed
        wheres = [f".orbit/learnings/{learning_id}/learning.yaml:{n}:" for n in lines]
        reported = [ln for ln in outcome.err.splitlines() if any(w in ln for w in wheres)]
        assert any(said in ln for ln in reported), outcome.err
    assert all(ln.startswith("orbit: error: ") for ln in outcome.err.splitlines())


def test_sync_json_puts_the_problems_on_stdout_when_it_fails(
    workspace: Path, orbit: CliRunner
) -> None:
    break_three(workspace)
    outcome = orbit("learning", "sync", "--json")
    assert outcome.code == 1
    payload = json.loads(outcome.out)  # one document: the error object, every problem in it
    assert (payload["version"], payload["error"]["code"]) == (1, "validation-failed")
    problems = payload["error"]["problems"]
    assert {p["id"] for p in problems} == set(BROKEN)  # and not the good one
    assert all(p["line"] > 1 for p in problems)


def test_check_refuses_a_misspelt_scope_key(workspace: Path, orbit: CliRunner) -> None:
    files = break_three(workspace)
    outcome = orbit("learning", "check", "--json")
    assert outcome.code == 1
    misspelt = [p for p in json.loads(outcome.out)["problems"] if "unknown key" in p["message"]]
    assert [p["line"] for p in misspelt] == [line_of(files["L-0003"], "path:")]
    assert "unknown key 'scope.path'; did you mean 'paths'?" in misspelt[0]["message"]


def test_a_good_sync_says_ok_in_json(workspace: Path, orbit: CliRunner) -> None:
    add_learning(workspace)
    outcome = orbit("learning", "sync", "--json")
    assert outcome.code == 0 and json.loads(outcome.out)["ok"] is True
