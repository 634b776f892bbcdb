"""A DataFrame column behind the error (S11, S12): a text or date column no tensor takes, a
column a line of the cell removed before the failing line read it, a Series turned into a
dict.  :mod:`._column_history` reads the line, the tables and the cell; this rule turns it
into the finding."""

from __future__ import annotations

from tfnb_debug.explain._check_makers import made_wrong
from tfnb_debug.explain._column_history import column_fault
from tfnb_debug.explain._context import ErrorContext
from tfnb_debug.explain._numpy_lines import numpy_fault
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


def numpy_line(ctx: ErrorContext) -> Explained | None:
    """S11, S07, S12, S13 or P12: a NumPy error on the user's line preparing the data, with
    the array and the dimension or dtype at fault (:mod:`._numpy_lines`)."""
    fault = ctx.read(numpy_fault)
    if fault is None:
        return None
    place, parts = ctx.where(fault.filename, fault.lineno), (fault.problem,)
    kwargs = {"place": place, "evidence": fault.evidence, "hint": fault.hint}
    if fault.code == "S11":
        return finding("S11", *parts, **kwargs), ()
    if fault.code == "S12":
        return finding("S12", *parts, **kwargs), ()
    if fault.code == "S13":
        return finding("S13", *parts, **kwargs), ()
    if fault.code == "P12":
        return finding("P12", *parts, **kwargs), ()
    return finding("S07", *parts, **kwargs), ()


def check_made_wrong(ctx: ErrorContext) -> Explained | None:
    """P12, S12, N05, S08 or S09: a failed check whose operand a statement above made wrong
    (:mod:`._check_makers`)."""
    fault = ctx.read(made_wrong)
    user = ctx.user_code_line()
    if fault is None or user is None:
        return None
    parts, kwargs = (
        (fault.problem,),
        {
            "place": ctx.where(user[0], fault.lineno or user[1], user[2]),
            "evidence": fault.evidence,
            "hint": fault.hint,
        },
    )
    if fault.code == "P12":
        return finding("P12", *parts, **kwargs), ()
    if fault.code == "N05":
        return finding("N05", *parts, **kwargs), ()
    if fault.code == "S08":
        return finding("S08", *parts, **kwargs), ()
    if fault.code == "S09":
        return finding("S09", *parts, **kwargs), ()
    return finding("S12", *parts, **kwargs), ()
