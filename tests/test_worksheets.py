"""The lesson's worksheets: ``menace worksheets``, the pages it draws, and the lesson and its worksheets
served by ``menace serve`` from the installed package (a classroom often has no internet)."""

from __future__ import annotations

import io
from collections.abc import Iterator
from pathlib import Path

import pypdfium2 as pdfium
import pytest
from click.testing import CliRunner
from starlette.testclient import TestClient

from menace.cli import cli
from menace.render.canvas import Canvas, measure
from menace.render.labels_layout import A4, LETTER
from menace.render.worksheets import WorksheetError, WorksheetSpec, worksheet_pages, write_worksheets
from menace.web.app import create_app
from menace.web.lesson import lesson_markdown

MM_PER_PT = 25.4 / 72
SAFE = 8.0


def pdf_pages(data: bytes) -> list[tuple[float, float, str]]:
    """Each page's width and height in mm and its text, read back from the PDF."""
    pdf = pdfium.PdfDocument(data)
    try:
        out = []
        for page in pdf:
            width, height = page.get_size()
            text = page.get_textpage().get_text_range()
            out.append((width * MM_PER_PT, height * MM_PER_PT, text))
        return out
    finally:
        pdf.close()


def text_boxes(page: Canvas) -> list[tuple[str, float, float, float, float]]:
    """Each text run's box (x0, y0, x1, y1) in mm: its advance across, its glyphs' reach up and down."""
    boxes = []
    for run in page.texts:
        metrics = measure(run.text, run.face)
        scale = run.size / run.face.font.units_per_em * MM_PER_PT
        boxes.append((run.text, run.x, run.y - metrics.descent * scale, run.x + metrics.advance * scale,
                      run.y + metrics.ascent * scale))
    return boxes


