"""The magics only observe: a model looked at by a magic trains next exactly as it would have.

A differential matrix on real Keras: for each model kind users reach (a subclassed
model whose ``train_step`` is a ``@tf.function``, a subclassed model with a plain
custom ``train_step``, a compiled ``Sequential``), fit before the magic or not, each
magic runs once and then the plain cell ``model.fit`` runs; the same program without
the magic (the same seed, data and cells) must give the same loss history, weights and
optimizer iterations, bit for bit (CPU, no shuffling), and no error.  A cell magic wraps
the first ``fit`` itself (it is the user's training, recorded); a line magic runs before
it and must leave the model as it found it.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from typing import Any

import numpy as np
import pytest
from IPython.core.interactiveshell import InteractiveShell
from IPython.utils.capture import capture_output

from tests._support import run_magic

DEFINE = """
import keras
import numpy as np
import tensorflow as tf

rng = np.random.default_rng(0)
x = rng.normal(size=(96, 6)).astype("float32")
y = (x[:, 0] > 0).astype("int64") + (x[:, 1] > 0).astype("int64")
ds = tf.data.Dataset.from_tensor_slices((x, y)).batch(16)

class TfFunctionStep(keras.Model):
    # the official text-generation tutorial's custom training model, reduced
    def __init__(self):
        super().__init__()
        self.hidden = keras.layers.Dense(8, activation="relu")
        self.out = keras.layers.Dense(3)

    def call(self, x, training=False):
        return self.out(self.hidden(x))

    @tf.function
    def train_step(self, inputs):
        x, y = inputs
        with tf.GradientTape() as tape:
            pred = self(x, training=True)
            loss = self.loss(y, pred)
        grads = tape.gradient(loss, self.trainable_variables)
        self.optimizer.apply_gradients(zip(grads, self.trainable_variables))
        return {"step_loss": loss}

class OwnStep(TfFunctionStep):
    def train_step(self, inputs):
        x, y = inputs
        with tf.GradientTape() as tape:
            pred = self(x, training=True)
            loss = self.compute_loss(x=x, y=y, y_pred=pred)
        grads = tape.gradient(loss, self.trainable_variables)
        self.optimizer.apply_gradients(zip(grads, self.trainable_variables))
        return {"step_loss": loss}

def make(kind):
    keras.utils.set_random_seed(0)
    if kind == "unbuilt":  # no Input: the first call (a magic's, or fit's) builds it
        model = keras.Sequential([keras.layers.Dense(8, activation="relu"), keras.layers.Dense(3)])
    elif kind in ("tf_function_step", "own_step"):
        model = {"tf_function_step": TfFunctionStep, "own_step": OwnStep}[kind]()
        model(np.zeros((1, 6), "float32"))  # built, as after a first look at its output
    else:
        model = keras.Sequential(
            [keras.Input((6,)), keras.layers.Dense(8, activation="relu"), keras.layers.Dense(3)]
        )
    options = {
        "run_eagerly": {"run_eagerly": True},
        "steps_per_execution": {"steps_per_execution": 3},
        "jit_compile": {"jit_compile": True},
    }
    if kind == "mixed_precision":  # the layers keep the policy they were made with
        keras.mixed_precision.set_global_policy("mixed_float16")
        model = keras.Sequential(
            [keras.Input((6,)), keras.layers.Dense(8, activation="relu"), keras.layers.Dense(3, dtype="float32")]
        )
        keras.mixed_precision.set_global_policy("float32")
    loss = keras.losses.SparseCategoricalCrossentropy(from_logits=True)
    model.compile(keras.optimizers.Adam(0.01), loss, **options.get(kind, {}))
    if kind == "recompiled":  # trained, then compiled again with a new optimizer
        model.fit(ds, epochs=1, verbose=0)
        model.compile(keras.optimizers.SGD(0.05, momentum=0.9), loss)
    return model

