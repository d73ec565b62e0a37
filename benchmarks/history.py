#!/usr/bin/env python3
"""How the history commands grow with the history, and what one night at full speed leaves on disk.

Builds two histories with ``menace tournament --vs random --keep-all`` (every game stored: the worst
case for the commands that read games), times each history command as a whole process with its
peak memory, and prints how each grows from the small history to the large one. Then projects one
``--for 8h`` night under the default history policy, compares machine-vs-machine and ``td``
tournaments with ``--vs random`` (CPU seconds of whole processes, 1M games, target 0.6x), and the
in-memory learner with the baseline
``../shared/bench/ref_menace.py speed --engine table`` (median of interleaved rounds).

    python benchmarks/history.py                 # 1M and 20M games (about ten minutes)
    python benchmarks/history.py --quick         # 100k and 1M games, fewer rounds
    python benchmarks/history.py --only import   # one command at 1M and 20M games (a few minutes)
    python benchmarks/history.py --tournaments   # only the tournaments' speeds: 1M games each (a few minutes)
"""

from __future__ import annotations

import argparse
import os
import shutil
import sqlite3
import statistics
import subprocess
import sys
import tempfile
import time
from datetime import date
from pathlib import Path

from menace.app.database import Database
from menace.app.machines import init_machine, open_machine
from menace.app.tournament import KEEP_GAMES, run_tournament
from menace.core.settings import MICHIE
from menace.storage.database import database_bytes

sys.path.insert(0, str(Path(__file__).resolve().parent))
from bench import DEFAULT_REF, baseline_rate, batch_rate, in_memory_rate  # noqa: E402

MENACE = [sys.executable, "-m", "menace"]
NIGHT = 8 * 3600


def timed(args: list[str], db: Path) -> tuple[float, float, str, float]:
    """Wall seconds, peak resident MiB, output and CPU seconds (user and system: what a shared machine's
    load does not inflate) of ``menace --db DB ARGS`` as a whole process."""
    t0 = time.perf_counter()
    proc = subprocess.Popen([*MENACE, "--db", str(db), *args], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            cwd=db.parent)
    _, status, usage = os.wait4(proc.pid, 0)
    elapsed = time.perf_counter() - t0
    out = (proc.stdout.read() if proc.stdout else b"").decode() + (proc.stderr.read() if proc.stderr else b"").decode()
    if os.waitstatus_to_exitcode(status) != 0:
        raise SystemExit(f"menace {' '.join(args)} failed:\n{out}")
    return elapsed, usage.ru_maxrss / 1024, out, usage.ru_utime + usage.ru_stime


def build(db: Path, games: int) -> tuple[float, float]:
    """Games per second of building the history (a whole tournament process), and the bytes per game
    it added to the database."""
    timed(["init"], db)
    before = database_bytes(db)
    seconds, _, _, _ = timed(["tournament", "--vs", "random", "-n", str(games), "--seed", "1", "--keep-all"], db)
    return games / seconds, (database_bytes(db) - before) / games


def measure(db: Path, games: int, only: list[str] | None = None) -> dict[str, tuple[float, float, float]]:
    """Each history command on a history of ``games`` games (or those named in ``only``): (seconds, peak
    MiB, CPU seconds)."""
    out: dict[str, tuple[float, float, float]] = {}
    work = db.parent
    mid = games // 2

    def run(name: str, args: list[str], where: Path = db) -> None:
        if only is not None and name not in only and not (name == "export" and "import" in only):
            return  # (import reads the file export writes)
        sec, mib, _, cpu = timed(args, where)
        if only is None or name in only:
            out[name] = (sec, mib, cpu)

    run("check --full", ["check", "--full"])
    run("check (after a check)", ["check"])
    run("replay <last>", ["replay", str(games)])
    run("show 1 --at N/2", ["show", "1", "--at", str(mid)])
    run("undo (one game)", ["undo"])
    run("check (after the undo)", ["check"])
    run("plot learning", ["plot", "learning", "-o", str(work / "learning.png")])
    run("plot beads", ["plot", "beads", "-o", str(work / "beads.png")])
    run("plot beads --from/--to", ["plot", "beads", "--from", str(mid), "--to", str(mid + 5000),
                                    "-o", str(work / "range.png")])
    run("export", ["export", str(work / "machine.json")])
    run("import", ["import", str(work / "machine.json")], work / "imported.db")
    (work / "machine.json").unlink(missing_ok=True)
    return out


