"""M04 from a sparse loss's out-of-range label, when the call's labels show a class count.

A sparse cross-entropy rejects a label id at or past the number of output units (P12).  When
every label of the failing call is read and the ids run from 0 to past the output, the
labels are fine and the output was sized for fewer classes than they hold: the usual cause is
a class count taken as the largest id (``num_classes = y.max()``).  That is M04, and the fix
is the output size, ``y.max() + 1``.  Ids that start at 1 (a 1-based encoding) are not this:
P12's own hint covers them.
"""

from __future__ import annotations

from tfnb_debug.explain._context import ErrorContext
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
