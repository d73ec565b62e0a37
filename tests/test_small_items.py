"""The smaller points of the second hour at the terminal: an empty learning plot, help that says how
a default is chosen, a machine file cut short named for what it lacks."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from conftest import Invoke

from menace.app.series import default_window


def test_plot_learning_of_a_new_machine_is_an_empty_plot(menace: Invoke, tmp_path: Path) -> None:
    menace("init")
    out = menace("plot", "learning", "-o", str(tmp_path / "l.png")).output
    assert "has played no games yet" in out and (tmp_path / "l.png").stat().st_size > 1000


def test_plot_learning_help_says_how_the_window_is_chosen(menace: Invoke) -> None:
    text = " ".join(menace("plot", "learning", "--help").output.split())
    assert "0.5%" in text and f"{default_window(1_337_800):,} for 1,337,800 games" in text


def test_export_help_names_no_file_that_is_not_installed(menace: Invoke) -> None:
    text = " ".join(menace("export", "--help").output.split())
    assert "checksum" in text and "source" in text


@pytest.mark.parametrize("drop", [["boxes"], ["history"], ["machine"], ["boxes", "history"]])
def test_a_machine_file_cut_short_is_named_for_what_it_lacks(menace: Invoke, tmp_path: Path,
                                                             drop: list[str]) -> None:
    menace("init")
    menace("export", str(tmp_path / "m.json"))
    body = json.loads((tmp_path / "m.json").read_text())
    for key in drop:
        del body[key]
    (tmp_path / "cut.json").write_text(json.dumps(body))
    result = menace("--db", str(tmp_path / "other.db"), "import", str(tmp_path / "cut.json"), ok=False)
    assert result.exit_code == 1, result.output
    assert "is not a whole machine file: it has no " + " and no ".join(map(repr, drop)) in result.output
