#!/usr/bin/env python3
"""What a browser test's page costs Chromium: a page of the wall opened, loaded and closed again and
again in one context, as the browser tests' shared context does (tests/web_browser_helpers.py), with
no other page in the context ("alone") and beside a blank page kept open ("beside a kept page").

    python benchmarks/browser_page_cost.py              # 8 loads each way
    python benchmarks/browser_page_cost.py --loads 20 --path /train

Chromium is Debian's (``chromium`` on the PATH), with the tests' flags. The CPU of this process and
of every process under it (Playwright's driver, Chromium's browser, GPU, utility and renderer
processes; a renderer's CPU is read from its zygote once it has exited) is read from /proc with
psutil before and after; prints the CPU seconds per load, by kind of process. On a shared machine
the figures move with the load: read them as such.
"""

from __future__ import annotations

import argparse
import collections
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import psutil
from playwright.sync_api import sync_playwright

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))
from web_browser_helpers import CHROMIUM_ARGS  # noqa: E402

from menace.web.server import BackgroundServer  # noqa: E402


def tree_cpu() -> collections.Counter[str]:
    """CPU seconds so far of this process and those under it, by kind (reaped children included)."""
    me = psutil.Process()
    out: collections.Counter[str] = collections.Counter()
    for p in [me, *me.children(recursive=True)]:
        try:
            kind = p.name()
            if "chrom" in kind:
                typed = [a[len("--type="):] for a in p.cmdline() if a.startswith("--type=")]
                kind = "chromium " + (typed[0] if typed else "browser")
            t = p.cpu_times()
            out[kind] += t.user + t.system + t.children_user + t.children_system
        except psutil.Error:
            pass
    return out


def loads(context: Any, url: str, count: int, ready: str | None) -> collections.Counter[str]:
    before = tree_cpu()
    for _ in range(count):
        page = context.new_page()
        page.set_viewport_size({"width": 1366, "height": 768})
        page.goto(url)
        if ready:
            page.wait_for_selector(ready)
        page.close()
    time.sleep(0.5)  # the last renderer exits and is reaped
    after = tree_cpu()
    return collections.Counter({k: (after[k] - before[k]) / count for k in after if after[k] > before[k]})


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--loads", type=int, default=8)
    parser.add_argument("--path", default="/", help="the page loaded (default: the wall)")
    args = parser.parse_args()
    chromium = shutil.which("chromium") or sys.exit("chromium is not installed")
    ready = "#wall[data-ready='1']" if args.path == "/" else None
    with tempfile.TemporaryDirectory() as folder:
        url = f"sqlite:///{folder}/bench.db"
        subprocess.run([sys.executable, "-m", "menace", "--db", url, "init"], check=True, stdout=subprocess.DEVNULL)
        with BackgroundServer(url, "menace") as srv, sync_playwright() as p:
            browser = p.chromium.launch(executable_path=chromium, args=CHROMIUM_ARGS)
            try:
                for name, keep in (("alone", False), ("beside a kept page", True)):
                    context = browser.new_context()
                    kept = context.new_page() if keep else None
                    loads(context, srv.base + args.path, 1, ready)  # warmed up
                    cpu = loads(context, srv.base + args.path, args.loads, ready)
                    parts = ", ".join(f"{k} {v:.3f}" for k, v in cpu.most_common())
                    print(f"{name:>20}: {sum(cpu.values()):.3f} s of CPU a load of {args.path} ({parts})")
                    if kept is not None:
                        kept.close()
                    context.close()
            finally:
                browser.close()


if __name__ == "__main__":
    main()
