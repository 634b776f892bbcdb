"""%%tfcheck keeps its checked functions across cells, and still restores everything.

A second cell on the same model, optimizer, compile configuration and options
runs the kept train (and test, predict) functions without tracing and checks
what a fresh cell checks: a NaN is found at the same step, in the same layer,
with the same op and source line.  A recompile, other options, a new optimizer
or unloading the extension drop them; a cell that fails or whose loss the
watch flags keeps nothing.  After a cell that
reused it, the user's train function, XLA setting and the patched classes are
as before, on success, on the user's exception and on KeyboardInterrupt.
"""

from __future__ import annotations

import pytest
from IPython.core.interactiveshell import InteractiveShell
from IPython.utils.capture import capture_output
from keras.src.backend.tensorflow.trainer import TensorFlowTrainer
from keras.src.layers.layer import Layer
from keras.src.losses.loss import Loss
from keras.src.optimizers.base_optimizer import BaseOptimizer

from tests._support import REGRESSION_TRAIN_STEP, extension_unloaded, run_magic
from tfnb_debug.collect import check_guards
from tfnb_debug.collect.check_kept import kept_checked_function
from tfnb_debug.collect.gradients import kept_train_function
from tfnb_debug.features.check import CheckReport, run_checked

MAKERS = ("make_train_function", "make_test_function", "make_predict_function")


def _patch_targets() -> tuple[object, ...]:
    return (
        Layer.__dict__["__call__"],
        Loss.__dict__["__call__"],
        BaseOptimizer.__dict__["apply"],
        *(TensorFlowTrainer.__dict__[name] for name in MAKERS),
    )


ORIGINALS = _patch_targets()

SETUP = """
import numpy as np, keras, tensorflow as tf

class Log(keras.layers.Layer):
    def call(self, x):
        shifted = x + 0.0
        return tf.math.log(shifted)  # NaN for negative inputs

rng = np.random.default_rng(0)
x = np.abs(rng.normal(size=(32, 4))).astype("float32") + 0.5; y = rng.normal(size=(32, 1))
keras.utils.set_random_seed(0)
model = keras.Sequential([keras.Input((4,)), Log(name="log"), keras.layers.Dense(8, name="d1"),
                          keras.layers.Dense(1, name="out")], name="check_reuse")
model.compile(keras.optimizers.SGD(1e-3), "mse", jit_compile=True)
model.fit(x, y, batch_size=8, verbose=0)  # the user's own train function
"""
FIT = "model.fit(xs, y, batch_size=8, shuffle=False, verbose=0)"


@pytest.fixture
def nb(shell: InteractiveShell) -> InteractiveShell:
    shell.run_cell(SETUP)
    shell.user_ns["xs"] = shell.user_ns["x"]
    return shell


def _cell(shell: InteractiveShell, options: str = "", cell: str = FIT) -> CheckReport:
    report = run_magic(shell, f"%%tfcheck -q -o --no-live {options}", cell=cell).result
    assert isinstance(report, CheckReport)
    return report


def _traced(shell: InteractiveShell, options: str = "", cell: str = FIT) -> list[str]:
    """The names of the ``tf.function`` s traced in the cell (as the report counts them)."""
    return [name for name, _ in _cell(shell, options, cell).traces]


def _nothing_patched() -> None:
    assert all(a is b for a, b in zip(_patch_targets(), ORIGINALS, strict=True))
    assert check_guards._ACTIVE == []


def _same_checks(a: CheckReport, b: CheckReport) -> None:
    assert a.layers_checked == b.layers_checked
    assert a.losses_checked == b.losses_checked
    assert a.gradients_checked == b.gradients_checked
    assert (a.steps, a.updates) == (b.steps, b.updates)


def test_second_cell_runs_the_kept_function_and_checks_the_same(nb: InteractiveShell) -> None:
    model = nb.user_ns["model"]
    first = _cell(nb)
    kept = kept_checked_function(model)
    assert kept is not None and kept is not model.train_function
    second = _cell(nb)
    assert kept_checked_function(model) is kept
    traced = [[name for name, _ in report.traces] for report in (first, second)]
    assert "one_step_on_data" in traced[0] and "one_step_on_data" not in traced[1]
    _same_checks(first, second)
    assert first.steps == 4 and len(first.layers_checked) == 4 and first.losses_checked
    assert "used again" in second.to_text() and "used again" not in first.to_text()
    assert first.findings == second.findings == ()
    _nothing_patched()


