"""Property: for random stacks of common layers, every row's output shape is what Keras computes.

Keras' own answer comes from a Functional model that exposes every layer's
output, called on the same batch; the parameter total must equal
``count_params()`` and the own-parameter column must sum to it.
"""

from __future__ import annotations

from typing import Any

import keras
import numpy as np
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tfnb_debug import trace_shapes

L = keras.layers

_IMAGE_LAYERS = st.sampled_from(["conv", "conv_valid", "pool", "bn", "relu", "dropout", "dwconv"])
_FLAT_LAYERS = st.sampled_from(["dense", "dense_relu", "bn", "ln", "dropout", "sigmoid"])


def image_layer(kind: str, size: int, i: int) -> tuple[Any, int]:
    if kind == "conv":
        return L.Conv2D(3 + i % 3, 3, padding="same", name=f"conv_{i}"), size
    if kind == "conv_valid" and size >= 4:
        return L.Conv2D(2, 3, padding="valid", name=f"convv_{i}"), size - 2
    if kind == "pool" and size >= 2:
        return L.MaxPooling2D(2, name=f"pool_{i}"), size // 2
    if kind == "dwconv":
        return L.DepthwiseConv2D(3, padding="same", name=f"dw_{i}"), size
    if kind == "bn":
        return L.BatchNormalization(name=f"bn_{i}"), size
    if kind == "relu":
        return L.ReLU(name=f"relu_{i}"), size
    return L.Dropout(0.2, name=f"drop_{i}"), size


def flat_layer(kind: str, i: int, units: int) -> Any:
    return {
        "dense": lambda: L.Dense(units, name=f"dense_{i}"),
        "dense_relu": lambda: L.Dense(units, activation="relu", name=f"dense_relu_{i}"),
        "bn": lambda: L.BatchNormalization(name=f"fbn_{i}"),
        "ln": lambda: L.LayerNormalization(name=f"ln_{i}"),
        "dropout": lambda: L.Dropout(0.1, name=f"fdrop_{i}"),
        "sigmoid": lambda: L.Activation("sigmoid", name=f"sig_{i}"),
    }[kind]()


@settings(
    max_examples=12,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture],
)
@given(
    size=st.integers(4, 10),
    channels=st.integers(1, 3),
    image=st.lists(_IMAGE_LAYERS, min_size=0, max_size=4),
    flat=st.lists(st.tuples(_FLAT_LAYERS, st.integers(1, 6)), min_size=1, max_size=4),
    batch=st.integers(1, 3),
)
def test_rows_match_keras_shapes_and_params(
    size: int, channels: int, image: list[str], flat: list[tuple[str, int]], batch: int
) -> None:
    layers: list[Any] = []
    current = size
    for i, kind in enumerate(image):
        layer, current = image_layer(kind, current, i)
        layers.append(layer)
    layers.append(L.Flatten(name="flatten"))
    for i, (kind, units) in enumerate(flat):
        layers.append(flat_layer(kind, i, units))
    model = keras.Sequential([keras.Input((size, size, channels)), *layers], name="prop")
    x = np.random.default_rng(size).standard_normal((batch, size, size, channels))
    x = x.astype("float32")

    report = trace_shapes(model, x)

    probe = keras.Model(model.inputs[0], [layer.output for layer in model.layers])
    expected = [tuple(np.asarray(y).shape) for y in probe(x)]
    rows = [c for c in report.calls if c.parent is not None]
    assert [c.name for c in rows] == [layer.name for layer in model.layers]
    assert [c.outputs[0].shape for c in rows] == expected
    assert report.calls[0].outputs[0].shape == expected[-1]
    assert report.total_params == model.count_params()
    assert sum(c.params or 0 for c in report.calls) == model.count_params()
    assert all(c.status == "ok" for c in report.calls)
