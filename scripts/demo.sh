#!/usr/bin/env bash
# A short real session against a copy of .orbit-example/ (run by `make demo`).
set -euo pipefail
here="$(cd "$(dirname "$0")/.." && pwd)"
demo="${1:-demo-workspace}"
orbit="$here/.venv/bin/orbit"

rm -rf "$here/$demo"
mkdir -p "$here/$demo"
cp -R "$here/.orbit-example" "$here/$demo/.orbit"
cd "$here/$demo"

step() { printf '\n\033[1m$ %s\033[0m\n' "$*"; "$@"; }

step "$orbit" learning list
step "$orbit" learning show L-0002
step "$orbit" learning list --path services/billing/invoices/tax.py
step "$orbit" learning list --path 'crates/**' --tag performance --status all
step "$orbit" search "migration transaction" --kind learning --limit 3
step "$orbit" learning upvote --id L-0002 --model claude --task DEMO-1
step "$orbit" learning list --path db/migrations/0042_orders.sql --json
printf '\nDemo workspace left in %s/ — try `cd %s && %s learning --help`.\n' "$demo" "$demo" "$orbit"
