"""`orbit org`: an org store of learnings many repositories read, pinned by commit.

`init` makes this repository an org store; `subscribe` makes it read one; `fetch`
refreshes the cached clone without moving the pin; `update` moves the pin (one line of
`.orbit/org.lock`); `check` tells the org's CI which learnings no subscriber needs.
"""

from __future__ import annotations

import os
from typing import Annotated

import typer

from orbit_learnings.cli.output import info, warn
from orbit_learnings.cli.state import STATE
from orbit_learnings.core.errors import OrbitError, UsageError
from orbit_learnings.store.workspace import Workspace

TYPE_CHECKING = False
if TYPE_CHECKING:
    from orbit_learnings.store.org.cache import Fetched
    from orbit_learnings.store.org.pin import Pin

BranchOpt = Annotated[
    str | None,
    typer.Option("--branch", "-b", help="The org repository's branch to follow.", metavar="B"),
]


def init_command(
    prefix: Annotated[
        str,
        typer.Option(
            "--prefix",
            help="The ID prefix of this org's learnings: 1-4 capital letters, not L or U.",
            metavar="X",
        ),
    ] = "O",
) -> None:
    """Make this repository an org store: `learning add` here allocates `O-` IDs
    (or the prefix given), and subscribers read them with those IDs.

    \b
    Example:
      orbit org init
      orbit org init --prefix ACME
    """
    from orbit_learnings.core.ids import prefix_problem
    from orbit_learnings.store import config

    problem = prefix_problem(prefix)
    if problem is not None:
        raise UsageError(f"--prefix: {problem}")
    ws, _ = _workspace_or_new()
    if config.org_subscription(ws) is not None:
        raise UsageError("this repository subscribes to an org; an org store cannot be one too")
    current = config.load(ws).get(config.ID_PREFIX_KEY)
    if current != prefix:
        _refuse_renaming(ws, current, prefix)
        config.set_setting(ws, config.ID_PREFIX_KEY, prefix)
    info(
        f"{ws.root_str} is an org store: `orbit learning add` allocates {prefix}- IDs."
        " Commit .orbit/, push it, and each repository runs `orbit org subscribe URL`."
    )


def _workspace_or_new() -> tuple[Workspace, bool]:
    """This repository's store, created first when it has none (`orbit init`'s files):
    `org init` and `org subscribe` are a repository's first orbit command as often as not.
    Returns the store and whether it was just created."""
    from pathlib import Path

    from orbit_learnings.store import setup
    from orbit_learnings.store.workspace import find_workspace

    ws = _existing_workspace()
    if ws is not None:
        return ws, False
    setup.init_store(Path(STATE.root or os.getcwd()))
    return find_workspace(STATE.root), True


def _refuse_renaming(ws: Workspace, current: object, prefix: str) -> None:
    """An org store that holds learnings keeps its prefix: subscribers read only the
    bundles named with the declared one, and every link to them names the old one."""
    from orbit_learnings.store.bundles import bundle_ids

    if current is None:
        return
    held = [i for i in bundle_ids(ws) if i.startswith(f"{current}-")]
    if held:
        raise UsageError(
            f"this org store already holds {held[0]} and {len(held) - 1} more with"
            f" its prefix {current}; it keeps it (`orbit org init --prefix {current}`)"
        )


