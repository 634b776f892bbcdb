"""P10 counts only the BatchNormalization layers that learn statistics when the model trains.

The transfer-learning tutorial calls its frozen base with ``training=False``:
its BatchNormalization layers run in inference mode and never see the small last batch.
"""

from __future__ import annotations

import keras
import numpy as np
import tensorflow as tf
from IPython.core.interactiveshell import InteractiveShell

from tests._support import run_magic
from tfnb_debug import inspect_pipeline
from tfnb_debug.collect.batchnorm_training import batchnorm_modes

X = np.random.default_rng(0).uniform(0, 1, (50, 8, 8, 3)).astype("float32")
Y = np.arange(50, dtype="int32") % 2


def base_model() -> keras.Model:
    inputs = keras.Input((8, 8, 3))
    x = keras.layers.Conv2D(4, 3, name="conv")(inputs)
    x = keras.layers.BatchNormalization(name="bn")(x)
    return keras.Model(inputs, keras.layers.ReLU()(x), name="base")


def transfer_model(*, frozen: bool, training_arg: bool | None) -> keras.Model:
    base = base_model()
    base.trainable = not frozen
    inputs = keras.Input((8, 8, 3))
    x = base(inputs) if training_arg is None else base(inputs, training=training_arg)
    x = keras.layers.GlobalAveragePooling2D()(x)
    model = keras.Model(inputs, keras.layers.Dense(1, name="head")(x))
    model.compile("adam", keras.losses.BinaryCrossentropy(from_logits=True))
    return model


def partial_batches() -> tf.data.Dataset:
    # 50 examples in batches of 32: each epoch ends with 18
    return tf.data.Dataset.from_tensor_slices((X, Y)).shuffle(50).batch(32).prefetch(1)


def p10(model: keras.Model) -> list[str]:
    report = inspect_pipeline(partial_batches(), model=model, throughput=False, augmentation=False)
    return [f.message for f in report.findings if f.code == "P10"]


def test_which_batchnorm_layers_train() -> None:
    modes = batchnorm_modes(transfer_model(frozen=True, training_arg=False))
    assert modes.training == () and modes.inference == (("base/bn", "frozen (trainable=False)"),)
    modes = batchnorm_modes(transfer_model(frozen=False, training_arg=False))
    assert modes.training == ()
    assert modes.inference == (("base/bn", "called with training=False (base)"),)
    assert batchnorm_modes(transfer_model(frozen=False, training_arg=None)).training == ("base/bn",)


def test_a_base_called_with_training_false_or_frozen_is_silent(shell: InteractiveShell) -> None:
    shell.user_ns.update(tl_model=transfer_model(frozen=True, training_arg=False))
    shell.user_ns.update(tl_ds=partial_batches())
    shown = run_magic(shell, "%tfpipeline -q -o tl_ds --model tl_model --no-timing")
    assert shown.result is not None and "P10" not in shown.result.codes()
    # fine-tuning: the base is trainable again, but still called with training=False
    assert p10(transfer_model(frozen=False, training_arg=False)) == []
    # frozen without the call argument: Keras 3 runs a frozen BatchNormalization in inference mode
    assert p10(transfer_model(frozen=True, training_arg=None)) == []


def test_a_batchnorm_that_trains_still_gets_p10() -> None:
    messages = p10(transfer_model(frozen=False, training_arg=None))
    assert len(messages) == 1
    assert "18 of 32" in messages[0] and "base/bn" in messages[0]
