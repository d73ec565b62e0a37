"""The documentation: the site builds with ``mkdocs build --strict`` and works without internet, its
generated references say what the code says, README stays short, the performance page is the
benchmarks' output, and the machine file's description is installed where the help says.

(Every command the documentation shows is run by tests/test_examples.py.)
"""

from __future__ import annotations

import html
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner
from test_cli_help import all_commands

from menace.cli import cli
from menace.cli.transfer import MACHINE_FILE_DOC
from menace.core.settings import PRESETS

ROOT = Path(__file__).resolve().parents[1]


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("site")
    env = {**os.environ, "NO_MKDOCS_2_WARNING": "1"}
    done = subprocess.run([sys.executable, "-m", "mkdocs", "build", "--strict", "--site-dir", str(out)],
                          cwd=ROOT, capture_output=True, text=True, env=env)
    assert done.returncode == 0, done.stderr
    return out


def page_text(site: Path, page: str) -> str:
    return html.unescape(re.sub(r"<[^>]+>", " ", (site / page / "index.html").read_text()))


@pytest.mark.slow
def test_the_site_builds_strictly_with_every_page_of_the_issue(site: Path) -> None:
    for page in ("tutorials/first-machine", "tutorials/real-machine", "guides/teacher", "guides/builder",
                 "guides/festival", "guides/researcher", "reference/cli", "reference/exit-statuses",
                 "reference/settings", "reference/machine-file", "reference/http-api", "reference/python-api",
                 "explanation/how-menace-learns", "explanation/history", "explanation/guarantees",
                 "explanation/architecture", "performance", "contributing", "changelog", "adding-a-game"):
        assert (site / page / "index.html").exists(), page
    assert (site / "guides" / "worksheets.pdf").read_bytes().startswith(b"%PDF-")


@pytest.mark.slow
def test_the_site_needs_no_internet(site: Path) -> None:
    """No page loads a script, style, font or picture from elsewhere (Material's web fonts are off)."""
    for page in site.rglob("*.html"):
        text = page.read_text()
        outside = re.findall(r"<(?:script|link|img|iframe)\b[^>]*(?:src|href)=\"(https?:)?//[^\"]+\"", text)
        assert outside == [], (page, outside)
        assert "fonts.googleapis" not in text and "fonts.gstatic" not in text, page
    for sheet in site.rglob("*.css"):
        assert not re.search(r"url\((['\"]?)https?://", sheet.read_text()), sheet


@pytest.mark.slow
def test_the_cli_reference_has_every_command_and_option(site: Path) -> None:
    text = page_text(site, "reference/cli")
    for name, command in all_commands(cli):
        assert f"menace {name}" in text, name
        for param in command.params:
            for opt in getattr(param, "opts", []):
                if opt.startswith("--"):
                    assert opt in text, (name, opt)


@pytest.mark.slow
def test_the_generated_tables_are_the_code(site: Path) -> None:
    api = page_text(site, "reference/http-api")
    for path in ("/api/health", "/api/machines/{name}/boxes", "/api/train/stop", "/lesson/worksheets.pdf",
                 "/api/operate/{seat}/bead"):
        assert path in api, path
    settings = page_text(site, "reference/settings")
    for name, preset in PRESETS.items():
        assert name in settings and preset.empty_policy.value in settings, name
    python = page_text(site, "reference/python-api")
    assert "menace.app.machines" in python and "MenaceError" in python
    lesson = page_text(site, "guides/teacher")
    assert "Misconceptions pupils have" in lesson
    assert 'href="../worksheets.pdf"' in (site / "guides" / "teacher" / "index.html").read_text()


def test_every_page_is_in_the_navigation() -> None:
    nav = (ROOT / "mkdocs.yml").read_text()
    pages = {str(p.relative_to(ROOT / "docs")) for p in (ROOT / "docs").rglob("*.md")}
    assert pages and all(page in nav for page in pages), sorted(p for p in pages if p not in nav)


def test_readme_is_short_and_points_to_the_site() -> None:
    readme = (ROOT / "README.md").read_text().splitlines()
    assert 100 <= len(readme) <= 150, len(readme)
    text = "\n".join(readme)
    assert "![The matchbox wall in the browser](docs/screenshot-wall.png)" in text
    for link in re.findall(r"\]\(((?:docs/|[A-Z]+\.md)[^)#]*)\)", text):
        assert (ROOT / link).exists(), link


def test_the_performance_page_is_the_benchmarks_output() -> None:
    """docs/performance.md is written by benchmarks/performance_page.py from benchmarks/results/ alone."""
    sys.path.insert(0, str(ROOT / "benchmarks"))
    try:
        import performance_page
    finally:
        sys.path.remove(str(ROOT / "benchmarks"))
    assert (ROOT / "docs" / "performance.md").read_text() == performance_page.page()
    results = sorted(p.stem for p in (ROOT / "benchmarks" / "results").glob("*.txt"))
    assert results == sorted(b.name for b in performance_page.BENCHMARKS)


def test_export_help_names_the_installed_description_of_the_file() -> None:
    assert MACHINE_FILE_DOC.is_file()
    assert MACHINE_FILE_DOC.read_text().startswith("# The machine file")
    for command in ("export", "import"):
        text = CliRunner().invoke(cli, [command, "--help"]).output
        assert str(MACHINE_FILE_DOC) in text, command
