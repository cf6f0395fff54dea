"""Hostile repositories (#31): sizes and bounded work.

One bound for a learning and each sidecar (`store.fileops.MAX_FILE_BYTES`, the readers'
1 MiB), kept by every door that writes (the CLI, MCP, the merge driver; the page is in
`tests/features/dashboard/test_hostile_bounds_api.py`), so nothing is written that a
reader then refuses; busy sidecars folded, never turned into 0; anchors and the glossary
matched in bounded work; and the unexpected errors of the issue as one-line refusals.
"""

from __future__ import annotations

import json
import time
from pathlib import Path

import pytest

from orbit_learnings.store.fileops import MAX_FILE_BYTES
from tests.testing import CliRunner, add_learning, git, run_orbit

BUNDLE = ".orbit/learnings/{}"


def votes_of(root: Path, learning_id: str = "L-0001") -> Path:
    return root / BUNDLE.format(learning_id) / "votes.jsonl"


def vote_count(orbit: CliRunner, learning_id: str = "L-0001") -> int:
    shown = orbit("learning", "show", learning_id, "--json")
    assert shown.code == 0, shown.err
    count = json.loads(shown.out)["vote_count"]
    assert isinstance(count, int)
    return count


def vote_rows(learning_id: str, count: int) -> str:
    """`count` distinct votes, ten minutes apart from the start of 2026."""
    from datetime import UTC, datetime, timedelta

    start = datetime(2026, 1, 1, tzinfo=UTC)
    rows = (
        {
            "learning_id": learning_id,
            "voter_model": "claude",
            "voted_at": (start + timedelta(minutes=10 * i)).strftime("%Y-%m-%dT%H:%M:%SZ"),
            "task_id": f"TASK-{i:06d}-{'x' * 40}",
        }
        for i in range(count)
    )
    return "".join(json.dumps(row) + "\n" for row in rows)


# --- item 12/16: a learning larger than a reader takes is never written ------------------


def test_add_body_file_of_10_mb_is_refused_and_writes_nothing(
    workspace: Path, orbit: CliRunner, tmp_path: Path
) -> None:
    big = tmp_path / "body.md"
    big.write_text(("lorem ipsum " * 7 + "\n") * 120_000)  # ~10 MB
    before = sorted(p.name for p in (workspace / ".orbit/learnings").iterdir())
    out = orbit("learning", "add", "--summary", "Big", "--path", "src/**", "--body-file", str(big))
    assert out.code == 2, out.err
    assert out.err.count("\n") == 1 and str(MAX_FILE_BYTES) in out.err
    assert sorted(p.name for p in (workspace / ".orbit/learnings").iterdir()) == before


def test_a_body_that_fits_the_request_but_not_the_file_is_refused(
    workspace: Path, orbit: CliRunner
) -> None:
    """A body of short lines grows when YAML indents it: the written file is what counts."""
    learning_id = add_learning(workspace)
    path = workspace / BUNDLE.format(learning_id) / "learning.yaml"
    before = path.read_bytes()
    body = "a\n" * 400_000  # 800 KB typed, 1.6 MB as an indented YAML block
    out = orbit("learning", "update", learning_id, "--body", body)
    assert out.code == 2 and "at most 1048576" in out.err, out.err
    assert path.read_bytes() == before
    out = orbit("learning", "add", "--summary", "S", "--path", "src/**", "--body", body)
    assert out.code == 2 and "at most 1048576" in out.err, out.err
    assert orbit("learning", "list", "--json").code == 0


def test_a_600_kb_summary_is_refused_by_add_and_update(workspace: Path, orbit: CliRunner) -> None:
    learning_id = add_learning(workspace)
    path = workspace / BUNDLE.format(learning_id) / "learning.yaml"
    before = path.read_bytes()
    huge = "word " * 120_000
    out = orbit("learning", "update", learning_id, "--summary", huge)
    assert (
        out.code == 2 and "the summary is 600000 characters" in out.err and out.err.count("\n") == 1
    ), out.err
    assert path.read_bytes() == before
    out = orbit("learning", "add", "--summary", huge, "--path", "src/**")
    assert out.code == 2 and "a summary is at most" in out.err, out.err


