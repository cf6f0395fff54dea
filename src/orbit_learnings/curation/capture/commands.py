"""Shell commands and file paths as the detectors need them.

`operation` says which operation a command runs, so "the same operation failed and then
succeeded" compares like with like: `cd web && FOO=1 uv run pytest -x tests 2>&1 | tail`
is `pytest`, `npm run build` is `npm run build`, `git push --force` is `git push`. Commands
that only look (`ls`, `cat`, `grep`, `git status`) are never an operation: their failures
are answers, not errors. Paths become repo-relative from any OS, dotfiles intact; files in
a scratch folder or outside the repository, and documentation, are never "the fix".
"""

from __future__ import annotations

import functools
import re
import shlex

from orbit_learnings.curation.capture.shell import split, without_data

_SETUP = {"cd", "pushd", "popd", "source", ".", "export", "set", "echo", "sleep", "true", "clear"}
_WRAPPERS = {"sudo", "time", "env", "nice", "nohup", "exec", "command", "xvfb-run", "stdbuf"}
_RUNNERS = {  # "uv run X" is X
    ("uv", "run"),
    ("poetry", "run"),
    ("pipenv", "run"),
    ("pnpm", "exec"),
    ("pnpm", "dlx"),
    ("yarn", "dlx"),
    ("npm", "exec"),
    ("bundle", "exec"),
    ("conda", "run"),
    ("hatch", "run"),
    ("pdm", "run"),
}
_SINGLE = {"npx", "bunx", "uvx", "pipx"}  # "npx X" is X
_SUBCOMMANDS = {
    "git", "npm", "pnpm", "yarn", "bun", "cargo", "go", "docker", "make", "uv", "pip", "gh",
    "kubectl", "dotnet", "mvn", "gradle", "./gradlew", "poetry", "bundle", "rails", "terraform",
    "helm", "deno", "flutter", "dart", "swift", "composer", "php", "mix", "just", "nx", "turbo",
    "docker-compose", "alembic", "django-admin", "rake", "brew", "apt", "apt-get", "conda",
}  # fmt: skip
_RUN_SCRIPT = {("npm", "run"), ("pnpm", "run"), ("yarn", "run"), ("bun", "run")}
_LOOKING = {
    "ls", "cat", "grep", "rg", "find", "head", "tail", "which", "test", "[", "pwd", "wc",
    "diff", "stat", "file", "sed", "awk", "ps", "tree", "less", "type", "whoami", "env",
    "printenv", "du", "df", "fd", "ag", "jq", "sort", "uniq", "cut", "xxd", "od", "lsof",
    "git status", "git log", "git diff", "git show", "git branch", "git remote", "git rev-parse",
    "git ls-files", "git blame", "git grep", "git fetch",
}  # fmt: skip
_PY = re.compile(r"^python(\d(\.\d+)?)?$")
ASSIGNMENT = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*=")
_SEPARATORS = {"&&", "||", ";", "|", "&", "|&", ";;"}
SCRATCH_PREFIXES = ("/tmp/", "/var/tmp/", "/private/tmp/", "/var/folders/", "/dev/")
DOC_SUFFIXES = (".md", ".mdx", ".rst", ".txt", ".adoc")


def segments(command: str) -> list[list[str]]:
    """The simple commands of a command line, in order, redirections dropped (one reading
    per command line: every moment finder asks about the same commands)."""
    return [list(words) for words in _segments(without_data(command))]


@functools.lru_cache(maxsize=2048)  # keyed on the data-free line: about 4 MB at the most
def _segments(command: str) -> tuple[tuple[str, ...], ...]:
    parts: list[list[str]] = [[]]
    skip_next = False
    for token in split(command):
        if skip_next:
            skip_next = False
        elif token in _SEPARATORS:
            parts.append([])
        elif set(token) <= set("<>&") and token:
            if parts[-1] and parts[-1][-1].isdigit():
                parts[-1].pop()  # the `2` of `2>&1`
            skip_next = True
        else:
            parts[-1].append(token)
    return tuple(tuple(p) for p in parts if p)


# Where a command runs, not what it runs: `docker compose exec web pytest` is `pytest`, run
# in a container (`container` names that place, so a rerun there reads as a change).
_PLACES = {
    ("docker", "exec"): 2,
    ("podman", "exec"): 2,
    ("docker", "run"): 2,
    ("docker", "compose", "exec"): 3,
    ("docker", "compose", "run"): 3,
    ("docker-compose", "exec"): 2,
    ("docker-compose", "run"): 2,
    ("kubectl", "exec"): 2,
}
_VALUED = {"-u", "--user", "-w", "--workdir", "-e", "--env", "-c", "--container", "-n",
           "--namespace", "--name", "-v", "--volume", "-p", "--publish", "--env-file",
           "--network", "--platform", "--entrypoint", "--mount", "-m", "--memory", "--index",
           "-l", "--label", "--gpus", "--add-host", "-h", "--hostname", "--cpus"}  # fmt: skip
_COMPOSE_GLOBAL = {"-f", "--file", "-p", "--project-name", "--profile", "--env-file"}


def container(words: list[str]) -> tuple[list[str], list[str]]:
    """(the words that say where it runs, the command run there), or ([], words) when the
    command runs here."""
    words = _without_compose_options(words)
    for place, length in _PLACES.items():
        if tuple(words[:length]) != place:
            continue
        if "--" in words[length:]:  # `kubectl exec pod -n prod -- python …`
            split = words.index("--", length)
            if words[split + 1 :]:
                return words[: split + 1], words[split + 1 :]
        position = length
        while position < len(words) and words[position].startswith("-"):
            option = words[position]
            position += 2 if option in _VALUED else 1
            if option == "--":
                break
        rest = words[position + 1 :]
        if rest[:1] == ["--"]:
            rest = rest[1:]
        if rest:
            return words[: position + 1], rest
    return [], words


