"""The MCP tools: arguments as models send them, one core call each, learnings attached.

Models often send one path where the schema says a list, so every list-valued input
also accepts a single string (the schema says so: `string | string[]`). Fields with
fixed values are enums with one default spelling. Each tool carries a title and
honest annotations, so clients can run the read-only ones in parallel.
"""

# No `from __future__ import annotations`: the SDK builds schemas from live annotations.

from typing import Annotated, Any, Literal

from mcp.types import ToolAnnotations
from pydantic import Field

from orbit_learnings.core.errors import OrbitError
from orbit_learnings.core.model import Evidence
from orbit_learnings.core.scope import Scope
from orbit_learnings.curation.adding import add_learning
from orbit_learnings.push import attach
from orbit_learnings.retrieval import queries
from orbit_learnings.store import bundles as store
from orbit_learnings.store.changes import Changes, supersede, update_learning
from orbit_learnings.store.workspace import Workspace

EvidenceItem = dict[str, str]
Status = Literal["active", "proposed", "superseded", "archived", "all"]
OneOrMany = str | list[str] | None

READ_ONLY = ToolAnnotations(read_only_hint=True, open_world_hint=False)
# (title, annotations) per tool key; the keys are SPEC_NAMES' in server.py.
TOOL_META: dict[str, tuple[str, ToolAnnotations]] = {
    "add": (
        "Add a learning",
        ToolAnnotations(
            read_only_hint=False,
            destructive_hint=False,
            idempotent_hint=False,
            open_world_hint=False,
        ),
    ),
    "propose": (
        "Propose a learning for review",
        ToolAnnotations(
            read_only_hint=False,
            destructive_hint=False,
            idempotent_hint=False,
            open_world_hint=False,
        ),
    ),
    "list": ("List learnings for paths or tags", READ_ONLY),
    "show": ("Show one learning", READ_ONLY),
    "update": (
        "Update a learning",
        ToolAnnotations(
            read_only_hint=False, destructive_hint=True, idempotent_hint=True, open_world_hint=False
        ),
    ),
    "supersede": (
        "Supersede a learning with another",
        ToolAnnotations(
            read_only_hint=False,
            destructive_hint=True,
            idempotent_hint=False,
            open_world_hint=False,
        ),
    ),
    "upvote": (
        "Upvote a learning that helped again",
        ToolAnnotations(
            read_only_hint=False,
            destructive_hint=False,
            idempotent_hint=True,
            open_world_hint=False,
        ),
    ),
    "search": ("Search learnings", READ_ONLY),
}


def listed(value: OneOrMany) -> list[str]:
    """A list-valued argument as a list, whether the model sent one string or several."""
    if value is None:
        return []
    return [value] if isinstance(value, str) else list(value)


def _evidence(items: list[EvidenceItem] | None) -> list[Evidence]:
    return [Evidence(str(e.get("kind", "")), str(e.get("ref", ""))) for e in items or []]


