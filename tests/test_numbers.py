"""One way to write a count: thousands separators in every line that shows beads, games or changes."""

from __future__ import annotations

import re

from conftest import Invoke

UNSEPARATED = re.compile(r"(?<![\d,.#])\d{4,}(?![\d,])")


def test_counts_in_the_millions_are_written_one_way(menace: Invoke) -> None:
    menace("init")
    menace("reconcile", "1", "--count", "W=987654", "--count", "K=2133", "--count", "G=1000000")
    menace("tournament", "--vs", "smart", "-n", "3", "--seed", "1")
    outputs = {
        "history": menace("history").output,
        "replay": menace("replay", "3").output,
        "show": menace("show", "1").output,
        "undo": menace("undo").output,
    }
    for name, out in outputs.items():
        lines = [line for line in out.splitlines() if "menace --db" not in line]  # a path may hold digits
        bad = [line for line in lines if UNSEPARATED.search(line)]
        assert not bad, (name, bad)
    assert "W 4 -> 987,654" in outputs["history"], outputs["history"]
    assert "987,65" in outputs["replay"] and "987,65" in outputs["undo"], outputs