def subscribe_command(
    url: Annotated[str, typer.Argument(help="The org repository (any URL git can fetch).")],
    branch: BranchOpt = None,
) -> None:
    """Read an org store's learnings here, pinned to its branch's current commit (the
    repository's `.orbit/` is created first when it has none).

    \b
    Example:
      orbit org subscribe git@github.com:acme/learnings.git --branch main
    """
    from orbit_learnings.store import config
    from orbit_learnings.store.org import cache
    from orbit_learnings.store.org.pin import Pin

    if url.startswith("-") or not url.strip():
        raise UsageError(f"{url!r} is not a repository URL")
    existing = _existing_workspace()
    if existing is not None:
        _refuse_second_org(existing, url)
    branch = branch or _default_branch(url)
    fetched = cache.fetch(url, branch)
    if fetched.gone or fetched.after is None:
        raise OrbitError(f"{url} has no branch {branch!r}")
    ws, created = (existing, False) if existing is not None else _workspace_or_new()
    pin = Pin(url, branch, fetched.after)
    count = _pin(ws, pin)
    config.set_setting(ws, config.ORG_KEY, {"url": url, "branch": branch})
    commit = ".orbit/ (created now)" if created else ".orbit/config.yaml and .orbit/org.lock"
    info(
        f"Subscribed to {url} ({branch}) at {pin.short}: {count} org learning(s). Commit {commit}."
    )


def _existing_workspace() -> Workspace | None:
    from orbit_learnings.core.errors import WorkspaceNotFound
    from orbit_learnings.store.workspace import find_workspace

    try:
        return find_workspace(STATE.root)
    except WorkspaceNotFound:
        return None


def _refuse_second_org(ws: Workspace, url: str) -> None:
    """One org per repository, and an org store reads no org."""
    from orbit_learnings.store import config

    current = config.org_subscription(ws)
    if current is not None and current[0] != url:
        raise UsageError(
            f"this repository already reads {current[0]}; one org per repository"
            " (remove `org:` from .orbit/config.yaml and .orbit/org.lock first)"
        )
    if config.load(ws).get(config.ID_PREFIX_KEY):
        raise UsageError("this repository is an org store; it cannot subscribe to one")


def _default_branch(url: str) -> str:
    """The branch the remote's HEAD names, else `main`."""
    from orbit_learnings.store.org.cache import git

    done = git(["ls-remote", "--symref", "--", url, "HEAD"], check=False)
    for line in done.stdout.decode(errors="replace").splitlines():
        if line.startswith("ref: refs/heads/"):
            return line.removeprefix("ref: refs/heads/").split("\t")[0].strip()
    return "main"


def _pin(ws: Workspace, pin: Pin) -> int:
    """Keep the commit, write its files and index into the cache, then the lock file.
    Returns how many org learnings the commit holds."""
    from pathlib import Path

    from orbit_learnings.store import setup
    from orbit_learnings.store.fileops import write_repo_text
    from orbit_learnings.store.layout import ORBIT_DIR, ORG_LOCK_FILE
    from orbit_learnings.store.org.pin import lock_path
    from orbit_learnings.store.workspace import declare_prefixes

    count = _materialise(pin, ws)
    setup.ensure_org_feedback_merge(Path(ws.root_str))  # votes on org learnings: union
    orbit = os.path.join(ws.root_str, ORBIT_DIR)
    write_repo_text(
        lock_path(ws.root_str), pin.text(), within=orbit, name=f"{ORBIT_DIR}/{ORG_LOCK_FILE}"
    )
    declare_prefixes(ws)  # IDs are judged by the newly pinned org's prefix from now on
    return count


def _materialise(pin: Pin, project: Workspace) -> int:
    """Write the pinned commit's tree into the cache (once) and index it. Returns how many
    org learnings it holds."""
    from orbit_learnings.index.build import open_fresh
    from orbit_learnings.index.reads import count
    from orbit_learnings.index.schema import discard
    from orbit_learnings.store.org import cache
    from orbit_learnings.store.org.pin import tree_dir
    from orbit_learnings.store.org.prefix import tree_prefix
    from orbit_learnings.store.workspace import declare_prefixes

    cache.keep_pinned(pin.url, pin.commit)
    written = not os.path.isdir(tree_dir(pin))
    folder, skipped = cache.materialise(pin)
    for item in skipped:
        warn(f"org {pin.short}: {item} (skipped)")
    if written and tree_prefix(folder):
        # The project's links to the org's own prefix (`supersedes: ACME-0012`) were
        # judged without it while the tree was missing: index them again.
        discard(project).close()
    tree = Workspace(folder, level="org", home=project.root_str)  # the index its reads use
    declare_prefixes(tree)  # its bundles are named with the prefix it declares
    with open_fresh(tree) as index:  # the first hook is warm
        return count(index.conn)


