"""What makes two versions of cited lines "the same": whitespace, blank lines, comments
(full-line and trailing), quote style and a trailing comma before a closing bracket do not
count, so what formatters such as black and prettier change (re-indenting, re-wrapping,
exploding a call over lines) leaves the fingerprint alone; any other change does not.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

# Comment markers by file extension: a line that starts with one is not code, nor is what
# follows one after whitespace outside a string (see `without_trailing_comment`).
_COMMENT_PREFIXES = {
    "#": (".py", ".pyi", ".sh", ".bash", ".rb", ".yaml", ".yml", ".toml", ".r", ".pl", ".cfg"),
    "//": (
        ".js",
        ".jsx",
        ".ts",
        ".tsx",
        ".go",
        ".rs",
        ".java",
        ".c",
        ".h",
        ".cc",
        ".cpp",
        ".hpp",
        ".cs",
        ".swift",
        ".kt",
        ".scala",
        ".dart",
        ".php",
    ),
    "--": (".sql", ".lua", ".hs"),
}
_WHITESPACE = re.compile(r"\s+")
_TRAILING_COMMA = re.compile(r",(?=[)\]}])")


class Normalised:
    """A file's meaningful lines: (1-based line number, whitespace-free text) pairs."""

    __slots__ = ("hashes", "numbers", "texts")

    def __init__(self, numbers: list[int], texts: list[str]) -> None:
        self.numbers = numbers
        self.texts = texts
        self.hashes = [line_hash(text) for text in texts]

    def between(self, start: int, end: int) -> tuple[int, int]:
        """Indices [i, j) of the meaningful lines within file lines start..end."""
        from bisect import bisect_left, bisect_right

        return bisect_left(self.numbers, start), bisect_right(self.numbers, end)

    def fingerprint(self, i: int, j: int) -> str:
        return block_fingerprint(self.texts[i:j])

    def fingerprints_from(self, i: int, stop: int) -> Iterator[tuple[int, str]]:
        """(j, fingerprint of lines [i, j)) for j = i+1..stop, in one pass over the text:
        equal to `fingerprint(i, j)` each, at the cost of hashing the lines once."""
        import hashlib

        digest = hashlib.blake2b(digest_size=8)
        for j in range(i + 1, stop + 1):
            line = _TRAILING_COMMA.sub("", self.texts[j - 1]).encode("utf-8")
            last = digest.copy()  # line j-1 ends the block: its trailing comma stays
            last.update(line)
            yield j, last.hexdigest()
            following = self.texts[j] if j < len(self.texts) else ""
            if line.endswith(b",") and following[:1] in (")", "]", "}"):
                line = line[:-1]
            digest.update(line)


def comment_prefix(path: str) -> str | None:
    lowered = path.lower()
    for prefix, extensions in _COMMENT_PREFIXES.items():
        if lowered.endswith(extensions):
            return prefix
    return None


def normalise(path: str, text: str) -> Normalised:
    prefix = comment_prefix(path)
    numbers: list[int] = []
    texts: list[str] = []
    for number, line in enumerate(text.splitlines(), start=1):
        code = without_trailing_comment(line, prefix) if prefix else line
        squeezed = _WHITESPACE.sub("", code).replace("'", '"')
        if not squeezed or (prefix is not None and squeezed.startswith(prefix)):
            continue
        numbers.append(number)
        texts.append(squeezed)
    return Normalised(numbers, texts)


def without_trailing_comment(line: str, prefix: str) -> str:
    """`x = 1  # why` -> `x = 1`: a comment marker at the start or after whitespace, outside
    any quoted string, ends the code. `"#fff"`, `'it\'s'` and `http://` are kept."""
    if prefix not in line:
        return line
    quote = ""
    escaped = False
    for position, char in enumerate(line):
        if quote:
            if escaped:
                escaped = False
            elif char == "\\":
                escaped = True
            elif char == quote:
                quote = ""
        elif char in "\"'`":
            quote = char
        elif line.startswith(prefix, position) and (position == 0 or line[position - 1] in " \t"):
            return line[:position]
    return line


def line_hash(squeezed: str) -> str:
    import hashlib

    return hashlib.blake2b(squeezed.encode("utf-8"), digest_size=4).hexdigest()


def block_fingerprint(squeezed_lines: list[str]) -> str:
    """Joined without separators, so a call re-wrapped over three lines keeps its value."""
    import hashlib

    joined = _TRAILING_COMMA.sub("", "".join(squeezed_lines)).encode("utf-8")
    return hashlib.blake2b(joined, digest_size=8).hexdigest()
