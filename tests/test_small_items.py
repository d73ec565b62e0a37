"""The smaller points of the second hour at the terminal: an empty learning plot, help that says how
a default is chosen, a machine file cut short named for what it lacks."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from conftest import Invoke

from menace.app.series import default_window


def test_plot_learning_of_a_new_machine_is_an_empty_plot(sqlite_menace: Invoke, tmp_path: Path) -> None:
    sqlite_menace("init")
    out = sqlite_menace("plot", "learning", "-o", str(tmp_path / "l.png")).output
    assert "has played no games yet" in out and (tmp_path / "l.png").stat().st_size > 1000


def test_plot_learning_help_says_how_the_window_is_chosen(sqlite_menace: Invoke) -> None:
    text = " ".join(sqlite_menace("plot", "learning", "--help").output.split())
    assert "0.5%" in text and f"{default_window(1_337_800):,} for 1,337,800 games" in text


def test_export_help_names_no_file_that_is_not_installed(sqlite_menace: Invoke) -> None:
    text = " ".join(sqlite_menace("export", "--help").output.split())
    named = [w for w in text.split() if w.endswith("machine-file.md")]
    assert named and all(Path(w).is_file() for w in named), text


@pytest.mark.parametrize("drop", [["boxes"], ["history"], ["machine"], ["boxes", "history"]])
def test_a_machine_file_cut_short_is_named_for_what_it_lacks(sqlite_menace: Invoke, tmp_path: Path,
                                                             drop: list[str]) -> None:
    sqlite_menace("init")
    sqlite_menace("export", str(tmp_path / "m.json"))
    body = json.loads((tmp_path / "m.json").read_text())
    for key in drop:
        del body[key]
    (tmp_path / "cut.json").write_text(json.dumps(body))
    result = sqlite_menace("--db", str(tmp_path / "other.db"), "import", str(tmp_path / "cut.json"), ok=False)
    assert result.exit_code == 1, result.output
    assert "is not a whole machine file: it has no " + " and no ".join(map(repr, drop)) in result.output
