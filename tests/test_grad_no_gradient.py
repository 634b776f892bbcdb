"""A loss that cannot be differentiated: G04 names it, the partial report stays, the traceback is the user's."""

from __future__ import annotations

import os
from types import TracebackType
from typing import Any

import keras
import numpy as np
import pytest
import tensorflow as tf
from IPython.core.interactiveshell import InteractiveShell
from IPython.utils.capture import capture_output
from keras.src.optimizers.base_optimizer import BaseOptimizer

import tfnb_debug
from tfnb_debug.collect.gradients import active_capture

APPLY = BaseOptimizer.__dict__["apply"]
PACKAGE = os.path.dirname(tfnb_debug.__file__)

SETUP = """
import numpy as np, keras, tensorflow as tf
rng = np.random.default_rng(0)
x = rng.normal(size=(32, 4)).astype("float32"); y = rng.integers(0, 3, 32)

def rounded_loss(y_true, y_pred):
    guess = tf.cast(tf.argmax(y_pred, axis=-1), "float32")
    return tf.reduce_mean(tf.square(tf.cast(y_true, "float32") - guess))

model = keras.Sequential([keras.Input((4,)), keras.layers.Dense(8, activation="relu", name="d1"),
                          keras.layers.Dense(3, name="out")], name="nb_model")
"""
# four good steps, then a loss without a gradient
CELL = """
model.compile("adam", keras.losses.SparseCategoricalCrossentropy(from_logits=True))
model.fit(x, y, batch_size=8, verbose=0)
model.compile("adam", rounded_loss)
model.fit(x, y, batch_size=8, verbose=0)
"""


def frames(tb: TracebackType | None) -> list[tuple[str, str, int]]:
    """(file, function, line) of each frame; notebook cells are all called '<cell>'."""
    out = []
    while tb is not None:
        name = tb.tb_frame.f_code.co_filename
        out.append(
            (
                "<cell>" if name.startswith("<ipython-input") else name,
                tb.tb_frame.f_code.co_name,
                tb.tb_lineno,
            )
        )
        tb = tb.tb_next
    return out


def after_last_cell(tb: TracebackType | None) -> list[tuple[str, str, int]]:
    """The frames below the user's cell: what the user's code called."""
    listed = frames(tb)
    last = max(i for i, f in enumerate(listed) if f[0] == "<cell>")
    return listed[last + 1 :]


def run_cell(shell: InteractiveShell, code: str) -> tuple[Any, list[dict[str, Any]]]:
    with capture_output() as captured:
        result = shell.run_cell(code, store_history=False)
    return result, [o.data for o in captured.outputs]


@pytest.fixture
def nb(shell: InteractiveShell) -> InteractiveShell:
    result = shell.run_cell(SETUP)
    assert result.success
    return shell


@pytest.mark.slow
@pytest.mark.parametrize("options", ["", "--mem"])
def test_tfgrad_cell_with_a_non_differentiable_loss(nb: InteractiveShell, options: str) -> None:
    plain, plain_out = run_cell(nb, CELL)
    assert isinstance(plain.error_in_exec, ValueError)
    expected = after_last_cell(plain.error_in_exec.__traceback__)
    assert expected[-1][1] == "_filter_empty_gradients"  # Keras keeps the raising frame

    result, outputs = run_cell(nb, f"%%tfgrad {options}\n" + CELL)
    err = result.error_in_exec
    assert isinstance(err, ValueError) and str(err) == "No gradients provided for any variable."
    # the user's traceback below their cell is the one they get without the extension
    assert after_last_cell(err.__traceback__) == expected
    # and the only tfnb_debug frames (the magic's, above the cell) are hidden from IPython
    listed = []
    tb = err.__traceback__
    while tb is not None:
        if tb.tb_frame.f_code.co_filename.startswith(PACKAGE):
            listed.append(tb.tb_frame.f_code.co_name)
            assert tb.tb_frame.f_locals.get("__tracebackhide__") is True
        tb = tb.tb_next
    assert listed == ["tfgrad", "run_user_code"]
    # the partial report of the four good steps, then G04 naming the loss
    text = "\n".join(o.get("text/plain", "") for o in outputs)
    assert "partial report: the cell failed after 4 recorded step(s)" in text
    g04 = [line for line in text.splitlines() if line.startswith("G04 ")]
    assert len(g04) == 1
    assert (
        "no trainable variable of model 'nb_model' received a gradient (all 4 are None)" in g04[0]
    )
    assert "the loss 'rounded_loss' is not differentiable" in g04[0]
    # the report already explains the error: no second box from the automatic diagnosis
    assert not any("tfnb-explain" in o.get("text/html", "") for o in outputs)
    assert BaseOptimizer.__dict__["apply"] is APPLY and active_capture() is None


@pytest.mark.slow
def test_plain_cell_with_a_non_differentiable_loss_gets_g04(nb: InteractiveShell) -> None:
    result, outputs = run_cell(
        nb, 'model.compile("adam", rounded_loss)\nmodel.fit(x, y, verbose=0)'
    )
    assert isinstance(result.error_in_exec, ValueError)
    boxes = [o["text/plain"] for o in outputs if "tfnb-explain" in o.get("text/html", "")]
    assert len(boxes) == 1
    g04 = [line for line in boxes[0].splitlines() if line.startswith("G04 ")]
    assert len(g04) == 1 and "the loss 'rounded_loss' is not differentiable" in g04[0]
    assert "model 'nb_model'" in g04[0] and "(all 4 are None)" in g04[0]


def no_gradient_loop(layer: keras.layers.Layer, opt: keras.optimizers.Optimizer) -> None:
    x = np.ones((4, 4), "float32")
    with tf.GradientTape() as tape:
        loss = tf.reduce_mean(tf.round(layer(x)))  # round: no gradient
    grads = tape.gradient(loss, layer.trainable_variables)
    opt.apply_gradients(zip(grads, layer.trainable_variables, strict=True))


def test_custom_loop_without_any_gradient_keeps_its_traceback() -> None:
    layer = keras.layers.Dense(2, name="rounded")
    layer.build((None, 4))
    opt = keras.optimizers.SGD(0.1)
    with pytest.raises(ValueError, match="No gradients provided") as plain:
        no_gradient_loop(layer, opt)
    with (
        pytest.raises(ValueError, match="No gradients provided") as recorded,
        tfnb_debug.record_gradients() as rec,
    ):
        no_gradient_loop(layer, opt)
    here = __file__

    def below_test(tb: TracebackType | None) -> list[tuple[str, str, int]]:
        listed = frames(tb)
        last = max(i for i, f in enumerate(listed) if f[0] == here and f[1] == "no_gradient_loop")
        return listed[last:]

    assert below_test(recorded.value.__traceback__) == below_test(plain.value.__traceback__)
    report = rec.result()
    assert report.recorded_steps == 0
    assert report.summary[0] == "partial report: the cell failed after 0 recorded step(s)"
    g04 = [f for f in report.findings if f.code == "G04"]
    assert (
        len(g04) == 1 and "the loss passed to tape.gradient is not differentiable" in g04[0].message
    )
    assert BaseOptimizer.__dict__["apply"] is APPLY and active_capture() is None
