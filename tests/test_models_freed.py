"""A model the user deletes is freed: tfnb_debug holds it no longer than it says.

What an instrumented cell keeps for the next one (its train function) holds the
model of the last cell alone, until a cell on another model or ``%unload_ext``
(:mod:`tfnb_debug.collect.kept`).  After either, ``del model`` must free it, so
that a notebook can free the (GPU) memory of a model it is done with.  Found
missing for ``%%tfcheck``: the gradient check of each layer output was a
``tf.custom_gradient`` whose function held the whole run, and TensorFlow keeps a
graph's custom gradient functions for good, so every model ever checked stayed.
"""

from __future__ import annotations

import gc
import sys
import weakref

import pytest
from IPython.core.interactiveshell import InteractiveShell
from IPython.utils.capture import capture_output

from tests._support import extension_unloaded

BUILD = (
    "import numpy as np\n"
    "import keras\n"
    "x = np.random.RandomState(0).rand(32, 4).astype('float32')\n"
    "y = np.random.RandomState(1).rand(32, 1).astype('float32')\n"
    "def build(name):\n"
    "    m = keras.Sequential([keras.Input((4,)), keras.layers.Dense(3, activation='relu'),\n"
    "                          keras.layers.Dense(1)], name=name)\n"
    "    m.compile('adam', 'mse')\n"
    "    return m\n"
    "model = build('first')\n"
)

CELLS = {
    "%%tfcheck -q": "h = model.fit(x, y, batch_size=8, verbose=0)",
    "%%tfcheck -q (NaN found)": (
        "model.layers[0].kernel.assign(model.layers[0].kernel * np.nan)\n"
        "h = model.fit(x, y, batch_size=8, verbose=0)"
    ),
    "%%tfgrad -q": "h = model.fit(x, y, batch_size=8, verbose=0)",
    "%%tfmem -q": "h = model.fit(x, y, batch_size=8, verbose=0)",
}


def _run(shell: InteractiveShell, case: str) -> None:
    """The cell as a notebook runs it (a failed check is shown, not raised)."""
    line = case.split(" (")[0]
    with capture_output() as shown:
        shell.run_cell(f"{line}\n{CELLS[case]}")
    assert ("NaN" in shown.stdout + shown.stderr) == ("NaN found" in case)


def _forget_the_last_error() -> None:
    """IPython keeps the last error's traceback (and its frames) until the next one."""
    sys.last_type = sys.last_value = sys.last_traceback = None
    if hasattr(sys, "last_exc"):
        sys.last_exc = None


@pytest.mark.parametrize("case", list(CELLS))
def test_a_deleted_model_is_freed_after_unload_ext(shell: InteractiveShell, case: str) -> None:
    shell.run_cell(BUILD)
    freed = weakref.ref(shell.user_ns["model"])
    _run(shell, case)
    shell.run_cell("del model\nh = None")
    _forget_the_last_error()
    with extension_unloaded(shell):
        gc.collect()
        assert freed() is None


@pytest.mark.parametrize("case", list(CELLS))
def test_a_deleted_model_is_freed_after_a_cell_on_another_model(
    shell: InteractiveShell, case: str
) -> None:
    shell.run_cell(BUILD)
    freed = weakref.ref(shell.user_ns["model"])
    _run(shell, case)
    shell.run_cell("del model\nh = None\nmodel = build('second')")
    _run(shell, case)
    _forget_the_last_error()
    gc.collect()
    assert freed() is None
