"""The page's fixtures: a real `orbit dashboard` process and Debian's Chromium (Playwright).

One browser serves a whole test module (a launch costs a second); each test gets a
fresh workspace, server and tab.
"""

from __future__ import annotations

import json
import os
import shutil
import socket
import subprocess
import time
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.testing import ORBIT_BIN, run_orbit

CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser") or "/usr/bin/chromium"
needs_chromium = pytest.mark.skipif(
    not os.path.exists(CHROMIUM),
    reason="needs Debian's chromium (apt-get install chromium); .ci/run installs it",
)
TOKEN = "browser-test-token"
CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def start_dashboard(root: Path) -> tuple[subprocess.Popen[str], str]:
    """`orbit dashboard` on a free port, answered and with its staleness report settled."""
    port = free_port()
    proc = subprocess.Popen(
        [str(ORBIT_BIN), "dashboard", "--port", str(port)],
        cwd=root,
        env={**os.environ, "ORBIT_DASHBOARD_TOKEN": TOKEN},
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
    )
    url = f"http://127.0.0.1:{port}"
    for _ in range(300):
        try:
            with urllib.request.urlopen(url + "/api/learnings?limit=1", timeout=1) as answer:
                if not json.load(answer)["stats"]["stale_pending"]:
                    return proc, url
        except OSError:
            pass
        time.sleep(0.1)
    proc.kill()
    pytest.fail(f"dashboard did not start: {proc.stdout.read() if proc.stdout else ''}")


@pytest.fixture
def server(example: Path) -> Iterator[str]:
    (example / "services/billing").mkdir(parents=True)
    (example / "services/billing/tax.py").write_text("")
    outcome = run_orbit(
        "learning",
        "add",
        "--summary",
        "Escaping check for rendered bodies",
        "--tag",
        "xss",
        "--body",
        "<script>window.pwned = 1</script> **bold** and `code`",
        cwd=example,
    )
    assert outcome.code == 0, outcome.err
    proc, url = start_dashboard(example)
    yield url
    proc.terminate()
    proc.wait(timeout=10)


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    from playwright.sync_api import sync_playwright

    with sync_playwright() as pw:
        launched = pw.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS, headless=True)
        yield launched
        launched.close()


@pytest.fixture
def page(browser: Any, server: str) -> Iterator[Any]:
    """A tab holding the page, opened with the token in the hash as `orbit dashboard` prints it."""
    context = browser.new_context(viewport={"width": 1400, "height": 900})
    tab = context.new_page()
    tab.goto(f"{server}/#token={TOKEN}")
    tab.wait_for_selector("[data-testid=row]")
    yield tab
    context.close()
