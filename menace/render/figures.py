"""Saving matplotlib figures the same way everywhere: the format from the file name, no dates
inside, so the same figure gives the same file."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:  # importing matplotlib takes a third of a second: only commands that draw pay it
    from matplotlib.figure import Figure

FORMATS = {".png": "png", ".svg": "svg", ".pdf": "pdf"}
"""The file types every plot, heat map and sweep chart can be written as."""

_METADATA: dict[str, dict[str, Any]] = {
    "png": {},
    "svg": {"Date": None},
    "pdf": {"CreationDate": None, "ModDate": None},
}


def save_figure(fig: Figure, path: str | Path, fmt: str, dpi: float | str = "figure") -> Path:
    """Write ``fig`` to ``path`` as ``fmt`` (a value of :data:`FORMATS`), with no dates inside."""
    from menace.app.files import write_with

    # Through the one safe writer: a temporary file beside the target, then renamed over it.
    return write_with(path, lambda f: fig.savefig(f, format=fmt, metadata=_METADATA[fmt], dpi=dpi))
