"""The page, driven in headless Chromium (Debian's `chromium`, through Playwright)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from tests.features.dashboard.conftest import needs_chromium

pytestmark = needs_chromium


def row_ids(page: object) -> list[str]:
    return page.eval_on_selector_all("[data-testid=row]", "rows => rows.map(r => r.dataset.id)")  # type: ignore[attr-defined]


def wait_rows(page: object, predicate: object) -> list[str]:
    for _ in range(50):
        ids = row_ids(page)
        if predicate(ids):  # type: ignore[operator]
            return ids
        page.wait_for_timeout(100)  # type: ignore[attr-defined]
    return row_ids(page)


def test_load_filter_search_and_path_lookup(page: object) -> None:
    assert len(row_ids(page)) == 16
    assert "16" in page.inner_text("[data-testid=stats]")  # type: ignore[attr-defined]
    page.select_option("[data-testid=tag]", "database")  # type: ignore[attr-defined]
    assert set(wait_rows(page, lambda ids: len(ids) == 2)) == {"L-0002", "L-0013"}
    page.select_option("[data-testid=tag]", "")  # type: ignore[attr-defined]
    page.fill("[data-testid=search]", "redis")  # type: ignore[attr-defined]
    assert wait_rows(page, lambda ids: ids[:1] == ["L-0005"])[0] == "L-0005"
    badge = page.inner_text("[data-testid=row] [data-testid=match]")  # type: ignore[attr-defined]
    assert badge.startswith("match 0.") or badge == "match 1.00"
    page.fill("[data-testid=search]", "")  # type: ignore[attr-defined]
    page.fill("[data-testid=path]", "services/billing/tax.py")  # type: ignore[attr-defined]
    assert set(wait_rows(page, lambda ids: len(ids) == 2)) == {"L-0003", "L-0014"}


def test_detail_renders_markdown_as_text_and_supersede(page: object, example: Path) -> None:
    page.click("[data-testid=row][data-id=L-0017]")  # type: ignore[attr-defined]
    page.wait_for_selector("[data-testid=body]")  # type: ignore[attr-defined]
    body = page.inner_text("[data-testid=body]")  # type: ignore[attr-defined]
    assert "<script>window.pwned = 1</script>" in body
    assert page.evaluate("window.pwned === undefined")  # type: ignore[attr-defined]
    assert page.inner_html("[data-testid=body]").count("<strong>bold</strong>") == 1  # type: ignore[attr-defined]
    page.click("[data-testid=row][data-id=L-0012]")  # type: ignore[attr-defined]
    page.wait_for_selector("[data-testid=supersede-by]")  # type: ignore[attr-defined]
    page.fill("[data-testid=supersede-by]", "L-0017")  # type: ignore[attr-defined]
    page.click("[data-testid=supersede]")  # type: ignore[attr-defined]
    page.wait_for_selector("[data-testid=detail] >> text=superseded by L-0017")  # type: ignore[attr-defined]
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


def test_the_detail_lists_cited_code_and_its_drift(page: object, example: Path) -> None:
    from tests.testing import run_orbit

    code = example / "services/billing/tax.py"
    code.write_text("def vat(amount):\n    return amount * 20 // 100\n", encoding="utf-8")
    added = run_orbit(
        "learning", "add", "--summary", "VAT rounds down to the cent", "--json",
        "--anchor", "services/billing/tax.py:1-2", cwd=example,
    )  # fmt: skip
    learning_id = __import__("json").loads(added.out)["id"]
    code.write_text("def vat(amount):\n    return round(amount * 0.2)\n", encoding="utf-8")
    page.reload()  # type: ignore[attr-defined]
    page.wait_for_selector(f"[data-testid=row][data-id={learning_id}]")  # type: ignore[attr-defined]
    page.click(f"[data-testid=row][data-id={learning_id}]")  # type: ignore[attr-defined]
    page.wait_for_selector("[data-testid=anchor]")  # type: ignore[attr-defined]
    text = page.inner_text("[data-testid=anchor]")  # type: ignore[attr-defined]
    assert text.startswith("services/billing/tax.py:1-2 drifted changed since ")
