"""The record commands: `learning add|list|show|supersede|upvote` (`update` is in `editing`).

Each command parses its options, calls one core function, and renders.
"""

import sys
from pathlib import Path
from typing import Annotated

import typer

from orbit_learnings.cli import completion
from orbit_learnings.cli.options import (
    AddLevelOpt,
    AnchorOpt,
    BodyFileOpt,
    BodyOpt,
    CreatedByOpt,
    EvidenceOpt,
    IdArg,
    JsonFlag,
    LevelOpt,
    LimitOpt,
    PathOpt,
    RepoOpt,
    SpecScopeOpt,
    StatusOpt,
    TagOpt,
)
from orbit_learnings.cli.output import (
    emit_json,
    info,
    render_record,
    warn,
    warn_problems,
)
from orbit_learnings.cli.state import STATE
from orbit_learnings.core.errors import UsageError
from orbit_learnings.core.model import Evidence, parse_evidence
from orbit_learnings.core.scope import Scope
from orbit_learnings.retrieval import queries
from orbit_learnings.store import bundles as store
from orbit_learnings.store.changes import supersede, supersede_from_elsewhere
from orbit_learnings.store.workspace import Workspace


def _evidence(values: list[str] | None) -> list[Evidence]:
    try:
        return [parse_evidence(v) for v in values or []]
    except ValueError as exc:
        raise UsageError(str(exc)) from None


def _scope(values: list[str] | None) -> tuple[list[str], list[str]]:
    """The spec's `--scope paths=a,b --scope tags=x,y` form."""
    paths: list[str] = []
    tags: list[str] = []
    for value in values or []:
        key, sep, rest = value.partition("=")
        items = [item.strip() for item in rest.split(",") if item.strip()]
        if not sep or key.strip() not in ("paths", "tags", "path", "tag"):
            raise UsageError(f"--scope must look like paths=a,b or tags=x,y, got {value!r}")
        (paths if key.strip().startswith("path") else tags).extend(items)
    return paths, tags


def _body(body: str | None, body_file: Path | None) -> str | None:
    if body is not None and body_file is not None:
        raise UsageError("pass either --body or --body-file, not both")
    if body_file is None:
        return body
    from orbit_learnings.store.fileops import MAX_FILE_BYTES

    try:
        if str(body_file) == "-":
            text = sys.stdin.read(MAX_FILE_BYTES + 1)
        else:
            with body_file.open("rb") as handle:  # read no further than a learning holds
                text = handle.read(MAX_FILE_BYTES + 1).decode("utf-8")
    except OSError as exc:
        raise UsageError(f"cannot read --body-file {body_file}: {exc.strerror}") from None
    except UnicodeDecodeError:
        raise UsageError(f"--body-file {body_file} is not UTF-8 text") from None
    if len(text.encode("utf-8", "surrogateescape")) > MAX_FILE_BYTES:
        raise UsageError(
            f"--body-file {body_file} is larger than {MAX_FILE_BYTES} bytes, all a learning holds"
        )
    return text


def _new_scope(ws: Workspace, paths: list[str], tags: list[str], spec: list[str] | None) -> Scope:
    """--path, --tag and the spec's --scope paths=...,tags=... together, paths as stored."""
    spec_paths, spec_tags = _scope(spec)
    globs = [*paths, *spec_paths]
    return Scope(_stored_globs(ws, globs) if ws.level == "project" else globs, [*tags, *spec_tags])


def _stored_globs(ws: Workspace, raws: list[str]) -> list[str]:
    """Globs as typed, read from the current folder; the stored form is shown when it differs."""
    from orbit_learnings.store.workspace import scope_glob

    stored = [scope_glob(ws, raw) for raw in raws]
    for raw, kept in zip(raws, stored, strict=True):
        if raw.strip() != kept:
            sys.stderr.write(f"orbit: --path {raw} is stored as {kept}\n")
    return stored


def org_repos(ws: Workspace, globs: list[str] | None, flag: str = "--repo") -> list[str]:
    """`--repo` globs, only where they mean something: an org store, whose learnings
    many repositories read. A project's learnings are read in that repository alone,
    and a personal one's wherever its owner works, so `scope.repos` would narrow nothing."""
    if not globs:
        return []
    from orbit_learnings.store import config

    if ws.level != "project" or config.load(ws).get(config.ID_PREFIX_KEY) is None:
        raise UsageError(
            f"{flag} names the repositories an org learning applies in; this store is no"
            " org store (`orbit org init` makes one)"
        )
    return [g.strip() for g in globs]


