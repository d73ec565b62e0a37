"""menace import reads the machine file in bounded memory (``read_streamed``: a chunk at a time, the
history's blocks one at a time, three times: to check the JSON and the checksum, to replay, to store),
and reads it exactly as the whole-file reading (``loads`` and ``checksum``) does: the same files
refused, the same content from the others, whatever the order of the keys, repeated keys included."""

from __future__ import annotations

import hashlib
import io
import json
import os
import shutil
import threading
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner
from conftest import owner
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import menace.app.machine_file as machine_file
from menace.app.machine_file import MachineFileError, StreamedBlocks, loads, read_streamed
from menace.app.transfer import checksum, export_machine, import_file
from menace.cli import cli

Body = dict[str, Any]


@pytest.fixture(scope="module")
def machine(tmp_path_factory: pytest.TempPathFactory, sqlite_template: Path) -> Body:
    """Six runs of ten games, a block each (a checkpoint once 20 games have gone by, one a summary),
    and a correction."""
    import menace.app.machines as machines
    from menace.app.machines import init_machine, open_machine
    from menace.app.tournament import run_tournament
    from menace.core.settings import MICHIE

    source = tmp_path_factory.mktemp("streamed") / "source.db"
    shutil.copyfile(sqlite_template, source)
    url = f"sqlite:///{source}"
    init_machine(owner(url), "menace", MICHIE, None)
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(machines, "CHECKPOINT_GAMES", 20)
        for i, (opponent, keep) in enumerate([("random", None), ("random", None), ("smart", 0), ("random", None),
                                              ("smart", None), ("random", None)]):
            with open_machine(owner(url), "menace", holder="a test") as m:
                if i == 3:
                    m.correct(0, {0: 9}, "a recount")
                run_tournament(m, opponent, games=10, seed=i, keep_games=keep)
    body = export_machine(owner(url), "menace")
    blocks = body["history"]["blocks"]
    assert len(blocks) == 6 and sum("beads" in b for b in blocks) >= 2 and blocks[2].get("kept") is False
    assert body["history"]["corrections"]
    return body


@pytest.fixture
def m_db(tmp_path: Path, sqlite_template: Path) -> Path:
    """The test's SQLite file, already at the schema's head (a copy of the migrated template: these
    tests are about reading the file, not about making a database; migrating cost 0.2-0.3 s a test)."""
    db = tmp_path / "m.db"
    shutil.copyfile(sqlite_template, db)
    return db


def _whole(data: bytes) -> Body | str:
    """As ``read_machine_file`` reads: the whole text, ``loads``, the checksum."""
    try:
        body = loads(data.decode("utf-8"), "f")
        if body.get("checksum") != checksum(body):
            raise MachineFileError("the checksum does not match")
    except (MachineFileError, UnicodeDecodeError) as exc:
        return f"refused: {exc}"
    return body


def _streamed(data: bytes) -> Body | str:
    """As ``import_file`` reads, the blocks read back into a list."""
    try:
        body = read_streamed(io.BytesIO(data), "f")
        history = body.get("history")
        if isinstance(history, dict) and isinstance(history.get("blocks"), StreamedBlocks):
            history["blocks"] = list(history["blocks"])
    except MachineFileError as exc:
        return f"refused: {exc}"
    return body


def _resealed(data: bytes) -> bytes:
    """``data`` with its checksum made right for what it parses to, where that can be done."""
    try:
        body = json.loads(data)
        old = body["checksum"]
        if not isinstance(old, str) or data.count(old.encode()) != 1:
            return data
        return data.replace(old.encode(), checksum(body).encode())
    except (ValueError, TypeError, KeyError, RecursionError):
        return data


def _same(data: bytes) -> None:
    whole, streamed = _whole(data), _streamed(data)
    if isinstance(whole, str):
        assert isinstance(streamed, str), (whole, data[:300])
    else:
        assert streamed == whole, (streamed, data[:300])


INSERTS = st.sampled_from(['"', "\\", "{", "}", "[", "]", ",", ":", " ", "\n", "1", "-", "0", ".5", "e9", "true",
                           "null", "NaN", "-Infinity", '"blocks": [], ', '"history": {}, ', '"a": 1, ', "\u00e9",
                           "\x00", "\\u0000", "\\ud800", "\udc00", "[" * 33, "9" * 31, '{"x": ' * 3, "\ufeff"])


@pytest.fixture(scope="module")
def machine_texts(machine: Body) -> dict[tuple[int | None, bool], str]:
    """The machine's file as json.dumps writes it with each (indent, ensure_ascii), written once: the
    examples below draw one of the four (indented, json writes in Python: 9 ms a time)."""
    return {(indent, ascii): json.dumps(machine, indent=indent, ensure_ascii=ascii)
            for indent in (None, 1) for ascii in (False, True)}


