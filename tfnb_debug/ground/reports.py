"""Findings and reports: the plain data every feature hands to the renderers.

A :class:`Finding` is one problem, with a catalog code.  A :class:`Report` is a
frozen record of plain values (no live tensors) with a ``findings`` tuple, named
:class:`Table` parts that convert to pandas DataFrames, a ``text/plain`` form
and a self-contained HTML form.  Feature reports subclass :class:`Report` and
add their own fields and sections.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

from tfnb_debug.ground.catalog import CATALOG, Severity

if TYPE_CHECKING:
    import pandas as pd

__all__ = ["Finding", "Report", "Section", "Table", "Target", "finding", "group_findings"]

_SEVERITY_ORDER = {"error": 0, "warning": 1, "info": 2}
# how many places a grouped finding names before "... and N more"
SHOWN_PLACES = 3


@dataclass(frozen=True)
class Target:
    """Where a finding points, for code: what :attr:`Finding.place` says in words.

    ``kind`` is one of ``"layer"`` (``path`` is the layer's path, e.g.
    ``model/block/conv``, as the shape table's rows name it), ``"stage"`` (a
    tf.data stage: ``index`` in the chain, ``path`` its label), ``"variable"``
    (``path`` is the variable's path) or ``"function"`` (a ``tf.function``'s
    name).  Rules set it where they set ``place``; renderers, widgets and
    :meth:`Report.findings_for` read it instead of parsing ``place``.
    """

    kind: str
    path: str = ""
    index: int | None = None

    def names(self, path: str) -> bool:
        """Whether this target is ``path`` or ends with it (``conv`` names ``model/block/conv``)."""
        return bool(path) and (self.path == path or self.path.endswith("/" + path))


@dataclass(frozen=True)
class Finding:
    """One problem found, in the catalog's form.

    ``place`` names where (layer, variable, stage, step) as display text, and
    ``target`` (optional) says the same as a :class:`Target` for code;
    ``evidence`` gives the numbers; ``hint`` says how to fix it.  ``cause``
    (optional) says what the problem is without naming the place; findings of
    one code and one cause are one problem (see :func:`group_findings`).

    A finding that stands for several places with one cause (a *group*, as
    every :class:`Report` holds them) keeps the individual findings in
    :attr:`members`; its own ``place``, ``message``, ``evidence`` and ``hint``
    are those of the first member, and its text names the count and the first
    few places.
    """

    code: str
    slug: str
    severity: Severity
    message: str
    place: str = ""
    evidence: str = ""
    hint: str = ""
    cause: str = ""
    target: Target | None = None
    group: tuple[Finding, ...] = field(default=(), repr=False)

    @property
    def members(self) -> tuple[Finding, ...]:
        """The individual findings this one stands for (itself when it is not a group)."""
        return self.group or (self,)

    @property
    def count(self) -> int:
        """How many places share this problem."""
        return len(self.members)

    @property
    def places(self) -> tuple[str, ...]:
        """Every place of the group, in the order found."""
        return tuple(m.place for m in self.members)

    def place_text(self) -> str:
        """``layer 'x'`` for one place; ``56 layers (a, b, c, ... and 53 more)`` for a group."""
        if self.count == 1:
            return self.place
        shown = _short_places(self.places)
        text = ", ".join(shown[:SHOWN_PLACES])
        if self.count > SHOWN_PLACES:
            text += f", ... and {self.count - SHOWN_PLACES} more"
        return f"{self.count} {_place_noun(self.code)} ({text})"

    def to_text(self) -> str:
        """One line that starts with the code, e.g. ``E01 memory-growth-not-set (warning): ...``."""
        head = f"{self.code} {self.slug} ({self.severity})"
        place = self.place_text()
        if place:
            head += f" at {place}"
        text = f"{head}: {self.message}"
        if self.evidence:
            text += f" [{self.evidence}]"
        if self.hint:
            text += f" -- {self.hint}"
        return " ".join(text.split())

    def __str__(self) -> str:
        return self.to_text()


def finding(
    code: str,
    message: str,
    *,
    place: str = "",
    evidence: str = "",
    hint: str = "",
    cause: str = "",
    target: Target | None = None,
) -> Finding:
    """Build a :class:`Finding` for a catalog ``code``; slug and severity come from the catalog.

    Rules call this with the code as a string literal: a test reads those
    literals to check that every code the code base emits is documented.
    ``cause`` names the problem without its place (e.g. ``"sigmoid output of
    Conv2D layers"``) when a rule can fire at many places for one reason.
    ``target`` is ``place`` for code (a layer path, a stage index, ...).
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
        cause=cause,
        target=target,
    )


