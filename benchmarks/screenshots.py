#!/usr/bin/env python3
"""Retake the README's screenshots: build a machine trained by a seeded tournament, serve it, and
photograph the matchbox wall (1280x800) and the audience view after a game played in the browser
(1920x1080) with headless Chromium.

    python benchmarks/screenshots.py                 # writes docs/screenshot-wall.png and docs/screenshot-audience.png
    python benchmarks/screenshots.py --out /tmp/shots --games 5000

Needs chromium and playwright (the test extras). Look at the pictures before committing them.
"""

from __future__ import annotations

import argparse
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests"))
from web_browser_helpers import CHROMIUM_ARGS, click_through_game  # noqa: E402

from menace.web.server import BackgroundServer  # noqa: E402

DOCS = Path(__file__).resolve().parent.parent / "docs"


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", type=Path, default=DOCS, help="folder for the PNG files [default: docs/]")
    ap.add_argument("--games", type=int, default=3000, help="games of the training tournament against random")
    ap.add_argument("--seed", type=int, default=2)
    args = ap.parse_args()
    chromium = shutil.which("chromium") or shutil.which("chromium-browser")
    if chromium is None:
        sys.exit("chromium is not installed (apt-get install -y chromium)")
    from playwright.sync_api import sync_playwright

    args.out.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory() as tmp:
        url = f"sqlite:///{tmp}/menace.db"
        for command in (["init"], ["tournament", "--vs", "random", "-n", str(args.games), "--seed", str(args.seed)]):
            subprocess.run([sys.executable, "-m", "menace", "--db", url, *command], check=True, capture_output=True)
        with BackgroundServer(url, "menace") as srv, sync_playwright() as p:
            browser = p.chromium.launch(executable_path=chromium, args=CHROMIUM_ARGS)
            errors: list[str] = []
            try:
                wall = browser.new_page(viewport={"width": 1280, "height": 800})
                wall.on("pageerror", lambda e: errors.append(f"wall: {e}"))
                wall.goto(srv.base + "/")
                wall.wait_for_selector("#wall[data-ready='1']")
                wall.wait_for_function("document.getElementById('wall').dataset.paintedAt !== undefined")
                wall.screenshot(path=str(args.out / "screenshot-wall.png"))

                audience = browser.new_page(viewport={"width": 1920, "height": 1080})
                audience.on("pageerror", lambda e: errors.append(f"audience: {e}"))
                audience.goto(srv.base + "/audience")
                audience.wait_for_selector("body[data-ready='1']")
                play = browser.new_page(viewport={"width": 1366, "height": 768})
                play.on("pageerror", lambda e: errors.append(f"play: {e}"))
                play.goto(srv.base + "/play")
                play.wait_for_selector("body[data-ready='1']")
                play.click("#new-game")
                play.wait_for_selector("#turn h3")
                click_through_game(play)
                audience.wait_for_function("document.body.dataset.over === '1'")
                games = f"{args.games + 1:,} games"
                audience.wait_for_function(
                    f"document.getElementById('learning-caption').textContent.includes('{games}')")
                audience.screenshot(path=str(args.out / "screenshot-audience.png"))
            finally:
                browser.close()
    if errors:
        sys.exit("script errors on the pages: " + "; ".join(errors))
    for name in ("screenshot-wall.png", "screenshot-audience.png"):
        print(f"wrote {args.out / name} ({(args.out / name).stat().st_size:,} bytes)")


if __name__ == "__main__":
    main()
