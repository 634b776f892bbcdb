"""Which BatchNormalization layers update their statistics when the model trains (P10).

In Keras 3 a BatchNormalization layer learns its moving mean and variance only
when it runs in training mode.  It does not when

* it is frozen (``layer.trainable`` is False, also through a frozen parent
  model: ``base_model.trainable = False`` freezes every layer inside, and a
  frozen BatchNormalization runs in inference mode), or
* it is called with ``training=False`` in the model's graph, directly or
  through a nested model called that way (``x = base_model(x, training=False)``,
  the transfer-learning pattern).

The graph calls are read from Sequential and Functional models; a subclassed
model's ``call`` is Python code, so only ``trainable`` is read there.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

__all__ = ["BatchNormModes", "batchnorm_modes"]


@dataclass(frozen=True)
class BatchNormModes:
    """BatchNormalization layers (by path) that train, and those that cannot, with the reason."""

    training: tuple[str, ...]
    inference: tuple[tuple[str, str], ...]  # (path, why)


def batchnorm_modes(model: Any) -> BatchNormModes:
    training: list[str] = []
    inference: list[tuple[str, str]] = []
    _walk(model, "", None, training, inference)
    return BatchNormModes(tuple(training), tuple(inference))


def _walk(
    layer: Any,
    path: str,
    called_off: str | None,
    training: list[str],
    inference: list[tuple[str, str]],
) -> None:
    if type(layer).__name__ == "BatchNormalization":
        if not layer.trainable:
            inference.append((path, "frozen (trainable=False)"))
        elif called_off is not None:
            inference.append((path, called_off))
        else:
            training.append(path)
        return
    for child, off in _children(layer):
        child_path = f"{path}/{child.name}" if path else child.name
        reason = called_off
        if reason is None and off:
            reason = f"called with training=False ({child_path})"
        _walk(child, child_path, reason, training, inference)


def _children(layer: Any) -> list[tuple[Any, bool]]:
    """(sublayer, called with training=False in ``layer``'s graph) in order."""
    from tfnb_debug.collect.keras_access import direct_sublayers, private

    try:
        is_graph = isinstance(layer, private("Function"))
    except (ImportError, AttributeError):
        is_graph = False
    if not is_graph:
        return [(child, False) for child in direct_sublayers(layer)]
    nodes = _graph_nodes(layer)
    out = []
    for op in layer.operations:
        if not hasattr(op, "trainable"):
            continue  # a plain operation (TrueDivide, ...): no layers inside
        calls = [n for n in getattr(op, "_inbound_nodes", []) if nodes is None or id(n) in nodes]
        off = bool(calls) and all(_training_argument(n) is False for n in calls)
        out.append((op, off))
    return out


def _graph_nodes(model: Any) -> set[int] | None:
    try:
        return {id(n) for ns in model._nodes_by_depth.values() for n in ns}
    except Exception:  # a Keras upgrade renamed it: read every call of the layer
        return None


def _training_argument(node: Any) -> Any:
    arguments = getattr(node, "arguments", None)
    kwargs = getattr(arguments, "kwargs", None) or {}
    return kwargs.get("training")
