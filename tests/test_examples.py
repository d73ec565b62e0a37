"""Every example line of every command's help text and of the documentation runs, against a scratch
database; every ``console`` block of the documentation runs as shown and prints what it shows.

The lines are collected from the help texts (the lines under "Example(s):" and "Start here:") and
from the ``sh`` blocks of README.md, the pages of the site (``docs/``), the pages installed with the
package (``menace/docs/``), CONTRIBUTING.md and CHANGELOG.md. Each runs in process (click's
CliRunner) in a fresh folder:
``init`` and ``import`` lines in an empty one, the rest beside a ``menace.db`` holding a machine
``menace`` trained for 2,000 games against smart, a machine ``second`` that moves second, HER and
the classroom's Nim machine ``nim`` (with
copies as ``club.db`` and ``old.db``, and an exported ``menace.json``). A line joined with ``&&``
runs part by part in one folder, as a shell would. A ``menace serve`` line runs as a process that
is started (forked from one that imported menace: tests/forked_menace.py), waited for (its "Serving"
line, then ``/api/health``), looked at and stopped with Ctrl-C (:func:`test_serve_example_serves`).

Some lines are changed before they run, each for a stated reason (:data:`SHORTER`), and a few are
not run at all (:data:`NOT_RUN`); a test below keeps both lists honest: every entry must still
match an example.

The ``console`` blocks of a page are a session: their ``$ menace ...`` lines run in the page's
order in an empty folder, and each one's output must be the lines shown under it, where a line
``...`` stands for any number of lines and ``...`` inside a line for any text (timings, say).
"""

from __future__ import annotations

import os
import re
import shlex
import shutil
import signal
import urllib.request
from collections.abc import Iterator
from pathlib import Path

import click
import pytest
from click.testing import CliRunner
from conftest import wait_until
from forked_menace import Forked, MenaceForks
from test_cli_help import all_commands

from menace.cli import cli

ROOT = Path(__file__).resolve().parents[1]
README = (ROOT / "README.md").read_text()
DOC_FILES = [ROOT / "README.md", *sorted((ROOT / "docs").rglob("*.md")),
             *sorted((ROOT / "menace" / "docs").glob("*.md")),
             *[ROOT / name for name in ("CONTRIBUTING.md", "CHANGELOG.md") if (ROOT / name).exists()]]
DOCS = {str(path.relative_to(ROOT)): path.read_text() for path in DOC_FILES}
EVERY_SQUARE = "".join(f"{sq}\n" for sq in "a1 a2 a3 b1 b2 b3 c1 c2 c3".split())

SHORTER: dict[str, tuple[str, str, str]] = {
    # (text in the example, what runs instead, why)
    "for": ("--for 8h", "--for 1s", "an overnight run: a second shows it starts and stops with status 0"),
    "seeds": ("--seeds 200", "--seeds 6", "200 machines per setting take a few seconds; 6 show the table"),
    "plot": ("--squares distinct --plot", "--squares distinct --seeds 6 --plot",
             "the default 100 machines per setting (four settings) take seconds; 6 draw the plot"),
    "json": ("--empty-box restock --json", "--empty-box restock --seeds 6 --json",
             "the default 100 machines per setting take seconds; 6 write the JSON"),
    "td": ("--vs td:5000", "--vs td:300", "td trains on 5,000 games first; 300 are enough to run the line"),
}

NOT_RUN: dict[str, str] = {
    # the example's text -> why it is not run here
    "menace operate": "a person at a real matchbox machine answers each draw; test_operate_transfer.py plays "
                      "operated games with those answers",
    "menace sweep --seeds 1000 --games 10000 --cluster tcp://scheduler:8786": "needs a Dask scheduler at that "
        "address; tests/test_sweep_dask.py runs sweeps on a local cluster",
    "menace -m her play": "a person types Hexapawn moves as the game goes; tests/test_hexapawn_machine.py plays "
                          "HER at the terminal",
    'menace colours "red=#d62728,orange=#ff7f0e,..."': "a pattern (nine colours are meant); "
                                                     "test_machine.py sets nine colours",
}

INPUT = {
    # what a person types at the prompts of an interactive line (CliRunner is not a terminal)
    "play": EVERY_SQUARE * 3,
    "reconcile": "\n" * 9,
    "puzzle": "n\nq\n",
}


