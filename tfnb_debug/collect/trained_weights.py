"""Whether a model's weights were trained, read from the weights themselves.

An optimizer that has taken no step says only that this optimizer did not train
the model: weights loaded from a file (``load_weights``, a ``tf.train.Checkpoint``
restored into a freshly compiled model, ``load_model(compile=False)`` and a new
``compile``) were trained elsewhere.  The weights tell: a variable whose
initializer is a constant (a bias's zeros, a BatchNormalization gamma's ones) is
still exactly that constant until something changes it, and any training step
does.  Random initializers give no such evidence and are not read.
"""

from __future__ import annotations

from typing import Any

from tfnb_debug.collect.keras_access import all_sublayers

__all__ = ["moved_from_initial"]

_SUFFIX = "_initializer"


def moved_from_initial(model: Any, layer_name: str = "") -> str | None:
    """The first trainable variable of ``model`` (of its layer ``layer_name`` when that
    layer has one with a constant initializer) that no longer holds its initializer's
    constant, as ``"path (initial zeros)"``; None when every such variable still holds it
    (or there is none)."""
    layers = [model, *all_sublayers(model)]
    if layer_name:
        named = [layer for layer in layers if getattr(layer, "name", None) == layer_name]
        readable = [found for layer in named for found in _constant_variables(layer)]
        if readable:
            return _first_moved(readable)
    return _first_moved([found for layer in layers for found in _constant_variables(layer)])


def _first_moved(found: list[tuple[Any, float, str]]) -> str | None:
    import numpy as np

    for variable, constant, name in found:
        try:
            value = np.asarray(variable.numpy())
        except Exception:
            continue
        if value.size and not np.all(value == constant):
            return f"{variable.path} (initial {name})"
    return None


def _constant_variables(layer: Any) -> list[tuple[Any, float, str]]:
    """``(variable, constant, initializer name)`` for each trainable variable of ``layer``
    made by a constant initializer (``bias_initializer`` -> ``layer.bias``, ...)."""
    import keras

    out = []
    for attribute, initializer in list(vars(layer).items()):
        if not attribute.endswith(_SUFFIX):
            continue
        constant = _constant(initializer)
        if constant is None:
            continue
        if attribute == "bias_initializer" and getattr(layer, "unit_forget_bias", False):
            continue  # an LSTM cell's bias starts at ones in its forget gate, not at zeros
        try:
            variable = getattr(layer, attribute[: -len(_SUFFIX)], None)
        except Exception:
            continue
        if isinstance(variable, keras.Variable) and variable.trainable:
            out.append((variable, constant[0], constant[1]))
    return out


def _constant(initializer: Any) -> tuple[float, str] | None:
    """The value every entry of a constant initializer has, and its name."""
    import keras

    if isinstance(initializer, str):
        try:
            initializer = keras.initializers.get(initializer)
        except Exception:
            return None
    if isinstance(initializer, keras.initializers.Zeros):
        return 0.0, "zeros"
    if isinstance(initializer, keras.initializers.Ones):
        return 1.0, "ones"
    if isinstance(initializer, keras.initializers.Constant):
        value = initializer.get_config().get("value")
        if isinstance(value, int | float):
            return float(value), f"constant {value:g}"
    return None
