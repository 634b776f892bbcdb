"""P12 for a fit whose targets lie outside its loss's range, behind a failed check of the
loss (read by :mod:`tfnb_debug.explain._loss_targets`)."""

from __future__ import annotations

from tfnb_debug.explain._context import ErrorContext
from tfnb_debug.ground.reports import Finding, finding


def targets_outside_loss(ctx: ErrorContext) -> tuple[Finding, tuple[()]] | None:
    """P12: the labels of the cell's fit fall outside binary cross-entropy's [0, 1]."""
    found = ctx.target_range
    if found is None:
        return None
    model, loss, labels, low, high = found
    scale = (
        f"`{labels} / 255` (0/255 masks or pixels)"
        if high == 255 and low >= 0
        else f"`({labels} > 0).astype('float32')` for a yes/no target, or rescale to [0, 1]"
    )
    return (
        finding(
            "P12",
            f"the labels `{labels}` of `{model}.fit` run {low:g}..{high:g}, and {loss} takes "
            "targets in [0, 1]: outside it the loss has no lower bound, so it goes negative "
            "while the model fits the wrong targets",
            place=f"`{model}.fit`",
            evidence=f"`{labels}` min {low:g}, max {high:g}; loss {loss}",
            hint=f"give it targets in [0, 1]: {scale}",
        ),
        (),
    )
