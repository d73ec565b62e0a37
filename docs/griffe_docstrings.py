"""A griffe extension for the Python API page: the package's docstrings are reStructuredText-ish
(``code``, :func:`name`, doctests); the site renders Markdown. Doctests become ``pycon`` code blocks
and the inline markup becomes Markdown code, so nothing in a docstring is read as a link."""

from __future__ import annotations

import re
from typing import Any

import griffe

ROLE = re.compile(r":[a-z]+:`~?([^`]+)`")


def markdown_docstring(text: str) -> str:
    out: list[str] = []
    in_doctest = False
    for line in text.splitlines():
        stripped = line.strip()
        if stripped.startswith(">>>") and not in_doctest:
            out += ["", "```pycon"]
            in_doctest = True
        elif in_doctest and not stripped:
            out += ["```", ""]
            in_doctest = False
        if not in_doctest:
            line = ROLE.sub(lambda m: f"`{m.group(1)}`", line).replace("``", "`")
        out.append(line)
    if in_doctest:
        out.append("```")
    return "\n".join(out)


class MarkdownDocstrings(griffe.Extension):
    def on_instance(self, *, node: Any, obj: griffe.Object, agent: Any, **kwargs: Any) -> None:
        if obj.docstring is not None:
            obj.docstring.value = markdown_docstring(obj.docstring.value)
