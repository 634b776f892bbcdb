"""Rules whose readers find the cause in the user's own data-preparation code, above or on
the failing line, and the value it made:

- :func:`table_column` (:mod:`._column_history`): a DataFrame column behind the error, a text
  or date column no tensor takes, a column a line of the cell removed, a Series made a dict;
- :func:`numpy_line` (:mod:`._numpy_lines`): a NumPy error on the user's line, with the
  array and the dimension or dtype at fault;
- :func:`check_made_wrong` (:mod:`._check_makers`): a failed check whose operand a
  statement above made wrong;
- :func:`map_over_pairs`: a library function mapped over (x, y) elements, which gets the
  labels as its second, optional parameter.

Each reader returns plain parts (code, problem, hint, evidence, line); the finding is made
here by :func:`._coded.coded_finding`."""

from __future__ import annotations

from tfnb_debug.explain._check_makers import made_wrong
from tfnb_debug.explain._coded import coded_finding
from tfnb_debug.explain._column_history import column_fault
from tfnb_debug.explain._context import ErrorContext
from tfnb_debug.explain._dataset_structure import library_function_over_pairs
from tfnb_debug.explain._numpy_lines import numpy_fault
from tfnb_debug.explain.report import NextStep
from tfnb_debug.ground.reports import Finding

Explained = tuple[Finding, tuple[NextStep, ...]]


def table_column(ctx: ErrorContext) -> Explained | None:
    """S11 or S12: the column of the failing line's table that the error is about."""
    if not ctx.is_a("ValueError") and not ctx.is_a("KeyError") and not ctx.is_a("TypeError"):
        return None
    fault = ctx.read(column_fault)
    if fault is None:
        return None
    place = ctx.where(fault.filename, fault.lineno)
    return coded_finding(fault.code, fault.problem, place, fault.evidence, fault.hint), ()


def numpy_line(ctx: ErrorContext) -> Explained | None:
    """S11, S07, S12, S13 or P12: a NumPy error on the user's line preparing the data."""
    fault = ctx.read(numpy_fault)
    if fault is None:
        return None
    place = ctx.where(fault.filename, fault.lineno)
    return coded_finding(fault.code, fault.problem, place, fault.evidence, fault.hint), ()


def check_made_wrong(ctx: ErrorContext) -> Explained | None:
    """P12, S12, N05, S08 or S09: a failed check whose operand a statement above made wrong."""
    fault = ctx.read(made_wrong)
    user = ctx.user_code_line()
    if fault is None or user is None:
        return None
    place = ctx.where(user[0], fault.lineno or user[1], user[2])
    return coded_finding(fault.code, fault.problem, place, fault.evidence, fault.hint), ()


def map_over_pairs(ctx: ErrorContext) -> Explained | None:
    """S12: a library function mapped over (x, y) elements gets the labels as an option."""
    if not ctx.is_a("TypeError") and not ctx.is_a("ValueError"):
        return None
    found = ctx.read(library_function_over_pairs)
    user = ctx.user_code_line()
    if found is None:
        return None
    place = ctx.where(user[0], user[1], user[2]) if user else "Dataset.map"
    return coded_finding("S12", found[0], place, found[2], found[1]), ()
