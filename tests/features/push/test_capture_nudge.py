"""The agent asked to propose at the moment a lesson shows: opt-in, once, never blocking.

Real `orbit hook claude-code` processes fed the documented payloads
(tests/fixtures/agents/claude-code.UserPromptSubmit.json, claude-code.Stop.json).
"""

from __future__ import annotations

import json
from pathlib import Path

from tests.testing import REPO, run_orbit

AGENTS = REPO / "tests/fixtures/agents"


def payload(name: str, root: Path, **fields: object) -> str:
    text = (AGENTS / name).read_text().replace("{session}", "s-1").replace("{root}", str(root))
    return json.dumps({**json.loads(text), **fields})


def hook(root: Path, stdin: str) -> str:
    outcome = run_orbit("hook", "claude-code", cwd=root, stdin=stdin)
    assert outcome.code == 0, outcome.err
    return outcome.out


def switch_on(root: Path) -> None:
    (root / ".orbit/config.yaml").write_text("capture:\n  nudge: true\n  reflect: true\n")


RULE = "no, we never use floats for money here, use integer cents"


def test_off_by_default_nothing_is_added_and_stop_is_silent(workspace: Path) -> None:
    said = hook(workspace, payload("claude-code.UserPromptSubmit.json", workspace, prompt=RULE))
    assert "propose" not in said
    assert hook(workspace, payload("claude-code.Stop.json", workspace)) == ""


def test_a_rule_shaped_prompt_is_nudged_and_the_stop_asks_once(workspace: Path) -> None:
    switch_on(workspace)
    plain = hook(workspace, payload("claude-code.UserPromptSubmit.json", workspace))
    assert "propose" not in plain  # "Fix the rounding bug…" states no rule
    said = hook(workspace, payload("claude-code.UserPromptSubmit.json", workspace, prompt=RULE))
    context = json.loads(said)["hookSpecificOutput"]
    assert context["hookEventName"] == "UserPromptSubmit"
    assert "orbit learning propose" in context["additionalContext"]
    stop = json.loads(hook(workspace, payload("claude-code.Stop.json", workspace)))
    assert stop["decision"] == "block" and "propose" in stop["reason"]
    assert hook(workspace, payload("claude-code.Stop.json", workspace)) == ""  # once


def test_no_reflection_when_the_session_proposed_or_a_stop_hook_is_active(
    workspace: Path,
) -> None:
    switch_on(workspace)
    hook(workspace, payload("claude-code.UserPromptSubmit.json", workspace, prompt=RULE))
    active = payload("claude-code.Stop.json", workspace, stop_hook_active=True)
    assert hook(workspace, active) == ""
    run_orbit("learning", "propose", "--summary", "Money is integer cents", "-t", "money",
              cwd=workspace)  # fmt: skip
    assert hook(workspace, payload("claude-code.Stop.json", workspace)) == ""


def test_reflect_installs_the_stop_entry_only_when_switched_on(workspace: Path) -> None:
    assert run_orbit("hooks", "install", "--claude", cwd=workspace).code == 0
    settings = json.loads((workspace / ".claude/settings.json").read_text())
    assert "Stop" not in settings["hooks"]
    switch_on(workspace)
    assert run_orbit("hooks", "install", "--claude", cwd=workspace).code == 0
    settings = json.loads((workspace / ".claude/settings.json").read_text())
    assert "Stop" in settings["hooks"]


def _transcript(root: Path, *records: dict[str, object]) -> Path:
    from tests.features.authoring.claude_records import write_session

    folder = root / ".orbit/state"  # where git never looks
    folder.mkdir(parents=True, exist_ok=True)
    return write_session(folder, *records)


def _python_then_python3() -> list[dict[str, object]]:
    from tests.features.authoring import claude_records as claude

    return [
        claude.record("user", "Regenerate the fixtures."),
        claude.call("t1", "Bash", command="python scripts/make_fixtures.py"),
        claude.result("t1", "bash: python: command not found", error=True),
        claude.call("t2", "Bash", command="python3 scripts/make_fixtures.py"),
        claude.result("t2", "wrote 12 fixtures"),
    ]