def test_a_hand_written_summary_past_the_bound_is_reported_by_check(
    workspace: Path, orbit: CliRunner
) -> None:
    learning_id = add_learning(workspace, "Short")
    path = workspace / BUNDLE.format(learning_id) / "learning.yaml"
    path.write_text(path.read_text().replace("summary: Short", "summary: " + "x" * 5000))
    out = orbit("learning", "check", "--json")
    assert out.code == 1
    assert any(
        "summary is 5000 characters" in p["message"] for p in json.loads(out.out)["problems"]
    )


# --- item 13: task IDs bounded where votes come in -----------------------------------------


def test_upvote_with_a_600_kb_task_id_is_refused_and_later_upvotes_count(
    workspace: Path, orbit: CliRunner
) -> None:
    learning_id = add_learning(workspace)
    assert orbit("learning", "upvote", learning_id, "--model", "claude", "--task", "T-1").code == 0
    out = orbit("learning", "upvote", learning_id, "--model", "claude", "--task", "t" * 600_000)
    assert out.code == 2 and "task ID is at most" in out.err and out.err.count("\n") == 1, out.err
    assert votes_of(workspace, learning_id).stat().st_size < 1000
    assert orbit("learning", "upvote", learning_id, "--model", "claude", "--task", "T-2").code == 0
    assert vote_count(orbit, learning_id) == 2


def test_mcp_upvote_and_feedback_refuse_a_600_kb_task_id(workspace: Path) -> None:
    from orbit_learnings.core.errors import UsageError
    from orbit_learnings.integrations.mcp.tools import LearningTools
    from orbit_learnings.store import feedback
    from orbit_learnings.store.workspace import Workspace

    learning_id = add_learning(workspace)
    ws = Workspace(workspace)
    tools = LearningTools(ws, "session")
    with pytest.raises(UsageError, match="task ID is at most"):
        tools.do_upvote(learning_id, "claude", "t" * 600_000)
    with pytest.raises(UsageError, match="task ID is at most"):
        feedback.record(ws, learning_id, helpful=True, task_id="t" * 600_000, model="claude")
    assert not votes_of(workspace, learning_id).exists()
    assert tools.do_upvote(learning_id, "claude", "T-1")["vote_count"] == 1


# --- item 15: a busy votes.jsonl keeps its count ------------------------------------------


def test_votes_past_the_bound_still_count_and_check_reports_the_file(
    workspace: Path, orbit: CliRunner
) -> None:
    learning_id = add_learning(workspace)
    votes_of(workspace, learning_id).write_text(vote_rows(learning_id, 12_000))
    assert votes_of(workspace, learning_id).stat().st_size > MAX_FILE_BYTES
    assert vote_count(orbit, learning_id) > 6_000  # the first MiB's worth, never 0
    check = orbit("learning", "check", "--json")
    assert check.code == 1
    problems = [p for p in json.loads(check.out)["problems"] if p["kind"] == "votes"]
    assert problems and "past its bound" in problems[0]["message"]


def test_an_upvote_folds_a_busy_votes_file_keeping_every_vote(
    workspace: Path, orbit: CliRunner
) -> None:
    learning_id = add_learning(workspace)
    votes_of(workspace, learning_id).write_text(vote_rows(learning_id, 12_000))
    out = orbit("learning", "upvote", learning_id, "--model", "claude", "--task", "T-NEW")
    assert out.code == 0, out.err
    assert votes_of(workspace, learning_id).stat().st_size < MAX_FILE_BYTES // 2
    assert vote_count(orbit, learning_id) == 12_001
    assert orbit("learning", "check").code == 0
    again = orbit("learning", "upvote", learning_id, "--model", "claude", "--task", "T-NEW")
    assert "already counted" in again.out and vote_count(orbit, learning_id) == 12_001
    first, *rows = votes_of(workspace, learning_id).read_text().splitlines()
    assert len(rows) == 100 + 1  # the newest 100 stay as written, then the new vote
    assert sum(json.loads(first)["folded"].values()) + len(rows) == 12_001


