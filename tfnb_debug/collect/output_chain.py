"""The last layers before each model output, as plain facts: which activations squash it, twice.

:func:`double_activations` walks back from each output of a Sequential or
functional model through Keras' graph (the node that made each tensor, so a
layer shared by several calls is followed along the right call), through
layers that only move values (Reshape, Flatten, Dropout, ...) and into nested
models (the inner model's own output).  When the output comes from a
weightless squashing layer (``Activation("sigmoid")``, ``Softmax``, ...) and
the values that layer receives were already squashed by the layer before it,
with no weighted layer in between, that is one :class:`DoubleActivation`.  A
subclassed model has no graph to read and yields nothing.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

__all__ = ["SQUASHING", "DoubleActivation", "double_activations", "squashing_activation"]

# activations that confine their output to a bounded band (what M08 means by "squashing")
SQUASHING = ("sigmoid", "softmax", "hard_sigmoid")
# layers that only move values around: their output keeps the activation of their input
_PASS_THROUGH = {"Reshape", "Flatten", "Dropout", "Permute", "Identity", "SpatialDropout1D"}
_MAX_DEPTH = 50


@dataclass(frozen=True)
class DoubleActivation:
    """Output ``output`` is squashed by ``outer`` after ``inner`` already squashed it.

    Paths name nested models as ``outer_model/inner_layer``; ``units`` is the
    size of the last axis (None when unknown).
    """

    output: int
    outer_path: str
    outer_class: str
    outer_activation: str
    inner_path: str
    inner_class: str
    inner_activation: str
    units: int | None


@dataclass(frozen=True)
class _Source:
    layer: Any
    path: str


def squashing_activation(layer: Any) -> str | None:
    """The squashing activation ``layer`` applies to its output (None for anything else)."""
    if type(layer).__name__ == "Softmax":
        return "softmax"
    activation = getattr(layer, "activation", None)
    if activation is None or isinstance(activation, str | bool | int | float):
        return None
    name = str(getattr(activation, "__name__", "") or type(activation).__name__).lower()
    return name if name in SQUASHING else None


def double_activations(model: Any) -> tuple[DoubleActivation, ...]:
    """Every model output squashed twice in a row (empty for subclassed models)."""
    try:
        outputs = list(model.outputs)
    except Exception:
        return ()
    found = []
    for index, tensor in enumerate(outputs):
        outer = _source(tensor, "", 0)
        if outer is None or _has_weights(outer.layer):
            continue
        outer_act = squashing_activation(outer.layer)
        if outer_act is None:
            continue
        inputs = _node_inputs(tensor, outer)
        if inputs is None or len(inputs) != 1:
            continue
        prefix = outer.path.rpartition("/")[0]
        inner = _source(inputs[0], prefix + "/" if prefix else "", 0)
        inner_act = squashing_activation(inner.layer) if inner is not None else None
        if inner is None or inner_act is None:
            continue
        units = tensor.shape[-1] if len(tensor.shape) else None
        found.append(
            DoubleActivation(
                output=index,
                outer_path=outer.path,
                outer_class=type(outer.layer).__name__,
                outer_activation=outer_act,
                inner_path=inner.path,
                inner_class=type(inner.layer).__name__,
                inner_activation=inner_act,
                units=int(units) if units is not None else None,
            )
        )
    return tuple(found)


def _history(tensor: Any) -> tuple[Any, int, int] | None:
    history = getattr(tensor, "_keras_history", None)
    if history is None:
        return None
    return history.operation, int(history.node_index), int(history.tensor_index)


def _source(tensor: Any, prefix: str, depth: int) -> _Source | None:
    """The layer that computed ``tensor``'s values: pass-through layers and nested models opened."""
    found = _history(tensor)
    if found is None or depth > _MAX_DEPTH:
        return None
    layer, node_index, tensor_index = found
    path = f"{prefix}{layer.name}"
    kind = type(layer).__name__
    if kind == "InputLayer":
        return None
    if kind in _PASS_THROUGH:
        inputs = _inputs_of(layer, node_index)
        if inputs is None or len(inputs) != 1:
            return None
        return _source(inputs[0], prefix, depth + 1)
    if _is_model(layer):
        try:
            inner = list(layer.outputs)[tensor_index]
        except Exception:
            return None
        return _source(inner, path + "/", depth + 1)
    return _Source(layer, path)


def _node_inputs(tensor: Any, source: _Source) -> list[Any] | None:
    """The input tensors of the call of ``source.layer`` that made ``tensor`` (through nesting)."""
    found = _history(tensor)
    if found is None:
        return None
    layer, node_index, tensor_index = found
    if layer is source.layer:
        return _inputs_of(layer, node_index)
    kind = type(layer).__name__
    if kind in _PASS_THROUGH:
        inputs = _inputs_of(layer, node_index)
        return _node_inputs(inputs[0], source) if inputs and len(inputs) == 1 else None
    if _is_model(layer):
        try:
            return _node_inputs(list(layer.outputs)[tensor_index], source)
        except Exception:
            return None
    return None


def _inputs_of(layer: Any, node_index: int) -> list[Any] | None:
    try:
        return list(layer._inbound_nodes[node_index].input_tensors)
    except Exception:
        return None


def _is_model(layer: Any) -> bool:
    return hasattr(layer, "outputs") and hasattr(layer, "layers")


def _has_weights(layer: Any) -> bool:
    return bool(getattr(layer, "weights", None))
