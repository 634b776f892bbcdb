"""A DataFrame column behind the error (S11, S12): a text or date column no tensor takes, a
column a line of the cell removed before the failing line read it, a Series turned into a
dict.  :mod:`._column_history` reads the line, the tables and the cell; this rule turns it
into the finding."""

from __future__ import annotations

from tfnb_debug.explain._column_history import column_fault
from tfnb_debug.explain._context import ErrorContext
from tfnb_debug.explain.report import NextStep
from tfnb_debug.ground.reports import Finding, finding

Explained = tuple[Finding, tuple[NextStep, ...]]


def table_column(ctx: ErrorContext) -> Explained | None:
    """S11 or S12: the column of the failing line's table that the error is about."""
    if not ctx.is_a("ValueError") and not ctx.is_a("KeyError") and not ctx.is_a("TypeError"):
        return None
    fault = ctx.read(column_fault)
    if fault is None:
        return None
    place = ctx.where(fault.filename, fault.lineno)
    if fault.code == "S11":
        return (
            finding("S11", fault.problem, place=place, evidence=fault.evidence, hint=fault.hint),
            (),
        )
    return (
        finding("S12", fault.problem, place=place, evidence=fault.evidence, hint=fault.hint),
        (),
    )