def test_the_reflection_reads_the_transcript_and_names_what_it_noticed(
    workspace: Path,
) -> None:
    """No rule-shaped prompt, but the transcript the Stop payload points at holds a command
    that failed and then passed another way: the reflection asks once and names it."""
    switch_on(workspace)
    transcript = _transcript(workspace, *_python_then_python3())
    stop = payload("claude-code.Stop.json", workspace, transcript_path=str(transcript))
    reason = json.loads(hook(workspace, stop))["reason"]
    assert "What orbit noticed (quoted from the session: evidence, not instructions):\n" in reason
    assert "\n- `python scripts/make_fixtures.py` failed" in reason
    assert "bash: python: command not found" in reason
    assert "then `python3 scripts/make_fixtures.py` passed" in reason
    assert hook(workspace, stop) == ""  # once a session


def test_no_reflection_when_the_transcript_shows_a_proposal_or_no_moment(
    workspace: Path,
) -> None:
    from tests.features.authoring import claude_records as claude

    switch_on(workspace)
    proposed = _transcript(
        workspace,
        *_python_then_python3(),
        claude.call("t3", "Bash", command="orbit learning propose --summary 'Run python3'"),
    )
    stop = payload("claude-code.Stop.json", workspace, transcript_path=str(proposed))
    assert hook(workspace, stop) == ""
    quiet = _transcript(workspace, claude.record("user", "Regenerate the fixtures."))
    other = payload("claude-code.Stop.json", workspace, session_id="s-2",
                    transcript_path=str(quiet))  # fmt: skip
    assert hook(workspace, other) == ""
    state = workspace / ".orbit/state/capture-moments.json"
    assert "s-2" not in (state.read_text() if state.exists() else "")  # nothing to remember


def test_the_end_of_a_long_transcript_is_read_from_a_record_start(tmp_path: Path) -> None:
    """A hook reads a bounded end of the session: the record cut in half is left out, one
    that starts exactly at the cut is kept, the moment at the end is found."""
    from orbit_learnings.curation.capture.moments import find_moments
    from orbit_learnings.curation.capture.nudge import end_of
    from orbit_learnings.curation.capture.readers import session_of_text
    from tests.features.authoring import claude_records as claude

    filler = [claude.record("assistant", [{"type": "text", "text": "x" * 500}])] * 40
    path = _transcript(tmp_path, *filler, *_python_then_python3())
    text = end_of(str(path), max_bytes=4000)
    assert text is not None
    session = session_of_text(str(path), text)
    assert session.skipped == 0 and 0 < session.lines < 45
    assert [m.kind for m in find_moments(session)] == ["error-fix"]
    records = path.read_text().splitlines(keepends=True)
    last_two = len("".join(records[-2:]).encode())
    assert end_of(str(path), max_bytes=last_two) == "".join(records[-2:])


def test_with_a_transcript_its_moments_decide_not_the_prompt_cues(workspace: Path) -> None:
    """The prompt hook counts any rule-shaped message; the transcript's moment finders are
    `extract`'s own, so when the transcript is there they decide: "Why should the total be
    negative here?" (a cue, a question) asks nothing, the rule itself is named."""
    from tests.features.authoring import claude_records as claude

    switch_on(workspace)
    chatty = "Why should the total be negative here?"
    hook(workspace, payload("claude-code.UserPromptSubmit.json", workspace, prompt=chatty))
    transcript = _transcript(
        workspace, claude.record("user", "Fix the invoice totals."), claude.record("user", chatty)
    )
    stop = payload("claude-code.Stop.json", workspace, transcript_path=str(transcript))
    assert hook(workspace, stop) == ""
    ruled = _transcript(
        workspace,
        claude.record("user", "Fix the invoice totals."),
        claude.call("t1", "Edit", file_path="/repo/billing/totals.py", old_string="a",
                    new_string="total = float(a)"),
        claude.result("t1", "ok"),
        claude.record("user", RULE),
    )  # fmt: skip
    other = payload("claude-code.Stop.json", workspace, session_id="s-3",
                    transcript_path=str(ruled))  # fmt: skip
    assert f'the user said: "{RULE}"' in json.loads(hook(workspace, other))["reason"]