def test_upvotes_never_take_the_votes_file_past_half_the_bound(
    workspace: Path, orbit: CliRunner
) -> None:
    """Thousands of agents' votes: the file is folded as it grows, and every vote counts."""
    from orbit_learnings.store import bundles
    from orbit_learnings.store.votes import FOLD_AT
    from orbit_learnings.store.workspace import Workspace

    learning_id = add_learning(workspace)
    votes_of(workspace, learning_id).write_text(vote_rows(learning_id, 4_500))
    size = votes_of(workspace, learning_id).stat().st_size
    assert size > FOLD_AT
    ws = Workspace(workspace)
    for n in range(20):
        summary = bundles.add_vote(ws, learning_id, "gemini", f"T-{n}")
    assert summary.vote_count == 4_520
    assert votes_of(workspace, learning_id).stat().st_size < FOLD_AT
    assert vote_count(orbit, learning_id) == 4_520


def test_two_branches_that_both_folded_count_each_vote_once(
    workspace: Path, orbit: CliRunner
) -> None:
    """git's union merge of two folded files: each day's larger count, rows already folded
    not counted again."""
    from orbit_learnings.store import bundles
    from orbit_learnings.store.workspace import Workspace

    learning_id = add_learning(workspace)
    path = votes_of(workspace, learning_id)
    path.write_text(vote_rows(learning_id, 5_000))
    bundles.add_vote(Workspace(workspace), learning_id, "claude", "ours")
    ours = path.read_text().splitlines(keepends=True)
    path.write_text(vote_rows(learning_id, 5_050))  # theirs saw 50 more before folding
    bundles.add_vote(Workspace(workspace), learning_id, "claude", "theirs")
    theirs = path.read_text().splitlines(keepends=True)
    path.write_text(
        "".join(dict.fromkeys(ours + theirs + vote_rows(learning_id, 50).splitlines(True)))
    )
    assert len([line for line in ours + theirs if '"folded"' in line]) == 2
    assert vote_count(orbit, learning_id) == 5_050 + 2


def test_a_feedback_file_past_the_bound_keeps_its_counts(workspace: Path, orbit: CliRunner) -> None:
    from orbit_learnings.store import feedback
    from orbit_learnings.store.workspace import Workspace

    learning_id = add_learning(workspace)
    path = workspace / BUNDLE.format(learning_id) / "feedback.jsonl"
    rows = (
        {"learning_id": learning_id, "task_id": f"T-{i:06d}-{'y' * 60}", "model": "claude",
         "helpful": True, "at": f"2026-03-{1 + i % 28:02d}T10:00:00Z"}
        for i in range(10_000)
    )  # fmt: skip
    path.write_text("".join(json.dumps(row) + "\n" for row in rows))
    assert path.stat().st_size > MAX_FILE_BYTES
    ws = Workspace(workspace)
    assert feedback.summarise(ws, learning_id).times_helpful > 5_000  # never 0
    check = orbit("learning", "check", "--json")
    assert any(p["kind"] == "feedback" for p in json.loads(check.out)["problems"]), check.out
    feedback.record(ws, learning_id, helpful=False, task_id="T-NEW", model="claude")
    assert path.stat().st_size < MAX_FILE_BYTES // 2
    counts = feedback.summarise(ws, learning_id)
    assert (counts.times_helpful, counts.times_not_helpful) == (10_000, 1)


# --- item 17: anchors' hash lists capped, their matching bounded ---------------------------