def test_the_cli_writes_a_tally_and_the_graph_sheet_on_a4(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    result = CliRunner().invoke(cli, ["worksheets"], catch_exceptions=False)
    assert result.exit_code == 0, result.output
    assert result.output == ("Wrote worksheets.pdf: 2 A4 pages, a results tally for 30 games (1 page) and "
                             "'How many games until it stops losing?'.\n")
    pages = pdf_pages((tmp_path / "worksheets.pdf").read_bytes())
    assert [(round(w, 1), round(h, 1)) for w, h, _ in pages] == [(210.0, 297.0)] * 2
    tally, graph = pages[0][2], pages[1][2]
    assert "Results tally: the class against MENACE" in tally
    assert all(str(n) in tally.split() for n in range(1, 31)) and "31" not in tally.split()
    assert "How many games until it stops losing?" in graph
    assert "I think MENACE will stop losing after" in graph
    assert "If we freeze MENACE now" in graph.replace("\r\n", " ").replace("\n", " ")


def test_more_games_take_more_tally_pages_and_letter_paper(tmp_path: Path) -> None:
    out = tmp_path / "class.pdf"
    result = CliRunner().invoke(cli, ["worksheets", "--out", str(out), "--paper", "letter", "--games", "60",
                                      "--name", "HER"], catch_exceptions=False)
    assert result.exit_code == 0, result.output
    assert "4 Letter pages, a results tally for 60 games (3 pages)" in result.output
    pages = pdf_pages(out.read_bytes())
    assert [(round(w, 1), round(h, 1)) for w, h, _ in pages] == [(LETTER.width, LETTER.height)] * 4
    rows = [[n for n in range(1, 61) if str(n) in text.split()] for _, _, text in pages[:3]]
    assert rows == [list(range(1, 21)), list(range(21, 41)), list(range(41, 61))], "20 rows a page"
    assert "against HER" in pages[0][2]


def test_the_same_options_give_the_same_bytes() -> None:
    first, second = io.BytesIO(), io.BytesIO()
    write_worksheets(first, WorksheetSpec(games=45))
    write_worksheets(second, WorksheetSpec(games=45))
    assert first.getvalue() == second.getvalue()
    assert b"CreationDate" not in first.getvalue()


@pytest.mark.parametrize("games", [10, 30, 37, 60, 61, 120, 200])
@pytest.mark.parametrize("paper", [A4, LETTER])
def test_no_text_leaves_the_page_or_overlaps_other_text(games: int, paper: object) -> None:
    for page in worksheet_pages(WorksheetSpec(paper=paper, games=games, machine="MENACE")):  # type: ignore[arg-type]
        boxes = text_boxes(page)
        for text, x0, y0, x1, y1 in boxes:  # 8 mm from every edge: what any printer prints
            assert SAFE <= x0 and x1 <= page.width - SAFE, text
            assert SAFE <= y0 and y1 <= page.height - SAFE, text
        for i, (a, ax0, ay0, ax1, ay1) in enumerate(boxes):
            for b, bx0, by0, bx1, by1 in boxes[i + 1:]:
                overlap = min(ax1, bx1) - max(ax0, bx0) > 0.05 and min(ay1, by1) - max(ay0, by0) > 0.05
                assert not overlap, (a, b)


def test_tally_headings_fit_their_columns() -> None:
    page = worksheet_pages(WorksheetSpec(machine="A LONG NAME"))[0]
    headings = [t for t in text_boxes(page) if t[0] in ("Game", "Who played", "A LONG NAME", "won", "Draw", "lost",
                                                        "Losses", "so far")]
    assert len(headings) == 9  # the name twice
    paths = [path for style in page.lines.values() for path in style]
    verticals = sorted({path[0][0] for path in paths if len({x for x, _ in path}) == 1})
    assert len(verticals) == 7
    for text, x0, _, x1, _ in headings:
        inside = [x for x in verticals if x0 < x < x1]
        assert inside == [], (text, inside)


def test_out_of_range_games_are_a_usage_error(tmp_path: Path) -> None:
    result = CliRunner().invoke(cli, ["worksheets", "--out", str(tmp_path / "w.pdf"), "--games", "5"])
    assert result.exit_code == 2
    assert "--games" in result.output and not (tmp_path / "w.pdf").exists()
    with pytest.raises(WorksheetError, match="10 to 200 games, not 500"):
        WorksheetSpec(games=500)


def test_a_folder_that_does_not_exist_is_one_line(tmp_path: Path) -> None:
    result = CliRunner().invoke(cli, ["worksheets", "--out", str(tmp_path / "nowhere" / "w.pdf")])
    assert result.exit_code == 1
    assert result.output.startswith("Error: cannot write") and "Traceback" not in result.output


@pytest.fixture
def server(tmp_path: Path) -> Iterator[TestClient]:
    url = f"sqlite:///{tmp_path / 'menace.db'}"
    with TestClient(create_app(url, "menace"), base_url="http://127.0.0.1:8000") as client:
        yield client


def test_menace_serve_shows_the_lesson_from_the_package(server: TestClient) -> None:
    page = server.get("/lesson")
    assert page.status_code == 200
    html = page.text
    assert "<h1" in html and "A lesson: the machine that learns from matchboxes" in html
    assert "<table>" in html and "Misconceptions pupils have" in html
    lesson = html[html.index('<article class="lesson">'):html.index("</article>")]
    assert 'href="/lesson/worksheets.pdf"' in lesson, "the lesson's own link points at this server"
    assert "http://" not in lesson and "https://" not in lesson, "nothing the page needs is elsewhere"
    assert "http://127.0.0.1:8000/" in html and "https://" not in html
    assert '<pre tabindex="0"><code class="language-sh">menace worksheets' in html
    assert 'href="/lesson"' in server.get("/").text, "the lesson is in every page's menu"


def test_menace_serve_serves_the_worksheets(server: TestClient) -> None:
    answer = server.get("/lesson/worksheets.pdf")
    assert answer.status_code == 200 and answer.headers["content-type"] == "application/pdf"
    assert len(pdf_pages(answer.content)) == 2
    letter = server.get("/lesson/worksheets.pdf?paper=letter&games=60")
    assert [round(w, 1) for w, _, _ in pdf_pages(letter.content)] == [LETTER.width] * 4
    for query, message in [("games=5", "10 to 200 games, not 5"), ("games=x", "games must be a whole number"),
                           ("paper=a3", "unknown paper 'a3'")]:
        bad = server.get(f"/lesson/worksheets.pdf?{query}")
        assert bad.status_code == 400 and message in bad.json()["error"], query


def test_the_site_and_the_server_show_the_same_lesson() -> None:
    root = Path(__file__).resolve().parents[1]
    assert (root / "docs" / "guides" / "teacher.md").read_text() == '--8<-- "lesson.md"\n'
    assert lesson_markdown() == (root / "menace" / "docs" / "lesson.md").read_text()
