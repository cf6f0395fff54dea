"""Long prompts and the confidence gate (issue 33): an agent's prompt is long, and a long
prompt that shares one common word with a learning is not an answer to it.

The match-confidence model was fitted on tuning data whose long queries were all
answerable, so it read length itself as a sign of an answer: the off-topic prompt below
came out confident (0.78) and the prompt hook injected the learning. Each check runs
the real command: `orbit search --json` and the Claude Code UserPromptSubmit entry that
`orbit hooks install` writes, run as the agent runs it; by words, and with vectors where
the semantic extra is installed (that mode has its own coefficients).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from orbit_learnings.retrieval import semantic
from tests.testing import CliRunner, run_entry

OFF_TOPIC = (
    "I would like to book a flight to Lisbon next month for the conference and need a "
    "hotel near the venue with good web access"
)
ON_TOPIC = (
    "I am adding a new package to the web folder and want to install it; should I run "
    "npm install there, or does the web folder use pnpm instead of npm?"
)


SEMANTIC = pytest.mark.skipif(
    not semantic.available(), reason="the optional semantic extra is not installed"
)


@pytest.fixture(params=["bm25", pytest.param("semantic", marks=SEMANTIC)])
def store(workspace: Path, orbit: CliRunner, monkeypatch: pytest.MonkeyPatch, request: Any) -> Path:
    monkeypatch.setenv("ORBIT_SEMANTIC", "1" if request.param == "semantic" else "0")
    outcome = orbit(
        "learning", "add", "--summary", "Use pnpm, not npm, in the web folder", "--tag", "web"
    )
    assert outcome.code == 0, outcome.err
    if request.param == "semantic":
        assert orbit("learning", "embed", "--json").code == 0
    return workspace


def top(orbit: CliRunner, text: str) -> dict[str, object]:
    outcome = orbit("search", text, "--json", "--explain")
    assert outcome.code == 0, outcome.err
    results = outcome.json()["results"]
    assert results, "the shared word still finds the learning"
    first: dict[str, object] = results[0]
    return first


def prompt_hook(root: Path, orbit: CliRunner, text: str) -> str:
    """What the installed UserPromptSubmit entry prints for `text` (empty: nothing)."""
    assert orbit("hooks", "install", "--claude").code == 0
    settings = json.loads((root / ".claude/settings.json").read_text())
    command = str(settings["hooks"]["UserPromptSubmit"][0]["hooks"][0]["command"])
    payload = {
        "session_id": "s-long",
        "transcript_path": str(root / "t.jsonl"),
        "cwd": str(root),
        "permission_mode": "default",
        "hook_event_name": "UserPromptSubmit",
        "prompt": text,
    }
    return run_entry(command, json.dumps(payload), root)


def test_a_long_off_topic_prompt_sharing_one_word_is_not_confident(
    store: Path, orbit: CliRunner
) -> None:
    hit = top(orbit, OFF_TOPIC)
    assert hit["confident"] is False, hit
    assert "pnpm" not in prompt_hook(store, orbit, OFF_TOPIC)


def test_a_long_prompt_the_learning_answers_stays_confident(store: Path, orbit: CliRunner) -> None:
    hit = top(orbit, ON_TOPIC)
    assert hit["confident"] is True, hit
    assert "Use pnpm, not npm, in the web folder" in prompt_hook(store, orbit, ON_TOPIC)
