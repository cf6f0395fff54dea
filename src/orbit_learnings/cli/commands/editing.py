"""Changing one learning in place: `learning update`, `archive` and `restore`.

Every change goes through the store's edit (only the changed keys' lines are rewritten);
links change on both sides at once (`store.links`), and archiving takes the same door
as `prune --archive` and the dashboard (`store.changes.archive_learnings`).
"""

from pathlib import Path
from typing import Annotated

import typer

from orbit_learnings.cli import completion
from orbit_learnings.cli.commands.records import _body, _evidence, _stored_globs, org_repos
from orbit_learnings.cli.options import AnchorOpt, IdArg, JsonFlag
from orbit_learnings.cli.output import emit_json, info
from orbit_learnings.cli.state import STATE
from orbit_learnings.core.errors import UsageError
from orbit_learnings.core.model import Learning
from orbit_learnings.store import bundles as store
from orbit_learnings.store.changes import (
    Changes,
    archive_learnings,
    restore_learnings,
    update_learning,
)
from orbit_learnings.store.workspace import Workspace


def _many(flag: str, help_text: str, *, paths: bool = False) -> object:
    complete = completion.paths if paths else completion.tags
    return typer.Option(
        flag, help=help_text, metavar="PATH" if paths else "TAG", autocompletion=complete
    )


def _link_option(flag: str, help_text: str) -> object:
    return typer.Option(
        flag, metavar="ID|none", help=help_text, autocompletion=completion.learning_ids
    )


ReplacePathsOpt = Annotated[
    list[str] | None, typer.Option("--path", "-p", help="Replaces the path list (repeatable).")
]
ReplaceTagsOpt = Annotated[
    list[str] | None, typer.Option("--tag", "-t", help="Replaces the tag list.")
]
AddEvidenceOpt = Annotated[
    list[str] | None, typer.Option("--evidence", "-e", help="Adds evidence (repeatable).")
]
AddTagOpt = Annotated[list[str] | None, _many("--add-tag", "Adds one tag (repeatable).")]
RemoveTagOpt = Annotated[list[str] | None, _many("--remove-tag", "Removes one tag (repeatable).")]
AddPathOpt = Annotated[
    list[str] | None, _many("--add-path", "Adds one path glob (repeatable).", paths=True)
]
RemovePathOpt = Annotated[
    list[str] | None, _many("--remove-path", "Removes one path glob (repeatable).", paths=True)
]
AddRepoOpt = Annotated[
    list[str] | None,
    typer.Option("--add-repo", metavar="GLOB", help="In an org store: adds one repository glob."),
]
RemoveRepoOpt = Annotated[
    list[str] | None,
    typer.Option("--remove-repo", metavar="GLOB", help="Removes one repository glob."),
]
SupersedesOpt = Annotated[
    str | None,
    _link_option("--supersedes", "This learning replaces ID (both files change); none clears."),
]
SupersededByOpt = Annotated[
    str | None,
    _link_option("--superseded-by", "ID replaces this learning (both files change); none clears."),
]
IdsArg = Annotated[
    list[str],
    typer.Argument(
        metavar="ID...", help="One or more learning IDs.", autocompletion=completion.learning_ids
    ),
]


def update_command(
    learning_id: IdArg,
    summary: Annotated[str | None, typer.Option("--summary", "-s")] = None,
    body: Annotated[str | None, typer.Option("--body", "-b")] = None,
    body_file: Annotated[Path | None, typer.Option("--body-file")] = None,
    path: ReplacePathsOpt = None,
    tag: ReplaceTagsOpt = None,
    add_tag: AddTagOpt = None,
    remove_tag: RemoveTagOpt = None,
    add_path: AddPathOpt = None,
    remove_path: RemovePathOpt = None,
    add_repo: AddRepoOpt = None,
    remove_repo: RemoveRepoOpt = None,
    priority: Annotated[int | None, typer.Option("--priority")] = None,
    evidence: AddEvidenceOpt = None,
    anchor: AnchorOpt = None,
    supersedes: SupersedesOpt = None,
    superseded_by: SupersededByOpt = None,
    *,
    no_anchor: Annotated[bool, typer.Option("--no-anchor", help="Remove every anchor.")] = False,
    json_out: JsonFlag = False,
) -> None:
    """Change fields of a learning; comments and unknown keys in the file are kept.

    --tag and --path replace the whole list; --add-/--remove-tag, -path, -repo (org
    stores) change one entry. --anchor re-records the anchors from the code as it is now.
    --supersedes and --superseded-by link both sides at once; `none` clears the link.

    \b
    Examples:
      orbit learning update L-0003 --add-tag migrations --remove-tag db
      orbit learning update L-0003 --tag database --tag migrations
      orbit learning update L-0007 --anchor src/orders/service.py:120-140
      orbit learning update L-0010 --supersedes none
    """
    from orbit_learnings.cli.commands.anchors import anchors_change

    ws = STATE.workspace_for(learning_id)
    learning_id = learning_id.strip()
    changes = Changes(
        summary=summary,
        body=_body(body, body_file),
        paths=_globs(ws, path),
        tags=tag,
        priority=priority,
        add_evidence=_evidence(evidence),
        anchors=anchors_change(ws, anchor, remove=no_anchor),
        add_paths=_globs(ws, add_path) or (),
        remove_paths=_globs(ws, remove_path) or (),
        add_tags=add_tag or (),
        remove_tags=remove_tag or (),
        add_repos=org_repos(ws, add_repo, "--add-repo"),
        remove_repos=remove_repo or (),
    )
    links = (supersedes, superseded_by)
    if changes.is_empty() and links == (None, None):
        raise UsageError("nothing to update: pass at least one of --summary, --body, --path, ...")
    learning = None if changes.is_empty() else update_learning(ws, learning_id, changes)
    relinked = _relink(ws, learning_id, supersedes, superseded_by)
    _report(ws, learning_id, learning, relinked, json_out=json_out)


