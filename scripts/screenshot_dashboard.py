#!/usr/bin/env python3
"""Take docs/dashboard.png: the page over a copy of .orbit-example/ with one learning open."""

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

ROOT = Path(__file__).resolve().parents[1]
ORBIT = Path(sys.executable).with_name("orbit")
FILES = [
    "db/migrations/0042_orders.sql",
    "services/billing/invoice.py",
    "tests/integration/test_cache.py",
    "web/src/i18n/en.json",
    "crates/orbit-engine/src/scheduler/mod.rs",
    ".github/workflows/ci.yml",
]


def main() -> int:
    from playwright.sync_api import sync_playwright

    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        shutil.copytree(ROOT / ".orbit-example", root / ".orbit")
        for name in FILES:
            (root / name).parent.mkdir(parents=True, exist_ok=True)
            (root / name).write_text("")
        with socket.socket() as sock:
            sock.bind(("127.0.0.1", 0))
            port = sock.getsockname()[1]
        server = subprocess.Popen(
            [str(ORBIT), "dashboard", "--port", str(port)],
            cwd=root,
            env={**os.environ, "ORBIT_DASHBOARD_TOKEN": "docs"},
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        try:
            for _ in range(100):
                try:
                    urllib.request.urlopen(f"http://127.0.0.1:{port}/openapi.json", timeout=1)
                    break
                except OSError:
                    time.sleep(0.1)
            with sync_playwright() as pw:
                browser = pw.chromium.launch(
                    executable_path=shutil.which("chromium") or "/usr/bin/chromium",
                    args=["--no-sandbox", "--disable-gpu", "--disable-background-networking"],
                )
                page = browser.new_page(viewport={"width": 1500, "height": 860})
                page.goto(f"http://127.0.0.1:{port}/")
                page.wait_for_selector("[data-testid=row]")
                page.click("[data-testid=row][data-id=L-0002]")
                page.wait_for_selector("[data-testid=body]")
                out = ROOT / "docs" / "dashboard.png"
                page.screenshot(path=str(out))
                browser.close()
                print(f"wrote {out}")
        finally:
            server.terminate()
            server.wait(timeout=10)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
