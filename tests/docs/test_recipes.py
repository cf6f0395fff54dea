"""Docs that run: every shell and config recipe in README.md and docs/ works as written.

Users copy these blocks into a shell or a config file, so the suite runs them: a recipe that
stops working fails the suite, named by file:line.

What counts as a recipe: a fenced block whose language is `sh`, `bash`, `shell`, `console`,
`yaml`, `yml` or `json`, and any block without a language that holds `$ ` prompt lines (a
console block that forgot to say so). New pages and sections are picked up on their own.

How each runs, by default:

- `sh`, `bash`, `shell`: the whole block, as one bash script with `set -e -o pipefail`;
- `console`: only the `$ ` lines (with their `\\` continuations and here-document bodies, up to
  the closing word); the rest is sample output;
- both in a throw-away clone holding `.orbit-example/` as `.orbit/` and the files recipes name
  (`why.md`, `task.yaml`, ...), with this venv's `orbit` first on PATH, its own HOME and no
  network (`tests/docs/sandbox.py`, which also sets up the state a few commands take for
  granted: a conflict to resolve, a draft to accept); the block must exit 0;
- `yaml`, `yml`, `json`: not runnable by themselves, so the block needs a marker.

A marker is an HTML comment on the line right above the fence (rendered pages hide it);
directives join with `;`:

    <!-- recipe: skip — needs a GitHub runner -->          not run; the reason is required
    <!-- recipe: skip `orbit dashboard` — serves until stopped -->
                                  commands starting with `orbit dashboard` are not run; the
                                  rest of the block is
    <!-- recipe: output -->       sample output or an excerpt, not a command or a whole file
                                  (YAML and JSON are still parsed)
    <!-- recipe: file .orbit/config.yaml -->
                                  the block is this file: it is written into the sandbox and
                                  read by the tool that reads it (`CHECKERS` below; a new kind
                                  of file needs a checker)
    <!-- recipe: fresh -->        run in a brand-new empty repository (`git init` and nothing
                                  else: no commit, no origin, no fixture files, no `.orbit/`);
                                  the block creates what it uses
    <!-- recipe: exit 1 -->       the block's documented exit code, when it is not 0

A malformed marker, or one not right above a fence, fails the suite too. The pre-commit, GitHub
Actions and Claude Code wrapper recipes also get a run of their own: `test_recipes_precommit.py`,
`test_recipes_ci.py`, `test_recipes_claude_wrapper.py`.
"""

from __future__ import annotations

import asyncio
import json
import re
from collections.abc import Callable
from fnmatch import fnmatch
from pathlib import Path

import pytest
from mcp import Client
from mcp.client.stdio import StdioServerParameters

from tests.docs.recipes import (
    DATA,
    Block,
    all_blocks,
    blocks,
    doc_files,
    load,
    orphan_markers,
    parse_marker,
    script,
    workflow_steps,
)
from tests.docs.sandbox import Sandbox, Templates, make_sandbox, prepare
from tests.testing import git

BLOCKS = all_blocks()
HOW_TO_MARK = (
    "make it runnable, or say why not on the line above its fence, e.g. "
    "`<!-- recipe: skip — why -->`, `<!-- recipe: output -->` or `<!-- recipe: file PATH -->` "
    "(tests/docs/test_recipes.py lists them)"
)


@pytest.mark.parametrize("block", BLOCKS, ids=lambda b: b.where)
def test_recipe(block: Block, templates: Templates, tmp_path: Path) -> None:
    assert block.problem is None, f"{block.where}: {block.problem}"
    marker = block.marker
    if marker.skip is not None:
        return  # the reason is in the doc, next to the block
    if marker.file is not None:
        return check_file(block, make_sandbox(templates, tmp_path))
    if block.lang in DATA:
        assert marker.output, (
            f"{block.where}: a {block.lang} block is a file or an output; " + HOW_TO_MARK
        )
        load(block)
        return
    if marker.output:
        return
    run_shell(block, templates, tmp_path)


def run_shell(block: Block, templates: Templates, tmp_path: Path) -> None:
    box = make_sandbox(templates, tmp_path, fresh=block.marker.fresh)
    text = script(block)
    prepare(box, templates, text)
    done = box.run(text)
    if done.returncode != block.marker.exit:
        pytest.fail(
            f"{block.where}: the recipe exited {done.returncode}, not {block.marker.exit}; "
            f"{HOW_TO_MARK}\n--- script\n{text}--- stdout\n{done.stdout}--- stderr\n{done.stderr}"
        )


