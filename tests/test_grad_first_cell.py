"""The first ``%%tfgrad`` or ``%%tfcheck`` cell on a fresh model traces the instrumented step once.

Without a strategy Keras builds the optimizer inside the first trace of ``fit``, and a
``tf.function`` whose first trace creates variables is traced again without them: the
plain first ``fit`` traces its step twice, and so did the instrumented one, statistics ops
and all.  ``%%tfgrad`` and ``%%tfcheck`` build the optimizer before the trace as Keras does
under a strategy (``%%tfgrad`` makes its own buffers then), so the step is traced once; the
training is bit for bit the one without the extension.
"""

from __future__ import annotations

import numpy as np
import pytest
from IPython.core.interactiveshell import InteractiveShell
from IPython.utils.capture import capture_output

from tfnb_debug.collect.gradients import GradientCapture

pytestmark = pytest.mark.slow

SETUP = """
import numpy as np, keras
rng = np.random.default_rng(0)
x = rng.normal(size=(64, 6)).astype("float32")
y = rng.integers(0, 3, 64)
def fresh():
    keras.utils.set_random_seed(1)
    model = keras.Sequential([keras.Input((6,)), keras.layers.Dense(8, activation="relu", name="h"),
                              keras.layers.Dense(3, name="out")], name="net")
    model.compile(keras.optimizers.Adam(1e-2, name="opt"), "sparse_categorical_crossentropy")
    return model
plain, seen = fresh(), fresh()
"""


def run(shell: InteractiveShell, code: str) -> None:
    with capture_output():
        result = shell.run_cell(code, store_history=False)
    result.raise_error()


def count_calls(monkeypatch: pytest.MonkeyPatch, owner: type, name: str) -> list[int]:
    """A list that grows by one on each call of ``owner.name`` (patched for the test)."""
    calls: list[int] = []
    original = getattr(owner, name)

    def counted(self, *args, **kwargs):  # type: ignore[no-untyped-def]
        calls.append(1)
        return original(self, *args, **kwargs)

    monkeypatch.setattr(owner, name, counted)
    return calls


def assert_trained_alike(shell: InteractiveShell) -> None:
    """``plain`` and ``seen`` hold the same weights and the same optimizer variables."""
    plain, seen = shell.user_ns["plain"], shell.user_ns["seen"]
    for a, b in zip(plain.weights, seen.weights, strict=True):
        np.testing.assert_array_equal(a.numpy(), b.numpy())
    for a, b in zip(plain.optimizer.variables, seen.optimizer.variables, strict=True):
        assert a.path == b.path  # built before the trace, named as Keras names it in the trace
        np.testing.assert_array_equal(a.numpy(), b.numpy())


def test_fresh_model_first_cell_traces_once_and_trains_as_keras(
    shell: InteractiveShell, monkeypatch: pytest.MonkeyPatch
) -> None:
    run(shell, SETUP)
    # the optimizer-step hook runs once per trace of a compiled step
    traces = count_calls(monkeypatch, GradientCapture, "_on_apply")
    run(shell, "keras.utils.set_random_seed(2)\nplain.fit(x, y, batch_size=16, verbose=0)")
    assert traces == []  # not recorded: the hook is not installed outside the cell
    run(
        shell,
        "%%tfgrad -q\nkeras.utils.set_random_seed(2)\nseen.fit(x, y, batch_size=16, verbose=0)",
    )
    assert len(traces) == 1
    assert_trained_alike(shell)


def test_fresh_model_first_checked_cell_traces_once_and_trains_as_keras(
    shell: InteractiveShell, monkeypatch: pytest.MonkeyPatch
) -> None:
    """``%%tfcheck`` builds the optimizer before its trace too (it did not: its maker
    compared the wrong name, so a fresh model's checked step was traced twice)."""
    from tfnb_debug.collect.check_guards import TensorGuards

    run(shell, SETUP)
    # the gradients' guard is made once per trace of a checked step
    traces = count_calls(monkeypatch, TensorGuards, "check_gradients")
    run(shell, "keras.utils.set_random_seed(2)\nplain.fit(x, y, batch_size=16, verbose=0)")
    run(
        shell,
        "%%tfcheck -q\nkeras.utils.set_random_seed(2)\nseen.fit(x, y, batch_size=16, verbose=0)",
    )
    assert len(traces) == 1
    assert_trained_alike(shell)