def _command_part(text: str) -> str:
    """``menace x --y 1      what it does`` -> ``menace x --y 1`` (a comment or a description cut off)."""
    text = text.split(" #", 1)[0]
    return re.split(r"\s{2,}", text.strip(), maxsplit=1)[0]


def help_examples() -> list[str]:
    found: list[str] = []
    for _, cmd in [("", cli), *all_commands(cli)]:
        for line in (cmd.help or "").splitlines():
            line = line.strip()
            if line.startswith("Example: "):
                line = line[len("Example: "):]
            if line.startswith("menace "):
                found.append(_command_part(line))
    return found


def doc_examples() -> list[str]:
    """The menace lines of every ``sh`` block of the documentation (a console block is a session: below)."""
    found: list[str] = []
    for text in DOCS.values():
        for block in re.findall(r"^ *```sh\n(.*?)```", text, re.S | re.M):
            for line in block.splitlines():
                line = line.strip()
                if line.startswith(("menace ", "python3 -m venv .venv && .venv/bin/pip install . &&")):
                    found.append(_command_part(line))
    return found


def console_sessions() -> list[tuple[str, list[tuple[str, list[str]]]]]:
    """Every page's ``console`` blocks, as one session in the page's order: each command with the
    output shown under it."""
    sessions = []
    for where, text in DOCS.items():
        steps: list[tuple[str, list[str]]] = []
        for n, block in enumerate(re.findall(r"^ *```console\n(.*?)```", text, re.S | re.M), 1):
            for k, line in enumerate(block.splitlines()):
                if line.startswith("$ "):
                    steps.append((line[2:].strip(), []))
                else:
                    assert k > 0, f"{where}, console block {n}: output before the first command"
                    steps[-1][1].append(line)
        if steps:
            sessions.append((where, steps))
    return sessions


SESSIONS = console_sessions()
EXAMPLES = list(dict.fromkeys(help_examples() + doc_examples()))


