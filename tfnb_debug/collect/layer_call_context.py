"""What the shape collector reads around one layer call, without keeping a tensor.

Helpers of :class:`~tfnb_debug.collect.shapes.ShapeCollector`, none of which
records anything: the tensors among a call's arguments and their shapes, the
layer's activation, the replicas of the strategy the call runs in, whether
Keras is inferring shapes symbolically, who made an input (the Keras history
of a symbolic tensor, the node of the Functional graph being run, data equal
to what was given to the model), the frame of an enclosing ``Sequential.build``,
the path segment of a sublayer below its parent, and whether a layer is the
cell an RNN layer runs once per step.
"""

from __future__ import annotations

import sys
from typing import Any

import keras
import numpy as np
import tensorflow as tf

from tfnb_debug.collect.keras_access import direct_sublayers
from tfnb_debug.records.shapes import Shape


def _flatten(value: Any) -> list[Any]:
    if _is_tensor(value):
        return [value]
    if value is None or isinstance(value, (str, bytes, int, float, bool)):
        return []
    try:
        return list(keras.tree.flatten(value))
    except Exception:
        return []


def _is_tensor(x: Any) -> bool:
    return hasattr(x, "shape") and hasattr(x, "dtype") and not isinstance(x, (str, bytes))


def _shape(t: Any) -> Shape | None:
    try:
        return tuple(None if d is None else int(d) for d in t.shape)
    except (TypeError, ValueError):
        return None


def _activation_name(layer: Any) -> str | None:
    fn = getattr(layer, "activation", None)
    if fn is None or not callable(fn):
        return None
    name = getattr(fn, "__name__", None) or type(fn).__name__
    return str(name).lower()


def _replicas_here() -> int:
    """The replicas of the strategy whose replica context this call runs in (1: none)."""
    if not tf.distribute.has_strategy() or tf.distribute.in_cross_replica_context():
        return 1
    context = tf.distribute.get_replica_context()
    return int(context.num_replicas_in_sync) if context is not None else 1


def _in_symbolic_scope() -> bool:
    from tfnb_debug.collect.keras_access import in_symbolic_scope

    return bool(in_symbolic_scope())


def _history_producer(t: Any) -> str | None:
    """Who made a symbolic tensor: ``input``, a layer's name, or a Keras op (``add (keras op)``)."""
    history = getattr(t, "_keras_history", None)
    op = getattr(history, "operation", None)
    if op is None:
        return None
    if type(op).__name__ == "InputLayer":
        return "input"
    name = str(getattr(op, "name", "") or "")
    if not name:
        return None
    return name if isinstance(op, keras.layers.Layer) else f"{name} (keras op)"


def _caller_running(code: Any, depth: int, limit: int = 12) -> Any:
    """The nearest frame running ``code`` within ``limit`` frames above ``depth``, or None."""
    frame = sys._getframe(depth + 1)
    for _ in range(limit):
        if frame is None:
            return None
        if frame.f_code is code:
            return frame
        frame = frame.f_back  # type: ignore[assignment]
    return None


def _graph_producers(layer: Any) -> dict[int, str]:
    """In a Functional graph being run, ``id(input tensor) -> producer`` for ``layer``'s node."""
    from tfnb_debug.collect.keras_access import Function

    frame = _caller_running(Function._run_through_graph.__code__, depth=2)
    if frame is None:
        return {}
    node = frame.f_locals.get("node")
    values = frame.f_locals.get("tensor_dict")
    if node is None or values is None or getattr(node, "operation", None) is not layer:
        return {}
    out = {}
    for symbolic in node.input_tensors:
        actual = values.get(id(symbolic))
        producer = _history_producer(symbolic)
        if actual is not None and producer is not None:
            out[id(actual)] = producer
    return out


def _same_values(t: Any, data: Any) -> bool:
    """Whether tensor ``t`` holds exactly ``data`` (after Keras converted it to ``t``'s dtype)."""
    if t is data or _shape(t) != _shape(data):
        return t is data
    try:
        a = np.asarray(t)
        b = np.asarray(data)
        if a.dtype != b.dtype:
            b = b.astype(a.dtype)
        return bool(np.array_equal(a, b, equal_nan=a.dtype.kind in "fc"))
    except Exception:
        return False


def _sequential_build_frame() -> Any:
    """The frame of ``Sequential.build`` (which calls every layer to make its graph), if on the stack."""
    from tfnb_debug.collect.keras_access import Sequential

    return _caller_running(Sequential.build.__code__, depth=1)


def child_segment(parent: Any, layer: Any) -> str:
    """The path segment of ``layer`` below ``parent``: its name, ``name#k`` for the k-th namesake."""
    return _segment_of(_children_by_name(parent), layer)


def _children_by_name(parent: Any) -> dict[str, list[Any]]:
    children: dict[str, list[Any]] = {}
    for child in direct_sublayers(parent):
        children.setdefault(str(child.name), []).append(child)
    return children


def _segment_of(children: dict[str, list[Any]], layer: Any) -> str:
    name = str(layer.name)
    for k, child in enumerate(children.get(name, ())):
        if child is layer:
            return name if k == 0 else f"{name}#{k + 1}"
    return name


def _runs_as_cell_of(layer: Any, owner: Any) -> bool:
    """``layer`` is the cell an RNN layer (LSTM, GRU, ``keras.layers.RNN``) runs once per step."""
    cell = getattr(owner, "cell", None)
    if cell is None or not hasattr(owner, "return_sequences"):
        return False
    return layer is cell or any(layer is c for c in getattr(cell, "cells", ()) or ())


def _made_by_a_layer(t: Any) -> bool:
    """A symbolic tensor built by a layer before the trace began (e.g. in an earlier cell).

    Its ``_keras_history`` names that layer, so it must not be labelled as the model's input.
    """
    history = getattr(t, "_keras_history", None)
    operation = getattr(history, "operation", None)
    return operation is not None and type(operation).__name__ != "InputLayer"
