"""``%%tfgrad --stop-on nan|explode``: training stops after the first bad step, in ``fit``
and in custom loops, and the report covers the steps up to it."""

from __future__ import annotations

from typing import Any

import keras
import numpy as np
import pytest
import tensorflow as tf
from IPython.core.interactiveshell import InteractiveShell
from IPython.utils.capture import capture_output

from tests.test_live_magic import small_model, step_function

X = np.random.default_rng(0).random((96, 8)).astype("float32")
Y = np.random.default_rng(1).random((96, 1)).astype("float32")

LOOP = """
for i in range(0, 96, 8):
    step(x[i:i + 8], y[i:i + 8])
after_loop = True
"""
EAGER_LOOP = """
for i in range(0, 96, 8):
    with tf.GradientTape() as tape:
        loss = tf.reduce_mean(tf.square(model(x[i:i + 8], training=True) - y[i:i + 8]))
    grads = tape.gradient(loss, model.trainable_variables)
    optimizer.apply_gradients(zip(grads, model.trainable_variables))
after_loop = True
"""
TRAIN_ON_BATCH = """
for i in range(0, 96, 8):
    model.train_on_batch(x[i:i + 8], y[i:i + 8])
after_loop = True
"""
FIT = "model.fit(x, y, batch_size=8, epochs=3, shuffle=False, verbose=0)\nafter_loop = True"


@pytest.fixture
def nb(shell: InteractiveShell) -> InteractiveShell:
    model = small_model()
    optimizer = keras.optimizers.SGD(0.01)
    x = X.copy()
    x[44] = np.nan  # in the batch of step 5
    shell.user_ns.update(model=model, x=x, y=Y.copy(), optimizer=optimizer, tf=tf)
    shell.user_ns["step"] = step_function(model, optimizer)
    return shell


def run(shell: InteractiveShell, line: str, body: str) -> tuple[Any, Any]:
    shell.user_ns.pop("after_loop", None)
    with capture_output():
        result = shell.run_cell(f"%%tfgrad -q -o {line}\n{body}")
    assert result.error_in_exec is None  # a stop is not an error
    return result.result, shell.user_ns.get("after_loop", False)


@pytest.mark.parametrize(
    ("body", "continues"),
    [(LOOP, False), (EAGER_LOOP, False), (TRAIN_ON_BATCH, False), (FIT, True)],
    ids=["tf.function-loop", "eager-loop", "train_on_batch", "fit"],
)
def test_stop_on_nan_stops_after_the_first_nonfinite_step(
    nb: InteractiveShell, body: str, continues: bool
) -> None:
    report, after_loop = run(nb, "--stop-on nan", body)
    assert report.history.n_records == 6  # steps 0..5: stopped after the bad one
    assert report.total_steps == 6
    assert report.summary[0].startswith("--stop-on nan stopped training at step 5: G03")
    assert report.findings[0].code == "G03" and "step 5" in report.findings[0].message
    # fit returns normally (stop_training) and the cell goes on; a custom loop is left
    assert after_loop is continues
    if body == FIT:
        assert nb.user_ns["model"].stop_training is True


def test_without_stop_on_the_same_cell_trains_to_the_end(nb: InteractiveShell) -> None:
    report, after_loop = run(nb, "", LOOP)
    assert report.history.n_records == 12 and after_loop is True
    assert not report.summary[0].startswith("--stop-on")


def test_stop_on_explode_stops_at_an_exploding_gradient_and_nan_does_not(
    shell: InteractiveShell,
) -> None:
    model = small_model()
    optimizer = keras.optimizers.SGD(1e-12)  # tiny steps: huge gradients, no NaN
    shell.user_ns.update(
        model=model, x=X * 1e5, y=Y, optimizer=optimizer, step=step_function(model, optimizer)
    )
    report, after_loop = run(shell, "--stop-on explode", LOOP)
    assert report.history.n_records == 1 and after_loop is False
    assert report.summary[0].startswith("--stop-on explode stopped training at step 0: G02")
    assert "G02" in [f.code for f in report.findings]
    report, after_loop = run(shell, "--stop-on nan", LOOP)
    assert report.history.n_records == 12 and after_loop is True
    assert "G03" not in [f.code for f in report.findings]


def test_stop_on_with_every_n_stops_at_the_first_recorded_bad_step(nb: InteractiveShell) -> None:
    report, _ = run(nb, "--stop-on nan --every 2", LOOP)
    # records at steps 0, 2, 4, 6: step 5 is not recorded, step 6 (NaN weights by then) is
    assert list(report.history.steps) == [0, 2, 4, 6]
    assert report.summary[0].startswith("--stop-on nan stopped training at step 6")


def test_the_stopped_fit_leaves_the_model_as_a_plain_fit_would(nb: InteractiveShell) -> None:
    """After the stop, the model trains again uninstrumented (train function restored)."""
    model = nb.user_ns["model"]
    model.fit(X, Y, batch_size=8, epochs=1, verbose=0)
    plain = model.train_function
    run(nb, "--stop-on nan", FIT)
    assert model.train_function is plain


def test_after_a_stop_a_second_fit_in_the_cell_stops_too_but_evaluate_runs(
    nb: InteractiveShell,
) -> None:
    body = (
        "model.fit(x, y, batch_size=8, epochs=1, shuffle=False, verbose=0)\n"
        "second = model.fit(x[48:], y[48:], batch_size=8, epochs=1, verbose=0)\n"
        "scores = model.evaluate(x[:8], y[:8], verbose=0)\n"
        "after_loop = True"
    )
    report, after_loop = run(nb, "--stop-on nan", body)
    assert after_loop is True  # evaluate trains nothing: not stopped
    assert len(nb.user_ns["second"].history["loss"]) == 1
    assert report.history.n_records == 7  # six steps of the first fit, one of the second
    assert report.summary[0].startswith("--stop-on nan stopped training at step 5")


def test_a_cell_without_a_step_leaves_the_live_view_marked_ended(nb: InteractiveShell) -> None:
    with capture_output() as captured:
        result = nb.run_cell("%%tfgrad --live\nz = 1")
    assert result.error_in_exec is not None  # one-line UsageError: no optimizer step
    last = captured.outputs[-1]
    assert last.update and str(last.data["text/plain"]).startswith("%%tfgrad ended:")
