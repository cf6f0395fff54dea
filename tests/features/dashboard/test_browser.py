"""The page, driven in headless Chromium (Debian's `chromium`, through Playwright)."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from tests.features.dashboard.conftest import needs_chromium

if TYPE_CHECKING:
    from playwright.sync_api import Page

pytestmark = needs_chromium


def row_ids(page: Page) -> list[str]:
    ids: list[str] = page.eval_on_selector_all(
        "[data-testid=row]", "rows => rows.map(r => r.dataset.id)"
    )
    return ids


def wait_rows(page: Page, predicate: Callable[[list[str]], bool]) -> list[str]:
    for _ in range(50):
        ids = row_ids(page)
        if predicate(ids):
            return ids
        page.wait_for_timeout(100)
    return row_ids(page)


def test_load_filter_search_and_path_lookup(page: Page) -> None:
    assert len(row_ids(page)) == 16
    assert "16" in page.inner_text("[data-testid=stats]")
    page.select_option("[data-testid=tag]", "database")
    assert set(wait_rows(page, lambda ids: len(ids) == 2)) == {"L-0002", "L-0013"}
    page.select_option("[data-testid=tag]", "")
    page.fill("[data-testid=search]", "redis")
    assert wait_rows(page, lambda ids: ids[:1] == ["L-0005"])[0] == "L-0005"
    badge = page.inner_text("[data-testid=row] [data-testid=match]")
    assert badge.startswith("match 0.") or badge == "match 1.00"
    page.fill("[data-testid=search]", "")
    page.fill("[data-testid=path]", "services/billing/tax.py")
    assert set(wait_rows(page, lambda ids: len(ids) == 2)) == {"L-0003", "L-0014"}


def test_detail_renders_markdown_as_text_and_supersede(page: Page, example: Path) -> None:
    page.click("[data-testid=row][data-id=L-0017]")
    page.wait_for_selector("[data-testid=body]")
    body = page.inner_text("[data-testid=body]")
    assert "<script>window.pwned = 1</script>" in body
    assert page.evaluate("window.pwned === undefined")
    assert page.inner_html("[data-testid=body]").count("<strong>bold</strong>") == 1
    page.click("[data-testid=row][data-id=L-0012]")
    page.wait_for_selector("[data-testid=supersede-by]")
    page.fill("[data-testid=supersede-by]", "L-0017")
    page.click("[data-testid=supersede]")
    page.wait_for_selector("[data-testid=detail] >> text=superseded by L-0017")
    assert (
        "superseded_by: L-0017" in (example / ".orbit/learnings/L-0012/learning.yaml").read_text()
    )
    assert "L-0012" not in wait_rows(page, lambda ids: "L-0012" not in ids)


def test_supersede_without_token_is_refused(browser: Any, server: str) -> None:
    tab = browser.new_page()
    tab.on("dialog", lambda dialog: dialog.accept("wrong-token"))
    tab.goto(server)
    tab.wait_for_selector("[data-testid=row]")
    tab.click("[data-testid=row][data-id=L-0012]")
    tab.fill("[data-testid=supersede-by]", "L-0002")
    tab.click("[data-testid=supersede]")
    tab.wait_for_selector("[data-testid=supersede-message].error")
    assert "X-Orbit-Token" in tab.inner_text("[data-testid=supersede-message]")
    tab.close()


def test_the_detail_lists_cited_code_and_its_drift(page: Page, example: Path) -> None:
    from tests.testing import run_orbit

    code = example / "services/billing/tax.py"
    code.write_text("def vat(amount):\n    return amount * 20 // 100\n", encoding="utf-8")
    added = run_orbit(
        "learning", "add", "--summary", "VAT rounds down to the cent", "--json",
        "--anchor", "services/billing/tax.py:1-2", cwd=example,
    )  # fmt: skip
    learning_id = __import__("json").loads(added.out)["id"]
    code.write_text("def vat(amount):\n    return round(amount * 0.2)\n", encoding="utf-8")
    page.reload()
    page.wait_for_selector(f"[data-testid=row][data-id={learning_id}]")
    page.click(f"[data-testid=row][data-id={learning_id}]")
    page.wait_for_selector("[data-testid=anchor]")
    text = page.inner_text("[data-testid=anchor]")
    assert text.startswith("services/billing/tax.py:1-2 drifted changed since ")
