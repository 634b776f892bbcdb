"""How much memory training a Keras model needs: weights, gradients, optimizer state, activations.

A rough lower bound from plain arithmetic on the model's variables and the
output shapes its layers know (functional and Sequential models, or nested
ones); TensorFlow's real peak adds workspaces and temporary buffers on top.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

__all__ = ["ModelMemoryEstimate", "collect_model_memory", "optimizer_slots"]

# Optimizer state per trainable parameter, in copies of the parameter, before the
# optimizer is built (once built, its real variables are counted instead).
_SLOTS = {
    "SGD": 0,  # +1 with momentum
    "Adam": 2,  # +1 with amsgrad
    "AdamW": 2,
    "Adamax": 2,
    "Nadam": 2,
    "Adadelta": 2,
    "Ftrl": 2,
    "Adagrad": 1,
    "RMSprop": 1,  # +1 with momentum, +1 centered
    "Lion": 1,
    "Lamb": 2,
}


@dataclass(frozen=True)
class ModelMemoryEstimate:
    """Plain numbers for one model; ``None`` where a part could not be estimated."""

    model: str
    parameters: int
    trainable_parameters: int
    weight_bytes: int
    gradient_bytes: int
    optimizer: str
    optimizer_bytes: int | None
    optimizer_source: str  # "built" (its variables) or "rule" (the class table) or "unknown"
    batch_size: int | None
    activation_dtype: str
    activation_elements: int | None  # per example
    activation_bytes: int | None

    @property
    def training_bytes(self) -> int:
        """Weights + gradients + optimizer state + activations (the parts that are known)."""
        return (
            self.weight_bytes
            + self.gradient_bytes
            + (self.optimizer_bytes or 0)
            + (self.activation_bytes or 0)
        )

    @property
    def bytes_per_parameter(self) -> float | None:
        if not self.trainable_parameters or self.optimizer_bytes is None:
            return None
        return (self.weight_bytes + self.gradient_bytes + self.optimizer_bytes) / self.parameters


def optimizer_slots(optimizer: Any) -> int | None:
    """Copies of each trainable parameter an unbuilt Keras optimizer will keep (None: unknown)."""
    name = type(optimizer).__name__
    if name not in _SLOTS:
        return None
    slots = _SLOTS[name]
    if name == "SGD" and float(getattr(optimizer, "momentum", 0) or 0) > 0:
        slots += 1
    if name == "RMSprop":
        slots += int(float(getattr(optimizer, "momentum", 0) or 0) > 0)
        slots += int(bool(getattr(optimizer, "centered", False)))
    if getattr(optimizer, "amsgrad", False):
        slots += 1
    return slots


def collect_model_memory(
    model: Any,
    *,
    batch_size: int | None = None,
    optimizer: Any = None,
    activation_elements: int | None = None,
) -> ModelMemoryEstimate:
    """Estimate what training ``model`` with ``optimizer`` (default: the compiled one) keeps."""
    import keras

    weights = list(model.weights)
    trainable = list(model.trainable_weights)
    weight_bytes = sum(_variable_bytes(v) for v in weights)
    gradient_bytes = sum(_variable_bytes(v) for v in trainable)
    optimizer = optimizer if optimizer is not None else getattr(model, "optimizer", None)
    inner = getattr(optimizer, "inner_optimizer", None)  # LossScaleOptimizer wraps the real one
    base = inner if inner is not None else optimizer
    optimizer_bytes: int | None
    if base is None:
        optimizer_bytes, source, opt_name = None, "unknown", "none (not compiled)"
    elif getattr(base, "built", False) and list(base.variables):
        optimizer_bytes = sum(_variable_bytes(v) for v in base.variables)
        source, opt_name = "built", type(base).__name__
    else:
        slots = optimizer_slots(base)
        optimizer_bytes = None if slots is None else slots * gradient_bytes
        source = "unknown" if slots is None else "rule"
        opt_name = type(base).__name__
    if inner is not None:
        opt_name = f"{opt_name} in {type(optimizer).__name__}"

    policy = getattr(model, "dtype_policy", None) or keras.mixed_precision.global_policy()
    act_dtype = str(getattr(policy, "compute_dtype", None) or "float32")
    elements = activation_elements if activation_elements is not None else _activations(model)
    act_bytes = (
        None
        if elements is None or batch_size is None
        else elements * batch_size * _dtype_size(act_dtype)
    )
    return ModelMemoryEstimate(
        model=str(getattr(model, "name", type(model).__name__)),
        parameters=sum(_size(v) for v in weights),
        trainable_parameters=sum(_size(v) for v in trainable),
        weight_bytes=weight_bytes,
        gradient_bytes=gradient_bytes,
        optimizer=opt_name,
        optimizer_bytes=optimizer_bytes,
        optimizer_source=source,
        batch_size=batch_size,
        activation_dtype=act_dtype,
        activation_elements=elements,
        activation_bytes=act_bytes,
    )


def _activations(model: Any) -> int | None:
    """Output elements per example of every layer with one known output shape (None: unknown)."""
    from tfnb_debug.collect.keras_access import all_sublayers

    layers = all_sublayers(model)
    total = 0
    seen = False
    for layer in layers:
        if type(layer).__name__ == "InputLayer":
            continue
        try:
            shape = tuple(layer.output.shape)
        except (AttributeError, ValueError, RuntimeError, TypeError):
            continue  # no symbolic output (subclassed model), or several (a shared layer)
        if any(d is None for d in shape[1:]):
            continue
        total += math.prod(int(d) for d in shape[1:])
        seen = True
    return total if seen else None


def _size(variable: Any) -> int:
    return math.prod(int(d) for d in variable.shape)


def _variable_bytes(variable: Any) -> int:
    return _size(variable) * _dtype_size(str(variable.dtype))


def _dtype_size(dtype: str) -> int:
    import numpy as np

    name = dtype.rsplit(".", 1)[-1].replace("'>", "").replace("<dtype: '", "")
    if name == "bfloat16":
        return 2
    try:
        return int(np.dtype(name).itemsize)
    except TypeError:
        return 4
