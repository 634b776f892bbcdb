"""Plain-text rendering for terminals and ``text/plain`` outputs."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from tfnb_debug.ground.values import format_value

if TYPE_CHECKING:
    from tfnb_debug.ground.reports import Finding, Report, Table

_MARK_GLYPH = {"error": "!!", "warning": " !", "": "  "}


def render_table_text(table: Table, *, width: int = 100, max_cell: int = 40) -> str:
    """A fixed-width table; marked rows start with ``!!`` (error) or `` !`` (warning)."""
    return table_text(
        table.columns, table.rows, marks=table.row_marks, width=width, max_cell=max_cell
    )


def table_text(
    columns: Sequence[str],
    rows: Sequence[Sequence[Any]],
    *,
    marks: Sequence[str] = (),
    width: int = 100,
    max_cell: int = 40,
) -> str:
    cells = [[_clip(format_value(v), max_cell) for v in row] for row in rows]
    widths = [len(c) for c in columns]
    for row in cells:
        for i, cell in enumerate(row):
            widths[i] = max(widths[i], len(cell))
    lead = "   " if marks else ""
    lines = [lead + "  ".join(c.ljust(w) for c, w in zip(columns, widths, strict=True)).rstrip()]
    lines.append(lead + "  ".join("-" * w for w in widths))
    for i, row in enumerate(cells):
        glyph = (_MARK_GLYPH.get(marks[i], "  ") + " ") if marks else ""
        line = glyph + "  ".join(c.ljust(w) for c, w in zip(row, widths, strict=True))
        lines.append(line.rstrip())
    return "\n".join(line if len(line) <= width else line[: width - 1] + "…" for line in lines)


def render_findings_text(findings: Sequence[Finding]) -> str:
    if not findings:
        return "No findings."
    return "\n".join(f.to_text() for f in findings)


def render_report_text(report: Report, *, width: int = 100) -> str:
    parts = [report.title, "=" * min(len(report.title), width)]
    parts.extend(report.summary)
    for table in report.tables:
        parts.append("")
        parts.append(f"[{table.name}]")
        parts.append(render_table_text(table, width=width))
    for section in report.sections:
        if section.text:
            parts.append("")
            parts.append(f"[{section.title}]")
            parts.append(section.text)
    parts.append("")
    parts.append("Findings:" if report.findings else "Findings: none.")
    if report.findings:
        parts.append(render_findings_text(report.findings))
    return "\n".join(parts)


def _clip(text: str, limit: int) -> str:
    return text if len(text) <= limit else text[: limit - 1] + "…"
