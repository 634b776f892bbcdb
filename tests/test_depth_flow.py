"""What stops the signal or the gradient flowing through a network's depth, read from a
recorded ``fit`` (%%tfgrad): a gradient that shrinks layer after layer back to the input
while the loss does not fall (G01), and hidden sigmoid/tanh units the trained model keeps
pinned at their bounds (N03 after the fit), each with the cause its evidence shows; and
silence on the twin that trains."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest
from IPython.core.interactiveshell import InteractiveShell

from tests._support import run_magic

BLOBS = """
import numpy as np, keras
keras.utils.set_random_seed(0)
rng = np.random.default_rng(0)
centers = rng.normal(0.0, 1.0, (10, 20)).astype("float32")
y = rng.integers(0, 10, 600)
x = (centers[y] + rng.normal(0.0, 1.0, (600, 20))).astype("float32")
"""

DEEP = """
model = keras.Sequential(
    [keras.Input((20,))]
    + [keras.layers.Dense(32, activation=ACT, kernel_initializer=INIT, name=f"h{i}")
       for i in range(1, DEPTH + 1)]
    + [keras.layers.Dense(10, activation="softmax", name="out")]
)
model.compile(keras.optimizers.SGD(0.05), "sparse_categorical_crossentropy")
"""


def _fit(shell: InteractiveShell, setup: str, options: str = "--no-trial", epochs: int = 8) -> Any:
    assert shell.run_cell(BLOBS + setup).success
    fit = f"model.fit(x, y, epochs={epochs}, batch_size=32, verbose=0)"
    run_magic(shell, f"%%tfgrad -o -v rep --no-live {options}", fit)
    return shell.user_ns["rep"]


def _deep(act: str, init: str, depth: int) -> str:
    return DEEP.replace("ACT", repr(act)).replace("INIT", repr(init)).replace("DEPTH", str(depth))


def _codes(report: Any) -> set[str]:
    return {f.code for f in report.findings}


@pytest.mark.slow
def test_a_gradient_that_dies_through_a_sigmoid_stack_is_g01_at_its_first_layer(
    shell: InteractiveShell,
) -> None:
    report = _fit(shell, _deep("sigmoid", "glorot_uniform", 8), epochs=10)
    g01 = next(f for f in report.findings if f.code == "G01")
    assert g01.place == "layer 'h1'"
    assert "on its way back through the network" in g01.message
    assert "largest layer norm (layer 'out')" in g01.message
    # the per-layer factor is measured: a sigmoid passes at most a quarter of the gradient
    factor = float(g01.message.split("it shrinks about ")[1].split("x per layer")[0])
    assert 2.0 < factor < 10.0
    assert "while the loss does not fall" in g01.message and "loss from" in g01.evidence
    # the hint names the model's own cause: its sigmoid layers, not its initializers
    assert g01.hint.startswith("saturating activations in 'h1' (sigmoid)")
    assert "initializers" not in g01.hint
    # the twin that trains (ReLU, He initialization) has no G01 and no stalled loss
    twin = _fit(shell, _deep("relu", "he_normal", 8), epochs=10)
    assert not _codes(twin) & {"G01", "G07", "N03"}


def test_a_vanishing_gradient_in_a_relu_stack_names_its_initializers_not_relu(
    shell: InteractiveShell,
) -> None:
    """ReLU layers whose kernels are far too small for their fan-in: G01's hint names the
    initializers, and says nothing of saturating activations the model does not have."""
    setup = _deep("relu", "PLACEHOLDER", 8).replace(
        "'PLACEHOLDER'", "keras.initializers.RandomNormal(stddev=0.01)"
    )
    report = _fit(shell, setup, epochs=10)
    g01 = next(f for f in report.findings if f.code == "G01")
    assert g01.hint.startswith("initializers that keep the layers from learning: 'h1' (")
    assert "0.045x the 1/sqrt(fan_in) scale for its 20 inputs" in g01.hint
    assert "kernel_initializer='glorot_uniform'" in g01.hint
    assert "sigmoid" not in g01.hint and "ReLU-family" not in g01.hint


@pytest.mark.slow
def test_the_trial_confirms_relu_for_the_collapsing_gradient(shell: InteractiveShell) -> None:
    report = _fit(shell, _deep("sigmoid", "glorot_uniform", 8), options="--control", epochs=10)
    g01 = next(f for f in report.findings if f.code == "G01")
    assert g01.hint.startswith("activation='relu' with kernel_initializer='he_normal' in layers")
    assert ": confirmed on a copy" in g01.hint


def test_a_huge_initial_spread_pins_tanh_units_and_the_initializer_is_named(
    shell: InteractiveShell,
) -> None:
    setup = _deep("tanh", "PLACEHOLDER", 3).replace(
        "'PLACEHOLDER'", "keras.initializers.RandomNormal(stddev=5.0)"
    )
    report = _fit(shell, setup)
    n03 = next(f for f in report.findings if f.code == "N03")
    assert n03.message.startswith("after fit, ")
    assert "of tanh layer 'h" in n03.message and "of the 600 training examples" in n03.message
    assert "'h1' (RandomNormal kernel of spread 5)" in n03.hint
    assert "kernel_initializer='glorot_uniform'" in n03.hint
    assert "inputs on a large scale" not in n03.hint  # the inputs are standardized
    assert n03.severity == "warning"
    twin = _fit(shell, _deep("tanh", "glorot_uniform", 3))
    assert "N03" not in _codes(twin)


def test_unscaled_inputs_that_pin_a_tanh_layer_are_named_not_the_initializer(
    shell: InteractiveShell,
) -> None:
    # pixel-scale inputs (0..255) into a tanh layer with its default initializer
    setup = "x = (x - x.min()) * 40.0\n" + _deep("tanh", "glorot_uniform", 2)
    report = _fit(shell, setup, epochs=3)
    n03 = next(f for f in report.findings if f.code == "N03")
    assert "inputs on a large scale reach the first weighted layer 'h1'" in n03.hint
    assert "initializer that pins" not in n03.hint
    # the same data standardized: the units move again
    scaled = "x = (x - x.min()) * 40.0\nx = (x - x.mean(0)) / x.std(0)\n" + _deep(
        "tanh", "glorot_uniform", 2
    )
    assert "N03" not in _codes(_fit(shell, scaled, epochs=3))


def test_a_confident_output_sigmoid_is_not_judged(shell: InteractiveShell) -> None:
    setup = """
