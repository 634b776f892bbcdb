"""The failing call broke the contract of the API it called (S12, S01, S07, S11, P12, S13).

:mod:`._contracts` checks the user's call into Keras or TensorFlow against
the API's documented contract while the exception is read; this rule turns
the first violation into the finding.  When no contract is broken but the
exception is a library-internal one (an ``AttributeError``, ``IndexError``,
``KeyError`` or ``TypeError`` raised deep inside the API), the box still says
what is certain: the call, the API and the arguments as given, and no guess.
"""

from __future__ import annotations

import re

from tfnb_debug.explain._coded import coded_finding
from tfnb_debug.explain._context import ErrorContext
from tfnb_debug.explain._contracts import INTERNAL
from tfnb_debug.explain.report import NextStep
from tfnb_debug.ground.reports import Finding, finding

Explained = tuple[Finding, tuple[NextStep, ...]]


def broken_contract(ctx: ErrorContext) -> Explained | None:
    """The first contract violation of the failing call, as its catalog finding."""
    report = ctx.contract
    if report is None or not report.violations:
        return None
    violation = report.violations[0]
    function = next(  # the user's function (a layer's call) the failing call is made in
        (
            f.function
            for f in ctx.frames
            if (f.filename, f.lineno) == (report.filename, report.lineno)
        ),
        "",
    )
    where = ctx.where(report.filename, report.lineno, "" if function == "<module>" else function)
    evidence = f"`{report.source}` at {where}" if violation.quote_call else f"called at {where}"
    if violation.evidence:
        evidence += f"; {violation.evidence}"
    return (
        _finding(violation.code, violation.problem, report.api, evidence, violation.hint),
        (),
    )


# the library's own message already tells the user what to do ("If you need the learning rate
# to be set, use ...", "Did you mean", "Use `x` instead"); a plain string, so the coverage
# table does not count it as a rule that explains those messages
_SELF_EXPLAINED = (
    r"\bIf you (?:need|want)\b|\bDid you mean\b|\b[Uu]se `[^`]+` instead\b|\bTo fix this\b"
    r"|\bmust be [^\n]{3,80}? but (?:are|is|got)\b"  # "must be scalar tf.int64 tensors but are ..."
)


def internal_error(ctx: ErrorContext) -> Explained | None:
    """A library-internal exception with no broken contract found: the call and its arguments."""
    report = ctx.contract
    if report is None or report.violations or ctx.type_name not in INTERNAL:
        return None
    if not any(f.user for f in ctx.frames) or ctx.frames[-1].user:
        return None  # raised in the user's own code, not inside the library
    if re.search(_SELF_EXPLAINED, ctx.messages[0] if ctx.messages else ""):
        return None  # the library's message states the fix itself: restating it adds nothing
    arguments = "; ".join(report.arguments) or "no arguments"
    where = ctx.where(report.filename, report.lineno)
    return (
        finding(
            "S12",
            f"{ctx.type_name} raised inside `{report.api}`, called at {where}: an argument does "
            "not fit what the API takes, and none of the contracts tfnb_debug checks is broken",
            place=f"`{report.api}`",
            evidence=f"`{report.source}`; the arguments as given: {arguments}",
            hint=f"compare each argument with `help({report.api})`: its type, structure (tuple "
            "vs list, pairs, the number of items), shapes and dtypes",
        ),
        (),
    )


def _finding(code: str, problem: str, api: str, evidence: str, hint: str) -> Finding:
    return coded_finding(code, problem, f"`{api}`", evidence, hint)
