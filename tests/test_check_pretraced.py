"""A tf.function training step traced in an earlier cell is checked/recorded, then restored."""

from __future__ import annotations

import keras
import numpy as np
import pytest
import tensorflow as tf
from IPython.core.error import UsageError
from IPython.core.interactiveshell import InteractiveShell

from tests._support import run_magic
from tfnb_debug.collect.retrace import functions_to_retrace, traced_functions_in

RS = np.random.RandomState(0)

DEFINE = """
import keras
import numpy as np
import tensorflow as tf

class Log(keras.layers.Layer):
    def call(self, x):
        return tf.math.log(x * 2.0)

model = keras.Sequential([keras.Input((4,)), keras.layers.Dense(8), LAYER, keras.layers.Dense(1)])
optimizer = keras.optimizers.SGD(0.01)

@tf.function
def train_step(x, y):
    with tf.GradientTape() as tape:
        loss = keras.losses.MeanSquaredError()(y, model(x, training=True))
    grads = tape.gradient(loss, model.trainable_weights)
    optimizer.apply_gradients(zip(grads, model.trainable_weights))
    return loss

def train():
    return train_step(x, y)

x = np.random.RandomState(0).randn(8, 4).astype("float32")
y = np.zeros((8, 1), "float32")
train_step(x, y)  # traced here, before the magic's cell
"""


def define(shell: InteractiveShell, layer: str) -> object:
    result = shell.run_cell(DEFINE.replace("LAYER", layer))
    result.raise_error()
    step = shell.user_ns["train_step"]
    assert step.experimental_get_tracing_count() == 1
    return step


@pytest.mark.slow
def test_tfcheck_checks_a_step_traced_in_an_earlier_cell(shell: InteractiveShell) -> None:
    step = define(shell, 'Log(name="log")')
    before = step._list_all_concrete_functions()
    with pytest.raises(UsageError, match="N01"):
        run_magic(shell, "%%tfcheck", cell="train_step(x, y)")
    # its own graph is back: one trace, the same concrete function, no checks in it
    assert step.experimental_get_tracing_count() == 1
    assert step._list_all_concrete_functions() == before
    assert np.isnan(float(step(shell.user_ns["x"], shell.user_ns["y"])))


@pytest.mark.slow
def test_tfcheck_healthy_step_reports_what_it_checked(shell: InteractiveShell) -> None:
    step = define(shell, 'keras.layers.Activation("relu")')
    report = run_magic(shell, "%%tfcheck -o", cell="train_step(x, y)").result
    assert not report.stopped and report.steps == 1, report.to_text()
    assert len(report.layers_checked) == 4 and len(report.gradients_checked) == 4
    assert any("'train_step' was traced before this cell: traced again" in n for n in report.notes)
    assert step.experimental_get_tracing_count() == 1
    before = step._list_all_concrete_functions()
    with pytest.raises(ValueError, match="user bug"):  # the user's error, and the cache back
        run_magic(shell, "%%tfcheck -q", cell="train_step(x, y)\nraise ValueError('user bug')")
    assert step._list_all_concrete_functions() == before


@pytest.mark.slow
def test_tfcheck_checks_a_step_the_cells_names_do_not_reach(shell: InteractiveShell) -> None:
    step = define(shell, 'Log(name="log")')
    # reached through a dict: found when the cell calls it, traced again under the checks
    shell.user_ns["steps"] = {"train": step}
    with pytest.raises(UsageError, match="N01"):
        run_magic(shell, "%%tfcheck", cell="steps['train'](x, y)")
    assert step.experimental_get_tracing_count() == 1  # its own graph is back


@pytest.mark.slow
def test_tfcheck_says_nothing_was_checked_instead_of_health(shell: InteractiveShell) -> None:
    step = define(shell, 'Log(name="log")')
    # a concrete function is a graph traced already: nothing can check inside it, the cell
    # is told before it runs, and the report must not state health
    shell.user_ns["graph"] = step.get_concrete_function(shell.user_ns["x"], shell.user_ns["y"])
    result = run_magic(shell, "%%tfcheck -o", cell="graph(x, y)")
    report = result.result
    assert report.checked_nothing and not report.stopped
    assert report.summary[0].startswith("NOTHING CHECKED"), report.summary[0]
    assert "no NaN/Inf:" not in report.to_text()
    assert "'graph' is a concrete function" in result.stdout  # said before the run


@pytest.mark.slow
def test_tfcheck_follows_a_python_function_to_the_traced_step(shell: InteractiveShell) -> None:
    step = define(shell, 'Log(name="log")')
    # train() calls the traced step from a Python function: traced again under the checks
    with pytest.raises(UsageError, match="N01"):
        run_magic(shell, "%%tfcheck", cell="train()")
    assert step.experimental_get_tracing_count() == 1


@pytest.mark.slow
def test_tfgrad_records_a_step_traced_in_an_earlier_cell(shell: InteractiveShell) -> None:
    step = define(shell, 'keras.layers.Activation("relu")')
    report = run_magic(shell, "%%tfgrad -o", cell="train_step(x, y)\ntrain_step(x, y)").result
    assert report.total_steps == 2 and report.history.n_records == 2
    assert step.experimental_get_tracing_count() == 1


def test_traced_functions_are_found_by_the_names_a_cell_reads() -> None:
    @tf.function
    def traced(v: tf.Tensor) -> tf.Tensor:
        return v + 1.0

    @tf.function
    def fresh(v: tf.Tensor) -> tf.Tensor:
        return v - 1.0

    traced(tf.ones(2))
    namespace = {"traced": traced, "fresh": fresh, "model": keras.layers.Dense(1)}
    code = "for _ in range(2):\n    traced(tf.ones(2)); fresh(tf.ones(2))\nalias = traced\n"
    assert traced_functions_in(code, namespace) == [("traced", traced)]
    assert traced_functions_in("traced(", namespace) == []  # the user's SyntaxError comes later
    assert functions_to_retrace("model(x)", namespace, "%%tfcheck") == []
