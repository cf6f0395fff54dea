"""Git: hooks that refresh the index and check what is staged, and the learning merge driver.

Installing never overwrites a hook that is already there: the existing hook is
moved aside to `<name>.orbit-chained` (bytes and mode untouched) and our hook
runs it first with the same arguments. Uninstalling moves it back, so the
round trip restores exactly what was there. Hooks never block a checkout or a
merge.

Hooks and the merge driver reach orbit through the interpreter `hooks install`
ran with (a venv's orbit is usually not on the PATH git hooks see), then through
PATH; when neither works the hook says so on stderr instead of passing silently.
`ORBIT_HOOK_DRY_RUN=1` makes a hook only show that it can reach orbit, which is
how `doctor` and `install` test them for real.
"""

from __future__ import annotations

import os
import shlex
import subprocess
import sys
from pathlib import Path

from orbit_learnings.core import SAFE_PATH_FLAG
from orbit_learnings.core.errors import OrbitError
from orbit_learnings.integrations.base import DRY_RUN_ENV, Check, Integration, SetupReport
from orbit_learnings.store.fileops import atomic_write_text
from orbit_learnings.store.setup import MERGE_DRIVER, ensure_merge_attribute
from orbit_learnings.store.workspace import Workspace

MARKER = "# orbit-learnings hook"
CHAINED_SUFFIX = ".orbit-chained"
REFRESH_HOOKS = ("post-merge", "post-checkout", "post-rewrite")
CHECK_HOOK = "pre-commit"
ALL_HOOKS = (*REFRESH_HOOKS, CHECK_HOOK)

_PREAMBLE = """\
#!/bin/sh
{marker} (installed by `orbit hooks install`; `orbit hooks uninstall` restores what was here)
ORBIT_PYTHON={python}  # the interpreter `orbit hooks install` ran with; else orbit on PATH
orbit_cli() {{
  if [ -x "$ORBIT_PYTHON" ]; then "$ORBIT_PYTHON" {safe} -m orbit_learnings "$@"
  else orbit "$@"; fi
}}
reachable() {{ [ -x "$ORBIT_PYTHON" ] || command -v orbit >/dev/null 2>&1; }}
unreachable="orbit-learnings: $(basename "$0") hook: cannot run orbit ($ORBIT_PYTHON is gone \
and orbit is not on PATH); run \\`orbit hooks install\\` again"
if [ -n "${dry_run}" ]; then
  reachable || {{ echo "$unreachable" >&2; exit 127; }}
  orbit_cli --version
  exit $?
fi
chained="$(dirname "$0")/$(basename "$0"){chained}"
status=0
if [ -x "$chained" ]; then
  "$chained" "$@" || status=$?
fi
if ! reachable; then
  echo "$unreachable" >&2
  exit $status
fi
"""

REFRESH_BODY = """\
# Bring the learnings index up to date; never block a checkout, merge or rebase on it.
orbit_cli learning refresh --quiet >/dev/null 2>&1 || true
# A subscriber brings its pinned org learnings into the cache, in the background: a fetch
# may wait on the network, and a checkout never waits on it. It never moves the pin.
if [ -f .orbit/org.lock ]; then (orbit_cli org fetch --quiet >/dev/null 2>&1 &); fi
exit $status
"""

CHECK_BODY = """\
[ $status -eq 0 ] || exit $status
# Validate the learnings as staged (what the commit will hold), only when some are staged.
if git diff --cached --name-only -- .orbit/learnings | grep -q .; then
  orbit_cli learning check --staged || exit 1
fi
exit 0
"""


def interpreter() -> str:
    """The Python running orbit now: hooks and the driver call it with `-P -m orbit_learnings`
    (never the repository's own folder first on the path; see `core.SAFE_PATH_FLAG`)."""
    return sys.executable


def hooks_dir(ws: Workspace) -> Path:
    """Where git looks for hooks (honours core.hooksPath and worktrees)."""
    return (Path(ws.root_str) / _git(ws, "rev-parse", "--git-path", "hooks").strip()).resolve()


def _git(ws: Workspace, *args: str, check: bool = True) -> str:
    """`gitutil.run_git`, its failures said in the words of `hooks install`."""
    from orbit_learnings.curation import gitutil

    try:
        return gitutil.run_git(ws.root_str, *args, check=check)
    except gitutil.GitUnavailable as exc:
        if "not a git repository" in str(exc):
            raise OrbitError(f"{ws.root_str} is not a git repository; git hooks need one") from None
        if "not on PATH" in str(exc):
            raise OrbitError("git is not installed; git hooks need git") from None
        raise OrbitError(str(exc)) from None


def script_for(name: str, python: str | None = None) -> str:
    preamble = _PREAMBLE.format(
        marker=MARKER,
        python=shlex.quote(python or interpreter()),
        dry_run=DRY_RUN_ENV,
        chained=CHAINED_SUFFIX,
        safe=SAFE_PATH_FLAG,
    )
    return preamble + (CHECK_BODY if name == CHECK_HOOK else REFRESH_BODY)


