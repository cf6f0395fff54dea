"""Anchors judged on the syntax tree (Python) and on whitespace-free tokens (elsewhere): what
a formatter does is never drift, and a definition that still exists decides its anchor."""

from __future__ import annotations

from orbit_learnings.core.anchors.locate import (
    BROKEN,
    DRIFTED,
    MOVED,
    OK,
    locate,
    record_anchor,
    record_symbol,
)
from orbit_learnings.core.anchors.record import Anchor, anchor_from_mapping

DAY = "2026-10-02"

BEFORE_BLACK = """import zlib


def ready(conn, timeout):
    if conn.sock is not None and \\
            conn.is_connected:
        return (conn.sock)
    if (timeout):
        wait(timeout)
    return conn.wait_for_read(timeout=timeout) and conn.sock.pending() > 0 or conn.closed


def after():
    return 1
"""

AFTER_BLACK = """import zlib


def ready(conn, timeout):
    if conn.sock is not None and conn.is_connected:
        return conn.sock
    if timeout:
        wait(timeout)
    return (
        conn.wait_for_read(timeout=timeout) and conn.sock.pending() > 0
        or conn.closed
    )


def after():
    return 1
"""


def test_black_joining_a_continuation_and_moving_parentheses_is_not_drift() -> None:
    symbol = record_symbol("io.py", BEFORE_BLACK, "ready", recorded=DAY)
    found = locate(symbol, AFTER_BLACK)
    assert (found.state, found.start, found.end) == (OK, 4, 12)
    lines = record_anchor("io.py", BEFORE_BLACK, 4, 10, recorded=DAY)
    found = locate(lines, AFTER_BLACK)
    assert (found.state, found.start, found.end) == (MOVED, 4, 12)


def test_a_joined_backslash_continuation_alone_is_found_in_place() -> None:
    anchor = record_anchor("io.py", BEFORE_BLACK, 5, 7, recorded=DAY)  # the first `if`
    found = locate(anchor, AFTER_BLACK)
    assert (found.state, found.start, found.end) == (MOVED, 5, 6)


def test_a_function_black_shrank_inside_its_cited_range_moved_to_its_new_lines() -> None:
    """The range still holds the same text, but the function now ends two lines earlier:
    its lines are 4-5 (`anchors --fix` rewrites them), not 4-7."""
    before = "x = 1\n\n\ndef f(a):\n    return g(\n        a\n    )\n\n\ny = 2\n"
    after = "x = 1\n\n\ndef f(a):\n    return g(a)\n\n\n\n\ny = 2\n"
    anchor = record_anchor("f.py", before, 4, 7, recorded=DAY)
    found = locate(anchor, after)
    assert (found.state, found.start, found.end) == (MOVED, 4, 5)
    assert locate(anchor.moved_to("f.py", 4, 5), after).state == OK  # after the fix


def test_two_lines_joined_into_one_match_outside_python() -> None:
    before = "const a = 1;\nsend(order,\n     retries);\nconst b = 2;\n"
    after = "const a = 1;\nsend(order, retries);\nconst b = 2;\n"
    anchor = record_anchor("api.js", before, 2, 3, recorded=DAY)
    found = locate(anchor, after)
    assert (found.state, found.start, found.end) == (MOVED, 2, 2)


def test_two_lines_joined_into_one_match_in_python() -> None:
    before = "def f(order):\n    x = send(order,\n             retries=3)\n    return x\n"
    after = "def f(order):\n    x = send(order, retries=3)\n    return x\n"
    anchor = record_anchor("api.py", before, 2, 3, recorded=DAY)
    found = locate(anchor, after)
    assert (found.state, found.start, found.end) == (MOVED, 2, 2)


def test_a_docstring_black_requoted_and_re_indented_is_not_drift() -> None:
    before = 'class HTTPWarning(Warning):\n    "Base warning used by this module.   "\n    pass\n'
    after = 'class HTTPWarning(Warning):\n    """Base warning used by this module."""\n\n    pass\n'
    anchor = record_symbol("exc.py", before, "HTTPWarning", recorded=DAY)
    assert locate(anchor, after).state == OK
    assert locate(anchor, after.replace("Base", "Root")).state == DRIFTED


