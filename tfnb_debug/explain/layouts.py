"""Images stored channels first reaching image layers that read channels last (S01).

Arrays saved from PyTorch loaders (and many medical or satellite formats) hold images as
``(N, C, H, W)``; Keras' image layers read ``(N, H, W, C)`` by default.  A model built on
such an array (``keras.Input(shape=x.shape[1:])``, or ``fit(x, ...)`` on an Input of that
shape) sees C rows of W channels, and the first pooling or convolution that shrinks the
C-sized axis fails.  The evidence is the array's shape (a small axis 1 of 1, 3 or 4 channels
before two large spatial axes) and the cell, which sets no ``data_format``; the fix is the
transpose on the array, which the Input copies when it was made from the array's shape.
"""

from __future__ import annotations

import re

from tfnb_debug.explain._applications import read_backbone
from tfnb_debug.explain._context import ErrorContext, fmt_shape
from tfnb_debug.explain._input_data import read_input_data
from tfnb_debug.explain._operands import cell_text
from tfnb_debug.explain.report import NextStep
from tfnb_debug.ground.reports import Finding, finding

Explained = tuple[Finding, tuple[NextStep, ...]]

_SHRUNK = r"zero or negative|Negative dimension|incompatible with the layer|expected axis -1"


def channels_first_data(ctx: ErrorContext) -> Explained | None:
    """S01: the data is (N, C, H, W) with C in 1, 3, 4, and the model reads channels last."""
    if not re.search(_SHRUNK, ctx.text):
        return None
    source = cell_text(ctx.user_frames())
    if "channels_first" in source or not re.search(r"Conv[23]D|Pooling[23]D", source):
        return None
    candidates = [(d.name, d.expression, d.shape) for d in ctx.read(read_input_data) or ()]
    call = ctx.evidence.call
    x = call.arg(0, "x") if call is not None else None
    if x is not None and x.shape and all(isinstance(d, int) for d in x.shape):
        candidates.append((x.text, "", tuple(int(d) for d in x.shape if d is not None)))
    for name, expression, shape in candidates:
        if len(shape) not in (4, 5) or shape[1] not in (1, 3, 4):
            continue
        spatial = shape[2:]
        if min(spatial) < 8 or shape[-1] <= 4:
            continue
        order = (0, *range(2, len(shape)), 1)
        last = (shape[0], *shape[2:], shape[1])
        copied = (
            f" (then `keras.Input(shape={expression})` reads {fmt_shape(last[1:])})"
            if expression
            else f"; the model's Input then takes {fmt_shape(last[1:])}"
        )
        return (
            finding(
                "S01",
                f"`{name}` {fmt_shape(shape)} holds images channels first ({shape[1]} channels "
                f"on axis 1), and Keras' image layers read channels last: they see "
                f"{shape[1]} rows of {shape[-1]} channels",
                place=f"`{name}`",
                evidence=f"`{name}` {fmt_shape(shape)}; no data_format='channels_first' in "
                "the cell",
                hint=f"move the channels last before the model is built: `{name} = "
                f"np.transpose({name}, {order})`{copied}; or give each image layer "
                "data_format='channels_first'",
            ),
            (),
        )
    return None


def backbone_too_small(ctx: ErrorContext) -> Explained | None:
    """S01: images smaller than the keras.applications backbone's documented minimum shrink
    to nothing inside it."""
    if not re.search(r"zero or negative|Negative dimension", ctx.text):
        return None
    backbone = ctx.read(read_backbone)
    if backbone is None:
        return None
    given = backbone.given
    sides = [d for d in (given or ())[1:3] if d is not None]
    if len(sides) != 2 or min(sides) >= backbone.minimum:
        return None
    m = backbone.minimum
    return (
        finding(
            "S01",
            f"`{backbone.variable}` holds keras.applications.{backbone.kind} "
            f"('{backbone.name}'), which takes images of at least {m}x{m}, and gets "
            f"{sides[0]}x{sides[1]}: its strided layers shrink them to nothing",
            place=f"model '{backbone.name}'",
            evidence=f"input {fmt_shape(given or ())}; {backbone.kind}'s documented minimum "
            f"{m}x{m}",
            hint=f"resize the images to at least {m}x{m} before it (`keras.layers.Resizing("
            f"{m}, {m})` after the Input, or larger input images), or use a backbone that "
            f"takes {sides[0]}x{sides[1]} (ResNet50 and MobileNetV2 take 32x32)",
        ),
        (),
    )
