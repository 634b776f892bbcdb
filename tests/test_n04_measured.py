"""N04 judges what the first weighted layer receives: a model that scales its own input is not flagged.

The transfer-learning tutorial calls ``mobilenet_v2.preprocess_input`` inside a
Functional model (``x / 127.5 - 1`` as TrueDivide/Subtract operations) and feeds
it raw 0..255 images: correct code, where ``Rescaling(1/255)`` would scale twice.
"""

from __future__ import annotations

import re

import keras
import numpy as np
import pytest
import tensorflow as tf
from IPython.core.interactiveshell import InteractiveShell

from tests._support import run_magic
from tfnb_debug import lint_model, overfit_small_batch
from tfnb_debug.collect.model_entry import entry_range

RAW = np.random.default_rng(0).uniform(0, 255, (8, 96, 96, 3)).astype("float32")
LABELS = np.array([0, 1] * 4, dtype="int32")


@pytest.fixture(scope="module")
def preprocessing_model() -> keras.Model:
    """The transfer-learning tutorial's model: preprocess_input, a frozen base, a Dense head."""
    base = keras.applications.MobileNetV2(input_shape=(96, 96, 3), include_top=False, weights=None)
    base.trainable = False
    inputs = keras.Input((96, 96, 3))
    x = keras.applications.mobilenet_v2.preprocess_input(inputs)
    x = base(x, training=False)
    x = keras.layers.GlobalAveragePooling2D()(x)
    x = keras.layers.Dropout(0.2)(x)
    model = keras.Model(inputs, keras.layers.Dense(1)(x))
    model.compile("adam", keras.losses.BinaryCrossentropy(from_logits=True))
    return model


def raw_conv_model() -> keras.Model:
    """Raw pixels straight into a Conv2D: N04 is true here."""
    inputs = keras.Input((96, 96, 3))
    x = keras.layers.Conv2D(4, 3, strides=4, name="stem")(inputs)
    x = keras.layers.GlobalAveragePooling2D()(x)
    model = keras.Model(inputs, keras.layers.Dense(1)(x))
    model.compile("adam", keras.losses.BinaryCrossentropy(from_logits=True))
    return model


def dataset() -> tf.data.Dataset:
    return tf.data.Dataset.from_tensor_slices((RAW, LABELS)).batch(4).prefetch(1)


def test_the_values_entering_the_first_weighted_layer_are_measured(
    preprocessing_model: keras.Model,
) -> None:
    entry = entry_range(preprocessing_model, RAW)
    assert entry is not None
    # the nested base is opened: its Conv1 receives preprocess_input's [-1, 1]
    assert entry.layer.endswith("/Conv1") and entry.kind == "Conv2D"
    assert -1.0 <= entry.minimum < 0 < entry.maximum <= 1.0
    # Keras names these operation layers from a process-wide counter ("true_divide_1" after
    # another test made one): the names without the counter's suffix
    assert tuple(re.sub(r"_\d+$", "", name) for name in entry.before) == (
        "true_divide",
        "subtract",
    )
    raw = entry_range(raw_conv_model(), RAW)
    assert raw is not None and raw.layer == "stem" and raw.maximum > 250 and raw.before == ()


def test_preprocess_input_inside_the_model_is_not_n04(
    shell: InteractiveShell, preprocessing_model: keras.Model
) -> None:
    assert "N04" not in lint_model(preprocessing_model, data=(RAW, LABELS)).codes()
    shell.user_ns.update(tm=preprocessing_model, tds=dataset())
    shown = run_magic(shell, "%tfpipeline -q -o tds --model tm --no-timing")
    assert shown.result is not None and "N04" not in shown.result.codes()
    shown = run_magic(shell, "%tflint -q -o tm --data tds")
    assert shown.result is not None and "N04" not in shown.result.codes()


def test_raw_pixels_into_a_conv_are_n04_with_the_measured_range(shell: InteractiveShell) -> None:
    model = raw_conv_model()
    shell.user_ns.update(rm=model, tds=dataset())
    shown = run_magic(shell, "%tfpipeline -q -o tds --model rm --no-timing")
    assert shown.result is not None and shown.result.codes() == ["N04"]
    text = shown.result.to_text()
    assert "stem (Conv2D), receives values up to 25" in text
    assert "straight from the input" in text
    shown = run_magic(shell, "%tflint -q -o rm --data tds")
    assert shown.result is not None and "N04" in shown.result.codes()
    # a normalization as the first weighted layer takes the raw values by design
    bn_first = keras.Sequential(
        [keras.Input((96, 96, 3)), keras.layers.BatchNormalization(), keras.layers.Conv2D(4, 3)]
    )
    assert "N04" not in lint_model(bn_first, data=(RAW, LABELS)).codes()


@pytest.mark.slow
def test_the_overfit_explanation_has_no_n04_for_preprocess_input(
    preprocessing_model: keras.Model,
) -> None:
    report = overfit_small_batch(preprocessing_model, (RAW, LABELS), steps=2, plot=False)
    assert not report.memorized  # two steps on a frozen base: the lint explanation runs
    assert "N04" not in report.codes(), report.to_text()
    raw = overfit_small_batch(raw_conv_model(), (RAW, LABELS), steps=2, plot=False)
    assert not raw.memorized and "N04" in raw.codes()
