"""What to call a model with: the user's input checked against the model, or a synthetic batch.

Also the model-level numbers of a shape report (parameter totals, the
training-memory estimate), which need the live model.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import keras
import numpy as np

from tfnb_debug.collect.keras_access import check_model
from tfnb_debug.ground.errors import TfnbDebugError
from tfnb_debug.records.shapes import MemoryEstimate, Shape, dtype_bytes

__all__ = [
    "check_callable",
    "check_model",
    "estimate_memory",
    "input_spec_of",
    "parse_input_shape",
    "synthetic_batch",
    "validate_inputs",
]

SYNTHETIC_BATCH = 2
UNKNOWN_AXIS = 8


def check_callable(model: Any, label: str) -> None:
    """A ``keras.Model`` subclass without ``call()`` (a GAN wrapper with ``train_step``) cannot be traced.

    Raises a one-line :class:`TfnbDebugError` naming the sub-models to trace instead.
    """
    if not isinstance(model, keras.Model) or type(model).call is not keras.Model.call:
        return
    subs = [
        f"{label}.{attr}"
        for attr, value in vars(model).items()
        if not attr.startswith("_") and isinstance(value, keras.layers.Layer)
    ]
    instead = (
        f"trace its sub-models instead: {', '.join(f'%tfshape {s}' for s in subs)}"
        if subs
        else "give it a call(self, inputs) method, or trace the models it uses"
    )
    raise TfnbDebugError(f"model '{label}' defines no call(), so it cannot be traced: {instead}")


def parse_input_shape(text: str | Sequence[Any]) -> tuple[Shape, ...]:
    """``"2,28,28,1"`` or ``(2, 28, 28, 1)`` or ``"2,8;2,4"`` (several inputs) -> shapes."""
    if isinstance(text, str):
        parts = [p for p in text.replace(" ", "").strip("()[]").split(";") if p]
        shapes = []
        for part in parts:
            try:
                shapes.append(tuple(int(d) for d in part.strip("()[]").split(",") if d))
            except ValueError:
                raise TfnbDebugError(
                    f"--input-shape {text!r} is not a list of integers: write it like 2,28,28,1 "
                    "(batch first; separate several inputs with ';')"
                ) from None
        result = tuple(shapes)
    else:
        items = list(text)
        if items and all(isinstance(d, int) for d in items):
            result = (tuple(int(d) for d in items),)
        elif items and all(isinstance(s, (tuple, list)) for s in items):
            result = tuple(tuple(int(d) for d in s) for s in items)
        else:
            raise TfnbDebugError(
                f"input_shape {text!r} must be a tuple of ints like (2, 28, 28, 1), or a list of "
                "such tuples for several inputs"
            )
    if not result or any(not s or any(d <= 0 for d in s) for s in result):
        raise TfnbDebugError(
            f"input shape {text!r} needs positive sizes with the batch first, e.g. 2,28,28,1"
        )
    return result


def input_spec_of(model: Any) -> Any | None:
    """The model's input structure as KerasTensors/shape tuples, or None when it is not known."""
    struct = getattr(model, "_inputs_struct", None)
    if struct is not None:
        return struct
    functional = getattr(model, "_functional", None)  # Sequential keeps its graph here
    if functional is not None and getattr(functional, "_inputs_struct", None) is not None:
        return functional._inputs_struct
    shapes = getattr(model, "_build_shapes_dict", None)
    if isinstance(shapes, dict) and len(shapes) == 1:
        shape = next(iter(shapes.values()))
        if isinstance(shape, (tuple, list)) and all(d is None or isinstance(d, int) for d in shape):
            return keras.KerasTensor(tuple(shape), dtype=_input_dtype(model))
    return None


def _input_dtype(model: Any) -> str:
    policy = getattr(model, "dtype_policy", None)
    name = str(getattr(policy, "compute_dtype", None) or "float32")
    return "float32" if name in ("float16", "bfloat16") else name


def synthetic_batch(spec: Any, *, seed: int = 0) -> Any:
    """A batch matching ``spec``: random normal floats, zeros for integers, batch size 2."""
    rng = np.random.default_rng(seed)

    def make(t: Any) -> Any:
        shape = tuple(t.shape)
        concrete = [SYNTHETIC_BATCH if i == 0 and d is None else d for i, d in enumerate(shape)]
        concrete = [UNKNOWN_AXIS if d is None else int(d) for d in concrete]
        dtype = str(keras.backend.standardize_dtype(getattr(t, "dtype", "float32")))
        if dtype.startswith(("float", "bfloat")):
            array = rng.standard_normal(concrete).astype(np.float32)
            return keras.ops.convert_to_tensor(array, dtype=dtype)
        if dtype == "bool":
            return keras.ops.convert_to_tensor(np.zeros(concrete, dtype=bool))
        return keras.ops.convert_to_tensor(np.zeros(concrete, dtype=dtype))

    return keras.tree.map_structure(make, spec)


