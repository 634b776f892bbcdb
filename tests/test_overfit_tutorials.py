"""%tfoverfit on correct tutorial models: a model too small for its sample, a model that takes raw text."""

from __future__ import annotations

import keras
import numpy as np
import pytest
import tensorflow as tf
from IPython.core.error import UsageError
from IPython.core.interactiveshell import InteractiveShell

from tests._support import run_magic
from tfnb_debug import overfit_small_batch

RNG = np.random.default_rng(0)
X = RNG.normal(size=(16, 4)).astype("float32")
NOISE = RNG.normal(size=(16, 3)).astype("float32")  # targets nothing can predict


def small_regression() -> keras.Model:
    # 4 inputs -> 3 outputs: 15 trainable parameters
    model = keras.Sequential([keras.Input((4,)), keras.layers.Dense(3)])
    model.compile(keras.optimizers.Adam(0.1), "mse")
    return model


def test_more_target_values_than_parameters_is_capacity_not_a_bug() -> None:
    report = overfit_small_batch(small_regression(), (X, NOISE), plot=False)
    assert not report.memorized
    text = report.to_text()
    assert "hold 48 target values" in text and "15 trainable parameters" in text
    assert "not a sign of a bug" in text and "--samples 5 or fewer" in text
    assert "try a larger model" not in text and "check the labels" not in text
    # the same model on as many examples as its capacity allows memorizes them
    fits = overfit_small_batch(small_regression(), (X[:4], NOISE[:4]), plot=False)
    assert fits.memorized, fits.to_text()
    assert "not a sign of a bug" not in fits.to_text()


def test_a_linear_model_over_whole_windows_cannot_fit_even_one() -> None:
    # the time-series tutorial's linear model on 24-step windows: 24 targets per example
    windows = RNG.normal(size=(16, 24, 19)).astype("float32")
    targets = RNG.normal(size=(16, 24, 1)).astype("float32")
    linear = keras.Sequential([keras.Input((24, 19)), keras.layers.Dense(1)])  # 20 parameters
    linear.compile(keras.optimizers.Adam(0.1), "mse")
    text = overfit_small_batch(linear, (windows, targets), steps=20, plot=False).to_text()
    assert "hold 384 target values" in text and "20 trainable parameters" in text
    assert "even one example holds 24 target values" in text and "--samples" not in text


def text_model() -> tuple[keras.Model, tf.data.Dataset]:
    """The text-classification tutorial's export model: TextVectorization, the model, a sigmoid."""
    words = np.array(["good", "bad", "movie", "plot", "great", "awful", "actor", "scene"])
    texts = np.array([" ".join(RNG.choice(words, 6)) for _ in range(32)])
    labels = RNG.integers(0, 2, 32).astype("int32")
    raw_train_ds = tf.data.Dataset.from_tensor_slices((texts, labels)).batch(8)
    vectorize = keras.layers.TextVectorization(max_tokens=20, output_sequence_length=6)
    vectorize.adapt(texts)
    inner = keras.Sequential(
        [
            keras.layers.Embedding(21, 4),
            keras.layers.GlobalAveragePooling1D(),
            keras.layers.Dense(1),
        ]
    )
    export_model = keras.Sequential([vectorize, inner, keras.layers.Activation("sigmoid")])
    export_model.compile(
        loss=keras.losses.BinaryCrossentropy(from_logits=False),
        optimizer="adam",
        metrics=["accuracy"],
    )
    export_model.evaluate(raw_train_ds.take(1), verbose=0)  # builds it, as the tutorial does
    return export_model, raw_train_ds


def test_a_model_that_takes_strings_trains_on_its_raw_text(shell: InteractiveShell) -> None:
    export_model, raw_train_ds = text_model()
    before = [w.numpy().copy() for w in export_model.weights]
    shell.user_ns.update(export_model=export_model, raw_train_ds=raw_train_ds)
    shown = run_magic(shell, "%tfoverfit -q -o export_model raw_train_ds --steps 5")
    report = shown.result
    assert report is not None and report.samples == 16 and report.steps == 5
    assert np.isfinite(report.initial_loss) and np.isfinite(report.final_loss)
    assert all(
        np.array_equal(a, w.numpy()) for a, w in zip(before, export_model.weights, strict=True)
    )


