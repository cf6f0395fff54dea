"""Injection by relevance: the learning about this very file first, weak ones left out.

The scenario is the one the first version got wrong: a broad, popular learning on
`services/**/*.py` and generic tag matches filled every slot, while the two
learnings scoped to the exact file being changed were left out.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.testing import CliRunner, run_orbit

ROUNDING = "services/billing/app/invoices/rounding.py"


def add(orbit: CliRunner, summary: str, *args: str) -> str:
    outcome = orbit("learning", "add", "--summary", summary, "--force", *args)
    assert outcome.code == 0, outcome.err
    return outcome.out.strip()


@pytest.fixture
def billing(workspace: Path, orbit: CliRunner) -> dict[str, str]:
    ids = {
        "exact": add(orbit, "Round invoice lines half-even", "--path", ROUNDING),
        "exact2": add(orbit, "Keep cents as integers in the rounding helper", "--path", ROUNDING),
        "folder": add(
            orbit, "Invoices are immutable once sent", "--path", "services/billing/app/invoices/**"
        ),
        "broad": add(
            orbit, "Add type hints to all new Python functions", "--path", "services/**/*.py"
        ),
        "anywhere": add(orbit, "Keep functions short", "--path", "**/*.py"),
        "tag_only": add(
            orbit,
            "Refunds for plan changes are prorated by the second",
            "--tag",
            "billing",
            "--body",
            "Proration of a mid-cycle plan change: refunds are computed per second.",
        ),
    }
    for n in range(7):
        orbit("learning", "upvote", "--id", ids["broad"], "--model", "m", "--task", f"T{n}")
    return ids


def injected(orbit: CliRunner, *args: str) -> list[str]:
    outcome = orbit("learning", "inject", "--format", "json", *args)
    assert outcome.code == 0, outcome.err
    return [h["id"] for h in outcome.json()["learnings"]]


def test_the_exact_file_beats_a_popular_broad_glob(
    billing: dict[str, str], orbit: CliRunner
) -> None:
    shown = injected(orbit, "--path", ROUNDING)
    assert set(shown[:2]) == {billing["exact"], billing["exact2"]}  # equal: newest first
    assert billing["folder"] in shown
    assert billing["broad"] not in shown and billing["anywhere"] not in shown  # left empty


def test_a_broad_learning_still_shows_when_nothing_narrower_matches(
    billing: dict[str, str], orbit: CliRunner
) -> None:
    assert injected(orbit, "--path", "services/search/app/query.py")[0] == billing["broad"]
    assert injected(orbit, "--path", "tools/release.py") == [billing["anywhere"]]


def test_the_task_text_brings_a_learning_its_files_do_not_match(
    billing: dict[str, str], orbit: CliRunner, workspace: Path
) -> None:
    task = workspace / "task.json"
    task.write_text(
        json.dumps(
            {
                "title": "Fix prorated refunds for plan changes",
                "description": "Refunds for a mid-cycle plan change are off; fix the proration.",
                "context_files": [ROUNDING],
            }
        )
    )
    shown = injected(orbit, "--task-file", str(task))
    assert billing["tag_only"] in shown and billing["exact"] in shown
    assert billing["broad"] not in shown


def test_every_layer_makes_the_same_choice(
    billing: dict[str, str], orbit: CliRunner, workspace: Path
) -> None:
    from orbit_learnings.push.attach import attach_learnings
    from orbit_learnings.store.workspace import Workspace

    cli = injected(orbit, "--path", ROUNDING)
    attached_to = attach_learnings(Workspace(workspace), {"path": ROUNDING}, {"path": ROUNDING})
    attached = attached_to["learnings"]
    assert isinstance(attached, list)
    assert [h["id"] for h in attached] == cli
    payload = {
        "session_id": "relevance",
        "transcript_path": str(workspace / "transcript.jsonl"),
        "cwd": str(workspace),
        "permission_mode": "default",
        "hook_event_name": "PostToolUse",
        "tool_name": "Read",
        "tool_input": {"file_path": str(workspace / ROUNDING)},
        "tool_response": {"success": True},
    }
    hook = run_orbit("hook", "claude-code", cwd=workspace, stdin=json.dumps(payload))
    context = json.loads(hook.out)["hookSpecificOutput"]["additionalContext"]
    assert all(learning_id in context for learning_id in cli)
    assert billing["broad"] not in context


MIGRATION = "db/migrations/versions/0042_invoice_currency.py"
INVOICE = "services/billing/invoice.py"


@pytest.fixture
def database_and_billing(workspace: Path, orbit: CliRunner) -> dict[str, str]:
    """The issue's case: database learnings found by the task's tag (and its words), and
    the money and billing-period learnings scoped to the invoice module the task changes."""
    ids = {}
    for n, summary in enumerate(
        (
            "Add a new column to a big table as nullable first, then fill old rows in batches",
            "A NOT NULL column with a default rewrites the whole table under a lock",
            "Create indexes concurrently so writes to the table are not blocked",
        )
    ):
        ids[f"db{n}"] = add(orbit, summary, "--tag", "database")
    ids["money"] = add(
        orbit,
        "Money is integer cents; never float arithmetic on amounts",
        "--path",
        "services/billing/**",
    )
    ids["period"] = add(
        orbit,
        "Billing periods close at midnight UTC, not local time",
        "--path",
        "services/billing/**",
    )
    return ids


def test_a_tag_never_crowds_out_another_files_learnings(
    database_and_billing: dict[str, str], orbit: CliRunner, workspace: Path
) -> None:
    task = workspace / "task.yaml"
    task.write_text(
        "title: Store the invoice currency\n"
        "description: Add a currency column to the invoices table and fill it for old rows.\n"
        f"context_files: [{MIGRATION}, {INVOICE}]\n"
        "tags: [database]\n"
    )
    shown = injected(orbit, "--task-file", str(task))
    assert database_and_billing["money"] in shown
    assert database_and_billing["period"] in shown
    assert database_and_billing["db0"] in shown  # the tag and the words still bring it
    # without the tag, the same two (the tag must not change what the invoice file gets)
    task.write_text(task.read_text().replace("tags: [database]", "tags: []"))
    untagged = injected(orbit, "--task-file", str(task))
    assert {database_and_billing["money"], database_and_billing["period"]} <= set(untagged)


def test_each_file_of_a_task_keeps_its_own_best_learning(workspace: Path, orbit: CliRunner) -> None:
    """Popular learnings on this very migration do not cut the invoice module's own."""
    strong = [
        add(orbit, f"Migration rule {n}", "--path", MIGRATION) for n in ("one", "two", "three")
    ]
    for learning_id in strong:
        for n in range(6):
            orbit("learning", "upvote", "--id", learning_id, "--model", "m", "--task", f"T{n}")
    weak = add(orbit, "Invoices are immutable once sent", "--path", INVOICE)
    broad = add(orbit, "Add type hints to all new Python functions", "--path", "**/*.py")
    shown = injected(orbit, "--path", MIGRATION, "--path", INVOICE, "--limit", "2")
    assert shown[0] in strong and shown[1] == weak  # within the cap, ahead of a second rule
    assert broad not in injected(orbit, "--path", MIGRATION, "--path", INVOICE)
