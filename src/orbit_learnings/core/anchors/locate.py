"""Finding cited lines again, and saying how they fared: ok, moved, drifted or broken.

The recorded place is tried first (one fingerprint over the range: the common case costs
one pass over the file). Otherwise every place where recorded lines reappear votes for
where the block now starts, and the best few places are compared line by line.
"""

from __future__ import annotations

from collections import Counter

from orbit_learnings.core.anchors.fingerprint import Normalised, normalise
from orbit_learnings.core.anchors.record import Anchor
from orbit_learnings.core.anchors.symbols import definitions_in, enclosing_symbol, symbol_range

TYPE_CHECKING = False
if TYPE_CHECKING:
    import ast

    from orbit_learnings.core.anchors.syntax import Statements

OK, MOVED, DRIFTED, BROKEN = "ok", "moved", "drifted", "broken"
# Any change that survives normalisation makes an anchor drifted; the similarity says how
# much. Below this share of recorded lines still there in order, and with no surviving
# definition of the anchor's symbol, the cited code counts as gone: broken.
BROKEN_BELOW = 0.5
MAX_CANDIDATES = 48
# Bounded work whatever the file and the record hold (2,000 identical lines once made one
# anchor cost 25 s): each recorded hash votes from at most `MAX_OFFSETS` of its places,
# a comparison pairs at most `PAIRS_PER_LINE` file lines with each recorded line (the
# most repeated lines stop counting as matches past that, as difflib's autojunk does),
# and re-wrapping widens a region by at most `MAX_WIDEN` lines a side.
MAX_OFFSETS = 8
PAIRS_PER_LINE = 8
MAX_WIDEN = 24
# Lines joined into one (or split) match on their joined tokens: looked for from the old
# place and the `TOKEN_ORIGINS` best candidate places, each give or take `JOIN_SLACK` lines.
TOKEN_ORIGINS = 4
JOIN_SLACK = 12


class Location:
    """Where an anchor's lines are now and how they compare with what was recorded."""

    __slots__ = ("end", "path", "reason", "similarity", "start", "state")

    def __init__(
        self, state: str, path: str, start: int, end: int, similarity: float, reason: str = ""
    ) -> None:
        self.state = state
        self.path = path
        self.start = start
        self.end = end
        self.similarity = similarity
        self.reason = reason

    @property
    def lines(self) -> str:
        return str(self.start) if self.start == self.end else f"{self.start}-{self.end}"

    def to_dict(self) -> dict[str, object]:
        return {
            "state": self.state,
            "now": None if self.state == BROKEN else {"path": self.path, "lines": self.lines},
            "similarity": round(self.similarity, 3),
            "reason": self.reason,
        }


def record_anchor(
    path: str, text: str, start: int, end: int, *, recorded: str, symbol: str | None = None
) -> Anchor:
    """Fingerprint lines start..end of `text` (cited by `symbol`, when given); ValueError
    when they hold no code. Lines inside a Python definition note it as `within`."""
    total = len(text.splitlines())
    if end > total:
        raise ValueError(f"{path} has {total} lines; cannot cite {start}-{end}")
    norm = normalise(path, text)
    i, j = norm.between(start, end)
    if i >= j:
        raise ValueError(f"{path}:{start}-{end} holds only blank lines or comments")
    from orbit_learnings.core.anchors.syntax import parse, record_syntax

    tree = parse(path, text)
    hashes = record_syntax(tree, start, end, norm.numbers[i:j]) if tree else None
    return Anchor(
        path,
        start,
        end,
        fingerprint=norm.fingerprint(i, j),
        line_hashes=tuple(norm.hashes[i:j]),
        recorded=recorded,
        symbol=symbol,
        within=None if symbol else enclosing_symbol(path, text, start, end),
        syntax=tuple(hashes.split()) if hashes else (),
    )


