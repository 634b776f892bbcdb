"""S08 and M02/M03 from what really reaches the loss, in fit, a custom train_step and a tape loop.

Each finding has a clean twin (the same model with the bug fixed) that stays silent.
"""

from __future__ import annotations

import pytest
from IPython.core.interactiveshell import InteractiveShell

from tests._support import REGRESSION_TRAIN_STEP, run_magic
from tfnb_debug.features.gradients import GradientReport

DATA = """
import numpy as np, keras, tensorflow as tf
rng = np.random.default_rng(0)
x = rng.normal(size=(64, 4)).astype("float32")
y = x @ np.array([1.0, -2.0, 0.5, 3.0], dtype="float32")   # shape (64,): a regression target
labels = rng.integers(0, 3, 64)
onehot = np.eye(3, dtype="float32")[labels]
def regressor(name="reg"):
    return keras.Sequential([keras.Input((4,)), keras.layers.Dense(8, activation="relu"),
                             keras.layers.Dense(1, name="out")], name=name)
def classifier(units=3, activation=None, name="clf"):
    return keras.Sequential([keras.Input((4,)), keras.layers.Dense(8, activation="relu"),
                             keras.layers.Dense(units, activation=activation, name="out")],
                            name=name)
"""

TAPE_LOOP = """
model = regressor(); opt = keras.optimizers.Adam(1e-2)
for start in range(0, 64, 16):
    xb, yb = x[start:start + 16], y[start:start + 16]{reshape}
    with tf.GradientTape() as tape:
        pred = model(xb, training=True)
        loss = tf.reduce_mean(tf.square(yb - pred))
    grads = tape.gradient(loss, model.trainable_variables)
    opt.apply_gradients(zip(grads, model.trainable_variables))
"""

TRAIN_STEP = REGRESSION_TRAIN_STEP + "model.fit(x, y, batch_size=16, epochs=1, verbose=0)" + "\n"

LOSS_CLASS = """
class PlainMSE(keras.losses.Loss):
    def call(self, y_true, y_pred):
        return keras.ops.square(y_true{reshape} - y_pred)
model = regressor()
model.compile("adam", PlainMSE(name="plain_mse"))
model.fit(x, y, batch_size=16, epochs=1, verbose=0)
"""


def _grad(shell: InteractiveShell, cell: str) -> GradientReport:
    shell.run_cell(DATA)
    report = run_magic(shell, "%%tfgrad -q -o", cell=cell).result
    assert isinstance(report, GradientReport)
    return report


def _one(report: GradientReport, code: str) -> str:
    found = [f for f in report.findings if f.code == code]
    assert len(found) == 1, report.to_text()
    return found[0].to_text()


@pytest.mark.slow
def test_s08_in_a_tape_loop_names_the_line_and_both_shapes(shell: InteractiveShell) -> None:
    text = _one(_grad(shell, TAPE_LOOP.format(reshape="")), "S08")
    assert "(16,) and (16, 1) into (16, 16)" in text
    assert "Cell In[" in text and "loss = tf.reduce_mean(tf.square(yb - pred))" in text
    assert "4 call(s)" in text


@pytest.mark.slow
def test_s08_clean_twin_tape_loop(shell: InteractiveShell) -> None:
    report = _grad(shell, TAPE_LOOP.format(reshape="; yb = yb.reshape(-1, 1)"))
    assert "S08" not in report.codes()


@pytest.mark.slow
def test_s08_in_a_custom_train_step(shell: InteractiveShell) -> None:
    text = _one(_grad(shell, TRAIN_STEP.format(reshape="")), "S08")
    assert "in train_step: loss = keras.ops.mean(keras.ops.square(yb - pred))" in text
    assert "(16,) and (16, 1) into (16, 16)" in text and "while tracing" in text


@pytest.mark.slow
def test_s08_clean_twin_train_step(shell: InteractiveShell) -> None:
    report = _grad(shell, TRAIN_STEP.format(reshape="; yb = keras.ops.reshape(yb, (-1, 1))"))
    assert "S08" not in report.codes()


@pytest.mark.slow
def test_s08_in_a_keras_loss_class_passed_to_compile(shell: InteractiveShell) -> None:
    text = _one(_grad(shell, LOSS_CLASS.format(reshape="")), "S08")
    assert "inside PlainMSE 'plain_mse'" in text


@pytest.mark.slow
def test_s08_clean_twin_loss_class(shell: InteractiveShell) -> None:
    report = _grad(shell, LOSS_CLASS.format(reshape="[:, None]"))
    assert "S08" not in report.codes()


CE_LOOP = """
model = classifier(units={units}); opt = keras.optimizers.Adam(1e-2)
target = {target}
for start in range(0, 64, 16):
    with tf.GradientTape() as tape:
        out = model(x[start:start + 16], training=True)
        loss = keras.ops.mean(keras.losses.{loss}(target[start:start + 16], out{logits}))
    grads = tape.gradient(loss, model.trainable_variables)
    opt.apply_gradients(zip(grads, model.trainable_variables))
"""