@pytest.mark.slow
@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(data=st.data())
def test_the_streamed_reading_refuses_and_reads_what_the_whole_reading_does(
        machine_texts: dict[tuple[int | None, bool], str], monkeypatch: pytest.MonkeyPatch,
        data: st.DataObject) -> None:
    monkeypatch.setattr(machine_file, "CHUNK", data.draw(st.sampled_from([64, 4096, 1 << 18])))
    text = machine_texts[data.draw(st.sampled_from([None, 1])), data.draw(st.booleans())]
    for _ in range(data.draw(st.integers(0, 3))):
        at = data.draw(st.integers(0, len(text)))
        cut = data.draw(st.integers(0, 4))
        text = text[:at] + data.draw(INSERTS | st.just("")) + text[at + cut:]
    raw = text.encode("utf-8", "surrogatepass")
    _same(raw)
    _same(_resealed(raw))


def _layout(body: Body, top: list[str], history: list[str], extra: dict[str, Any] | None = None) -> bytes:
    """``body`` with its keys (and its history's) in this order, resealed."""
    h = body["history"]
    out = {k: ({k2: h[k2] for k2 in history} if k == "history" else body[k]) for k in top}
    out.update(extra or {})
    out["checksum"] = checksum(out)
    return json.dumps(out).encode()


@pytest.mark.parametrize("top,history", [
    (["checksum", "history", "boxes", "machine", "version", "format"], ["corrections", "blocks", "runs", "games"]),
    (["format", "version", "machine", "history", "boxes", "checksum"], ["blocks", "games", "runs", "corrections"]),
], ids=["backwards", "boxes after the blocks"])
def test_a_hand_made_order_of_keys_imports_the_same_machine(machine: Body, tmp_path: Path, m_db: Path,
                                                          top: list[str], history: list[str]) -> None:
    """What sorts before the blocks in the checksum's form but follows them in the file: the blocks are
    read once more to hash them."""
    path = tmp_path / "m.json"
    path.write_bytes(_layout(machine, top, history))
    assert _streamed(path.read_bytes()) == _whole(path.read_bytes()) == machine | {"checksum": checksum(machine)}
    db = f"sqlite:///{m_db}"
    assert import_file(owner(db), path)[2] == machine["history"]["games"]
    assert export_machine(owner(db), "menace")["checksum"] == checksum(machine)


def test_repeated_keys_count_as_json_loads_counts_them(machine: Body, tmp_path: Path) -> None:
    """The last of a repeated key is the one: the blocks imported are the last ``blocks`` of the last
    ``history``, hashed in their place."""
    text = json.dumps(machine)
    empty = {**machine["history"], "blocks": [], "games": 0}
    for crafted in (text[:-1] + ', "history": ' + json.dumps(machine["history"]) + "}",
                    text[:-1] + ', "history": ' + json.dumps(empty) + "}",
                    text.replace('"blocks": [', '"blocks": [], "blocks": [', 1),
                    text.replace('"corrections": [', '"blocks": [], "corrections": [', 1)):
        data = _resealed(crafted.encode())
        _same(data)
        assert not isinstance(_streamed(data), str)


