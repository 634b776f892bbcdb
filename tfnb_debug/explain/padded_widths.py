"""Padded data whose length is not the one the model was built for (S01).

``pad_sequences`` without ``maxlen`` pads to the longest sequence of the data it is given:
the training and test arrays come out of different lengths, and a model built on one (a
``Flatten`` before a ``Dense``) fails on the other.  The builders' calls as written
(:mod:`._data_makers`) and the widths of Keras' check give both lengths.


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
from tfnb_debug.explain._data_makers import DataMaker, read_data_makers
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


_WIDTH = re.compile(
    r"expected axis -1 of input shape to have value (\d+), but received input with shape "
    r"\(([^)]*)\)"
)
_INPUT = re.compile(r"expected shape=\(None, (\d+)\), found shape=\(\w+, (\d+)\)")


def padded_arrays_differ(ctx: ErrorContext) -> Explained | None:
    """S01: the array the failing line gives the model was padded by ``pad_sequences`` to
    another length than the model was built for (one of them without ``maxlen``, which pads to
    the longest sequence of that call's data)."""
    makers = [
        m
        for m in ctx.read(read_data_makers) or ()
        if m.api == "pad_sequences" and m.shape and len(m.shape) == 2
    ]
    given = [m for m in makers if m.used]
    shape = given[0].shape if len(given) == 1 else None
    if shape is None or not shape[1]:
        return None
    now, length = given[0], int(shape[1])
    built = _built_length(ctx.text, length)
    if built is None or built == length:
        return None
    trained = next((m for m in makers if not m.used and m.shape and m.shape[1] == built), None)
    padded = [m for m in (now, trained) if m is not None]
    user = ctx.user_code_line()
    return (
        finding(
            "S01",
            f"`{now.name}` is padded to {length} steps and the model was built for {built}"
            + (f", the length of `{trained.name}`" if trained else "")
            + ": pad_sequences pads to `maxlen`, and without it to the longest sequence of the "
            "data it is given",
            place=ctx.where(user[0], user[1], user[2]) if user else f"`{now.name}`",
            evidence="; ".join(_padded(m) for m in padded),
            hint=f"pad every array to one length: `maxlen={built}` for `{now.name}` (longer "
            "sequences are cut)"
            + (
                f", or the same maxlen for `{trained.name}` too and fit again"
                if trained is not None
                else ""
            ),
        ),
        (),
    )


def _built_length(text: str, length: int) -> int | None:
    """The sequence length the model was built for, from Keras' width check after a Flatten
    (features = steps x per-step width) or from its Input check."""
    width = _WIDTH.search(text)
    if width is not None:
        expected = int(width.group(1))
        received = width.group(2).replace(" ", "").rstrip(",").split(",")[-1]
        if not received.isdigit() or int(received) % length:
            return None
        per = int(received) // length
        return expected // per if per and expected % per == 0 else None
    shapes = _INPUT.search(text)
    if shapes is not None and int(shapes.group(2)) == length:
        return int(shapes.group(1))
    return None


def _padded(maker: DataMaker) -> str:
    maxlen = maker.keyword("maxlen")
    why = f"maxlen={maxlen}" if maxlen else "no maxlen: the longest sequence of its data"
    return f"`{maker.name} = {maker.call}` pads to {maker.shape[1] if maker.shape else '?'} ({why})"


def _shape(shape: tuple[int | None, ...]) -> str:
    return "[" + ", ".join("None" if d is None else str(d) for d in shape) + "]"