def driver_command(python: str | None = None) -> str:
    """The merge driver's command line; git substitutes %O %A %B %P, quoted, and runs it with
    the shell. Without orbit it falls back to git's own line merge rather than failing."""
    py = shlex.quote(python or interpreter())
    args = "learning merge-driver %O %A %B %P"
    return (
        f"if [ -x {py} ]; then {py} {SAFE_PATH_FLAG} -m orbit_learnings {args}; "
        f"elif command -v orbit >/dev/null 2>&1; then orbit {args}; "
        "else git merge-file -L ours -L base -L theirs %A %O %B; fi"
    )


def is_ours(path: Path) -> bool:
    try:
        return MARKER in path.read_text(encoding="utf-8", errors="replace")
    except OSError:
        return False


def install(ws: Workspace) -> SetupReport:
    report = SetupReport()
    folder = hooks_dir(ws)
    folder.mkdir(parents=True, exist_ok=True)
    for name in ALL_HOOKS:
        hook = folder / name
        if is_ours(hook) and hook.read_text(encoding="utf-8") == script_for(name):
            report.unchanged.append(name)
            continue
        if not is_ours(hook) and (hook.exists() or hook.is_symlink()):
            chained = folder / (name + CHAINED_SUFFIX)
            if chained.exists():
                raise OrbitError(f"{chained} already exists; move it away before installing")
            os.replace(hook, chained)
        atomic_write_text(hook, script_for(name))
        hook.chmod(0o755)
        report.changed.append(name)
    register_driver(ws, report)
    report.warnings += [c.message for c in hook_checks(ws) if c.status != "ok"]
    return report


def register_driver(ws: Workspace, report: SetupReport) -> None:
    """The `.gitattributes` line (committed, shared) and this clone's git config entry."""
    if ensure_merge_attribute(Path(ws.root_str)):
        report.changed.append(f".orbit/.gitattributes (merge={MERGE_DRIVER}; commit it)")
    key = f"merge.{MERGE_DRIVER}"
    if _git(ws, "config", "--get", f"{key}.driver", check=False).strip() == driver_command():
        report.unchanged.append(f"merge driver {MERGE_DRIVER}")
        return
    _git(ws, "config", f"{key}.name", "orbit-learnings: merge learning.yaml field by field")
    _git(ws, "config", f"{key}.driver", driver_command())
    report.changed.append(f"merge driver {MERGE_DRIVER} (in .git/config)")


def uninstall(ws: Workspace) -> SetupReport:
    report = SetupReport()
    folder = hooks_dir(ws)
    for name in ALL_HOOKS:
        hook, chained = folder / name, folder / (name + CHAINED_SUFFIX)
        if not is_ours(hook):
            report.unchanged.append(name)
            continue
        if chained.exists() or chained.is_symlink():
            os.replace(chained, hook)
        else:
            hook.unlink()
        report.changed.append(name)
    if _git(ws, "config", "--get", f"merge.{MERGE_DRIVER}.driver", check=False).strip():
        _git(ws, "config", "--remove-section", f"merge.{MERGE_DRIVER}")
        report.changed.append(f"merge driver {MERGE_DRIVER}")
    return report


def hook_checks(ws: Workspace) -> list[Check]:
    """Run each installed hook for real in its dry mode: can it reach orbit?"""
    checks = []
    folder = hooks_dir(ws)
    for name in ALL_HOOKS:
        hook = folder / name
        if not is_ours(hook):
            continue
        env = {**os.environ, DRY_RUN_ENV: "1"}
        proc = subprocess.run(
            [str(hook)], cwd=ws.root_str, env=env, capture_output=True, text=True, check=False
        )
        if proc.returncode == 0 and proc.stdout.startswith("orbit "):
            checks.append(Check(f"git hook {name}", "ok", f"runs {proc.stdout.strip()}"))
        else:
            why = (proc.stderr or proc.stdout).strip().splitlines() or [f"exit {proc.returncode}"]
            checks.append(Check(f"git hook {name}", "fail", why[-1]))
    return checks


def driver_check(ws: Workspace) -> Check:
    configured = _git(ws, "config", "--get", f"merge.{MERGE_DRIVER}.driver", check=False).strip()
    if not configured:
        return Check(
            "merge driver",
            "warn",
            f"{MERGE_DRIVER} is not in this clone's git config (a clone does not carry it), so "
            "two edits of one learning merge line by line; run `orbit hooks install`",
        )
    if configured != driver_command():
        return Check(
            "merge driver", "warn", "registered by another orbit; run `orbit hooks install`"
        )
    return Check("merge driver", "ok", f"learning.yaml merges field by field ({MERGE_DRIVER})")


class Git(Integration):
    name = "git"
    summary = "git hooks (refresh the index, check what is staged) and the learning merge driver"
    installs = True

    def install(
        self, ws: Workspace, *, command: str | None = None, prompt: bool = True
    ) -> SetupReport:
        return install(ws)

    def uninstall(self, ws: Workspace, *, command: str | None = None) -> SetupReport:
        return uninstall(ws)

    def doctor(self, ws: Workspace, *, sample_path: str | None = None) -> list[Check]:
        try:
            folder = hooks_dir(ws)
        except OrbitError:
            return [Check("git hooks", "skip", "not a git repository (or git is not installed)")]
        missing = [name for name in ALL_HOOKS if not is_ours(folder / name)]
        checks = hook_checks(ws)
        if missing:
            message = f"not installed: {', '.join(missing)}; run `orbit hooks install`"
            checks.insert(0, Check("git hooks", "warn", message))
        return [*checks, driver_check(ws)]


INTEGRATION = Git()