# --- `recipe: file PATH`: the block is that file, read by the tool that reads it ------------


def check_file(block: Block, box: Sandbox) -> None:
    path = block.marker.file
    assert path is not None
    for pattern, checker in CHECKERS:
        if fnmatch(path, pattern):
            target = box.repo / path
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_text(block.text, encoding="utf-8")
            return checker(block, box, target)
    known = ", ".join(pattern for pattern, _ in CHECKERS)
    pytest.fail(f"{block.where}: no checker for `file {path}` (known: {known}); add one here")


def succeeds(block: Block, box: Sandbox, command: str) -> str:
    done = box.run(command + "\n")
    if done.returncode != 0:
        pytest.fail(
            f"{block.where}: `{command}` exited {done.returncode}\n{done.stdout}{done.stderr}"
        )
    return done.stdout


def check_store_file(block: Block, box: Sandbox, target: Path) -> None:
    """A file of the store: `sync` validates every record, a search reads config and glossary."""
    succeeds(block, box, "orbit learning sync")
    succeeds(block, box, "orbit learning search 'migration in a transaction' --weak")


def check_pre_commit_config(block: Block, box: Sandbox, target: Path) -> None:
    """As written, placeholder URL and all; the real run is in test_recipes_precommit.py."""
    succeeds(block, box, f"pre-commit validate-config {target}")


def check_workflow(block: Block, box: Sandbox, target: Path) -> None:
    """The shape GitHub reads; its `run:` lines run in test_recipes_ci.py."""
    assert workflow_steps(load(block)), f"{block.where}: a workflow without steps"


def check_claude_settings(block: Block, box: Sandbox, target: Path) -> None:
    """The entries are what `hooks install --claude` writes, and `orbit doctor` calls them
    safe for teammates (orbit, guarded)."""
    documented = load(block)["hooks"]
    succeeds(block, box, "orbit hooks install --claude >/dev/null")
    written = json.loads(target.read_text(encoding="utf-8"))["hooks"]
    for event, entries in documented.items():
        assert entries == written.get(event), f"{block.where}: orbit writes {written.get(event)}"
    report = json.loads(succeeds(block, box, "orbit doctor --json"))
    checks = {c["name"]: c for c in report["checks"]}
    assert checks["claude code hook"]["status"] == "ok", checks["claude code hook"]


def check_codex_hooks(block: Block, box: Sandbox, target: Path) -> None:
    """The entries are what `hooks install --codex` writes; `orbit doctor` calls them ok."""
    documented = load(block)["hooks"]
    succeeds(block, box, "orbit hooks install --codex >/dev/null")
    written = json.loads(target.read_text(encoding="utf-8"))["hooks"]
    for event, entries in documented.items():
        assert entries == written.get(event), f"{block.where}: orbit writes {written.get(event)}"
    report = json.loads(succeeds(block, box, "orbit doctor --json"))
    checks = {c["name"]: c for c in report["checks"]}
    assert checks["codex hook"]["status"] == "ok", checks["codex hook"]


def check_kiro_agent(block: Block, box: Sandbox, target: Path) -> None:
    """The team's agent as documented: `hooks install --kiro` merges exactly the documented
    entries into it (nothing else changes), `orbit doctor` runs them for real."""
    documented = load(block)
    succeeds(block, box, "orbit hooks install --kiro >/dev/null")
    written = json.loads(target.read_text(encoding="utf-8"))
    assert written == documented, f"{block.where}: orbit writes {written}"
    report = json.loads(succeeds(block, box, "orbit doctor --json"))
    checks = {c["name"]: c for c in report["checks"]}
    assert checks["kiro hook"]["status"] == "ok", checks["kiro hook"]
    assert checks["kiro dry run"]["status"] == "ok", checks["kiro dry run"]


def check_mcp_config(block: Block, box: Sandbox, target: Path) -> None:
    """Each server starts as configured and answers an MCP client with orbit's tools."""
    servers = json.loads(target.read_text(encoding="utf-8"))["mcpServers"]
    for name, server in servers.items():
        tools = asyncio.run(_list_tools(server, box))
        assert "orbit_learning_list" in tools, f"{block.where}: server {name} lists {tools}"