# quoted names ('dense_3', "x") and numbers (3, 97.1%, 1e-3, (None, 8)) vary from
# place to place within one cause; the words around them are the rule's template
_QUOTED = re.compile(r"'[^']*'|\"[^\"]*\"")
_NUMBER = re.compile(r"[-+]?\d+(?:\.\d+)?(?:e[-+]?\d+)?")


def _template(text: str) -> str:
    return " ".join(_NUMBER.sub("#", _QUOTED.sub("'_'", text)).split())


def cause_key(f: Finding) -> tuple[str, str, str]:
    """What makes two findings one problem: the code, and the cause.

    The cause is the rule's own ``cause`` when it gave one; otherwise the
    message and hint with their names and numbers taken out, so that two
    findings say the same thing about different places (a rule's different
    branches, e.g. different layer classes or activations, stay apart).
    """
    if f.cause:
        return (f.code, f.cause, "")
    return (
        f.code,
        _template(f.message),
        _template(f.hint),
    )


def group_findings(findings: Iterable[Finding]) -> tuple[Finding, ...]:
    """One finding per code and cause, in the order of each cause's first finding.

    Findings already grouped are taken apart first, so grouping twice (a report
    rebuilt with ``dataclasses.replace``, two reports' findings merged) gives the
    same groups.  A finding whose cause has one place is returned as is;
    identical findings count once.
    """
    groups: dict[tuple[str, str, str], list[Finding]] = {}
    seen: set[Finding] = set()  # a membership test per group was quadratic (1,000 layers)
    for f in findings:
        for member in f.members:
            group = groups.setdefault(cause_key(member), [])
            try:
                if member in seen:  # the same finding twice is still one place
                    continue
                seen.add(member)
            except TypeError:  # an unhashable target: compare within the group
                if member in group:
                    continue
            group.append(member)
    out = []
    for members in groups.values():
        if len(members) == 1:
            out.append(members[0])
        else:
            out.append(replace(members[0], group=tuple(members)))
    return tuple(out)


# codes whose place is a layer; S06-S08 name a loss, an op or a line of code instead
_LAYER_PLACES = ("S01", "S02", "S03", "S04", "S05", "N01", "N02", "N03")


def _place_noun(code: str) -> str:
    return "layers" if code in _LAYER_PLACES else "places"


def _short_places(places: Sequence[str]) -> list[str]:
    """The places without the path prefix they all share (``model/block1/conv`` -> ``conv``)."""
    split = [p.split("/") for p in places]
    common = 0
    while (
        all(len(parts) > common + 1 for parts in split)
        and len({parts[common] for parts in split}) == 1
    ):
        common += 1
    return ["/".join(parts[common:]) for parts in split]


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

    def __post_init__(self) -> None:
        # every report, whatever built it, shows one finding per code and cause
        object.__setattr__(self, "findings", group_findings(self.findings))

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
        """The codes of the findings, one per cause, in order (handy in tests and notebooks)."""
        return [f.code for f in self.findings]

    def all_findings(self) -> list[Finding]:
        """Every individual finding: the members of each group, one per place."""
        return [m for f in self.findings for m in f.members]

    def findings_for(self, place: str) -> list[Finding]:
        """The individual findings at ``place``: a layer path (or its end, ``conv`` for
        ``model/block/conv``) or a variable path that a finding targets, else its exact place."""
        return [
            f
            for f in self.all_findings()
            if (f.target.names(place) if f.target is not None else bool(place) and place == f.place)
        ]

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
