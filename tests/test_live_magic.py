"""The live view of %%tfgrad / %%tfmem / %%tfcheck, through a real InteractiveShell.

A plain ``InteractiveShell`` publishes displays like a kernel does (display
handles with a ``display_id``, ``update=True`` for an update), so the tests
see each update and the report that replaces the live view.  Steps that
sleep past ``--live-interval`` make updates happen at known points without
asserting anything about time.
"""

from __future__ import annotations

from typing import Any

import keras
import numpy as np
import pytest
import tensorflow as tf
from IPython.core.error import UsageError
from IPython.core.interactiveshell import InteractiveShell
from IPython.utils.capture import capture_output

from tfnb_debug.collect.keras_access import BaseOptimizer, TensorFlowTrainer, private

X = np.random.default_rng(0).random((96, 8)).astype("float32")
Y = np.random.default_rng(1).random((96, 1)).astype("float32")

SLEEPY_LOOP = """
import time
for i in range(0, 96, 8):
    step(x[i:i + 8], y[i:i + 8])
    time.sleep(0.06)
"""


def small_model(seed: int = 0) -> keras.Model:
    keras.utils.set_random_seed(seed)
    model = keras.Sequential(
        [keras.Input((8,)), keras.layers.Dense(6, activation="relu"), keras.layers.Dense(1)]
    )
    model.compile(optimizer="sgd", loss="mse")
    return model


def step_function(model: keras.Model, optimizer: Any) -> Any:
    @tf.function
    def step(xb: Any, yb: Any) -> Any:
        with tf.GradientTape() as tape:
            loss = tf.reduce_mean(tf.square(model(xb, training=True) - yb))
        grads = tape.gradient(loss, model.trainable_variables)
        optimizer.apply_gradients(zip(grads, model.trainable_variables, strict=True))
        return loss

    return step


@pytest.fixture
def nb(shell: InteractiveShell) -> InteractiveShell:
    model = small_model()
    optimizer = keras.optimizers.SGD(0.01)
    shell.user_ns.update(
        model=model, x=X.copy(), y=Y.copy(), optimizer=optimizer, keras=keras, np=np, tf=tf
    )
    shell.user_ns["step"] = step_function(model, optimizer)
    return shell


def run_cell(shell: InteractiveShell, magic: str, body: str) -> tuple[Any, list[Any]]:
    with capture_output() as captured:
        result = shell.run_cell(f"{magic}\n{body}")
    return result, list(captured.outputs)


def text(output: Any) -> str:
    return str(output.data.get("text/plain", ""))


def display_id(output: Any) -> str | None:
    return (output.transient or {}).get("display_id")


def test_tfgrad_live_updates_one_display_in_place_then_the_report_replaces_it(
    nb: InteractiveShell,
) -> None:
    result, outputs = run_cell(nb, "%%tfgrad --live --live-interval 0.05", SLEEPY_LOOP)
    assert result.error_in_exec is None
    first, *updates = outputs
    assert not first.update and text(first).startswith("%%tfgrad live:")
    assert display_id(first) is not None
    assert all(o.update and display_id(o) == display_id(first) for o in updates)
    live = [o for o in updates if text(o).startswith("%%tfgrad live:")]
    assert len(live) >= 3  # each step slept past the interval
    steps = [int(text(o).split("step ")[1].split(" ")[0]) for o in live if "step " in text(o)]
    assert steps == sorted(steps) and steps[-1] >= 10
    assert "loss " in text(live[-1])
    html = [o.data["text/html"] for o in live]
    assert all('class="tfnb-live"' in h for h in html)
    counts = [int(h.split('data-updates="')[1].split('"')[0]) for h in html]
    assert counts == sorted(counts) and counts[-1] > counts[0]
    assert "tfnb-live-heatmap" in html[-1] and "data:image/png;base64," in html[-1]
    final = outputs[-1]
    assert text(final).startswith("Gradients of model")  # the report, in the same display
    assert "tfnb-live" not in final.data.get("text/html", "")


def test_live_records_equal_the_records_of_a_cell_without_live(nb: InteractiveShell) -> None:
    """Pulling records while training, then the rest at the end, gives the same history."""
    reports = []
    for live in ("--live --live-interval 0.05", "--no-live"):
        model = small_model(seed=3)
        optimizer = keras.optimizers.SGD(0.05)
        nb.user_ns.update(model=model, step=step_function(model, optimizer))
        result, _ = run_cell(nb, f"%%tfgrad -o {live}", SLEEPY_LOOP)
        assert result.error_in_exec is None
        reports.append(result.result)
    live_history, plain_history = reports[0].history, reports[1].history
    assert live_history.n_records == plain_history.n_records == 12
    np.testing.assert_array_equal(live_history.steps, plain_history.steps)
    np.testing.assert_array_equal(live_history.stats, plain_history.stats)
    np.testing.assert_array_equal(live_history.hist, plain_history.hist)
    np.testing.assert_array_equal(live_history.loss, plain_history.loss)


def test_a_finding_shows_in_the_live_view_while_training_goes_on(nb: InteractiveShell) -> None:
    nb.user_ns["x"][40] = np.nan  # step 5 of the loop meets it
    _, outputs = run_cell(nb, "%%tfgrad --live --live-interval 0.05", SLEEPY_LOOP)
    live = [text(o) for o in outputs if text(o).startswith("%%tfgrad live:")]
    first = next(i for i, t in enumerate(live) if "G03" in t)
    assert first < len(live) - 1  # seen while the loop still ran, not only at the end
    assert "step 5" in live[first]
    assert "G03" in text(outputs[-1]) and text(outputs[-1]).startswith("Gradients of model")