def _subscription(ws: Workspace) -> tuple[str, str]:
    from orbit_learnings.store import config

    found = config.org_subscription(ws)
    if found is None:
        raise UsageError("this repository reads no org; `orbit org subscribe URL` starts")
    return found


def fetch_command(
    *,
    quiet: Annotated[
        bool, typer.Option("--quiet", "-q", help="Say only what needs action.")
    ] = False,
) -> None:
    """Refresh the org clone in the cache; never moves the pin (`org update` does).

    \b
    Example:
      orbit org fetch
    """
    from orbit_learnings.store.org import cache
    from orbit_learnings.store.org.pin import read_pin

    ws = STATE.workspace()
    url, branch = _subscription(ws)
    fetched = cache.fetch(url, branch)
    pin = read_pin(ws.root_str)
    if pin is not None and not cache.fetch_commit(pin.url, pin.commit):
        raise OrbitError(
            f"the pinned org commit {pin.short} is on neither {pin.url} nor this cache;"
            " `orbit org update --force` pins the branch's tip"
        )
    if pin is not None:
        _materialise(pin, ws)
    _say_fetched(fetched, branch, url, pin, quiet=quiet)


def _say_fetched(fetched: Fetched, branch: str, url: str, pin: Pin | None, *, quiet: bool) -> None:
    kept = f"; still reading the pinned commit {pin.short}" if pin else ""
    if fetched.gone:
        warn(f"the branch {branch!r} is gone from {url}{kept}")
    elif fetched.rewritten:
        warn(
            f"the branch {branch!r} of {url} was force-pushed (its old tip"
            f" {(fetched.before or '')[:12]} is not in its history){kept};"
            " `orbit org update --force` moves the pin"
        )
    elif not quiet:
        tip = (fetched.after or "")[:12]
        if pin is None or pin.commit == fetched.after:
            info(f"Fetched {branch} at {tip}; the pin is current.")
        else:
            info(f"Fetched {branch} at {tip}; the pin stays at {pin.short} (`orbit org update`).")


def update_command(
    *,
    force: Annotated[
        bool,
        typer.Option("--force", help="Move the pin even to a commit that is not a descendant."),
    ] = False,
) -> None:
    """Move the pin to the org branch's newest commit: a one-line diff of .orbit/org.lock.

    \b
    Example:
      orbit org update
    """
    from orbit_learnings.store.org import cache
    from orbit_learnings.store.org.pin import Pin, read_pin

    ws = STATE.workspace()
    url, branch = _subscription(ws)
    fetched = cache.fetch(url, branch)
    if fetched.gone or fetched.after is None:
        raise OrbitError(f"the branch {branch!r} is gone from {url}; the pin stays where it is")
    old = read_pin(ws.root_str)
    new = Pin(url, branch, fetched.after)
    if old is not None and old.commit == new.commit and old.url == url and old.branch == branch:
        info(f"The pin is already at {new.short}, the tip of {branch}.")
        return
    clone = cache.clone_dir(url)
    if (
        old is not None
        and old.url == url
        and not force
        and not (
            cache.has_commit(clone, old.commit) and cache.is_ancestor(clone, old.commit, new.commit)
        )
    ):
        raise OrbitError(
            f"{branch} at {new.short} does not descend from the pin {old.short}"
            " (force-pushed?); `orbit org update --force` moves the pin anyway"
        )
    count = _pin(ws, new)
    from orbit_learnings.store.org.pin import tree_dir

    org = Workspace(tree_dir(new), level="org", home=ws.root_str)  # its index is this one's
    for local, org_id in adopt_promotions(ws, org):
        info(f"{local} is now superseded by {org_id}, its promoted org copy.")
    was = f" from {old.short}" if old is not None else ""
    info(
        f"Pinned {url} ({branch}){was} to {new.short}: {count} org learning(s)."
        " Commit .orbit/org.lock."
    )


