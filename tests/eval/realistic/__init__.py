"""The realistic evaluation set: a monorepo's learnings, queries by kind, injection tasks.

Written and labelled before the ranking was tuned against it (see README.md here).
Labels refer to learnings by `key`; `build_store` writes the learnings into a real
store (with their votes and ages) and returns key -> learning id.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
ANSWERABLE_KINDS = (
    "paraphrase",
    "symptom",
    "error",
    "identifier",
    "typo",
    "oneword",
    "long",
    "acronym",
)


@dataclass(frozen=True)
class EvalLearning:
    key: str
    summary: str
    body: str
    paths: list[str]
    tags: list[str]
    votes: int = 0
    age_days: int = 30
    group: str | None = None


@dataclass(frozen=True)
class EvalQuery:
    text: str
    kind: str
    expected: list[str]


@dataclass(frozen=True)
class EvalTask:
    title: str
    description: str
    context_files: list[str]
    must: list[str]
    acceptable: list[str] = field(default_factory=list)
    tags: list[str] = field(default_factory=list)

    @property
    def text(self) -> str:
        return f"{self.title}\n{self.description}"


@dataclass(frozen=True)
class EvalSet:
    learnings: list[EvalLearning]
    queries: list[EvalQuery]
    tasks: list[EvalTask]


def _read(
    folder: Path, name: str
) -> list[dict[str, Any]]:  # parsed YAML: the dataclasses check the keys
    from ruamel.yaml import YAML

    data = YAML(typ="safe").load((folder / name).read_text(encoding="utf-8"))
    assert isinstance(data, list), name
    return data


def load(folder: Path = HERE) -> EvalSet:
    """A set in this schema: this one, or another folder of the same files
    (`tests/eval/heldout/`, and `tests/eval/tuning2/`, which has no tasks)."""
    learnings = [EvalLearning(**item) for item in _read(folder, "learnings.yaml")]
    queries = [EvalQuery(**item) for item in _read(folder, "queries.yaml")]
    has_tasks = (folder / "tasks.yaml").exists()  # a search-only set (tuning2) has none
    tasks = [EvalTask(**item) for item in _read(folder, "tasks.yaml")] if has_tasks else []
    keys = {item.key for item in learnings}
    assert len(keys) == len(learnings), "duplicate learning keys"
    for query in queries:
        assert set(query.expected) <= keys, query.text
        assert query.kind in (*ANSWERABLE_KINDS, "noanswer"), query.kind
    for task in tasks:
        assert set(task.must) | set(task.acceptable) <= keys, task.title
    return EvalSet(learnings, queries, tasks)


def extra_queries(folder: Path = HERE) -> list[EvalQuery]:
    """The tuning-only queries of `queries_extra.yaml` (for fitting the confidence model;
    the reported figures stay on `queries.yaml`)."""
    keys = {item["key"] for item in _read(folder, "learnings.yaml")}
    queries = [EvalQuery(**item) for item in _read(folder, "queries_extra.yaml")]
    for query in queries:
        assert set(query.expected) <= keys, query.text
        assert query.kind in (*ANSWERABLE_KINDS, "noanswer"), query.kind
    return queries


_STAMP = re.compile(r"^(created_at|updated_at): .*$", re.MULTILINE)


def build_store(root: Path, learnings: list[EvalLearning]) -> dict[str, str]:
    """Write every learning (votes and age included) into a new store at `root`."""
    from orbit_learnings.core.scope import Scope
    from orbit_learnings.core.timestamps import format_ts
    from orbit_learnings.store import bundles
    from orbit_learnings.store.setup import init_store
    from orbit_learnings.store.workspace import Workspace

    init_store(root)
    ws = Workspace(root)
    ids: dict[str, str] = {}
    now = datetime.now(UTC)
    for item in learnings:
        new = bundles.NewLearning(item.summary, Scope(item.paths, item.tags), item.body)
        learning_id = bundles.create_learning(ws, new).id
        ids[item.key] = learning_id
        path = bundles.learning_file(ws, learning_id)
        stamp = format_ts(now - timedelta(days=item.age_days))
        text = path.read_text(encoding="utf-8")
        path.write_text(_STAMP.sub(rf"\1: {stamp}", text), encoding="utf-8")
        for n in range(item.votes):
            bundles.add_vote(ws, learning_id, f"eval-model-{n}", f"eval-task-{n}")
    return ids