def anchored_learning(root: Path, hashes: int, lines: str = "1-3") -> str:
    from orbit_learnings.core.anchors.fingerprint import line_hash

    learning_id = add_learning(root)
    path = root / BUNDLE.format(learning_id) / "learning.yaml"
    anchor = (
        f"anchors:\n  - path: src/same.py\n    lines: {lines}\n    recorded: 2026-10-02\n"
        f"    fingerprint: 0123456789abcdef\n    line_hashes: {' '.join([line_hash('x=1')] * hashes)}\n"
    )
    path.write_text(path.read_text() + anchor)
    return learning_id


def test_check_refuses_an_anchor_carrying_1000_line_hashes(
    workspace: Path, orbit: CliRunner
) -> None:
    (workspace / "src").mkdir()
    (workspace / "src/same.py").write_text("x = 1\n" * 2000)
    anchored_learning(workspace, 1000)
    out = orbit("learning", "check", "--json")
    assert out.code == 1
    messages = [p["message"] for p in json.loads(out.out)["problems"]]
    assert any("line_hashes holds 1000 hashes; at most 300" in m for m in messages), messages


def test_the_hook_is_not_stalled_by_an_anchor_on_2000_identical_lines(workspace: Path) -> None:
    """~25 s before; now the record is refused, and skipped by the hook."""
    git(workspace, "init", "-q", "-b", "main")
    (workspace / "src").mkdir()
    (workspace / "src/same.py").write_text("x = 1\n" * 2000)
    anchored_learning(workspace, 1000)
    payload = json.dumps(
        {"session_id": "s", "hook_event_name": "PostToolUse", "tool_name": "Read",
         "tool_input": {"file_path": str(workspace / "src/same.py")}, "cwd": str(workspace)}
    )  # fmt: skip
    started = time.monotonic()
    out = run_orbit("hook", "claude-code", cwd=workspace, stdin=payload)
    assert out.code == 0
    assert time.monotonic() - started < 15  # a generous ceiling: 25 s before, well under 1 s now


def test_locating_a_300_line_anchor_on_2000_identical_lines_is_bounded() -> None:
    """The most an anchor may carry, half its lines matching every line of the file: 39 s of
    difflib before; a few milliseconds now. Work counted as difflib's calls, not time."""
    import difflib

    from orbit_learnings.core.anchors.fingerprint import line_hash
    from orbit_learnings.core.anchors.locate import locate
    from orbit_learnings.core.anchors.record import Anchor

    same = line_hash("x=1")
    hashes = tuple(same if i % 2 else f"{i:08x}" for i in range(300))
    anchor = Anchor("a.py", 1, 300, fingerprint="0" * 16, line_hashes=hashes, recorded="2026-01-01")
    pairs = 0
    original = difflib.SequenceMatcher.find_longest_match

    def counted(self: difflib.SequenceMatcher[str], *args: int) -> difflib.Match:
        nonlocal pairs
        state = vars(self)  # b2j and a: difflib's own working state, which typeshed omits
        pairs += sum(len(state["b2j"].get(value, ())) for value in state["a"])
        return original(self, *args)

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(difflib.SequenceMatcher, "find_longest_match", counted)
        started = time.monotonic()
        locate(anchor, "x = 1\n" * 2000)
    assert pairs < 5_000_000, pairs  # ~2 x 10^9 before
    assert time.monotonic() - started < 10  # a generous ceiling: 39 s before


# --- item 19: the glossary expanded in linear time, with a cap ------------------------------


def test_a_chained_glossary_of_20000_entries_is_grouped_in_linear_time() -> None:
    from orbit_learnings.core.fts import MAX_ALTERNATIVES, Glossary, plan

    chained = {f"w{i}": [f"w{i + 1}"] for i in range(20_000)}
    started = time.monotonic()
    glossary = Glossary()
    glossary.extend(chained)
    query = plan("w7 rollout", glossary)
    assert time.monotonic() - started < 5  # a generous ceiling: ~20 s quadratic before
    assert len(glossary.group("w0")) == 20_001  # still one group: every word means the same
    assert len(query.terms[0].alternatives) == MAX_ALTERNATIVES  # 20,000 ORs before


