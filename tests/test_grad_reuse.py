"""%%tfgrad keeps its instrumented train function across cells, and still restores everything.

A second cell on the same model, optimizer, compile configuration and options
runs the kept function (no trace); a recompile, other options or unloading the
extension drop it.  After a cell that reused it, the user's train function,
the patched classes and the model's attributes are as before, on success, on
the user's exception and on KeyboardInterrupt; the recorded numbers equal a
fresh cell's.  Figures are drawn only when the report is shown.
"""

from __future__ import annotations

from typing import Any

import matplotlib.pyplot as plt
import numpy as np
import pytest
import tensorflow as tf
from IPython.core.interactiveshell import InteractiveShell
from IPython.utils.capture import capture_output
from keras.src.backend.tensorflow.trainer import TensorFlowTrainer
from keras.src.optimizers.base_optimizer import BaseOptimizer
from keras.src.optimizers.loss_scale_optimizer import LossScaleOptimizer

from tests._support import REGRESSION_TRAIN_STEP, extension_unloaded, run_magic
from tfnb_debug.collect._patching import patched, preserved, trace_hook
from tfnb_debug.collect.gradients import active_capture, kept_train_function
from tfnb_debug.features.gradients import GradientReport

ORIGINALS = {
    (BaseOptimizer, "apply"): BaseOptimizer.__dict__["apply"],
    (LossScaleOptimizer, "apply"): LossScaleOptimizer.__dict__["apply"],
    (TensorFlowTrainer, "make_train_function"): TensorFlowTrainer.__dict__["make_train_function"],
    (tf.GradientTape, "gradient"): tf.GradientTape.__dict__["gradient"],
}

SETUP = """
import numpy as np, keras, tensorflow as tf
rng = np.random.default_rng(0)
x = rng.normal(size=(32, 4)).astype("float32"); y = rng.integers(0, 3, 32)
keras.utils.set_random_seed(0)
model = keras.Sequential([keras.Input((4,)), keras.layers.Dense(8, activation="relu", name="d1"),
                          keras.layers.Dense(3, name="out")], name="reuse_model")
model.compile("adam", keras.losses.SparseCategoricalCrossentropy(from_logits=True))
model.fit(x, y, batch_size=8, verbose=0)  # the user's own train function
"""
FIT = "model.fit(x, y, batch_size=8, shuffle=False, verbose=0)"


@pytest.fixture
def nb(shell: InteractiveShell) -> InteractiveShell:
    shell.run_cell(SETUP)
    return shell


def _cell(shell: InteractiveShell, options: str = "", cell: str = FIT) -> GradientReport:
    report = run_magic(shell, f"%%tfgrad -q -o {options}", cell=cell).result
    assert isinstance(report, GradientReport)
    return report


def _traced_names(shell: InteractiveShell, options: str = "") -> list[str]:
    names: list[str] = []

    def hook(name: str, function: Any, signature: str) -> None:
        names.append(name)

    with trace_hook(hook):
        _cell(shell, options)
    return names


def _nothing_patched() -> None:
    for (owner, name), original in ORIGINALS.items():
        assert owner.__dict__[name] is original, f"{owner.__name__}.{name} left patched"
    assert active_capture() is None


def test_second_cell_runs_the_kept_function_without_tracing(nb: InteractiveShell) -> None:
    model = nb.user_ns["model"]
    first = _traced_names(nb)
    kept = kept_train_function(model)
    assert kept is not None and kept is not model.train_function
    second = _traced_names(nb)
    assert kept_train_function(model) is kept
    # the first cell traced the instrumented train function; the second traced nothing of it
    train = [n for n in first if n not in second]
    assert train, (first, second)
    assert len(second) < len(first)


def test_recompile_other_options_and_unload_drop_it(nb: InteractiveShell) -> None:
    model = nb.user_ns["model"]
    _cell(nb)
    kept = kept_train_function(model)
    assert kept is not None
    _cell(nb, "--every 2")  # other options: built anew, and kept for those
    other = kept_train_function(model)
    assert other is not None and other is not kept
    nb.run_cell('model.compile("adam", keras.losses.SparseCategoricalCrossentropy(True))')
    assert kept_train_function(model) is None  # a recompile drops it
    _cell(nb)
    assert kept_train_function(model) not in (None, kept, other)
    with extension_unloaded(nb):
        assert kept_train_function(model) is None


