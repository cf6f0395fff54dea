"""Console-script target for `orbit`, with a lean dispatch for the hot commands.

Agent hooks run `orbit learning list --path P --json` on every file an agent
touches. Typer and rich cost several times Python's own start-up, so the hot
commands are recognised here with a tiny hand-written parser and answered
through the same core and rendering functions the Typer commands call. Anything
the lean parser does not fully understand (help, unknown options, a terminal
that wants a rich table) falls through to the full CLI, so behaviour never
differs — only speed does.
"""

from __future__ import annotations

import os
import sys

TYPE_CHECKING = False
if TYPE_CHECKING:  # annotations only: the lean path must not import typing machinery
    from collections.abc import Callable

_FALLBACK = None


def main(argv: list[str] | None = None) -> int:
    return _answer(sys.argv[1:] if argv is None else list(argv))[0]


def console() -> None:
    """The `orbit` executable: `main`, then a quick exit when the lean path answered.

    A lean command has written its answer and holds nothing that needs tearing down
    (no threads, no temporary files, no atexit handlers; SQLite's files are consistent
    at every commit and the OS drops the locks), so the interpreter's own teardown, which
    frees every module and object one by one, is 2-3 ms of every agent hook spent on
    nothing. The full CLI exits the ordinary way.
    """
    code, lean = _answer(sys.argv[1:])
    if not lean:
        sys.exit(code)
    for stream in (sys.stdout, sys.stderr):
        try:  # noqa: SIM105 (contextlib is an import the hot path does not pay for)
            stream.flush()
        except (BrokenPipeError, ValueError):  # the reader went away, or it was closed
            pass
    os._exit(code)


def _answer(args: list[str]) -> tuple[int, bool]:
    """(exit code, whether the lean path answered without the full CLI)."""
    shell = os.environ.get("_ORBIT_COMPLETE")
    if shell and not args:  # a Tab: IDs, tags and paths answer without Typer
        from orbit_learnings.cli.quickcomplete import complete

        answer = complete(shell)
        if answer is not None:
            sys.stdout.write(answer + ("\n" if answer else ""))
            return 0, True
    # An agent's hook never shows progress, nor does a pipe: asked here too, so that a
    # pipe does not import the progress module only for it to say no.
    if args[:1] != ["hook"] and sys.stderr.isatty():
        from orbit_learnings.cli.progress import install_if_terminal

        install_if_terminal()
    code = _lean(args)
    if code is not _FALLBACK:
        return code, True
    from orbit_learnings.cli.app import run

    return run(args), False


_PATH_AND_TAG = {"--path": "path", "-p": "path", "--tag": "tag", "-t": "tag"}
_LIMIT = {"--limit": "limit", "-n": "limit"}
_STATUS_AND_LEVEL = {"--status": "status", "--level": "level"}
_LIST_OPTIONS = {**_PATH_AND_TAG, **_LIMIT, **_STATUS_AND_LEVEL}
_INJECT_OPTIONS = {
    **_PATH_AND_TAG,
    **_LIMIT,
    "--task-file": "task_file",
    "--session": "session",
    "--max-tokens": "max_tokens",
    "--format": "format",
    "--min-helpfulness": "min_helpfulness",
    "--min-confidence": "min_confidence",  # the deprecated name of --min-helpfulness
}
_INJECT_FLAGS = {"--feedback-hint": "feedback_hint", "--include-stale": "include_stale"}
_LIST_FLAGS = {"--json": "json"}
_LEARNING_SEARCH_OPTIONS = {
    "--tag": "tag",
    "-t": "tag",
    **_LIMIT,
    **_STATUS_AND_LEVEL,
    "--min-helpfulness": "min_helpfulness",
    "--min-confidence": "min_confidence",  # the deprecated name of --min-helpfulness
}
_SEARCH_OPTIONS = {**_LEARNING_SEARCH_OPTIONS, "--kind": "kind"}  # `orbit search` only
_SEARCH_FLAGS = {"--json": "json", "--weak": "weak", "--all": "all", "--explain": "explain"}