def _without_compose_options(words: list[str]) -> list[str]:
    """`docker compose -f dc.yml exec web …` as `docker compose exec web …`."""
    if words[:2] != ["docker", "compose"]:
        return words
    rest = words[2:]
    while len(rest) > 1 and rest[0] in _COMPOSE_GLOBAL:
        rest = rest[2:]
    return words[:2] + rest


# A wrapper's options that take a value: `nice -n 10`, `timeout -s KILL 30`, `env -u NAME`.
_WRAPPER_VALUE_OPTIONS = {"-n", "-s", "-k", "-u", "--signal", "--kill-after", "--unset"}


def skip_wrappers(words: list[str], *, keep: frozenset[str] = frozenset()) -> list[str]:
    """The words after env assignments and wrappers with their options (`timeout
    --foreground 30`, `nice -n 10`, `env CI=1`): the program they run first. A wrapper in
    `keep` (`sudo` for a rule that says it is needed) stays."""
    while words:
        head = words[0].rsplit("/", 1)[-1]
        if ASSIGNMENT.match(words[0]):
            words = words[1:]
            continue
        if head in keep or (head not in _WRAPPERS and head != "timeout"):
            return words
        words = words[1:]
        while words and words[0].startswith("-"):
            words = words[2:] if words[0] in _WRAPPER_VALUE_OPTIONS else words[1:]
        if head == "timeout" and words:
            words = words[1:]  # the duration
    return words


def program_words(words: list[str]) -> list[str]:
    """The words after env assignments, wrappers, runners and containers: what really runs."""
    while words:
        head = words[0] if words[0] == "./gradlew" else words[0].rsplit("/", 1)[-1]
        place, inside = container(words)
        if place:
            words = inside
        elif ASSIGNMENT.match(words[0]) or head in _WRAPPERS or head == "timeout":
            words = skip_wrappers(words)
        elif head in _SINGLE:
            words = [w for w in words[1:] if not w.startswith("-")][:1] + words[2:]
        elif len(words) > 1 and (head, words[1]) in _RUNNERS:
            words = words[2:]
        else:
            return [head, *words[1:]]
    return []


def operation(command: str) -> str | None:
    """What a command line does, as a short key; None when it only looks or sets up."""
    for words in segments(command):
        program = program_words(words)
        if (
            program[:1] in (["bash"], ["sh"], ["zsh"])
            and len(program) > 2
            and program[1]
            in (
                "-c",
                "-lc",
            )
        ):
            return operation(program[2])
        if not program or not program[0].strip() or program[0] in _SETUP:
            continue  # `"" --version`: no program, nothing to key on
        key = _key(program)
        if key is not None:  # `git status && npm test` runs `npm test`
            return key
    return None


def _key(program: list[str]) -> str | None:
    head = "python" if _PY.match(program[0]) else program[0]
    rest = [w for w in program[1:] if not w.startswith("-")]
    if head == "python" and len(program) > 2 and program[1] == "-m":
        head, rest = program[2], [w for w in program[3:] if not w.startswith("-")]
    key = head
    if head == "python" and rest[:1] and rest[0].endswith(".py"):  # `python manage.py migrate`
        key = f"python {rest[0].rsplit('/', 1)[-1]}"
        return f"{key} {rest[1]}" if key == "python manage.py" and len(rest) > 1 else key
    if head in _SUBCOMMANDS and rest:
        key = f"{head} {rest[0]}"
        if (head, rest[0]) in _RUN_SCRIPT and len(rest) > 1:
            key += f" {rest[1]}"
    if key in _LOOKING or head in _LOOKING:
        return None
    return key


def first_segment(command: str) -> str:
    """The first simple command of a line that runs an operation (`cd web && npm i -D x` →
    `npm i -D x`), quoted for a shell; the whole line when none does."""
    for words in segments(command):
        shown = " ".join(w if "$(" in w else shlex.quote(w) for w in words)  # `-j$(nproc)` as run
        if operation(shown) is not None:
            return shown
    return command.strip()


def normalise_path(path: str) -> str:
    return path.replace("\\", "/")


def repo_relative(path: str, root: str | None) -> str | None:
    """`path` relative to `root`, from any OS (`C:\\Users\\me\\app\\x.py`, `/home/me/app/x.py`),
    leading dots kept (`.github/…`); None when it lies outside the repository."""
    norm = normalise_path(path)
    absolute = norm.startswith("/") or bool(re.match(r"^[A-Za-z]:/", norm))
    if not absolute:
        relative = norm[2:] if norm.startswith("./") else norm
        return None if relative.startswith("../") else relative
    if not root:
        return None
    base = normalise_path(root).rstrip("/") + "/"
    if re.match(r"^[A-Za-z]:/", norm):
        norm, base = norm[0].lower() + norm[1:], base[0].lower() + base[1:]
    return norm[len(base) :] if norm.startswith(base) else None


def is_scratch(path: str) -> bool:
    norm = normalise_path(path)
    lowered = norm.lower()
    return lowered.startswith(SCRATCH_PREFIXES) or "/appdata/local/temp/" in lowered


def is_documentation(path: str) -> bool:
    lowered = normalise_path(path).lower()
    return lowered.endswith(DOC_SUFFIXES) or "/docs/" in f"/{lowered}"