def _store_for_new(level: str) -> Workspace:
    """The store a new learning goes to: the project's, or the personal one (made if need be)."""
    if level not in ("project", "user"):
        raise UsageError(f"unknown --level {level!r}; choose project or user")
    if level == "project":
        return STATE.workspace()
    from orbit_learnings.store.levels import user_workspace

    ws = user_workspace(create=True)
    assert ws is not None
    return ws


def add_command(
    summary: Annotated[str, typer.Option("--summary", "-s", help="One-line lesson (required).")],
    path: PathOpt = None,
    tag: TagOpt = None,
    scope: SpecScopeOpt = None,
    body: BodyOpt = None,
    body_file: BodyFileOpt = None,
    evidence: EvidenceOpt = None,
    priority: Annotated[int, typer.Option("--priority", help="Manual ranking boost.")] = 0,
    created_by: CreatedByOpt = None,
    anchor: AnchorOpt = None,
    repo: RepoOpt = None,
    *,
    force: Annotated[
        bool, typer.Option("--force", help="Add even if a near-duplicate exists.")
    ] = False,
    level: AddLevelOpt = "project",
    json_out: JsonFlag = False,
) -> None:
    """Record a new learning and print its ID.

    A near-duplicate of an active learning is refused with a suggestion to
    upvote it instead; --force adds anyway. In an org store, --repo limits the
    learning to the subscribing repositories it names (`scope.repos`).

    \b
    Examples:
      orbit learning add --summary "Run migrations in a transaction" \\
        --path 'db/migrations/**' --tag database --evidence commit=3edf00ed
      orbit learning add --summary "update() must re-read the version first" \\
        --anchor src/orders/service.py::OrderService.update
      orbit learning add --summary "Payments calls carry an idempotency key" \\
        --path 'src/**' --repo 'payments-*'   # in an org store
    """
    record_new(
        "active",
        summary=summary,
        path=path,
        tag=tag,
        scope=scope,
        body=body,
        body_file=body_file,
        evidence=evidence,
        priority=priority,
        created_by=created_by,
        anchor=anchor,
        repo=repo,
        force=force,
        level=level,
        json_out=json_out,
    )


def record_new(
    status: str,
    *,
    summary: str,
    path: list[str] | None,
    tag: list[str] | None,
    scope: list[str] | None,
    body: str | None,
    body_file: Path | None,
    evidence: list[str] | None,
    priority: int,
    created_by: str | None,
    anchor: list[str] | None,
    force: bool,
    level: str,
    json_out: bool,
    repo: list[str] | None = None,
) -> str:
    """`add` and `propose`: one path from options to a written learning; returns its ID."""
    from orbit_learnings.curation.adding import add_learning
    from orbit_learnings.curation.anchors.citing import cite

    ws = _store_for_new(level)
    new = store.NewLearning(
        summary=summary,
        scope=_new_scope(ws, path or [], tag or [], scope),
        body=_body(body, body_file) or "",
        evidence=_evidence(evidence),
        priority=priority,
        created_by=created_by,
        anchors=cite(ws, anchor) if anchor else (),
        status=status,
        repos=org_repos(ws, repo),
    )
    added = add_learning(ws, new, force=force)  # a near-duplicate: `similar` in the error
    for item in added.similar:
        warn(f"added although {item.id} looks similar ({item.similarity:.2f}): {item.summary}")
    if json_out:
        emit_json(
            {"id": added.learning.id, "created_at": added.learning.created_at}
            | ({"similar": [s.to_dict() for s in added.similar]} if added.similar else {})
        )
    else:
        info(added.learning.id)
    return added.learning.id


def list_command(
    status: StatusOpt = "active",
    tag: TagOpt = None,
    path: PathOpt = None,
    limit: LimitOpt = None,
    level: LevelOpt = "all",
    *,
    json_out: JsonFlag = False,
) -> None:
    """List learnings, optionally those whose scope matches a path, folder, glob or tag.

    \b
    Examples:
      orbit learning list --path src/db/migrate.py --json
      orbit learning list --path 'crates/**' --tag performance
    """
    from orbit_learnings.cli.hot import do_list

    do_list(
        STATE.workspace(),
        Scope(path or [], tag or []),
        status=status,
        limit=limit,
        json_out=json_out,
        level=level,
    )


