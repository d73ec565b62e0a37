"""One way to write a count: thousands separators in every line that shows beads, games or changes."""

from __future__ import annotations

import re
from pathlib import Path

from conftest import Invoke

UNSEPARATED = re.compile(r"(?<![\d,.#])\d{4,}(?![\d,])")


def test_counts_in_the_millions_are_written_one_way(sqlite_menace: Invoke) -> None:
    sqlite_menace("init")
    sqlite_menace("reconcile", "1", "--count", "W=987654", "--count", "K=2133", "--count", "G=1000000")
    sqlite_menace("tournament", "--vs", "smart", "-n", "3", "--seed", "1")
    outputs = {
        "history": sqlite_menace("history").output,
        "replay": sqlite_menace("replay", "3").output,
        "show": sqlite_menace("show", "1").output,
        "undo": sqlite_menace("undo").output,
    }
    for name, out in outputs.items():
        lines = [line for line in out.splitlines() if "menace --db" not in line]  # a path may hold digits
        bad = [line for line in lines if UNSEPARATED.search(line)]
        assert not bad, (name, bad)
    assert "W 4 -> 987,654" in outputs["history"], outputs["history"]
    assert "987,65" in outputs["replay"] and "987,65" in outputs["undo"], outputs


def test_show_keeps_its_columns_with_counts_in_the_billions(sqlite_menace: Invoke, sqlite_url: str) -> None:
    from conftest import query

    sqlite_menace("init")
    query(sqlite_url, "UPDATE beads SET count = 3534408 WHERE move = 4 AND box_id = (SELECT min(id) FROM boxes)")
    query(sqlite_url, "UPDATE beads SET count = 1999999999 WHERE move = 0 AND box_id = (SELECT min(id) FROM boxes)")
    rows = [line for line in sqlite_menace("show", "1").output.splitlines() if "started with" in line]
    assert len(rows) == 3 and len({line.index("(") for line in rows}) == 1, rows  # the shares line up
    assert "1,999,999,999 (" in rows[0]


def test_the_pages_write_a_count_and_its_noun_one_way() -> None:
    """A count before a noun goes through M.count (1 game, 2 games), never "after 1 games"."""
    static = Path(__file__).resolve().parents[1] / "menace" / "web" / "static"
    bare = re.compile(r"\$\{M\.fmt\([^}]*\)\} (games|boxes|beads|bead|game|box)\b")
    found = {p.name: bare.findall(p.read_text(encoding="utf-8")) for p in static.glob("*.js")}
    assert not {k: v for k, v in found.items() if v}, found
    assert "function count(" in (static / "common.js").read_text(encoding="utf-8")
