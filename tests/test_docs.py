"""The documentation: the site builds with ``mkdocs build --strict`` and works without internet, its
generated references say what the code says, README stays short, the performance page is the
benchmarks' output, and the machine file's description is installed where the help says.

(Every command the documentation shows is run by tests/test_examples.py.)
"""

from __future__ import annotations

import functools
import html
import os
import re
import subprocess
import sys
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner
from run_once import built_once
from test_cli_help import all_commands
from web_browser_helpers import page_at

from menace.cli import cli
from menace.cli.transfer import MACHINE_FILE_DOC
from menace.core.settings import PRESETS

ROOT = Path(__file__).resolve().parents[1]


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The site as ``mkdocs build --strict`` builds it, once per run (building it costs some 5 s of CPU)."""
    return built_once(tmp_path_factory, "site", _build_site)


def _build_site(out: Path) -> None:
    env = {**os.environ, "NO_MKDOCS_2_WARNING": "1"}
    done = subprocess.run([sys.executable, "-m", "mkdocs", "build", "--strict", "--site-dir", str(out)],
                          cwd=ROOT, capture_output=True, text=True, env=env)
    assert done.returncode == 0, done.stderr


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


READ_PAGES = ("", "guides/teacher/", "guides/festival/", "reference/cli/", "performance/", "reference/settings/",
              "explanation/guarantees/", "reference/python-api/")
"""Pages looked at in Chromium: the home page, the lesson, the festival guide, the references with
wide tables and help text, the performance page."""

CODE_LINES = """Array.from(document.querySelectorAll('.md-typeset pre > code')).map(c => ({
  longest: Math.max(...c.textContent.split('\\n').map(l => l.length)),
  scrolls: c.scrollWidth > c.clientWidth + 1}))"""


@pytest.mark.slow
@pytest.mark.browser
def test_the_site_reads_on_a_phone_and_a_laptop(site: Path, browser: Any) -> None:
    """The built site, served as any static server would (here on a free loopback port): no page
    scrolls sideways at a phone's or a laptop's size; on a laptop the column is wide enough that a
    table needs no scrolling and a block of code of 96 columns (the commands' help, most of its
    example lines) is read without scrolling; no script error."""
    with static_server(site) as base:
        _read_the_site(browser, base)


@contextmanager
def static_server(folder: Path) -> Iterator[str]:
    """``python -m http.server`` for ``folder`` on a free port of 127.0.0.1, in a thread; its address."""
    handler = functools.partial(QuietHandler, directory=str(folder))
    server = ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}/"
    finally:
        server.shutdown()
        server.server_close()
        thread.join()


class QuietHandler(SimpleHTTPRequestHandler):
    def log_message(self, format: str, *args: Any) -> None:  # noqa: A002 - the base class's name
        pass


SEARCH_WORKER = "**/assets/javascripts/workers/search.*.js"
"""The search's worker (it builds the search's index of the whole site in each page loaded): not
started where the page is only looked at, started for the search the test makes."""


def _read_the_site(browser: Any, base: str) -> None:
    for size in ((390, 844), (1366, 768)):
        with page_at(browser, size) as (page,):
            page.route(SEARCH_WORKER, lambda route: route.abort())
            for path in READ_PAGES:
                page.goto(base + path)
                where = f"{path or 'home'} at {size[0]}x{size[1]}"
                sideways = "document.documentElement.scrollWidth > document.documentElement.clientWidth"
                assert not page.evaluate(sideways), where
                if size[0] < 1000:
                    continue
                tables = page.evaluate("Array.from(document.querySelectorAll('.md-typeset__table'))"
                                       ".filter(t => t.scrollWidth > t.clientWidth + 1).length")
                assert tables == 0, where
                wide = [c for c in page.evaluate(CODE_LINES) if c["scrolls"] and c["longest"] <= 96]
                assert wide == [], (where, wide)
            # The navigation leads to the pages, and the search (its index shipped with the site) finds them.
            if size[0] >= 1000:
                page.unroute(SEARCH_WORKER)
            page.goto(base)
            page.locator("article").get_by_role("link", name="A teacher's lesson").click()
            page.wait_for_url("**/guides/teacher/")
            assert "Misconceptions pupils have" in page.inner_text("article")
            if size[0] >= 1000:
                # typed as a person types, once the search says it is ready: a value filled in at once
                # (no key events) before or just after its worker started was not searched for (CI)
                page.wait_for_function("!document.querySelector('.md-search-result__meta')"
                                       ".textContent.includes('Initializing')")
                page.locator("input.md-search__input").press_sequentially("misconceptions")
                page.wait_for_selector(".md-search-result__item")


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
    text = (ROOT / "docs" / "performance.md").read_text()
    assert text == performance_page.page()
    results = {p.stem for p in (ROOT / "benchmarks" / "results").glob("*.txt")}
    names = {b.name for b in performance_page.BENCHMARKS}
    assert results == names, results ^ names  # every benchmark listed has run, and only those


def test_the_nim_figures_quoted_are_the_sweeps_the_researchers_guide_runs() -> None:
    """README, the researcher's guide and adding-a-game quote the Nim sweeps' last losses; the sweeps
    themselves are a console session of the researcher's guide, which tests/test_examples.py runs."""
    guide = (ROOT / "docs" / "guides" / "researcher.md").read_text()
    shown = dict(re.findall(r"^\$ menace sweep --game nim --side O --vs (\w+) .*\n(?:\.\.\.\n)?.*\n"
                            r"side=O .*?  (\d+ \(max \d+\))  ", guide, re.M))
    last = {vs: tuple(re.findall(r"\d+", figure)) for vs, figure in shown.items()}
    assert set(last) == {"perfect", "random"}, shown
    (p50, pmax), (r50, rmax) = last["perfect"], last["random"]
    readme = " ".join((ROOT / "README.md").read_text().split())
    assert (f"a Nim machine loses for the last time at game {p50} (the median of 200 machines; {pmax} at the "
            f"latest), against a random player at game {r50} ({rmax} at the latest)") in readme
    prose = " ".join(guide.split())
    assert f"by game {p50} against the perfect player (every one by game {pmax})" in prose
    assert f"only by game {r50} ({rmax})" in prose
    recipe = (ROOT / "docs" / "adding-a-game.md").read_text()
    assert f"| second | perfect | {p50} | {pmax} |" in recipe and f"| second | random | {r50} | {rmax} |" in recipe