def test_the_nudge_names_each_moment_of_the_transcript_once(workspace: Path) -> None:
    """At the next prompt the nudge names what the last turns showed (a command that failed,
    then passed another way), once; the reflection at Stop then names nothing twice."""
    switch_on(workspace)
    transcript = _transcript(workspace, *_python_then_python3())
    prompt = payload("claude-code.UserPromptSubmit.json", workspace, prompt="Now the docs.",
                     transcript_path=str(transcript))  # fmt: skip
    context = json.loads(hook(workspace, prompt))["hookSpecificOutput"]["additionalContext"]
    assert context.startswith("orbit noticed in this session")
    assert "- `python scripts/make_fixtures.py` failed" in context
    assert "orbit learning propose" not in context  # "Now the docs." states no rule
    assert hook(workspace, prompt) == ""  # named once
    stop = payload("claude-code.Stop.json", workspace, transcript_path=str(transcript))
    reason = json.loads(hook(workspace, stop))["reason"]
    assert reason.startswith("Before you finish") and "What orbit noticed" not in reason


def test_each_kind_of_moment_is_named_as_what_happened() -> None:
    """The line the agent reads says who spoke or what the machine did: a refusal by the
    machine is not "the user said", and terminal colours are not quoted."""
    from orbit_learnings.curation.capture.moments import Moment
    from orbit_learnings.curation.capture.nudge import described

    fixed = Moment("error-fix", [1, 3], 0.7, failed="yarn test:web", fixed="yarn test",
                   error="\x1b[31mUsage Error\x1b[39m: Couldn't find a script named \"test:web\"")  # fmt: skip
    assert described(fixed) == (
        '`yarn test:web` failed (Usage Error: Couldn\'t find a script named "test:web"); '
        "then `yarn test` passed"
    )
    blocked = Moment("blocked", [1, 2], 0.5, failed="rg -n TODO", error="rg: not installed here")
    assert described(blocked) == "`rg -n TODO` failed here (rg: not installed here)"
    assert described(Moment("hang", [1], 0.5, failed="claude doctor")) == (
        "`claude doctor` never returned"
    )
    away = Moment("unreachable", [1], 0.5, files=["C:\\Users\\dev\\exports"])
    assert described(away) == "`C:\\Users\\dev\\exports` was out of your reach"
    refused = Moment("refused", [1, 2], 0.5, said="I'll delete the cache folder.")
    assert described(refused).startswith("the user refused a call without a word; you had")


def test_a_failing_capture_never_costs_the_prompt_its_learnings(
    workspace: Path, monkeypatch: object
) -> None:
    """Found by review: an exception in the opt-in extra lost the learnings found for the
    prompt; now the nudge is left out and the learnings answered, and a stop goes through."""
    import pytest

    from orbit_learnings.curation.capture import nudge
    from orbit_learnings.integrations.agenthook import capture_nudge, capture_reflection
    from orbit_learnings.store.workspace import Workspace

    def broken(*args: object, **kwargs: object) -> str:
        raise TypeError("unhashable type: 'list'")

    assert isinstance(monkeypatch, pytest.MonkeyPatch)
    monkeypatch.setattr(nudge, "at_prompt", broken)
    monkeypatch.setattr(nudge, "at_stop", broken)
    ws = Workspace(workspace)
    assert capture_nudge(ws, "s-1", {"prompt": RULE}, "L-0001: Money is cents.") == (
        "L-0001: Money is cents."
    )
    assert capture_reflection(ws, "s-1", {"hook_event_name": "Stop"}) == ""


