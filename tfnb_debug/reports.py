"""Findings and reports: the plain data every feature hands to the renderers.

A :class:`Finding` is one problem, with a catalog code.  A :class:`Report` is a
frozen record of plain values (no live tensors) with a ``findings`` tuple, named
:class:`Table` parts that convert to pandas DataFrames, a ``text/plain`` form
and a self-contained HTML form.  Feature reports subclass :class:`Report` and
add their own fields and sections.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from tfnb_debug.catalog import CATALOG, Severity

if TYPE_CHECKING:
    import pandas as pd

__all__ = ["Finding", "Report", "Section", "Table", "finding"]

_SEVERITY_ORDER = {"error": 0, "warning": 1, "info": 2}


@dataclass(frozen=True)
class Finding:
    """One problem found, in the catalog's form.

    ``place`` names where (layer, variable, stage, step); ``evidence`` gives the
    numbers; ``hint`` says how to fix it.
    """

    code: str
    slug: str
    severity: Severity
    message: str
    place: str = ""
    evidence: str = ""
    hint: str = ""

    def to_text(self) -> str:
        """One line that starts with the code, e.g. ``E01 memory-growth-not-set (warning): ...``."""
        head = f"{self.code} {self.slug} ({self.severity})"
        if self.place:
            head += f" at {self.place}"
        text = f"{head}: {self.message}"
        if self.evidence:
            text += f" [{self.evidence}]"
        if self.hint:
            text += f" -- {self.hint}"
        return " ".join(text.split())

    def __str__(self) -> str:
        return self.to_text()


def finding(
    code: str, message: str, *, place: str = "", evidence: str = "", hint: str = ""
) -> Finding:
    """Build a :class:`Finding` for a catalog ``code``; slug and severity come from the catalog.

    Rules call this with the code as a string literal: a test reads those
    literals to check that every code the code base emits is documented.
    """
    entry = CATALOG.get(code)
    if entry is None:
        raise KeyError(f"{code!r} is not a code of the tfnb_debug catalog")
    return Finding(
        code=code,
        slug=entry.slug,
        severity=entry.severity,
        message=message,
        place=place,
        evidence=evidence,
        hint=hint,
    )


def sort_findings(findings: Iterable[Finding]) -> tuple[Finding, ...]:
    """Errors first, then warnings, then info; stable within a severity."""
    return tuple(sorted(findings, key=lambda f: _SEVERITY_ORDER[f.severity]))


@dataclass(frozen=True)
class Table:
    """A named tabular part of a report: plain values, one tuple per row.

    ``row_marks`` flags rows for the renderers (``"error"`` draws the row red,
    ``"warning"`` highlights it), one entry per row or empty.
    """

    name: str
    columns: tuple[str, ...]
    rows: tuple[tuple[Any, ...], ...]
    row_marks: tuple[str, ...] = ()

    def to_dataframe(self) -> pd.DataFrame:
        import pandas as pd

        return pd.DataFrame(list(self.rows), columns=list(self.columns))


@dataclass(frozen=True)
class Section:
    """A block of a report's HTML form that is not a table: a heading and ready HTML.

    ``html`` is self-contained (inline styles, images as data URIs); ``text`` is
    what the plain-text form shows for it (may be empty, e.g. for a plot).
    """

    title: str
    html: str
    text: str = ""


@dataclass(frozen=True, kw_only=True)
class Report:
    """The base of every report.

    Subclasses fill ``title``, ``summary`` (short lines shown first),
    ``tables``, ``sections`` and ``findings``; the renderers in
    :mod:`tfnb_debug.render` turn any report into text and HTML.
    """

    title: str
    summary: tuple[str, ...] = ()
    findings: tuple[Finding, ...] = ()
    tables: tuple[Table, ...] = ()
    sections: tuple[Section, ...] = field(default=(), repr=False)

    def table(self, name: str) -> Table:
        for table in self.tables:
            if table.name == name:
                return table
        names = ", ".join(t.name for t in self.tables) or "none"
        raise KeyError(f"this report has no table {name!r} (tables: {names})")

    def to_dataframe(self, name: str | None = None) -> pd.DataFrame:
        """The table called ``name`` (by default the first) as a pandas DataFrame."""
        if name is None:
            if not self.tables:
                raise KeyError("this report has no tables")
            return self.tables[0].to_dataframe()
        return self.table(name).to_dataframe()

    def codes(self) -> list[str]:
        """The codes of the findings, in order (handy in tests and notebooks)."""
        return [f.code for f in self.findings]

    def findings_for(self, place: str) -> list[Finding]:
        """The findings whose place mentions ``place``."""
        return [f for f in self.findings if place and place in f.place]

    def to_text(self, width: int = 100) -> str:
        from tfnb_debug.render.text import render_report_text

        return render_report_text(self, width=width)

    def to_html(self) -> str:
        from tfnb_debug.render.html import render_report_html

        return render_report_html(self)

    def save_html(self, path: str | Path) -> Path:
        """Write the report as a standalone HTML page and return its path."""
        from tfnb_debug.render.html import standalone_page

        target = Path(path)
        target.write_text(standalone_page(self.title, self.to_html()), encoding="utf-8")
        return target

    def _repr_mimebundle_(
        self, include: Sequence[str] | None = None, exclude: Sequence[str] | None = None
    ) -> dict[str, str]:
        return {"text/plain": self.to_text(), "text/html": self.to_html()}

    def __repr__(self) -> str:
        return (
            f"<{type(self).__name__} {self.title!r}: {len(self.findings)} finding(s), "
            f"{len(self.tables)} table(s)>"
        )