def record_symbol(path: str, text: str, symbol: str, *, recorded: str) -> Anchor:
    found = symbol_range(path, text, symbol)
    if found is None:
        kind = "a Python file" if path.endswith((".py", ".pyi")) else "Python only"
        raise ValueError(f"no definition {symbol!r} in {path} (symbol anchors: {kind})")
    return record_anchor(path, text, found[0], found[1], recorded=recorded, symbol=symbol)


class CodeText:
    """A cited file's text, normalised and parsed at most once however many anchors cite it."""

    __slots__ = ("_definitions", "_done", "_normalised", "_statements", "_tree", "path", "text")

    def __init__(self, path: str, text: str) -> None:
        self.path = path
        self.text = text
        self._normalised: Normalised | None = None
        self._tree: ast.Module | None = None
        self._statements: Statements | None = None
        self._done: set[str] = set()  # what was computed: a None result is one too
        self._definitions: dict[str, list[tuple[int, int]]] | None = None

    @property
    def normalised(self) -> Normalised:
        if self._normalised is None:
            self._normalised = normalise(self.path, self.text)
        return self._normalised

    @property
    def tree(self) -> ast.Module | None:
        """The syntax tree (Python only; None when the file does not parse)."""
        if "tree" not in self._done:
            from orbit_learnings.core.anchors.syntax import parse  # `ast` costs: only if asked

            self._tree = parse(self.path, self.text)
            self._done.add("tree")
        return self._tree

    @property
    def statements(self) -> Statements | None:
        if "statements" not in self._done:
            from orbit_learnings.core.anchors.syntax import Statements

            tree = self.tree
            self._statements = Statements(tree) if tree is not None else None
            self._done.add("statements")
        return self._statements

    def spans(self, name: str) -> list[tuple[int, int]]:
        """Every definition of `name` (a property's getter and setter share one)."""
        if self._definitions is None:
            self._definitions = {}
            for qualified, first, last in definitions_in(self.tree) if self.tree else ():
                self._definitions.setdefault(qualified, []).append((first, last))
        return self._definitions.get(name, [])

    def symbol(self, name: str) -> tuple[int, int] | None:
        """The first definition of `name` in the file, as a reader finds it."""
        found = self.spans(name)
        return min(found) if found else None


def locate(anchor: Anchor, code: CodeText | str | None, *, path: str | None = None) -> Location:
    """How the anchor fares in `code`, the file now at `path` (the anchor's own path, or
    where git saw it renamed); None means the file is gone. The definition a Python anchor
    names (its symbol, or the one around its lines) decides: while it exists the lines
    are looked for inside it, and if they are not there they changed -- they did not
    move to another definition that happens to hold their old text; once it is gone they
    moved if their syntax tree is elsewhere in the file, and are broken if not."""
    where = code.path if isinstance(code, CodeText) else path or anchor.path
    if code is None:
        return Location(BROKEN, where, anchor.start, anchor.end, 0.0, f"{where} is gone")
    if isinstance(code, str):
        code = CodeText(where, code)
    norm = code.normalised
    i, j = norm.between(anchor.start, anchor.end)
    same_text = i < j and norm.fingerprint(i, j) == anchor.fingerprint
    if same_text and (j - i == len(anchor.line_hashes) or not anchor.syntax):
        state = OK if where == anchor.path else MOVED
        return Location(state, where, anchor.start, anchor.end, 1.0)
    # Same text re-wrapped over other lines: the statements' own lines say where it is now.
    name = anchor.symbol or anchor.within
    scopes = code.spans(name) if name else []
    statements = code.statements if anchor.syntax else None
    runs = statements.runs(anchor.syntax, scopes) if statements is not None else None
    if runs:
        return _found(anchor, runs, where)
    if same_text:  # the tree could not be written out: the lines are where they were
        return Location(OK if where == anchor.path else MOVED, where, anchor.start, anchor.end, 1.0)
    if runs is not None and name and not scopes:  # the definition is gone, its code nowhere
        reason = f"{name} is no longer defined in {where}"
        return Location(BROKEN, where, anchor.start, anchor.end, 0.0, reason)
    if runs is None and anchor.symbol and scopes:
        first = min(scopes)
        if norm.fingerprint(*norm.between(*first)) == anchor.fingerprint:
            # cited by name: the unchanged definition is where the anchor points
            return Location(OK if where == anchor.path else MOVED, where, *first, 1.0)
    return _by_text(anchor, code, where, scopes, exact=runs is None)