def _lean(args: list[str]) -> int | None:
    root, rest = _split_root(args)
    if rest is None or len(rest) < 2:
        return _FALLBACK
    if rest[0] == "search" or rest[:2] == ["learning", "search"]:
        if rest[0] == "search":
            return _lean_search(root, rest[1:], _SEARCH_OPTIONS)
        return _lean_search(root, rest[2:], _LEARNING_SEARCH_OPTIONS)
    command, options = rest[:2], rest[2:]
    if command[0] == "hook" and not {"-h", "--help"} & set(command[1:] + options):
        from orbit_learnings import integrations

        if integrations.find(command[1]) is None:  # still exit 0: a hook never blocks
            sys.stderr.write(f"orbit hook: no hook named {command[1]!r}; see `orbit hook --help`\n")
            return 0
        from orbit_learnings.cli.hot import do_hook

        # Whatever the arguments, a hook answers and exits 0.
        return do_hook(command[1], root, options)
    if command == ["learning", "list"]:
        listing = _parse(options, valued=_LIST_OPTIONS, flags=_LIST_FLAGS)
        if listing is None or not (listing.get("json") or not sys.stdout.isatty()):
            return _FALLBACK
        return _guarded(lambda: _list(root, listing), json_out=bool(listing.get("json")))
    if command == ["learning", "inject"]:
        injecting = _parse(
            options,
            valued=_INJECT_OPTIONS,
            flags=_INJECT_FLAGS,
        )
        if injecting is None:
            return _FALLBACK
        as_json = _single(injecting, "format") == "json"
        return _guarded(lambda: _inject(root, injecting), json_out=as_json)
    return _FALLBACK


def _lean_search(root: str | None, args: list[str], valued: dict[str, str]) -> int | None:
    """Text search, the agents' pull path, without Typer: words and the common options."""
    words, rest = _split_words(args)
    options = _parse(rest, valued=valued, flags=_SEARCH_FLAGS)
    if options is None or not words or words[0] == "path":
        return _FALLBACK  # `orbit search path P` is a scope lookup: the full CLI has it
    kind = _single(options, "kind")
    if kind not in (None, "learning") or not (options.get("json") or not sys.stdout.isatty()):
        return _FALLBACK
    return _guarded(
        lambda: _search(root, " ".join(words), options), json_out=bool(options.get("json"))
    )


def _split_words(args: list[str]) -> tuple[list[str], list[str]]:
    """(the words searched for, the options among them); an option's value is no word."""
    words: list[str] = []
    rest: list[str] = []
    position = 0
    while position < len(args):
        arg = args[position]
        if arg in _SEARCH_OPTIONS and position + 1 < len(args):
            rest += args[position : position + 2]
            position += 2
            continue
        (rest if arg.startswith("-") else words).append(arg)
        position += 1
    return words, rest


def _search(root: str | None, query: str, options: dict[str, object]) -> int:
    from orbit_learnings.cli.hot import do_search
    from orbit_learnings.store.workspace import find_workspace

    return do_search(
        find_workspace(root),
        query,
        tags=_strings(options, "tag"),
        status=_single(options, "status") or "active",
        include_all=bool(options.get("all")),
        limit=_int(options, "limit", "--limit", 1) or 20,
        explain=bool(options.get("explain")),
        min_helpfulness=_min_helpfulness(options),
        level=_single(options, "level") or "all",
        weak=bool(options.get("weak")),
        json_out=bool(options.get("json")),
    )


def _split_root(args: list[str]) -> tuple[str | None, list[str] | None]:
    """Peel the one global option the lean path supports; anything else falls back."""
    if args[:1] == ["--root"] and len(args) >= 2:
        return args[1], args[2:]
    if args[:1] and args[0].startswith("--root="):
        return args[0].split("=", 1)[1], args[1:]
    if args[:1] and args[0].startswith("-"):
        return None, None
    return None, args


