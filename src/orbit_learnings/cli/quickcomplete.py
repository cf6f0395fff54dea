"""Shell completion's hot cases without Typer: IDs, tags and paths answer from the index.

Every Tab runs `orbit` with `_ORBIT_COMPLETE` set. Completing a learning ID, a tag or a
path is what people press Tab for most, and Typer's import alone costs more than the
lookup, so those cases are answered here, in the shapes Typer's own scripts expect
(bash: one value a line; zsh: an `_arguments` spec; fish: `value<TAB>help`). Anything
else — command and option names — returns None and goes through Typer as before.

Nothing here imports Typer: the protocol is what the scripts users install
(`orbit --show-completion SHELL`) send and read back, which a Typer release cannot change
without breaking every script already installed. tests/features/cli/test_completion_parity.py
holds both sides to it: the variables are in Typer's scripts, and every answer here equals
Typer's own for the same request, shell by shell. One difference is deliberate: Typer
renders zsh and fish help as rich markup, which drops a `[word]` from a summary; here a
summary is shown as written.
"""

from __future__ import annotations

import os

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable

ID_COMMANDS = {
    "show",
    "update",
    "supersede",
    "upvote",
    "feedback",
    "resolve-conflict",
    "renumber",
    "archive",
    "restore",
}
TAG_OPTIONS = {"--tag", "-t"}
PATH_OPTIONS = {"--path", "-p"}


def complete(shell_var: str) -> str | None:
    """The completion output for this request, or None when Typer should answer it."""
    shell = shell_var.removeprefix("complete_")
    words = _words(shell)
    if words is None:
        return None
    args, incomplete = words
    source = _source(args, incomplete)
    if source is None:
        return None
    items = source(incomplete)
    return _format(shell, items)


def _words(shell: str) -> tuple[list[str], str] | None:
    import shlex

    try:
        if shell == "bash":
            words = shlex.split(os.environ["COMP_WORDS"])
            position = int(os.environ["COMP_CWORD"])
            return words[1:position], (words[position] if position < len(words) else "")
        if shell in ("zsh", "fish"):
            if shell == "fish" and os.environ.get("_TYPER_COMPLETE_FISH_ACTION") != "get-args":
                return None
            line = os.environ.get("_TYPER_COMPLETE_ARGS", "")
            words = shlex.split(line)[1:]
            if words and not line.endswith(" "):
                return words[:-1], words[-1]
            return words, ""
    except (KeyError, ValueError):
        return None
    return None


def _source(args: list[str], incomplete: str) -> Callable[[str], list[tuple[str, str]]] | None:
    from orbit_learnings.cli import completion

    previous = args[-1] if args else ""
    if previous in TAG_OPTIONS:
        return lambda typed: [(t, "") for t in completion.tags(typed)]
    if previous in PATH_OPTIONS:
        return lambda typed: [(p, "") for p in completion.paths(typed)]
    naming_an_id = previous in ID_COMMANDS or previous in ("--with", "-w", "--id")
    if naming_an_id and args[:1] == ["learning"] and not incomplete.startswith("-"):
        return completion.learning_ids
    return None


def _format(shell: str, items: list[tuple[str, str]]) -> str:
    if shell == "bash":
        return "\n".join(value for value, _ in items)
    if shell == "fish":
        return "\n".join(
            f"{value}\t{help_text}" if help_text else value for value, help_text in items
        )
    if not items:
        return "_files"
    quoted = [f'"{_zsh(v)}":"{_zsh(h)}"' if h else f'"{_zsh(v)}"' for v, h in items]
    return "_arguments '*: :((" + "\n".join(quoted) + "))'"


def _zsh(text: str) -> str:
    return (
        text.replace('"', '""')
        .replace("'", "''")
        .replace("$", "\\$")
        .replace("`", "\\`")
        .replace(":", r"\\:")
    )
