#!/usr/bin/env sh
# Claude Code hook for people who do not want `orbit` on PATH.
# Point .claude/settings.json at this script (single quotes: Claude Code expands the variable
# when it runs the hook; in double quotes your shell would expand it now, to nothing):
#   orbit hooks install --claude --command '"$CLAUDE_PROJECT_DIR"/scripts/claude-code-hook.sh'
# It runs the project's virtualenv copy of orbit and, like the hook itself, never blocks:
# whatever happens, it exits 0.
here="$(cd "$(dirname "$0")/.." && pwd)"
orbit="$here/.venv/bin/orbit"
if [ -x "$orbit" ]; then
  "$orbit" hook claude-code "$@" || true
elif command -v orbit >/dev/null 2>&1; then
  orbit hook claude-code "$@" || true
else
  cat >/dev/null
  echo "orbit hook: orbit is not installed; skipping" >&2
fi
exit 0
