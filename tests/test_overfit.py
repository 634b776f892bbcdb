"""%tfoverfit / overfit_small_batch: a copy learns, the user's model never changes."""

from __future__ import annotations

import keras
import numpy as np
import pytest
import tensorflow as tf
from IPython.core.error import UsageError
from IPython.core.interactiveshell import InteractiveShell

from tests._support import run_magic
from tfnb_debug.errors import TfnbDebugError
from tfnb_debug.overfit import OverfitThresholds, overfit_small_batch

RS = np.random.RandomState(0)
X = RS.rand(32, 8).astype("float32")
Y = RS.randint(0, 3, 32)


def classifier(*, from_logits: bool = False, optimizer: object = None) -> keras.Model:
    model = keras.Sequential(
        [
            keras.Input((8,)),
            keras.layers.Dense(32, activation="relu"),
            keras.layers.Dense(3, activation="softmax"),
        ]
    )
    model.compile(
        optimizer=optimizer or keras.optimizers.Adam(1e-2),
        loss=keras.losses.SparseCategoricalCrossentropy(from_logits=from_logits),
    )
    model.fit(X, Y, epochs=1, batch_size=16, verbose=0)  # optimizer state exists
    return model


def state(model: keras.Model) -> list[bytes]:
    return [v.numpy().tobytes() for v in [*model.variables, *model.optimizer.variables]]


def test_memorizes_and_leaves_the_model_untouched() -> None:
    keras.utils.set_random_seed(0)  # 60 steps were not enough for every initialisation
    model = classifier()
    before = state(model)
    train_function = model.train_function
    report = overfit_small_batch(model, (X, Y), samples=16, steps=150)
    assert report.memorized and report.accuracy == 1.0
    assert report.samples == 16 and report.steps == 150 and len(report.losses) == 150
    assert report.final_loss < report.initial_loss
    assert report.findings == ()
    assert state(model) == before
    assert model.train_function is train_function
    assert "data:image/png;base64," in report.to_html()


def test_cannot_memorize_and_points_to_lint_findings() -> None:
    model = classifier(from_logits=True, optimizer=keras.optimizers.SGD(1e-6))
    before = state(model)
    ds = tf.data.Dataset.from_tensor_slices((X, Y)).batch(8)
    report = overfit_small_batch(model, ds, samples=16, steps=10, plot=False)
    assert not report.memorized
    assert report.samples == 16
    assert "M01" in report.codes()
    assert "NO:" in report.summary[0]
    assert state(model) == before


def test_regression_uses_the_loss_ratio_and_unbatched_datasets_work() -> None:
    model = keras.Sequential(
        [keras.Input((8,)), keras.layers.Dense(32, "tanh"), keras.layers.Dense(1)]
    )
    model.compile(optimizer=keras.optimizers.Adam(3e-2), loss="mse")
    target = X[:, :1] * 2 - 1
    ds = tf.data.Dataset.from_tensor_slices((X, target))  # not batched
    report = overfit_small_batch(model, ds, samples=8, steps=80, plot=False)
    assert report.accuracy is None and report.samples == 8
    assert report.memorized, report.to_text()
    strict = overfit_small_batch(
        model, ds, samples=8, steps=2, plot=False, thresholds=OverfitThresholds(loss_ratio=1e-9)
    )
    assert not strict.memorized


def test_augmentation_is_switched_off_in_the_copy_only() -> None:
    model = keras.Sequential(
        [
            keras.Input((4, 4, 1)),
            keras.layers.RandomFlip(name="flip"),
            keras.layers.Flatten(),
            keras.layers.Dense(2, activation="softmax"),
        ]
    )
    model.compile(optimizer="adam", loss="sparse_categorical_crossentropy")
    images = RS.rand(8, 4, 4, 1).astype("float32")
    before = state(model)
    report = overfit_small_batch(model, (images, Y[:8] % 2), samples=8, steps=3, plot=False)
    assert report.augmentation_removed == ("flip",)
    assert isinstance(model.layers[0], keras.layers.RandomFlip)
    assert state(model) == before


def test_bad_input() -> None:
    model = keras.Sequential([keras.Input((8,)), keras.layers.Dense(1)])
    with pytest.raises(TfnbDebugError, match="not compiled"):
        overfit_small_batch(model, (X, Y))
    model.compile(optimizer="sgd", loss="mse")
    with pytest.raises(TfnbDebugError, match=r"\(x, y\)"):
        overfit_small_batch(model, X)
    with pytest.raises(TfnbDebugError, match="positive"):
        overfit_small_batch(model, (X, Y), steps=0)


def test_magic(shell: InteractiveShell) -> None:
    shell.user_ns.update(om=classifier(), ox=X, oy=Y)
    shown = run_magic(shell, "%tfoverfit -q -o om (ox,oy) --samples 8 --steps 5")
    assert shown.result is not None and shown.result.samples == 8
    assert shown.result.steps == 5 and shown.outputs == []
    shown = run_magic(shell, "%tfoverfit om (ox,oy) --samples 4 --steps 2")
    assert "overfit check" in shown.text
    with pytest.raises(UsageError, match="not compiled"):
        shell.user_ns["raw"] = keras.Sequential([keras.Input((8,)), keras.layers.Dense(1)])
        run_magic(shell, "%tfoverfit raw (ox,oy)")
