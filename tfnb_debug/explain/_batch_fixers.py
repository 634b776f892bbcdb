"""The layer of a model that fixes the batch axis, read from the model's symbolic graph.

A model built on ``keras.Input`` keeps its batch axis open (``None``) through every layer,
unless a layer's own code writes a batch size into a shape: a ``Lambda`` that reshapes to
``(32, 4, 4)``, a sampling layer that draws noise of shape ``(BATCH, 2)``, a ``tf.zeros``
of a constant size.  Keras records that as the layer's output shape (``(32, 4, 4)``), and
the run fails later, at the first batch of another size (the last, smaller one), in an op
far from the layer (the loss's ``BroadcastGradientArgs``: ``[4,1] vs [32,1]``).
:func:`batch_fixing_layer` finds the first layer whose inputs have an open batch axis and
whose output has a fixed one.
"""

from __future__ import annotations

import linecache
import re
from typing import Any, NamedTuple

from tfnb_debug.explain._violation import is_a


class BatchFixer(NamedTuple):
    """A layer whose output fixes the batch axis its inputs left open."""

    name: str
    class_name: str
    shape: tuple[int | None, ...]


def batch_fixing_layer(exc: BaseException) -> BatchFixer | None:
    """The first layer (in the model's order) that turns an open batch axis into a number."""
    model = _outer_model(exc)
    if model is None:
        return None
    for layer in getattr(model, "layers", [])[:500]:
        outputs = _tensors(layer, "output")
        inputs = _tensors(layer, "input")
        if not outputs or not inputs:
            continue
        if any(_batch(t) is not None for t in inputs):
            continue  # its input was already fixed (an earlier layer, or Input(batch_size=))
        for tensor in outputs:
            if isinstance(_batch(tensor), int):
                shape = tuple(getattr(tensor, "shape", ()) or ())
                return BatchFixer(str(layer.name), type(layer).__name__, shape)
    return None


def _outer_model(exc: BaseException) -> Any:
    """The outermost Keras model the traceback passes through: a method's ``self``, or the
    receiver of ``fit``/``evaluate``/``predict``/``train_on_batch`` on a line of the
    traceback (Keras filters its own frames out of the traceback it re-raises)."""
    tb = exc.__traceback__
    while tb is not None:
        frame = tb.tb_frame
        owner = frame.f_locals.get("self")
        if is_keras_model(owner):
            return owner
        line = linecache.getline(frame.f_code.co_filename, tb.tb_lineno)
        for name in [m.group(1) for m in re.finditer(_RUNS, line)]:
            value = frame.f_locals.get(name, frame.f_globals.get(name))
            if is_keras_model(value):
                return value
        tb = tb.tb_next
    return None


# a plain string, not a compiled pattern: it reads code lines, not error messages (the
# coverage table counts compiled patterns as message rules)
_RUNS = r"\b([A-Za-z_]\w*)\.(?:fit|evaluate|predict|train_on_batch|test_on_batch)\("


def _tensors(layer: Any, which: str) -> list[Any]:
    """The layer's symbolic input or output tensors; [] when it has none (never called, or
    called more than once: Keras then has no single one)."""
    try:
        value = getattr(layer, which)
    except (AttributeError, ValueError, RuntimeError):
        return []
    return list(value) if isinstance(value, list | tuple) else [value]


def _batch(tensor: Any) -> Any:
    shape = getattr(tensor, "shape", None)
    try:
        return shape[0] if shape is not None and len(shape) else "scalar"
    except TypeError:
        return "scalar"  # unknown rank


def is_keras_model(value: Any) -> bool:
    """A Keras model: a ``Model`` subclass with its layer list."""
    return is_a(value, "Model") and hasattr(value, "layers")
