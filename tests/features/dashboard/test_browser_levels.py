"""The page filters by level, as `--level` does, and marks a learning that is not the
project's own (the org's, or the reader's personal one) in its row."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.features.dashboard.conftest import TOKEN, needs_chromium, start_dashboard
from tests.testing import run_orbit

pytestmark = needs_chromium


@pytest.fixture
def levels(browser: Any, example: Path) -> Iterator[Any]:
    mine = ["learning", "add", "--summary", "I always rebase before a push", "--tag", "git"]
    assert run_orbit(*mine, "--level", "user", cwd=example).code == 0
    proc, url = start_dashboard(example)
    context = browser.new_context(viewport={"width": 1400, "height": 900})
    tab = context.new_page()
    tab.goto(f"{url}/?level=user#token={TOKEN}")
    tab.wait_for_selector("[data-testid=row]")
    yield tab
    context.close()
    proc.terminate()
    proc.wait(timeout=10)


def ids(tab: Any) -> list[str]:
    return [str(r.get_attribute("data-id")) for r in tab.query_selector_all("[data-testid=row]")]


def test_the_level_filter_keeps_one_level_and_the_row_says_which(levels: Any) -> None:
    assert ids(levels) == ["U-0001"]  # read from the URL, as every filter is
    assert levels.inner_text("[data-testid=level-badge]") == "personal"
    levels.select_option("[data-testid=level]", "project")
    levels.wait_for_function("!location.search.includes('level=user')")
    levels.wait_for_selector("[data-testid=row][data-id^='L-']")
    shown = ids(levels)
    assert shown and all(i.startswith("L-") for i in shown)
    assert "level=project" in levels.evaluate("location.search")
    assert not levels.query_selector("[data-testid=level-badge]")