"""

FIT = "history = model.fit(ds, epochs=2, verbose=0)"
CELL_MAGICS = (
    "%%tfgrad -q",
    "%%tfgrad --live --stop-on nan --mem",
    "%%tfcheck -q --no-live",
    "%%tfmem -q",
)
LINE_MAGICS = (
    "%tflint model --data ds",
    "%tfoverfit model ds --steps 20",
    "%tfshape model x",
    "%tfgrad model x[:16] y[:16]",
    "%tfconsistency model x[:8] --export",
    "%tfpipeline ds --model model",
)
KINDS = ("tf_function_step", "own_step", "sequential")
# states of a compiled Sequential, each fresh (the first fit is the one observed)
STATES = (
    "run_eagerly",
    "steps_per_execution",
    "recompiled",
    "jit_compile",
    "mixed_precision",
    "unbuilt",
)
# fit calls users make, each on a fresh compiled Sequential
FITS = {
    "class_weight": "history = model.fit(ds, epochs=2, verbose=0, class_weight={0: 1.0, 1: 2.0, 2: 0.5})",
    "sample_weight": "history = model.fit(x, y, batch_size=16, epochs=2, verbose=0, shuffle=False, sample_weight=np.linspace(0.5, 1.5, len(x)))",
    "callbacks": "history = model.fit(ds, epochs=3, verbose=0, callbacks=[keras.callbacks.LearningRateScheduler(lambda epoch, lr: lr * 0.5), keras.callbacks.EarlyStopping('loss', patience=0, min_delta=10.0)])",
    "fit_twice": "model.fit(ds, epochs=1, verbose=0)\nhistory = model.fit(ds, epochs=1, verbose=0)",
}


def _state(shell: InteractiveShell) -> tuple[Any, ...]:
    model = shell.user_ns["model"]
    return (
        [v.numpy() for v in model.weights],
        int(model.optimizer.iterations.numpy()),
        [v.numpy() for v in model.optimizer.variables],
    )


def _cell(shell: InteractiveShell, source: str) -> dict[str, list[float]]:
    with capture_output():
        result = shell.run_cell(source)
    assert result.success, f"{source!r} failed: {result.error_in_exec!r}"
    return dict(shell.user_ns["history"].history)


def _program(
    shell: InteractiveShell, kind: str, prefit: bool, magic: str | None, fit: str = FIT
) -> Any:
    """fit (before, if asked), the magic (around the first ``fit`` cell for a cell magic), a
    plain fit."""
    shell.user_ns["model"] = shell.user_ns["make"](kind)
    histories = []
    if prefit:
        histories.append(_cell(shell, FIT))
    if magic is not None and magic.startswith("%%"):
        name, _, args = magic.lstrip("%").partition(" ")
        with capture_output():
            shell.run_cell_magic(name, args, fit)
        histories.append(dict(shell.user_ns["history"].history))
    else:
        if magic is not None:
            run_magic(shell, magic)
        histories.append(_cell(shell, fit))
    histories.append(_cell(shell, FIT))  # the next plain cell
    return histories, _state(shell)


_PLAIN: dict[tuple[str, bool, str], Any] = {}


def _plain(shell: InteractiveShell, kind: str, prefit: bool, fit: str = FIT) -> Any:
    """The program without a magic: deterministic (seeded, unshuffled), so run once per
    process for each (kind, prefit, fit) and compared with every magic's run."""
    key = (kind, prefit, fit)
    if key not in _PLAIN:
        _PLAIN[key] = _program(shell, kind, prefit, None, fit)
    return _PLAIN[key]


def _assert_same(observed: Any, plain: Any, *, exact: bool = True) -> None:
    """Bit for bit; ``exact=False`` to float32 rounding (XLA switched off for one cell)."""
    (h1, (w1, it1, o1)), (h2, (w2, it2, o2)) = observed, plain
    same = np.array_equal if exact else (lambda a, b: np.allclose(a, b, rtol=1e-4, atol=1e-6))
    assert it1 == it2
    assert [sorted(h) for h in h1] == [sorted(h) for h in h2]
    for a, b in zip(h1, h2, strict=True):
        assert all(same(np.asarray(a[k]), np.asarray(b[k])) for k in a), (a, b)
    assert len(w1) == len(w2) and all(same(a, b) for a, b in zip(w1, w2, strict=True))
    assert len(o1) == len(o2) and all(same(a, b) for a, b in zip(o1, o2, strict=True))


@pytest.fixture
def defined(shell: InteractiveShell) -> InteractiveShell:
    with capture_output():
        shell.run_cell(DEFINE).raise_error()
    return shell


@pytest.mark.slow
@pytest.mark.parametrize("prefit", [False, True], ids=["fresh", "fit-before"])
@pytest.mark.parametrize("kind", KINDS)
@pytest.mark.parametrize("magic", [*CELL_MAGICS, *LINE_MAGICS])
def test_a_looked_at_model_trains_next_as_it_would_have(
    defined: InteractiveShell, magic: str, kind: str, prefit: bool
) -> None:
    plain = _plain(defined, kind, prefit)
    observed = _program(defined, kind, prefit, magic)
    _assert_same(observed, plain)


