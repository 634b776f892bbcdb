"""What the inspector shows about one layer, collected on demand into plain values.

:func:`summarize_tensor` reduces a tensor or variable on its device and brings
back only scalars, a histogram and (for image-like outputs) the first feature
maps of the first example.  :func:`capture_call_output` runs the model once with
a wrapper on the selected layer's ``call`` only (an instance attribute set and
removed by :func:`~tfnb_debug.collect._patching.patched`), so no other layer's
output is kept; a ``training=True`` pass runs inside
:func:`~tfnb_debug.collect._patching.preserved`, so it leaves every variable of
the model bit-identical (BatchNormalization's moving statistics, seed states).  The records it fills
live in :mod:`tfnb_debug.widgets.records` (re-exported here).  Imported lazily.
"""

from __future__ import annotations

import contextlib
import json
from typing import Any

import numpy as np

from tfnb_debug.collect._patching import patched, preserved
from tfnb_debug.ground.errors import TfnbDebugError
from tfnb_debug.ground.text import key_sentence
from tfnb_debug.widgets.records import (
    ActivationInfo,
    GradientInfo,
    LayerDetails,
    ValueSummary,
    WeightInfo,
)

__all__ = [
    "ActivationInfo",
    "GradientInfo",
    "LayerDetails",
    "ValueSummary",
    "WeightInfo",
    "capture_call_output",
    "layer_config",
    "summarize_tensor",
    "weight_infos",
]


def summarize_tensor(value: Any, *, bins: int = 30) -> ValueSummary | None:
    """Reduce ``value`` (tensor, variable or array) on its device; None for non-numeric dtypes."""
    import tensorflow as tf

    tensor = tf.convert_to_tensor(value)
    if tensor.dtype == tf.string or tensor.dtype.is_complex:
        return None
    flat = tf.reshape(tf.cast(tensor, tf.float32), [-1])
    count = int(tf.size(flat))
    if count == 0:
        return ValueSummary(0, 0.0, 0.0, 0.0, 0.0, 0.0, 0, (), ())
    finite_mask = tf.math.is_finite(flat)
    finite = tf.boolean_mask(flat, finite_mask)
    n_finite = int(tf.size(finite))
    zeros = float(tf.reduce_mean(tf.cast(tf.equal(flat, 0.0), tf.float32)))
    if n_finite == 0:
        nan = float("nan")
        return ValueSummary(count, nan, nan, nan, nan, zeros, count, (), ())
    lo = float(tf.reduce_min(finite))
    hi = float(tf.reduce_max(finite))
    mean = float(tf.reduce_mean(finite))
    std = float(tf.math.reduce_std(finite))
    span_lo, span_hi = (lo - 0.5, hi + 0.5) if lo == hi else (lo, hi)
    counts = tf.histogram_fixed_width(finite, [span_lo, span_hi], nbins=bins).numpy()
    edges = np.linspace(span_lo, span_hi, bins + 1)
    return ValueSummary(
        count=count,
        mean=mean,
        std=std,
        min=lo,
        max=hi,
        zeros=zeros,
        nonfinite=count - n_finite,
        hist_counts=tuple(int(c) for c in counts),
        hist_edges=tuple(float(e) for e in edges),
    )


def weight_infos(layer: Any, *, bins: int = 30) -> tuple[WeightInfo, ...]:
    """Each weight variable of ``layer`` (or of a list of variables) with statistics."""
    variables = layer.weights if hasattr(layer, "weights") else list(layer)
    seen: set[int] = set()
    out = []
    for variable in variables:
        if id(variable) in seen:
            continue
        seen.add(id(variable))
        out.append(
            WeightInfo(
                name=str(getattr(variable, "path", None) or variable.name),
                shape=tuple(int(d) for d in variable.shape),
                dtype=str(getattr(variable.dtype, "name", variable.dtype)),
                trainable=bool(variable.trainable),
                stats=summarize_tensor(variable, bins=bins),
            )
        )
    return tuple(out)


