"""%%tfcheck changes nothing the cell computes: the same model, data and seed train to the
same loss history and weights, bit for bit, as in the plain cell (CPU, deterministic)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import keras
import numpy as np
import pytest
import tensorflow as tf
from IPython.core.interactiveshell import InteractiveShell
from IPython.utils.capture import capture_output

from tests._support import run_magic
from tests.test_majority_class import _mlp, _tabular


def _dropout_batchnorm() -> keras.Model:
    keras.utils.set_random_seed(0)
    model = keras.Sequential(
        [
            keras.Input((6,)),
            keras.layers.Dense(16, activation="relu"),
            keras.layers.BatchNormalization(),
            keras.layers.Dropout(0.3),
            keras.layers.Dense(1, activation="sigmoid"),
        ]
    )
    model.compile("adam", "binary_crossentropy", metrics=["accuracy"])
    return model


def _masked_softmax() -> keras.Model:
    """Padded token ids: the embedding's mask reaches the pooling through the checked tensors."""
    keras.utils.set_random_seed(0)
    model = keras.Sequential(
        [
            keras.Input((10,), dtype="int32"),
            keras.layers.Embedding(20, 8, mask_zero=True),
            keras.layers.GlobalAveragePooling1D(),
            keras.layers.Dense(2, activation="softmax"),
        ]
    )
    model.compile("sgd", "sparse_categorical_crossentropy")
    return model


def _raw_softmax() -> keras.Model:
    """A softmax made by TensorFlow's own op: the loss finds its logits through the op."""
    keras.utils.set_random_seed(0)
    model = keras.Sequential(
        [keras.Input((6,)), keras.layers.Dense(2), keras.layers.Lambda(lambda t: tf.nn.softmax(t))]
    )
    model.compile("sgd", "sparse_categorical_crossentropy")
    return model


def _eager_sigmoid() -> keras.Model:
    """``run_eagerly`` (on the scaled inputs): the checked copies are eager tensors."""
    model = _mlp((8,))
    model.compile("sgd", "binary_crossentropy", run_eagerly=True)
    return model


def _train(shell: InteractiveShell, make: Callable[[], Any], data: str, magic: str | None) -> Any:
    model = make()
    shell.user_ns["model"] = model
    cell = f"history = model.fit({data}, y, epochs=4, batch_size=32, verbose=0)"
    if magic is None:
        with capture_output():
            assert shell.run_cell(cell).success
    else:
        run_magic(shell, magic, cell)
    return shell.user_ns["history"].history, [v.numpy() for v in model.weights]


@pytest.mark.slow
@pytest.mark.parametrize(
    ("make", "data"),
    [
        (_mlp, "raw"),
        (_dropout_batchnorm, "raw"),
        (_masked_softmax, "tokens"),
        (_raw_softmax, "raw"),
        (_eager_sigmoid, "x"),
    ],
    ids=["unscaled-sigmoid", "dropout-batchnorm", "masked-softmax", "raw-softmax", "eager"],
)
def test_tfcheck_trains_bit_for_bit_like_the_plain_cell(
    shell: InteractiveShell, make: Callable[[], Any], data: str
) -> None:
    x, raw, y = _tabular()
    tokens = np.random.default_rng(0).integers(1, 20, size=(600, 10))
    tokens[:, 6:] = 0
    shell.user_ns.update(x=x, raw=raw, y=y, tokens=tokens)
    plain_history, plain_weights = _train(shell, make, data, None)
    # twice: the second run uses the checked function kept from the first
    for _ in range(2):
        history, weights = _train(shell, make, data, "%%tfcheck -o --no-live")
        assert history == plain_history
        assert all(np.array_equal(a, b) for a, b in zip(weights, plain_weights, strict=True))
    if make is _mlp:  # the P16 repro: unscaled inputs, every prediction 0 in both cells
        assert history["accuracy"][-1] == pytest.approx(0.85, abs=0.005)
