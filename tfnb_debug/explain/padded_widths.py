"""``padded_batch`` without ``padded_shapes`` feeding a model with a fixed width (S01).

``Dataset.padded_batch(n)`` pads each batch to the longest element *of that batch*: one
batch is 5 wide, the next 6.  A model whose ``Input`` fixes that axis (``Input((6,))``,
a ``Dense`` on it) then meets whichever width a batch happens to have, and the error is a
matrix product or a shape check deep in the model.  The pipeline's stages (read from the
dataset given to ``fit``) show the ``padded_batch`` and its padded shapes (``None``: the
longest); the model's ``Input`` shows the width it takes.  The fix is the width itself:
``padded_shapes`` per component, the fixed axis set to the model's size.
"""

from __future__ import annotations

import re

from tfnb_debug.explain._context import ErrorContext
from tfnb_debug.explain.report import NextStep
from tfnb_debug.ground.reports import Finding, finding

Explained = tuple[Finding, tuple[NextStep, ...]]


def padded_to_longest(ctx: ErrorContext) -> Explained | None:
    """S01: the batches' padded width varies while the model's input width is fixed."""
    if not re.search(r"[Ii]ncompatible|do not multiply|[Mm]atrix size|expected shape", ctx.text):
        return None
    if len(ctx.model_inputs) != 1 or not ctx.model_inputs[0]:
        return None
    expected = ctx.model_inputs[0]
    for ds in ctx.datasets:
        stage = next((s for s in ds.stages if s.kind == "padded_batch"), None)
        if stage is None or not stage.padded:
            continue
        padded = stage.padded[0]
        axes = [
            i
            for i, size in enumerate(padded, start=1)
            if size is None and i < len(expected) and expected[i] is not None
        ]
        if not axes:
            continue
        widths = [expected[i] for i in axes]
        shapes = [
            "["
            + ", ".join(
                str(expected[i] if i in axes else (d or -1)) for i, d in enumerate(padded, start=1)
            )
            + "]"
        ] + [
            "[" + ", ".join(str(d if d is not None else -1) for d in other) + "]"
            for other in stage.padded[1:]
        ]
        name = ds.name or "the dataset"
        fixed = ", ".join(str(w) for w in widths)
        batch = f"{stage.batch_size}, " if stage.batch_size else ""
        return (
            finding(
                "S01",
                f"{name} is built with padded_batch and no padded_shapes, so each batch is padded "
                f"to its own longest element, while the model's Input takes a fixed {fixed} on "
                f"axis {', '.join(str(a) for a in axes)}",
                place=f"dataset `{ds.name}`" if ds.name else "the dataset given to the call",
                evidence=f"padded_batch pads x to {_shape(padded)} (None: the batch's longest); "
                f"the model's Input is {_shape(expected)}",
                hint=f"pad every batch to the model's width: `padded_batch({batch}padded_shapes=("
                f"{', '.join(shapes)}))` (longer elements must be cut first, e.g. `x[:{widths[0]}]` "
                "in a map), or give the model an Input of None width that it can take "
                "(a sequence layer or pooling before any Dense)",
            ),
            (),
        )
    return None


def _shape(shape: tuple[int | None, ...]) -> str:
    return "[" + ", ".join("None" if d is None else str(d) for d in shape) + "]"