def _parametrized(test: object, argname: str) -> list[object]:
    """The values ``@pytest.mark.parametrize`` gives ``argname`` of ``test``."""
    for mark in getattr(test, "pytestmark", []):
        if mark.name == "parametrize" and mark.args[0] == argname:
            return list(mark.args[1])
    raise AssertionError(f"{test} has no parameter {argname}")


WORDS = ["no", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten"]


def _examples(test: object) -> int:
    return int(test._hypothesis_internal_use_settings.max_examples)  # type: ignore[attr-defined]


def test_the_guarantees_page_counts_are_what_the_tests_and_code_say() -> None:
    """Each count and limit docs/explanation/guarantees.md gives, worked out from the tests that
    show it and the code that sets it: a test added or a limit changed fails here until the page says so."""
    import test_guarantees
    import test_import_streamed
    import test_reliability_damage as damage
    import test_reliability_files
    import test_reliability_fuzz as fuzz
    import test_reliability_import
    import test_reliability_interrupt as interrupt
    import test_reliability_migrations as migrations

    from menace.app import machine_file
    from menace.app.sweep import PARENT_CHECK_SECONDS
    from menace.app.tournament import BUSY_WAIT_SECONDS
    from menace.storage.leases import HEARTBEAT_SHARE, LEASE_SECONDS

    page = " ".join((ROOT / "docs" / "explanation" / "guarantees.md").read_text().split())
    crafted = (len(test_reliability_import.CONTENT_CASES) + len(test_reliability_import.FLOAT_CASES)
               + len(test_reliability_import.TEXT_CASES))
    options, files = (_examples(fuzz.test_no_option_crashes_and_refusals_change_nothing),
                      _examples(fuzz.test_no_machine_file_crashes_an_import))
    commands = _parametrized(interrupt.test_ctrl_c_at_every_stage_of_start_up_exits_130_with_one_line, "args")
    revisions = _parametrized(migrations.test_upgrade_finishes_from_every_revision_after_an_older_version_wrote,
                              "revision")
    sides = _parametrized(migrations.test_upgrade_finishes_from_every_revision_after_an_older_version_wrote,
                          "replaced")
    names = _parametrized(test_reliability_files.test_one_rule_for_machine_names, "name")
    streamed = _examples(test_import_streamed.test_the_streamed_reading_refuses_and_reads_what_the_whole_reading_does)
    said = {
        f"renews its lease every {LEASE_SECONDS / HEARTBEAT_SHARE:g} s": "the heartbeat",
        f"after {LEASE_SECONDS:g} s of silence": "the lease's length",
        f"renews the lease every {LEASE_SECONDS / HEARTBEAT_SHARE:g} seconds": "the heartbeat (prose)",
        f"after {LEASE_SECONDS:g} seconds of silence": "the lease's length (prose)",
        f"up to {BUSY_WAIT_SECONDS:g} s": "a flush's wait on a busy database",
        f"within {PARENT_CHECK_SECONDS:g} s of its death": "a sweep worker's watch on its parent",
        f"at most {machine_file.MAX_DIGITS} digits": "an integer's digits",
        f"nesting at most {machine_file.MAX_DEPTH} deep": "nesting",
        f"{crafted} crafted files": "tests/test_reliability_import.py",
        f"{len(damage.SCENARIOS)} generated damage scenarios x {len(damage.COMMANDS)} commands "
        f"({len(damage.SCENARIOS) * len(damage.COMMANDS)} runs)": "tests/test_reliability_damage.py",
        f"{options + files:,} cases per run ({options} command lines over {len(fuzz.COMMANDS)} commands, "
        f"{files} mutated machine files)": "tests/test_reliability_fuzz.py",
        f"the {len(fuzz.COMMANDS)} commands the fuzz test runs": "tests/test_reliability_fuzz.py (not yet done)",
        f"({len(interrupt.STAGES)} stages x {len(commands)} commands)": "tests/test_reliability_interrupt.py",
        f"(base, 0001-{revisions[-1]})": "tests/test_reliability_migrations.py's revisions",
        f"({len(revisions) * len(sides)} cases)": "tests/test_reliability_migrations.py's cases",
        f"({len(names)} hostile names)": "test_one_rule_for_machine_names",
        f"({streamed} per run)": "tests/test_import_streamed.py",
        f"kills a running tournament {WORDS[test_guarantees.KILLS]} times": "the crash test's kills",
    }
    missing = {text: why for text, why in said.items() if text not in page}
    assert missing == {}


def test_the_limits_the_web_and_integrity_pages_give_are_the_codes() -> None:
    """The web server's limits and timeouts (web-security, the HTTP API, the classroom) and the
    database's (integrity), worked out from the settings that make them."""
    from starlette.applications import Starlette

    from menace.storage.database import WAL_SIZE_LIMIT
    from menace.storage.leases import LEASE_SECONDS
    from menace.web import boundary, server, tables
    from menace.web.guard import TokenLimiter

    def page(name: str) -> str:
        return " ".join((ROOT / "docs" / name).read_text().split())

    config = server.server_config(Starlette())
    security, api = page("web-security.md"), page("reference/http-api.md")
    integrity, classroom = page("integrity.md"), page("classroom.md")
    said = {
        security: [f"| {server.HEADER_TIMEOUT:g} s of connecting", f"| {server.BODY_TIMEOUT:g} s (then `408`)",
                   f"| {server.SEND_TIMEOUT:g} s (the socket's buffer full)",
                   f"| idle keep-alive connections | {config.timeout_keep_alive} s |",
                   f"| connections at once | {config.limit_concurrency:,} (more get `503`)",
                   f"| upload | {boundary.UPLOAD_LIMIT >> 20} MB |",
                   f"may give {TokenLimiter.FREE_FAILURES} wrong tokens",
                   f"up to {TokenLimiter.LONGEST_WAIT // 60} minutes"],
        api: [f"Bodies are at most {boundary.BODY_LIMIT >> 10} KiB, an imported machine file at most "
              f"{boundary.UPLOAD_LIMIT >> 20} MB"],
        integrity: [f"runs out {LEASE_SECONDS:g} seconds after its last heartbeat",
                    f"nobody touches for {tables.IDLE_SECONDS // 60:g} minutes",
                    f"down to {WAL_SIZE_LIMIT >> 20} MiB"],
        classroom: ["given up within a minute"],
    }
    for text, phrases in said.items():
        assert [p for p in phrases if p not in text] == []
    # "within a minute": a page unheard of for ORPHAN_SECONDS is given up at the sweeper's next round
    assert tables.ORPHAN_SECONDS + min(5.0, tables.ORPHAN_SECONDS / 4) <= 60


def test_the_python_api_session_runs_as_shown(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The ``pycon`` blocks of the Python API page, run as doctests in an empty folder."""
    import doctest

    monkeypatch.chdir(tmp_path)
    text = (ROOT / "docs" / "reference" / "python-api.md").read_text()
    blocks = re.findall(r"^```pycon\n(.*?)```", text, re.S | re.M)
    assert blocks
    parser, runner = doctest.DocTestParser(), doctest.DocTestRunner(optionflags=doctest.ELLIPSIS)
    for n, block in enumerate(blocks, 1):
        runner.run(parser.get_doctest(block, {}, f"python-api.md block {n}", None, 0))
    assert runner.summarize(verbose=False).failed == 0


def test_export_help_names_the_installed_description_of_the_file() -> None:
    assert MACHINE_FILE_DOC.is_file()
    assert MACHINE_FILE_DOC.read_text().startswith("# The machine file")
    for command in ("export", "import"):
        text = CliRunner().invoke(cli, [command, "--help"]).output
        assert str(MACHINE_FILE_DOC) in text, command
