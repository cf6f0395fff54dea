"""Git: hooks that keep the index fresh and check learnings before they are committed.

Installing never overwrites a hook that is already there: the existing hook is
moved aside to `<name>.orbit-chained` (bytes and mode untouched) and our hook
runs it first with the same arguments. Uninstalling moves it back, so the
round trip restores exactly what was there. Hooks never block a checkout or a
merge, and skip themselves when `orbit` is not on PATH.
"""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

from orbit_learnings.core.errors import OrbitError
from orbit_learnings.integrations.base import Check, Integration, SetupReport
from orbit_learnings.store.fileops import atomic_write_text
from orbit_learnings.store.workspace import Workspace

MARKER = "# orbit-learnings hook"
CHAINED_SUFFIX = ".orbit-chained"
REFRESH_HOOKS = ("post-merge", "post-checkout", "post-rewrite")
CHECK_HOOK = "pre-commit"
ALL_HOOKS = (*REFRESH_HOOKS, CHECK_HOOK)

_PREAMBLE = f"""\
#!/bin/sh
{MARKER} (installed by `orbit hooks install`; `orbit hooks uninstall` restores what was here)
chained="$(dirname "$0")/$(basename "$0"){CHAINED_SUFFIX}"
status=0
if [ -x "$chained" ]; then
  "$chained" "$@" || status=$?
fi
command -v orbit >/dev/null 2>&1 || exit $status
"""

REFRESH_BODY = """\
# Bring the learnings index up to date; never block a checkout, merge or rebase on it.
orbit learning refresh --quiet >/dev/null 2>&1 || true
exit $status
"""

CHECK_BODY = """\
[ $status -eq 0 ] || exit $status
# Validate learnings only when learning files are staged.
if git diff --cached --name-only -- .orbit/learnings | grep -q .; then
  orbit learning check || exit 1
fi
exit 0
"""


def hooks_dir(ws: Workspace) -> Path:
    """Where git looks for hooks (honours core.hooksPath and worktrees)."""
    try:
        proc = subprocess.run(
            ["git", "rev-parse", "--git-path", "hooks"],
            cwd=ws.root_dir,
            capture_output=True,
            text=True,
            check=False,
        )
    except FileNotFoundError:
        raise OrbitError("git is not installed; git hooks need git") from None
    if proc.returncode != 0:
        raise OrbitError(f"{ws.root_dir} is not a git repository; git hooks need one")
    return (Path(ws.root_dir) / proc.stdout.strip()).resolve()


def script_for(name: str) -> str:
    return _PREAMBLE + (CHECK_BODY if name == CHECK_HOOK else REFRESH_BODY)


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
        if is_ours(hook):
            report.unchanged.append(name)
            continue
        if hook.exists() or hook.is_symlink():
            chained = folder / (name + CHAINED_SUFFIX)
            if chained.exists():
                raise OrbitError(f"{chained} already exists; move it away before installing")
            os.replace(hook, chained)
        atomic_write_text(hook, script_for(name))
        hook.chmod(0o755)
        report.changed.append(name)
    return report


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
    return report


class Git(Integration):
    name = "git"
    summary = "git hooks: refresh the index on checkout/merge/rewrite, `check` before commit"
    installs = True

    def install(self, ws: Workspace, *, command: str | None = None) -> SetupReport:
        return install(ws)

    def uninstall(self, ws: Workspace, *, command: str | None = None) -> SetupReport:
        return uninstall(ws)

    def doctor(self, ws: Workspace, *, sample_path: str | None = None) -> list[Check]:
        try:
            folder = hooks_dir(ws)
        except OrbitError:
            return [Check("git hooks", "skip", "not a git repository (or git is not installed)")]
        missing = [name for name in ALL_HOOKS if not is_ours(folder / name)]
        if missing:
            return [
                Check(
                    "git hooks",
                    "warn",
                    f"not installed: {', '.join(missing)}; run `orbit hooks install`",
                )
            ]
        return [Check("git hooks", "ok", f"{', '.join(ALL_HOOKS)} call orbit")]


INTEGRATION = Git()
