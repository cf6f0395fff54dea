"""Reading the rule files agents already have: which files a rule applies to, and its text.

Scope, from each tool's documented form:

    .cursor/rules/*.mdc                     `globs:` (a string, a comma list or a YAML list);
                                            `alwaysApply: true` without globs is global
    .github/instructions/*.instructions.md  `applyTo:` (comma list)
    .claude/rules/*.md                      `paths:` (a string or a YAML list)
    <folder>/AGENTS.md, CLAUDE.md, GEMINI.md  nested: the folder (`web/AGENTS.md` -> `web/**`)
    AGENTS.md, CLAUDE.md, copilot-instructions.md at the root: global

Commas split globs only outside braces (`**/*.{ts,tsx}` stays one glob); `**` and
`**/*` mean global. The body is read as markdown blocks: every list item (bullet or
numbered) is a rule, its wrapped lines joined and its sub-items kept as its body; a
short prose paragraph is a rule too unless it introduces or describes ("This file…",
a line ending in ':'); code fences and task checkboxes are not. The heading above a
rule is kept as its context.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

_ITEM = re.compile(r"^(\s*)(?:[-*+]|\d{1,3}[.)])\s+(.*)$")
_HEADING = re.compile(r"^\s{0,3}#{1,6}\s+(.+?)\s*#*\s*$")
_FENCE = re.compile(r"^\s{0,3}(```|~~~)")
_TASK_BOX = re.compile(r"^\[[ xX]\]\s")
_DESCRIPTIVE = re.compile(  # a paragraph that introduces or describes, not instructs
    r"^(this|these|the following|below|here|see|for more|note:|welcome|overview)\b", re.I
)
NESTED_FILES = ("AGENTS.md", "CLAUDE.md", "GEMINI.md")
GLOBAL_GLOBS = frozenset({"**", "**/*", "*", "/**"})
MIN_WORDS = 3
MAX_PROSE_WORDS = 60
MAX_SUMMARY = 200


@dataclass
class Rule:
    """One rule as the file states it."""

    text: str
    line: int
    heading: str = ""
    details: list[str] = field(default_factory=list)  # its sub-items

    @property
    def summary(self) -> str:
        """The whole rule when it fits a line; else its first sentence (the rest is the body)."""
        if len(self.text) <= MAX_SUMMARY:
            return self.text
        first = re.split(r"(?<=[.!?])\s+", self.text, maxsplit=1)[0]
        return first if len(first) <= MAX_SUMMARY else self.text[: MAX_SUMMARY - 1] + "…"

    @property
    def body(self) -> str:
        parts = [self.text] if self.summary != self.text else []
        parts += [f"- {detail}" for detail in self.details]
        if self.heading:
            parts.append(f"(Section: {self.heading})")
        return "\n".join(parts)


@dataclass
class Skipped:
    line: int
    text: str
    reason: str


def split_globs(value: object) -> list[str]:
    """Globs from a front-matter value: a YAML list, or a string split on commas that are
    not inside braces."""
    items = value if isinstance(value, list) else [value] if isinstance(value, str) else []
    globs: list[str] = []
    for item in items:
        depth, start, text = 0, 0, str(item)
        for i, ch in enumerate(text):
            depth += {"{": 1, "}": -1}.get(ch, 0)
            if ch == "," and depth == 0:
                globs.append(text[start:i])
                start = i + 1
        globs.append(text[start:])
    cleaned = [g.strip().strip("'\"").strip() for g in globs]
    return [g for g in cleaned if g]


def file_scope(display: str, meta: dict[str, object]) -> list[str]:
    """The path scope every rule of this file gets ([] means global)."""
    name = display.rsplit("/", 1)[-1]
    folder = display.rsplit("/", 1)[0] if "/" in display else ""
    if name.endswith(".mdc"):
        globs = split_globs(meta.get("globs"))
    elif name.endswith(".instructions.md"):
        globs = split_globs(meta.get("applyTo"))
    elif "/.claude/rules/" in f"/{display}":
        globs = split_globs(meta.get("paths"))
    elif name in NESTED_FILES and folder and not folder.startswith((".github", ".claude")):
        globs = [f"{folder}/**"]
    else:
        globs = []
    return [] if any(g in GLOBAL_GLOBS for g in globs) else globs


def loose_front_matter(front: str) -> dict[str, object]:
    """`key: value` lines and `- item` lists, for front matter strict YAML refuses: Cursor
    writes `globs: **/*.{ts,tsx}` unquoted, which YAML reads as an alias."""
    meta: dict[str, object] = {}
    key = ""
    for line in front.splitlines():
        item = re.match(r"^\s+-\s+(.*)$", line)
        if item and key:
            existing = meta.get(key)
            values = existing if isinstance(existing, list) else []
            meta[key] = [*values, item.group(1).strip().strip("'\"")]
            continue
        name, sep, value = line.partition(":")
        if sep and name.strip() and not name.startswith((" ", "\t")):
            key = name.strip()
            meta[key] = value.strip().strip("'\"")
    return meta


def split_front_matter(text: str) -> tuple[str, str, int]:
    """(front matter, body, lines before the body)."""
    if not text.startswith("---"):
        return "", text, 0
    end = text.find("\n---", 3)
    if end == -1:
        return "", text, 0
    body_start = text.find("\n", end + 1) + 1 or len(text)
    return text[3:end], text[body_start:], text[:body_start].count("\n")


class _Reader:
    """Markdown blocks to rules, one line at a time."""

    def __init__(self) -> None:
        self.rules: list[Rule] = []
        self.skipped: list[Skipped] = []
        self.heading = ""
        self.item: Rule | None = None
        self.item_indent = 0
        self.paragraph: list[str] = []
        self.paragraph_line = 0
        self.fenced = False
        self.blank_before = False

    def feed(self, number: int, line: str) -> None:
        if _FENCE.match(line):
            self.close()
            self.fenced = not self.fenced
        elif self.fenced:
            return
        elif not line.strip():
            self.close_paragraph()
            self.blank_before = True
            return
        elif heading := _HEADING.match(line):
            self.close()
            self.heading = heading.group(1).strip()
        elif item := _ITEM.match(line):
            self.start_item(number, len(item.group(1).expandtabs(4)), item.group(2))
        else:
            self.continue_text(number, line)
        self.blank_before = False

    def start_item(self, number: int, indent: int, text: str) -> None:
        if _TASK_BOX.match(text):
            self.close()
            self.skipped.append(Skipped(number, text, "a task checkbox, not a rule"))
            return
        if self.item is not None and indent >= self.item_indent + 2:
            self.item.details.append(one_line(text))  # a sub-item belongs to its parent
            return
        self.close()
        self.item, self.item_indent = Rule(one_line(text), number, self.heading), indent

    def continue_text(self, number: int, line: str) -> None:
        indent = len(line) - len(line.lstrip())
        if self.item is not None and (not self.blank_before or indent >= self.item_indent + 2):
            if self.item.details and indent >= self.item_indent + 4:
                self.item.details[-1] = one_line(f"{self.item.details[-1]} {line}")
            else:
                self.item.text = one_line(f"{self.item.text} {line}")
            return
        self.close_item()
        if not self.paragraph:
            self.paragraph_line = number
        self.paragraph.append(line.strip())

    def close_item(self) -> None:
        if self.item is not None:
            self.keep(self.item)
            self.item = None

    def close_paragraph(self) -> None:
        if not self.paragraph:
            return
        text = one_line(" ".join(self.paragraph))
        self.paragraph = []
        words = len(text.split())
        if words <= MAX_PROSE_WORDS and not _DESCRIPTIVE.match(text) and not text.endswith(":"):
            self.keep(Rule(text, self.paragraph_line, self.heading))
        else:
            self.skipped.append(Skipped(self.paragraph_line, text[:80], "prose, not a rule"))

    def close(self) -> None:
        self.close_item()
        self.close_paragraph()

    def keep(self, rule: Rule) -> None:
        if len(rule.text.split()) < MIN_WORDS:
            self.skipped.append(Skipped(rule.line, rule.text, "too short to stand alone"))
        else:
            self.rules.append(rule)


def one_line(text: str) -> str:
    """Whitespace runs (a wrapped line's break and indent) as one space."""
    return " ".join(text.split())


_COMMENT = re.compile(r"<!--.*?-->", re.S)


def read_rules(body: str, first_line: int = 1) -> tuple[list[Rule], list[Skipped]]:
    """Rules and what was left out; HTML comments (an export's IDs and marker) are not
    rule text, and keep their lines so numbers stay right."""
    body = _COMMENT.sub(lambda m: "\n" * m.group(0).count("\n"), body)
    reader = _Reader()
    for number, line in enumerate(body.splitlines(), start=first_line):
        reader.feed(number, line)
    reader.close()
    return reader.rules, reader.skipped