def batch_from_shapes(shapes: tuple[Shape, ...], spec: Any | None, *, seed: int = 0) -> Any:
    """A batch from ``--input-shape``; dtypes from the model's inputs when it has them."""
    specs = keras.tree.flatten(spec) if spec is not None else []
    if specs and len(specs) != len(shapes):
        raise TfnbDebugError(
            f"the model takes {len(specs)} input(s) but --input-shape gives {len(shapes)}: "
            "separate the shapes of several inputs with ';'"
        )
    tensors = [
        keras.KerasTensor(
            shape, dtype=getattr(specs[i], "dtype", "float32") if specs else "float32"
        )
        for i, shape in enumerate(shapes)
    ]
    batch = synthetic_batch(tensors, seed=seed)
    if spec is not None and len(specs) == len(shapes):
        return keras.tree.pack_sequence_as(spec, batch)
    return batch[0] if len(batch) == 1 else batch


def validate_inputs(model: Any, inputs: Any, spec: Any | None) -> None:
    """One-line errors for inputs of the wrong structure (before anything runs)."""
    if inputs is None:
        return
    flat = keras.tree.flatten(inputs)
    bad = [type(x).__name__ for x in flat if not hasattr(x, "shape")]
    if bad or not flat:
        raise TfnbDebugError(
            f"the input must be an array or tensor (or a list/dict of them); got "
            f"{type(inputs).__name__}"
            + (f" holding {bad[0]}" if bad else "")
            + ": pass e.g. x_train[:2] or np.zeros((2, 28, 28, 1), 'float32')"
        )
    if spec is None:
        return
    if isinstance(spec, dict):
        if not isinstance(inputs, dict):
            if len(spec) == 1 and len(flat) == 1:
                return
            raise TfnbDebugError(
                f"'{model.name}' takes a dict of inputs with keys {sorted(spec)}; got "
                f"{type(inputs).__name__}: pass {{{', '.join(repr(k) + ': ...' for k in sorted(spec))}}}"
            )
        missing = sorted(set(spec) - set(inputs))
        if missing:
            raise TfnbDebugError(
                f"the input dict for '{model.name}' lacks the key(s) {missing}; the model takes "
                f"{sorted(spec)}"
            )
        return
    expected = len(keras.tree.flatten(spec))
    if expected != len(flat):
        raise TfnbDebugError(
            f"'{model.name}' takes {expected} input(s) but got {len(flat)}: pass "
            + ("one array" if expected == 1 else f"a list of {expected} arrays")
        )


# ------------------------------------------------------------------ totals
def optimizer_slots(optimizer: Any) -> tuple[str, int | None]:
    """The optimizer's name and its state copies per parameter (None when unknown).

    The per-class rule is :func:`tfnb_debug.collect.memory_estimate.optimizer_slots`
    (shared with ``%tfmem``); this unwraps a LossScaleOptimizer first.
    """
    from tfnb_debug.collect.memory_estimate import optimizer_slots as slots_of

    inner = getattr(optimizer, "inner_optimizer", None) or optimizer  # LossScaleOptimizer
    return type(inner).__name__, slots_of(inner)


def estimate_memory(
    model: Any, activation_bytes: int | None, batch_size: int | None
) -> MemoryEstimate:
    """``%tfshape``'s view of the one training-memory estimate, with the activations it measured.

    Weights, gradients and optimizer state are those of
    :func:`~tfnb_debug.collect.memory_estimate.collect_model_memory` (what
    ``%%tfmem`` reports), so both commands give the same bytes for one model.
    """
    from tfnb_debug.collect.memory_estimate import collect_model_memory

    e = collect_model_memory(model, batch_size=batch_size)
    optimizer = getattr(model, "optimizer", None)
    common: dict[str, Any] = {
        "model": e.model,
        "params": e.parameters,
        "trainable_params": e.trainable_parameters,
        "activation_bytes": activation_bytes,
        "batch_size": batch_size,
    }
    if optimizer is None:
        return MemoryEstimate(
            **common,
            optimizer="none",
            bytes_per_param=None,
            param_bytes=None,
            note="the model is not compiled, so the optimizer's state is unknown: "
            "compile it to get a training-memory estimate",
        )
    name, slots = optimizer_slots(optimizer)
    if e.optimizer_bytes is None:
        return MemoryEstimate(
            **common,
            optimizer=name,
            bytes_per_param=None,
            param_bytes=None,
            note=f"no rule for the state of optimizer {name}: estimate unknown",
        )
    trained = 2 * e.gradient_bytes + e.optimizer_bytes  # weight + gradient + optimizer state
    if e.trainable_parameters:
        per_param = round(trained / e.trainable_parameters)
    else:
        per_param = (dtype_bytes(_variable_dtype(model)) or 4) * (2 + (slots or 0))
    return MemoryEstimate(
        **common,
        optimizer=name,
        bytes_per_param=per_param,
        param_bytes=e.weight_bytes + e.gradient_bytes + e.optimizer_bytes,
        note="" if activation_bytes is not None else "activations unknown (no eager call)",
    )


def _variable_dtype(model: Any) -> str:
    policy = getattr(model, "dtype_policy", None)
    return str(getattr(policy, "variable_dtype", None) or "float32")
