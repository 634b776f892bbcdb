"""What a fix trial costs (%%tfgrad's trial of a training fault's fix on a copy), against the
plain ``fit`` of the same model in the same process.

Models: the small CNN of ``bench_tfgrad.py`` (28x28x1 inputs, 10 classes) and TensorFlow's
"advanced" quickstart model (Conv2D(32, 3, relu) -> Flatten -> Dense(128, relu) -> Dense(10):
2.77M parameters), both with a learning rate that makes the loss diverge (SGD(50)), so the
trial runs the unchanged copy and two changes (learning rate /10, clipnorm).  For each
model it prints the plain ``fit`` (one epoch of ``--steps`` steps, batch 32, after a
warm-up fit), the trial alone (:func:`tfnb_debug.collect.fix_trial.run_fix_trial`, its
budget included), their ratio, and the peak host memory the trial added (tracemalloc
of Python allocations; TensorFlow's own buffers are not in it, the process's peak
resident size before and after is printed for those).

Run::

    python benchmarks/bench_fix_trial.py [--steps 64] [--repeats 3]
"""

from __future__ import annotations

import argparse
import resource
import statistics
import time
import tracemalloc
from typing import Any


def cnn(keras: Any) -> Any:
    return keras.Sequential(
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


def quickstart(keras: Any) -> Any:
    return keras.Sequential(
        [
            keras.Input((28, 28, 1)),
            keras.layers.Conv2D(32, 3, activation="relu"),
            keras.layers.Flatten(),
            keras.layers.Dense(128, activation="relu"),
            keras.layers.Dense(10),
        ],
        name="quickstart",
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--steps", type=int, default=64, help="steps of the plain fit's epoch")
    parser.add_argument("--repeats", type=int, default=3)
    args = parser.parse_args()

    import keras
    import numpy as np

    from tfnb_debug.collect.fix_trial import run_fix_trial
    from tfnb_debug.records.trials import Change

    rng = np.random.default_rng(0)
    n = args.steps * 32
    x = rng.random((n, 28, 28, 1), dtype=np.float32)
    y = rng.integers(0, 10, n)
    changes = [
        Change("learning_rate", "learning_rate=5 (was 50)", 0.1),
        Change("clipnorm", "clipnorm=1.0", 1.0),
    ]
    print(
        f"{'model':12} {'plain fit s':>11} {'trial s':>8} {'ratio':>6} {'runs':>5} "
        f"{'steps':>5} {'py peak MiB':>11} {'rss MiB':>14}"
    )
    for build in (cnn, quickstart):
        model = build(keras)
        model.compile(
            keras.optimizers.SGD(50.0),
            keras.losses.SparseCategoricalCrossentropy(from_logits=True),
        )
        model.fit(x[:64], y[:64], batch_size=32, verbose=0)  # warm-up: traced, built
        plain, trial_s, peaks = [], [], []
        trial = None
        rss_before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
        for _ in range(args.repeats):
            start = time.perf_counter()
            model.fit(x, y, batch_size=32, epochs=1, verbose=0)
            plain.append(time.perf_counter() - start)
            tracemalloc.start()
            start = time.perf_counter()
            trial = run_fix_trial(model, {"x": x, "y": y, "batch_size": 32, "epochs": 1}, changes)
            trial_s.append(time.perf_counter() - start)
            peaks.append(tracemalloc.get_traced_memory()[1] / 2**20)
            tracemalloc.stop()
        rss_after = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
        assert trial is not None
        p, t = statistics.median(plain), statistics.median(trial_s)
        runs = 1 + len(trial.runs) if trial.ran else 0
        print(
            f"{model.name:12} {p:11.2f} {t:8.2f} {t / p:6.2f} {runs:5d} {trial.steps:5d} "
            f"{statistics.median(peaks):11.1f} {rss_before:6.0f}->{rss_after:<6.0f}"
            + ("" if trial.ran else f"  not run: {trial.reason}")
        )


if __name__ == "__main__":
    main()