async def _list_tools(server: dict[str, list[str] | str], box: Sandbox) -> list[str]:
    command, args = server["command"], server.get("args", [])
    assert isinstance(command, str) and isinstance(args, list)
    params = StdioServerParameters(command=command, args=args, cwd=str(box.repo), env=box.env)
    async with Client(params, read_timeout_seconds=60) as client:
        return [tool.name for tool in (await client.list_tools()).tools]


CHECKERS: list[tuple[str, Callable[[Block, Sandbox, Path], None]]] = [
    (".orbit/*", check_store_file),
    (".pre-commit-config.yaml", check_pre_commit_config),
    (".github/workflows/*", check_workflow),
    (".claude/settings.json", check_claude_settings),
    (".codex/hooks.json", check_codex_hooks),
    (".kiro/agents/*.json", check_kiro_agent),
    (".mcp.json", check_mcp_config),
]


# --- the markers themselves -----------------------------------------------------------------


def test_every_marker_sits_right_above_a_fence() -> None:
    orphans = [where for page in doc_files() for where in orphan_markers(page)]
    assert not orphans, f"recipe markers that mark no block: {orphans}"


def test_markers_are_read_as_documented() -> None:
    marker = parse_marker(" skip `orbit dashboard` — serves until stopped; fresh; exit 1 ")
    assert marker.skip_commands == (("orbit dashboard", "serves until stopped"),)
    assert (marker.skip, marker.fresh, marker.exit) == (None, True, 1)
    assert parse_marker("skip — needs a GitHub runner").skip == "needs a GitHub runner"
    assert parse_marker("file .orbit/config.yaml").file == ".orbit/config.yaml"
    assert parse_marker("output").output


@pytest.mark.parametrize("body", ["skip", "skip —", "run it", "exit one", "file"])
def test_a_malformed_marker_is_reported_with_its_block(body: str, tmp_path: Path) -> None:
    page = _page(tmp_path, f"<!-- recipe: {body} -->\n```sh\norbit init\n```\n")
    (block,) = blocks(page)
    assert block.problem


def test_blocks_are_found_with_their_lines_and_console_prompts(tmp_path: Path) -> None:
    page = _page(
        tmp_path,
        "# t\n\n- item:\n\n  ```console\n  $ orbit learning add \\\n"
        "      --tag x\n  L-0001\n  $ orbit learning list\n  ```\n\n"
        "```\n$ orbit init\nsample\n```\n\n```python\nprint()\n```\n",
    )
    found = blocks(page)
    assert [(b.line, b.lang) for b in found] == [(5, "console"), (12, "console")]
    assert script(found[0]) == "orbit learning add \\\n    --tag x\norbit learning list\n"
    assert re.fullmatch(r"orbit init\n", script(found[1]))


def test_a_console_here_document_is_part_of_its_command(tmp_path: Path) -> None:
    page = _page(
        tmp_path,
        "```console\n$ cat > why.md <<'EOF'\nDDL is transactional.\n$ not a prompt\nEOF\n"
        "$ orbit init\nsample output\n```\n",
    )
    (block,) = blocks(page)
    assert script(block) == "cat > why.md <<'EOF'\nDDL is transactional.\n$ not a prompt\nEOF\n" + (
        "orbit init\n"
    )


def test_the_tour_runs_where_a_newcomer_starts(templates: Templates) -> None:
    """`fresh` is an empty repository, so the README's tour has to make every file it uses
    (its `test_recipe` run then proves it does)."""
    assert [p.name for p in templates.fresh.iterdir()] == [".git"]
    assert not git(templates.fresh, "remote").strip()
    assert any(b.path.name == "README.md" and b.marker.fresh for b in BLOCKS)


def test_a_marker_away_from_a_fence_is_reported(tmp_path: Path) -> None:
    page = _page(tmp_path, "<!-- recipe: output -->\n\n```console\n$ orbit init\n```\n")
    assert orphan_markers(page) == [f"{page}:1"]


def test_a_skipped_command_is_left_out_and_the_rest_run(tmp_path: Path) -> None:
    page = _page(
        tmp_path,
        "<!-- recipe: skip `orbit dashboard` — serves -->\n"
        "```sh\norbit dashboard --open\norbit doctor\n```\n",
    )
    assert script(blocks(page)[0]) == ": skipped, 'serves'\norbit doctor\n"


def _page(tmp_path: Path, text: str) -> Path:
    page = tmp_path / "page.md"
    page.write_text(text, encoding="utf-8")
    return page
