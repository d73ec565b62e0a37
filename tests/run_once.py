"""Something built once per test run and read by every xdist worker (a folder of files)."""

from __future__ import annotations

import fcntl
import os
from collections.abc import Callable
from pathlib import Path

import pytest


def built_once(tmp_path_factory: pytest.TempPathFactory, name: str, build: Callable[[Path], None]) -> Path:
    """The folder ``build(folder)`` fills, built once per run: under xdist the first worker to ask
    builds it in the run's own temporary folder (shared by its workers; a lock held meanwhile) and
    the others wait for it and read it; without xdist, in the session's folder. Only for what the
    tests read and never change (a test that changes a file copies it first)."""
    if not os.environ.get("PYTEST_XDIST_WORKER"):
        folder = tmp_path_factory.mktemp(name)
        build(folder)
        return folder
    shared = tmp_path_factory.getbasetemp().parent  # the run's folder: one per run, its workers' folders in it
    with open(shared / f"{name}.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        folder, done = shared / name, shared / f"{name}.built"
        if not done.exists():
            folder.mkdir(exist_ok=True)
            build(folder)
            done.touch()
    return folder
