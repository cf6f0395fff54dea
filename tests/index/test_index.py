"""The SQLite index: self-healing freshness, strict sync, and never a stale answer."""

from __future__ import annotations

import json
import os
import sqlite3
from pathlib import Path

import pytest

from orbit_learnings.core.errors import LegacyLayoutError, Problem, ValidationFailed
from orbit_learnings.core.results import Result
from orbit_learnings.core.scope import Scope
from orbit_learnings.index import build as index
from orbit_learnings.index import rows
from orbit_learnings.retrieval import queries
from orbit_learnings.store import bundles as store
from orbit_learnings.store.changes import Changes, update_learning
from orbit_learnings.store.workspace import Workspace
from tests.testing import git, wait_until_settled


def add(
    ws: Workspace,
    summary: str = "Lesson",
    paths: tuple[str, ...] = ("src/**",),
    tags: tuple[str, ...] = (),
) -> str:
    new = store.NewLearning(summary=summary, scope=Scope(paths, tags))
    return store.create_learning(ws, new).id


def ids(result: Result) -> list[str]:
    return [h.id for h in result.hits]


def test_first_read_builds_the_index_and_deleting_it_is_safe(workspace: Path) -> None:
    ws = Workspace(workspace)
    add(ws)
    assert ids(queries.list_learnings(ws)) == ["L-0001"]
    assert ws.index_file.exists()
    ws.index_file.unlink()
    assert ids(queries.list_learnings(ws)) == ["L-0001"]


def test_a_corrupt_index_file_is_rebuilt(workspace: Path) -> None:
    ws = Workspace(workspace)
    add(ws)
    ws.state_dir.mkdir(exist_ok=True)
    ws.index_file.write_bytes(b"this is not sqlite at all" * 100)
    assert ids(queries.list_learnings(ws)) == ["L-0001"]


def test_hand_edit_is_seen_without_sync_even_within_one_timestamp_tick(workspace: Path) -> None:
    """The racy case: a rewrite with identical size and mtime must still be noticed."""
    ws = Workspace(workspace)
    add(ws, "alpha")
    assert queries.list_learnings(ws).hits[0].summary == "alpha"
    path = store.learning_file(ws, "L-0001")
    before = path.stat()
    path.write_text(path.read_text().replace("alpha", "omega"))
    os.utime(path, ns=(before.st_atime_ns, before.st_mtime_ns))  # same size, same mtime
    assert queries.list_learnings(ws).hits[0].summary == "omega"


def test_new_and_removed_bundles_and_votes_are_noticed(workspace: Path) -> None:
    ws = Workspace(workspace)
    add(ws), add(ws)
    assert (
        ids(queries.list_learnings(ws)) == ["L-0002", "L-0001"]
        or len(ids(queries.list_learnings(ws))) == 2
    )
    import shutil

    shutil.rmtree(ws.bundle_dir("L-0002"))
    assert ids(queries.list_learnings(ws)) == ["L-0001"]
    votes = ws.bundle_dir("L-0001") / "votes.jsonl"
    votes.write_text(
        json.dumps(
            {
                "learning_id": "L-0001",
                "voter_model": "m",
                "voted_at": "2026-01-01T00:00:00Z",
                "task_id": "T",
            }
        )
        + "\n"
    )
    assert queries.list_learnings(ws).hits[0].vote_count == 1


def test_git_checkout_that_changes_a_yaml_is_seen_by_the_next_list(git_repo: Path) -> None:
    ws = Workspace(git_repo)
    add(ws, "version one", paths=("api/**",))
    git(git_repo, "add", "-A")
    git(git_repo, "commit", "-qm", "one")
    git(git_repo, "checkout", "-qb", "feature")
    update_learning(ws, "L-0001", Changes(summary="version two", paths=["web/**"]))
    git(git_repo, "commit", "-qam", "two")
    assert ids(queries.list_learnings(ws, Scope(["web/app.ts"]))) == ["L-0001"]
    git(git_repo, "checkout", "-q", "main")
    assert queries.list_learnings(ws).hits[0].summary == "version one"
    assert ids(queries.list_learnings(ws, Scope(["web/app.ts"]))) == []
    assert ids(queries.list_learnings(ws, Scope(["api/x.py"]))) == ["L-0001"]


def test_reads_skip_a_bad_record_with_a_warning(workspace: Path) -> None:
    ws = Workspace(workspace)
    add(ws), add(ws)
    store.learning_file(ws, "L-0002").write_text("id: L-0002\nsummary: [oops\n")
    result = queries.list_learnings(ws)
    assert ids(result) == ["L-0001"]
    assert [w.file for w in result.warnings] == [".orbit/learnings/L-0002/learning.yaml"]


