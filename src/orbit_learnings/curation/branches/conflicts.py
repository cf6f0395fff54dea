"""`resolve-conflict`: split an add/add conflict into two learnings, by the ID rule.

Two branches that each `add` get the same next ID; merging them leaves one
`learning.yaml` with both learnings between conflict markers. The side that is
published on the target branch keeps the ID (`idrule`); the newcomer takes the
next free ID, and with it the sidecar rows and the `supersedes`/`superseded_by`
links that arrived with its side. A link of the newcomer's that the learning at its
other end no longer returns (both branches superseded one learning) is repaired, not
left one-sided: dropped, or taken over when asked (`take_links`). One learning edited on
both branches is not split: it would become two near-duplicates. During a merge, rebase
or cherry-pick, what it wrote is staged, so that operation's `--abort` undoes it
(`gitstate`).
"""

from __future__ import annotations

from dataclasses import dataclass, field

from orbit_learnings.core.errors import NotFound, OrbitError
from orbit_learnings.curation import gitutil
from orbit_learnings.curation.branches import gitstate, idrule
from orbit_learnings.curation.branches.collisions import (
    LINK_KEYS,
    link_line,
    repoint_links,
    rewrite_id,
    rewrite_sidecar,
)
from orbit_learnings.store import bundles as store
from orbit_learnings.store.allocation import allocate_id, store_lock
from orbit_learnings.store.fileops import atomic_write_text
from orbit_learnings.store.layout import LEARNINGS_PREFIX, SIDECARS, bundle_display
from orbit_learnings.store.workspace import Workspace
from orbit_learnings.store.yamlio import has_conflict_markers


@dataclass
class Resolution:
    """What `resolve-conflict` did, and why: the reviewer commits it."""

    learning_id: str
    new_id: str
    kept: str  # "ours" or "theirs"
    reason: str
    relinked: list[str] = field(default_factory=list)
    moved_rows: int = 0
    links: list[LinkRepair] = field(default_factory=list)
    operation: gitstate.Operation | None = None  # staged for it, when one is in progress

    def to_dict(self) -> dict[str, object]:
        return {
            "kept": self.learning_id,
            "new": self.new_id,
            "kept_side": self.kept,
            "reason": self.reason,
            "relinked": self.relinked,
            "moved_rows": self.moved_rows,
            "links": [repair.to_dict() for repair in self.links],
            "staged": self.operation is not None,
            "operation": self.operation.name if self.operation else None,
        }


def split_conflict_markers(text: str) -> tuple[str, str]:
    """Ours and theirs from a file with git conflict markers (diff3 base sections dropped)."""
    ours: list[str] = []
    theirs: list[str] = []
    state = "both"
    for line in text.splitlines(keepends=True):
        if line.startswith("<<<<<<<"):
            state = "ours"
        elif line.startswith("|||||||") and state == "ours":
            state = "base"
        elif line.startswith("=======") and state in ("ours", "base"):
            state = "theirs"
        elif line.startswith(">>>>>>>") and state == "theirs":
            state = "both"
        elif state == "both":
            ours.append(line)
            theirs.append(line)
        elif state == "ours":
            ours.append(line)
        elif state == "theirs":
            theirs.append(line)
    return "".join(ours), "".join(theirs)


def resolve_conflict(
    ws: Workspace, learning_id: str, *, target: str | None = None, take_links: bool = False
) -> Resolution:
    """Split the conflicted learning, repair the links the split leaves one-sided, and
    stage what it wrote when a merge, rebase or cherry-pick is in progress (so its
    `--abort` undoes all of it)."""
    ours, theirs, base = _sides(ws, learning_id)
    relative = bundle_display(learning_id)
    for side, content in (("ours", ours), ("theirs", theirs)):
        store.parse_learning(content, learning_id, f"{relative} ({side})")
    if _one_learning(base, ours, theirs):
        raise OrbitError(
            f"{learning_id} is one learning edited on both branches, not two learnings; "
            f"keep the right value of each conflicting field in {relative} and delete the "
            "markers (splitting it would leave two near-duplicates)"
        )
    ref = idrule.target_ref(ws, target)
    kept, reason = _decide(ws, ref, learning_id, ours, theirs)
    operation = gitstate.in_progress(ws.root_str)
    result = _split(ws, learning_id, (ours, theirs), kept, reason, operation, target)
    result.links = repair_links(ws, result.new_id, take=take_links)
    if operation is not None:
        touched = {learning_id, result.new_id, *result.relinked}
        touched |= {lid for r in result.links for lid in r.touched()}
        gitstate.stage(ws.root_str, [f"{LEARNINGS_PREFIX}/{lid}" for lid in touched])
        result.operation = operation
    return result


