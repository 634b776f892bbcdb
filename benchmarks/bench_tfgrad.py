"""Overhead of recording gradients in ``model.fit``, against the plain fit in the same process.

A small CNN is trained with ``model.fit`` on synthetic 28x28 images for a few
hundred steps.  Each variant runs ``--repeats`` times, interleaved with the
others, and the median is reported as a ratio to the plain fit:

* ``record every step``: ``record_gradients()`` (what ``%%tfgrad`` does);
* ``record --every 10``: ``record_gradients(every=10)``;
* ``TensorBoard(histogram_freq=1)``: Keras' callback writing weight histograms
  every epoch (for comparison);
* ``enable_check_numerics``: ``tf.debugging.enable_check_numerics()`` (for comparison).

Two figures per variant: the whole call (including the one retrace the
instrumented train function needs) and the steady state (the second epoch
only).  Medians, and the ratio of the minima (robust when other processes share
the CPU).  Run::

    python benchmarks/bench_tfgrad.py [--steps 200] [--repeats 5] [--batch 32]
"""

from __future__ import annotations

import argparse
import os
import statistics
import tempfile
import time
from collections.abc import Callable
from typing import Any

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
os.environ.setdefault("TF_ENABLE_ONEDNN_OPTS", "0")


def build(keras: Any) -> Any:
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
        ],
        name="bench_cnn",
    )
    model.compile("adam", keras.losses.SparseCategoricalCrossentropy(from_logits=True))
    return model


class EpochTimer:
    def __init__(self, keras: Any) -> None:
        class Timer(keras.callbacks.Callback):
            def __init__(self) -> None:
                super().__init__()
                self.epochs: list[float] = []
                self._start = 0.0

            def on_epoch_begin(self, epoch: int, logs: Any = None) -> None:
                self._start = time.perf_counter()

            def on_epoch_end(self, epoch: int, logs: Any = None) -> None:
                self.epochs.append(time.perf_counter() - self._start)

        self.callback = Timer()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--steps", type=int, default=200, help="optimizer steps per epoch")
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--batch", type=int, default=32)
    args = parser.parse_args()

    import keras
    import numpy as np
    import tensorflow as tf

    import tfnb_debug

    rng = np.random.default_rng(0)
    n = args.steps * args.batch
    x = rng.random((n, 28, 28, 1), dtype=np.float32)
    y = rng.integers(0, 10, n)
    model = build(keras)
    logdir = tempfile.mkdtemp(prefix="bench_tfgrad_")

    def fit(callbacks: list[Any]) -> tuple[float, float]:
        timer = EpochTimer(keras).callback
        start = time.perf_counter()
        model.fit(x, y, batch_size=args.batch, epochs=2, verbose=0, callbacks=[*callbacks, timer])
        return time.perf_counter() - start, timer.epochs[1]

    def plain() -> tuple[float, float]:
        return fit([])

    def record(every: int) -> Callable[[], tuple[float, float]]:
        def run() -> tuple[float, float]:
            with tfnb_debug.record_gradients(every=every, max_steps=2 * args.steps) as rec:
                result = fit([])
            assert rec.result().recorded_steps == len(range(0, 2 * args.steps, every))
            return result

        return run

    def tensorboard() -> tuple[float, float]:
        return fit([keras.callbacks.TensorBoard(logdir, histogram_freq=1)])

    def check_numerics() -> tuple[float, float]:
        saved = model.train_function
        model.train_function = None
        tf.debugging.enable_check_numerics()
        try:
            return fit([])
        finally:
            tf.debugging.disable_check_numerics()
            model.train_function = saved

    variants: dict[str, Callable[[], tuple[float, float]]] = {
        "plain fit": plain,
        "record every step": record(1),
        "record --every 10": record(10),
        "TensorBoard(histogram_freq=1)": tensorboard,
        "enable_check_numerics": check_numerics,
    }
    try:
        import tensorboard  # noqa: F401
    except ImportError:
        del variants["TensorBoard(histogram_freq=1)"]
        print("TensorBoard is not installed here: its variant is skipped (pip install tensorboard)")
    plain()  # warm-up: trace the plain train function once
    totals: dict[str, list[float]] = {k: [] for k in variants}
    steady: dict[str, list[float]] = {k: [] for k in variants}
    for _ in range(args.repeats):
        for name, run in variants.items():
            total, epoch = run()
            totals[name].append(total)
            steady[name].append(epoch)

    base_total = statistics.median(totals["plain fit"])
    base_epoch = statistics.median(steady["plain fit"])
    print(
        f"small CNN, model.fit, {args.steps} steps/epoch x 2 epochs, batch {args.batch}, "
        f"median of {args.repeats} runs (TF {tf.__version__}, Keras {keras.__version__}, "
        f"devices: {[d.device_type for d in tf.config.list_logical_devices()]})"
    )
    print(
        f"{'variant':32s} {'whole call':>10s} {'ratio':>6s} {'2nd epoch':>10s} {'ratio':>6s}"
        f" {'min ratio (whole / 2nd)':>24s}"
    )
    base_total_min = min(totals["plain fit"])
    base_epoch_min = min(steady["plain fit"])
    for name in variants:
        total = statistics.median(totals[name])
        epoch = statistics.median(steady[name])
        print(
            f"{name:32s} {total:8.3f} s {total / base_total:5.2f}x {epoch:8.3f} s "
            f"{epoch / base_epoch:5.2f}x {min(totals[name]) / base_total_min:11.2f}x / "
            f"{min(steady[name]) / base_epoch_min:.2f}x"
        )


if __name__ == "__main__":
    main()
