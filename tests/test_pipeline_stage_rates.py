"""The per-stage table of %tfpipeline: a stage is not shown slower than the batch() it feeds.

Reading a dataset of single examples from Python costs more per step than
slicing an array does, so timing ``from_tensor_slices`` one example at a time
measured the loop: about 16k examples/s against 200k for the ``batch`` after it.
"""

from __future__ import annotations

import numpy as np
import tensorflow as tf
from IPython.core.interactiveshell import InteractiveShell

from tests._support import run_magic

X = np.random.default_rng(0).uniform(0, 1, (6000, 28, 28, 1)).astype("float32")
Y = np.zeros(6000, dtype="int64")


def test_stages_before_batch_are_timed_as_batch_reads_them(shell: InteractiveShell) -> None:
    # the quickstart's pipeline: from_tensor_slices -> shuffle -> batch
    shell.user_ns["qs_ds"] = tf.data.Dataset.from_tensor_slices((X, Y)).shuffle(6000).batch(32)
    ratios = []
    # rates are read over 0.3 s windows: on a shared machine another process can stall one
    # window, so the claim is checked on the best of three runs (each its own measurement)
    for _ in range(3):
        shown = run_magic(shell, "%tfpipeline -q -o qs_ds")
        report = shown.result
        assert report is not None
        rows = report.table("transformations").rows
        assert [row[1].split("(")[0] for row in rows] == ["from_tensor_slices", "shuffle", "batch"]
        assert any("timed through batch(32)" in note for note in report.notes)
        slicing, _, batching = (row[3] for row in rows)
        ratios.append(slicing / batching)
        # per element the slicing read ~12x slower than the batch after it (0.08x); timed
        # as batch() reads it, it is about as fast or faster (the margin is for a loaded
        # machine)
        if slicing > 0.3 * batching:
            assert "slowest" not in rows[0][5]
            break
    else:
        raise AssertionError(f"slicing read slower than the batch after it in 3 runs: {ratios}")


def test_an_unbatched_pipeline_is_timed_per_element_throughout() -> None:
    from tfnb_debug import inspect_pipeline

    report = inspect_pipeline(tf.data.Dataset.from_tensor_slices((X, Y)).shuffle(100))
    assert not any("timed through batch" in note for note in report.notes)
    assert all(row[3] is not None for row in report.table("transformations").rows)