def _split(
    ws: Workspace,
    learning_id: str,
    sides: tuple[str, str],
    kept: str,
    reason: str,
    operation: gitstate.Operation | None,
    target: str | None,
) -> Resolution:
    """The newcomer to the next free ID (here and on the target branch), with the rows
    and links that arrived with its side; the kept side stays under `learning_id`."""
    ours, theirs = sides
    revs = {"ours": "HEAD", "theirs": operation.other_head if operation else None}
    newcomer = "theirs" if kept == "ours" else "ours"
    taken = idrule.taken_on_target(ws, target)
    with store_lock(ws):
        new_id = allocate_id(ws, taken)
        atomic_write_text(store.learning_file(ws, new_id), theirs if kept == "ours" else ours)
        rewrite_id(ws, new_id, learning_id, sidecars=False)
        atomic_write_text(store.learning_file(ws, learning_id), ours if kept == "ours" else theirs)
        result = Resolution(learning_id, new_id, kept, reason)
        newcomer_rev, kept_rev = revs[newcomer], revs[kept]
        if newcomer_rev and kept_rev:
            result.moved_rows = _move_rows(ws, learning_id, new_id, newcomer_rev, kept_rev)
            result.relinked = _move_links(ws, learning_id, new_id, newcomer_rev, kept_rev)
    return result


@dataclass
class LinkRepair:
    """A link of the newcomer's that the split left one-sided, and what was done to it."""

    learning_id: str  # the newcomer
    key: str  # "supersedes" or "superseded_by"
    target: str
    holder: str | None  # who holds the target's other side instead (None: nobody)
    action: str  # "completed", "dropped" or "taken"

    def touched(self) -> list[str]:
        return [self.learning_id, self.target, *([self.holder] if self.holder else [])]

    def alternative(self) -> str | None:
        """The command that makes the other choice, or None after a completion."""
        flag = "--" + self.key.replace("_", "-")
        if self.action == "dropped":
            return f"orbit learning update {self.learning_id} {flag} {self.target}"
        if self.action == "taken":
            return f"orbit learning update {self.holder} {flag} {self.target}"
        return None

    def to_dict(self) -> dict[str, object]:
        return {
            "id": self.learning_id,
            "key": self.key,
            "target": self.target,
            "holder": self.holder,
            "action": self.action,
            "alternative": self.alternative(),
        }


def repair_links(ws: Workspace, new_id: str, *, take: bool = False) -> list[LinkRepair]:
    """The newcomer's links whose other side does not point back: completed when the other
    side is empty; when another learning holds it (two branches superseded one learning),
    dropped, or with `take` taken over (then that learning's side is cleared)."""
    from orbit_learnings.store import links

    newcomer = store.read_learning(ws, new_id)
    repairs: list[LinkRepair] = []
    for key, target in (
        ("supersedes", newcomer.supersedes),
        ("superseded_by", newcomer.superseded_by),
    ):
        if target is None or not store.learning_file(ws, target).is_file():
            continue  # a dangling link is `check`'s to name
        other = store.read_learning(ws, target)
        holder = other.superseded_by if key == "supersedes" else other.supersedes
        if holder == new_id:
            continue
        action = "completed" if holder is None else ("taken" if take else "dropped")
        setter = links.set_supersedes if key == "supersedes" else links.set_superseded_by
        setter(ws, new_id, None if action == "dropped" else target)
        repairs.append(LinkRepair(new_id, key, target, holder, action))
    return repairs


def _one_learning(base: str | None, ours: str, theirs: str) -> bool:
    """An edit/edit conflict rather than add/add: the merge base already had the learning
    (git's stage 1), or, from markers alone, both sides share one birth record."""
    if base is not None:
        return bool(base.strip())
    born = idrule.identity(ours)
    return born is not None and born == idrule.identity(theirs)


