"""Anchors in review and CI: `check --stale` reports drifted and broken anchors on the
cited code lines, and `check --base REF` the anchors a branch's own diff changed, so the
author who rewrote a function is asked, in their pull request, about the lesson on it.
"""

from __future__ import annotations

import re

from orbit_learnings.core.anchors.locate import BROKEN, DRIFTED, MOVED
from orbit_learnings.core.errors import Problem
from orbit_learnings.curation import gitutil
from orbit_learnings.curation.anchors.report import anchor_report
from orbit_learnings.retrieval.anchors import AnchorState
from orbit_learnings.store.layout import LEARNING_FILE, bundle_display
from orbit_learnings.store.workspace import Workspace

_HUNK = re.compile(r"^@@ -\d+(?:,\d+)? \+(\d+)(?:,(\d+))? @@")


def anchor_problems(ws: Workspace) -> list[Problem]:
    """Drifted anchors on the code lines they cite now; broken and renamed ones on the
    learning's own file, since there is no code line left to put them on."""
    return [p for s in anchor_report(ws) if (p := _problem_for(ws, s)) is not None]


def _problem_for(ws: Workspace, state: AnchorState) -> Problem | None:
    lid, cited, where = state.learning_id, state.anchor.cited, state.location
    if state.state == DRIFTED:
        return Problem(
            where.path,
            where.start,
            f"{lid} cites {cited}, changed since {state.anchor.recorded} (similarity "
            f"{where.similarity:.2f}): check the lesson still holds, then re-record it with "
            f"`orbit learning update {lid} --anchor {where.path}:{where.lines}` or archive it",
            lid,
            "anchor",
            end_line=where.end,
        )
    if state.state == BROKEN:
        message = f"{lid} cites {cited}, which is gone: re-anchor the lesson or archive it"
    elif state.state == MOVED and where.path != state.anchor.path:
        message = (
            f"{lid} cites {cited}, renamed to {where.path}:{where.lines}: "
            "run `orbit learning anchors --fix`"
        )
    else:
        return None
    return Problem(bundle_display(lid), _anchor_line(ws, state), message, lid, "anchor")


def _anchor_line(ws: Workspace, state: AnchorState) -> int:
    from orbit_learnings.store.yamlio import line_containing

    try:
        text = (ws.bundle_dir(state.learning_id) / LEARNING_FILE).read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError):
        return 1
    return line_containing(text, f"lines: {state.anchor.lines}")


def touched_anchors(ws: Workspace, base: str) -> list[Problem]:
    """Drifted anchors whose cited lines this branch's diff (since the merge base with
    `base`) changed, unless the branch also edited that learning."""
    try:
        merge_base = gitutil.run_git(ws.root_str, "merge-base", "HEAD", base).strip()
        diff = gitutil.run_git(
            ws.root_str, "diff", "--no-color", "--no-ext-diff", "--unified=0", "-M", merge_base
        )
    except gitutil.GitUnavailable:
        return []  # collisions_with already reports an unknown or unreachable base
    changed = changed_lines(diff)
    edited = {path.split("/")[-2] for path in changed if path.endswith("/" + LEARNING_FILE)}
    problems = []
    for state in anchor_report(ws):
        where = state.location
        if state.state != DRIFTED or state.learning_id in edited:
            continue
        hit = [n for n in changed.get(where.path, ()) if where.start <= n <= where.end]
        if hit:
            problems.append(
                Problem(
                    where.path,
                    hit[0],
                    f"this branch changes {where.path}:{where.lines}, cited by "
                    f"{state.learning_id} (recorded {state.anchor.recorded}): check the lesson "
                    f"still holds (`orbit learning show {state.learning_id}` sets old beside "
                    "new), then re-record its anchor or archive it",
                    state.learning_id,
                    "anchor-touched",
                    end_line=hit[-1],
                )
            )
    return problems


def changed_lines(diff: str) -> dict[str, list[int]]:
    """Per file, the new-side line numbers a `--unified=0` diff adds or changes (a pure
    deletion counts as the line after it)."""
    changed: dict[str, list[int]] = {}
    path = ""
    for line in diff.splitlines():
        if line.startswith("+++ "):
            path = line[4:].removeprefix("b/") if line[4:] != "/dev/null" else ""
        elif path and (match := _HUNK.match(line)):
            start, count = int(match.group(1)), int(match.group(2) or 1)
            lines = range(start, start + count) if count else range(start, start + 2)
            changed.setdefault(path, []).extend(lines)
    return changed
