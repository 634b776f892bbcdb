"""A skip connection that cannot join its two branches at the size the data has (S01).

An encoder/decoder built for any image size (``keras.Input((None, None, 3))``) halves the
input at each pooling or strided layer and doubles it back at each upsampling: an input whose
side is not a multiple of 2**k loses a row where a halving floors an odd size, and the
``Concatenate`` (or ``Add``) of a skip connection then meets, say, 124 against 125.  The size
chain is read by running the model's graph symbolically on the data's shape (each layer's
``compute_output_spec``: no value is computed, no weight read), up to the merge that fails.
"""

from __future__ import annotations

import contextlib
import re
from typing import Any

from tfnb_debug.explain._api import UNREAD, LiveCall
from tfnb_debug.explain._violation import Violation, shape_of

_MERGE = r"Concatenate|Add\b|Multiply|Subtract|Average|Maximum|Minimum"
_SIZES = r"matching shapes|[Ii]ncompatible shapes|must be equal|must match"


def merge_sizes(call: LiveCall, exc: BaseException) -> Violation | None:
    """S01: the data's spatial size is not a multiple of the model's total downsampling."""
    message = str(exc)
    if not (re.search(_MERGE, message) and re.search(_SIZES, message)):
        return None
    model, data = call.receiver, call.values.get("x", UNREAD)
    shape = shape_of(data)
    if data is UNREAD or shape is None or len(shape) not in (3, 4, 5):
        return None
    chain = _chain(model, shape)
    if chain is None:
        return None
    records, merge, sides = chain
    size = shape[1] or 0
    halvings = sum(1 for op, before, after in records if before and after and after * 2 <= before)
    factor = 2**halvings
    if halvings == 0 or size % factor == 0 or abs(sides[0] - sides[1]) >= factor:
        return None
    path = " -> ".join(
        f"{after} ({op.name})" for op, before, after in records if before and after != before
    )
    lower, upper = size - size % factor, size - size % factor + factor
    text = call.text("x")
    return Violation(
        "S01",
        text,
        f"`{text}` is {size} on its first spatial axis, and the model halves it {halvings} "
        f"times and doubles it back: {size} -> {path}, so '{merge.name}' joins {sides[0]} with "
        f"{sides[1]}; the input size must be a multiple of {factor}",
        f"pad or resize the input to a multiple of {factor} ({lower} or {upper}), e.g. "
        f"`tf.image.resize_with_crop_or_pad({text}, {upper}, {upper})`, or crop the larger "
        "branch before the merge (keras.layers.Cropping2D)",
        f"{type(merge).__name__} '{merge.name}' gets {sides[0]} and {sides[1]}",
    )


def _chain(
    model: Any, shape: tuple[int | None, ...]
) -> tuple[list[tuple[Any, int | None, int | None]], Any, tuple[int, int]] | None:
    """(each layer with its input and output size on the first spatial axis, in graph order;
    the merge that failed; the two sizes it got), from a symbolic run on ``shape``."""
    import keras

    graph = getattr(model, "_functional", None) or model
    if not hasattr(graph, "_run_through_graph") or len(getattr(graph, "inputs", [])) != 1:
        return None
    records: list[tuple[Any, int | None, int | None]] = []
    failed: list[tuple[Any, tuple[int, int]]] = []

    def wrap(operation: Any) -> Any:
        def run(*args: Any, **kwargs: Any) -> Any:
            first = args[0] if args else None
            if isinstance(first, list | tuple):
                sides = [_side(t) for t in first]
                if len(sides) == 2 and None not in sides and sides[0] != sides[1]:
                    # a merge of two sizes (Concatenate's spec does not check them): stop here
                    failed.append((operation, (int(sides[0] or 0), int(sides[1] or 0))))
                    raise ValueError("sizes differ")
                out = operation.compute_output_spec(*args, **kwargs)
            else:
                out = operation.compute_output_spec(*args, **kwargs)
                records.append((operation, _side(first), _side(out)))
            return out

        return run

    spec = keras.KerasTensor((1, *shape[1:]), dtype=graph.inputs[0].dtype)
    with contextlib.suppress(Exception):  # the merge that fails stops the run: recorded
        graph._run_through_graph(graph._standardize_inputs(spec), operation_fn=wrap)
    if not failed:
        return None
    return records, failed[0][0], failed[0][1]


def _side(tensor: Any) -> int | None:
    shape = shape_of(tensor)
    return shape[1] if shape is not None and len(shape) >= 3 else None