def test_default_is_off_outside_a_kernel_and_with_q(nb: InteractiveShell) -> None:
    _, outputs = run_cell(nb, "%%tfgrad --live-interval 0.05", SLEEPY_LOOP)
    assert len(outputs) == 1 and not outputs[0].update  # the report only
    assert text(outputs[0]).startswith("Gradients of model")
    _, outputs = run_cell(nb, "%%tfgrad -q --live-interval 0.05", SLEEPY_LOOP)
    assert outputs == []


@pytest.mark.parametrize(
    ("line", "message"),
    [
        ("%%tfgrad --live -q", "drop --live or -q"),
        ("%%tfgrad --live --no-live", "contradict"),
        ("%%tfgrad --live-interval 0", "out of range"),
        ("%%tfmem --live-interval nan", "out of range"),
        ("%%tfcheck --live -q", "drop --live or -q"),
        ("%%tfgrad --stop-on inf", "invalid choice"),
    ],
)
def test_bad_live_options_are_one_line_errors_before_the_cell_runs(
    nb: InteractiveShell, line: str, message: str
) -> None:
    nb.user_ns["ran"] = False
    name, _, args = line.lstrip("%").partition(" ")
    with pytest.raises(UsageError, match=message), capture_output():
        nb.run_cell_magic(name, args, "ran = True")
    assert nb.user_ns["ran"] is False


@pytest.mark.parametrize("magic", ["%%tfmem", "%%tfcheck", "%%tfgrad --mem"])
def test_tfmem_and_tfcheck_have_a_live_view_too(nb: InteractiveShell, magic: str) -> None:
    result, outputs = run_cell(nb, f"{magic} --live --live-interval 0.05", SLEEPY_LOOP)
    assert result.error_in_exec is None
    title = magic.split()[0]
    live = [text(o) for o in outputs[:-1]]
    assert live and all(t.startswith(f"{title} live:") for t in live)
    assert any("step " in t for t in live[1:])
    if "mem" in magic:
        assert any("host RSS" in t for t in live)
    if "tfcheck" in magic:
        assert any("no NaN/Inf so far" in t for t in live)
    assert outputs[-1].update and display_id(outputs[-1]) == display_id(outputs[0])
    assert not text(outputs[-1]).startswith(f"{title} live:")  # the report replaced it


def test_an_interrupted_cell_keeps_its_partial_report_in_the_live_display(
    nb: InteractiveShell,
) -> None:
    body = SLEEPY_LOOP.replace(
        "time.sleep(0.06)", "time.sleep(0.06)\n    if i == 48: raise KeyboardInterrupt"
    )
    result, outputs = run_cell(nb, "%%tfgrad --live --live-interval 0.05", body)
    assert isinstance(result.error_in_exec, KeyboardInterrupt)  # reaches the user
    final = outputs[-1]
    assert final.update and display_id(final) == display_id(outputs[0])
    assert "partial report: the cell failed after 7 recorded step(s)" in text(final)


def test_a_cell_that_fails_before_any_report_leaves_the_live_view_marked_ended(
    nb: InteractiveShell,
) -> None:
    result, outputs = run_cell(nb, "%%tfmem --live --live-interval 0.05", "raise ValueError('x')")
    assert isinstance(result.error_in_exec, ValueError)
    assert outputs and display_id(outputs[-1]) == display_id(outputs[0])


def test_print_mode_writes_one_text_line_per_update(nb: InteractiveShell, capsys: Any) -> None:
    """A terminal IPython gets text lines (LiveView's print mode, driven directly)."""
    from tfnb_debug.features.gradients import live_source, record_gradients
    from tfnb_debug.features.live import LiveView

    step = nb.user_ns["step"]
    with record_gradients() as recording:
        view = LiveView("%%tfgrad", mode="print", interval=0.0)
        view.add(live_source(recording))
        with view:
            for i in range(0, 32, 8):
                step(X[i : i + 8], Y[i : i + 8])
    lines = capsys.readouterr().out.strip().splitlines()
    assert len(lines) >= 4 and all(line.startswith("%%tfgrad live: step ") for line in lines)
    assert len(view.costs) == len(lines)


def test_every_hook_is_gone_after_a_live_cell(nb: InteractiveShell) -> None:
    function_class = private("PolymorphicFunction")
    owners = [
        (keras.callbacks.CallbackList, "on_train_batch_end"),
        (TensorFlowTrainer, "fit"),
        (TensorFlowTrainer, "train_on_batch"),
        (BaseOptimizer, "apply"),
        (function_class, "__call__"),
    ]
    before = [owner.__dict__[name] for owner, name in owners]
    for body in (
        SLEEPY_LOOP,
        "model.fit(x, y, batch_size=8, verbose=0)",
        "raise KeyboardInterrupt",
    ):
        run_cell(nb, "%%tfgrad --live --live-interval 0.05 --stop-on nan --mem", body)
    assert [owner.__dict__[name] for owner, name in owners] == before


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"mode": "html"}, "mode must be"),
        ({"stop_on": "inf"}, "stop_on must be one of 'nan', 'explode'"),
        ({"interval": -1}, "interval must be seconds"),
    ],
)
def test_live_view_refuses_bad_settings_in_one_line(kwargs: dict[str, Any], message: str) -> None:
    from tfnb_debug.features.live import LiveView
    from tfnb_debug.ground.errors import TfnbDebugError

    with pytest.raises(TfnbDebugError, match=message):
        LiveView("x", **kwargs)