def _sides(ws: Workspace, learning_id: str) -> tuple[str, str, str | None]:
    """Ours, theirs and the merge base's text ("" when the base had none; None when unknown):
    git's index stages while the merge is in progress, else the markers."""
    path = store.learning_file(ws, learning_id)
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise NotFound(f"no learning {learning_id}") from None
    if not has_conflict_markers(text):
        raise OrbitError(f"{ws.relative(path)} has no conflict markers; nothing to resolve")
    relative = bundle_display(learning_id)
    if gitutil.is_repository(ws.root_str):
        ours = gitutil.show(ws.root_str, f":2:{relative}")
        theirs = gitutil.show(ws.root_str, f":3:{relative}")
        if ours is not None and theirs is not None:
            return ours, theirs, gitutil.show(ws.root_str, f":1:{relative}") or ""
    return (*split_conflict_markers(text), None)


def _decide(
    ws: Workspace, ref: str | None, learning_id: str, ours: str, theirs: str
) -> tuple[str, str]:
    """Which side keeps the ID: the one the target branch has (same text, else same birth
    record); ours when the target has neither."""
    if ref is None:
        return "ours", "no target branch found (origin/main, main, master); kept ours"
    published = idrule.text_at(ws, ref, learning_id)
    born = idrule.identity(published)
    for side, text in (("theirs", theirs), ("ours", ours)):
        other = ours if side == "theirs" else theirs
        same_text = published is not None and text == published
        same_birth = born is not None and idrule.identity(text) == born
        if same_text or (same_birth and idrule.identity(other) != born):
            where = "the incoming side" if side == "theirs" else "our side"
            return side, f"{where} is the {learning_id} published on {ref}"
    return "ours", f"neither side is the {learning_id} on {ref}; kept ours"


def _move_rows(ws: Workspace, old_id: str, new_id: str, newcomer_rev: str, kept_rev: str) -> int:
    """Sidecar rows that only the newcomer's side has follow it to its new ID."""
    moved = 0
    for sidecar in SIDECARS:
        relative = bundle_display(old_id, sidecar)
        current = ws.bundle_dir(old_id) / sidecar
        if not current.exists():
            continue
        kept_rows = set((gitutil.show(ws.root_str, f"{kept_rev}:{relative}") or "").splitlines())
        newcomer_rows = [
            row
            for row in (gitutil.show(ws.root_str, f"{newcomer_rev}:{relative}") or "").splitlines()
            if row.strip() and row not in kept_rows
        ]
        if not newcomer_rows:
            continue
        leaving = set(newcomer_rows)
        staying = [r for r in current.read_text(encoding="utf-8").splitlines() if r not in leaving]
        atomic_write_text(current, "\n".join(staying) + ("\n" if staying else ""))
        target = ws.bundle_dir(new_id) / sidecar
        atomic_write_text(target, "\n".join(newcomer_rows) + "\n")
        rewrite_sidecar(target, new_id)
        moved += len(newcomer_rows)
    return moved


def _move_links(
    ws: Workspace, old_id: str, new_id: str, newcomer_rev: str, kept_rev: str
) -> list[str]:
    """Links to `old_id` that arrived with the newcomer's side now point at `new_id`;
    the kept side's links to it keep meaning the learning that kept the ID."""
    relinked: list[str] = []
    for other in store.bundle_ids(ws):
        if other in (old_id, new_id) or not _links_to_in_file(ws, other, old_id):
            continue
        relative = bundle_display(other)
        newcomer_text = gitutil.show(ws.root_str, f"{newcomer_rev}:{relative}") or ""
        kept_text = gitutil.show(ws.root_str, f"{kept_rev}:{relative}") or ""
        for key in LINK_KEYS:
            line = link_line(old_id, (key,))
            arrived = bool(line.search(newcomer_text)) and not line.search(kept_text)
            if arrived and repoint_links(ws, other, old_id, new_id, keys=(key,)):
                relinked.append(other)
    return sorted(set(relinked))


def _links_to_in_file(ws: Workspace, learning_id: str, target: str) -> bool:
    try:
        text = store.learning_file(ws, learning_id).read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError):
        return False
    return bool(link_line(target).search(text))
