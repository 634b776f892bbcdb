"""M04 from where the labels' class count came from: a sparse loss's out-of-range label when
the call's labels show a class count, and one-hot labels one column short because they were
encoded with ``drop_first=True`` (:func:`dropped_class`).

A sparse cross-entropy rejects a label id at or past the number of output units (P12).  When
every label of the failing call is read and the ids run from 0 to past the output, the
labels are fine and the output was sized for fewer classes than they hold: the usual cause is
a class count taken as the largest id (``num_classes = y.max()``).  That is M04, and the fix
is the output size, ``y.max() + 1``.  Ids that start at 1 (a 1-based encoding) are not this:
P12's own hint covers them.
"""

from __future__ import annotations

import re

from tfnb_debug.explain._assignments import assigned_before
from tfnb_debug.explain._context import ErrorContext, fmt_shape
from tfnb_debug.explain.report import NextStep
from tfnb_debug.ground.reports import Finding, finding


def class_count(
    ctx: ErrorContext, value: int, classes: int, place: str
) -> tuple[Finding, tuple[NextStep, ...]] | None:
    """M04 when the call's labels are class ids 0..k with k >= the output's units."""
    labels = ctx.labels
    if labels is None or not labels.whole or labels.low != 0 or labels.high is None:
        return None
    high = int(labels.high)
    if high < classes or value > high:
        return None  # the rejected id is not one of these labels (another pass, another array)
    count = high + 1
    return (
        finding(
            "M04",
            f"the labels hold {count} classes (ids 0..{high}) but the output layer has "
            f"{classes} units",
            place=place,
            evidence=f"`{labels.name}` runs from 0 to {high}; the loss rejected label {value} "
            f"against [0, {classes})",
            hint=f"give the last layer {count} units, one per class: the number of classes is "
            f"`{labels.name}.max() + 1` ({count}), not the largest id ({high})",
        ),
        (),
    )


_DROP_FIRST = re.compile(r",\s*drop_first\s*=\s*True")


def dropped_class(
    ctx: ErrorContext,
    labels: tuple[int | None, ...],
    output: tuple[int | None, ...],
    place: str,
    evidence: str,
) -> tuple[Finding, tuple[NextStep, ...]] | None:
    """M04 when one-hot labels have one column fewer than the output's units and the labels
    were made with ``drop_first=True`` (``pd.get_dummies``): the encoder dropped a class."""
    call, info = ctx.evidence.call, ctx.labels
    units = output[-1] if output else None
    if call is None or info is None or not info.name.isidentifier() or units is None:
        return None
    if len(labels) != len(output) or labels[-1] is None or labels[-1] + 1 != units:
        return None
    made = assigned_before(info.name, call.filename, call.lineno)
    if not _DROP_FIRST.search(made):
        return None
    return (
        finding(
            "M04",
            f"the output layer has {units} units but the one-hot labels {fmt_shape(labels)} have "
            f"{labels[-1]} columns: `drop_first=True` dropped the first class's column",
            place=place,
            evidence=f"{evidence}; `{info.name} = {made}`",
            hint="drop_first=True is for input features (it removes a redundant column); "
            "labels need one column per class: encode them without it, "
            f"`{info.name} = {_DROP_FIRST.sub('', made)}`",
        ),
        (),
    )