def _checked_fit(shell: InteractiveShell, code: str = FIT) -> CheckReport:
    """The API's run: ``run_checked`` around the code, as the magic runs it."""
    model = shell.user_ns["model"]
    _, report = run_checked(lambda: eval(code, shell.user_ns), models=[model])
    return report


@pytest.mark.parametrize(
    ("bad", "code", "step"),
    [
        ("xs = x.copy(); xs[17, 2] = np.nan", "N05", 2),  # the third batch's input
        ("xs = x.copy(); xs[9, 1] = -1.0", "N01", 1),  # the log of a negative number
    ],
)
def test_a_nan_after_reuse_is_found_as_in_a_fresh_run(
    nb: InteractiveShell, bad: str, code: str, step: int
) -> None:
    model = nb.user_ns["model"]
    assert not _checked_fit(nb).stopped  # clean: kept
    assert not _checked_fit(nb).stopped  # clean again, kept function: its counter ran to 4
    kept = kept_checked_function(model)
    assert kept is not None
    nb.run_cell(bad)
    reused = _checked_fit(nb)
    assert kept_checked_function(model) is kept  # a failing run leaves the kept one as it was
    nb.run_cell("model.compile(keras.optimizers.SGD(1e-3), 'mse', jit_compile=True)")
    assert kept_checked_function(model) is None  # a recompile drops it
    fresh = _checked_fit(nb)
    assert kept_checked_function(model) is None  # a failing run keeps nothing
    assert "used again" in reused.to_text() and "used again" not in fresh.to_text()
    for report in (reused, fresh):
        assert report.codes() == [code], report.to_text()
        assert report.failure.step == step
    assert reused.failure.place == fresh.failure.place
    if code == "N01":
        assert reused.failure.place.endswith("/log")
        op = reused.failure.op
        assert op is not None and op.op_type == "Log" and "tf.math.log(shifted)" in op.source
        assert op == fresh.failure.op
    _nothing_patched()


@pytest.mark.parametrize("error", [None, "ValueError('user error')", "KeyboardInterrupt()"])
def test_a_reused_cell_restores_everything(nb: InteractiveShell, error: str | None) -> None:
    model = nb.user_ns["model"]
    nb.run_cell(STOP)
    _cell(nb)  # builds and keeps the checked function
    kept = kept_checked_function(model)
    user_function = model.train_function
    attributes = dict(vars(model))
    nb.run_cell(FIT)  # what a plain fit itself sets anew (history, callbacks, ...)
    plain_changes = {k for k, v in attributes.items() if vars(model).get(k) is not v}
    attributes = dict(vars(model))
    cell = FIT if error is None else FIT.replace("=0)", f"=0, callbacks=[Stop({error})])")
    if error is None:
        assert _cell(nb, cell=cell).steps == 4
    else:
        expected = KeyboardInterrupt if "Keyboard" in error else ValueError
        with capture_output(), pytest.raises(expected):
            nb.run_cell_magic("tfcheck", "-q --no-live", cell)
    assert kept_checked_function(model) is kept  # it was the kept one that ran
    assert model.train_function is user_function
    assert model.jit_compile is True
    assert vars(model).keys() == attributes.keys()
    changed = {k for k, v in attributes.items() if vars(model)[k] is not v}
    assert changed <= plain_changes, changed - plain_changes
    _nothing_patched()


STOP = """
class Stop(keras.callbacks.Callback):
    def __init__(self, error):
        super().__init__(); self.error = error
    def on_train_batch_end(self, batch, logs=None):
        if batch == 1:
            raise self.error
"""


def test_other_options_recompile_and_unload_drop_it(nb: InteractiveShell) -> None:
    model = nb.user_ns["model"]
    _cell(nb)
    kept = kept_checked_function(model)
    assert kept is not None
    _cell(nb, "--no-op-detail")  # other options: built anew (no input copy), kept for those
    other = kept_checked_function(model)
    assert other is not None and other is not kept
    model.layers[1].trainable = False
    assert kept_checked_function(model) is None  # the trainable variables changed
    model.layers[1].trainable = True
    _cell(nb)
    assert kept_checked_function(model) is not None
    with extension_unloaded(nb):
        assert kept_checked_function(model) is None