@pytest.fixture(scope="module")
def trained(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A folder with menace.db (machines 'menace', trained, 'second', 'alice', 'her', 'nim'), club.db, old.db,
    menace.json."""
    folder = tmp_path_factory.mktemp("trained")
    db = str(folder / "menace.db")
    for args in (["init"], ["tournament", "--vs", "smart", "-n", "2000", "--seed", "1"],
                 ["-m", "second", "init", "--side", "O"], ["-m", "alice", "init"],
                 ["-m", "her", "init", "--game", "hexapawn"], ["-m", "nim", "init", "--game", "nim"],
                 ["export", str(folder / "menace.json")]):
        result = CliRunner().invoke(cli, ["--db", db, *args], catch_exceptions=False)
        assert result.exit_code == 0, result.output
    shutil.copy(folder / "menace.db", folder / "club.db")
    shutil.copy(folder / "menace.db", folder / "old.db")
    return folder


def _parts(example: str) -> Iterator[list[str]]:
    """The menace command lines of an example, as argument lists (``.venv/bin/menace`` too)."""
    for part in example.split("&&"):
        words = shlex.split(part)
        if words and Path(words[0]).name == "menace":
            yield words[1:]


@pytest.mark.parametrize("example", EXAMPLES)
def test_example_runs(example: str, trained: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    if example in NOT_RUN:
        pytest.skip(NOT_RUN[example])
    if "--cluster" in example:
        pytest.skip("needs a Dask scheduler at that address; tests/test_sweep_dask.py runs sweeps on a local cluster")
    if _is_serve(example):
        pytest.skip("a server runs until it is stopped: test_serve_example_serves starts it and stops it")
    line = example
    for old, new, _why in SHORTER.values():
        line = line.replace(old, new)
    monkeypatch.delenv("MENACE_DB", raising=False)
    monkeypatch.chdir(tmp_path)
    # A sweep or experiment line without --workers trains on a pool of every core: here, where the
    # tests already run one per core, the pool's forked processes only added CPU (some 2 s over this
    # file). The line runs as written on one process; the pools are tested in test_sweep.py,
    # test_cli_sweep.py and test_experiments.py (results equal on one worker and on two).
    monkeypatch.setattr(os, "cpu_count", lambda: 1)
    parts = list(_parts(line))
    assert parts, example
    fresh = any(p and p[0] == "init" or "init" in p[:3] or "import" in p[:3] for p in parts)
    if fresh:
        shutil.copy(trained / "menace.json", tmp_path / "menace.json")
    else:
        for name in ("menace.db", "club.db", "old.db", "menace.json"):
            shutil.copy(trained / name, tmp_path / name)
    for args in parts:
        command = next((a for a in args if not a.startswith("-") and a not in _option_values(args)), "")
        result = CliRunner().invoke(cli, args, input=INPUT.get(command), catch_exceptions=False, prog_name="menace")
        assert result.exit_code == 0, f"{example}\n{result.output}"
        assert "Traceback" not in result.output


def _is_serve(example: str) -> bool:
    return "serve" in shlex.split(example)[1:4]


SERVE_EXAMPLES = [e for e in EXAMPLES if _is_serve(e)]
SERVING = re.compile(r"^Serving machine '[^']+' at (http://127\.0\.0\.1:\d+/)", re.M)
SERVE_MODULES = ("menace.cli.serve", "menace.app.machines", "menace.interrupts", "menace.web.app", "menace.web.lan",
                 "menace.web.guard", "menace.web.server", "uvicorn", "webbrowser", "loopback_menace:keep_to_loopback")
"""What ``menace serve`` imports, loaded once by the fork server its lines run from, and the stand-in
that keeps every server it forks on a free port of 127.0.0.1 (tests/loopback_menace.py)."""


@pytest.fixture(scope="module")
def serve_forks(tmp_path_factory: pytest.TempPathFactory) -> Iterator[MenaceForks]:
    """The ``menace serve`` lines' processes, forked from one that imported menace and its web server once
    (tests/forked_menace.py): each would spend some 0.4 s of CPU importing them."""
    server = MenaceForks(tmp_path_factory.mktemp("serve-forks"), preload=SERVE_MODULES)
    yield server
    server.close()


@pytest.mark.slow
@pytest.mark.parametrize("example", SERVE_EXAMPLES)
def test_serve_example_serves(example: str, trained: Path, tmp_path: Path, serve_forks: MenaceForks) -> None:
    """A ``menace serve`` line of the documentation, run as a process of its own (forked from a process
    that imported menace, with tests/loopback_menace.py keeping it on a free port of 127.0.0.1): it says
    where it serves, answers there, shows the lesson, opens the browser when ``--open`` asks (a
    recording stand-in named by ``BROWSER``), and stops on Ctrl-C without a traceback."""
    for name in ("menace.db", "club.db", "old.db", "menace.json"):
        shutil.copy(trained / name, tmp_path / name)
    opened = tmp_path / "opened.txt"
    browser = tmp_path / "browser"
    browser.write_text(f"#!/bin/sh\nprintf '%s' \"$1\" > {shlex.quote(str(opened))}\n")
    browser.chmod(0o755)
    args = shlex.split(example)[1:]
    proc = serve_forks.popen(*args, url=None, cwd=tmp_path,
                             env={"BROWSER": str(browser), "DISPLAY": "", "PYTHONUNBUFFERED": "1"})
    try:
        _check_serving(example, args, proc, opened)
    finally:
        proc.send_signal(signal.SIGINT)
        try:
            proc.wait(timeout=60)
        finally:
            if proc.poll() is None:
                proc.send_signal(signal.SIGKILL)
                proc.wait()
    errors = proc.err.read_text()
    assert "Traceback" not in errors, errors


def _printed(proc: Forked) -> str:
    """What the process has printed so far (nothing before it has opened its standard output)."""
    try:
        return proc.out.read_text()
    except FileNotFoundError:
        return ""


def _check_serving(example: str, args: list[str], proc: Forked, opened: Path) -> None:
    wait_until(lambda: proc.poll() is not None or SERVING.search(_printed(proc)) is not None,
               f"`{example}` to say where it serves")
    found = SERVING.search(_printed(proc))
    assert found, f"{example}: exit {proc.poll()}\n{_printed(proc)}"
    base = found.group(1)
    wait_until(lambda: _answers(base + "api/health"), f"`{example}` to answer at {base}")
    with urllib.request.urlopen(base + "lesson", timeout=30) as page:
        assert "A lesson: the machine that learns from matchboxes" in page.read().decode()
    if "--open" in args:
        wait_until(opened.exists, f"`{example}` to open the browser")
        wait_until(lambda: opened.read_text() == base, f"`{example}` to open {base} in the browser")
    else:
        assert not opened.exists()
    if "--host" in args and args[args.index("--host") + 1] == "0.0.0.0":
        text = _printed(proc)
        assert "Play token:" in text and "Admin token:" in text, text
        given = {args[i + 1] for i, a in enumerate(args[:-1]) if a in ("--token", "--admin-token", "--play-token")}
        assert all(f" token: {t}  " in text or f"token:  {t}  " in text for t in given), text


def _answers(url: str) -> bool:
    try:
        with urllib.request.urlopen(url, timeout=5) as answer:
            return bool(answer.status == 200)
    except OSError:
        return False


def _option_values(args: list[str]) -> set[str]:
    """The values of the group's options before the command (``--db X``, ``-m X``)."""
    return {args[i + 1] for i, a in enumerate(args[:-1]) if a in ("--db", "-m", "--machine")}


def output_pattern(shown: list[str]) -> re.Pattern[str]:
    """The output a console block shows, as a pattern: ``...`` alone is any lines, inside a line any text.

    >>> bool(output_pattern(["a ... c", "..."]).fullmatch("a b c\\nd\\ne\\n"))
    True
    """
    parts = []
    for line in shown:
        if line.strip() == "...":
            parts.append(r"(?:[^\n]*\n)*?")
        else:
            parts.append(r".*?".join(map(re.escape, line.rstrip().split("..."))) + r"\n")
    return re.compile("".join(parts))


@pytest.mark.parametrize("where,steps", SESSIONS, ids=[w for w, _ in SESSIONS])
def test_console_session_prints_what_it_shows(where: str, steps: list[tuple[str, list[str]]], tmp_path: Path,
                                              monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("MENACE_DB", raising=False)
    monkeypatch.chdir(tmp_path)
    for command, shown in steps:
        words = shlex.split(command)
        assert words[0] == "menace", f"{where}: {command}"
        args = words[1:]
        name = next((a for a in args if not a.startswith("-") and a not in _option_values(args)), "")
        result = CliRunner().invoke(cli, args, input=INPUT.get(name), catch_exceptions=False, prog_name="menace")
        assert result.exit_code == 0, f"{where}: {command}\n{result.output}"
        printed = "".join(line.rstrip() + "\n" for line in result.output.splitlines())
        assert output_pattern(shown).fullmatch(printed), (
            f"{where}: `{command}` printed\n{printed}\nbut the page shows\n" + "\n".join(shown))


def test_the_lists_of_changed_and_skipped_lines_are_current() -> None:
    assert len(EXAMPLES) > 60
    for old, _, why in SHORTER.values():
        assert any(old in e for e in EXAMPLES), (old, why)
    for example in NOT_RUN:
        assert example in EXAMPLES, example


def test_every_command_has_an_example() -> None:
    commands = {name for name, cmd in all_commands(cli) if not isinstance(cmd, click.Group)}
    shown = EXAMPLES + [command for _, steps in SESSIONS for command, _ in steps]
    run = {" ".join(w for w in shlex.split(e)[1:3] if not w.startswith("-")) for e in shown}
    missing = [c for c in commands if not any(r == c or r.startswith(c + " ") or r.split()[:1] == c.split()[:1]
                                              for r in run)]
    assert missing == []


JARGON = ["seed 000", "seed document", "the seed's", "../shared", "lecture", "1 games", "half turn"]


def test_words_a_newcomer_can_read() -> None:
    """The documentation, every help text and ``menace opponents`` name programs and things, not our files."""
    texts = {**DOCS, "opponents": CliRunner().invoke(cli, ["opponents"]).output}
    texts["menace"] = CliRunner().invoke(cli, ["--help"]).output
    for name, _ in all_commands(cli):
        texts[name] = CliRunner().invoke(cli, [*name.split(), "--help"]).output
    for where, text in texts.items():
        for word in JARGON:
            # A word, not part of one: "2,001 games" is no "1 games".
            assert not re.search(rf"(?<![\w,]){re.escape(word)}", text), (where, word)
    assert "Play W. W. McLean's MAGIC puzzle" in CliRunner().invoke(cli, ["puzzle", "--help"]).output
    everything = "\n".join(DOCS.values())
    for program in ("Ruby Quiz", "Rich", "*Artificial Intelligence*", "W. W. McLean", "TTTML"):
        assert program in everything, program