def _found(anchor: Anchor, runs: list[tuple[int, int]], where: str) -> Location:
    """The cited statements' trees, unchanged, at the run nearest the old place."""
    first, last = min(runs, key=lambda run: (abs(run[0] - anchor.start), run[0]))
    in_place = anchor.symbol is not None or (first, last) == (anchor.start, anchor.end)
    state = OK if where == anchor.path and in_place else MOVED
    return Location(state, where, first, last, 1.0)


def _by_text(
    anchor: Anchor, code: CodeText, where: str, scopes: list[tuple[int, int]], *, exact: bool
) -> Location:
    """Judged on the normalised lines: moved when they are all found elsewhere (unless the
    syntax tree already said they are not: `exact` False), drifted when enough of them
    are, or their definition still exists; broken otherwise."""
    norm = code.normalised
    best = _best_region(anchor, norm, scopes)
    if best is not None and best[0] >= 1.0 and exact:
        return Location(MOVED, where, best[1], best[2], 1.0)
    if best is not None and best[0] >= BROKEN_BELOW:
        return Location(DRIFTED, where, best[1], best[2], min(best[0], 0.999))
    if scopes:  # its definition survives, rewritten: changed where it stood
        own = min(scopes)
        inside = own[0] <= anchor.start and anchor.end <= own[1]
        place = (anchor.start, anchor.end) if inside else own
        return Location(DRIFTED, where, *place, best[0] if best else 0.0)
    similarity = best[0] if best else 0.0
    reason = "the cited lines are no longer in " + where
    return Location(BROKEN, where, anchor.start, anchor.end, similarity, reason)


def _best_region(
    anchor: Anchor, norm: Normalised, scopes: list[tuple[int, int]]
) -> tuple[float, int, int] | None:
    """(similarity, first line, last line) of the closest match, nearest the old place on
    ties; inside the named definition when it exists."""
    limits = [norm.between(*scope) for scope in scopes] or [(0, len(norm.hashes))]
    windows = _candidate_windows(anchor, norm, limits, scoped=bool(scopes))
    joined = _token_match(anchor, norm, windows, limits)
    if joined is not None:
        return 1.0, norm.numbers[joined[0]], norm.numbers[joined[1] - 1]
    best: tuple[float, int, int] | None = None
    best_key: tuple[float, int] | None = None
    for low, high in windows:
        found = _compare(anchor, norm, low, high)
        if found is None:
            continue
        key = (found[0], -abs(found[1] - anchor.start))
        if best_key is None or key > best_key:
            best, best_key = found, key
    return best


def _token_match(
    anchor: Anchor,
    norm: Normalised,
    windows: list[tuple[int, int]],
    limits: list[tuple[int, int]],
) -> tuple[int, int] | None:
    """Meaningful lines [i, j) whose whitespace-free text, joined, is the recorded block's:
    lines joined into one or split over several match whatever their line hashes. Tried
    near the old place and the best few candidate places, nearest the old place first."""
    size = len(anchor.line_hashes)
    slack = min(size, JOIN_SLACK)
    old = norm.between(anchor.start, anchor.end)[0]
    origins = [old, *(window[0] for window in windows[:TOKEN_ORIGINS])]
    starts = sorted(
        {s for o in origins for s in range(o - slack, o + slack + 1)}, key=lambda s: abs(s - old)
    )
    for start in starts:
        limit = next((high for low, high in limits if low <= start < high), None)
        if limit is None:
            continue
        for end, fingerprint in norm.fingerprints_from(start, min(start + size + MAX_WIDEN, limit)):
            if fingerprint == anchor.fingerprint:
                return start, end
    return None


