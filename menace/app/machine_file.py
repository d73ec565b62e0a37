"""The machine file, parsed strictly: the first step of an import, before anything else.

:func:`loads` reads the file's text within bounds (its size, integers of at most
:data:`MAX_DIGITS` digits, no floats, no NaN, a limited nesting depth) and
:func:`check_machine_content` checks every field against the schema of menace/docs/machine-file.md:
types (an integer is never a bool or a float), bounds the same as ``menace init``'s, names
by the machine-name rule, printable text, unique moves per box, corrections for boxes and beads
that exist, runs that exist. It returns typed values (a :class:`MachineDump` and its
:class:`Settings`, the history's blocks as :class:`CheckedBlocks`, each checked as it is read);
figures the games determine (a block's tally, the game count) are not taken from the file but
recomputed when the games are replayed (:func:`menace.app.transfer.verify`).

:func:`read_streamed` reads a file as :func:`loads` does, the same bounds and refusals, and checks
its checksum, in memory bounded by its largest block rather than its length: the history's blocks
stay in the file (:class:`StreamedBlocks`) and are read again, one at a time, whenever they are
needed (``menace import`` reads them three times: to check the JSON and the checksum, to replay
them, to store them).

Version 2 adds to a block the beads after its last game (``beads``, a checkpoint) and ``kept``
(false: a summary, no games, its tally and beads taken as they are); version 3 adds to a run
``frozen`` (true: the machine played its games without learning), and is written only by a
machine that has such a run. Version 1 and 2 files read as before. Keys this version does not
know are left alone.
"""

from __future__ import annotations

import base64
import binascii
import hashlib
import json
import math
import re
from collections.abc import Callable, Iterator
from datetime import datetime
from itertools import accumulate
from typing import Any, BinaryIO

from menace.core.colours import ColourError, parse_colours
from menace.core.errors import DamagedError, known
from menace.core.game import Game, IllegalMoveError
from menace.core.names import is_machine_name, safe_text
from menace.core.pegasus import UNIT, PegasusRule, PegasusRuleError, Refinement
from menace.core.settings import MAX_BEADS, SIDE_CHOICES, EmptyPolicy, Scope, Settings, SettingsError, format_numbers
from menace.games import find_game, game_names, is_game_name
from menace.storage.repository import rule_columns
from menace.storage.transfer_repo import BlockDump, BoxDump, CorrectionDump, MachineDump, RunDump

FORMAT = "menace-machine"
VERSION = 4
"""2: a block may carry the beads after its last game (``beads``) and be a summary (``kept`` false);
3: a run may be ``frozen`` (played without learning); 4: a machine may learn by the Pegasus rule
(``machine.settings.rule``, ``machine.mean_outcome``)."""
FROZEN_VERSION = 3
"""The version written for a machine with a frozen run that learns by beads."""
LEARNING_VERSION = 2
"""The version written for a machine every run of which learnt: files older menaces read too."""
MAX_FILE_BYTES = 1 << 30
"""A machine file larger than 1 GiB is refused before it is read."""
MAX_DIGITS = 30
"""No number in a machine file needs more digits (a 64-bit seed has 19)."""
MAX_DEPTH = 32
"""The file's JSON nests 5 levels deep; anything much deeper is not a machine file."""
MAX_TEXT = 1_000
MAX_COUNT = 10**15
"""A bead count beyond this cannot come from any history a person could play."""
MAX_GAMES = 10**10
MAX_BEADS_TEXT = 1 << 26
"""A checkpoint (a block's ``beads``) is a few kilobytes; 64 MiB of base64 is far beyond any machine's."""
MAX_SEED = 2**63 - 1


class MachineFileError(DamagedError):
    """A machine file that cannot be imported: damaged, truncated, foreign or from a newer menace."""


class _Refused(ValueError):
    pass


def _no_float(text: str) -> Any:
    raise _Refused(f"a fraction ({text[:20]}) where only whole numbers belong")


def _bounded_int(text: str) -> int:
    if len(text.lstrip("-")) > MAX_DIGITS:
        raise _Refused(f"a number of {len(text)} digits")
    return int(text)


def _no_constant(text: str) -> Any:
    raise _Refused(f"{text}, which is not a number a machine file holds")


_TEXT_STRING = re.compile(r'"[^"\\]*(?:\\.[^"\\]*)*(?:"|\\?\Z)', re.DOTALL)
"""A JSON string, a backslash escaping the character after it; one not closed runs to the end."""
_NOT_BRACKET = re.compile(r"[^\[\]{}]+")
_NESTING = {"[": 1, "{": 1, "]": -1, "}": -1}


def _depth_ok(text: str) -> bool:
    """The brackets never nest deeper than :data:`MAX_DEPTH` (strings skipped): checked before
    parsing, so that no nesting can exhaust the parser's recursion. (The strings and all but the
    brackets are taken out by regular expressions, the nesting summed in C: three times faster than
    a loop over the characters.)"""
    brackets = _NOT_BRACKET.sub("", _TEXT_STRING.sub("", text))
    return max(accumulate(map(_NESTING.__getitem__, brackets)), default=0) <= MAX_DEPTH


