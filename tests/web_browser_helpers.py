"""Chromium for the browser tests: Debian's, through Playwright (its own download cannot work here)."""

from __future__ import annotations

import os
import shutil
from collections.abc import Iterator
from typing import Any

import pytest

CHROMIUM_ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
                 "--disable-component-update", "--no-first-run"]


def chromium_path() -> str | None:
    return shutil.which("chromium") or shutil.which("chromium-browser")


def launch_browser() -> Iterator[Any]:
    """A headless Chromium, or a skip (a failure when env CI is set) when there is none."""
    path = chromium_path()
    if path is None:
        message = "chromium is not installed (apt-get install -y chromium): browser tests skipped"
        if os.environ.get("CI"):
            pytest.fail(message)
        pytest.skip(message)
    try:
        from playwright.sync_api import sync_playwright
    except ImportError:
        if os.environ.get("CI"):
            raise
        pytest.skip("playwright is not installed (pip install -e '.[test]')")
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=path, args=CHROMIUM_ARGS)
        try:
            yield browser
        finally:
            browser.close()

