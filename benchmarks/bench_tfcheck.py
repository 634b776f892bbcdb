"""Overhead of ``%%tfcheck``'s in-graph NaN checks on a small CNN's ``fit``, side by side.

Same process, same model and data, one epoch timed after a warm-up epoch that
includes tracing (every variant retraces its train function).  Medians of
several interleaved repeats of wall time and of process CPU time, as ratios to
the plain ``fit``:

* ``run_checked`` (what ``%%tfcheck`` does; with and without the input stash
  used to name the failing op);
* ``tf.debugging.enable_check_numerics()``;
* ``tf.debugging.experimental.enable_dump_debug_info(..., tensor_debug_mode="CURT_HEALTH")``.

Run: ``.venv/bin/python benchmarks/bench_tfcheck.py [--repeat 5] [--samples 2048]``
"""

from __future__ import annotations

import os

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
os.environ.setdefault("TF_ENABLE_ONEDNN_OPTS", "0")

import argparse  # noqa: E402
import statistics  # noqa: E402
import tempfile  # noqa: E402
import time  # noqa: E402
from collections.abc import Callable  # noqa: E402
from typing import Any  # noqa: E402

import keras  # noqa: E402
import numpy as np  # noqa: E402
import tensorflow as tf  # noqa: E402

from tfnb_debug.features.check import run_checked  # noqa: E402


def small_cnn() -> keras.Model:
    model = keras.Sequential(
        [
            keras.Input((28, 28, 1)),
            keras.layers.Conv2D(16, 3, activation="relu"),
            keras.layers.MaxPooling2D(),
            keras.layers.Conv2D(32, 3, activation="relu"),
            keras.layers.MaxPooling2D(),
            keras.layers.Flatten(),
            keras.layers.Dense(64, activation="relu"),
            keras.layers.Dense(10),
        ]
    )
    model.compile(
        optimizer="adam",
        loss=keras.losses.SparseCategoricalCrossentropy(from_logits=True),
    )
    return model


Timing = tuple[float, float]  # (wall seconds, CPU seconds of this process, all threads)


def timed_epoch(model: keras.Model, x: np.ndarray, y: np.ndarray) -> Timing:
    """Warm-up epoch (traces), then one timed epoch: wall time and process CPU time.

    CPU time is the steadier figure on a shared machine (other processes
    stretch wall time, not the CPU this process uses).
    """
    model.train_function = None
    model.fit(x, y, batch_size=32, epochs=1, verbose=0)
    wall, cpu = time.perf_counter(), time.process_time()
    model.fit(x, y, batch_size=32, epochs=1, verbose=0)
    return time.perf_counter() - wall, time.process_time() - cpu


def plain(model: keras.Model, x: np.ndarray, y: np.ndarray) -> Timing:
    return timed_epoch(model, x, y)


def tfcheck(op_detail: bool) -> Callable[[keras.Model, np.ndarray, np.ndarray], Timing]:
    def run(model: keras.Model, x: np.ndarray, y: np.ndarray) -> Timing:
        timing, report = run_checked(
            lambda: timed_epoch(model, x, y), models=[model], op_detail=op_detail
        )
        assert not report.stopped and report.gradients_checked
        return timing  # type: ignore[no-any-return]

    return run


def check_numerics(model: keras.Model, x: np.ndarray, y: np.ndarray) -> Timing:
    tf.debugging.enable_check_numerics()
    try:
        return timed_epoch(model, x, y)
    finally:
        tf.debugging.disable_check_numerics()
        model.train_function = None


def curt_health(model: keras.Model, x: np.ndarray, y: np.ndarray) -> Timing:
    with tempfile.TemporaryDirectory(prefix="tfnb_bench_dump_") as folder:
        tf.debugging.experimental.enable_dump_debug_info(
            folder, tensor_debug_mode="CURT_HEALTH", circular_buffer_size=-1
        )
        try:
            return timed_epoch(model, x, y)
        finally:
            tf.debugging.experimental.disable_dump_debug_info()
            model.train_function = None


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--samples", type=int, default=2048)
    args = parser.parse_args()
    rs = np.random.RandomState(0)
    x = rs.rand(args.samples, 28, 28, 1).astype("float32")
    y = rs.randint(0, 10, args.samples)
    model = small_cnn()
    variants: dict[str, Callable[[keras.Model, np.ndarray, np.ndarray], Timing]] = {
        "plain fit": plain,
        "%%tfcheck (run_checked)": tfcheck(True),
        "%%tfcheck --no-op-detail": tfcheck(False),
        "tf.debugging.enable_check_numerics": check_numerics,
        "enable_dump_debug_info CURT_HEALTH": curt_health,
    }
    times: dict[str, list[Timing]] = {name: [] for name in variants}
    for _ in range(args.repeat):  # interleaved, so drift hits every variant alike
        for name, fn in variants.items():
            times[name].append(fn(model, x, y))
    base_wall = statistics.median(t[0] for t in times["plain fit"])
    base_cpu = statistics.median(t[1] for t in times["plain fit"])
    steps = args.samples // 32
    print(f"small CNN, {steps} steps/epoch, batch 32, median of {args.repeat} epochs, CPU")
    print(f"{'variant':38s} {'wall s':>7s} {'ratio':>6s} {'cpu s':>7s} {'ratio':>6s}")
    for name, values in times.items():
        wall: Any = statistics.median(t[0] for t in values)
        cpu: Any = statistics.median(t[1] for t in values)
        print(f"{name:38s} {wall:7.3f} {wall / base_wall:5.2f}x {cpu:7.3f} {cpu / base_cpu:5.2f}x")


if __name__ == "__main__":
    main()
