"""Anchors, pure: citing lines, and finding them again after the edits code really gets."""

from __future__ import annotations

import pytest

from orbit_learnings.core.anchors.locate import (
    BROKEN,
    DRIFTED,
    MOVED,
    OK,
    locate,
    record_anchor,
    record_symbol,
)
from orbit_learnings.core.anchors.record import Anchor, anchor_from_mapping, parse_request
from orbit_learnings.core.globs import compile_glob, literal_glob

SERVICE = """import os


class OrderService:
    def create(self, order):
        return order

    @retry(times=3)
    def update(self, order):
        # the version check is the whole point
        if order.version != self.version:
            raise Conflict(order.id)
        self.repo.save(order, retries=3, timeout=5)
        return order
"""
DAY = "2026-10-02"


def cite_update() -> Anchor:
    return record_symbol("svc.py", SERVICE, "OrderService.update", recorded=DAY)


def test_a_symbol_anchor_cites_the_definition_with_its_decorators() -> None:
    anchor = record_symbol("svc.py", SERVICE, "OrderService.update", recorded=DAY)
    assert (anchor.start, anchor.end, anchor.symbol) == (8, 14, "OrderService.update")
    assert len(anchor.line_hashes) == 6  # the comment line does not count


def test_a_line_anchor_knows_the_function_around_it() -> None:
    anchor = record_anchor("svc.py", SERVICE, 11, 12, recorded=DAY)
    assert (anchor.symbol, anchor.within) == (None, "OrderService.update")
    assert record_anchor("notes.md", "a\nb\n", 1, 2, recorded=DAY).within is None


def test_unchanged_code_is_ok_in_place() -> None:
    anchor = cite_update()
    found = locate(anchor, SERVICE)
    assert (found.state, found.start, found.end, found.similarity) == (OK, 8, 14, 1.0)


def test_code_inserted_above_moves_a_line_anchor_by_as_many_lines() -> None:
    anchor = record_anchor("svc.py", SERVICE, 8, 14, recorded=DAY)
    found = locate(anchor, "import sys\nimport re\n\n" + SERVICE)
    assert (found.state, found.start, found.end) == (MOVED, 11, 17)


def test_a_symbol_anchor_is_ok_wherever_its_unchanged_definition_sits() -> None:
    found = locate(cite_update(), "import sys\nimport re\n\n" + SERVICE)
    assert (found.state, found.start, found.end) == (OK, 11, 17)


def test_a_function_moved_below_another_is_found_where_it_went() -> None:
    head, update = SERVICE.split("    @retry")
    moved = head.replace("class OrderService:\n", "class OrderService:\n    @retry" + update)
    anchor = record_anchor("svc.py", SERVICE, 11, 13, recorded=DAY)
    found = locate(anchor, moved)
    assert found.state == MOVED
    assert moved.splitlines()[found.start - 1].strip() == "if order.version != self.version:"


def test_reformatting_is_not_a_change() -> None:
    """What black does: re-indent, explode a call with a trailing comma, swap quotes."""
    anchor = cite_update()
    black = SERVICE.replace(
        "self.repo.save(order, retries=3, timeout=5)",
        "self.repo.save(\n            order,\n            retries=3,\n            timeout=5,\n        )",
    ).replace("# the version check is the whole point", "# reworded comment")
    found = locate(anchor, black)
    assert found.state in (OK, MOVED) and found.similarity == 1.0
    assert (found.start, found.end) == (8, 18)


def test_an_edit_inside_the_lines_is_drift_with_a_measured_similarity() -> None:
    anchor = cite_update()
    found = locate(anchor, SERVICE.replace("retries=3", "retries=1"))
    assert found.state == DRIFTED
    assert 0.5 < found.similarity < 1.0
    assert (found.start, found.end) == (8, 14)


def test_a_rewritten_function_whose_name_survives_has_drifted() -> None:
    head = SERVICE.split("    @retry")[0]
    rewritten = head + "    def update(self, order):\n        return self.repo.upsert(order)\n"
    found = locate(cite_update(), rewritten)
    assert found.state == DRIFTED
    assert found.start == 8


