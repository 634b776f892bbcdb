"""A training fault's fix tried on a copy (%%tfgrad): the change that made the loss fall is
named, the one that did not is said, and the user's model and every random state are as
they were."""

from __future__ import annotations

import random
from typing import Any

import keras
import numpy as np
import pytest
import tensorflow as tf
from IPython.core.interactiveshell import InteractiveShell

from tests._support import run_magic
from tfnb_debug.collect.fix_trial import run_fix_trial
from tfnb_debug.records.trials import Change

SETUP = """
import numpy as np, keras
keras.utils.set_random_seed(0)
rng = np.random.default_rng(0)
x = rng.normal(size=(512, 8)).astype("float32")
y = (x[:, 0] + x[:, 1] > 0).astype("int32")
model = keras.Sequential(
    [keras.Input((8,))]
    + [keras.layers.Dense(32, activation=ACT, name=f"h{i}") for i in range(DEPTH)]
    + [keras.layers.Dense(1, activation="sigmoid", name="out")]
)
model.compile(OPT, "binary_crossentropy", metrics=["accuracy"])
"""
FIT = "model.fit(x, y, epochs=5, batch_size=32, verbose=0)"


def _setup(shell: InteractiveShell, opt: str, act: str = "relu", depth: int = 1) -> None:
    code = SETUP.replace("OPT", opt).replace("ACT", repr(act)).replace("DEPTH", str(depth))
    assert shell.run_cell(code).success


def _report(shell: InteractiveShell, options: str = "") -> Any:
    run_magic(shell, f"%%tfgrad -o -v rep --no-live {options}", FIT)
    return shell.user_ns["rep"]


@pytest.mark.slow
def test_a_diverging_learning_rate_is_named_and_its_fix_confirmed(shell: InteractiveShell) -> None:
    _setup(shell, "keras.optimizers.SGD(20.0)")
    report = _report(shell)
    g05 = next(f for f in report.findings if f.code == "G05")
    assert "a trial on a copy points at the learning rate (20) is too high" in g05.message
    assert g05.hint.startswith(
        "lower the learning rate to 2 (was 20): confirmed on a copy (80 steps on 512"
    )
    rows = {row[0]: row for row in report.table("fix trials").rows}
    assert not np.isfinite(rows["unchanged"][-2]) and rows["lower the learning rate to 2 (was 20)"][
        -1
    ] == ("confirmed")


@pytest.mark.slow
def test_a_vanishing_sigmoid_stack_points_at_the_activations_not_the_rate(
    shell: InteractiveShell,
) -> None:
    # eight sigmoid layers: G06 reads "weights barely move"; raising the learning rate does
    # not help on a copy, ReLU with He initialization does, and both are said
    _setup(shell, "keras.optimizers.SGD(0.01)", act="sigmoid", depth=8)
    report = _report(shell)
    g06 = next(f for f in report.findings if f.code == "G06")
    assert "points at the saturating activations of layers 'h0', 'h1', 'h2'" in g06.message
    assert g06.message.endswith("instead")
    assert g06.hint.startswith("activation='relu' with kernel_initializer='he_normal' in layers")
    assert "raise the learning rate to 0.1 (was 0.01): did not help on a copy" in g06.hint


def test_quiet_skips_the_trial_and_says_so(shell: InteractiveShell) -> None:
    _setup(shell, "keras.optimizers.SGD(20.0)")
    report = _report(shell, "-q")
    g05 = next(f for f in report.findings if f.code == "G05")
    assert "not tried on a copy (skipped with -q; add --control to run it)" in g05.hint
    assert "fix trials" not in [t.name for t in report.tables]
    off = _report(shell, "--no-trial")
    assert "on a copy" not in next(f for f in off.findings if f.code == "G05").hint


def test_a_healthy_fit_gets_no_trial(shell: InteractiveShell) -> None:
    _setup(shell, "keras.optimizers.Adam(1e-3)")
    report = _report(shell)
    assert "fix trials" not in [t.name for t in report.tables]
    assert not any("on a copy" in f.hint for f in report.findings)


def _states() -> tuple[Any, ...]:
    """The next draws of every global random source (consumes them: compare two runs)."""
    return (
        random.random(),
        float(np.random.random()),
        float(tf.random.uniform(())),
        float(keras.random.uniform(())),
    )


def test_the_trial_leaves_the_model_and_every_random_state_as_they_were() -> None:
    # the copies draw their weights from Keras' global seed generator and train with it:
    # without TrainingGuard the draws after the trial would differ from those without it
    keras.utils.set_random_seed(7)
    rng = np.random.default_rng(0)
    x = rng.normal(size=(256, 8)).astype("float32")
    y = (x[:, 0] > 0).astype("int32")
    model = keras.Sequential(
        [keras.Input((8,)), keras.layers.Dense(8, activation="relu"), keras.layers.Dense(1)]
    )
    model.compile(keras.optimizers.Adam(1e-2), "mse")
    model.fit(x, y, epochs=1, verbose=0)
    before = [v.numpy().copy() for v in [*model.variables, *model.optimizer.variables]]
    keras.utils.set_random_seed(11)
    expected = _states()
    keras.utils.set_random_seed(11)
    changes = [Change("learning_rate", "lower", 0.1), Change("clipnorm", "clip", 1.0)]
    trial = run_fix_trial(model, {"x": x, "y": y, "batch_size": 32, "epochs": 2}, changes)
    assert trial.ran and len(trial.runs) == 2, trial.reason
    assert _states() == expected
    after = [v.numpy() for v in [*model.variables, *model.optimizer.variables]]
    assert all(np.array_equal(a, b) for a, b in zip(before, after, strict=True))