@pytest.mark.slow
@pytest.mark.parametrize("state", STATES)
@pytest.mark.parametrize("magic", [*CELL_MAGICS, *LINE_MAGICS])
def test_a_model_in_a_state_users_leave_it_in_trains_next_as_it_would_have(
    defined: InteractiveShell, magic: str, state: str
) -> None:
    plain = _plain(defined, state, False)
    observed = _program(defined, state, False, magic)
    # %%tfcheck switches XLA off for its cell (XLA drops NaN checks; its report says so), so
    # that cell's float32 results are XLA's within rounding, not bit for bit
    _assert_same(observed, plain, exact=not (state == "jit_compile" and "tfcheck" in magic))


@pytest.mark.slow
@pytest.mark.parametrize("fit", list(FITS))
@pytest.mark.parametrize("magic", [*CELL_MAGICS, *LINE_MAGICS[:2]])
def test_a_fit_call_users_make_trains_as_it_would_have(
    defined: InteractiveShell, magic: str, fit: str
) -> None:
    plain = _plain(defined, "sequential", False, FITS[fit])
    observed = _program(defined, "sequential", False, magic, FITS[fit])
    _assert_same(observed, plain)


@pytest.mark.slow
def test_the_tf_function_step_is_left_untraced_when_a_magic_traced_it_first(
    defined: InteractiveShell,
) -> None:
    """The mechanism: the step a magic traced is not left in the user's tf.function (its next
    call is a first call, which may create the optimizer's variables), and one traced before
    keeps its own graph."""
    fresh = defined.user_ns["make"]("tf_function_step")
    defined.user_ns["model"] = fresh
    run_magic(defined, "%tflint model --data ds")
    step_descriptor = type(fresh).__dict__["train_step"]
    assert fresh not in step_descriptor._descriptor_cache  # no function made for it remains
    _cell(defined, FIT)
    step = fresh.train_step
    traces = step.experimental_get_tracing_count()
    concrete = step._list_all_concrete_functions()
    with capture_output():
        defined.run_cell_magic("tfgrad", "-q", FIT)
    assert fresh.train_step is step
    assert step.experimental_get_tracing_count() == traces
    assert step._list_all_concrete_functions() == concrete


# the public functions a script calls around the first fit (each a cell magic's twin), and
# the inspector before it (it traces the model and captures a layer's output)
SCRIPTS = {
    "record_gradients": "with tfnb_debug.record_gradients() as rec:\n    " + FIT,
    "run_checked": "history, checked = tfnb_debug.run_checked(lambda: model.fit(ds, epochs=2, verbose=0))",
    "track_memory": "with tfnb_debug.track_memory():\n    " + FIT,
    "inspect": "insp = tfnb_debug.inspect(model, x[:4])\ninsp.select(model.layers[0].path)\n" + FIT,
}


@pytest.mark.slow
@pytest.mark.parametrize("kind", ["tf_function_step", "sequential", "unbuilt"])
@pytest.mark.parametrize("script", list(SCRIPTS))
def test_the_public_functions_in_a_script_train_as_the_plain_program(
    defined: InteractiveShell, script: str, kind: str
) -> None:
    plain = _plain(defined, kind, False)
    defined.run_cell("import tfnb_debug").raise_error()
    observed = _program(defined, kind, False, None, SCRIPTS[script])
    _assert_same(observed, plain)


SHARED_OPTIMIZER = """
keras.utils.set_random_seed(0)
opt = keras.optimizers.Adam(0.01)
first, model = (
    keras.Sequential([keras.Input((6,)), keras.layers.Dense(3, name="out")], name=name)
    for name in ("first", "second")
)
for each in (first, model):
    each.compile(opt, keras.losses.SparseCategoricalCrossentropy(from_logits=True))
first.fit(ds, epochs=1, verbose=0)  # the optimizer is built for first's variables
"""


def _raised(shell: InteractiveShell, source: str, magic: str | None) -> tuple[str, str]:
    with capture_output():
        shell.run_cell(SHARED_OPTIMIZER).raise_error()
        if magic is not None and magic.startswith("%%"):
            result = shell.run_cell(f"{magic}\n{source}")  # the failing fit is the magic's
        else:
            if magic is not None:
                shell.run_cell(magic)
            result = shell.run_cell(source)
    error = result.error_in_exec
    assert error is not None, "the second model's fit with the first's optimizer trained"
    return type(error).__name__, str(error)


