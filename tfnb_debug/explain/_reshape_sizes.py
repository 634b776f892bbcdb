"""The contract of ``keras.layers.Reshape``: its target holds as many values per example as its
input gives (S01), wherever it ran (a functional graph, a subclass, a direct call).

Keras' message gives both sides ("The total size of the tensor must be unchanged. Received:
input_shape=(128,), target_shape=(7, 7, 3)"); the tensor the layer got shows which layer made
it (its Keras history).  :func:`tfnb_debug.diagnostics.shape_hints.reshape_hint` turns the
two counts into the fix: a target that starts with a batch size, a Dense producer that can
make the target's count, or a target whose sizes multiply to what the input gives.  A
Sequential built from its layer list has its own account (``sequential_build_fails``).
"""

from __future__ import annotations

from typing import Any

from tfnb_debug.diagnostics.shape_hints import reshape_hint
from tfnb_debug.explain._api import UNREAD, LiveCall
from tfnb_debug.explain._traceback_objects import _sequential_build
from tfnb_debug.explain._violation import Violation


def reshape_target(call: LiveCall, exc: BaseException) -> Violation | None:
    """S01: the Reshape's target does not hold the values its input gives per example."""
    text = str(exc)
    if "total size of the tensor must be unchanged" not in text:
        return None
    layer = call.receiver
    if type(layer).__name__ != "Reshape" or _sequential_build(exc) is not None:
        return None  # a Sequential's layer list: the build rule shows the layers built before
    name = str(getattr(layer, "name", "") or "the Reshape")
    producer, producer_class = _producer(call.value("inputs"))
    hint = reshape_hint(text, name, producer, producer_class)
    if not hint:
        return None
    made = f" (made by {producer_class} '{producer}')" if producer != "input" else ""
    return Violation(
        "S01",
        call.text("inputs") or "inputs",
        f"Reshape '{name}' got an input{made} whose values per example do not fill its "
        f"target_shape {tuple(getattr(layer, 'target_shape', ()) or ())}",
        hint,
    )


def _producer(value: Any) -> tuple[str, str]:
    """(name, class) of the layer that made a KerasTensor; ("input", "") for data or an Input."""
    if value is UNREAD:
        return "input", ""
    history = getattr(value, "_keras_history", None)
    operation = getattr(history, "operation", None) if history is not None else None
    if operation is None or type(operation).__name__ == "InputLayer":
        return "input", ""
    return str(getattr(operation, "name", "") or "input"), type(operation).__name__
