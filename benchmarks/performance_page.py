#!/usr/bin/env python3
"""Writes docs/performance.md from the benchmarks' own output: nobody edits that page by hand.

Each benchmark's output is kept in benchmarks/results/NAME.txt with the command that made it, when,
on what (Python, cores, load average before and after); the page is put together from those files
alone, in the order of :data:`BENCHMARKS`. A test (tests/test_docs.py) checks that the page is
exactly what this script writes from them.

    python benchmarks/performance_page.py --run                 # run every benchmark (about 20 minutes)
    python benchmarks/performance_page.py --run bench startup   # run these again, keep the others' results
    python benchmarks/performance_page.py                       # only write the page from the results
"""

from __future__ import annotations

import argparse
import os
import platform
import re
import subprocess
import sys
import time
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
RESULTS = ROOT / "benchmarks" / "results"
PAGE = ROOT / "docs" / "performance.md"


@dataclass(frozen=True)
class Benchmark:
    name: str
    title: str
    args: tuple[str, ...]
    about: str


BENCHMARKS = (
    Benchmark("bench", "Speed and memory", ("benchmarks/bench.py",),
              "The learner's speed against the baseline (a plain in-memory MENACE written apart from this "
              "project as a yardstick), a tournament as a whole process with its storage, start-up, bytes per "
              "stored game, peak memory and a sweep, each against its target."),
    Benchmark("startup", "Start-up", ("benchmarks/startup.py",),
              "How long the `menace` command takes to start, as fresh processes (the game's tree already in "
              "the cache folder, as after a command's first run)."),
    Benchmark("headline", "The main job, for every seed", ("benchmarks/headline.py",),
              "README's main job (`menace init` then `menace tournament --vs smart -n 2000`) for seeds 1 to "
              "100: how many runs play all their games, on the default machine and on Michie's exact one."),
    Benchmark("labels", "The build kit", ("benchmarks/labels.py",),
              "`menace labels` as a whole process for Michie's 304 boxes and for the 2,201 boxes of a machine "
              "without symmetry: time, CPU, file size and peak memory."),
    Benchmark("history", "History at any length", ("benchmarks/history.py", "--quick"),
              "Each history command as a whole process on a history built with `menace tournament --vs "
              "random --keep-all`, at two lengths: how its time and memory grow with the history."),
    Benchmark("tournaments", "Machine against machine, and td", ("benchmarks/history.py", "--tournaments"),
              "Tournaments of 1,000,000 games against another stored machine and against td, each against "
              "`--vs random` on fresh machines, as whole processes: games per CPU second, median of three "
              "interleaved rounds."),
    Benchmark("history_size", "The history's size", ("benchmarks/history_size.py",),
              "Bytes per stored game."),
    Benchmark("sweep_speed", "Sweeps", ("benchmarks/sweep_speed.py",),
              "`menace sweep` with one and two settings."),
    Benchmark("sweep_dask", "Sweeps on Dask", ("benchmarks/sweep_dask.py", "--seeds", "200", "--games", "2000"),
              "The local process pool against a two-worker Dask `LocalCluster` on this computer, the same runs."),
    Benchmark("web", "The web pages", ("benchmarks/web.py", "--games", "200000", "--tournament", "200000",
                                       "--pairs", "4"),
              "`menace serve` in headless Chromium: the wall drawn, a finished game reflected, a tournament with "
              "event-stream clients, the learning curve of a long history."),
    Benchmark("web_guard", "Slow, half-sent and guessing clients", ("benchmarks/web_guard.py",),
              "`menace serve --tokens` with `ulimit -n 256` (see [who can drive menace serve](web-security.md)): "
              "300 half-sent requests and a visitor among them, a client guessing tokens for 10 s, and the "
              "server's memory per concurrent download of a 1.5M-game machine's file."),
    Benchmark("web_kept", "A machine's state from memory", ("benchmarks/web_kept.py",),
              "Server CPU per request for a machine's summary, wall and learning curve on a 1M-game machine, "
              "read from the database every time and kept in memory until the database changes."),
    Benchmark("web_learning", "The learning curve at any length of history",
              ("benchmarks/web_learning.py", "--games", "20000", "1000000", "18000000"),
              "Server CPU per request for the learning curve (whole and zoomed) and a box's bead series on "
              "machines of 20,000, 1,000,000 and 18,000,000 games, every request read from the database (as "
              "the first request after a change is): the per-block results kept as blocks are written."),
    Benchmark("web_class", "A class of thirty on one server", ("benchmarks/web_class.py",),
              "30 simulated devices holding the event stream and asking as the wall, learning and train pages "
              "do, on a trained machine, at rest and while the server trains it: latencies per endpoint and how "
              "much slower each is while it trains (2x at most, p50), the tournament's commits, server CPU per "
              "request, memory, and the training's speed against an idle server."),
    Benchmark("serve_stop", "Stopping the server", ("benchmarks/serve_stop.py",),
              "`menace serve` with 200 event streams and a tournament running: seconds from SIGTERM to exit, "
              "quiet and beside two busy processes."),
    Benchmark("nim_learning", "How soon the classroom's Nim machine stops losing", ("benchmarks/nim_learning.py",),
              "200 classroom Nim machines per line (21 sticks, take 1-3, the last stick loses), 2,000 games each, "
              "against the perfect and the random player: the game each lost for the last time. Game counts, "
              "not timings: the same on any computer."),
)


