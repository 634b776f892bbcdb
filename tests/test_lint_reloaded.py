"""%tflint --data on a trained model reloaded from disk: its optimizer has taken no step, but
its weights are trained, so P16 is checked; an untrained model still waits for training."""

from __future__ import annotations

from pathlib import Path

import keras
import numpy as np
import tensorflow as tf
from IPython.core.interactiveshell import InteractiveShell

from tests._support import run_magic
from tfnb_debug import lint_model
from tfnb_debug.collect.trained_weights import moved_from_initial

CHECK = "predictions vs the majority class"


def tabular() -> tuple[np.ndarray, np.ndarray]:
    """600 unscaled rows, 15% positives: a plain MLP collapses to the majority class on them."""
    rng = np.random.default_rng(0)
    x = rng.normal(size=(600, 6)).astype("float32")
    score = x[:, 0] + 0.5 * x[:, 1]
    y = (score > np.quantile(score, 0.85)).astype("int32")
    scale = np.array([1e4, 3e3, 50, 1e5, 7, 2e3], "float32")
    return x * scale + np.array([5e4, 0, 100, 2e5, 0, 1e3], "float32"), y


def mlp() -> keras.Model:
    keras.utils.set_random_seed(0)
    model = keras.Sequential(
        [
            keras.Input((6,)),
            keras.layers.Dense(32, activation="relu"),
            keras.layers.Dense(16, activation="relu"),
            keras.layers.Dense(1, activation="sigmoid", name="out"),
        ]
    )
    model.compile("sgd", "binary_crossentropy", metrics=["accuracy"])
    return model


def p16_row(report: object) -> str:
    (row,) = [r for r in report.checks if r[0] == "P16"]  # type: ignore[attr-defined]
    return str(row[2])


def test_p16_on_a_trained_model_reloaded_and_compiled_anew(
    tmp_path: Path, shell: InteractiveShell
) -> None:
    raw, y = tabular()
    trained = mlp()
    trained.fit(raw, y, epochs=8, batch_size=32, verbose=0)
    trained.save(tmp_path / "model.keras")
    # reloaded for evaluation without its training state, compiled again: a new optimizer
    reloaded = keras.models.load_model(tmp_path / "model.keras", compile=False)
    reloaded.compile("sgd", "binary_crossentropy", metrics=["accuracy"])
    assert int(reloaded.optimizer.iterations.numpy()) == 0
    shell.user_ns.update(model=reloaded, raw=raw, y=y)
    report = run_magic(shell, "%tflint model --data raw,y -o").result
    assert "P16" in report.codes(), report.to_text()
    row = p16_row(report)
    assert row.startswith("ran") and "out/bias (initial zeros) has moved" in row, row
    assert "has not trained yet" not in report.to_text()


def test_p16_on_a_model_trained_by_a_custom_loop_and_compiled_to_evaluate() -> None:
    raw, y = tabular()
    model = mlp()
    optimizer = keras.optimizers.SGD()  # the loop's own optimizer, not the compiled one
    loss = keras.losses.BinaryCrossentropy()
    data = tf.data.Dataset.from_tensor_slices((raw, y.astype("float32")[:, None])).batch(32)
    for _ in range(8):
        for xb, yb in data:
            with tf.GradientTape() as tape:
                value = loss(yb, model(xb, training=True))
            grads = tape.gradient(value, model.trainable_variables)
            optimizer.apply_gradients(zip(grads, model.trainable_variables, strict=True))
    assert int(model.optimizer.iterations.numpy()) == 0
    report = lint_model(model, data=(raw, y))
    assert "P16" in report.codes(), report.to_text()


def test_an_untrained_model_still_waits_for_training() -> None:
    raw, y = tabular()
    model = mlp()
    assert moved_from_initial(model, "out") is None
    report = lint_model(model, data=(raw, y))
    assert "P16" not in report.codes()
    assert p16_row(report) == "not checked: the model has not trained yet"


def test_an_lstms_forget_bias_of_ones_is_no_evidence_of_training() -> None:
    model = keras.Sequential(
        [keras.Input((5, 3)), keras.layers.LSTM(4), keras.layers.Dense(2, name="head")]
    )
    assert moved_from_initial(model, "head") is None  # the head's bias: still zeros
    assert moved_from_initial(model) is None  # the LSTM's bias is [0, 1, 0, 0] by design
