"""The structure of the data given to a model with several inputs, read against its Inputs.

A functional model with N ``Input``s takes a list (or tuple) of N arrays in the order of
``model.inputs``, or a dict keyed by the Inputs' names.  Two readings of the data the call was
given name the cause where Keras only says that one input has the wrong shape or that the
model received fewer inputs:

- :func:`input_order`: the arrays fit the Inputs, but in another order (each array's
  per-example shape is that of another Input);
- :func:`flat_element`: a ``tf.data`` element is a flat tuple, ``(x1, x2, y)``, which Keras
  reads as ``(x, y, sample_weight)``: the first array becomes the only input, the second the
  labels.  The inputs must be nested, ``((x1, x2), y)``.
"""

from __future__ import annotations

from itertools import permutations

from tfnb_debug.explain._call import Arg
from tfnb_debug.explain._context import ErrorContext, fmt_shape, same_shape
from tfnb_debug.explain._data_origin import DataOrigin

_CALLS = ("fit", "evaluate", "predict", "train_on_batch", "test_on_batch", "predict_on_batch")


def _fits(shape: tuple[int | None, ...] | None, declared: tuple[int | None, ...] | None) -> bool:
    """An array (or batch) of shape ``shape`` fits an Input of full shape ``declared``."""
    return (
        shape is not None
        and declared is not None
        and len(shape) == len(declared)
        and same_shape(shape[1:], declared[1:])
    )


def input_order(ctx: ErrorContext) -> DataOrigin | None:
    """S12: the arrays given for the model's inputs fit them only in another order."""
    call = ctx.evidence.call
    if call is None:
        return None
    given = call.arg(0, "x") if call.method in _CALLS else call.arg(0, "inputs")
    inputs = ctx.model_inputs
    if given is None or given.kind not in ("list", "tuple") or len(inputs) < 2:
        return None
    items = given.items
    if len(items) != len(inputs) or len(items) > 6:
        return None
    if all(_fits(item.shape, shape) for item, shape in zip(items, inputs, strict=True)):
        return None  # in order: another cause
    orders = [
        order
        for order in permutations(range(len(items)))
        if all(_fits(items[j].shape, inputs[i]) for i, j in enumerate(order))
    ]
    if len(orders) != 1:
        return None  # none fits, or several do: the shapes cannot tell the order
    ordered = [items[j] for j in orders[0]]
    pairs = "; ".join(
        f"input {i} {fmt_shape(shape)} fits `{item.text}`"
        for i, (shape, item) in enumerate(zip(inputs, ordered, strict=True))
        if shape is not None
    )
    return DataOrigin(
        f"the arrays fit the model's inputs in another order than given: {pairs}",
        f"pass them in the order of model.inputs: [{', '.join(i.text for i in ordered)}] "
        "(or a dict keyed by the Inputs' names, which needs no order)",
        "S12",
    )


def flat_element(ctx: ErrorContext, given: Arg | None, expected: int) -> DataOrigin | None:
    """S12: a dataset's flat tuple element (x1, x2, y) given to a model with several inputs."""
    if given is None or given.kind != "dataset" or expected < 2:
        return None
    inputs = ctx.model_inputs
    for ds in ctx.datasets:
        shapes = ds.shapes
        if len(inputs) != expected or len(shapes) not in (2, 3) or len(shapes) < expected:
            continue  # Keras reads a flat element of 2 or 3 parts as (x, y[, sample_weight])
        if not all(_fits(s, i) for s, i in zip(shapes, inputs, strict=False)):
            continue
        what = f"`{ds.name}`" if ds.name else "the dataset"
        parts = ", ".join(f"x{i + 1}" for i in range(expected))
        flat = ", ".join(fmt_shape(s) if s is not None else "?" for s in shapes)
        return DataOrigin(
            f"{what} yields flat tuples of {len(shapes)} ({flat}); Keras reads an element as "
            "(x, y) or (x, y, sample_weight), so the model got only the first part as its "
            "input and read the next as labels (and sample weights)",
            f"nest the {expected} inputs in one tuple: build {what} from (({parts}), y), "
            f"e.g. `tf.data.Dataset.from_tensor_slices((({parts}), y))` (or a dict of inputs "
            "keyed by the Inputs' names)",
            "S12",
        )
    return None
