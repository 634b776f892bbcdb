"""A one-line progress display for a magic that trains: updated in place in a notebook.

In a Jupyter kernel (and any front end that keeps display ids) the line is an
updating display handle with a text and an HTML form, cleared when the run
ends; in a terminal IPython, where a display cannot change, it is a printed
text line every few seconds.  The magic passes none under ``-q``.
"""

from __future__ import annotations

import html
import time
from typing import Any, Protocol

__all__ = ["ProgressLine"]


class _Step(Protocol):
    def text(self) -> str: ...


class _Line:
    """What the display shows: a text and an HTML form of one progress line."""

    def __init__(self, text: str) -> None:
        self.text = text

    def _repr_mimebundle_(self, **kwargs: Any) -> dict[str, str]:
        if not self.text:
            return {"text/plain": "", "text/html": ""}
        return {
            "text/plain": self.text,
            "text/html": f'<div style="font-size:12px;color:#555;">{html.escape(self.text)}</div>',
        }


class ProgressLine:
    """Called with each step's progress (anything with a ``text()``); shows it now and then."""

    def __init__(self, shell: Any, *, every_s: float = 0.25, print_every_s: float = 2.0) -> None:
        self.printing = type(shell).__module__.startswith("IPython.terminal")
        self.every_s = print_every_s if self.printing else every_s
        self.handle: Any = None
        self.last = time.monotonic()  # the first line after one interval: short runs show none
        self.shown = 0

    def __call__(self, step: _Step) -> None:
        now = time.monotonic()
        if now - self.last < self.every_s:
            return
        self.last = now
        self.shown += 1
        if self.printing:
            print(step.text(), flush=True)
            return
        from IPython.display import display

        if self.handle is None:
            self.handle = display(_Line(step.text()), display_id=True)
        else:
            self.handle.update(_Line(step.text()))

    def close(self) -> None:
        """Clear the line (a notebook); a terminal keeps what it printed."""
        if self.handle is not None:
            self.handle.update(_Line(""))
            self.handle = None