def _report(
    ws: Workspace,
    learning_id: str,
    updated: Learning | None,
    relinked: list[Learning],
    *,
    json_out: bool,
) -> None:
    """The learning as written (JSON), or which files changed: a link changes two or more."""
    if json_out:
        latest = next((r for r in reversed(relinked) if r.id == learning_id), updated)
        emit_json((latest or store.read_learning(ws, learning_id)).to_dict())
        return
    others = sorted({r.id for r in relinked} - {learning_id})
    info(f"Updated {learning_id}" + (f" (and {', '.join(others)})" if others else ""))


def _globs(ws: Workspace, raws: list[str] | None) -> list[str] | None:
    """Globs as the store keeps them (project globs are read from the current folder)."""
    if raws is None or ws.level != "project":
        return raws
    return _stored_globs(ws, raws)


def _relink(
    ws: Workspace, learning_id: str, supersedes: str | None, superseded_by: str | None
) -> list[Learning]:
    """`--supersedes` / `--superseded-by`, each set or cleared on both sides."""
    from orbit_learnings.store import links

    changed: list[Learning] = []
    if supersedes is not None:
        target = _link_target(supersedes, "--supersedes")
        changed += links.set_supersedes(ws, learning_id, target)
    if superseded_by is not None:
        target = _link_target(superseded_by, "--superseded-by")
        changed += links.set_superseded_by(ws, learning_id, target)
    return changed


def _link_target(value: str, flag: str) -> str | None:
    from orbit_learnings.core.ids import is_learning_id
    from orbit_learnings.store.links import NONE

    value = value.strip()
    if value.lower() == NONE:
        return None
    if not is_learning_id(value):
        raise UsageError(f"{flag} takes a learning ID or `none`, got {value!r}")
    return value


def archive_command(
    learning_ids: IdsArg,
    reason: Annotated[
        str | None,
        typer.Option("--reason", "-r", metavar="TEXT", help="Why (kept as archived_reason)."),
    ] = None,
    *,
    json_out: JsonFlag = False,
) -> None:
    """Archive learnings: kept on disk (`status: archived`), out of lists, search and
    injection; `restore` brings them back.

    \b
    Examples:
      orbit learning archive L-0004 --reason "the v1 API is gone"
      orbit learning archive L-0004 L-0007
    """
    ws = _one_store(learning_ids)
    done = archive_learnings(ws, [i.strip() for i in learning_ids], reason)
    if json_out:
        emit_json({"archived": [learning.to_dict() for learning in done]})
        return
    for learning in done:
        why = f" ({learning.archived_reason})" if learning.archived_reason else ""
        info(f"{learning.id} is archived{why}")


def restore_command(learning_ids: IdsArg, *, json_out: JsonFlag = False) -> None:
    """Bring archived learnings back (active, or superseded when a replacement is linked).

    \b
    Example:
      orbit learning restore L-0004
    """
    ws = _one_store(learning_ids)
    done = restore_learnings(ws, [i.strip() for i in learning_ids])
    if json_out:
        emit_json({"restored": [learning.to_dict() for learning in done]})
        return
    for learning in done:
        info(f"{learning.id} is {learning.status}")


def _one_store(learning_ids: list[str]) -> Workspace:
    """The store the IDs live in: one command changes one store (project or personal)."""
    stores = {STATE.workspace_for(i.strip()) for i in learning_ids}
    if len(stores) > 1:
        raise UsageError("pass project learnings and personal ones in separate commands")
    return stores.pop()