def _parse(
    args: list[str], valued: dict[str, str], flags: dict[str, str]
) -> dict[str, object] | None:
    """Repeatable `--opt VALUE` / `--opt=VALUE` options and flags; None means "not for us"."""
    options: dict[str, object] = {}
    position = 0
    while position < len(args):
        arg = args[position]
        name, eq, inline = arg.partition("=")
        if arg in flags:
            options[flags[arg]] = True
        elif name in valued and (eq or position + 1 < len(args)):
            value = inline if eq else args[position + 1]
            position += 0 if eq else 1
            bucket = options.setdefault(valued[name], [])
            assert isinstance(bucket, list)
            bucket.append(value)
        else:
            return None
        position += 1
    return options


def _single(options: dict[str, object], key: str) -> str | None:
    values = options.get(key)
    return values[-1] if isinstance(values, list) and values else None


def _int(options: dict[str, object], key: str, flag: str, minimum: int) -> int | None:
    from orbit_learnings.core.errors import UsageError
    from orbit_learnings.core.numbers import whole_number

    text = _single(options, key)
    if text is None:
        return None
    number = whole_number(text)
    if number is None or number < minimum:
        raise UsageError(f"invalid value for {flag}: {text!r} is not an integer >= {minimum}")
    return number


def _strings(options: dict[str, object], key: str) -> list[str]:
    values = options.get(key)
    return [str(v) for v in values] if isinstance(values, list) else []


def _list(root: str | None, options: dict[str, object]) -> int:
    from orbit_learnings.cli.hot import do_list
    from orbit_learnings.core.scope import Scope
    from orbit_learnings.store.workspace import find_workspace

    return do_list(
        find_workspace(root),
        Scope(_strings(options, "path"), _strings(options, "tag")),
        status=_single(options, "status") or "active",
        limit=_int(options, "limit", "--limit", 1),
        json_out=bool(options.get("json")),
        level=_single(options, "level") or "all",
    )


def _inject(root: str | None, options: dict[str, object]) -> int:
    from orbit_learnings.cli.hot import do_inject
    from orbit_learnings.core.scope import Scope
    from orbit_learnings.store.workspace import find_workspace

    return do_inject(
        find_workspace(root),
        Scope(_strings(options, "path"), _strings(options, "tag")),
        task_file=_single(options, "task_file"),
        limit=_int(options, "limit", "--limit", 0),
        session=_single(options, "session"),
        max_tokens=_int(options, "max_tokens", "--max-tokens", 1),
        output_format=_single(options, "format") or "reminder",
        feedback_hint=bool(options.get("feedback_hint")),
        min_helpfulness=_min_helpfulness(options),
        include_stale=bool(options.get("include_stale")),
    )


def _float(options: dict[str, object], key: str) -> float | None:
    from orbit_learnings.core.errors import UsageError

    text = _single(options, key)
    if text is None:
        return None
    try:
        return float(text)
    except ValueError:
        raise UsageError(f"invalid value for --{key.replace('_', '-')}: {text!r}") from None


def _min_helpfulness(options: dict[str, object]) -> float | None:
    from orbit_learnings.cli.hot import resolve_min_helpfulness

    return resolve_min_helpfulness(
        _float(options, "min_helpfulness"), _float(options, "min_confidence")
    )


def _guarded(action: Callable[[], int], *, json_out: bool) -> int:
    """The full CLI's error boundary (`report_failure`), so a failure reads the same on both
    routes, the error object under `--json` included."""
    from orbit_learnings.cli.output import report_failure

    try:
        return action()
    except BaseException as exc:
        if isinstance(exc, SystemExit):
            raise
        return report_failure(exc, debug=bool(os.environ.get("ORBIT_DEBUG")), json_out=json_out)


if __name__ == "__main__":  # pragma: no cover
    console()