def test_sync_fails_on_an_invalid_votes_row_with_file_and_line(workspace: Path) -> None:
    ws = Workspace(workspace)
    add(ws)
    store.add_vote(ws, "L-0001", "claude", "T-1")
    votes = ws.bundle_dir("L-0001") / "votes.jsonl"
    votes.write_text(votes.read_text() + "not json\n")
    with pytest.raises(ValidationFailed) as caught:
        index.sync(ws)
    assert str(caught.value.problems[0]).startswith(".orbit/learnings/L-0001/votes.jsonl:2: ")


def test_failing_sync_leaves_the_previous_index_in_place(workspace: Path) -> None:
    ws = Workspace(workspace)
    add(ws, "kept")
    report = index.sync(ws)
    assert report.learnings == 1
    before = ws.index_file.read_bytes()
    (ws.bundle_dir("L-0002")).mkdir()
    (ws.bundle_dir("L-0002") / "learning.yaml").write_text("id: L-0003\n")
    with pytest.raises(ValidationFailed):
        index.sync(ws)
    assert ws.index_file.read_bytes() == before
    assert not [p for p in ws.state_dir.iterdir() if p.name.endswith(".tmp")]


@pytest.mark.parametrize(
    ("text", "fragment"),
    [
        ("id: L-0001\nsummary: [oops\n", "invalid YAML"),
        ("id: L-0009\nschemaVersion: 1\n", "disagrees with its folder"),
        ("- just\n- a list\n", "must be a YAML mapping"),
        ("<<<<<<< HEAD\nid: L-0001\n=======\nid: L-0001\n>>>>>>> other\n", "conflict markers"),
    ],
)
def test_sync_names_the_problem(workspace: Path, text: str, fragment: str) -> None:
    ws = Workspace(workspace)
    add(ws)
    store.learning_file(ws, "L-0001").write_text(text)
    with pytest.raises(ValidationFailed, match=fragment):
        index.sync(ws)


def test_schema_problems_point_at_the_offending_line(workspace: Path) -> None:
    ws = Workspace(workspace)
    add(ws)
    path = store.learning_file(ws, "L-0001")
    path.write_text(path.read_text().replace("priority: 0", "priority: high"))
    with pytest.raises(ValidationFailed) as caught:
        index.sync(ws)
    line = path.read_text().splitlines().index("priority: high") + 1
    assert (
        str(caught.value.problems[0])
        == f".orbit/learnings/L-0001/learning.yaml:{line}: priority must be an integer"
    )


def test_legacy_layout_is_refused_on_read(workspace: Path) -> None:
    ws = Workspace(workspace)
    (ws.learnings_dir / "L-0001.yaml").write_text("id: L-0001\n")
    with pytest.raises(LegacyLayoutError, match="orbit learning migrate-layout"):
        queries.list_learnings(ws)


def test_one_sided_supersede_link_hides_the_old_record(workspace: Path) -> None:
    ws = Workspace(workspace)
    add(ws), add(ws)
    path = store.learning_file(ws, "L-0002")
    path.write_text(path.read_text().replace("supersedes: null", "supersedes: L-0001"))
    assert ids(queries.list_learnings(ws)) == ["L-0002"]
    detail = queries.show_learning(ws, "L-0001")
    assert (detail.record["status"], detail.record["superseded_by"]) == ("superseded", "L-0002")


def test_index_never_writes_the_yaml_files(workspace: Path) -> None:
    ws = Workspace(workspace)
    add(ws)
    snapshot = {p: p.read_bytes() for p in ws.learnings_dir.rglob("*") if p.is_file()}
    queries.list_learnings(ws)
    index.sync(ws)
    assert snapshot == {p: p.read_bytes() for p in ws.learnings_dir.rglob("*") if p.is_file()}


def test_index_mirrors_the_spec_table(workspace: Path) -> None:
    ws = Workspace(workspace)
    add(ws, tags=("perf",))
    index.sync(ws)
    conn = sqlite3.connect(ws.index_file)
    row = conn.execute("SELECT id, status, paths, tags, summary FROM learnings_index").fetchone()
    assert row == ("L-0001", "active", '["src/**"]', '["perf"]', "Lesson")


