"""T01 counts traces per tf.function by identity: fresh per-call functions never add up."""

from __future__ import annotations

import gc

import keras
import numpy as np
import pytest
from IPython.core.interactiveshell import InteractiveShell

from tests._support import run_magic
from tfnb_debug.collect._patching import TraceCounts

RS = np.random.RandomState(0)


def grouped_conv_model() -> keras.Model:
    """Keras runs a CPU grouped convolution through a fresh ``tf.function`` on every call."""
    return keras.Sequential(
        [
            keras.Input((6, 6, 4)),
            keras.layers.Conv2D(4, 3, groups=2),
            keras.layers.GlobalAveragePooling2D(),
            keras.layers.Dense(2),
        ]
    )


CELL_GROUPED = "for _ in range(8):\n    gm(gx)\n    gc.collect()\n"
# Keras' pattern for grouped convolutions (backend/tensorflow/nn.py::conv), minus the XLA
# compile: a fresh tf.function per call.  Freed by gc.collect(), each one leaves its address
# to the next, so counting by id() adds up 24 one-trace functions into one "retracing" one.
CELL_FRESH = (
    "def conv_like(v):\n"
    "    @tf.function\n"
    "    def double(t):\n"
    "        return t * 2.0\n"
    "    return double(v)\n"
    "for _ in range(24):\n"
    "    conv_like(tf.ones((2, 3)))\n"
    "    gc.collect()\n"
)
CELL_RETRACING = (
    "@tf.function\n"
    "def widen(v):\n"
    "    return v * 2.0\n"
    "for n in range(1, 8):\n"
    "    widen(tf.ones((n, 3)))\n"
)


@pytest.mark.slow
@pytest.mark.parametrize("magic", ["%%tfshape -o", "%%tfcheck -o"])
def test_grouped_conv_called_many_times_gets_no_t01(shell: InteractiveShell, magic: str) -> None:
    shell.user_ns.update(gm=grouped_conv_model(), gx=RS.rand(2, 6, 6, 4).astype("float32"))
    shell.run_cell("import gc\nimport tensorflow as tf")
    report = run_magic(shell, magic, cell=CELL_GROUPED).result
    assert "T01" not in report.codes(), report.to_text()
    report = run_magic(shell, magic, cell=CELL_FRESH).result
    assert "T01" not in report.codes(), report.to_text()


@pytest.mark.slow
@pytest.mark.parametrize("magic", ["%%tfshape -o", "%%tfcheck -o"])
def test_a_really_retracing_function_still_gets_t01(shell: InteractiveShell, magic: str) -> None:
    shell.run_cell("import tensorflow as tf")
    report = run_magic(shell, magic, cell=CELL_RETRACING).result
    t01 = [f for f in report.findings if f.code == "T01"]
    assert len(t01) == 1 and "widen" in t01[0].message and "7 times" in t01[0].message


def test_trace_counts_tell_a_new_function_at_a_reused_address_apart() -> None:
    counts = TraceCounts()

    def make() -> object:
        def step() -> None:
            pass

        return step

    first = make()
    counts.add("step", first, "sig 1")
    counts.add("step", first, "sig 2")
    del first
    gc.collect()
    fresh = [make() for _ in range(200)]  # one of them very likely takes the freed address
    for fn in fresh:
        counts.add("step", fn, "sig")
    entries = counts.entries()
    assert entries[0] == ("step", ("sig 1", "sig 2"))
    assert len(entries) == 201
    assert all(len(signatures) == 1 for _, signatures in entries[1:])
