"""%tfoverfit's bounds: a time budget that says it ran out, fewer examples of large inputs,
and a progress line while it trains (none under -q)."""

from __future__ import annotations

import keras
import numpy as np
import pytest
from IPython.core.error import UsageError
from IPython.core.interactiveshell import InteractiveShell
from IPython.utils.capture import capture_output

from tests._support import run_magic
from tfnb_debug.features.overfit import overfit_small_batch
from tfnb_debug.features.overfit_run import Progress
from tfnb_debug.ground.errors import TfnbDebugError
from tfnb_debug.magics.progress import ProgressLine

RS = np.random.RandomState(0)
X = RS.rand(16, 8).astype("float32")
Y = RS.randint(0, 3, 16)


def slow_learner() -> keras.Model:
    """Learns nothing in a few steps (a learning rate of 1e-7), yet nothing is wrong with it."""
    model = keras.Sequential(
        [keras.Input((8,)), keras.layers.Dense(16, "relu"), keras.layers.Dense(3, "softmax")]
    )
    model.compile(keras.optimizers.SGD(1e-7), "sparse_categorical_crossentropy")
    return model


def test_out_of_time_says_so_and_never_that_it_cannot_memorize() -> None:
    model = slow_learner()
    before = [v.numpy().copy() for v in model.variables]
    report = overfit_small_batch(model, (X, Y), steps=100_000, time_budget=0.2, plot=False)
    assert report.out_of_time and not report.memorized
    assert 2 <= report.steps < 100_000
    text = report.to_text()
    assert "NOT YET" in text and "time budget of 0.2 s" in text and "--time SECONDS" in text
    assert "could not memorize" not in text and "NO:" not in text
    assert "try a larger model" not in text  # no advice for a failure that was not found
    assert "not yet (out of time)" in text
    assert all(np.array_equal(a, v.numpy()) for a, v in zip(before, model.variables, strict=True))
    # the same run without a budget runs every step and gives the real verdict
    full = overfit_small_batch(slow_learner(), (X, Y), steps=30, time_budget=None, plot=False)
    assert not full.out_of_time and full.steps == 30 and "NO:" in full.to_text()


def test_a_budget_must_be_positive() -> None:
    with pytest.raises(TfnbDebugError, match="positive number of seconds"):
        overfit_small_batch(slow_learner(), (X, Y), time_budget=0)


@pytest.mark.slow
def test_large_inputs_train_on_fewer_examples() -> None:
    images = RS.rand(16, 160, 160, 3).astype("float32")  # 76,800 values an example
    model = keras.Sequential(
        [
            keras.Input((160, 160, 3)),
            keras.layers.GlobalAveragePooling2D(),
            keras.layers.Dense(2, "softmax"),
        ]
    )
    model.compile("adam", "sparse_categorical_crossentropy")
    report = overfit_small_batch(model, (images, Y % 2), steps=3, plot=False)
    assert report.samples == 6
    assert "6 examples, not 16: each input holds 76,800 values" in report.to_text()
    chosen = overfit_small_batch(model, (images, Y % 2), samples=16, steps=2, plot=False)
    assert chosen.samples == 16 and "not 16" not in chosen.to_text()  # asked for: kept


def test_progress_is_called_after_every_step_with_its_loss() -> None:
    seen: list[Progress] = []
    report = overfit_small_batch(
        slow_learner(), (X, Y), steps=6, time_budget=None, progress=seen.append, plot=False
    )
    assert [p.step for p in seen] == [1, 2, 3, 4, 5, 6] and seen[-1].steps == 6
    assert tuple(p.loss for p in seen) == report.losses
    assert seen[-1].text().startswith("tfoverfit: step 6/6, loss ")


def test_the_progress_line_updates_in_place_and_is_cleared(bare_shell: InteractiveShell) -> None:
    line = ProgressLine(bare_shell, every_s=0.0)
    step = Progress(3, 200, 0.25, 1.5, 5.0)
    with capture_output() as shown:
        line(step)
        line(Progress(4, 200, 0.2, 1.6, 5.0))
        line.close()
    first = shown.outputs[0].data
    assert first["text/plain"] == "tfoverfit: step 3/200, loss 0.25, 1.5 s (time budget 5 s)"
    assert "step 3/200" in first["text/html"]
    # the same display is updated (one display id), then emptied
    assert len(shown.outputs) == 3 and shown.outputs[-1].data["text/plain"] == ""
    ids = {o.transient["display_id"] for o in shown.outputs}
    assert len(ids) == 1 and [o.update for o in shown.outputs] == [False, True, True]
    printer = ProgressLine(bare_shell, every_s=0.0)
    printer.printing, printer.every_s = True, 0.0  # as in a terminal IPython: text lines
    with capture_output() as printed:
        printer(step)
        printer.close()
    assert printed.stdout == step.text() + "\n" and printed.outputs == []


def test_magic_time_option(shell: InteractiveShell) -> None:
    shell.user_ns.update(slow=slow_learner(), ox=X, oy=Y)
    shown = run_magic(shell, "%tfoverfit -q -o slow (ox,oy) --steps 100000 --time 0.2")
    assert shown.result is not None and shown.result.out_of_time
    assert shown.outputs == [] and shown.text == ""  # -q: no progress line either
    with pytest.raises(UsageError, match="--time -1 is out of range"):
        run_magic(shell, "%tfoverfit slow (ox,oy) --time -1")
    unlimited = run_magic(shell, "%tfoverfit -q -o slow (ox,oy) --steps 4 --time 0")
    assert unlimited.result is not None and unlimited.result.steps == 4