def test_a_real_change_under_the_formatting_is_still_drift() -> None:
    anchor = record_symbol("io.py", BEFORE_BLACK, "ready", recorded=DAY)
    changed = AFTER_BLACK.replace("conn.sock.pending() > 0", "conn.sock.pending() >= 0")
    assert locate(anchor, changed).state == DRIFTED


DECODERS = """class DeflateDecoder:
    def decode(self, data):
        if not data:
            return data
        return self._obj.decompress(data)


class GZipDecoder:
    def decode(self, data):
        if not data:
            return data
        if self._first_try:
            self._first_try = False
        return self._obj.decompress(data)
"""


def decoders_after() -> str:
    """DeflateDecoder.decode gained the branch GZipDecoder.decode had, which lost it: the
    old text of the first is now the second's, yet the first still exists."""
    deflate = DECODERS.split("\n\n\nclass GZipDecoder")[0]
    new_deflate = deflate.replace(
        "            return data\n",
        "            return data\n        if self._first_try:\n            self._first_try = False\n",
    )
    gzip = "class GZipDecoder:\n    def decode(self, data):\n        if not data:\n"
    gzip += "            return data\n        return self._obj.decompress(data)\n"
    return f"{new_deflate}\n\n\n{gzip}"


def test_a_changed_method_is_drifted_not_moved_to_a_twin_holding_its_old_text() -> None:
    after = decoders_after()
    for anchor in (
        record_symbol("dec.py", DECODERS, "DeflateDecoder.decode", recorded=DAY),
        record_anchor("dec.py", DECODERS, 2, 5, recorded=DAY),  # the whole method by lines
    ):
        found = locate(anchor, after)
        assert found.state == DRIFTED, anchor
        assert found.start >= 2 and found.end <= 7  # where DeflateDecoder.decode is now


def test_an_unchanged_block_inside_a_method_that_changed_elsewhere_is_ok() -> None:
    anchor = record_anchor("dec.py", DECODERS, 3, 4, recorded=DAY)
    found = locate(anchor, decoders_after())
    assert (found.state, found.start, found.end) == (OK, 3, 4)


def test_a_definition_gone_by_its_name_is_broken_though_similar_code_remains() -> None:
    """`readable` left the class; a similar method under another name is not the one the
    lesson is about (and one that merely moved, with its class renamed, is found)."""
    before = "class Response:\n    def readable(self):\n        self.check()\n        return True\n"
    anchor = record_symbol("r.py", before, "Response.readable", recorded=DAY)
    similar = before.replace("def readable", "def seekable")
    found = locate(anchor, similar)
    assert found.state == BROKEN
    assert "Response.readable" in found.reason
    renamed_class = "import io\n\n\nclass BaseResponse:\n" + before.split("\n", 1)[1]
    lines = record_anchor("r.py", before, 2, 4, recorded=DAY)  # within Response.readable
    found = locate(lines, renamed_class)
    assert (found.state, found.start, found.end) == (MOVED, 5, 7)


def test_a_deleted_definition_with_no_twin_is_broken() -> None:
    anchor = record_symbol("io.py", BEFORE_BLACK, "ready", recorded=DAY)
    assert locate(anchor, "def after():\n    return 1\n").state == BROKEN


def test_a_python_anchor_records_its_statements_syntax() -> None:
    anchor = record_symbol("io.py", BEFORE_BLACK, "ready", recorded=DAY)
    stored = anchor.to_dict()
    assert len(str(stored["syntax"]).split()) == 1
    again, problems = anchor_from_mapping(stored, "anchors[0]")
    assert not problems and again == anchor
    assert Anchor.stored(stored) == anchor  # as the index keeps it
    assert "syntax" not in record_anchor("a.js", "x();\ny();\n", 1, 2, recorded=DAY).to_dict()
    bad, problems = anchor_from_mapping(stored | {"syntax": "zz"}, "anchors[0]")
    assert bad is None and problems[0][0] == "syntax"