def test_ranking_uses_votes_then_priority(workspace: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    ws = Workspace(workspace)
    add(ws, "a"), add(ws, "b"), add(ws, "c")
    update_learning(ws, "L-0002", Changes(priority=5))
    store.add_vote(ws, "L-0003", "claude", "T-1")
    assert ids(queries.list_learnings(ws)) == ["L-0003", "L-0002", "L-0001"]
    monkeypatch.setenv("ORBIT_LEARNING_VOTE_HALF_LIFE_DAYS", "0")
    assert ids(queries.list_learnings(ws))[0] == "L-0003"


def test_path_or_tag_match_with_matched_by(workspace: Path) -> None:
    ws = Workspace(workspace)
    add(ws, "perf", paths=("crates/orbit-engine/**/perf*.rs",), tags=("performance",))
    add(ws, "tags only", paths=(), tags=("Benchmarking",))
    result = queries.list_learnings(
        ws, Scope(["crates/orbit-engine/src/perf_stats.rs"], ["performance", "benchmarking"])
    )
    by_id = {h.id: h.matched_by for h in result.hits}
    assert by_id == {
        "L-0001": ["path:crates/orbit-engine/src/perf_stats.rs", "tag:performance"],
        "L-0002": ["tag:benchmarking"],
    }


def test_votes_rewritten_within_one_timestamp_tick_are_seen(workspace: Path) -> None:
    """The racy case for the lazily checked votes.jsonl too."""
    ws = Workspace(workspace)
    add(ws)
    votes = ws.bundle_dir("L-0001") / "votes.jsonl"
    row = {
        "learning_id": "L-0001",
        "voter_model": "a",
        "voted_at": "2026-01-01T00:00:00Z",
        "task_id": "T1",
    }
    votes.write_text(json.dumps(row) + "\n")
    assert queries.show_learning(ws, "L-0001").record["votes"][0]["voter_model"] == "a"
    before = votes.stat()
    votes.write_text(json.dumps({**row, "voter_model": "b"}) + "\n")  # same size
    os.utime(votes, ns=(before.st_atime_ns, before.st_mtime_ns))
    assert queries.show_learning(ws, "L-0001").record["votes"][0]["voter_model"] == "b"


def _settle(ws: Workspace) -> None:
    """Let every learning.yaml age past the racy window, so reads take the one-number path."""
    wait_until_settled(ws.root)


def _count_parses(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    parsed: list[str] = []
    real = rows.load_folder  # what index (build) imported, and the test replaces there

    def counting(ws: Workspace, folder: str) -> rows.Loaded:
        parsed.append(folder)
        return real(ws, folder)

    monkeypatch.setattr(index, "load_folder", counting)
    return parsed


def test_reads_reparse_only_what_changed(workspace: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    ws = Workspace(workspace)
    for n in range(5):
        add(ws, f"lesson {n}")
    _settle(ws)
    queries.list_learnings(ws)  # re-reads the settled files once, then trusts the number
    parsed = _count_parses(monkeypatch)
    queries.list_learnings(ws)
    assert parsed == []
    path = store.learning_file(ws, "L-0003")
    path.write_text(path.read_text().replace("lesson 2", "lesson two"))
    os.utime(path, ns=(1_700_000_100_000_000_000,) * 2)
    assert "lesson two" in [h.summary for h in queries.list_learnings(ws).hits]
    assert parsed == ["L-0003"]


def test_files_swapped_between_bundles_are_noticed(workspace: Path) -> None:
    """Each file keeps its inode, size and mtime, so only the pairing of folder and stat
    changes; the one number must still differ."""
    ws = Workspace(workspace)
    add(ws, "first lesson", paths=("api/**",))
    add(ws, "second lesson", paths=("web/**",))
    _settle(ws)
    assert ids(queries.list_learnings(ws, Scope(["api/x.py"]))) == ["L-0001"]
    one, two = store.learning_file(ws, "L-0001"), store.learning_file(ws, "L-0002")
    parked = one.with_name("parked")
    os.rename(one, parked)
    os.rename(two, one)
    os.rename(parked, two)
    result = queries.list_learnings(ws, Scope(["api/x.py"]))
    assert ids(result) != ["L-0001"] or result.warnings


def test_full_text_rows_follow_a_changed_learning(workspace: Path) -> None:
    ws = Workspace(workspace)
    add(ws, "retries need a zebra backoff")
    add(ws, "unrelated lesson")
    _settle(ws)
    assert [h.id for h in queries.search_text(ws, "zebra").hits] == ["L-0001"]
    update_learning(ws, "L-0001", Changes(summary="retries need a yak backoff"))
    assert queries.search_text(ws, "zebra").hits == []
    assert [h.id for h in queries.search_text(ws, "yak").hits] == ["L-0001"]
    with sqlite3.connect(ws.index_file) as conn:
        for table in ("learnings_fts", "learnings_trigram"):
            rows = conn.execute(f"SELECT rowid, id FROM {table} ORDER BY id").fetchall()
            linked = conn.execute(
                f"SELECT COUNT(*) FROM {table} f JOIN learnings_index l ON l.rowid = f.rowid"
                " WHERE l.id = f.id"
            ).fetchone()[0]
            assert [r[1] for r in rows] == ["L-0001", "L-0002"]
            assert linked == 2


def test_the_one_number_is_the_same_in_every_process(workspace: Path) -> None:
    """Each hook call is a new process: a fold that used str hashing (salted per process)
    would send every read down the slow path."""
    import subprocess
    import sys

    ws = Workspace(workspace)
    for n in range(3):
        add(ws, f"lesson {n}")
    probe = (
        "import sys; from orbit_learnings.index.freshness import scan;"
        "from orbit_learnings.store.workspace import Workspace;"
        "print(scan(Workspace(sys.argv[1])).quick)"
    )
    numbers = {
        subprocess.run(
            [sys.executable, "-c", probe, str(workspace)],
            env={**os.environ, "PYTHONHASHSEED": seed},
            capture_output=True,
            text=True,
            check=True,
        ).stdout.strip()
        for seed in ("1", "2", "3")
    }
    assert len(numbers) == 1 and numbers != {""}


def test_votes_are_reread_only_when_their_sidecar_changed(
    workspace: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from orbit_learnings.store import votes as votes_module

    ws = Workspace(workspace)
    add(ws, "first"), add(ws, "second")
    store.add_vote(ws, "L-0001", "model-a", "T-1")
    old = 1_700_000_000_000_000_000
    for path in ws.learnings_dir.glob("*/*"):
        os.utime(path, ns=(old, old))
    wait_until_settled(ws.root)
    queries.list_learnings(ws)  # settles every signature
    read: list[str] = []
    real = votes_module.read_votes

    def counting(
        bundle: str, folder: str, display: str
    ) -> tuple[list[votes_module.Vote], list[Problem]]:

        read.append(folder)
        return real(bundle, folder, display)

    monkeypatch.setattr(votes_module, "read_votes", counting)
    assert queries.list_learnings(ws).hits[0].vote_count == 1
    assert read == []
    store.add_vote(ws, "L-0002", "model-a", "T-2")
    store.add_vote(ws, "L-0002", "model-b", "T-2")
    counts = {h.id: h.vote_count for h in queries.list_learnings(ws).hits}
    assert counts == {"L-0001": 1, "L-0002": 2}
    assert read == ["L-0002"]


def test_vectors_of_another_model_are_stale_not_compared(workspace: Path) -> None:
    """A store embedded by one model and read by another (a personal store, a model
    upgrade) must re-embed, never multiply vectors of two dimensions."""
    from orbit_learnings.index import vectors

    ws = Workspace(workspace)
    add(ws, "Cache keys include the tenant")
    with index.open_fresh(ws) as fresh:
        ((learning_id, digest, _),) = vectors.missing(fresh.conn, "model-a")
        vectors.store(fresh.conn, [(learning_id, digest, b"\0" * 16)])
        assert vectors.missing(fresh.conn, "model-a") == []
        assert [i for i, _ in vectors.current(fresh.conn, ("active",), "model-a")] == [learning_id]
        assert vectors.current(fresh.conn, ("active",), "model-b") == []
        assert [i for i, _, _ in vectors.missing(fresh.conn, "model-b")] == [learning_id]


def test_a_parallel_rebuild_indexes_exactly_what_a_serial_one_does(
    workspace: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Forked workers parse large stores; what they hand back must index identically."""
    from orbit_learnings.index import parallel

    ws = Workspace(workspace)
    for n in range(12):
        learning = store.create_learning(
            ws, store.NewLearning(f"Lesson number {n}", Scope([f"src/m{n}/**"], ["t"]))
        )
        store.add_vote(ws, learning.id, "claude", f"T-{n}")
    broken = store.learning_file(ws, "L-0005")
    broken.write_text(broken.read_text().replace("status: active", "status: wobbly"))

    def dump() -> tuple[list[tuple[object, ...]], list[str]]:
        problems = index.validate(ws)
        with index.open_fresh(ws):
            pass
        conn = sqlite3.connect(workspace / ".orbit/state/index.sqlite3")
        rows = conn.execute("SELECT id, summary FROM learnings_index ORDER BY id").fetchall()
        rows += conn.execute("SELECT learning_id, task_id FROM votes ORDER BY 1, 2").fetchall()
        rows += conn.execute(
            "SELECT id FROM learnings_fts WHERE learnings_fts MATCH 'lesson'"
        ).fetchall()
        conn.close()
        return rows, [str(p) for p in problems]

    monkeypatch.setattr(parallel, "PARALLEL_FROM", 10**9)
    serial = dump()
    (workspace / ".orbit/state/index.sqlite3").unlink()
    monkeypatch.setattr(parallel, "PARALLEL_FROM", 2)
    monkeypatch.setattr(parallel, "CHUNK", 5)
    if len(os.sched_getaffinity(0)) > 1:
        assert parallel._workers(12) >= 2  # the workers really ran
    assert dump() == serial
    assert any("status must be one of" in p for p in serial[1])
    assert len(serial[0]) == 11 + 11 + 11


@pytest.mark.parametrize(
    "stamps",
    [
        ["2024-01-01T00:00:00Z", "2025-06-01T12:00:00Z", "2025-06-01T12:00:00Z"],
        ["2024-01-01T00:00:00Z", "2999-01-01T00:00:00Z"],  # one stamped in the future
    ],
)
def test_vote_scores_follow_the_stamps_whatever_half_life_reads_them(
    workspace: Path, monkeypatch: pytest.MonkeyPatch, stamps: list[str]
) -> None:
    """The index keeps a digest of each learning's votes, made with the half-life of the
    process that indexed them; a reader with another half-life, or a vote newer than now,
    must still get the score the stamps give."""
    from datetime import UTC, datetime

    from orbit_learnings.core import ranking
    from orbit_learnings.core.ranking import vote_score

    held = datetime(2026, 11, 26, 12, 0, tzinfo=UTC)  # every read ages the votes alike
    monkeypatch.setattr(ranking, "clock", lambda: held)
    ws = Workspace(workspace)
    add(ws)
    rows_written = [
        {"learning_id": "L-0001", "voter_model": f"m{n}", "voted_at": at, "task_id": f"T{n}"}
        for n, at in enumerate(stamps)
    ]
    (ws.bundle_dir("L-0001") / "votes.jsonl").write_text(
        "".join(json.dumps(r) + "\n" for r in rows_written)
    )
    index.sync(ws)
    for life in ("180", "30", "0"):
        monkeypatch.setenv("ORBIT_LEARNING_VOTE_HALF_LIFE_DAYS", life)
        (hit,) = queries.list_learnings(ws).hits
        assert hit.vote_count == len(stamps)
        assert hit.vote_score == pytest.approx(vote_score(stamps, None, float(life)), rel=1e-9)
        (found,) = queries.search_text(ws, "Lesson").hits
        assert found.vote_score == pytest.approx(hit.vote_score, rel=1e-9)


def test_a_settled_rewrite_that_restores_the_modification_time_is_seen(workspace: Path) -> None:
    """`cp -p`, `touch -r` and `rsync -t` set a file's mtime back; with the same size and
    inode the mtime alone would hide the edit. The change time cannot be set back."""
    ws = Workspace(workspace)
    add(ws, "alpha")
    path = store.learning_file(ws, "L-0001")
    old = 1_700_000_000_000_000_000
    os.utime(path, ns=(old, old))
    _settle(ws)
    assert queries.list_learnings(ws).hits[0].summary == "alpha"
    before = path.stat()
    path.write_text(path.read_text().replace("alpha", "omega"))  # in place: same inode
    os.utime(path, ns=(old, old))
    after = path.stat()
    assert (after.st_ino, after.st_size, after.st_mtime_ns) == (
        before.st_ino,
        before.st_size,
        before.st_mtime_ns,
    )
    _settle(ws)  # not caught by the racy rule: only the change time tells
    assert queries.list_learnings(ws).hits[0].summary == "omega"


@pytest.mark.parametrize(
    ("stamp", "age_ns", "racy"),
    [
        (1_700_000_000_123_456_789, 50_000_000, True),  # fine timestamps: a 0.1 s tick
        (1_700_000_000_123_456_789, 150_000_000, False),
        (1_700_000_000_000_000_000, 150_000_000, True),  # whole seconds: a 1 s tick
        (1_700_000_000_000_000_000, 1_100_000_000, False),
    ],
)
def test_the_racy_window_is_the_filesystems_tick(stamp: int, age_ns: int, racy: bool) -> None:
    from orbit_learnings.index.freshness import is_racy

    assert is_racy(stamp, stamp + age_ns) is racy
