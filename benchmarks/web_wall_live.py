#!/usr/bin/env python3
"""How often the matchbox wall redraws while a tournament runs, with two busy-loop processes beside
the server (a busy two-core laptop): the issue asks for a redraw at least every 2 seconds.

    python benchmarks/web_wall_live.py              # a 10 s tournament against random
    python benchmarks/web_wall_live.py --seconds 30 --loops 0

Prints the gaps between redraws (from the first drawing of stored games to the last before the
end), their median and maximum. Needs chromium and playwright (the test extras).
"""

from __future__ import annotations

import argparse
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests"))
from test_web_classroom import RECORD_WALL_REDRAWS  # noqa: E402
from web_browser_helpers import CHROMIUM_ARGS  # noqa: E402

from menace.web.server import BackgroundServer  # noqa: E402


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--seconds", type=float, default=10.0)
    ap.add_argument("--loops", type=int, default=2, help="busy-loop processes beside the server")
    args = ap.parse_args()
    from playwright.sync_api import sync_playwright

    with tempfile.TemporaryDirectory() as tmp:
        url = f"sqlite:///{tmp}/m.db"
        subprocess.run([sys.executable, "-m", "menace", "--db", url, "init"], check=True, capture_output=True)
        loops = [subprocess.Popen([sys.executable, "-c", "while True: pass"]) for _ in range(args.loops)]
        try:
            with BackgroundServer(url, "menace") as srv, sync_playwright() as p:
                browser = p.chromium.launch(executable_path=shutil.which("chromium"), args=CHROMIUM_ARGS)
                page = browser.new_page(viewport={"width": 1366, "height": 768})
                page.add_init_script(RECORD_WALL_REDRAWS)
                page.goto(srv.base + "/")
                page.wait_for_selector("#wall[data-live='1']")
                page.wait_for_selector("#wall[data-ready='1']")
                page.request.post(srv.base + "/api/train", data={"opponent": "random", "seconds": args.seconds})
                trainer = srv.app.state.menace.trainer
                while trainer.running:
                    time.sleep(0.1)
                played = trainer.status.total_games
                page.wait_for_function(f"document.getElementById('wall').dataset.games === '{played}'")
                redraws = page.evaluate("window.wallRedraws")
                browser.close()
        finally:
            for proc in loops:
                proc.kill()
                proc.wait()
    during = [t for t, games in redraws if 0 < games < played]
    gaps = [(b - a) / 1000 for a, b in zip(during, during[1:])]
    print(f"{played:,} games in {args.seconds:g} s with {args.loops} busy loops; {len(during)} redraws during the run")
    if gaps:
        print(f"gaps between redraws: median {statistics.median(gaps):.2f} s, max {max(gaps):.2f} s "
              f"(target: at most 2 s) -> {'ok' if max(gaps) <= 2 else 'OVER'}")


if __name__ == "__main__":
    main()
