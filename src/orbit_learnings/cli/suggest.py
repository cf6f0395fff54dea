""" "Did you mean" for a command name, across the whole command tree.

Typer's own suggestion looks only at the group the word was typed in and takes any
name `difflib` finds 60 % alike, so `orbit check` got no hint although
`orbit learning check` exists, and `orbit learning archive` was offered `search`.
Here every group and command of the tree is a candidate: the same name one level
away wins, then a name within an edit or two of a typo; nothing else is suggested.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from typer._click import exceptions as click_errors  # typer 0.28 vendors click
from typer.core import TyperGroup

NO_SUCH_COMMAND = "No such command"


class SuggestingGroup(TyperGroup):
    """A Typer group whose unknown-command error names the closest command anywhere."""

    def resolve_command(self, ctx: Any, args: list[str]) -> Any:
        try:
            return self._click_resolve_command(ctx, args)
        except click_errors.UsageError as exc:
            if args and exc.message.startswith(NO_SUCH_COMMAND):
                found = closest(_paths(ctx.find_root().command), args[0], _path_of(ctx))
                if found is not None:
                    spelled = " ".join((ctx.find_root().info_name or "orbit", *found))
                    exc.message = f"{NO_SUCH_COMMAND} {args[0]!r}. Did you mean `{spelled}`?"
            raise


def closest(
    paths: list[tuple[str, ...]], word: str, where: tuple[str, ...]
) -> tuple[str, ...] | None:
    """The command path to suggest for `word` typed in the group at `where`, or None.

    Ranked by how far the name is from the word (the same name first), then the typed
    group before others, then the shallower path (`learning list` before
    `learning drafts list`).
    """
    ranked = []
    for path in paths:
        distance = edits(word.lower(), path[-1])
        if distance <= allowed_edits(word):
            ranked.append((distance, path[:-1] != where, len(path), path))
    return min(ranked)[3] if ranked else None


def allowed_edits(word: str) -> int:
    """One edit in a short word, two in a longer one: a typo, not a different word."""
    return 1 if len(word) <= 5 else 2


def edits(first: str, second: str) -> int:
    """Edit distance with adjacent transpositions (optimal string alignment)."""
    before: list[int] = []
    previous = list(range(len(second) + 1))
    for i, left in enumerate(first, 1):
        current = [i]
        for j, right in enumerate(second, 1):
            cost = 0 if left == right else 1
            best = min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + cost)
            if i > 1 and j > 1 and left == second[j - 2] and first[i - 2] == right:
                best = min(best, before[j - 2] + 1)
            current.append(best)
        before, previous = previous, current
    return previous[-1]


def _paths(root: Any) -> list[tuple[str, ...]]:
    return list(_walk(root, ()))


def _walk(command: Any, prefix: tuple[str, ...]) -> Iterator[tuple[str, ...]]:
    for name, child in (getattr(command, "commands", None) or {}).items():
        if not getattr(child, "hidden", False):
            yield (*prefix, name)
            yield from _walk(child, (*prefix, name))


def _path_of(ctx: Any) -> tuple[str, ...]:
    """The group's path below the root: ("learning",) for `orbit learning ...`."""
    names: list[str] = []
    while ctx.parent is not None:
        names.append(ctx.info_name or "")
        ctx = ctx.parent
    return tuple(reversed(names))