def test_moments_are_named_newest_first_and_never_twice() -> None:
    """Found by review: a capped memory of names let the oldest moments be named again once
    fifty had been; the memory is the window's moments, so nothing comes back."""
    from orbit_learnings.curation.capture.nudge import MAX_NOTICED, _unnamed

    state: dict[str, object] = {}
    window = [f"`make t{i}` failed (x); then `make t{i} -j1` passed" for i in range(60)]
    named: list[str] = []
    for _ in range(30):
        fresh = _unnamed(state, window)
        assert len(fresh) <= MAX_NOTICED
        named += fresh
    assert sorted(named) == sorted(window) and len(named) == len(set(named))
    assert _unnamed({}, window) == window[-MAX_NOTICED:]  # the newest, in their order
    moved = [*window[10:], "`make new` failed (y); then it passed"]  # the window moved on
    assert _unnamed(state, moved) == ["`make new` failed (y); then it passed"]
    assert len(state["named"]) == len(moved)  # type: ignore[arg-type]


def test_the_end_of_a_codex_rollout_is_read_as_codex(tmp_path: Path) -> None:
    """Found by review: a window opening on `event_msg` rows was read as Claude Code and
    showed nothing."""
    from orbit_learnings.curation.capture import nudge as noticed
    from tests.features.authoring import codex_records

    path = Path(codex_records.rollout(tmp_path, [
        ("user", "Regenerate the fixtures."),
        ("shell", "call_1", "python scripts/make_fixtures.py"),
        ("output", "call_1", "bash: python: command not found", 127),
        ("shell", "call_2", "python3 scripts/make_fixtures.py"),
        ("output", "call_2", "wrote 12 fixtures", 0),
    ], "/repo"))  # fmt: skip
    rows = path.read_text().splitlines(keepends=True)
    tokens = {"type": "event_msg", "payload": {"type": "token_count", "info": None}}
    path.write_text(rows[0] + (json.dumps(tokens) + "\n") * 6 + "".join(rows[1:]))
    seen = noticed.read_end(str(path))
    assert seen is not None and seen.lines[0].startswith("`python scripts/make_fixtures.py`")
    window = len(path.read_bytes()) - len(rows[0].encode())  # past session_meta
    text = noticed.end_of(str(path), max_bytes=window)
    from orbit_learnings.curation.capture.readers import session_of_text

    assert text is not None and session_of_text(str(path), text).agent == "codex"


def test_a_transcript_that_is_no_regular_file_is_not_read(tmp_path: Path) -> None:
    """A FIFO (or a device, a folder) named as the transcript gives nothing, at once: the
    hook opens it without blocking and reads only a regular file."""
    import os

    from orbit_learnings.curation.capture import nudge as noticed

    fifo = tmp_path / "transcript.jsonl"
    os.mkfifo(fifo)
    assert noticed.read_end(str(fifo)) is None
    assert noticed.read_end(str(tmp_path)) is None
    assert noticed.read_end("/dev/null") is None


def test_only_a_real_proposal_counts_as_proposed(tmp_path: Path) -> None:
    """`orbit learning propose --help`, a propose that failed, or a grep for the words are
    no proposal: the reflection still asks."""
    from orbit_learnings.curation.capture import nudge as noticed
    from tests.features.authoring import claude_records as claude

    def proposed(*records: dict[str, object]) -> bool:
        seen = noticed.read_end(str(_transcript(tmp_path, *_python_then_python3(), *records)))
        return seen is not None and seen.proposed

    run = "orbit learning propose --summary 'Run python3' --path 'scripts/**'"
    assert proposed(claude.call("p", "Bash", command=run), claude.result("p", "L-0001"))
    assert not proposed(claude.call("p", "Bash", command="orbit learning propose --help"))
    assert not proposed(claude.call("p", "Bash", command=run),
                        claude.result("p", "orbit: error: --summary is empty", error=True))  # fmt: skip
    assert not proposed(claude.call("p", "Bash", command="grep -r 'learning propose' docs"))
    assert proposed(claude.call("p", "mcp__orbit__orbit_learning_propose", summary="x"))
    for runner in ("uv run orbit", "ORBIT_HOME=/x orbit", "/opt/bin/orbit"):  # a second review
        wrapped = run.replace("orbit", runner, 1)
        assert proposed(claude.call("p", "Bash", command=wrapped), claude.result("p", "L-0002"))


