"""A bead's letter is drawn on the board's squares: it must not be a mark of the game's own, and
two colours cannot share one; the refusal says which colours and how to choose another letter."""

from __future__ import annotations

from pathlib import Path

import pytest
from conftest import Invoke

STANDARD_BUT = ("white=#ffffff,black:K=#000000,amber=#e69f00,sky:S=#56b4e9,green=#009e73,yellow=#f0e442,"
                "blue=#0072b2,")


@pytest.mark.parametrize("command", [["init", "-m", "mine", "--colours"], ["colours"],
                                     ["labels", "--out", "kit.pdf", "--colours"], ["operate", "--colours"]])
def test_a_colour_lettered_like_a_piece_is_refused(sqlite_menace: Invoke, command: list[str],
                                                   monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.chdir(tmp_path)
    sqlite_menace("init")
    result = sqlite_menace(*command, STANDARD_BUT + "vermilion=#d55e00,orange=#ff8000", ok=False)
    assert result.exit_code == 2, result.output
    assert "orange's letter O is also a mark on the board (X and O)" in result.output
    assert "orange:R=#ff8000" in result.output  # a letter it can take


def test_a_nought_letter_chosen_by_hand_is_refused_too(sqlite_menace: Invoke) -> None:
    result = sqlite_menace("init", "--colours", STANDARD_BUT + "vermilion=#d55e00,xanadu:X=#738678", ok=False)
    assert result.exit_code == 2 and "xanadu's letter X is also a mark" in result.output, result.output


def test_two_colours_sharing_a_letter_are_named(sqlite_menace: Invoke) -> None:
    result = sqlite_menace("init", "--colours", STANDARD_BUT + "purple=#cc79a7,pink=#ff9ecb", ok=False)
    assert result.exit_code == 2, result.output
    assert "purple and pink share the letter P" in result.output
    assert "pink:I=#ff9ecb" in result.output  # the next letter of its name that is free
    fixed = sqlite_menace("init", "--colours", STANDARD_BUT + "purple=#cc79a7,pink:I=#ff9ecb")
    assert fixed.exit_code == 0


def test_hexapawn_arrows_may_use_any_letter(sqlite_menace: Invoke) -> None:
    """HER's beads are arrows, not letters on squares: no mark to clash with."""
    assert sqlite_menace("-m", "her", "init", "--game", "hexapawn", "--colours",
                  "orange=#ff8000,xanadu:X=#738678,green=#009e73,mauve=#e0b0ff").exit_code == 0
