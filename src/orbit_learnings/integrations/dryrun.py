"""`orbit doctor` runs each installed agent entry for real, as its agent would.

An entry that cannot reach orbit (a venv install whose path is gone, a teammate's
machine, an unguarded command) answers nothing and exits 0: the agent gets nothing and
no one notices. So doctor feeds the entry the agent's own payload for a file that has
learnings (its shell, this PATH, `ORBIT_HOOK_DRY_RUN=1` so nothing is recorded) and
fails when the answer is empty. Claude Code's check runs its entries through `run_entry`
too, with its own payload.
"""

from __future__ import annotations

import json
import os

from orbit_learnings.integrations.base import DRY_RUN_ENV, Check

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable

    from orbit_learnings.store.workspace import Workspace

    Probe = Callable[[Workspace, str], tuple[str, dict[str, object]] | None]

CONTEXT_KEYS = ("additionalContext", "additional_context", "contextModification")


def context_in(out: str) -> str:
    """The text an agent's model would receive from this stdout, in any agent's shape:
    a JSON answer's context field (under `hookSpecificOutput` or at the top), or plain
    stdout (Kiro)."""
    text = out.strip()
    try:
        data = json.loads(text)
    except ValueError:
        return text
    if not isinstance(data, dict):
        return ""
    specific = data.get("hookSpecificOutput")
    found = specific if isinstance(specific, dict) else data
    return next((v for k in CONTEXT_KEYS if isinstance(v := found.get(k), str)), "")


def run_entry(ws: Workspace, command: str, payload: str) -> tuple[str, str]:
    """(stdout, " (why)" or "") of the entry run by `sh -c` in the repository."""
    import subprocess

    env = {**os.environ, DRY_RUN_ENV: "1"}
    try:
        done = subprocess.run(
            ["sh", "-c", command], input=payload, capture_output=True, text=True,
            cwd=ws.root_str, env=env, timeout=30, check=False,
        )  # fmt: skip
    except (OSError, subprocess.TimeoutExpired) as exc:
        return "", f" ({exc})"
    why = (done.stderr.strip().splitlines() or [""])[-1]
    if done.returncode != 0:
        why = f"exit {done.returncode}" + (f": {why}" if why else "")
    return done.stdout, f" ({why})" if why else ""


def check(name: str, probe: Probe, ws: Workspace, command: str, sample_path: str | None) -> Check:
    """Run the installed `command` with the agent's payload (`probe`: the agent's
    `AgentHook.probe`) for a file that has learnings."""
    from orbit_learnings.integrations.doctor import sample_path as find_sample

    label = f"{name} dry run"
    path = sample_path or find_sample(ws)
    if path is None:
        return Check(label, "skip", "no file in the repository matches any learning's scope")
    probed = probe(ws, path)
    if probed is None:
        return Check(label, "skip", f"no dry run for {name} yet")
    event, payload = probed
    out, why = run_entry(ws, command, json.dumps(payload))
    context = context_in(out)
    if not context:
        return Check(
            label,
            "fail",
            f"the installed {name} entry answered nothing to {event} for {path}, which "
            f"has learnings{why}: is orbit reachable from it? Install orbit on PATH (pipx) or "
            f"run `orbit hooks install {name}` from the install you use",
        )
    return Check(label, "ok", f"for {event} on {path} the model would receive:", context)