def test_a_trial_that_cannot_run_says_why() -> None:
    model = keras.Sequential([keras.Input((2,)), keras.layers.Dense(1)])
    trial = run_fix_trial(model, {"x": np.zeros((4, 2)), "y": None}, [Change("clipnorm", "c")])
    assert not trial.ran and trial.reason == "fit was given no labels"
    assert (
        trial.verdict(Change("clipnorm", "c")) == "c: not tried on a copy (fit was given no labels)"
    )


@pytest.mark.slow
def test_a_learning_rate_too_low_reads_the_whole_run_and_tries_the_default(
    shell: InteractiveShell,
) -> None:
    # SGD(1e-5) from initialization: the mini-batch loss varies, but its level does not
    # fall over the run (G07); 10x is still too low, SGD's default 0.01 trains
    _setup(shell, "keras.optimizers.SGD(1e-5)")
    report = _report(shell)
    g07 = next(f for f in report.findings if f.code == "G07")
    assert "does not fall over the 80 recorded steps of a model trained from initialization" in (
        g07.message
    )
    assert g07.message.endswith("a trial on a copy points at the learning rate (1e-05) is too low")
    assert g07.hint.startswith("raise the learning rate to 0.01 (was 1e-05): confirmed on a copy")
    assert "raise the learning rate to 0.0001 (was 1e-05): did not help" in g07.hint
    # the same model again: it no longer trains from initialization, so a level loss is not
    # read as "nothing learned" (a trained model's loss also stays level)
    again = _report(shell, "--no-trial")
    assert "G07" not in again.codes()


@pytest.mark.slow
def test_regression_targets_in_the_hundreds_of_thousands_are_standardized_on_a_copy(
    shell: InteractiveShell,
) -> None:
    code = """
import numpy as np, keras
keras.utils.set_random_seed(0)
rng = np.random.default_rng(0)
x = rng.normal(size=(512, 6)).astype("float32")
y = (300_000 + 80_000 * (x @ rng.normal(size=(6,)))).astype("float32")
model = keras.Sequential([keras.Input((6,)), keras.layers.Dense(32, activation="relu"),
                          keras.layers.Dense(1)])
model.compile(keras.optimizers.Adam(1e-3), "mse")
"""
    assert shell.run_cell(code).success
    report = _report(shell)
    g07 = next(f for f in report.findings if f.code == "G07")
    assert "points at the scale of the targets (about 3" in g07.message
    assert g07.hint.startswith("standardized targets: y = (y - y.mean()) / y.std()")
    assert "confirmed on a copy" in g07.hint.split(";")[0]


@pytest.mark.slow
def test_a_dead_start_points_at_the_initializers_not_at_relu(shell: InteractiveShell) -> None:
    # ReLU layers with a bias of -10: no unit ever fires; "use ReLU" is already in place,
    # the trial gives the layer Keras' default initializers and the loss falls
    _setup(shell, "keras.optimizers.Adam(1e-3)")
    assert shell.run_cell(
        "model = keras.Sequential([keras.Input((8,)), keras.layers.Dense(32, activation='relu',"
        " bias_initializer=keras.initializers.Constant(-10.0), name='h0'),"
        " keras.layers.Dense(1, activation='sigmoid', name='out')])\n"
        "model.compile('adam', 'binary_crossentropy')"
    ).success
    report = _report(shell)
    faults = [f for f in report.findings if f.code in {"G01", "G06", "G07"}]
    assert faults and all("the initialization of 'h0' (bias -10)" in f.message for f in faults)
    assert all("bias_initializer='zeros') in 'h0' (bias -10): confirmed" in f.hint for f in faults)


def test_suspicious_initializers_are_read_from_the_layer_configs() -> None:
    from tfnb_debug.collect.fix_trial import suspicious_initializers

    init = keras.initializers
    model = keras.Sequential(
        [
            keras.Input((4,)),
            keras.layers.Dense(4, kernel_initializer="zeros", name="a"),
            keras.layers.Dense(4, kernel_initializer=init.RandomNormal(stddev=5.0), name="b"),
            keras.layers.Dense(4, kernel_initializer="he_normal", name="c"),
            keras.layers.Dense(4, bias_initializer=init.Constant(0.1), name="d"),
            keras.layers.Dense(1, bias_initializer="ones", name="e"),
        ]
    )
    assert suspicious_initializers(model) == [
        "'a' (Zeros kernel)",
        "'b' (RandomNormal kernel of spread 5)",
        "'e' (bias 1)",
    ]