def test_the_file_changed_between_the_readings_is_refused_and_nothing_is_stored(
        machine: Body, tmp_path: Path, m_db: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import menace.app.transfer as transfer

    path = tmp_path / "m.json"
    path.write_text(json.dumps(machine))
    db = m_db
    CliRunner().invoke(cli, ["--db", str(db), "-m", "other", "init"], catch_exceptions=False)
    before = hashlib.sha256(db.read_bytes()).hexdigest()
    real = transfer.verify

    def then_changed(*args: Any) -> None:
        real(*args)  # checked and replayed: then a win of the first block's is a draw in the file
        changed = json.loads(json.dumps(machine))
        first = changed["history"]["blocks"][0]
        assert first["wins"] > 0
        first["wins"] -= 1
        first["draws"] += 1
        changed["checksum"] = checksum(changed)
        path.write_text(json.dumps(changed))

    monkeypatch.setattr(transfer, "verify", then_changed)
    with pytest.raises(MachineFileError, match="changed while it was being imported"):
        import_file(owner(f"sqlite:///{db}"), path)
    assert hashlib.sha256(db.read_bytes()).hexdigest() == before


def test_the_blocks_must_come_in_the_order_of_their_games(machine: Body, tmp_path: Path, m_db: Path) -> None:
    """(Before, they were sorted: a file in any other order never came from menace.)"""
    body = json.loads(json.dumps(machine))
    blocks = body["history"]["blocks"]
    blocks[0], blocks[1] = blocks[1], blocks[0]
    body["checksum"] = checksum(body)
    path = tmp_path / "m.json"
    path.write_text(json.dumps(body))
    with pytest.raises(MachineFileError, match="out of order at game 11"):
        import_file(owner(f"sqlite:///{m_db}"), path)


def test_a_pipe_is_read_once_into_a_temporary_file(machine: Body, tmp_path: Path, m_db: Path) -> None:
    """``menace import <(gunzip -c machine.json.gz)``: what cannot be read twice is copied first."""
    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    writer = threading.Thread(target=lambda: fifo.write_text(json.dumps(machine)))
    writer.start()
    try:
        assert import_file(owner(f"sqlite:///{m_db}"), fifo)[2] == machine["history"]["games"]
    finally:
        writer.join()


_ANY_JSON = st.recursive(
    st.none() | st.booleans() | st.integers(-10**30, 10**30) | st.floats(allow_nan=False) | st.text(max_size=6),
    lambda kids: st.lists(kids, max_size=40) | st.dictionaries(st.text(max_size=4), kids, max_size=5),
    max_leaves=60)


@settings(deadline=None)
@given(body=st.dictionaries(st.text(max_size=8), _ANY_JSON, max_size=6), piece=st.sampled_from([1, 8, 1 << 16]))
def test_the_checksum_is_the_sha256_of_the_canonical_text(body: Body, piece: int) -> None:
    """checksum() hashes its text in pieces (the C encoder on a value or a slice of a list at a time):
    the pieces make exactly the canonical text of the whole body, however the lists are cut."""
    whole = {k: v for k, v in body.items() if k != "checksum"}
    expected = "sha256:" + hashlib.sha256(machine_file.canonical(whole).encode("ascii")).hexdigest()
    previous = machine_file._PIECE
    machine_file._PIECE = piece  # slices of one item each up to many (monkeypatch is function-scoped)
    try:
        assert checksum({**body, "checksum": "x"}) == expected
    finally:
        machine_file._PIECE = previous


SCANNED = [
    b'[{"a": "x\\"]}", "b": [1, "\\\\"]}, {"c": "{[\\\\\\"["}, [], {}]',  # brackets and quotes inside strings
    b'{"runs": [' + b", ".join([b'{"kind": "t\\u00e9", "seed": 1, "x": "\\\\"}'] * 300) + b"]}",  # many flat ones
    b'[[[["\\"\\\\", {"k": ["]", "}"]}]]], "tail"]',
    b'"a lone \\"string\\" [ { "',
]


@pytest.mark.parametrize("chunk", [1, 3, 64, 1 << 18])
def test_the_scanner_ends_each_value_where_the_decoder_does(monkeypatch: pytest.MonkeyPatch, chunk: int) -> None:
    """Whole strings and flat lists and objects are passed in one step (``_SKIP_FLAT``), however the
    chunks cut them: each value ends where :func:`json.loads` says, and nesting is bounded at
    :data:`MAX_DEPTH` exactly, a flat list or object at the bottom counted as a level."""
    monkeypatch.setattr(machine_file, "CHUNK", chunk)
    for text in SCANNED:
        scan = machine_file._Scanner(io.BytesIO(text + b' ,"next"'), "f")
        assert scan.value(1) == json.loads(text)
        assert scan.take(b",", "a comma") == 0x2C and scan.value(1) == "next"
    for depth in range(1, 4):
        for flat in (b'["a", {"b": 1}]', b'{"k": [1, "]"]}'):  # the deepest level is one flat container
            nested = b"[" * (machine_file.MAX_DEPTH - depth - 2) + flat + b"]" * (machine_file.MAX_DEPTH - depth - 2)
            assert machine_file._Scanner(io.BytesIO(nested), "f").value(depth) == json.loads(nested)
            with pytest.raises(MachineFileError, match="nested more than"):
                machine_file._Scanner(io.BytesIO(b"[" + nested + b"]"), "f").value(depth)


def test_the_whole_reading_refuses_nesting_deeper_than_the_bound_strings_skipped() -> None:
    """``loads`` counts the brackets before it parses (the parser's recursion is never reached), strings
    skipped: a quote escaped inside one does not end it, an escaped backslash does not escape the quote
    after it, and one never closed runs to the end. :data:`MAX_DEPTH` levels pass, one more is refused."""
    deep = machine_file.MAX_DEPTH

    def nested_too_deep(text: str) -> bool:
        with pytest.raises(MachineFileError) as refused:  # none of these is a machine file
            loads(text)
        return "nested more than" in str(refused.value)

    assert not nested_too_deep("[" * deep + "]" * deep)
    assert nested_too_deep("[" * (deep + 1) + "]" * (deep + 1))
    assert nested_too_deep("[{" * (deep // 2) + "[" + "]" + "}]" * (deep // 2))
    assert not nested_too_deep("[]" * (2 * deep))  # at its deepest, not how many
    assert nested_too_deep("[" * deep + "]" + "[[" + "]" * deep)  # one level again, then two
    assert not nested_too_deep("[" * deep + '"[{[{"' + "]" * deep)
    assert not nested_too_deep("[" * deep + '"\\"[{[{"' + "]" * deep)
    assert nested_too_deep("[" * deep + '"\\\\"[' + "]" * (deep + 1))
    assert not nested_too_deep("[" * deep + '"' + "[" * 5)
    assert not nested_too_deep("[" * deep + '"\\' + '"' + "[" * 5)