def test_trainable_change_drops_it(nb: InteractiveShell) -> None:
    model = nb.user_ns["model"]
    _cell(nb)
    assert kept_train_function(model) is not None
    model.layers[0].trainable = False
    assert kept_train_function(model) is None


STOP = """
class Stop(keras.callbacks.Callback):
    def __init__(self, error):
        super().__init__(); self.error = error
    def on_train_batch_end(self, batch, logs=None):
        if batch == 1:
            raise self.error
"""


@pytest.mark.parametrize("error", [None, "ValueError('user error')", "KeyboardInterrupt()"])
def test_a_reused_cell_restores_everything(nb: InteractiveShell, error: str | None) -> None:
    model = nb.user_ns["model"]
    nb.run_cell(STOP)
    _cell(nb)  # builds and keeps the instrumented function
    kept = kept_train_function(model)
    user_function = model.train_function
    attributes = dict(vars(model))
    nb.run_cell(FIT)  # what a plain fit itself sets anew (history, callbacks, ...)
    plain_changes = {k for k, v in attributes.items() if vars(model).get(k) is not v}
    attributes = dict(vars(model))
    optimizer_attributes = dict(vars(model.optimizer))
    cell = FIT if error is None else FIT.replace("=0)", f"=0, callbacks=[Stop({error})])")
    if error is None:
        report = _cell(nb, cell=cell)
        assert report.recorded_steps == 4
    else:
        expected = KeyboardInterrupt if "Keyboard" in error else ValueError
        with capture_output(), pytest.raises(expected):
            nb.run_cell_magic("tfgrad", "-q", cell)
    assert kept_train_function(model) is kept  # it was the kept one that ran
    assert model.train_function is user_function
    assert vars(model).keys() == attributes.keys()
    changed = {k for k, v in attributes.items() if vars(model)[k] is not v}
    assert changed <= plain_changes, changed - plain_changes
    assert vars(model.optimizer).keys() == optimizer_attributes.keys()
    _nothing_patched()


@pytest.mark.parametrize("jit", [False, True])
def test_reused_cell_records_what_a_fresh_cell_records(nb: InteractiveShell, jit: bool) -> None:
    if jit:  # XLA, as on a GPU: the kept function is a compiled one
        nb.run_cell(
            "model.compile('adam', keras.losses.SparseCategoricalCrossentropy(True), "
            "jit_compile=True)\n" + FIT  # the optimizer built before the preserved block
        )
    model = nb.user_ns["model"]
    with preserved(model):  # the same weights, optimizer state and seeds for both cells
        fresh = _cell(nb)
    kept = kept_train_function(model)
    reused = _cell(nb)
    assert kept_train_function(model) is kept
    assert fresh.recorded_steps == reused.recorded_steps == 4
    np.testing.assert_array_equal(fresh.history.steps, reused.history.steps)
    np.testing.assert_array_equal(fresh.history.stats, reused.history.stats)
    np.testing.assert_array_equal(fresh.history.hist, reused.history.hist)
    np.testing.assert_array_equal(fresh.history.loss, reused.history.loss)
    assert fresh.to_text() == reused.to_text()


def _counted_drawing() -> tuple[list[str], list[Any]]:
    """Calls of the report's renderers (SVG panels and line, colour maps), and the patches
    that count them."""
    from tfnb_debug.render import gradients

    calls: list[str] = []

    def counting(name: str) -> Any:
        original = getattr(gradients, name)

        def count(*args: Any, **kwargs: Any) -> str:
            calls.append(name)
            return original(*args, **kwargs)

        return count

    names = ("histogram_panels_svg", "pixel_maps_html", "line_svg")
    return calls, [(gradients, name, counting(name)) for name in names]


