"""What a fitted model's hidden sigmoid/tanh layers output on its own training inputs.

:func:`saturation_after_fit` runs after a recorded ``fit`` (``%%tfgrad``): it builds a
probe over the model's hidden sigmoid/tanh layers (the same layers, called on the model's
own inputs: nothing is copied or changed), runs it in inference mode on at most
:data:`MAX_EXAMPLES` training examples (evenly spaced over arrays; the first batches of a
dataset) under :func:`~tfnb_debug.collect._patching.preserved` (the optimizer left out: an
inference call never writes it), and counts per layer the share of outputs within
``epsilon`` of the activation's bounds: the units a trained model keeps pinned, which pass
almost no gradient (N03 after training, not on one probe batch of a fresh model).  It also
reads the scale of the inputs that reach the first weighted layer and, per saturated layer,
the initializers of that layer and of the weighted layers before it that cannot start
learning, so the finding can name the cause.

Only models with symbolic inputs (Sequential with an ``Input``, Functional) can be probed
layer by layer; anything else gives nothing.  A failure while reading gives nothing:
``fit``'s result reaches the user unchanged.
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from typing import Any

import numpy as np

from tfnb_debug.collect.fit_args import is_dataset
from tfnb_debug.collect.fit_outcome import input_peak, rows_per_call, scaling_layer
from tfnb_debug.collect.model_config import hidden_saturating, suspicious_initializers
from tfnb_debug.collect.tensor_stats import host_stats

__all__ = ["HiddenSaturation", "Saturated", "saturation_after_fit"]

#: at most this many training examples are run through the probe
MAX_EXAMPLES = 256
#: seconds after which no further batch is run (once MIN_ROWS examples were read)
MAX_SECONDS = 1.0
MIN_ROWS = 16
_WEIGHTED = ("Dense", "Conv1D", "Conv2D", "Conv3D", "EinsumDense", "SeparableConv2D")


@dataclass(frozen=True)
class Saturated:
    """One hidden layer's outputs after the fit: ``share`` of them within ``epsilon`` of
    the bounds of its ``activation``; ``initializers``: what in this layer and in the
    weighted layers before it cannot start learning (``'name' (what)``)."""

    layer: str
    activation: str
    share: float
    initializers: tuple[str, ...] = ()


@dataclass(frozen=True)
class HiddenSaturation:
    """The probe's reading: every hidden sigmoid/tanh layer, in the model's order, on
    ``examples`` training examples (``source`` says which); ``input_peak`` / ``input_std``:
    the largest |value| and the std of the numeric inputs of the sample; ``first_weighted``:
    the name of the model's first weighted layer; ``scaling``: a scaling layer the model
    has (Normalization, Rescaling, BatchNormalization, LayerNormalization), or None."""

    layers: tuple[Saturated, ...]
    examples: int
    source: str
    input_peak: float | None
    input_std: float | None
    first_weighted: str | None
    scaling: str | None


def saturation_after_fit(
    model: Any, x: Any, *, epsilon: float = 1e-3, max_seconds: float = MAX_SECONDS
) -> HiddenSaturation | None:
    """The hidden sigmoid/tanh layers' outputs on ``x`` (the fit's ``x``: arrays, a dict or
    list of them, or a dataset of ``(x, y)``), or None when the model has none or cannot be
    probed layer by layer."""
    from tfnb_debug.collect._patching import preserved

    layers = hidden_saturating(model)  # sigmoid, tanh, hard_sigmoid: host_stats' bounds
    inputs = getattr(model, "inputs", None)
    if not layers or not inputs or x is None:
        return None
    try:
        import keras

        probe = keras.Model(inputs, [layer.output for layer in layers])
    except Exception:
        return None
    with preserved(model, optimizer=False):
        read = _run(probe, x, max_seconds)
    if read is None:
        return None
    outputs, sample, source = read
    found = []
    for layer, values in zip(layers, outputs, strict=True):
        name = layer.activation.__name__
        stats = host_stats(values, saturating=name, epsilon=epsilon)
        if stats is None or stats.saturated_fraction is None:
            continue
        initializers = suspicious_initializers(model, up_to=layer, small=False)
        found.append(Saturated(layer.name, name, stats.saturated_fraction, tuple(initializers)))
    numbers = [
        np.asarray(a, dtype=np.float64)
        for a in keras.tree.flatten(sample)
        if np.asarray(a).size and np.issubdtype(np.asarray(a).dtype, np.number)
    ]
    spread = max((float(np.std(a)) for a in numbers), default=None)
    return HiddenSaturation(
        tuple(found),
        int(len(outputs[0])),
        source,
        input_peak(sample),
        spread,
        _first_weighted(model),
        scaling_layer(model),
    )


def _run(probe: Any, x: Any, max_seconds: float) -> tuple[list[np.ndarray], Any, str] | None:
    import keras

    start = time.monotonic()
    if is_dataset(x):
        parts: list[list[np.ndarray]] = []
        samples = []
        seen = 0
        for element in x:
            features = element[0] if isinstance(element, tuple | list) else element
            parts.append(_outputs(probe(features, training=False)))
            samples.append(keras.tree.map_structure(np.asarray, features))
            seen += len(parts[-1][0])
            if seen >= MAX_EXAMPLES or time.monotonic() - start > max_seconds:
                break
        if not parts:
            return None
        outputs = [np.concatenate(column) for column in zip(*parts, strict=True)]
        what = f"the first {len(parts)} batch{'es' if len(parts) > 1 else ''} of the dataset"
        return outputs, samples, what
    try:
        first = keras.tree.flatten(x)[0]
        n = int(np.shape(first)[0])
    except Exception:
        return None
    if n <= 0:
        return None
    idx = np.unique(np.linspace(0, n - 1, min(n, MAX_EXAMPLES)).round().astype(np.int64))
    sample = keras.tree.map_structure(lambda a: np.asarray(a)[idx], x)
    rows = rows_per_call(sample)
    chunks: list[list[np.ndarray]] = []
    done = 0
    while done < len(idx):
        part = keras.tree.map_structure(lambda a, s=done: a[s : s + rows], sample)
        chunks.append(_outputs(probe(part, training=False)))
        done += len(chunks[-1][0])
        if done >= MIN_ROWS and time.monotonic() - start > max_seconds:
            break
    outputs = [np.concatenate(column) for column in zip(*chunks, strict=True)]
    sample = keras.tree.map_structure(lambda a: a[:done], sample)
    return outputs, sample, f"{done} of the {n} training examples, evenly spaced"


def _outputs(value: Any) -> list[np.ndarray]:
    import keras

    return [np.asarray(v, dtype=np.float64) for v in keras.tree.flatten(value)]


def _first_weighted(model: Any) -> str | None:
    for layer in getattr(model, "layers", []):
        if type(layer).__name__ in _WEIGHTED:
            return str(layer.name)
    return None