def loads(text: str, where: str = "the file") -> dict[str, Any]:
    if not _depth_ok(text):
        raise MachineFileError(f"{where} is not a menace machine file (nested more than {MAX_DEPTH} deep)")
    try:
        body = json.loads(text, parse_int=_bounded_int, parse_float=_no_float, parse_constant=_no_constant)
    except json.JSONDecodeError as exc:
        raise MachineFileError(
            f"{where} is damaged or truncated (not valid JSON: {exc.msg} at line {exc.lineno})") from None
    except (_Refused, RecursionError, ValueError) as exc:
        raise MachineFileError(f"{where} is not a menace machine file: {str(exc)[:200]}") from None
    return check_format(body, where)


def check_format(body: Any, where: str) -> dict[str, Any]:
    """``body`` if it is a machine file of a version this menace reads."""
    if not isinstance(body, dict) or body.get("format") != FORMAT:
        raise MachineFileError(f"{where} is not a menace machine file")
    version = body.get("version")
    if type(version) is not int or not 1 <= version <= VERSION:
        shown = safe_text(repr(version))[:40]
        if type(version) is int and version > VERSION:
            raise MachineFileError(f"{where} is version {version} of the machine file; this menace reads up to "
                                   f"{VERSION}", hint="upgrade menace to import it")
        raise MachineFileError(f"{where} has no valid version (found {shown}); this menace reads versions 1 to "
                               f"{VERSION}")
    missing = [key for key in PARTS if key not in body]
    if missing:  # said before the checksum, which cannot match a file cut this short
        raise MachineFileError(f"{where} is not a whole machine file: it has no {' and no '.join(map(repr, missing))}")
    return body


PARTS = ("machine", "boxes", "history", "checksum")
"""The parts every machine file has (besides its format and version)."""


def checksum(body: dict[str, Any]) -> str:
    """The file's ``checksum`` field for ``body``: sha256 of its canonical form (:func:`canonical`)
    without the field itself."""
    content = {k: v for k, v in body.items() if k != "checksum"}
    digest = hashlib.sha256()
    # Hashed as it is encoded: the canonical text of a long history is never held whole.
    for chunk in _canonical_chunks(content, 3):
        digest.update(chunk.encode("ascii"))
    return "sha256:" + digest.hexdigest()


_PIECE = 1 << 16
"""About how many characters of canonical text :func:`checksum` encodes at a time."""