def _candidate_windows(
    anchor: Anchor, norm: Normalised, limits: list[tuple[int, int]], *, scoped: bool
) -> list[tuple[int, int]]:
    """Windows [low, high) over the meaningful lines, the most promising first, each
    within one of `limits` (the named definition's lines, or the whole file)."""
    size = len(anchor.line_hashes)
    positions: dict[str, list[int]] = {}
    for offset, value in enumerate(anchor.line_hashes):
        places = positions.setdefault(value, [])
        if len(places) < MAX_OFFSETS:
            places.append(offset)
    votes: Counter[int] = Counter()
    for low, high in limits:
        for index in range(low, high):
            for offset in positions.get(norm.hashes[index], ()):
                votes[index - offset] += 1
    windows = list(limits) if scoped else []
    for start, _ in votes.most_common(MAX_CANDIDATES):
        for low, high in limits:
            if low <= max(start, low) < high and start + 2 * size > low:
                windows.append((max(start, low), min(start + 2 * size, high)))
                break
    return [(low, high) for low, high in dict.fromkeys(windows) if low < high]


def _compare(
    anchor: Anchor, norm: Normalised, low: int, high: int
) -> tuple[float, int, int] | None:
    from difflib import SequenceMatcher

    recorded = list(anchor.line_hashes)
    window = norm.hashes[low:high]
    junk = _too_common(recorded, window)
    matcher = SequenceMatcher(junk.__contains__ if junk else None, recorded, window, autojunk=False)
    blocks = [b for b in matcher.get_matching_blocks() if b.size]
    if not blocks:
        return None
    # Recorded lines before the first match and after the last were edited where they
    # stood: the region takes as many lines on each side, so it covers the changed edges.
    lead, trail = blocks[0].a, len(recorded) - blocks[-1].a - blocks[-1].size
    first = max(low + blocks[0].b - lead, 0)
    last = min(low + blocks[-1].b + blocks[-1].size + trail, len(norm.hashes))  # [first, last)
    matched = sum(b.size for b in blocks)
    similarity = 2 * matched / (len(recorded) + (last - first))
    if matched < len(recorded) and similarity >= BROKEN_BELOW:
        first, last, rewrapped = _rewrapped(anchor, norm, first, last, (lead, trail))
        similarity = 1.0 if rewrapped else similarity
    return similarity, norm.numbers[first], norm.numbers[last - 1]


def _too_common(recorded: list[str], window: list[str]) -> set[str]:
    """The window's most repeated lines, dropped from matching until the pairs of equal
    lines number at most `PAIRS_PER_LINE` per recorded line: difflib's work grows with
    those pairs, and ordinary code has few (a `}` or two per function)."""
    counts = Counter(window)
    wanted = Counter(recorded)
    pairs = sum(counts[value] * times for value, times in wanted.items())
    budget = PAIRS_PER_LINE * len(recorded)
    junk: set[str] = set()
    for value, times in counts.most_common():
        if pairs <= budget:
            break
        junk.add(value)
        pairs -= times * wanted[value]
    return junk


def _rewrapped(
    anchor: Anchor, norm: Normalised, first: int, last: int, edges: tuple[int, int]
) -> tuple[int, int, bool]:
    """Re-wrapping splits one recorded line into several that match none: widen the region
    on a side with unmatched recorded lines and compare the whitespace-free block, which
    re-wrapping leaves alone."""
    lead, trail = edges
    for widen_low in range(min(3 * lead, MAX_WIDEN) + 1 if lead else 1):
        for widen_high in range(min(3 * trail + 1, MAX_WIDEN) + 1 if trail else 1):
            low, high = max(first - widen_low, 0), min(last + widen_high, len(norm.hashes))
            if norm.fingerprint(low, high) == anchor.fingerprint:
                return low, high, True
    return first, last, False
