"""Snapshots of a model's state, and small helpers shared by the check commands.

Every command in :mod:`tfnb_debug.features.consistency`, :mod:`tfnb_debug.features.overfit`,
:mod:`tfnb_debug.features.lint` and :mod:`tfnb_debug.features.check` promises that the user's
model, weights and optimizer state are bit-identical afterwards.  A
:class:`VariableSnapshot` copies every variable's value to the host and puts it
back; features take one through :func:`tfnb_debug.collect._patching.preserved`
(the one guard), which also covers metrics, every optimizer and the random
states.  Imported lazily (TensorFlow at module level is fine here).
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from typing import Any

import keras
import numpy as np
import tensorflow as tf

from tfnb_debug.collect.keras_access import layer_paths, private, require_keras_model
from tfnb_debug.ground.errors import TfnbDebugError

__all__ = [
    "VariableSnapshot",
    "drop_global_seed_generator",
    "first_batch",
    "flat_arrays",
    "global_seed_generator",
    "has_own_train_step",
    "layer_paths",
    "relative_difference",
    "require_keras_model",
    "same_bits",
    "state_variables",
]


def has_own_train_step(model: Any) -> bool:
    """The model overrides ``train_step`` (it computes its loss itself: VAE, GAN, ...)."""
    return type(model).train_step is not keras.Model.train_step


def global_seed_generator() -> Any | None:
    """Keras' global seed generator (used by unseeded random ops), without creating it."""
    try:
        global_state = private("global_state")
        return global_state.get_global_attribute(private("GLOBAL_SEED_GENERATOR"))
    except Exception:  # private API moved: the global generator is then simply not tracked
        return None


def drop_global_seed_generator() -> None:
    """Forget Keras' global seed generator (when a guarded block created it)."""
    try:
        global_state = private("global_state")
        global_state.set_global_attribute(private("GLOBAL_SEED_GENERATOR"), None)
    except Exception:  # private API moved: nothing was tracked, nothing to drop
        return


def state_variables(model: keras.Model, *, optimizer: bool = True) -> list[Any]:
    """Every variable a command could touch: the model's, its optimizer's, the global RNG's."""
    found: list[Any] = list(model.variables)
    opt = getattr(model, "optimizer", None)
    if optimizer and opt is not None:
        found.extend(opt.variables)
    gen = global_seed_generator()
    if gen is not None:
        found.append(gen.state)
    unique: dict[int, Any] = {}
    for var in found:
        unique.setdefault(id(var), var)
    return list(unique.values())


@dataclass(frozen=True)
class VariableSnapshot:
    """Host copies of variable values, to compare with or to assign back."""

    variables: tuple[Any, ...]
    values: tuple[np.ndarray, ...]

    @classmethod
    def take(cls, variables: Iterable[Any]) -> VariableSnapshot:
        vars_ = tuple(variables)
        return cls(vars_, tuple(np.array(v.numpy(), copy=True) for v in vars_))

    def restore(self) -> None:
        """Assign the saved value back to every variable whose bits differ from it now.

        Reading a variable costs far less than assigning it (an assignment is a Keras
        call and an op each), and most guarded blocks write few variables or none."""
        for var, value in zip(self.variables, self.values, strict=True):
            if not same_bits(var.numpy(), value):
                var.assign(value)

    def changed(self) -> list[str]:
        """Paths of the variables whose value is no longer bit-identical to the snapshot."""
        return [
            str(getattr(var, "path", var.name))
            for var, value in zip(self.variables, self.values, strict=True)
            if not same_bits(var.numpy(), value)
        ]


def same_bits(now: Any, saved: np.ndarray) -> bool:
    """``now`` has ``saved``'s shape, dtype and every bit (a NaN equals the same NaN,
    ``-0.0`` differs from ``0.0``); an array of objects, which has no bits to compare,
    equal values."""
    now = np.asarray(now)
    if now.shape != saved.shape or now.dtype != saved.dtype:
        return False
    try:
        bits = np.ascontiguousarray(now).reshape(-1).view(np.uint8)
        return bool(np.array_equal(bits, np.ascontiguousarray(saved).reshape(-1).view(np.uint8)))
    except (TypeError, ValueError):  # objects (a string variable's bytes): compare values
        return bool(np.array_equal(now, saved))


def flat_arrays(outputs: Any) -> list[np.ndarray]:
    """The leaves of a model output (tensor, list, dict) as float64 NumPy arrays."""
    leaves = keras.tree.flatten(outputs)
    return [np.asarray(tf.convert_to_tensor(leaf).numpy(), dtype=np.float64) for leaf in leaves]


def relative_difference(a: Any, b: Any) -> tuple[float, float]:
    """``(max |a-b|, max |a-b| / max |b|)`` over every leaf; NaN anywhere gives NaN."""
    left, right = flat_arrays(a), flat_arrays(b)
    if len(left) != len(right):
        return float("inf"), float("inf")
    worst_abs = 0.0
    scale = 0.0
    for x, y in zip(left, right, strict=True):
        if x.shape != y.shape:
            return float("inf"), float("inf")
        if x.size == 0:
            continue
        worst_abs = max(worst_abs, float(np.max(np.abs(x - y))))
        scale = max(scale, float(np.max(np.abs(y))))
    return worst_abs, worst_abs / max(scale, 1e-12)


def first_batch(data: Any, *, what: str = "DATA") -> tuple[Any, Any | None]:
    """``(x, y)`` from a dataset (its first element), a ``(x, y)`` tuple or plain inputs."""
    if isinstance(data, tf.data.Dataset):
        try:
            element = next(iter(data.take(1)))
        except StopIteration:
            raise TfnbDebugError(f"{what} is an empty tf.data.Dataset") from None
        if isinstance(element, tuple) and len(element) in (2, 3):
            return element[0], element[1]
        return element, None
    if isinstance(data, Iterator):
        raise TfnbDebugError(
            f"{what} is an iterator; pass the dataset or arrays themselves so nothing is consumed"
        )
    if isinstance(data, tuple) and len(data) in (2, 3):
        _check_batched(data[:2], what)
        return data[0], data[1]
    return data, None


def _check_batched(parts: tuple[Any, ...], what: str) -> None:
    """An ``(x, y)`` tuple holds batches: a single number in it is a one-line error."""
    for name, part in zip(("x", "y"), parts, strict=False):
        for leaf in tf.nest.flatten(part):
            if leaf is not None and np.ndim(leaf) == 0:
                raise TfnbDebugError(
                    f"the {name} of {what} is a single {type(leaf).__name__}, not a batch of "
                    "examples: give arrays with a batch axis, e.g. (x_train, y_train)"
                )
