"""N02/N03 stay silent after a never-trained BatchNormalization called in inference mode.

Such a layer (moving mean 0, variance 1) passes its input through unchanged,
so what follows sees activations of a scale training never produces (training
normalizes with the batch's statistics).  This is what made EfficientNetV2L
with ``weights=None`` report 40-51 saturated squeeze-and-excitation sigmoids.
"""

from __future__ import annotations

import keras
import numpy as np

import tfnb_debug


def bn_then_sigmoid() -> keras.Model:
    # the Dense before BatchNormalization gives values with a std in the hundreds
    big = keras.initializers.RandomNormal(stddev=50.0, seed=0)
    inputs = keras.Input((16,))
    h = keras.layers.Dense(64, kernel_initializer=big, name="wide")(inputs)
    h = keras.layers.BatchNormalization(name="bn")(h)
    h = keras.layers.Dense(32, activation="sigmoid", name="gate")(h)
    h = keras.layers.Dense(32, activation="relu", name="act")(h)
    return keras.Model(inputs, keras.layers.Dense(2, name="head")(h), name="m")


X = np.random.default_rng(0).normal(size=(16, 16)).astype("float32")


def test_untrained_batchnorm_in_inference_mode_silences_n03() -> None:
    model = bn_then_sigmoid()
    # training: BatchNormalization normalizes, the gate is healthy (the ground truth)
    trained_mode = tfnb_debug.trace_shapes(model, X, training=True)
    gate = next(c for c in trained_mode.calls if c.name == "gate")
    assert gate.stats is not None and (gate.stats.saturated_fraction or 0) < 0.5
    assert trained_mode.codes() == []
    # inference: the idle BatchNormalization passes std ~200 through; before the
    # guard this reported N03 at 'gate', which training never sees
    inference = tfnb_debug.trace_shapes(model, X)
    gate = next(c for c in inference.calls if c.name == "gate")
    assert gate.stats is not None and (gate.stats.saturated_fraction or 0) > 0.9
    assert inference.codes() == []


def test_n03_still_fires_where_batchnorm_normalizes() -> None:
    # BatchNormalization gets unit-scale data, so it is no excuse: the gate's own
    # oversized kernel saturates it in training too, and N03 reports it
    big = keras.initializers.RandomNormal(stddev=50.0, seed=0)
    inputs = keras.Input((16,))
    h = keras.layers.BatchNormalization(name="bn")(inputs)
    h = keras.layers.Dense(32, activation="sigmoid", kernel_initializer=big, name="gate")(h)
    model = keras.Model(inputs, keras.layers.Dense(2, name="head")(h), name="m")
    assert tfnb_debug.trace_shapes(model, X).codes() == ["N03"]
    assert tfnb_debug.trace_shapes(model, X, training=True).codes() == ["N03"]
