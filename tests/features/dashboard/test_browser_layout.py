"""The page's layout, measured in Chromium: a 1280 x 900 laptop and a 390 px phone.

Measured, not looked at: the table's width against its box, each summary's height in
lines, the rows that fit, and the list's scroll position before and after a learning
is opened and closed on a phone.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from tests.features.dashboard.conftest import TOKEN, needs_chromium

pytestmark = needs_chromium
PHONE = {"viewport": {"width": 390, "height": 844}, "has_touch": True, "is_mobile": True}


@pytest.fixture
def laptop(browser: Any, server: str) -> Iterator[Any]:
    context = browser.new_context(viewport={"width": 1280, "height": 900})
    tab = context.new_page()
    tab.goto(f"{server}/#token={TOKEN}")
    tab.wait_for_selector("[data-testid=row]")
    yield tab
    context.close()


@pytest.fixture
def phone(browser: Any, server: str) -> Iterator[Any]:
    context = browser.new_context(**PHONE)
    tab = context.new_page()
    tab.goto(f"{server}/#token={TOKEN}")
    tab.wait_for_selector("[data-testid=row]")
    yield tab
    context.close()


MEASURE = """() => {
  const wrap = document.querySelector("[data-testid=table-wrap]");
  const table = wrap.querySelector("table");
  const line = parseFloat(getComputedStyle(document.body).lineHeight);
  const status = [...table.querySelectorAll("th")].pop().getBoundingClientRect();
  const cells = [...document.querySelectorAll("[data-testid=row] td:nth-child(3)")];
  const text = (cell) => {  // the summary's own height, padding and badges left out
    const style = getComputedStyle(cell);
    const first = cell.firstElementChild || cell;
    return first === cell ? cell.clientHeight - parseFloat(style.paddingTop) - parseFloat(style.paddingBottom)
                          : first.getBoundingClientRect().height;
  };
  return {
    box: wrap.clientWidth, table: table.getBoundingClientRect().width, scroll: wrap.scrollWidth,
    statusRight: status.right, boxRight: wrap.getBoundingClientRect().right, line,
    lines: cells.map((cell) => text(cell) / line),
    clamped: cells.filter((c) => c.firstElementChild && c.firstElementChild.scrollHeight > c.firstElementChild.clientHeight + 1).length,
    rows: [...document.querySelectorAll("[data-testid=row]")].map((r) => r.getBoundingClientRect()),
  };
}"""


def test_at_1280_the_table_fits_its_box_with_summaries_of_at_most_4_lines(laptop: Any) -> None:
    laptop.fill("[data-testid=search]", "")  # settled: the first answer is on the page
    found = laptop.evaluate(MEASURE)
    assert found["table"] <= found["box"] + 0.5 and found["scroll"] <= found["box"], found
    assert found["statusRight"] <= found["boxRight"]  # the Status column is not clipped
    assert max(found["lines"]) <= 4.05, found["lines"]
    assert found["clamped"] >= 1  # the store has a summary longer than 4 lines: it is cut
    tallest = max(row["height"] for row in found["rows"])
    assert tallest <= 5 * found["line"] + 16, tallest  # no column makes a row taller
    in_view = [row for row in found["rows"] if row["bottom"] <= 900]
    assert len(in_view) >= 7, len(in_view)  # it was 4 or 5, with summaries of 6-8 lines


def test_on_a_phone_a_learning_opens_over_the_list_and_closing_keeps_the_place(
    phone: Any,
) -> None:
    assert not phone.is_visible("[data-testid=keys-hint]")  # no keyboard to press j/k on
    assert not phone.is_visible("aside")  # no empty "select a learning" box below the cards
    row = phone.locator("[data-testid=row]").nth(10)
    row.scroll_into_view_if_needed()
    before = phone.evaluate("window.scrollY")
    assert before > 1000  # far down the cards
    learning_id = row.get_attribute("data-id")
    row.locator("td.id").tap()
    phone.wait_for_selector("[data-testid=body]")
    assert phone.evaluate("window.scrollY") == before  # no jump to a detail below the list
    sheet = phone.locator("aside").bounding_box()
    seen = phone.evaluate("[innerWidth, innerHeight, document.documentElement.clientHeight]")
    assert (sheet["x"], sheet["y"], sheet["width"]) == (0, 0, 390), (sheet, seen)
    assert sheet["height"] >= seen[2] - 1, (sheet, seen)  # the whole screen
    title = phone.inner_text("aside h2")
    assert title.startswith(f"{learning_id} · ")
    segment = phone.locator(f"[data-testid=file] .seg >> text={learning_id}")
    assert segment.evaluate("s => s.getClientRects().length") == 1  # never "L-00" / "13"
    phone.tap("[data-testid=close]")
    phone.wait_for_selector("aside", state="hidden")
    assert phone.evaluate("window.scrollY") == before  # back where the reader was
    assert "open=" not in phone.evaluate("location.search")


def test_a_laptop_shows_the_keyboard_hint_and_the_detail_beside_the_list(laptop: Any) -> None:
    assert laptop.is_visible("[data-testid=keys-hint]")
    laptop.click("[data-testid=row] td.id")
    laptop.wait_for_selector("[data-testid=body]")
    table = laptop.locator("[data-testid=table-wrap]").bounding_box()
    aside = laptop.locator("aside").bounding_box()
    assert aside["x"] >= table["x"] + table["width"]  # beside, not over it