y = (y < 5).astype("float32")
model = keras.Sequential([
    keras.Input((20,)),
    keras.layers.Dense(32, activation="relu", name="h1"),
    keras.layers.Dense(1, activation="sigmoid", name="out"),
])
model.compile(keras.optimizers.Adam(0.01), "binary_crossentropy")
"""
    report = _fit(shell, setup, epochs=20)
    assert "N03" not in _codes(report)


def test_the_probe_leaves_the_model_bit_identical(shell: InteractiveShell) -> None:
    from tfnb_debug.collect.hidden_activity import saturation_after_fit

    setup = _deep("tanh", "PLACEHOLDER", 2).replace(
        "'PLACEHOLDER'", "keras.initializers.RandomNormal(stddev=5.0)"
    )
    assert shell.run_cell(BLOBS + setup).success
    assert shell.run_cell("model.fit(x, y, epochs=1, verbose=0)").success
    model, x = shell.user_ns["model"], shell.user_ns["x"]
    before = [v.numpy().copy() for v in model.variables + model.optimizer.variables]
    state = np.random.get_state()[1].copy()
    reading = saturation_after_fit(model, x)
    assert reading is not None and [s.layer for s in reading.layers] == ["h1", "h2"]
    after = [v.numpy() for v in model.variables + model.optimizer.variables]
    assert all(np.array_equal(a, b) for a, b in zip(before, after, strict=True))
    assert np.array_equal(state, np.random.get_state()[1])


def test_a_loss_learned_down_to_zero_is_not_a_stall(shell: InteractiveShell) -> None:
    # a ReLU CNN that fits its training set exactly (the correct version of the benchmark's
    # sigmoid CNN): its loss, gradients and steps reach 0, which is the end of training
    # (G01/G06/G07 say nothing), not a vanishing gradient or a stalled loss
    from tests.fault_bench.depth_flow import CASES

    case = next(c for c in CASES if c.name == "conv2d_sigmoid_stack")
    assert shell.run_cell(case.correct_setup).success
    run_magic(shell, "%%tfgrad -o -v rep --no-live --no-trial", case.correct_train)
    report = shell.user_ns["rep"]
    history = report.history
    loss = history.loss[history.loss_known]
    assert loss[-1] < 1e-6 * loss[0]  # it did learn the set down to (about) zero
    assert not _codes(report) & {"G01", "G06", "G07"}


def test_the_collapse_hint_says_what_the_model_has() -> None:
    from tfnb_debug.diagnostics.gradients import collapse_hint

    both = collapse_hint(["'h1' (tanh)"], ["'h2' (ones kernel)"])
    assert both.startswith("two causes fit: saturating activations in 'h1' (tanh)")
    assert "'h2' (ones kernel)" in both
    neither = collapse_hint([], [])
    assert neither.startswith("no hidden layer on the way uses a saturating activation")
    assert "ReLU" not in neither
    unread = collapse_hint(None, None)  # no model to read (a custom loop): both usual causes
    assert "saturating" in unread and "fan-in" in unread
