"""Overhead of watching what reaches the loss (S08, M02, M03), against the plain run in one process.

``%%tfgrad`` and ``%%tfcheck`` run :func:`tfnb_debug.collect.loss_watch.watch_losses`
around the cell.  Its op callback runs once per op while a ``tf.function`` is
traced and once per op in eager code; its cross-entropy wrappers run once per
loss call (eager) or once per trace (graph).  Three jobs, each run plain and
watched, interleaved, ``--repeats`` times:

* ``fit``: a small CNN trained with ``model.fit`` (a compiled loss); the
  first epoch includes the trace, so this is the whole-call cost;
* ``fit, custom train_step``: the same CNN with a ``train_step`` that calls
  ``keras.losses.categorical_crossentropy`` itself (its range is kept in
  device variables updated by the graph every step);
* ``eager tape loop``: a hand-written ``GradientTape`` loop, every op eager:
  the worst case for an op callback.

Prints medians and the ratio of the minima (robust when other processes share
the CPU).  Run::

    python benchmarks/bench_loss_watch.py [--steps 100] [--repeats 5]
"""

from __future__ import annotations

import argparse
import os
import statistics
import time
from collections.abc import Callable
from typing import Any

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
os.environ.setdefault("TF_ENABLE_ONEDNN_OPTS", "0")


def build(keras: Any, custom_step: bool) -> Any:
    import tensorflow as tf

    class Stepped(keras.Model):
        def train_step(self, data: Any) -> Any:
            x, y = data
            with tf.GradientTape() as tape:
                out = self(x, training=True)
                loss = keras.ops.mean(keras.losses.categorical_crossentropy(y, out))
            grads = tape.gradient(loss, self.trainable_variables)
            self.optimizer.apply_gradients(zip(grads, self.trainable_variables, strict=True))
            return {"loss": loss}

    inp = keras.Input((28, 28, 1))
    h = keras.layers.Conv2D(16, 3, activation="relu")(inp)
    h = keras.layers.MaxPooling2D()(h)
    h = keras.layers.Conv2D(32, 3, activation="relu")(h)
    h = keras.layers.MaxPooling2D()(h)
    h = keras.layers.Flatten()(h)
    h = keras.layers.Dense(64, activation="relu")(h)
    out = keras.layers.Dense(10, activation="softmax")(h)
    if custom_step:
        model = Stepped(inp, out)
        model.compile(optimizer="adam")
    else:
        model = keras.Model(inp, out)
        model.compile("adam", "categorical_crossentropy")
    return model


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--steps", type=int, default=100)
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--batch", type=int, default=32)
    args = parser.parse_args()

    import keras
    import numpy as np
    import tensorflow as tf

    from tfnb_debug.collect.loss_watch import watch_losses

    rng = np.random.default_rng(0)
    n = args.steps * args.batch
    x = rng.uniform(0, 1, (n, 28, 28, 1)).astype("float32")
    y = np.eye(10, dtype="float32")[rng.integers(0, 10, n)]

    def fit(custom_step: bool) -> Callable[[], None]:
        def run() -> None:
            model = build(keras, custom_step)
            model.fit(x, y, batch_size=args.batch, epochs=1, verbose=0)

        return run

    def tape_loop() -> None:
        model = build(keras, False)
        opt = keras.optimizers.Adam()
        for i in range(0, n, args.batch):
            with tf.GradientTape() as tape:
                out = model(x[i : i + args.batch], training=True)
                loss = tf.reduce_mean(
                    keras.losses.categorical_crossentropy(y[i : i + args.batch], out)
                )
            grads = tape.gradient(loss, model.trainable_variables)
            opt.apply_gradients(zip(grads, model.trainable_variables, strict=True))

    def watched(job: Callable[[], None]) -> Callable[[], None]:
        def run() -> None:
            with watch_losses():
                job()

        return run

    jobs: dict[str, Callable[[], None]] = {
        "fit": fit(False),
        "fit, custom train_step": fit(True),
        "eager tape loop": tape_loop,
    }
    for job in jobs.values():  # warm up: imports, first kernels
        job()
    times: dict[tuple[str, str], list[float]] = {}
    for _ in range(args.repeats):
        for name, job in jobs.items():
            for variant, run in (("plain", job), ("watched", watched(job))):
                start = time.perf_counter()
                run()
                times.setdefault((name, variant), []).append(time.perf_counter() - start)
    print(f"{args.steps} steps of batch {args.batch}, {args.repeats} repeats (seconds)")
    print(f"{'job':28} {'plain':>8} {'watched':>8} {'ratio (median)':>15} {'ratio (min)':>12}")
    for name in jobs:
        plain, watch = times[(name, "plain")], times[(name, "watched")]
        print(
            f"{name:28} {statistics.median(plain):8.3f} {statistics.median(watch):8.3f} "
            f"{statistics.median(watch) / statistics.median(plain):15.3f}x "
            f"{min(watch) / min(plain):11.3f}x"
        )


if __name__ == "__main__":
    main()
