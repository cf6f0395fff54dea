#!/usr/bin/env python3
"""Take docs/dashboard.png and docs/dashboard-narrow.png: the page over `make demo`'s store.

The wide one is a laptop's 1280 x 900 with a learning open; the narrow one (390 px, a
phone) is a link a reviewer might send: a folder's learnings, as cards (a learning opened
there is a sheet over them).
"""

from __future__ import annotations

import os
import shutil
import socket
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from playwright.sync_api import ViewportSize

ROOT = Path(__file__).resolve().parents[1]
ORBIT = Path(sys.executable).with_name("orbit")
SHOTS: list[tuple[str, ViewportSize, str, bool]] = [
    ("dashboard.png", {"width": 1280, "height": 900}, "/?open=L-0002", False),
    ("dashboard-narrow.png", {"width": 390, "height": 844}, "/?path=db/", True),
]


def serve(root: Path) -> tuple[subprocess.Popen[bytes], int]:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = int(sock.getsockname()[1])
    server = subprocess.Popen(
        [str(ORBIT), "dashboard", "--port", str(port)],
        cwd=root,
        env={**os.environ, "ORBIT_DASHBOARD_TOKEN": "docs"},
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    for _ in range(100):
        try:
            urllib.request.urlopen(f"http://127.0.0.1:{port}/openapi.json", timeout=1)
            break
        except OSError:
            time.sleep(0.1)
    return server, port


def main() -> int:
    from playwright.sync_api import sync_playwright

    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp) / "demo"
        subprocess.run(
            ["bash", str(ROOT / "scripts/demo.sh"), str(root)], check=True, capture_output=True
        )
        server, port = serve(root)
        try:
            with sync_playwright() as pw:
                browser = pw.chromium.launch(
                    executable_path=shutil.which("chromium") or "/usr/bin/chromium",
                    args=["--no-sandbox", "--disable-gpu", "--disable-background-networking"],
                )
                for name, viewport, path, full in SHOTS:
                    page = browser.new_page(viewport=viewport)
                    page.goto(f"http://127.0.0.1:{port}{path}")
                    page.wait_for_selector("[data-testid=row]")
                    if "open=" in path:
                        page.wait_for_selector("[data-testid=body]")
                    page.wait_for_selector("[data-testid=stats-stale] >> text=/^\\d+ stale$/")
                    out = ROOT / "docs" / name
                    page.screenshot(path=str(out), full_page=full)
                    print(f"wrote {out}")
                browser.close()
        finally:
            server.terminate()
            server.wait(timeout=10)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