def test_data_the_model_cannot_take_is_a_one_line_usage_error(shell: InteractiveShell) -> None:
    model = small_regression()
    shell.user_ns.update(small=model, wrong_xy=(np.zeros((8, 5), "float32"), NOISE[:8]))
    with pytest.raises(UsageError, match="cannot take DATA's first 4 examples.*expected axis -1"):
        run_magic(shell, "%tfoverfit small wrong_xy --steps 2 --samples 4")


def target_values(report: object) -> int:
    rows = dict(report.tables[0].rows)  # type: ignore[attr-defined]
    return int(rows["target values in the examples"])


def test_target_values_count_every_position_of_a_sequence_or_mask() -> None:
    # next-token prediction: 16 sequences of 100 ids, one class id per position
    ids = RNG.integers(0, 20, (16, 101)).astype("int64")
    tokens = keras.Sequential(
        [keras.Input((100,), dtype="int64"), keras.layers.Embedding(20, 4), keras.layers.Dense(20)]
    )
    tokens.compile("adam", keras.losses.SparseCategoricalCrossentropy(from_logits=True))
    report = overfit_small_batch(tokens, (ids[:, :-1], ids[:, 1:]), steps=2, plot=False)
    assert target_values(report) == 16 * 100, report.to_text()
    # segmentation: a class id per pixel of a 16x16 mask
    images = RNG.random((16, 16, 16, 3)).astype("float32")
    masks = RNG.integers(0, 3, (16, 16, 16, 1)).astype("int64")
    pixels = keras.Sequential([keras.Input((16, 16, 3)), keras.layers.Conv2D(3, 1)])
    pixels.compile("adam", keras.losses.SparseCategoricalCrossentropy(from_logits=True))
    report = overfit_small_batch(pixels, (images, masks), steps=2, plot=False)
    assert target_values(report) == 16 * 16 * 16, report.to_text()


def test_target_values_of_one_class_per_example_stay_one_each() -> None:
    labels = RNG.integers(0, 3, 16)
    for loss, y in (
        ("sparse_categorical_crossentropy", labels),
        ("categorical_crossentropy", np.eye(3, dtype="float32")[labels]),  # one-hot rows
    ):
        model = keras.Sequential([keras.Input((4,)), keras.layers.Dense(3, "softmax")])
        model.compile("adam", loss)
        report = overfit_small_batch(model, (X, y), steps=2, plot=False)
        assert target_values(report) == 16, (loss, report.to_text())


def separable() -> tuple[np.ndarray, np.ndarray, keras.Model]:
    y = (X[:, 0] > 0).astype("int64")
    model = keras.Sequential([keras.Input((4,)), keras.layers.Dense(2)])
    model.compile(
        keras.optimizers.Adam(0.1), keras.losses.SparseCategoricalCrossentropy(from_logits=True)
    )
    return X, y, model


def test_a_model_that_already_fits_the_examples_is_not_said_to_memorize_them() -> None:
    x, y, model = separable()
    model.fit(x, y, epochs=100, verbose=0)  # trained: every example right before the check
    assert np.all(model.predict(x, verbose=0).argmax(-1) == y)
    before = [v.numpy().tobytes() for v in model.variables]
    report = overfit_small_batch(model, (x, y), plot=False)
    assert report.already and report.steps == 0 and report.losses == ()
    assert report.summary[0].startswith("ALREADY FIT"), report.summary[0]
    assert "in 2 steps" not in report.to_text() and "yes:" not in report.to_text()
    assert "untrained copy" in report.summary[0]
    assert [v.numpy().tobytes() for v in model.variables] == before


def test_an_untrained_model_still_memorizes_in_its_steps() -> None:
    x, y, model = separable()
    report = overfit_small_batch(model, (x, y), plot=False)
    assert report.memorized and not report.already and report.steps >= 1, report.to_text()
    assert report.summary[0].startswith("yes:") and "before training)" in report.summary[0]