def test_quiet_cell_draws_no_figure_until_shown(nb: InteractiveShell) -> None:
    open_before = plt.get_fignums()  # another test's user cell may have left one open
    drawn, patches = _counted_drawing()
    with patched(*patches):
        report = _cell(nb, "--every 2")
        text = report.to_text()
        assert drawn == []
        html = report._repr_mimebundle_()["text/html"]
        assert sorted(drawn) == ["histogram_panels_svg", "line_svg", "pixel_maps_html"]
        assert report.to_html() == html and len(drawn) == 3  # drawn once
    assert "log10 gradient norm: layers x steps" in text
    assert plt.get_fignums() == open_before


def test_shown_cell_draws_each_figure_once(nb: InteractiveShell) -> None:
    drawn, patches = _counted_drawing()
    with patched(*patches):
        shown = run_magic(nb, "%%tfgrad", cell=FIT)
    assert sorted(drawn) == ["histogram_panels_svg", "line_svg", "pixel_maps_html"]
    assert shown.html.count("<svg") == 3  # histogram panels of d1 and out, the loss


S08_STEP = REGRESSION_TRAIN_STEP + 'yr = y.astype("float32")' + "\n"


@pytest.mark.parametrize("reshape", ["", "; yb = keras.ops.reshape(yb, (-1, 1))"])
def test_what_the_loss_watch_saw_while_tracing_is_not_lost(
    nb: InteractiveShell, reshape: str
) -> None:
    nb.run_cell(S08_STEP.format(reshape=reshape))
    model = nb.user_ns["model"]
    fit = "model.fit(x, yr, batch_size=8, verbose=0)"
    first = _cell(nb, cell=fit)
    second = _cell(nb, cell=fit)
    if reshape:  # nothing to report: the function is kept and reused
        assert kept_train_function(model) is not None
        assert "S08" not in first.codes() and "S08" not in second.codes()
    else:  # the broadcast is only seen while tracing: traced again in every cell
        assert kept_train_function(model) is None
        assert "S08" in first.codes() and "S08" in second.codes()


def test_memory_steps_are_counted_in_a_reused_cell(nb: InteractiveShell) -> None:
    model = nb.user_ns["model"]
    fit = "model.fit(x, y, batch_size=8, epochs=8, shuffle=False, verbose=0)"
    first = _cell(nb, "--mem", cell=fit)
    kept = kept_train_function(model)
    second = _cell(nb, "--mem", cell=fit)
    assert kept is not None and kept_train_function(model) is kept
    assert first.recorded_steps == second.recorded_steps == 32
    memory = [s for s in second.sections if s.title == "memory over the cell's run"]
    assert len(memory) == 1 and "32 training step(s) seen" in memory[0].text
    _nothing_patched()


def test_eager_steps_before_fit_share_the_record_as_in_a_fresh_cell(nb: InteractiveShell) -> None:
    cell = (
        """
for start in range(0, 16, 8):
    with tf.GradientTape() as tape:
        loss = model.compute_loss(x[start:start + 8], y[start:start + 8], model(x[start:start + 8]))
    grads = tape.gradient(loss, model.trainable_variables)
    model.optimizer.apply_gradients(zip(grads, model.trainable_variables))
"""
        + FIT
    )
    first = _cell(nb, cell=cell)
    second = _cell(nb, cell=cell)
    assert first.recorded_steps == second.recorded_steps == 6  # 2 eager steps + 4 in fit
    _nothing_patched()


def test_at_most_keep_models_are_kept(nb: InteractiveShell) -> None:
    from tfnb_debug.collect.kept import KEEP_MODELS

    nb.run_cell(
        "models = [keras.Sequential([keras.Input((4,)), keras.layers.Dense(3)], name=f'm{i}') "
        f"for i in range({KEEP_MODELS + 1})]\n"
        "for m in models: m.compile('adam', keras.losses.SparseCategoricalCrossentropy(True))"
    )
    models = nb.user_ns["models"]
    for i in range(len(models)):
        _cell(nb, cell=f"models[{i}].fit(x, y, batch_size=16, verbose=0)")
    assert kept_train_function(models[0]) is None  # the least recently used is dropped
    assert all(kept_train_function(m) is not None for m in models[1:])
