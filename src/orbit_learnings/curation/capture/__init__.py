"""Capture: lessons found in real work, proposed for review.

The path a lesson takes, one module a step:

- `sessions`: an agent's session file read faithfully (Claude Code JSONL, Codex CLI rollouts,
  plain text), every line accounted for, the harness's own injected text told apart from
  what the person typed;
- `commands`: shell commands normalised so "the same operation" means the same thing;
- `moments`: language-independent moments where a lesson shows (a rejected tool call with a
  reason, an interruption followed by an instruction, a user message that makes the agent
  redo an edit, an operation that failed and then succeeded after a change);
- `drafting`: a moment turned into a reviewable draft quoting its evidence, with a scope;
- `model`: an optional team language model, reached through a command the team already runs;
- `extract` and `drafts`: the command's orchestration and the review queue.
"""
