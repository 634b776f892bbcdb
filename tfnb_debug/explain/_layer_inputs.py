"""Layer calls whose input lacks an axis, read from where each input came from in the graph.

Three contracts of layers that take sequences: a layer that needs (batch, steps,
features) (``TimeDistributed``, an RNN, ``Conv1D``) got a tensor whose steps axis was
dropped upstream, by an RNN without ``return_sequences=True``, a ``Flatten`` or a
global pooling; ``TimeDistributed`` applies its layer to each step of axis 1, so an
image batch without a frames axis hands the inner layer one axis too few; and
``MultiHeadAttention`` takes ``key`` and ``value`` from one sequence (their axes
but the last must agree).  Each check walks the symbolic inputs' ``_keras_history``
to the layer that made the shape, and names it.
"""

from __future__ import annotations

import re
from typing import Any

from tfnb_debug.explain._api import UNREAD, LiveCall
from tfnb_debug.explain._violation import Violation, fmt, shape_of

_RNN = ("LSTM", "GRU", "SimpleRNN", "RNN", "Bidirectional", "ConvLSTM1D", "ConvLSTM2D")
_DROPPERS = ("Flatten", "GlobalAveragePooling1D", "GlobalMaxPooling1D", "GlobalAveragePooling2D")
_NEEDS_STEPS = re.compile(r"at least 3 dimensions|expected ndim=3|expected min_ndim=3")


def _operation(tensor: Any) -> Any:
    return getattr(getattr(tensor, "_keras_history", None), "operation", None)


def _inputs_of(tensor: Any) -> list[Any]:
    history = getattr(tensor, "_keras_history", None)
    operation: Any = getattr(history, "operation", None)
    try:
        node = operation._inbound_nodes[getattr(history, "node_index", 0)]
        return list(node.input_tensors)
    except Exception:
        return []


def _class(layer: Any) -> str:
    return type(layer).__name__


def _returns_sequences(layer: Any) -> bool:
    inner = getattr(layer, "forward_layer", layer)
    return bool(getattr(inner, "return_sequences", False))


def _dropped_by(tensor: Any, limit: int = 200) -> Any:
    """The layer upstream of ``tensor`` that turned a (batch, steps, ...) tensor into a rank-2
    one: an RNN without return_sequences, a Flatten or a global pooling."""
    seen: set[int] = set()
    frontier = [tensor]
    while frontier and len(seen) < limit:
        current = frontier.pop(0)
        operation = _operation(current)
        if operation is None or id(operation) in seen:
            continue
        seen.add(id(operation))
        inputs = _inputs_of(current)
        ranks = [len(shape_of(t) or ()) for t in inputs]
        if any(r >= 3 for r in ranks) and len(shape_of(current) or ()) == 2:
            if _class(operation) in _RNN and not _returns_sequences(operation):
                return operation
            if _class(operation) in _DROPPERS:
                return operation
        frontier.extend(inputs)
    return None


def steps_axis_dropped(call: LiveCall, exc: BaseException) -> Violation | None:
    """A layer that takes (batch, steps, features) got (batch, features): the layer upstream
    that dropped the steps axis, and the change that keeps it."""
    if call.method != "__call__" or not _NEEDS_STEPS.search(str(exc)):
        return None
    inputs = call.value("inputs")
    shape = shape_of(inputs)
    if inputs is UNREAD or shape is None or len(shape) != 2:
        return None
    dropper = _dropped_by(inputs)
    if dropper is None:
        return None
    kind, name = _class(dropper), getattr(dropper, "name", "?")
    layer = getattr(call.receiver, "name", _class(call.receiver))
    if kind in _RNN:
        fix = f"give {kind} '{name}' return_sequences=True, so it hands on every step"
    else:
        fix = f"drop {kind} '{name}' (it removes the steps axis), or move it after '{layer}'"
    return Violation(
        "S01",
        call.text("inputs"),
        f"{_class(call.receiver)} '{layer}' takes (batch, steps, features), but its input "
        f"{fmt(shape)} has no steps axis: {kind} '{name}' upstream returns one vector per "
        "example",
        fix,
        f"input {fmt(shape)}; the steps axis ends at {kind} '{name}'",
    )


def frames_axis_missing(call: LiveCall, exc: BaseException) -> Violation | None:
    """``TimeDistributed(layer)`` on a tensor with no axis to distribute over: the inner layer
    needs as many axes as the whole input has."""
    wrapper = call.receiver
    inner = getattr(wrapper, "layer", None)
    if call.method != "__call__" or inner is None or _class(wrapper) != "TimeDistributed":
        return None
    inputs = call.value("inputs")
    shape = shape_of(inputs)
    if _dropped_by(inputs) is not None:
        return None  # the steps axis was there and a layer upstream dropped it
    spec = getattr(inner, "input_spec", None)
    spec = spec[0] if isinstance(spec, list | tuple) and spec else spec
    needed = getattr(spec, "min_ndim", None) or getattr(spec, "ndim", None)
    if shape is None or not isinstance(needed, int) or len(shape) > needed:
        return None
    kind = _class(inner)
    example = ", ".join("None" if d is None else str(d) for d in shape[1:])
    return Violation(
        "S01",
        call.text("inputs"),
        f"TimeDistributed applies {kind} to each step of axis 1, so it needs one axis more than "
        f"{kind} takes ({needed + 1}), but its input {fmt(shape)} has {len(shape)}: there is no "
        "frames (time) axis, and the inner layer is handed one axis too few",
        f"give the input a frames axis: (batch, frames, {example}), e.g. "
        f"`keras.Input((frames, {example}))` with data shaped so; for single images drop "
        f"TimeDistributed and use {kind} directly",
        f"input {fmt(shape)}; {kind} takes {needed} axes",
    )


def key_value_sources(call: LiveCall, exc: BaseException) -> Violation | None:
    """``MultiHeadAttention`` given a key and a value from different sequences."""
    if call.method != "__call__" or _class(call.receiver) != "MultiHeadAttention":
        return None
    key, value = call.value("key"), call.value("value")
    k, v = shape_of(key), shape_of(value)
    if key is UNREAD or value is UNREAD or k is None or v is None or k[:-1] == v[:-1]:
        return None

    def made(tensor: Any) -> str:
        operation = _operation(tensor)
        return f" from '{operation.name}'" if operation is not None else ""

    value_text = call.text("value")
    return Violation(
        "S01",
        call.text("key"),
        f"MultiHeadAttention's key {fmt(k)}{made(key)} and value {fmt(v)}{made(value)} come "
        "from different sequences: each key scores the value at its own position, so key and "
        "value must have the same steps",
        f"take the key from the value's sequence: `key={value_text}` (or leave key out: it "
        "defaults to the value); the query is the one that may differ",
        f"key {fmt(k)}, value {fmt(v)}",
    )