def test_search_with_a_chained_glossary_of_14000_entries_answers(
    workspace: Path, orbit: CliRunner
) -> None:
    add_learning(workspace, "w13999 rollouts need a canary")
    text = "".join(f"w{i}: [w{i + 1}]\n" for i in range(14_000))
    (workspace / ".orbit/glossary.yaml").write_text(text)
    started = time.monotonic()
    out = orbit("search", "w5", "--json")
    assert out.code == 0, out.err
    assert time.monotonic() - started < 20  # a generous ceiling: 6 s of expansion before
    assert "w5" in out.out or out.out  # the query ran; what it found is search's business
    from orbit_learnings.core.fts import MAX_ALTERNATIVES, plan
    from orbit_learnings.store.config import glossary
    from orbit_learnings.store.workspace import Workspace

    terms = plan("w5", glossary(Workspace(workspace))).terms
    assert len(terms[0].alternatives) == MAX_ALTERNATIVES


# --- item 21: the merge driver refuses a side past the bound --------------------------------


def test_the_merge_driver_refuses_a_20_mb_side_and_keeps_ours(
    workspace: Path, orbit: CliRunner, tmp_path: Path
) -> None:
    learning_id = add_learning(workspace)
    text = (workspace / BUNDLE.format(learning_id) / "learning.yaml").read_text()
    base, ours, theirs = (tmp_path / name for name in ("base", "ours", "theirs"))
    base.write_text(text)
    ours.write_text(text.replace("priority: 0", "priority: 2"))
    huge = "body: |\n" + "  padding line of a hostile side\n" * 650_000  # ~20 MB
    theirs.write_text(text.replace("body: ''\n", huge))
    mine = ours.read_bytes()
    out = orbit("learning", "merge-driver", str(base), str(ours), str(theirs), "learning.yaml")
    assert out.code == 1 and "kept ours" in out.err and out.err.count("\n") == 1, out.err
    assert ours.read_bytes() == mine  # never a merged file the readers would refuse


# --- items 24, 25: unexpected errors become refusals ---------------------------------------


def test_update_of_a_file_ending_in_a_yaml_end_marker(workspace: Path, orbit: CliRunner) -> None:
    learning_id = add_learning(workspace)
    path = workspace / BUNDLE.format(learning_id) / "learning.yaml"
    text = path.read_text().replace("body: ''\n", "").replace("priority: 0\n", "")
    path.write_text(text + "body: |\n  text\n...\n")
    out = orbit("learning", "update", learning_id, "--priority", "3", "--evidence", "task=T-1")
    assert out.code == 0, out.err
    written = path.read_text()
    assert written.endswith("...\n") and "priority: 3" in written and "ref: T-1" in written
    assert orbit("learning", "show", learning_id, "--json").code == 0


def test_an_id_of_300_digits_is_no_learning(workspace: Path, orbit: CliRunner) -> None:
    """ "File name too long" (exit 3) before: an ID has at most 12 digits."""
    add_learning(workspace)
    long_id = "L-" + "1" * 300
    for args in (
        ("update", long_id, "--summary", "x"),
        ("show", long_id),
        ("upvote", long_id, "--model", "m", "--task", "t"),
    ):
        out = orbit("learning", *args)
        assert out.code == 1 and "no learning" in out.err and out.err.count("\n") == 1, out.err


def test_a_committed_id_of_many_digits_does_not_set_the_next_id(
    workspace: Path, orbit: CliRunner
) -> None:
    learning_id = add_learning(workspace)
    hostile = workspace / ".orbit/learnings" / ("L-" + "9" * 23)
    hostile.mkdir()
    text = (workspace / BUNDLE.format(learning_id) / "learning.yaml").read_text()
    (hostile / "learning.yaml").write_text(text.replace(learning_id, hostile.name))
    assert add_learning(workspace) == "L-0002"
