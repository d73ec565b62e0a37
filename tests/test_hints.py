"""Every command a message suggests is run here as shown: it names the database and the machine it
was given, and a rebuild keeps the machine's settings; typed literally, none harms another machine."""

from __future__ import annotations

import re
import shlex
from pathlib import Path

import pytest
from click.testing import CliRunner, Result
from conftest import Invoke

from menace.cli import cli

SUGGESTED = re.compile(r"\((menace [^()]*)\)|with: (menace [^;()]*?)(?: \(|;|\.?$)", re.M)


def suggested(output: str) -> list[list[str]]:
    """The commands a message suggests, as argument lists (without the leading ``menace``)."""
    found = [shlex.split(a or b) for a, b in SUGGESTED.findall(output)]
    assert found, output
    assert all(words[0] == "menace" for words in found)
    return [words[1:] for words in found]


def run(words: list[str], input: str | None = None) -> Result:
    result = CliRunner().invoke(cli, words, input=input, catch_exceptions=False)
    assert result.exit_code == 0, (words, result.output)
    return result


def elsewhere(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    """Run from an empty folder: a hint that leaves out the database would make a menace.db there."""
    (tmp_path / "elsewhere").mkdir()
    monkeypatch.chdir(tmp_path / "elsewhere")
    monkeypatch.delenv("MENACE_DB", raising=False)


@pytest.fixture
def exact(sqlite_menace: Invoke, monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> Invoke:
    """A default machine with games, and beside it Michie's exact machine with its opening box empty;
    the commands run from an empty folder, so a hint that leaves out the database would act elsewhere."""
    elsewhere(monkeypatch, tmp_path)
    sqlite_menace("init")
    sqlite_menace("tournament", "-n", "50", "--seed", "1")
    sqlite_menace("-m", "exact", "init", "--preset", "michie-1961", "--beads", "6,3,2,1", "--colours",
                  "white=#ffffff,black:K=#000000,green=#2ca02c,red=#d62728,yellow=#ffdd00,pink=#ff9ecb,"
                  "sky:S=#87ceeb,brown:N=#8b4513,blue:U=#1f77b4")
    sqlite_menace("-m", "exact", "reconcile", "1", "--count", "W=0", "--count", "K=0", "--count", "Y=0")
    return sqlite_menace


def _follow_each(menace: Invoke, output: str) -> None:
    before = menace("export", "-").output
    reconcile, rebuild, revive = suggested(output)
    assert "--db" in reconcile and reconcile[reconcile.index("-m") + 1] == "exact", reconcile
    run(reconcile, input="1\n1\n1\n")
    assert "box 1" in menace("-m", "exact", "history").output  # the recount is the exact machine's
    run(rebuild)
    stats = menace("-m", "exact", "stats").output
    assert "michie-1961, modified)" in stats and "initial beads  6,3,2,1" in stats, stats
    assert "empty box      resign" in stats, stats
    assert "sky" in menace("-m", "exact", "colours").output  # its own colours too
    run(revive)
    stats = menace("-m", "exact", "stats").output
    assert "initial beads  6,3,2,1" in stats and "empty box      revive" in stats, stats
    assert menace("export", "-").output == before  # the default machine and its games are untouched
    assert not Path("menace.db").exists()  # nothing was made in the folder the commands ran in


def test_play_on_an_empty_opening_box_names_the_machine_and_keeps_its_settings(exact: Invoke) -> None:
    result = exact("-m", "exact", "play", ok=False)
    assert result.exit_code == 1, result.output
    _follow_each(exact, result.output)


def test_operate_on_an_empty_opening_box_names_the_machine_and_keeps_its_settings(exact: Invoke) -> None:
    result = exact("-m", "exact", "operate", ok=False)
    assert result.exit_code == 1, result.output
    _follow_each(exact, result.output)


def test_a_tournament_on_an_empty_opening_box_names_the_machine_and_keeps_its_settings(exact: Invoke) -> None:
    result = exact("-m", "exact", "tournament", "-n", "10", ok=False)
    assert result.exit_code == 3, result.output
    _follow_each(exact, result.output)


def test_a_tournament_whose_opening_box_empties_names_the_machine_and_keeps_its_settings(
        sqlite_menace: Invoke, monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    elsewhere(monkeypatch, tmp_path)
    sqlite_menace("init")
    sqlite_menace("-m", "exact", "init", "--preset", "michie-1961")
    result = sqlite_menace("-m", "exact", "tournament", "--vs", "smart", "-n", "2000", "--seed", "3", ok=False)
    assert result.exit_code == 3 and "Stopped early" in result.output, result.output
    rebuild = suggested(result.output)[1]
    run(rebuild)
    stats = sqlite_menace("-m", "exact", "stats").output
    assert "michie-1961)" in stats and "games          none yet" in stats, stats  # rebuilt, as it was


def test_the_other_machines_empty_box_is_named_with_its_own_settings(sqlite_menace: Invoke,
                                                                      monkeypatch: pytest.MonkeyPatch,
                                                                      tmp_path: Path) -> None:
    elsewhere(monkeypatch, tmp_path)
    sqlite_menace("init")
    sqlite_menace("-m", "second", "init", "--side", "O", "--reinforce", "0,0,-1", "--empty-box", "resign")
    result = sqlite_menace("tournament", "--vs", "menace:second", "-n", "20000", "--seed", "1", ok=False)
    assert result.exit_code == 3, result.output
    reconcile, rebuild, _ = suggested(result.output)
    assert reconcile[reconcile.index("-m") + 1] == "second"
    run(rebuild)
    stats = sqlite_menace("-m", "second", "stats").output
    assert "side           O" in stats and "reinforcement  +0 win, +0 draw, -1 loss" in stats, stats
    assert "empty box      resign" in stats


def test_an_unknown_machine_is_created_where_it_was_asked_for(sqlite_menace: Invoke,
                                                              monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    elsewhere(monkeypatch, tmp_path)
    sqlite_menace("init")
    result = sqlite_menace("-m", "ghost", "stats", ok=False)
    assert result.exit_code == 1, result.output
    (init,) = suggested(result.output)
    run(init)
    assert "ghost" in sqlite_menace("machines").output
    assert not Path("menace.db").exists()