class LearningTools:
    """The tool bodies: translate arguments, call the core, shape results."""

    def __init__(self, ws: Workspace, session_id: str) -> None:
        self.ws = ws
        self.session_id = session_id

    def _with_learnings(
        self, result: dict[str, Any], arguments: dict[str, Any], shown: list[str]
    ) -> dict[str, Any]:
        return attach.attach_learnings(
            self.ws, result, arguments, session_id=self.session_id, exclude=shown
        )

    def do_add(
        self,
        summary: Annotated[str, Field(description="One-line lesson.")],
        paths: Annotated[OneOrMany, Field(description="Scope path globs, e.g. src/db/**.")] = None,
        tags: Annotated[OneOrMany, Field(description="Scope tags.")] = None,
        body: Annotated[
            str, Field(description="Longer explanation (markdown): why, how to apply.")
        ] = "",
        evidence: Annotated[
            list[EvidenceItem] | None,
            Field(description='[{"kind": "task"|"commit", "ref": "..."}]'),
        ] = None,
        priority: Annotated[int, Field(description="Manual ranking boost.")] = 0,
        created_by: Annotated[
            str | None, Field(description="Author, e.g. the agent family.")
        ] = None,
        *,
        force: Annotated[
            bool, Field(description="Add even if a near-duplicate exists (else: upvote it).")
        ] = False,
    ) -> dict[str, Any]:
        """Record a new project learning; returns its allocated id."""
        new = store.NewLearning(
            summary=summary,
            scope=Scope(listed(paths), listed(tags)),
            body=body,
            evidence=_evidence(evidence),
            priority=priority,
            created_by=created_by,
        )
        learning = add_learning(self.ws, new, force=force).learning
        return {"id": learning.id, "created_at": learning.created_at}

    def do_propose(
        self,
        summary: Annotated[
            str, Field(description="The rule, one line, imperative, specific to this repository.")
        ],
        body: Annotated[
            str, Field(description="Why, with the evidence: the user's words or the error.")
        ],
        paths: Annotated[OneOrMany, Field(description="Files it is about, as globs.")] = None,
        tags: Annotated[OneOrMany, Field(description="Scope tags.")] = None,
        evidence: Annotated[
            list[EvidenceItem] | None,
            Field(description='[{"kind": "session"|"commit"|"task", "ref": "..."}]'),
        ] = None,
        created_by: Annotated[
            str | None, Field(description="The agent family, e.g. claude.")
        ] = None,
    ) -> dict[str, Any]:
        """Propose a lesson you just lived, for a person to review: when the user corrected a
        project convention, or a fix was not obvious and will recur. Not for one-off task
        instructions or general knowledge. The proposal is never used until approved; a
        near-duplicate is refused with the learning to upvote instead."""
        new = store.NewLearning(
            summary=summary,
            scope=Scope(listed(paths), listed(tags)),
            body=body,
            evidence=_evidence(evidence),
            created_by=created_by,
            status="proposed",
        )
        learning = add_learning(self.ws, new).learning
        return {"id": learning.id, "status": "proposed", "created_at": learning.created_at}

    def do_list(
        self,
        path: Annotated[OneOrMany, Field(description="Files, folders or globs.")] = None,
        tag: Annotated[OneOrMany, Field(description="Tags.")] = None,
        status: Annotated[Status, Field(description="Which learnings.")] = "active",
        limit: Annotated[int | None, Field(description="At most this many.", ge=1)] = None,
    ) -> dict[str, Any]:
        """Learnings whose scope matches any path or tag (all active ones when neither is given)."""
        result = queries.list_learnings(
            self.ws,
            Scope(listed(path), listed(tag)),
            status=status,
            limit=limit,
            cwd=self.ws.root_str,
        )
        # Nothing attached here: this result already is the path lookup.
        return {"learnings": [h.to_dict() for h in result.hits]}

    def do_show(
        self, id: Annotated[str, Field(description="Learning id, e.g. L-0001.")]
    ) -> dict[str, Any]:
        """The full record of one learning, with vote_count and last_voted_at."""
        record = queries.show_learning(self.ws, id).record
        return self._with_learnings(record, {"id": id}, [id])

    def do_update(
        self,
        id: Annotated[str, Field(description="Learning id.")],
        summary: str | None = None,
        body: str | None = None,
        paths: Annotated[OneOrMany, Field(description="Replaces the path list.")] = None,
        tags: Annotated[OneOrMany, Field(description="Replaces the tag list.")] = None,
        priority: int | None = None,
        evidence: Annotated[
            list[EvidenceItem] | None, Field(description="Evidence to add.")
        ] = None,
    ) -> dict[str, Any]:
        """Change fields of a learning; returns the updated record."""
        changes = Changes(
            summary=summary,
            body=body,
            paths=None if paths is None else listed(paths),
            tags=None if tags is None else listed(tags),
            priority=priority,
            add_evidence=_evidence(evidence),
        )
        return update_learning(self.ws, id, changes).to_dict()

    def do_supersede(self, **arguments: Any) -> dict[str, Any]:
        """Mark learning `id` as superseded by learning `with`; both records update together."""
        old, new = supersede(self.ws, str(arguments["id"]), str(arguments["with"]))
        return {"old": old.to_dict(), "new": new.to_dict()}

    def do_upvote(
        self,
        id: Annotated[str, Field(description="The learning that was load-bearing again.")],
        model: Annotated[str, Field(description="Voting agent family, e.g. claude.")],
        task: Annotated[str, Field(description="The task it helped with (required).")],
    ) -> dict[str, Any]:
        """Record a re-validation vote instead of a duplicate; idempotent per model and task."""
        from orbit_learnings.store.levels import for_id  # an org ID's vote: this repository's

        return store.add_vote(for_id(self.ws, id), id, model, task).to_dict()

    def do_search(
        self,
        kind: Annotated[Literal["learning"], Field(description="What to search.")] = "learning",
        query: Annotated[str | None, Field(description="Free text.")] = None,
        tag: Annotated[OneOrMany, Field(description="Tags to filter or match.")] = None,
        path: Annotated[OneOrMany, Field(description="Files, folders or globs.")] = None,
        limit: Annotated[int, Field(ge=1)] = 10,
        *,
        all: Annotated[bool, Field(description="Every status (same as status=all).")] = False,
        status: Annotated[Status, Field(description="Which learnings.")] = "active",
    ) -> dict[str, Any]:
        """Ranked learnings by free text (only confident matches, each with its
        match_confidence), or by path/tag scope when no query is given."""
        if kind != "learning":
            raise OrbitError(f"unknown kind {kind!r}; only 'learning' is searchable")
        tags, paths = listed(tag), listed(path)
        if query and query.strip():
            result = queries.search_text(
                self.ws,
                query,
                tags=tags,
                status=status,
                include_all=all,
                limit=limit,
                confident_only=True,  # an agent is shown nothing rather than a weak guess
            )
        else:
            result = queries.list_learnings(
                self.ws,
                Scope(paths, tags),
                status="all" if all else status,
                limit=limit,
                cwd=self.ws.root_str,
            )
        rows = [{**h.to_dict(), "kind": "learning"} for h in result.hits]
        arguments = {"query": query, "path": paths, "tag": tags}
        return self._with_learnings({"results": rows}, arguments, [r["id"] for r in rows])