def test_tfgrad_and_tfcheck_keep_theirs_for_the_last_model_only(nb: InteractiveShell) -> None:
    model = nb.user_ns["model"]
    _cell(nb)
    run_magic(nb, "%%tfgrad -q --no-live", cell=FIT)
    assert kept_checked_function(model) is not None  # both kinds kept for one model
    assert kept_train_function(model) is not None
    assert "one_step_on_data" not in _traced(nb)  # the checked one runs untraced
    nb.run_cell(
        "other = keras.Sequential([keras.Input((4,)), keras.layers.Dense(1)], name='other')\n"
        "other.compile('sgd', 'mse')"
    )
    _cell(nb, cell="other.fit(x, y, batch_size=8, verbose=0)")
    assert kept_checked_function(nb.user_ns["other"]) is not None
    assert kept_checked_function(model) is None  # another model's function drops both
    assert kept_train_function(model) is None


CUSTOM_STEP = REGRESSION_TRAIN_STEP + 'yr = y[:, 0].astype("float32")' + "\n"


@pytest.mark.parametrize("reshape", ["", "; yb = keras.ops.reshape(yb, (-1, 1))"])
def test_what_the_loss_watch_saw_while_tracing_is_not_lost(
    nb: InteractiveShell, reshape: str
) -> None:
    nb.run_cell(CUSTOM_STEP.format(reshape=reshape))
    model = nb.user_ns["model"]
    fit = "model.fit(x, yr, batch_size=8, verbose=0)"
    first = _cell(nb, cell=fit)
    second = _cell(nb, cell=fit)
    _same_checks(first, second)
    if reshape:  # nothing to report: the function is kept and reused
        assert kept_checked_function(model) is not None
        assert "used again" in second.to_text()
        assert "S08" not in first.codes() and "S08" not in second.codes()
    else:  # the broadcast is only seen while tracing: traced again in every cell
        assert kept_checked_function(model) is None
        assert "S08" in first.codes() and "S08" in second.codes()


def test_eager_and_multi_step_functions(nb: InteractiveShell) -> None:
    model = nb.user_ns["model"]
    nb.run_cell("model.compile(keras.optimizers.SGD(1e-3), 'mse', run_eagerly=True)")
    assert _cell(nb).steps == 4
    assert kept_checked_function(model) is None  # eager: nothing traced, nothing to keep
    nb.run_cell("model.compile(keras.optimizers.SGD(1e-3), 'mse', steps_per_execution=2)")
    first, second = _cell(nb), _cell(nb)
    assert kept_checked_function(model) is not None
    assert first.steps == second.steps == 4
    _nothing_patched()


def test_validation_evaluate_and_predict_functions_are_kept_too(nb: InteractiveShell) -> None:
    model = nb.user_ns["model"]
    cell = (
        "model.fit(xs, y, batch_size=8, shuffle=False, verbose=0, validation_data=(xs, y))\n"
        "model.evaluate(xs, y, batch_size=8, verbose=0)\n"
        "model.predict(xs, batch_size=8, verbose=0)"
    )
    first, second = _cell(nb, cell=cell), _cell(nb, cell=cell)
    steps = {"one_step_on_data", "multi_step_on_iterator", "one_step_on_iterator"}
    assert steps & set(_names(first)) and not steps & set(_names(second))
    _same_checks(first, second)
    user = (model.test_function, model.predict_function)
    nb.run_cell("xs = x.copy(); xs[30, 0] = -1.0")  # the last batch: seen by evaluate only
    report = _checked_fit(nb, "model.evaluate(xs, y, batch_size=8, verbose=0)")
    assert "used again" in report.to_text()
    assert report.codes() == ["N01"] and report.failure.place.endswith("/log")
    assert report.failure.op is not None and report.failure.op.op_type == "Log"
    assert (model.test_function, model.predict_function) == user
    _nothing_patched()


def _names(report: CheckReport) -> list[str]:
    return [name for name, _ in report.traces]


def test_a_gan_counts_its_steps_again_and_a_new_optimizer_drops_it(
    shell: InteractiveShell,
) -> None:
    from tests.test_check_train_step import X, gan

    shell.user_ns.update(gm=gan(), gx=X, keras=__import__("keras"))
    cell = "gm.fit(gx, epochs=2, batch_size=8, verbose=0)"
    first, second = _cell(shell, cell=cell), _cell(shell, cell=cell)
    assert "used again" in second.to_text()
    for report in (first, second):  # the two optimizers' counters start again from zero
        assert (report.steps, report.updates) == (8, 16), report.to_text()
    model = shell.user_ns["gm"]
    assert kept_checked_function(model) is not None
    shell.run_cell("gm.g_optimizer = keras.optimizers.SGD(1e-3)")  # no compile: a new one
    assert kept_checked_function(model) is None