def show_command(
    learning_id: IdArg,
    *,
    json_out: JsonFlag = False,
) -> None:
    """Show one learning in full, with its vote count, and the code it cites as it is
    now beside what it was when cited.

    \b
    Example:
      orbit learning show L-0001
    """
    from orbit_learnings.cli.commands.anchors import render_anchors, show_anchors

    ws = STATE.workspace_for(learning_id.strip())
    detail = queries.show_learning(STATE.workspace(), learning_id.strip())
    warn_problems(detail.warnings)
    anchors = show_anchors(ws, detail.record["id"]) if detail.record.get("anchors") else []
    if json_out:
        emit_json(detail.record | ({"anchor_states": anchors} if anchors else {}))
    else:
        render_record(detail.record)
        render_anchors(anchors)


def supersede_command(
    old_id: Annotated[str, typer.Argument(metavar="OLD", autocompletion=completion.learning_ids)],
    new_id: Annotated[
        str,
        typer.Option(
            "--with",
            "-w",
            metavar="NEW",
            help="The replacing learning.",
            autocompletion=completion.learning_ids,
        ),
    ],
    *,
    json_out: JsonFlag = False,
) -> None:
    """Mark OLD as replaced by NEW; both files change together.

    \b
    Example:
      orbit learning supersede L-0001 --with L-0042
    """
    ws = STATE.workspace_for(old_id)
    if ws.level == "org" and STATE.workspace_for(new_id).level == "project":
        _supersede_org(ws, old_id.strip(), new_id.strip(), json_out=json_out)
        return
    if ws != STATE.workspace_for(new_id):
        raise UsageError("learnings of two different stores cannot supersede each other")
    old, new = supersede(ws, old_id.strip(), new_id.strip())
    if json_out:
        emit_json({"old": old.to_dict(), "new": new.to_dict()})
    else:
        info(f"{old.id} is now superseded by {new.id}")


def _supersede_org(org: Workspace, old_id: str, new_id: str, *, json_out: bool) -> None:
    """An org learning replaced here: the project learning records it; the org's file,
    shared by every subscriber, is never touched."""
    old = store.read_learning(org, old_id)
    new = supersede_from_elsewhere(STATE.workspace(), old, new_id)
    if json_out:
        emit_json({"old": old.to_dict() | {"level": "org"}, "new": new.to_dict()})
    else:
        info(f"{old.id} (org) is now superseded by {new.id} in this repository")


def upvote_command(
    learning_id: Annotated[
        str | None,
        typer.Argument(
            metavar="ID",
            help="The learning to re-validate.",
            autocompletion=completion.learning_ids,
        ),
    ] = None,
    *,
    model_name: Annotated[str, typer.Option("--model", "-m", help="Agent family, e.g. claude.")],
    task: Annotated[str, typer.Option("--task", help="Task the learning helped with.")],
    id_option: Annotated[
        str | None, typer.Option("--id", metavar="ID", help="The same as the ID argument.")
    ] = None,
    json_out: JsonFlag = False,
) -> None:
    """Record that a learning was load-bearing again in a new task (idempotent).

    \b
    Example:
      orbit learning upvote L-0001 --model claude --task ORB-00095
    """
    if learning_id and id_option and learning_id.strip() != id_option.strip():
        raise UsageError(f"two IDs given ({learning_id} and --id {id_option}); pass one")
    chosen = (learning_id or id_option or "").strip()
    if not chosen:
        raise UsageError("which learning? pass its ID: orbit learning upvote L-0001 ...")
    summary = store.add_vote(STATE.workspace_for(chosen), chosen, model_name, task)
    if json_out:
        emit_json(summary.to_dict())
        return
    votes = f"{summary.vote_count} vote" + ("" if summary.vote_count == 1 else "s")
    if summary.added is False:
        info(f"{summary.learning_id}: already counted for {model_name.strip()} in {task.strip()}")
        info(f"{summary.learning_id}: {votes}")
    else:
        info(f"{summary.learning_id}: {votes}")
