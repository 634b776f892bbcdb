"""The diagnosis box shown under a failed cell's traceback: a small :class:`Report`."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from html import escape

from tfnb_debug.ground.reports import Report

__all__ = ["ExplainReport", "NextStep"]


@dataclass(frozen=True)
class NextStep:
    """What to do next.

    ``magic`` names a tfnb_debug cell magic (``"tfshape"``) that the step uses,
    or is empty; ``text`` is shown when that magic is available (or unknown),
    ``fallback`` when it is not registered.
    """

    text: str
    magic: str = ""
    fallback: str = ""

    def command(self) -> str:
        """The exact line to type: ``%%tfshape`` (empty for a step without a magic)."""
        return f"%%{self.magic}" if self.magic else ""


@dataclass(frozen=True, kw_only=True)
class ExplainReport(Report):
    """Why a cell failed: the findings that explain the exception and the next step.

    ``error_type`` and ``error_line`` repeat the exception's class and its key
    sentence; ``available_magics`` (None = unknown) decides which next steps
    show their magic and which their fallback.
    """

    error_type: str
    error_line: str = ""
    next_steps: tuple[NextStep, ...] = ()
    available_magics: frozenset[str] | None = None

    def next_step_lines(self) -> list[str]:
        lines: list[str] = []
        for step in self.next_steps:
            usable = (
                not step.magic
                or self.available_magics is None
                or (step.magic in self.available_magics)
            )
            text = step.text if usable else step.fallback
            if text and text not in lines:
                lines.append(text)
        return lines

    def to_text(self, width: int = 100) -> str:
        lines = [f"{self.title} ({self.error_type})"]
        lines.extend(f.to_text() for f in self.findings)
        lines.extend(f"Next: {line}" for line in self.next_step_lines())
        return "\n".join(lines)

    def to_html(self) -> str:
        from tfnb_debug.render.html import FONT, findings_html

        steps = "".join(
            f'<div class="tfnb-next" style="margin-top:4px;"><b>Next:</b> {_code_spans(line)}</div>'
            for line in self.next_step_lines()
        )
        return (
            f'<div class="tfnb-explain" style="{FONT}border:1px solid #fca5a5;border-radius:4px;'
            'padding:6px 10px;margin:4px 0;background:#fffafa;">'
            f'<div style="font-weight:600;margin-bottom:2px;">{escape(self.title)} '
            f'<span style="color:#6b7280;font-weight:400;">({escape(self.error_type)})</span></div>'
            f"{findings_html(self.findings)}{steps}</div>"
        )

    def _repr_mimebundle_(
        self, include: Sequence[str] | None = None, exclude: Sequence[str] | None = None
    ) -> dict[str, str]:
        return {"text/plain": self.to_text(), "text/html": self.to_html()}


def _code_spans(text: str) -> str:
    """Escape ``text`` and show its `backquoted` parts as code."""
    parts = text.split("`")
    out = []
    for i, part in enumerate(parts):
        if i % 2 and i < len(parts) - 1:
            out.append(f"<code>{escape(part)}</code>")
        else:
            out.append(escape(part if i % 2 == 0 or i < len(parts) - 1 else "`" + part))
    return "".join(out)
