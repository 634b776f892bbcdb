"""What a model's first weighted layer actually receives: for N04 (unnormalized input).

A model may scale its own input before any layer with weights: a
``Rescaling`` layer, or plain arithmetic on the input tensor (a
``keras.applications.*.preprocess_input`` called inside a Functional model
becomes ``TrueDivide``/``Subtract`` operations in its graph).  Rather than
guess from layer classes, :func:`entry_range` runs the model's own operations
up to its first weighted layer on a sample batch (a sub-model from
``model.inputs`` to that layer's input; nested models are opened the same way)
and returns the range of the values that layer receives.

Sequential and Functional models with one input are measured; a subclassed
model (whose ``call`` is Python code) gives ``None``.  Nothing is trained:
every call runs with ``training=False``.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

__all__ = ["EntryRange", "entry_range"]


@dataclass(frozen=True)
class EntryRange:
    """The values entering ``layer`` (the first layer with weights, by its path)."""

    layer: str
    kind: str
    minimum: float
    maximum: float
    before: tuple[str, ...]  # the weight-free operations the input passed through, in order


def entry_range(model: Any, x: Any) -> EntryRange | None:
    """Run ``model`` up to its first weighted layer on ``x``; ``None`` when that cannot be done."""
    import keras

    leaves = keras.tree.flatten(x)
    if len(leaves) != 1:
        return None
    try:
        found = _entry(model, leaves[0], prefix="")
    except Exception:  # an unusual graph: N04 falls back to reading the layer classes
        return None
    if found is None:
        return None
    layer, path, values, before = found
    try:
        flat = np.asarray(values, dtype=np.float64).reshape(-1)
    except (TypeError, ValueError):  # not numbers (strings into a lookup layer)
        return None
    flat = flat[np.isfinite(flat)]
    if not flat.size:
        return None
    return EntryRange(
        path, type(layer).__name__, float(flat.min()), float(flat.max()), tuple(before)
    )


def _entry(model: Any, x: Any, *, prefix: str) -> tuple[Any, str, Any, list[str]] | None:
    import keras

    if isinstance(model, keras.Sequential):
        return _sequential_entry(model, x, prefix=prefix)
    from tfnb_debug.collect.keras_access import private

    if not isinstance(model, private("Function")):
        return None  # a subclassed model: its call is Python code
    inputs, operations = model.inputs, list(model.operations)
    if len(inputs) != 1:
        return None
    first = next((op for op in operations if _weighted(op)), None)
    if first is None:
        return None
    before = [
        op.name for op in operations[: operations.index(first)] if type(op).__name__ != "InputLayer"
    ]
    values = _values_entering(model, first, x)
    if values is None:
        return None
    path = f"{prefix}{first.name}"
    if isinstance(first, keras.Model):
        inner = _entry(first, values, prefix=f"{path}/")
        if inner is None:
            return None
        layer, inner_path, inner_values, inner_before = inner
        return layer, inner_path, inner_values, before + inner_before
    return first, path, values, before


def _sequential_entry(model: Any, x: Any, *, prefix: str) -> tuple[Any, str, Any, list[str]] | None:
    import keras

    before: list[str] = []
    values = x
    for layer in model.layers:
        path = f"{prefix}{layer.name}"
        if _weighted(layer):
            if isinstance(layer, keras.Model):
                inner = _entry(layer, values, prefix=f"{path}/")
                if inner is None:
                    return None
                return inner[0], inner[1], inner[2], before + inner[3]
            return layer, path, values, before
        values = layer(values, training=False)
        before.append(layer.name)
    return None


def _weighted(op: Any) -> bool:
    return bool(getattr(op, "weights", None))


def _values_entering(model: Any, op: Any, x: Any) -> Any:
    """The values ``op`` receives inside ``model`` when ``model`` is called on ``x``."""
    import keras

    for node in getattr(op, "_inbound_nodes", []):
        tensors = list(getattr(node, "input_tensors", []))
        if len(tensors) != 1:
            continue
        if tensors[0] is model.inputs[0]:
            return x
        try:
            sub = keras.Model(model.inputs[0], tensors[0])
        except Exception:  # a node of another model that shares this layer
            continue
        return sub(x, training=False)
    return None