def summary_bytes(tmp: Path, seconds: float) -> tuple[float, float]:
    """Bytes per stored summary and summaries written per second, for a run stored as summaries only
    (the policy past its kept games), in process."""
    db = tmp / "summaries.db"
    url = f"sqlite:///{db}"
    init_machine(Database(url), "menace", MICHIE, None)
    before = database_bytes(db)
    with open_machine(Database(url), "menace", holder="the benchmark") as m:
        result = run_tournament(m, "random", seconds=seconds, seed=3, keep_games=0)
    con = sqlite3.connect(db)
    try:
        blocks = int(con.execute("SELECT count(*) FROM game_blocks WHERE NOT kept").fetchone()[0])
    finally:
        con.close()
    return (database_bytes(db) - before) / blocks, blocks / result.seconds


def tournament_rate(template: Path, opponent: str, games: int) -> float:
    """Games per CPU second (user and system, the whole process: start-up and every write included) of
    ``menace tournament --vs OPPONENT`` on a copy of ``template``: fresh machines for every run."""
    db = template.with_name("speed-run.db")
    shutil.copy(template, db)
    _, _, _, cpu = timed(["tournament", "--vs", opponent, "-n", str(games), "--seed", "2"], db)
    for f in db.parent.glob(db.name + "*"):
        f.unlink()
    return games / cpu


TOURNAMENT_TARGET = 0.6
"""Machine against machine and td, at least this fraction of the speed of ``--vs random``."""


