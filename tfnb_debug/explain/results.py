"""The user's line used a value a Keras or TensorFlow API returned as another kind of value
(S12): a History indexed like a dict, a Dataset indexed or measured, NumPy methods on a
tensor, an item of a tensor assigned, evaluate's float read by metric name.

:mod:`._library_results` reads the line and the live value; this rule turns it into the
finding.
"""

from __future__ import annotations

from tfnb_debug.explain._coded import coded_finding
from tfnb_debug.explain._context import ErrorContext
from tfnb_debug.explain.report import NextStep
from tfnb_debug.ground.reports import Finding

Explained = tuple[Finding, tuple[NextStep, ...]]


def library_result(ctx: ErrorContext) -> Explained | None:
    """S12: the failing line treats a library result as a value of another kind."""
    misuse = ctx.misuse
    if misuse is None:
        return None
    place = ctx.where(misuse.filename, misuse.lineno)
    evidence = f"`{misuse.name}`: {misuse.kind}"
    # S12; S04 for an unbuilt layer's weights; G05 for a per-epoch list cut short by NaN
    return coded_finding(misuse.code, misuse.problem, place, evidence, misuse.hint), ()
