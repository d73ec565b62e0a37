"""``menace labels`` through the real command group."""

from __future__ import annotations

import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest
from click.testing import CliRunner, Result
from conftest import owner
from pdfread import page_sizes_mm, render_gray

from menace.cli import cli
from menace.cli.labels import labels


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
def db(tmp_path: Path, sqlite_template: Path) -> Path:
    path = tmp_path / "menace.db"
    shutil.copyfile(sqlite_template, path)  # the schema at head: the migrations are not what is tested here
    run(path, "init")
    return path


def pages_mm(pdf: bytes) -> list[tuple[float, float]]:
    return page_sizes_mm(pdf)


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


def test_second_player_machine_on_letter_sticker_free(tmp_path: Path, sqlite_template: Path) -> None:
    path = tmp_path / "o.db"
    shutil.copyfile(sqlite_template, path)
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
        (["--colours", ",".join(["red=#ff0000"] * 9)], "Error: Invalid value for '--colours': red is given twice"),
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


# -- the beads as they are now (a trained machine copied into matchboxes) --------------------------------
def _trained(tmp_path: Path, template: Path, *init: str, vs: str = "smart") -> Path:
    path = tmp_path / "trained.db"
    shutil.copyfile(template, path)  # the schema at head, as in ``db`` above
    run(path, "init", *init)
    run(path, "tournament", "--vs", vs, "-n", "30", "--seed", "3")
    return path


@pytest.mark.parametrize("init", [(), ("--game", "hexapawn")], ids=["tictactoe", "hexapawn"])
def test_labels_beads_now_list_the_trained_counts(tmp_path: Path, sqlite_template: Path,
                                                 init: tuple[str, ...]) -> None:
    from menace.app.machines import load_stored
    from menace.cli.common import machine_colours
    from menace.games import find_game
    from menace.render import labels as L
    from menace.render.beads import places_pieces
    from menace.render.canvas import Canvas

    db = _trained(tmp_path, sqlite_template, *init, vs="perfect" if init else "smart")
    stored = load_stored(owner(f"sqlite:///{db}"), "menace")
    now = sum(b.total for b in stored.boxes)
    start = sum(sum(b.initial.values()) for b in stored.boxes)
    assert now != start  # the tournament changed the counts, so the two kits must differ
    out = tmp_path / "now.pdf"
    result = run(db, "labels", "--out", str(out), "--beads", "now")
    assert f"{now:,} beads to fill as they are now," in result.output
    result = run(db, "labels", "--out", str(tmp_path / "start.pdf"))
    assert f"{start:,} beads to fill," in result.output

    # Each label lists the box's beads now; the drawing still marks every colour it started with.
    game = find_game(stored.game)
    palette = machine_colours(stored.colours, None, places_pieces(game), game.colours)
    spec = L.KitSpec(stored.name, stored.settings, game, palette, beads="now")
    changed = next(b for b in stored.boxes if b.beads != b.initial and any(b.beads.values()))
    canvas = Canvas(53, 36)
    L._draw_label(canvas, game, changed, L.Rect(0, 0, 53, 36), palette, False, spec.fill(changed))
    words = [run.text for run in canvas.texts]
    total = sum(changed.beads.values())
    assert f"move {changed.move_number} · {total} bead{'' if total == 1 else 's'}" in words
    listed = {w.split("×")[1].split()[0]: int(w.split("×")[0]) for w in words if "×" in w}
    by_slot = L.bd.by_slot(game, changed, {m: n for m, n in changed.beads.items() if n})
    assert listed == {palette[s].letter: n for s, n in by_slot.items()}
    letters = [w for w in words if len(w) == 1 and w.isalpha()]  # the lettered dots of the drawing
    assert len(letters) == sum(1 for n in changed.initial.values() if n > 0)


def test_labels_beads_now_png(tmp_path: Path, sqlite_template: Path) -> None:
    """The first label page of a trained kit renders (PDFium reads it, and it has ink)."""
    db = _trained(tmp_path, sqlite_template)
    out = tmp_path / "now.pdf"
    run(db, "labels", "--out", str(out), "--beads", "now")
    image = render_gray(out.read_bytes(), 2, 30)
    assert image.size in ((248, 351), (249, 351)) and image.getextrema()[0] < 128  # A4 at 30 dpi


def test_labels_beads_choice_is_checked(db: Path, tmp_path: Path) -> None:
    result = run(db, "labels", "--out", str(tmp_path / "x.pdf"), "--beads", "later", ok=False)
    assert result.exit_code == 2 and "'later' is not one of 'start', 'now'" in result.output


def test_write_pdf_reports_progress_page_by_page(tmp_path: Path, sqlite_template: Path) -> None:
    from menace.app.machines import load_stored
    from menace.games import find_game
    from menace.render import labels as L

    db = tmp_path / "m.db"
    shutil.copyfile(sqlite_template, db)
    run(db, "init", "--game", "hexapawn")
    stored = load_stored(owner(f"sqlite:///{db}"), "menace")
    calls: list[tuple[int, int]] = []
    summary = L.write_pdf(tmp_path / "k.pdf", stored.boxes, L.KitSpec(stored.name, stored.settings,
                                                                       find_game(stored.game)),
                          progress=lambda done, total: calls.append((done, total)))
    assert calls == [(n, summary.pages) for n in range(1, summary.pages + 1)]
    svg_calls: list[tuple[int, int]] = []
    L.write_svgs(tmp_path / "svg", stored.boxes, L.KitSpec(stored.name, stored.settings, find_game(stored.game)),
                 progress=lambda done, total: svg_calls.append((done, total)))
    assert svg_calls == [(n, 19) for n in range(1, 20)]


def test_no_progress_when_stderr_is_not_a_terminal(db: Path, tmp_path: Path) -> None:
    result = CliRunner().invoke(cli, ["--db", str(db), "-m", "menace", "labels", "--out", str(tmp_path / "a.pdf")],
                                catch_exceptions=False)
    assert result.exit_code == 0 and "drawing" not in result.output
