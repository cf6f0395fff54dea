#!/usr/bin/env bash
# A short real session against a copy of .orbit-example/ (run by `make demo`).
#
# The demo is a git repository of its own holding the code its learnings are about
# (scripts/demo_files.txt): inside this checkout, where /demo-workspace/ is ignored,
# git would list no file of it and every learning would look stale.
set -euo pipefail
here="$(cd "$(dirname "$0")/.." && pwd)"
demo="${1:-demo-workspace}"
case "$demo" in /*) target="$demo" ;; *) target="$here/$demo" ;; esac
orbit="$here/.venv/bin/orbit"
python="$here/.venv/bin/python"

rm -rf "$target"
mkdir -p "$target"
cp -R "$here/.orbit-example" "$target/.orbit"
cd "$target"
grep -v '^#' "$here/scripts/demo_files.txt" | while read -r file; do
  mkdir -p "$(dirname "$file")" && printf '// %s\n' "$file" > "$file"
done
commit() {
  git add -A
  git -c user.name=demo -c user.email=demo@example.invalid commit -q -m "$1"
}
git init -q -b main
commit "The demo's code and its learnings"
# The example's commit evidence names commits of another history: link each of those
# learnings to this repository's commit too, as a reviewer would after an import.
head="$(git rev-parse --short HEAD)"
"$orbit" learning prune --json | "$python" -c '
import json, sys
print("\n".join(s["id"] for s in json.load(sys.stdin)["stale"] if "commits-gone" in s["reasons"]))
' | while read -r id; do
  [ -n "$id" ] && "$orbit" learning update "$id" --evidence "commit=$head" >/dev/null
done
commit "Link the learnings to this history"

step() { printf '\n\033[1m$ %s\033[0m\n' "$*"; "$@"; }

step "$orbit" learning list
step "$orbit" learning show L-0002
step "$orbit" learning list --path services/billing/invoices/tax.py
step "$orbit" learning list --path 'crates/**' --tag performance --status all
step "$orbit" search "migration transaction" --kind learning --limit 3
step "$orbit" learning upvote --id L-0002 --model claude --task DEMO-1
step "$orbit" learning list --path db/migrations/0042_orders.sql --json
step "$orbit" learning prune   # nothing is stale: the code its scopes name is here
printf '\nDemo workspace left in %s/ — try `cd %s && %s learning --help`, or `%s dashboard --open`.\n' \
  "$demo" "$demo" "$orbit" "$orbit"