def promote_command(
    learning_id: Annotated[str, typer.Argument(metavar="ID", help="The project learning.")],
    *,
    to: Annotated[str, typer.Option("--to", help="Where to promote it: org.")] = "org",
    push: Annotated[bool, typer.Option("--push", help="Push the promotion branch too.")] = False,
) -> None:
    """Propose a project learning to the org: a `promote/ID` branch of the org repository.

    \b
    Example:
      orbit learning promote L-0042 --to org
    """
    import shlex

    from orbit_learnings.store import bundles
    from orbit_learnings.store.org import cache, promote
    from orbit_learnings.store.org.reponame import repo_name

    if to != "org":
        raise UsageError(f"--to {to!r}: a learning can be promoted to org only")
    ws = STATE.workspace()
    learning = bundles.read_learning(ws, learning_id.strip())
    if learning.status != "active":
        raise OrbitError(f"{learning.id} is {learning.status}; only an active learning is promoted")
    url, branch = _subscription(ws)
    if cache.fetch(url, branch).gone:
        raise OrbitError(f"the branch {branch!r} is gone from {url}; nothing to promote onto")
    from orbit_learnings.store.fileops import read_regular_text

    text = read_regular_text(bundles.learning_file(ws, learning.id))  # no link, bounded
    evidence = [e.to_dict() for e in learning.evidence]
    ref = f"{repo_name(ws)}:{learning.id}"
    name, new_id, commit = promote.commit_promotion(
        url, branch, learning.id, lambda new: promote.promoted_text(text, new, evidence, ref)
    )
    command = promote.push_command(url, name)
    info(f"{learning.id} is {new_id} on the branch {name} of the org clone ({commit[:12]}).")
    if push:
        cache.git(command[1:])
        info(f"Pushed {name} to {url}: open a review there; `orbit org update` brings it in.")
    else:
        info(f"Publish it for review with:\n  {shlex.join(command)}")


def adopt_promotions(ws: Workspace, org: Workspace) -> list[tuple[str, str]]:
    """Project learnings the org now holds (promoted from here, as their evidence says),
    marked superseded by their org copy: (project ID, org ID) of each one marked."""
    from orbit_learnings.core.errors import NotFound
    from orbit_learnings.index.build import open_fresh
    from orbit_learnings.index.reads import evidence_of_active
    from orbit_learnings.store.changes import mark_replaced
    from orbit_learnings.store.org.reponame import repo_name

    mine = repo_name(ws) + ":"
    with open_fresh(org) as index:
        rows = evidence_of_active(index.conn)
    marked = []
    for org_id, _, evidence in rows:
        for item in evidence:
            ref = str(item.get("ref", ""))
            if item.get("kind") == "learning" and ref.startswith(mine):
                try:
                    if mark_replaced(ws, ref.removeprefix(mine), org_id):
                        marked.append((ref.removeprefix(mine), org_id))
                except NotFound:
                    continue
    return marked


def check_command(
    paths: Annotated[
        list[str], typer.Argument(metavar="PATH...", help="Checkouts of subscribing repositories.")
    ],
) -> None:
    """In the org repository's CI: exit 1 listing org learnings whose scope matches no file
    in any subscriber checkout where it applies.

    \b
    Example:
      orbit org check ../payments-api ../web
    """
    from orbit_learnings.cli.output import render_rows
    from orbit_learnings.curation.orgcheck import Checkout, unmatched

    ws = STATE.workspace()
    checkouts = [Checkout(path) for path in paths]
    found = unmatched(ws, checkouts)
    names = ", ".join(c.name for c in checkouts)
    if not found:
        info(f"Every org learning matches a file in {names}.")
        return
    render_rows(["ID", "Summary"], [[i, s] for i, s in found])
    warn(f"{len(found)} org learning(s) match no file in {names}")
    raise typer.Exit(1)