@pytest.mark.slow
@pytest.mark.parametrize("magic", [*CELL_MAGICS, *LINE_MAGICS])
def test_an_optimizer_shared_by_two_models_fails_as_it_does_without_the_magic(
    defined: InteractiveShell, magic: str
) -> None:
    """Keras 3 builds an optimizer for one model's variables: the second model's fit raises.
    Under (or after) a magic it raises the same exception, with the same message, and the
    first model's optimizer is untouched."""
    plain = _raised(defined, FIT, None)
    iterations = int(defined.user_ns["opt"].iterations.numpy())
    assert _raised(defined, FIT, magic) == plain
    assert int(defined.user_ns["opt"].iterations.numpy()) == iterations


@pytest.mark.slow
@pytest.mark.parametrize("magic", [CELL_MAGICS[0], CELL_MAGICS[2], *LINE_MAGICS[:2]])
def test_a_model_fit_before_the_extension_loaded_trains_as_it_would_have(
    bare_shell: InteractiveShell, magic: str
) -> None:
    """The notebook trained a model, then loaded tfnb_debug: Keras' kept train function was
    traced without any hook."""
    with capture_output():
        bare_shell.run_cell(DEFINE).raise_error()
    plain = _program(bare_shell, "sequential", True, None)
    bare_shell.user_ns["model"] = bare_shell.user_ns["make"]("sequential")
    histories = [_cell(bare_shell, FIT)]
    with capture_output():
        bare_shell.run_line_magic("load_ext", "tfnb_debug")
    try:
        if magic.startswith("%%"):
            name, _, args = magic.lstrip("%").partition(" ")
            with capture_output():
                bare_shell.run_cell_magic(name, args, FIT)
            histories.append(dict(bare_shell.user_ns["history"].history))
        else:
            run_magic(bare_shell, magic)
            histories.append(_cell(bare_shell, FIT))
        histories.append(_cell(bare_shell, FIT))
        observed = (histories, _state(bare_shell))
    finally:
        with capture_output():
            bare_shell.run_line_magic("unload_ext", "tfnb_debug")
    # the plain program fits three times; this one fits before, under or after the magic, next
    assert len(observed[0]) == len(plain[0]) == 3
    _assert_same(observed, plain)


UNFREEZE = """
keras.utils.set_random_seed(0)
base = keras.Sequential(
    [keras.Input((6,)), keras.layers.Dense(8, activation="relu", name="base_dense")], name="base"
)
base.trainable = BEFORE
inputs = keras.Input((6,))
model = keras.Model(inputs, keras.layers.Dense(3, name="head")(base(inputs)))
model.compile(
    keras.optimizers.Adam(0.01), keras.losses.SparseCategoricalCrossentropy(from_logits=True)
)
model.fit(ds, epochs=1, verbose=0)
base.trainable = AFTER  # without compile(): Keras' kept step trains what it was traced with
"""


def _unfrozen_program(shell: InteractiveShell, before: bool, magic: str | None) -> Any:
    with capture_output():
        shell.run_cell(UNFREEZE.replace("BEFORE", str(before)).replace("AFTER", str(not before)))
    shown = None
    if magic is None or not magic.startswith("%%"):
        if magic is not None:
            shown = run_magic(shell, magic)  # a line magic first, then the plain fit
        histories = [_cell(shell, FIT)]
    else:
        shown = run_magic(shell, magic, FIT)
        histories = [dict(shell.user_ns["history"].history)]
    histories.append(_cell(shell, FIT))
    flags = [layer.trainable for layer in shell.user_ns["base"].layers]
    return (histories, _state(shell)), shown, flags


@pytest.mark.slow
@pytest.mark.parametrize("magic", ["%%tfgrad -o -q", "%%tfcheck -o -q --no-live"])
@pytest.mark.parametrize("before", [False, True], ids=["unfrozen-after-fit", "frozen-after-fit"])
def test_trainable_changed_after_fit_trains_as_keras_kept_step_with_a_finding(
    defined: InteractiveShell, magic: str, before: bool
) -> None:
    """Keras keeps the traced step until compile(): a base unfrozen after fit does not train
    (and one frozen after fit still does).  The magic's own step is traced with the flags of
    then (it used to fail with the optimizer's 'Unknown variable'), the user's flags are back
    afterwards, and an unfrozen base gets a G04 naming it and compile()."""
    plain, _, plain_flags = _unfrozen_program(defined, before, None)
    observed, shown, flags = _unfrozen_program(defined, before, magic)
    _assert_same(observed, plain)
    assert flags == plain_flags == [not before]
    report = shown.result
    stale = [f for f in report.findings if f.code == "G04"]
    if before:  # frozen after fit: it still trains, no variable lacks a gradient
        assert stale == []
    else:
        assert len(stale) == 1
        assert "base/base_dense" in stale[0].message and "compile(" in stale[0].hint
        assert "built for 2 variable(s)" in stale[0].evidence
        assert "model.trainable_variables now holds 4" in stale[0].evidence