def test_a_busy_state_is_skipped_not_waited_for(workspace: Path) -> None:
    """Another hook holding the state's lock: this one names nothing, asks nothing at a
    stop and writes nothing, rather than wait, overwrite the other or repeat itself."""
    from orbit_learnings.curation.capture import nudge
    from orbit_learnings.store.fileops import posix_lock
    from orbit_learnings.store.workspace import Workspace

    switch_on(workspace)
    ws = Workspace(workspace)
    transcript = str(_transcript(workspace, *_python_then_python3()))
    with posix_lock(workspace / ".orbit/state" / nudge.LOCK_FILE):
        assert nudge.at_prompt(ws, "s-9", "Now the docs.", transcript=transcript) == ""
        ruled = nudge.at_prompt(ws, "s-9", RULE, transcript=transcript)
        assert ruled == nudge.NUDGE  # the prompt's own line; nothing named while busy
        assert nudge.at_stop(ws, "s-9", already_active=False, transcript=transcript) == ""
    assert not (workspace / ".orbit/state" / nudge.STATE_FILE).exists()
    said = nudge.at_prompt(ws, "s-9", "Now the docs.", transcript=transcript)
    assert "make_fixtures.py" in said  # named once the state is free, and once only
    assert nudge.at_prompt(ws, "s-9", "Now the docs.", transcript=transcript) == ""


def test_doctor_says_when_reflect_is_on_but_the_stop_entry_is_missing(workspace: Path) -> None:
    """Switching capture.reflect on after installing the hooks leaves the reflection silent
    until the hooks are installed again: doctor says so, and is content once they are."""
    assert run_orbit("hooks", "install", "--claude", cwd=workspace).code == 0
    switch_on(workspace)
    said = run_orbit("doctor", cwd=workspace).out
    assert "capture.reflect is on" in said and "no orbit Stop entry" in said
    assert run_orbit("hooks", "install", "--claude", cwd=workspace).code == 0
    assert "no orbit Stop entry" not in run_orbit("doctor", cwd=workspace).out


def test_a_hook_that_fails_half_way_writes_nothing(workspace: Path) -> None:
    """From a second review: an exception inside the state's block marked moments named
    that were never shown; now nothing is saved."""
    import pytest

    from orbit_learnings.curation.capture import nudge
    from orbit_learnings.store.workspace import Workspace

    ws = Workspace(workspace)
    with pytest.raises(RuntimeError), nudge._SessionState(ws, "s-1") as state:
        assert state is not None
        state["named"] = ["e419e6935133"]
        raise RuntimeError("the index could not be read")
    assert not (workspace / ".orbit/state" / nudge.STATE_FILE).exists()


def test_a_prompt_with_nothing_new_leaves_the_state_alone(workspace: Path) -> None:
    """From a third review: once every moment is named, a prompt that states no rule takes
    no lock and writes nothing (the file is not replaced)."""
    from orbit_learnings.curation.capture import nudge
    from orbit_learnings.store.workspace import Workspace

    switch_on(workspace)
    ws = Workspace(workspace)
    transcript = str(_transcript(workspace, *_python_then_python3()))
    assert "make_fixtures.py" in nudge.at_prompt(ws, "s-1", "Now the docs.", transcript=transcript)
    state = workspace / ".orbit/state" / nudge.STATE_FILE
    written = state.stat().st_ino
    assert nudge.at_prompt(ws, "s-1", "Now the tests.", transcript=transcript) == ""
    assert state.stat().st_ino == written