def layer_config(layer: Any) -> tuple[tuple[str, str], ...]:
    """The layer's ``get_config()`` as (key, short text) pairs; nested dicts as compact JSON."""
    try:
        config = layer.get_config()
    except Exception as err:  # a custom layer without get_config: say so, don't fail
        return (("get_config()", f"not available ({type(err).__name__})"),)
    items = []
    for key, value in config.items():
        if key == "layers":  # a nested model: its layers are rows of their own
            value = f"{len(value)} layers"
        items.append((str(key), _short(value)))
    return tuple(items)


def _short(value: Any, limit: int = 160) -> str:
    if isinstance(value, dict) and "class_name" in value and "config" in value:
        inner = value.get("config") or {}
        name = inner.get("name") if isinstance(inner, dict) else None
        value = f"{value['class_name']}({name})" if name else str(value["class_name"])
    if isinstance(value, str):
        text = value
    else:
        try:
            text = json.dumps(value, default=str)
        except (TypeError, ValueError):
            text = repr(value)
    return text if len(text) <= limit else text[: limit - 1] + "…"


def capture_call_output(
    model: Any,
    layer: Any,
    inputs: Any,
    *,
    call_index: int = 0,
    output_index: int = 0,
    bins: int = 30,
    max_maps: int = 16,
    training: bool = False,
) -> ActivationInfo:
    """Run ``model(inputs)`` once and summarize output ``output_index`` of the
    ``call_index``-th eager call of ``layer``.

    Only that call's output is reduced (statistics, histogram, the first
    ``max_maps`` feature maps of example 0); nothing else is kept.  A failure
    later in the forward pass does not matter once the call is captured.
    Raises :class:`TfnbDebugError` when the call is never reached (the layer is
    not called that often, or the model raised before it).
    """
    import tensorflow as tf

    seen = 0
    captured: list[ActivationInfo] = []

    def on_output(outputs: Any) -> None:
        nonlocal seen
        if not tf.executing_eagerly():
            return  # symbolic pass (a build): not a real call
        index = seen
        seen += 1
        if index != call_index or captured:
            return
        flat = [t for t in tf.nest.flatten(outputs) if tf.is_tensor(t)]
        if not flat:
            return
        tensor = flat[min(output_index, len(flat) - 1)]
        captured.append(_activation(layer, tensor, index, output_index, bins, max_maps))

    original = layer.call

    def call(*args: Any, **kwargs: Any) -> Any:
        outputs = original(*args, **kwargs)
        on_output(outputs)
        return outputs

    # A training pass moves BatchNormalization's statistics and draws from seed
    # generators: every variable is put back.  An inference pass of Keras' layers
    # changes no variable, and the snapshot would cost about a third of a selection
    # (60 ms on MobileNetV2), so it runs without one.
    guard = (
        preserved(model, optimizer=False, metrics=False) if training else contextlib.nullcontext()
    )
    failure: Exception | None = None
    with guard, patched((layer, "call", call)):
        try:
            model(inputs, training=training)
        except Exception as err:
            failure = err  # a later layer failing does not spoil an output captured before it
    if not captured and failure is not None:
        raise TfnbDebugError(
            f"the forward pass raised {type(failure).__name__} before this call: "
            f"{key_sentence(str(failure)) or type(failure).__name__}"
        )
    if not captured:
        name = getattr(layer, "name", "?")
        raise TfnbDebugError(
            f"layer {name!r} made {seen} eager call(s) in the forward pass, so call "
            f"#{call_index + 1} could not be captured: pass the inputs the model was traced with"
        )
    return captured[0]


def _activation(
    layer: Any, tensor: Any, index: int, output_index: int, bins: int, max_maps: int
) -> ActivationInfo:
    maps = None
    channels = 0
    shape = tuple(int(d) for d in tensor.shape)
    if len(shape) == 4 and shape[0] > 0:
        channels_first = getattr(layer, "data_format", "channels_last") == "channels_first"
        first = tensor[0].numpy()
        if channels_first:
            first = np.moveaxis(first, 0, -1)
        channels = int(first.shape[-1])
        maps = np.asarray(first[..., :max_maps], dtype=np.float32)
    return ActivationInfo(
        call_index=index,
        shape=shape,
        dtype=str(tensor.dtype.name),
        stats=summarize_tensor(tensor, bins=bins),
        feature_maps=maps,
        channels=channels,
        output_index=output_index,
    )