@pytest.mark.slow
def test_unfrozen_and_recompiled_gets_no_finding(defined: InteractiveShell) -> None:
    """The fix the finding gives: compile() again, and the base trains, without a G04."""
    with capture_output():
        defined.run_cell(UNFREEZE.replace("BEFORE", "False").replace("AFTER", "True"))
        defined.run_cell("model.compile(keras.optimizers.Adam(1e-3), model.loss)")
    weights = defined.user_ns["base"].get_weights()[0].copy()
    shown = run_magic(defined, "%%tfgrad -o -q", FIT)
    assert not any(f.code == "G04" for f in shown.result.findings)
    assert not np.array_equal(weights, defined.user_ns["base"].get_weights()[0])  # it trained


@pytest.mark.slow
@pytest.mark.parametrize("magic", ["%tfoverfit model ds --steps 20", "%tflint model --data ds"])
@pytest.mark.parametrize("before", [False, True], ids=["unfrozen-after-fit", "frozen-after-fit"])
def test_a_line_magic_trains_a_base_changed_after_fit_as_keras_would(
    defined: InteractiveShell, magic: str, before: bool
) -> None:
    """%tfoverfit trains the model for a moment (it used to fail with 'Unknown variable' on a
    base unfrozen after fit): with the flags the kept step was traced with, and the model is
    as it was afterwards."""
    plain, _, plain_flags = _unfrozen_program(defined, before, None)
    observed, _, flags = _unfrozen_program(defined, before, magic)
    _assert_same(observed, plain)
    assert flags == plain_flags == [not before]


STRATEGY_SCRIPT = r'''
import json, sys
import tensorflow as tf
cpu = tf.config.list_physical_devices("CPU")[0]
tf.config.set_logical_device_configuration(cpu, [tf.config.LogicalDeviceConfiguration()] * 2)
from IPython.core.interactiveshell import InteractiveShell
from IPython.utils.capture import capture_output
shell = InteractiveShell.instance()
with capture_output():
    shell.run_line_magic("load_ext", "tfnb_debug")
    shell.run_cell("""
import numpy as np, keras, tensorflow as tf
strategy = tf.distribute.MirroredStrategy(["/cpu:0", "/cpu:1"])
with strategy.scope():  # created in the scope, not built yet (no Input)
    model = keras.Sequential([keras.layers.Conv2D(4, 3), keras.layers.Flatten(), keras.layers.Dense(3)])
    model.compile("adam", keras.losses.SparseCategoricalCrossentropy(from_logits=True))
x = np.random.default_rng(0).normal(size=(32, 8, 8, 1)).astype("float32")
y = np.random.default_rng(0).integers(0, 3, 32)
""").raise_error()
    if sys.argv[1] != "plain":
        shell.run_line_magic("tfshape", "model x[:2]")
    result = shell.run_cell("model.fit(x, y, batch_size=16, epochs=1, verbose=0)")
kinds = sorted({type(v.value).__name__ for v in shell.user_ns["model"].weights})
print(json.dumps({"success": result.success, "kinds": kinds}))
'''


@pytest.mark.slow
def test_tfshape_builds_a_model_made_in_a_strategy_scope_under_that_strategy() -> None:
    """The distributed tutorial's model, created in strategy.scope() and not built: %tfshape
    builds it under the strategy (its variables are mirrored, as the user's first fit would
    make them), and the next fit trains (it failed with 'colocate_vars_with')."""
    outcomes = {}
    for mode in ("plain", "tfshape"):
        done = subprocess.run(
            [sys.executable, "-c", STRATEGY_SCRIPT, mode],
            capture_output=True,
            text=True,
            timeout=300,
            env={**os.environ, "TF_CPP_MIN_LOG_LEVEL": "3"},
        )
        assert done.returncode == 0, done.stderr[-3000:]
        outcomes[mode] = json.loads(done.stdout.strip().splitlines()[-1])
    assert (
        outcomes["tfshape"]
        == outcomes["plain"]
        == {
            "success": True,
            "kinds": ["MirroredVariable"],
        }
    )
