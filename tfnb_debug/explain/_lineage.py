"""Where a dimension came from: one axis of a symbolic Keras tensor traced back to its origin.

``axis_chain(t, axis)`` walks ``t``'s ``_keras_history`` back through the
layers that made it (the first input of each, which is the main path of a
Sequential and of a skip connection's branch) to the model's ``Input`` and
returns the axis' size after each layer: ``input 28 -> conv1 28 -> pool1 14
-> pool2 7 -> pool3 3 -> up1 6``.  Each step keeps the layer's own arithmetic
(strides, pool size, padding, upsampling factor), so a rule can say where the
wrong size entered and offer only a fix this chain supports.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True)
class AxisStep:
    """One layer on the path: its output size on the traced axis and the arithmetic it did."""

    layer: str
    class_name: str
    size: int | None
    stride: int = 1  # the layer's stride (or pool size acting as stride) on this axis
    padding: str = ""  # "same" / "valid" for convolutions and pooling, "" otherwise
    kernel: int = 1
    upsample: int = 1  # UpSampling / Conv*Transpose factor on this axis
    units: int = 0  # the layer's units/filters (the size it gives the last axis), 0 if none

    def changes(self, before: int | None) -> bool:
        return before is not None and self.size is not None and before != self.size

    def rounds(self, before: int | None) -> str:
        """``floor`` / ``ceil`` when this step divided an odd size, else ``""``."""
        if before is None or self.size is None or self.stride <= 1 or before % self.stride == 0:
            return ""
        return "ceil" if self.size * self.stride > before else "floor"


def axis_chain(tensor: Any, axis: int, limit: int = 200) -> tuple[AxisStep, ...]:
    """The sizes of ``axis`` along ``tensor``'s main path, the Input first."""
    steps: list[AxisStep] = []
    current = tensor
    while current is not None and len(steps) < limit:
        history = getattr(current, "_keras_history", None)
        operation = getattr(history, "operation", None)
        if operation is None:
            break
        shape = _shape(current)
        rank = len(shape) if shape is not None else 0
        size = shape[axis] if shape is not None and -rank <= axis < rank else None
        steps.append(_step(operation, size, axis, rank))
        if type(operation).__name__ == "InputLayer":
            break
        try:
            node = operation._inbound_nodes[getattr(history, "node_index", 0)]
            inputs = list(node.input_tensors)
        except Exception:
            break
        current = inputs[0] if inputs else None
    return tuple(reversed(steps))


def _shape(tensor: Any) -> tuple[int | None, ...] | None:
    try:
        return tuple(None if d is None else int(d) for d in tensor.shape)
    except Exception:
        return None


def _per_axis(value: Any, index: int) -> int:
    if isinstance(value, int):
        return value
    if isinstance(value, list | tuple) and 0 <= index < len(value):
        item = value[index]
        return int(item) if isinstance(item, int) else 1
    return 1


def _step(layer: Any, size: int | None, axis: int, rank: int) -> AxisStep:
    cls = type(layer).__name__
    spatial = (axis % rank) - 1 if rank >= 3 else -1  # channels_last: axis 1 -> spatial 0
    if spatial < 0 or spatial >= rank - 2:
        width = getattr(layer, "units", None) or getattr(layer, "filters", None)
        last = rank > 0 and axis % rank == rank - 1
        return AxisStep(
            str(layer.name), cls, size, units=width if last and isinstance(width, int) else 0
        )
    stride = _per_axis(getattr(layer, "strides", None), spatial)
    kernel = _per_axis(
        getattr(layer, "kernel_size", None) or getattr(layer, "pool_size", None), spatial
    )
    padding = str(getattr(layer, "padding", "") or "")
    upsample = _per_axis(getattr(layer, "size", None), spatial) if "UpSampling" in cls else 1
    if "Transpose" in cls:
        stride, upsample = 1, _per_axis(getattr(layer, "strides", None), spatial)
    return AxisStep(str(layer.name), cls, size, stride, padding, kernel, upsample)


def fmt_chain(steps: tuple[AxisStep, ...]) -> str:
    """``input 28 -> pool1 14 -> pool2 7``: each layer where the size is shown once it changes."""
    if not steps:
        return ""
    parts = [f"{steps[0].layer} {steps[0].size}"]
    before = steps[0].size
    for step in steps[1:]:
        if step.changes(before):
            note = step.rounds(before)
            parts.append(
                f"{step.layer} {step.size}"
                + (f" ({note} of {before}/{step.stride})" if note else "")
            )
        before = step.size if step.size is not None else before
    if len(parts) == 1 and len(steps) > 1:
        parts.append(f"{steps[-1].layer} {steps[-1].size}")
    return " -> ".join(parts)


def rounding_step(steps: tuple[AxisStep, ...]) -> tuple[AxisStep, int] | None:
    """The first layer that divided an odd size (where an encoder loses a row), with the size before."""
    before = steps[0].size if steps else None
    for step in steps[1:]:
        if step.rounds(before):
            return step, before  # type: ignore[return-value]
        before = step.size if step.size is not None else before
    return None


def has_shrinking_layer(steps: tuple[AxisStep, ...]) -> bool:
    """Whether any layer on the path has a stride > 1 or ``valid`` padding with a kernel > 1."""
    return any(s.stride > 1 or (s.padding == "valid" and s.kernel > 1) for s in steps)


def total_factor(steps: tuple[AxisStep, ...]) -> int:
    """The product of the strides on the path: the input size must be a multiple of it."""
    factor = 1
    for step in steps:
        factor *= max(step.stride, 1)
    return factor