@pytest.mark.slow
def test_m02_logits_reach_a_probability_loss_in_a_tape_loop(shell: InteractiveShell) -> None:
    cell = CE_LOOP.format(units=3, target="onehot", loss="categorical_crossentropy", logits="")
    text = _one(_grad(shell, cell), "M02")
    assert "from_logits=False but received values from" in text
    assert "outside [0, 1]" in text and "categorical_crossentropy(target" in text


@pytest.mark.slow
def test_m02_clean_twin_from_logits_true(shell: InteractiveShell) -> None:
    cell = CE_LOOP.format(
        units=3, target="onehot", loss="categorical_crossentropy", logits=", from_logits=True"
    )
    assert "M02" not in _grad(shell, cell).codes()


@pytest.mark.slow
def test_m03_categorical_over_one_unit_in_a_tape_loop(shell: InteractiveShell) -> None:
    cell = CE_LOOP.format(
        units=1,
        target="(labels > 0).astype('float32')[:, None]",
        loss="categorical_crossentropy",
        logits=", from_logits=True",
    )
    text = _one(_grad(shell, cell), "M03")
    assert "class axis of size 1" in text and "always 0" in text


@pytest.mark.slow
def test_m03_clean_twin_binary_over_one_unit(shell: InteractiveShell) -> None:
    cell = CE_LOOP.format(
        units=1,
        target="(labels > 0).astype('float32')[:, None]",
        loss="binary_crossentropy",
        logits=", from_logits=True",
    )
    report = _grad(shell, cell)
    assert {"M02", "M03"}.isdisjoint(report.codes())


@pytest.mark.slow
def test_m03_softmax_over_one_unit_in_a_custom_loop(shell: InteractiveShell) -> None:
    cell = CE_LOOP.format(
        units=1,
        target="(labels > 0).astype('float32')[:, None]",
        loss="binary_crossentropy",
        logits="",
    ).replace("classifier(units=1)", "classifier(units=1, activation='softmax')")
    text = _one(_grad(shell, cell), "M03")
    assert "layer 'out'" in text and "always outputs 1.0" in text


def test_watch_restores_everything_also_when_the_code_raises() -> None:
    import keras
    import numpy as np
    from keras.src.backend.tensorflow import nn as tf_nn
    from tensorflow.python.eager import context

    from tfnb_debug.collect.loss_watch import watch_losses

    before = {n: tf_nn.__dict__[n] for n in ("categorical_crossentropy", "binary_crossentropy")}
    callbacks = list(context.context().op_callbacks)
    with pytest.raises(KeyboardInterrupt), watch_losses():
        keras.losses.categorical_crossentropy(np.eye(2), np.eye(2) * 0.9 + 0.05)
        raise KeyboardInterrupt
    assert {n: tf_nn.__dict__[n] for n in before} == before
    assert list(context.context().op_callbacks) == callbacks


@pytest.mark.slow
def test_s08_silent_on_a_deliberate_pairwise_ranking_loss(shell: InteractiveShell) -> None:
    """RankNet-style: every prediction against every other one, on purpose (x[:, None] - x)."""
    cell = """
model = regressor(); opt = keras.optimizers.Adam(1e-2)
for start in range(0, 64, 16):
    xb, yb = x[start:start + 16], y[start:start + 16]
    with tf.GradientTape() as tape:
        s = tf.squeeze(model(xb, training=True), -1)          # (16,)
        diff = s[:, None] - s                                   # (16, 1) - (16,): pairwise
        target = tf.cast(yb[:, None] > yb, tf.float32)
        loss = tf.reduce_mean(tf.nn.sigmoid_cross_entropy_with_logits(target, diff))
    grads = tape.gradient(loss, model.trainable_variables)
    opt.apply_gradients(zip(grads, model.trainable_variables))
"""
    assert "S08" not in _grad(shell, cell).codes()


@pytest.mark.slow
def test_s08_under_tfcheck_with_its_clean_twin(shell: InteractiveShell) -> None:
    from tfnb_debug.features.check import CheckReport

    shell.run_cell(DATA)
    bad = run_magic(shell, "%%tfcheck -q -o", cell=TAPE_LOOP.format(reshape="")).result
    assert isinstance(bad, CheckReport)
    assert bad.codes() == ["S08"], bad.to_text()
    assert "what reaches the loss (S08, M02, M03)" in bad.to_text()
    clean = run_magic(
        shell, "%%tfcheck -q -o", cell=TAPE_LOOP.format(reshape="; yb = yb.reshape(-1, 1)")
    ).result
    assert clean.codes() == []
