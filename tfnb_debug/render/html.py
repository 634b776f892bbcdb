"""Self-contained HTML: inline styles only, images as data URIs.

What this produces reads the same in JupyterLab, Notebook 7, VS Code, nbconvert
exports and GitHub, none of which share a stylesheet.
"""

from __future__ import annotations

from collections.abc import Sequence
from html import escape
from typing import TYPE_CHECKING, Any

from tfnb_debug.ground.values import format_value

if TYPE_CHECKING:
    from tfnb_debug.ground.reports import Finding, Report, Table

FONT = "font-family:-apple-system,Segoe UI,Helvetica,Arial,sans-serif;font-size:13px;"
MONO = "font-family:SFMono-Regular,Menlo,Consolas,monospace;font-size:12px;"
SEVERITY_COLOURS = {
    "error": ("#b91c1c", "#fde8e8"),
    "warning": ("#92400e", "#fef3c7"),
    "info": ("#1e40af", "#e0ecff"),
}
ROW_BACKGROUND = {"error": "#fde2e2", "warning": "#fff7d6", "": ""}
_CELL = "padding:2px 8px;border-bottom:1px solid #e5e7eb;text-align:left;vertical-align:top;"


def esc(value: Any) -> str:
    return escape(format_value(value) if not isinstance(value, str) else value)


def table_html(
    columns: Sequence[str],
    rows: Sequence[Sequence[Any]],
    *,
    marks: Sequence[str] = (),
    caption: str = "",
    row_ids: Sequence[str] = (),
) -> str:
    """An HTML table; rows marked ``error`` are red, ``warning`` yellow."""
    head = "".join(f'<th style="{_CELL}background:#f3f4f6;">{escape(c)}</th>' for c in columns)
    body = []
    for i, row in enumerate(rows):
        mark = marks[i] if marks else ""
        bg = ROW_BACKGROUND.get(mark, "")
        style = f' style="background:{bg};"' if bg else ""
        rid = f' data-row="{escape(row_ids[i])}"' if row_ids else ""
        cls = f' class="tfnb-row tfnb-{mark}"' if mark else ' class="tfnb-row"'
        cells = "".join(f'<td style="{_CELL}{MONO}">{esc(v)}</td>' for v in row)
        body.append(f"<tr{cls}{rid}{style}>{cells}</tr>")
    cap = (
        f'<caption style="text-align:left;font-weight:600;padding:4px 0;">{escape(caption)}</caption>'
        if caption
        else ""
    )
    return (
        f'<table style="border-collapse:collapse;margin:4px 0 10px 0;">{cap}'
        f"<thead><tr>{head}</tr></thead><tbody>{''.join(body)}</tbody></table>"
    )


def render_table_html(table: Table) -> str:
    return table_html(table.columns, table.rows, marks=table.row_marks, caption=table.name)


def finding_html(f: Finding) -> str:
    fg, bg = SEVERITY_COLOURS[f.severity]
    place_text = f.place_text()
    place = f" at <b>{escape(place_text)}</b>" if place_text else ""
    evidence = f' <span style="color:#4b5563;">[{escape(f.evidence)}]</span>' if f.evidence else ""
    hint = f'<div style="margin-top:2px;">&rarr; {escape(f.hint)}</div>' if f.hint else ""
    count = f' data-count="{f.count}" title="{escape(", ".join(f.places))}"' if f.count > 1 else ""
    return (
        f'<div class="tfnb-finding" data-code="{f.code}"{count} style="border-left:4px solid {fg};'
        f'background:{bg};padding:4px 8px;margin:3px 0;">'
        f'<span style="{MONO}font-weight:700;color:{fg};">{f.code} {f.slug}</span> '
        f'<span style="color:{fg};">({f.severity})</span>{place}: {escape(f.message)}{evidence}{hint}</div>'
    )


def findings_html(findings: Sequence[Finding]) -> str:
    if not findings:
        return '<div style="color:#166534;margin:4px 0;">No findings.</div>'
    return "".join(finding_html(f) for f in findings)


def heading(text: str, level: int = 4) -> str:
    return f'<h{level} style="margin:10px 0 4px 0;">{escape(text)}</h{level}>'


def image_html(data_uri: str, *, alt: str, width: int | None = None) -> str:
    size = f' width="{width}"' if width else ""
    return f'<img src="{data_uri}" alt="{escape(alt)}"{size} style="max-width:100%;"/>'


def render_report_html(report: Report) -> str:
    parts = [f'<div class="tfnb-report" style="{FONT}">', heading(report.title, 3)]
    if report.summary:
        parts.append(
            '<div style="color:#374151;margin-bottom:6px;">'
            + "<br/>".join(escape(line) for line in report.summary)
            + "</div>"
        )
    parts.append(findings_html(report.findings))
    parts.extend(render_table_html(t) for t in report.tables)
    for section in report.sections:
        parts.append(heading(section.title))
        parts.append(section.html)
    parts.append("</div>")
    return "".join(parts)


def standalone_page(title: str, body: str) -> str:
    return (
        '<!DOCTYPE html>\n<html><head><meta charset="utf-8"/>'
        f"<title>{escape(title)}</title></head><body>{body}</body></html>\n"
    )