def tournaments(tmp: Path, games: int, rounds: int) -> int:
    """Machine against machine and td against ``--vs random``, whole processes, CPU seconds, median of
    interleaved rounds; prints the ratios and returns how many missed their target."""
    print(f"\ntournaments of {games:,} games, whole process, fresh machines each run (games per CPU second, "
          f"median of {rounds} interleaved rounds; load {os.getloadavg()[0]:.1f})")
    template = tmp / "speed.db"
    timed(["init"], template)
    timed(["-m", "second", "init", "--side", "O", "--empty-box", "restock"], template)
    by: dict[str, list[float]] = {"random": [], "menace:second": [], "td": []}
    for _ in range(rounds):
        for opponent in by:
            by[opponent].append(tournament_rate(template, opponent, games))
    base = statistics.median(by["random"])
    print(f"  --vs {'random':<16} {base:>10,.0f}")
    missed = 0
    for opponent, got in list(by.items())[1:]:
        # The ratio of each round's pair, then their median: a round's load weighs on both alike.
        ratio = statistics.median(a / b for a, b in zip(got, by["random"]))
        ok = ratio >= TOURNAMENT_TARGET
        missed += not ok
        print(f"  --vs {opponent:<16} {statistics.median(got):>10,.0f}   {ratio:.2f}x of --vs random "
              f"(target >= {TOURNAMENT_TARGET}x){'' if ok else '  MISSED'}")
    return missed


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--quick", action="store_true", help="100k and 1M games (a smoke test)")
    ap.add_argument("--sizes", type=int, nargs=2, metavar=("SMALL", "LARGE"), help="history lengths")
    ap.add_argument("--rounds", type=int, default=3, help="interleaved rounds for the speed ratios")
    ap.add_argument("--only", nargs="+", metavar="COMMAND",
                    help="measure only these history commands, named as printed (e.g. import), and skip the "
                         "night's projection and the speed rounds")
    ap.add_argument("--ref", type=Path, default=DEFAULT_REF, help="the baseline ref_menace.py")
    ap.add_argument("--night-rate", type=float, default=200_000,
                    help="games per second of the projected night [200,000: a tournament on this machine, idle]")
    ap.add_argument("--tournaments", action="store_true",
                    help="only the tournaments' speeds (machine against machine and td against --vs random)")
    args = ap.parse_args()
    if args.tournaments:
        with tempfile.TemporaryDirectory() as tmp_name:
            print(f"menace tournaments benchmark, {date.today()}, Python {sys.version.split()[0]}, "
                  f"{os.cpu_count()} cores")
            return 1 if tournaments(Path(tmp_name), 100_000 if args.quick else 1_000_000, args.rounds) else 0
    small, large = args.sizes or ((100_000, 1_000_000) if args.quick else (1_000_000, 20_000_000))
    rounds = 1 if args.quick else args.rounds
    print(f"menace history benchmark, {date.today()}, Python {sys.version.split()[0]}, {os.cpu_count()} cores")

    with tempfile.TemporaryDirectory() as tmp_name:
        tmp = Path(tmp_name)
        results: dict[int, dict[str, tuple[float, float, float]]] = {}
        rates: dict[int, float] = {}
        per_game: dict[int, float] = {}
        for n in (small, large):
            work = tmp / f"h{n}"
            work.mkdir()
            db = work / "menace.db"
            rates[n], per_game[n] = build(db, n)
            print(f"\nhistory of {n:,} games (--keep-all): built at {rates[n]:,.0f} games/s, "
                  f"{per_game[n]:.2f} bytes per game")
            results[n] = measure(db, n, args.only)
            for name, (sec, mib, cpu) in results[n].items():
                print(f"  {name:<24} {sec:8.2f} s  {mib:7.1f} MiB  {cpu:8.2f} s CPU")
            for f in work.iterdir():
                f.unlink()

        print(f"\ngrowth from {small:,} to {large:,} games ({large // small}x the games)")
        print(f"  {'command':<24} {'time':>9} {'CPU':>9} {'memory':>9}   per game (large, CPU)")
        for name in results[small]:
            (s1, m1, c1), (s2, m2, c2) = results[small][name], results[large][name]
            print(f"  {name:<24} {s2 / s1:8.2f}x {c2 / c1:8.2f}x {m2 / m1:8.2f}x   {c2 / large * 1e6:6.2f} us")
        if args.only:
            return 0

        kept_bytes = per_game[large]
        summary, per_second = summary_bytes(tmp, 5.0 if args.quick else 20.0)
        night = args.night_rate * NIGHT
        kept = min(KEEP_GAMES, night)
        kept_seconds = kept / args.night_rate
        size = kept * kept_bytes + (NIGHT - kept_seconds) * per_second * summary
        print(f"\none --for 8h night at {args.night_rate:,.0f} games/s: {night / 1e9:.2f} billion games")
        print(f"  every game kept:   {night * kept_bytes / 1e9:8.1f} GB ({kept_bytes:.2f} B/game, measured above)")
        print(f"  default policy:    {size / 1e6:8.1f} MB (the first {KEEP_GAMES:,} games kept, then summaries: "
              f"{per_second:.2f} per second of play, {summary:,.0f} B each, measured)")
        full = results[large]["check --full"][2] / large  # CPU seconds: the load of a shared machine aside
        print(f"  check --full then replays the kept {kept:,.0f} games: ~{full * kept:,.0f} s of CPU; "
              f"the checkpointed commands stay as above")

        tournaments(tmp, 100_000 if args.quick else 1_000_000, rounds)

        if args.ref.exists():
            print("\nlearner, in memory vs the baseline (games/s vs random, median of interleaved rounds)")
            n_mem = 100_000 if args.quick else 300_000
            got: dict[str, list[float]] = {"baseline": [], "play_table": [], "play_batch": []}
            for r in range(max(rounds, 3)):
                got["baseline"].append(baseline_rate(args.ref, "random", n_mem, seed=r + 1))
                got["play_table"].append(in_memory_rate("random", n_mem, seed=r + 1))
                got["play_batch"].append(batch_rate(n_mem, seed=r + 1))
            for name in ("play_table", "play_batch"):
                ratio = statistics.median(a / b for a, b in zip(got[name], got["baseline"]))
                print(f"  {name:<11} {statistics.median(got[name]):>10,.0f}   {ratio:.2f}x the baseline's "
                      f"{statistics.median(got['baseline']):,.0f} (target >= 1.3x)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
