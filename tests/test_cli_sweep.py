from __future__ import annotations

import csv
import json
from pathlib import Path

from click.testing import CliRunner, Result

from menace.cli.sweep import sweep


def run(*args: str, ok: bool = True) -> Result:
    result = CliRunner().invoke(sweep, list(args), catch_exceptions=not ok)
    if ok:
        assert result.exit_code == 0, result.output
    return result


def test_prints_a_table_row_per_setting_and_writes_files(tmp_path: Path) -> None:
    csv_path, json_path, plot_path = tmp_path / "s.csv", tmp_path / "s.json", tmp_path / "s.svg"
    result = run("--seeds", "5", "--games", "200", "--eval-games", "100", "--beads", "4,3,2,1",
                 "--beads", "8,4,2,1", "--workers", "1", "--csv", str(csv_path), "--json", str(json_path),
                 "--plot", str(plot_path))
    lines = result.stdout.splitlines()
    assert lines[0].split()[:3] == ["setting", "runs", "opening"]
    assert lines[1].split()[:2] == ["beads=4,3,2,1", "5"]
    assert lines[2].split()[:2] == ["beads=8,4,2,1", "5"]
    assert "against perfect" in result.stderr and "trained in" in result.stderr
    rows = list(csv.DictReader(csv_path.read_text().splitlines()))
    assert len(rows) == 10 and rows[0]["label"] == "beads=4,3,2,1" and rows[0]["games"] == "200"
    data = json.loads(json_path.read_text())
    assert data["opponent"] == "perfect" and data["seeds"] == 5 and len(data["summary"]) == 2
    assert plot_path.read_bytes().startswith(b"<?xml")


def test_without_options_it_sweeps_the_preset() -> None:
    result = run("--seeds", "2", "--games", "50", "--eval-games", "0", "--vs", "random", "--preset", "rubyquiz")
    assert result.stdout.splitlines()[1].split()[:2] == ["rubyquiz", "2"]


def test_repeated_options_cross(tmp_path: Path) -> None:
    result = run("--seeds", "2", "--games", "50", "--eval-games", "10", "--vs", "smart", "--side", "X",
                 "--side", "O", "--squares", "all", "--squares", "distinct", "--empty-box", "restock",
                 "--reinforce", "3,1,-1", "--workers", "2")
    labels = [line.split("  ")[0] for line in result.stdout.splitlines()[1:5]]
    assert labels[0] == "reinforce=3,1,-1 empty=restock squares=all side=X"
    assert len(set(labels)) == 4


def test_store_keeps_each_machine_and_refuses_taken_names(tmp_path: Path) -> None:
    db = tmp_path / "s.db"

    args = ["--seeds", "2", "--games", "30", "--eval-games", "0", "--store", "sw", "--db", str(db)]
    result = CliRunner().invoke(sweep, args, catch_exceptions=False)
    assert result.exit_code == 0, result.output
    assert "stored 2 machines, sw-1-1 to sw-1-2" in result.stdout
    again = CliRunner().invoke(sweep, args)
    assert again.exit_code == 1
    assert "Error: machines named sw-1-1, sw-1-2 exist; choose another --store prefix" in again.output


def test_bad_values_exit_2_with_one_line() -> None:
    for args, message in (
        (["--beads", "4,x"], "Invalid value for '--beads': schedule '4,x' is not a comma-separated list"),
        (["--beads", "4,0"], "every move needs at least 1 bead"),
        (["--reinforce", "3,1"], "needs exactly 3 numbers"),
        (["--vs", "nobody"], "Invalid value for '--vs': unknown opponent 'nobody'"),
        (["--vs", "perfect:fast"], "perfect takes 'det'"),
        (["--plot", "s.jpg"], "give a file ending in .png, .svg, .pdf"),
        (["--seeds", "0"], "Invalid value for '--seeds'"),
        (["--squares", "some"], "Invalid value for '--squares'"),
        (["--rule", "pegasus", "--beads", "8,4,2,1"], "the Pegasus rule keeps odds, not beads"),
        (["--decay", "0.3"], "are parameters of the Pegasus rule: choose that rule for them"),
        (["--rule", "pegasus", "--pegasus-a", "0.5"], "A must be a number above 1, not 0.5"),
        (["--rule", "hebb"], "Invalid value for '--rule'"),
    ):
        result = run(*args, ok=False)
        assert result.exit_code == 2, args
        assert message in result.output, result.output
        assert "Traceback" not in result.output
        assert result.output.strip().splitlines()[-1].startswith("Error: ")


def test_help_has_the_example_from_the_issue() -> None:
    result = run("--help")
    assert ("menace sweep --seeds 200 --games 1000 --vs perfect --preset michie-1961 --beads 4,3,2,1 "
            "--beads 8,4,2,1") in result.output