def test_a_deleted_function_or_file_is_broken() -> None:
    head = SERVICE.split("    @retry")[0]
    assert locate(cite_update(), head).state == BROKEN
    assert locate(cite_update(), None).state == BROKEN


def test_a_renamed_file_with_the_same_lines_is_moved() -> None:
    found = locate(cite_update(), SERVICE, path="orders/service.py")
    assert (found.state, found.path) == (MOVED, "orders/service.py")


@pytest.mark.parametrize(
    ("spec", "expected"),
    [
        ("src/a.py:120-140", ("src/a.py", 120, 140, None)),
        ("src/a.py:7", ("src/a.py", 7, 7, None)),
        ("C:/code/a.py:3-4", ("C:/code/a.py", 3, 4, None)),
        ("src/a.py::OrderService.update", ("src/a.py", 0, 0, "OrderService.update")),
    ],
)
def test_anchor_forms(spec: str, expected: tuple[object, ...]) -> None:
    request = parse_request(spec)
    assert (request.path, request.start, request.end, request.symbol) == expected


@pytest.mark.parametrize("spec", ["src/a.py", "src/a.py:9-3", "src/a.py:0", "::X", "a.py:1-400"])
def test_bad_anchor_forms_say_why(spec: str) -> None:
    with pytest.raises(ValueError, match="--anchor"):
        parse_request(spec)


def test_citing_lines_that_hold_nothing_or_do_not_exist_is_refused() -> None:
    with pytest.raises(ValueError, match="only blank lines or comments"):
        record_anchor("svc.py", SERVICE, 2, 3, recorded=DAY)
    with pytest.raises(ValueError, match="has 14 lines"):
        record_anchor("svc.py", SERVICE, 10, 90, recorded=DAY)
    with pytest.raises(ValueError, match="no definition"):
        record_symbol("svc.py", SERVICE, "OrderService.delete", recorded=DAY)


def test_a_stored_anchor_round_trips_and_bad_fields_are_named() -> None:
    anchor = cite_update()
    again, problems = anchor_from_mapping(anchor.to_dict(), "anchors[0]")
    assert problems == [] and again == anchor
    broken = anchor.to_dict() | {"lines": "x", "fingerprint": "zz"}
    _, problems = anchor_from_mapping(broken, "anchors[0]")
    assert {key for key, _ in problems} == {"lines", "fingerprint"}


def test_an_anchor_path_as_scope_means_exactly_that_file() -> None:
    compiled = compile_glob(literal_glob("app/[slug]/page.tsx"))
    import re

    assert re.match(compiled.regex, "app/[slug]/page.tsx")
    assert not re.match(compiled.regex, "app/s/page.tsx")
    assert not re.match(compile_glob(literal_glob("setup.py")).regex, "pkg/setup.py")


def test_trailing_comments_are_not_code_but_strings_holding_markers_are() -> None:
    anchor = record_anchor("svc.py", SERVICE, 13, 13, recorded=DAY)
    commented = SERVICE.replace("timeout=5)", "timeout=5)  # the gateway cuts at 10 s")
    assert locate(anchor, commented).state == OK
    colours = 'BG = "#fff"  # page\nFG = "#111"\n'
    colour = record_anchor("c.py", colours, 1, 2, recorded=DAY)
    assert locate(colour, colours.replace("#fff", "#000")).state == DRIFTED
    sql = record_anchor("m.sql", "WHERE status <> 'x'; -- why\n", 1, 1, recorded=DAY)
    assert locate(sql, "WHERE status <> 'x'; -- reworded\n").state == OK


def test_an_anchor_reads_back_from_its_stored_form() -> None:
    for anchor in (cite_update(), record_anchor("svc.py", SERVICE, 11, 11, recorded=DAY)):
        assert Anchor.stored(anchor.to_dict()) == anchor
        assert Anchor.stored(anchor.to_dict()).within == anchor.within