def _canonical_chunks(value: Any, depth: int) -> Iterator[str]:
    """:func:`canonical` of ``value`` in pieces: the objects of the first ``depth`` levels opened here,
    each value below them encoded whole (the machine, the history), and a list's items encoded whole a
    slice of about :data:`_PIECE` characters at a time (the boxes, the runs, the blocks). ``iterencode``
    would give pieces too, but in pure Python, several times slower than the C encoder used here. (Each
    box encoded field by field took five times as long.) The text is the same, byte for byte."""
    if depth and isinstance(value, dict) and all(type(k) is str for k in value):
        yield "{"
        for i, key in enumerate(sorted(value)):
            yield ("," if i else "") + canonical(key) + ":"
            yield from _canonical_chunks(value[key], depth - 1)
        yield "}"
    elif depth and isinstance(value, (list, tuple)):  # its items whole: encoded a slice at a time
        yield "["
        i, n = 0, 1
        while i < len(value):
            text = canonical(value[i:i + n])[1:-1]
            yield ("," if i else "") + text
            i += n
            n = max(1, min(4096, n * _PIECE // (len(text) + 1)))  # slices of about _PIECE characters
        yield "]"
    else:
        yield canonical(value)


_CANONICAL = json.JSONEncoder(sort_keys=True, separators=(",", ":"), ensure_ascii=True)


def canonical(value: Any) -> str:
    """The form the checksum is computed on: sorted keys, no spaces, ASCII only."""
    return _CANONICAL.encode(value)


# -- the file read in bounded memory ------------------------------------------------------------------
CHUNK = 1 << 18
"""Bytes read from a machine file at a time."""
MAX_SCALAR = 1 << 16
"""A number, true, false or null longer than this is refused as it is read (see :data:`MAX_DIGITS`)."""
MAX_BLOCKS = 10_000_000
"""No history has more blocks than this (a block holds up to 20,000 games, or a second of play)."""
MAX_PART_BYTES = 16 << 20
"""No part of a machine file (its boxes, its runs, one block...) takes more than 16 MiB: the boxes of
the largest machine take 0.6 MiB, a run 200 bytes, a block of 20,000 games 0.9 MiB. A value that
does is refused as soon as the reading passes this, before it is decoded: junk is never held."""
MAX_BLOCK_GAMES = 10_000_000
"""A block holds the games of one save: at most 20,000 kept games, or a summary of about a second of
play (a quarter of a million games at today's speed); ten million is far beyond either."""

_DECODER = json.JSONDecoder(parse_int=_bounded_int, parse_float=_no_float, parse_constant=_no_constant)
_SPACE = re.compile(rb"[ \t\n\r]*")
_OUTSIDE = re.compile(rb'["\[\]{}]')
"""What opens a string or changes the nesting, outside a string."""
_STRING = rb'"(?:[^"\\]++|\\.)*+"'
_FLAT = rb'[^"\[\]{}]++|' + _STRING
_SKIP = re.compile(rb"(?s)(?:" + _FLAT + rb")*+")
"""Outside a string: the bytes up to the next bracket or string the buffer does not close, whole
strings skipped in one step (a quote after an even run of backslashes closes one)."""
_SKIP_FLAT = re.compile(rb"(?s)(?:" + _FLAT + rb"|\{(?:" + _FLAT + rb")*+\}|\[(?:" + _FLAT + rb")*+\])*+")
"""As :data:`_SKIP`, and whole lists and objects with no list or object inside (a run, a box's
beads...) skipped too: a long list of small objects is passed without a step per string or bracket."""
_SCALAR_END = re.compile(rb"[ \t\n\r,\]}]")


class _Scanner:
    """A machine file read forward in chunks, one JSON value at a time: each value's extent is found
    first (strings skipped, its nesting bounded by :data:`MAX_DEPTH` before anything is decoded), then
    its bytes are decoded by the rules of :func:`loads` (UTF-8, whole numbers of at most
    :data:`MAX_DIGITS` digits, no fractions, no NaN; a repeated key: the last one). Only what the
    caller keeps outlives a value: memory is bounded by the largest value read, not by the file."""

    def __init__(self, f: BinaryIO, where: str, start: int = 0) -> None:
        self.f, self.where = f, where
        try:
            f.seek(start)
        except OSError as exc:
            raise MachineFileError(f"{where} cannot be read as a machine file: {exc}") from None
        self.buf = bytearray()
        self.pos = 0
        """The next byte to read, in :attr:`buf`."""
        self.base = start
        """Where :attr:`buf` starts in the file."""
        self.lines = 0
        """Lines before :attr:`buf` (counted from ``start``), for messages."""
        self.eof = False
        self.what = "a value"
        """What the value being read is, for a refusal of its size."""

    def _more(self) -> bool:
        """Another chunk of the file in the buffer, the bytes before :attr:`pos` let go; False at its end."""
        if self.eof:
            return False
        try:
            chunk = self.f.read(CHUNK)
        except OSError as exc:
            raise MachineFileError(f"{self.where} cannot be read as a machine file: {exc}") from None
        if not chunk:
            self.eof = True
            return False
        if self.pos:
            self.lines += self.buf.count(b"\n", 0, self.pos)
            self.base += self.pos
            del self.buf[:self.pos]
            self.pos = 0
        self.buf += chunk
        if self.base + len(self.buf) > MAX_FILE_BYTES:
            raise MachineFileError(f"{self.where} is more than {MAX_FILE_BYTES:,} bytes: too large for a machine file")
        return True

    @property
    def offset(self) -> int:
        """Where the next byte is in the file."""
        return self.base + self.pos

    def damaged(self, what: str, lines_on: int = 0) -> MachineFileError:
        """A refusal naming the line of :attr:`pos` (``lines_on`` lines further)."""
        line = self.lines + self.buf.count(b"\n", 0, self.pos) + 1 + lines_on
        return MachineFileError(f"{self.where} is damaged or truncated (not valid JSON: {what} at line {line})")

    def peek(self) -> int | None:
        """The next byte after any whitespace (which is passed), None at the end of the file."""
        while True:
            self.pos = known(_SPACE.match(self.buf, self.pos), "a run of spaces").end()  # empty at worst
            if self.pos < len(self.buf):
                return self.buf[self.pos]
            if not self._more():
                return None

    def take(self, allowed: bytes, what: str) -> int:
        """The next byte, one of ``allowed`` (``what`` names them in the refusal)."""
        byte = self.peek()
        if byte is None or byte not in allowed:
            raise self.damaged(f"Expecting {what}")
        self.pos += 1
        return byte

    def value(self, depth: int, digest: Any = None, what: str = "a value") -> Any:
        """The next value, decoded; ``depth`` containers around it count towards :data:`MAX_DEPTH`.
        ``digest`` (a hashlib object) is updated with its bytes as they stand in the file. A value
        longer than :data:`MAX_PART_BYTES` is refused (``what`` names it) before it is decoded."""
        if self.peek() is None:
            raise self.damaged("Expecting value")
        self.what = what
        end = self._end_of_value(depth)
        text = self.buf[self.pos:end]
        if digest is not None:
            digest.update(text)
        try:
            value = _DECODER.decode(text.decode("utf-8"))
        except UnicodeDecodeError as exc:
            raise MachineFileError(f"{self.where} cannot be read as a machine file: {exc}") from None
        except json.JSONDecodeError as exc:
            raise self.damaged(exc.msg, exc.lineno - 1) from None
        except (_Refused, RecursionError, ValueError) as exc:
            raise MachineFileError(f"{self.where} is not a menace machine file: {str(exc)[:200]}") from None
        self.pos = end
        return value

    def _end_of_value(self, depth: int) -> int:
        """Where the value at :attr:`pos` ends in the buffer, the file read as far as that."""
        at = self.pos
        if self.buf[at] not in b'"[{':
            # A number, true, false or null (or something the decoder will refuse) ends where a
            # container or the file goes on.
            while (match := _SCALAR_END.search(self.buf, at)) is None:
                at = len(self.buf) - self.pos
                if at > MAX_SCALAR:  # not even a number refused for its digits is held whole
                    raise MachineFileError(f"{self.where} is not a menace machine file: a value of more than "
                                           f"{MAX_SCALAR:,} characters that is neither text, a list nor an object")
                if not self._more():
                    return len(self.buf)
                at += self.pos
            return match.start()
        level = 0
        in_string = False
        buf = self.buf
        while True:
            if in_string:
                # A quote after an even run of backslashes ends the string (a backslash escapes one
                # character, and \uXXXX has neither); memchr finds it in a block's long base64 text.
                quote = buf.find(b'"', at)
                if quote >= 0:
                    before = quote
                    while buf[before - 1] == 0x5C:  # stops at the opening quote at worst
                        before -= 1
                    at = quote + 1
                    if (quote - before) % 2 == 0:
                        in_string = False
                        if level == 0:
                            return at
                    continue
                at = len(buf)
            else:
                if level:  # inside the value: what cannot change the nesting is passed at once
                    skip = _SKIP_FLAT if depth + level < MAX_DEPTH else _SKIP  # a flat one nests a level more
                    at = known(skip.match(buf, at), "what a value holds").end()  # empty at worst
                match = _OUTSIDE.search(buf, at)
                if match is not None:
                    at = match.end()
                    byte = buf[match.start()]
                    if byte == 0x22:
                        in_string = True
                    elif byte in b"[{":
                        level += 1
                        if depth + level > MAX_DEPTH:
                            raise MachineFileError(f"{self.where} is not a menace machine file (nested more "
                                                   f"than {MAX_DEPTH} deep)")
                    else:
                        level -= 1
                        if level <= 0:  # a closing bracket that does not match is the decoder's to refuse
                            return at
                    continue
                at = len(buf)
            at -= self.pos
            if not self._more():
                raise self.damaged("the file ends inside a value")
            if len(self.buf) - self.pos > MAX_PART_BYTES:
                raise MachineFileError(f"{self.where} is not a menace machine file: {self.what} take more than "
                                       f"{MAX_PART_BYTES >> 20} MiB, far more than any machine's")
            at += self.pos
            buf = self.buf


def _members(scan: _Scanner, into: dict[str, Any], depth: int, reads_itself: Callable[[str], bool],
             path: str = "") -> None:
    """The members of the object whose ``{`` was just read (``depth`` containers deep, itself
    included), each into ``into`` (a repeated key: the last one, as :func:`json.loads` does), except
    those whose value ``reads_itself(key)`` reads."""
    if scan.peek() == 0x7D:  # }
        scan.pos += 1
        return
    while True:
        if scan.peek() != 0x22:
            raise scan.damaged("Expecting property name enclosed in double quotes")
        key = scan.value(depth)
        scan.take(b":", "':' delimiter")
        if not reads_itself(key):
            into[key] = scan.value(depth, what=f"its {path}{safe_text(str(key))[:40]}")
        if scan.take(b",}", "',' delimiter") == 0x7D:
            return


def _elements(scan: _Scanner, digest: Any) -> Iterator[Any]:
    """The elements of ``history.blocks``, whose ``[`` was just read, one at a time."""
    if scan.peek() == 0x5D:  # ]
        scan.pos += 1
        return
    while True:
        yield scan.value(3, digest, "one of its history's blocks would")
        if scan.take(b",]", "',' delimiter") == 0x5D:
            return


class StreamedBlocks:
    """A machine file's ``history.blocks`` left in the file (see :func:`read_streamed`): how many
    (``len``) and, each time it is iterated, their JSON values read again from the file, one at a
    time. A file that changed since it was first read is refused (:class:`MachineFileError`) by the
    end of the iteration: its blocks' bytes no longer hash as they did."""

    def __init__(self, f: BinaryIO, where: str, offset: int) -> None:
        self._f, self._where, self._offset = f, where, offset
        self._count = 0
        self._bytes = b""
        self.head = ""
        """The canonical text before the blocks as it stood when they were read (see :func:`_parts`)."""
        self.canonical = hashlib.sha256()
        """The checksum's digest of :attr:`head` and the blocks."""

    def _first_read(self, scan: _Scanner, head: str) -> None:
        """Every block parsed, counted, and hashed in the checksum's canonical form after ``head``."""
        self.head = head
        self.canonical.update(head.encode("ascii"))
        digest = hashlib.sha256()
        for value in _elements(scan, digest):
            self.canonical.update(b"," if self._count else b"")
            self.canonical.update(canonical(value).encode("ascii"))
            self._count += 1
            if self._count > MAX_BLOCKS:
                raise _fail("history.blocks", f"has more than {MAX_BLOCKS:,} items")
        self._bytes = digest.digest()

    def __len__(self) -> int:
        return self._count

    def __iter__(self) -> Iterator[Any]:
        digest = hashlib.sha256()
        count = 0
        try:
            for value in _elements(_Scanner(self._f, self._where, self._offset), digest):
                count += 1
                yield value
        except MachineFileError:  # they were read whole before: they have changed since
            count = -1
        if count != self._count or digest.digest() != self._bytes:
            raise MachineFileError(f"{self._where} changed while it was being imported")


def read_streamed(f: BinaryIO, where: str = "the file") -> dict[str, Any]:
    """A machine file's JSON, read as :func:`loads` reads it (the same bounds and the same refusals),
    format and version checked (:func:`check_format`) and its checksum too, in memory bounded by
    its largest block, not by its length: ``history.blocks`` is a :class:`StreamedBlocks`, read again
    from ``f`` (which must stay open) each time it is iterated.

    The checksum is hashed as the blocks are read, in exactly :func:`checksum`'s canonical form;
    should anything that comes before the blocks in that form follow them in the file (a hand-made
    file), or a repeated key replace them, the blocks are read a second time to hash it."""
    scan = _Scanner(f, where)
    body: Any
    if scan.peek() != 0x7B:  # {
        body = scan.value(0, what="its content would")
    else:
        scan.pos += 1
        body = {}

        def history(key: str) -> bool:
            if key != "history" or scan.peek() != 0x7B:
                return False
            scan.pos += 1
            body["history"] = {}  # replacing any before it now: the blocks' head is computed with it
            _members(scan, body["history"], 2, blocks, "history.")
            return True

        def blocks(key: str) -> bool:
            if key != "blocks" or scan.peek() != 0x5B:  # [
                return False
            scan.pos += 1
            streamed = body["history"]["blocks"] = StreamedBlocks(f, where, scan.offset)
            # the head as it stands now: the header of a file menace wrote is all read
            parts = known(_parts(body), "the machine file's header")
            streamed._first_read(scan, parts[0])
            return True

        _members(scan, body, 1, history)
    if scan.peek() is not None:
        raise scan.damaged("Extra data")
    checked = check_format(body, where)
    if checked.get("checksum") != _streamed_checksum(checked):
        raise MachineFileError(f"{where} is damaged: its checksum does not match its content")
    return checked


def _parts(body: dict[str, Any]) -> tuple[str, str] | None:
    """:func:`checksum`'s canonical text of ``body`` before and after the elements of its
    ``history.blocks``, if they are a :class:`StreamedBlocks`."""
    history = body.get("history")
    if not isinstance(history, dict) or not isinstance(history.get("blocks"), StreamedBlocks):
        return None
    head, tail = _around(history, "blocks", "[", "]")
    return _around({k: v for k, v in body.items() if k != "checksum"}, "history", head, tail)


def _around(obj: dict[str, Any], key: str, head: str, tail: str) -> tuple[str, str]:
    """The canonical text of ``obj`` (sorted keys, as :data:`_CANONICAL` writes it) before and after
    ``head`` + the value at ``key`` + ``tail``."""
    keys = sorted(obj)
    before = "".join(f"{canonical(k)}:{canonical(obj[k])}," for k in keys if k < key)
    after = "".join(f",{canonical(k)}:{canonical(obj[k])}" for k in keys if k > key)
    return "{" + before + canonical(key) + ":" + head, tail + after + "}"


def _streamed_checksum(body: dict[str, Any]) -> str:
    parts = _parts(body)
    if parts is None:
        return checksum(body)
    head, tail = parts
    blocks: StreamedBlocks = body["history"]["blocks"]
    if head == blocks.head:
        digest = blocks.canonical.copy()
    else:
        digest = hashlib.sha256(head.encode("ascii"))
        for i, value in enumerate(blocks):
            digest.update((b"," if i else b"") + canonical(value).encode("ascii"))
    digest.update(tail.encode("ascii"))
    return "sha256:" + digest.hexdigest()


# -- the schema -----------------------------------------------------------------------------
def _fail(where: str, what: str) -> MachineFileError:
    return MachineFileError(f"the file's {where} {what}")


def _obj(value: Any, where: str, required: tuple[str, ...]) -> dict[str, Any]:
    if not isinstance(value, dict):
        raise _fail(where, "is not an object")
    missing = [k for k in required if k not in value]
    if missing:
        raise _fail(where, f"lacks {', '.join(missing)}")
    return value


def _list(value: Any, where: str, most: int) -> list[Any]:
    if not isinstance(value, list):
        raise _fail(where, "is not a list")
    if len(value) > most:
        raise _fail(where, f"has {len(value):,} items, more than {most:,}")
    return value


def _int(value: Any, where: str, low: int, high: int) -> int:
    if type(value) is not int:  # not a bool, not a float, not a string of digits
        raise _fail(where, f"is {safe_text(repr(value))[:40]}, not a whole number")
    if not low <= value <= high:
        raise _fail(where, f"is {value:,}, outside {low:,} to {high:,}")
    return value


def _bool(value: Any, where: str) -> bool:
    if type(value) is not bool:
        raise _fail(where, f"is {safe_text(repr(value))[:40]}, not true or false")
    return value


def _text(value: Any, where: str, most: int = MAX_TEXT) -> str:
    if not isinstance(value, str):
        raise _fail(where, f"is {safe_text(repr(value))[:40]}, not text")
    if len(value) > most:
        raise _fail(where, f"is {len(value):,} characters long, more than {most:,}")
    if safe_text(value) != value:
        raise _fail(where, "holds control characters")
    return value


def _optional_text(value: Any, where: str, most: int = MAX_TEXT) -> str | None:
    return None if value is None else _text(value, where, most)


def _choice(value: Any, where: str, choices: list[str]) -> str:
    text = _text(value, where, 40)
    if text not in choices:
        raise _fail(where, f"is {safe_text(repr(value))[:40]}, not one of {', '.join(choices)}")
    return text


def _base64(value: Any, where: str, most: int) -> bytes:
    # Not checked for control characters one character at a time as _text does (3 s of CPU for a history
    # of 20M games): the base64 alphabet has none, and anything outside it is refused.
    if not isinstance(value, str):
        raise _fail(where, f"is {safe_text(repr(value))[:40]}, not text")
    if len(value) > most:
        raise _fail(where, f"is {len(value):,} characters long, more than {most:,}")
    try:
        return base64.b64decode(value, validate=True)
    except (binascii.Error, ValueError):
        raise _fail(where, "is not base64") from None


def _time(value: Any, where: str) -> datetime:
    text = _text(value, where, 40)
    try:
        return datetime.fromisoformat(text)
    except ValueError:
        raise _fail(where, f"is {text!r}, not a date and time") from None


def _optional_time(value: Any, where: str) -> datetime | None:
    return None if value is None else _time(value, where)


def rule_settings(rule: dict[str, Any]) -> dict[str, Any]:
    """``machine.settings.rule`` for a machine's rule columns (nothing for the bead rule). Fractions are
    written as text (a machine file holds no JSON fraction): A, B and D as the decimals given."""
    if rule.get("rule") != "pegasus":
        return {}
    return {"rule": {"name": "pegasus", "a": repr(float(rule["pegasus_a"])), "b": repr(float(rule["pegasus_b"])),
                     "refinement": rule["refinement"], "decay": repr(float(rule["decay"]))}}


def mean_outcome_entry(rule: dict[str, Any]) -> dict[str, Any]:
    """``machine.mean_outcome`` for a machine learning by the refined Pegasus rule (nothing otherwise):
    the mean as a hexadecimal float (exact), the outcomes summed in the hundred under way, its plays."""
    if rule.get("rule") != "pegasus" or rule.get("refinement") in (None, "none"):
        return {}
    return {"mean_outcome": {"mu": float(rule["mean_mu"] or 0.0).hex(), "sum": int(rule["mean_sum"] or 0),
                             "plays": int(rule["mean_plays"] or 0)}}


def _fraction(value: Any, where: str, hexadecimal: bool = False) -> float:
    text = _text(value, where, 40)
    try:
        number = float.fromhex(text) if hexadecimal else float(text)
    except ValueError:
        raise _fail(where, f"is {safe_text(repr(text))}, not a number") from None
    if not math.isfinite(number):
        raise _fail(where, "is not a finite number")
    return number


def _pegasus(st: dict[str, Any]) -> PegasusRule | None:
    if "rule" not in st:
        return None
    r = _obj(st["rule"], "machine.settings.rule", ("name", "a", "b", "refinement", "decay"))
    _choice(r["name"], "machine.settings.rule.name", ["pegasus"])
    refinement = _choice(r["refinement"], "machine.settings.rule.refinement", [x.value for x in Refinement])
    try:
        return PegasusRule(_fraction(r["a"], "machine.settings.rule.a"), _fraction(r["b"], "machine.settings.rule.b"),
                           Refinement(refinement), _fraction(r["decay"], "machine.settings.rule.decay"))
    except PegasusRuleError as exc:
        raise _fail("machine.settings.rule", f"make no rule: {exc}") from None


def _mean(m: dict[str, Any], settings: Settings) -> tuple[float, int, int]:
    if not settings.keeps_mean:
        return (0.0, 0, 0)
    mean = _obj(m.get("mean_outcome"), "machine.mean_outcome", ("mu", "sum", "plays"))
    mu = _fraction(mean["mu"], "machine.mean_outcome.mu", hexadecimal=True)
    if not -1 <= mu <= 1:
        raise _fail("machine.mean_outcome.mu", "is outside -1 to 1")
    return (mu, _int(mean["sum"], "machine.mean_outcome.sum", -100, 100),
            _int(mean["plays"], "machine.mean_outcome.plays", 0, 99))


def _rule(settings: Settings, m: dict[str, Any]) -> dict[str, Any]:
    """The machine's rule columns, the refined rule's mean outcome from the file."""
    columns = rule_columns(settings)
    if settings.pegasus is not None:
        columns.update(zip(("mean_mu", "mean_sum", "mean_plays"), _mean(m, settings)))
    return columns


def _settings(st: Any, game: Game) -> Settings:
    st = _obj(st, "machine.settings", ("side", "schedule", "reinforcement", "all_squares", "symmetry", "empty_box"))
    schedule = tuple(_int(v, f"machine.settings.schedule[{i}]", 1, MAX_BEADS)
                     for i, v in enumerate(_list(st["schedule"], "machine.settings.schedule", 16)))
    if not schedule:
        raise _fail("machine.settings.schedule", "is empty")
    r = _obj(st["reinforcement"], "machine.settings.reinforcement", ("win", "draw", "loss"))
    win, draw, loss = (_int(r[k], f"machine.settings.reinforcement.{k}", -MAX_BEADS, MAX_BEADS)
                       for k in ("win", "draw", "loss"))
    try:
        return Settings(
            side=_choice(st["side"], "machine.settings.side", list(SIDE_CHOICES)), schedule=schedule, win=win,
            draw=draw, loss=loss, all_squares=_bool(st["all_squares"], "machine.settings.all_squares"),
            symmetry=_bool(st["symmetry"], "machine.settings.symmetry"),
            empty_policy=EmptyPolicy(_choice(st["empty_box"], "machine.settings.empty_box",
                                             [p.value for p in EmptyPolicy])),
            scope=Scope(_choice(st.get("scope", "every"), "machine.settings.scope", [s.value for s in Scope])),
            forced_boxes=_bool(st.get("forced_boxes", False), "machine.settings.forced_boxes"),
            pegasus=_pegasus(st),
        )
    except SettingsError as exc:
        raise _fail("machine.settings", f"make no machine: {exc}") from None


def _move(game: Game, value: Any, where: str) -> int:
    text = _text(value, where, 16)
    try:
        return game.parse_move(text)
    except (IllegalMoveError, ValueError):
        raise _fail(where, f"is {text!r}, not a move of {game.name}") from None


def _boxes(value: Any, game: Game, initial_most: int = MAX_BEADS) -> list[BoxDump]:
    boxes = []
    for i, b in enumerate(_list(value, "boxes", 100_000)):
        where = f"boxes[{i}]"
        b = _obj(b, where, ("number", "position", "side", "move", "beads"))
        beads = _obj(b["beads"], f"{where}.beads", ())
        if len(beads) > game.move_count:
            raise _fail(f"{where}.beads", f"has {len(beads)} beads, more than the game has moves")
        by_move: dict[int, tuple[int, int, int]] = {}
        for name, bead in beads.items():
            mv = _move(game, name, f"{where}.beads key")
            if mv in by_move:
                raise _fail(f"{where}.beads", f"name the move {game.move_name(mv)} twice")
            bead = _obj(bead, f"{where}.beads.{name}", ("initial", "count"))
            by_move[mv] = (mv, _int(bead["initial"], f"{where}.beads.{name}.initial", 0, initial_most),
                           _int(bead["count"], f"{where}.beads.{name}.count", 0, MAX_COUNT))
        boxes.append(BoxDump(
            _int(b["number"], f"{where}.number", 1, 100_000), _text(b["position"], f"{where}.position", 64),
            _choice(b["side"], f"{where}.side", ["X", "O"]), _int(b["move"], f"{where}.move", 1, 64),
            sorted(by_move.values()),
        ))
        if boxes[-1].number != i + 1:
            raise _fail(f"{where}.number", f"is {boxes[-1].number}, not {i + 1}: boxes are numbered 1, 2, 3, ...")
    return boxes


def check_machine_content(body: dict[str, Any], rename: str | None = None,
                          ) -> tuple[MachineDump, Settings, CheckedBlocks]:
    """The file's content as typed values, every field checked (see the module's docstring); the
    history's blocks apart (the dump has none), each checked as it is read from the
    :class:`CheckedBlocks`.

    ``rename`` (``--as``) replaces the file's name; both follow the machine-name rule.
    """
    m = _obj(body.get("machine"), "machine", ("name", "game", "settings", "created_at"))
    name = rename if rename is not None else m["name"]
    if not is_machine_name(name):
        raise _fail("machine name" if rename is None else "new name",
                    f"{safe_text(repr(name))[:80]} breaks the rule: 1 to 64 letters, digits, '-', '_' or '.', "
                    f"starting with a letter or digit")
    game_name = _text(m["game"], "machine.game", 40)
    if not is_game_name(game_name):
        raise _fail("machine.game", f"is {safe_text(repr(m['game']))[:40]}, not one of {', '.join(game_names())} "
                                    f"(or a variant of one, such as nim-15-4-normal)")
    game = find_game(game_name)
    settings = _settings(m["settings"], game)
    colours = _optional_text(m.get("colours"), "machine.colours", 2_000)
    if colours is not None:
        try:
            parse_colours(colours)
        except ColourError as exc:
            raise _fail("machine.colours", f"are not a colour list: {exc}") from None
    boxes = _boxes(body.get("boxes"), game, MAX_BEADS if settings.pegasus is None else UNIT)
    h = _obj(body.get("history"), "history", ("games", "runs", "blocks", "corrections"))
    declared = _int(h["games"], "history.games", 0, MAX_GAMES)
    runs = []
    for i, r in enumerate(_list(h["runs"], "history.runs", 10_000_000)):
        where = f"history.runs[{i}]"
        r = _obj(r, where, ("kind", "opponent", "seed", "started_at", "ended_at"))
        seed = None if r["seed"] is None else _int(r["seed"], f"{where}.seed", 0, MAX_SEED)
        started = _time(r["started_at"], f"{where}.started_at")
        frozen = _bool(r["frozen"], f"{where}.frozen") if "frozen" in r else False
        runs.append(RunDump(_text(r["kind"], f"{where}.kind", 40), _text(r["opponent"], f"{where}.opponent", 200),
                            seed, started, _optional_time(r["ended_at"], f"{where}.ended_at"), frozen))
    source = h["blocks"]
    blocks = CheckedBlocks(source if isinstance(source, StreamedBlocks) else
                           _list(source, "history.blocks", MAX_BLOCKS), len(runs), declared)
    fixes = []
    for i, c in enumerate(_list(h["corrections"], "history.corrections", 10_000_000)):
        where = f"history.corrections[{i}]"
        c = _obj(c, where, ("after_game", "box", "square", "count", "reason", "created_at"))
        box = _int(c["box"], f"{where}.box", 1, len(boxes))
        mv = _move(game, c["square"], f"{where}.square")
        if mv not in {bead[0] for bead in boxes[box - 1].beads}:
            raise _fail(f"{where}.square", f"is {game.move_name(mv)}, which box {box} holds no beads for")
        created = _time(c["created_at"], f"{where}.created_at")
        fixes.append(CorrectionDump(_int(c["after_game"], f"{where}.after_game", 0, declared), box, mv,
                                    _int(c["count"], f"{where}.count", 0, MAX_BEADS),
                                    _text(c["reason"], f"{where}.reason"), created))
    created_at = _time(m["created_at"], "machine.created_at")
    preset = _optional_text(m.get("preset"), "machine.preset", 40)
    dump = MachineDump(
        name, game.name, settings.side, format_numbers(settings.schedule), settings.win, settings.draw,
        settings.loss, settings.all_squares, settings.symmetry, settings.empty_policy.value, preset, created_at,
        boxes, runs, [], fixes, settings.scope.value, settings.forced_boxes, colours,
        _rule(settings, m),
    )
    return dump, settings, blocks


class CheckedBlocks:
    """The history's blocks as :class:`BlockDump` values, each checked against the schema as it is
    read, in the file's order, which must be their games' order; their games must add up to
    ``history.games`` (checked once the last is read). Iterable again and again: a file's blocks
    (:class:`StreamedBlocks`) are read from the file each time, one at a time."""

    def __init__(self, source: list[Any] | StreamedBlocks, runs: int, declared: int) -> None:
        self._source, self._runs = source, runs
        self.games = declared
        """The games in the blocks, as the file says (and as they must add up to)."""

    def __len__(self) -> int:
        return len(self._source)

    def __iter__(self) -> Iterator[BlockDump]:
        previous = total = 0
        for i, b in enumerate(self._source):
            block = _block(b, f"history.blocks[{i}]", self._runs)
            if block.first_game <= previous:
                raise _fail("history.blocks", "has two blocks starting at the same game"
                            if block.first_game == previous else
                            f"are not in the order of their games (game {block.first_game:,} after {previous:,})")
            previous = block.first_game
            total += block.n_games
            yield block
        if total != self.games:
            raise _fail("history.games", f"is {self.games:,}, but its blocks hold {total:,}")


def _block(b: Any, where: str, runs: int) -> BlockDump:
    b = _obj(b, where, ("run", "first_game", "games", "data"))
    n = _int(b["games"], f"{where}.games", 1, MAX_GAMES)
    if n > MAX_BLOCK_GAMES:
        raise _fail(where, f"holds {n:,} games, more than the {MAX_BLOCK_GAMES:,} a block of any history can")
    kept = _bool(b.get("kept", True), f"{where}.kept")
    data = _base64(b["data"], f"{where}.data", n * 32 + 64 if kept else 0)
    beads = None if b.get("beads") is None else _base64(b["beads"], f"{where}.beads", MAX_BEADS_TEXT)
    tally = [_int(b.get(k, 0), f"{where}.{k}", 0, n) for k in ("wins", "draws", "losses")]
    if not kept:
        # A summary has no games to recompute its tally from: its wins, draws and losses are
        # all there is, and they must at least add up to its games; its beads carry the history on.
        if beads is None:
            raise _fail(where, "is a summary without the beads after its last game")
        if sum(tally) != n:
            raise _fail(where, f"is a summary of {n:,} games whose wins, draws and losses add up to "
                               f"{sum(tally):,}")
    block = BlockDump(_int(b["run"], f"{where}.run", 0, max(runs - 1, 0)),
                      _int(b["first_game"], f"{where}.first_game", 1, MAX_GAMES), n, tally[0], tally[1], tally[2],
                      data, beads, kept)
    if not runs:
        raise _fail(where, "belongs to no run")
    return block