REF_TAKERS = ("bench", "history")
"""The benchmarks that compare with the baseline program (``--ref PATH``)."""


def run(bench: Benchmark, ref: str | None) -> str:
    """Run one benchmark; its output with a header saying what ran, when and on what."""
    load_before = os.getloadavg()[0]
    started = datetime.now(UTC)
    t0 = time.monotonic()
    extra = ("--ref", ref) if ref and bench.name in REF_TAKERS else ()
    done = subprocess.run([sys.executable, *bench.args, *extra], cwd=ROOT, capture_output=True, text=True)
    took = time.monotonic() - t0
    load_after = os.getloadavg()[0]
    header = [
        f"command: python {' '.join(bench.args)}" + (" --ref PATH" if extra else ""),
        f"started: {started:%Y-%m-%d %H:%M} UTC, took {took:.0f} s, exit status {done.returncode}",
        f"machine: Python {platform.python_version()}, {os.cpu_count()} cores, load average "
        f"{load_before:.1f} before and {load_after:.1f} after",
    ]
    output = done.stdout.rstrip()
    if done.returncode != 0:
        output += "\n" + done.stderr.rstrip()
    return "\n".join(header) + "\n\n" + output + "\n"


LOAD = re.compile(r"^machine: .*?(\d+) cores, load average ([\d.]+) before and ([\d.]+) after$", re.M)


def busy_warning(result: str) -> list[str]:
    """A warning above a result measured while the computer was busy (load above its cores)."""
    match = LOAD.search(result)
    if not match:
        return []
    cores, load = int(match.group(1)), max(float(match.group(2)), float(match.group(3)))
    if load <= cores:
        return []
    return ["!!! warning \"Measured on a busy computer\"",
            f"    The load average reached {load:.1f} on {cores} cores while this ran: wall-clock times are "
            "several times what an idle computer gives, and a target marked MISSED here may well be met "
            "there. CPU times, and ratios of rates measured side by side, suffer much less.", ""]


def page() -> str:
    """The performance page, from the results on disk."""
    lines = [
        "# Performance",
        "",
        "<!-- Written by benchmarks/performance_page.py from benchmarks/results/; do not edit by hand. -->",
        "",
        "Every figure on this page is the output of a benchmark in `benchmarks/`, copied here as it was",
        "printed, with the command, the time and the load of the computer it ran on. The computer is shared",
        "and noisy: figures compared with each other were measured side by side in the same run, and a",
        "busy machine moves wall-clock times a long way (each result says how busy it was). To measure again:",
        "",
        "```sh",
        "python benchmarks/performance_page.py --run          # all, then this page",
        "python benchmarks/performance_page.py --run bench    # one again",
        "```",
        "",
    ]
    for bench in BENCHMARKS:
        path = RESULTS / f"{bench.name}.txt"
        lines += [f"## {bench.title}", "", bench.about, ""]
        if path.exists():
            text = path.read_text().rstrip()
            lines += [*busy_warning(text), "```text", text, "```", ""]
        else:
            lines += [f"Not measured yet: `python benchmarks/performance_page.py --run {bench.name}`.", ""]
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--run", nargs="*", metavar="NAME",
                        help=f"run these benchmarks first (none named: all of {', '.join(b.name for b in BENCHMARKS)})")
    parser.add_argument("--ref", metavar="PATH", help="the baseline program, for bench and history "
                        "(default: where they look for it)")
    args = parser.parse_args()
    if args.run is not None:
        known = {b.name: b for b in BENCHMARKS}
        unknown = [n for n in args.run if n not in known]
        if unknown:
            parser.error(f"unknown benchmark {', '.join(unknown)}; choose from {', '.join(known)}")
        RESULTS.mkdir(exist_ok=True)
        for bench in [known[n] for n in args.run] if args.run else BENCHMARKS:
            print(f"running {bench.name} ...", file=sys.stderr, flush=True)
            (RESULTS / f"{bench.name}.txt").write_text(run(bench, args.ref))
    PAGE.write_text(page())
    print(f"wrote {PAGE.relative_to(ROOT)}", file=sys.stderr)


if __name__ == "__main__":
    main()
