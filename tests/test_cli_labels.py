"""``menace labels`` through the real command group."""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path

import pytest
from click.testing import CliRunner, Result

from menace.cli import cli
from menace.cli.labels import labels

MEDIABOX = re.compile(rb"/MediaBox\s*\[\s*0\s+0\s+([\d.]+)\s+([\d.]+)\s*\]")
MM_PER_PT = 25.4 / 72


@pytest.fixture(autouse=True)
def labels_command() -> Iterator[None]:
    """Attach ``labels`` to the group for these tests if menace.cli does not yet, and only for them."""
    attached = "labels" not in cli.commands
    if attached:
        cli.add_command(labels)
    yield
    if attached:
        cli.commands.pop("labels", None)


def run(db: Path, *args: str, ok: bool = True) -> Result:
    result = CliRunner().invoke(cli, ["--db", str(db), *args], catch_exceptions=not ok)
    if ok:
        assert result.exit_code == 0, result.output
    return result


@pytest.fixture
def db(tmp_path: Path) -> Path:
    path = tmp_path / "menace.db"
    run(path, "init")
    return path


def pages_mm(pdf: bytes) -> list[tuple[float, float]]:
    return [(float(w) * MM_PER_PT, float(h) * MM_PER_PT) for w, h in MEDIABOX.findall(pdf)]


def test_help_has_examples() -> None:
    assert labels.help and "Examples" in labels.help and "menace labels --out" in labels.help
    result = CliRunner().invoke(cli, ["labels", "--help"])
    assert result.exit_code == 0 and "--label-size" in result.output


def test_labels_for_a_fresh_michie_machine(db: Path, tmp_path: Path) -> None:
    out = tmp_path / "labels.pdf"
    result = run(db, "labels", "--out", str(out))
    assert result.output.splitlines() == [
        f"Wrote {out}: 20 A4 pages, 304 labels of 53 x 36 mm on pages 3-17, 1,720 beads to fill, "
        "2,582 to buy with 50% spare."
    ]
    sizes = pages_mm(out.read_bytes())
    assert len(sizes) == 20
    assert all(w == pytest.approx(210, abs=0.01) and h == pytest.approx(297, abs=0.01) for w, h in sizes)


def test_second_player_machine_on_letter_sticker_free(tmp_path: Path) -> None:
    path = tmp_path / "o.db"
    run(path, "-m", "second", "init", "--side", "O")
    out = tmp_path / "second.pdf"
    result = run(path, "-m", "second", "labels", "--out", str(out), "--paper", "letter", "--spare", "0")
    assert "289 labels" in result.output and "Letter pages" in result.output
    assert "1,991 beads to fill, 1,991 to buy with 0% spare" in result.output
    sizes = pages_mm(out.read_bytes())
    assert all(w == pytest.approx(215.9, abs=0.01) and h == pytest.approx(279.4, abs=0.01) for w, h in sizes)


def test_svg_writes_one_file_per_box(db: Path, tmp_path: Path) -> None:
    folder = tmp_path / "svg"
    result = run(db, "labels", "--format", "svg", "--out", str(folder), "--sheet", "a4-21")
    assert "Wrote 304 SVG labels (63.5 x 38.1 mm)" in result.output
    files = sorted(folder.glob("box-*.svg"))
    assert len(files) == 304 and files[0].name == "box-0001.svg"


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--label-size", "53by36"], "Error: Invalid value for '--label-size': '53by36' is not a label size"),
        (["--label-size", "20x10"], "Error: Invalid value for '--label-size': a 20 x 10 mm label is too small"),
        (["--label-size", "250x36"], "Error: Invalid value for '--label-size': a 250 x 36 mm label does not fit"),
        (["--colours", "red=#ff0000,blue=#0000ff"], "Error: Invalid value for '--colours': this machine's game needs"),
        (["--colours", ",".join(["red=#ff0000"] * 9)], "Error: Invalid value for '--colours': each colour needs"),
        (["--spare", "lots"], "Error: Invalid value for '--spare': 'lots' is not a percentage"),
        (["--sheet", "a4-21", "--label-size", "53x36"], "Error: --sheet a4-21 has its own label size"),
        (["--sheet", "a4-21", "--paper", "letter"], "Error: --sheet a4-21 is A4 paper"),
    ],
)
def test_bad_options_exit_2_with_one_line(db: Path, tmp_path: Path, args: list[str], message: str) -> None:
    out = tmp_path / "x.pdf"
    result = run(db, "labels", "--out", str(out), *args, ok=False)
    assert result.exit_code == 2
    error_lines = [line for line in result.output.splitlines() if line.startswith("Error")]
    assert len(error_lines) == 1 and error_lines[0].startswith(message)
    assert result.output.rstrip().splitlines()[-1] == error_lines[0]
    assert not out.exists()


def test_unknown_machine_and_unwritable_file_exit_1(db: Path, tmp_path: Path) -> None:
    result = run(db, "-m", "nope", "labels", "--out", str(tmp_path / "x.pdf"), ok=False)
    assert result.exit_code == 1 and result.output.startswith("Error:")
    result = run(db, "labels", "--out", str(tmp_path / "missing" / "x.pdf"), ok=False)
    assert result.exit_code == 1
    assert result.output.splitlines() == [f"Error: cannot write {tmp_path / 'missing' / 'x.pdf'}: "
                                          f"folder {tmp_path / 'missing'} does not exist"]
