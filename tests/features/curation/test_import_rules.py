"""Importing a monorepo's real-shaped rule files keeps every rule, whole, with its scope.

The fixture (fixtures/monorepo) and its labels (expected.yaml) were written before the
importer was rewritten, in the shapes public repositories use: nested AGENTS.md and
CLAUDE.md, wrapped bullets, numbered rules, sub-bullets, prose rules, code fences,
Cursor globs as strings, comma lists, YAML lists and unquoted brace globs.
"""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from tests.testing import CliRunner

FIXTURE = Path(__file__).parent / "fixtures" / "monorepo"


def labels() -> list[dict[str, object]]:
    from ruamel.yaml import YAML

    data = YAML(typ="safe").load((FIXTURE / "expected.yaml").read_text(encoding="utf-8"))
    assert isinstance(data, list)
    return data


def rule_files() -> list[str]:
    return sorted({str(entry["file"]) for entry in labels()})


@pytest.fixture
def monorepo(workspace: Path) -> Path:
    for name in rule_files():
        target = workspace / name
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(FIXTURE / name, target)
    return workspace


def whole(candidate: dict[str, object]) -> str:
    return f"{candidate['summary']}\n{candidate['body']}"


def test_every_labelled_rule_is_imported_once_whole_and_scoped(
    monorepo: Path, orbit: CliRunner
) -> None:
    outcome = orbit("learning", "import", *rule_files(), "--json")
    assert outcome.code == 0, outcome.err
    files = {f["file"]: f for f in outcome.json()["files"]}
    problems = []
    for entry in labels():
        found = [
            c
            for c in files[entry["file"]]["candidates"]
            if str(c["summary"]).startswith(str(entry["starts"]))
        ]
        if len(found) != 1:
            problems.append(f"{entry['file']}: {len(found)} rules start {entry['starts']!r}")
            continue
        rule = found[0]
        text = whole(rule).split("\n(Section:")[0].rstrip()
        if not text.endswith(str(entry["ends"])):
            problems.append(f"{entry['file']}: {entry['starts']!r} cut: ...{text[-60:]!r}")
        if rule["paths"] != entry["paths"]:
            problems.append(f"{entry['file']}: {entry['starts']!r} scope {rule['paths']}")
    for name, source in files.items():
        expected = sum(1 for entry in labels() if entry["file"] == name)
        if len(source["candidates"]) != expected:
            problems.append(f"{name}: {len(source['candidates'])} rules, labelled {expected}")
    assert problems == [], "\n".join(problems)


def test_applied_rules_keep_their_source_as_evidence_and_nothing_scoped_turns_global(
    monorepo: Path, orbit: CliRunner
) -> None:
    applied = orbit("learning", "import", *rule_files(), "--apply", "--json").json()
    created = [c for c in applied["candidates"] if c["created"]]
    assert len(created) == len(labels())  # Lint and Typecheck are not duplicates
    scoped = {str(e["starts"]) for e in labels() if e["paths"]}
    for candidate in created:
        record = orbit("learning", "show", candidate["created"], "--json").json()
        assert record["evidence"][0]["kind"] == "file"
        assert "Imported from" not in record["body"]
        if any(str(candidate["summary"]).startswith(s) for s in scoped):
            assert record["scope"]["paths"], candidate["summary"]


def test_the_preview_names_each_file_and_what_was_left_out(
    monorepo: Path, orbit: CliRunner
) -> None:
    outcome = orbit("learning", "import", "AGENTS.md", "web/AGENTS.md")
    assert outcome.code == 0
    assert "AGENTS.md (scope: everywhere):" in outcome.out
    assert "web/AGENTS.md (scope: web/**):" in outcome.out
    assert "left out: a task checkbox, not a rule" in outcome.out


def test_scope_forms_and_what_is_not_a_rule() -> None:
    from orbit_learnings.curation.rulefiles import file_scope, read_rules, split_globs

    assert split_globs("**/*.{ts,tsx}, src/**") == ["**/*.{ts,tsx}", "src/**"]
    assert split_globs(["a/**", " 'b/**' "]) == ["a/**", "b/**"]
    assert split_globs("") == [] and split_globs(None) == []
    assert file_scope(".cursor/rules/x.mdc", {"globs": "", "alwaysApply": True}) == []
    assert file_scope(".cursor/rules/x.mdc", {"globs": "**"}) == []
    assert file_scope("apps/web/CLAUDE.md", {}) == ["apps/web/**"]
    assert file_scope(".github/copilot-instructions.md", {}) == []
    rules, skipped = read_rules(
        "This file provides guidance to agents working in this repository.\n\n"
        "Run the linter before you push:\n\n"
        "```sh\n- not a rule\n```\n"
        "- Keep handlers thin and move logic\n  into services.\n"
        "- [x] done item\n"
    )
    assert [r.text for r in rules] == ["Keep handlers thin and move logic into services."]
    assert {s.reason for s in skipped} == {"prose, not a rule", "a task checkbox, not a rule"}
