"""What ``%%tfgrad`` costs per step under ``MirroredStrategy``, with and without the replicas table.

One process, two logical CPU devices (set before TensorFlow initializes), a
``MirroredStrategy`` over them.  The recording is ``record_gradients()``, what
``%%tfgrad`` runs around a cell.  For each of

* ``fit``: the small CNN of ``bench_tfgrad.py`` compiled under the strategy;
* ``custom loop``: the same model, ``strategy.run`` in a ``tf.function`` over
  ``experimental_distribute_dataset``, loss by ``tf.nn.compute_average_loss``;

each variant runs two epochs in one cell and the second epoch is timed (steady
state: no tracing, no fixed cost of the cell in it):

* ``plain``: no recording;
* ``recorded``: the recording as ``%%tfgrad`` runs it, with the per-replica
  table (one more all-reduce of a (replicas x (3 + variables)) table per step,
  each replica's gradient norms, the loss's example weight for D01);
* ``recorded, no replicas table``: the same with the per-replica part off
  (``GradientCapture.per_replica = False``, a switch for measuring only).

The variants are interleaved; each figure is the median of ``--repeats`` runs
of the wall and CPU (all threads) time per step, printed with its ratio to
``plain``: on a shared machine, repeat and compare ratios, not seconds.  The D06 check at the
end of a cell (every mirrored variable's copies compared once) is timed
separately.

Run::

    python benchmarks/bench_replicas.py [--steps 64] [--batch 32] [--repeats 7]
"""

from __future__ import annotations

import os

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
os.environ.setdefault("TF_ENABLE_ONEDNN_OPTS", "0")

import argparse  # noqa: E402
import statistics  # noqa: E402
import time  # noqa: E402
from typing import Any  # noqa: E402

import tensorflow as tf  # noqa: E402

_cpu = tf.config.list_physical_devices("CPU")[0]
tf.config.set_logical_device_configuration(_cpu, [tf.config.LogicalDeviceConfiguration()] * 2)

import keras  # noqa: E402
import numpy as np  # noqa: E402
from bench_tfgrad import build as small_cnn  # noqa: E402  (the same small CNN)

import tfnb_debug  # noqa: E402

VARIANTS = ("plain", "recorded", "recorded, no replicas table")


def recording(variant: str) -> Any:
    """The recording context of a variant (a no-op for ``plain``)."""
    import contextlib

    if variant == "plain":
        return contextlib.nullcontext()
    context = tfnb_debug.record_gradients()
    if variant == "recorded, no replicas table":
        context._capture.per_replica = False  # measuring only: not a user option
    return context


class Bench:
    def __init__(self, steps: int, batch: int) -> None:
        self.strategy = tf.distribute.MirroredStrategy(["/cpu:0", "/cpu:1"])
        rng = np.random.default_rng(0)
        n = steps * batch
        self.x = rng.normal(size=(n, 28, 28, 1)).astype("float32")
        self.y = rng.integers(0, 10, n)
        self.steps, self.batch = steps, batch
        with self.strategy.scope():
            self.model = small_cnn(keras)
        self.dataset = self.strategy.experimental_distribute_dataset(
            tf.data.Dataset.from_tensor_slices((self.x, self.y)).batch(batch, drop_remainder=True)
        )

    def fit(self, variant: str) -> tuple[float, float]:
        """Wall and CPU seconds per step of the second epoch of a two-epoch fit."""
        times: list[tuple[float, float]] = []

        class Timer(keras.callbacks.Callback):
            def on_epoch_begin(self, epoch: int, logs: Any = None) -> None:
                self.start = (time.perf_counter(), time.process_time())

            def on_epoch_end(self, epoch: int, logs: Any = None) -> None:
                times.append(
                    (time.perf_counter() - self.start[0], time.process_time() - self.start[1])
                )

        with recording(variant):
            self.model.fit(
                self.x, self.y, batch_size=self.batch, epochs=2, verbose=0, callbacks=[Timer()]
            )
        return times[1][0] / self.steps, times[1][1] / self.steps

    def loop(self, variant: str) -> tuple[float, float]:
        """Wall and CPU seconds per step of the second pass of a custom loop (traced in the
        cell)."""
        model, strategy, batch = self.model, self.strategy, self.batch
        loss_fn = keras.losses.SparseCategoricalCrossentropy(from_logits=True, reduction=None)
        with recording(variant):

            @tf.function
            def step(data: Any) -> Any:
                def replica(inp: Any) -> Any:
                    x, y = inp
                    with tf.GradientTape() as tape:
                        per_example = loss_fn(y, model(x, training=True))
                        loss = tf.nn.compute_average_loss(per_example, global_batch_size=batch)
                    grads = tape.gradient(loss, model.trainable_variables)
                    model.optimizer.apply_gradients(
                        zip(grads, model.trainable_variables, strict=True)
                    )
                    return loss

                return strategy.run(replica, args=(data,))

            for data in self.dataset:  # the first pass traces
                step(data)
            start = (time.perf_counter(), time.process_time())
            for data in self.dataset:
                loss = step(data)
            self.strategy.experimental_local_results(loss)[0].numpy()
            wall, cpu = time.perf_counter() - start[0], time.process_time() - start[1]
        return wall / self.steps, cpu / self.steps

    def divergence_check(self) -> float:
        """Seconds of the D06 check at the end of a cell: the model and its optimizer."""
        from tfnb_debug.collect.replicas import mirrored_divergence

        mirrored_divergence([self.model, self.model.optimizer])  # warm-up
        start = time.perf_counter()
        mirrored_divergence([self.model, self.model.optimizer])
        return time.perf_counter() - start


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--steps", type=int, default=64, help="steps per epoch")
    parser.add_argument("--batch", type=int, default=32, help="global batch (2 replicas)")
    parser.add_argument("--repeats", type=int, default=7)
    args = parser.parse_args()
    bench = Bench(args.steps, args.batch)
    print(
        f"TF {tf.__version__}, Keras {keras.__version__}, {os.cpu_count()} CPU(s); "
        f"MirroredStrategy over 2 logical CPUs; small CNN "
        f"({len(bench.model.trainable_variables)} trainable variables), {args.steps} steps of "
        f"global batch {args.batch}; median of {args.repeats}, second epoch"
    )
    for name, run in (("fit", bench.fit), ("custom loop", bench.loop)):
        for variant in VARIANTS:  # warm-up: every function traced once
            run(variant)
        per_step: dict[str, list[tuple[float, float]]] = {v: [] for v in VARIANTS}
        for _ in range(args.repeats):
            for variant in VARIANTS:
                per_step[variant].append(run(variant))

        def median(variant: str, i: int, runs: dict[str, Any] = per_step) -> float:
            return statistics.median(t[i] for t in runs[variant])

        print(f"\n{name}:{'':31s} wall ms/step (ratio)  CPU ms/step (ratio)")
        for variant in VARIANTS:
            wall, cpu = median(variant, 0), median(variant, 1)
            print(
                f"  {variant:34s} {1000 * wall:7.2f} ({wall / median('plain', 0):4.2f}x)"
                f"      {1000 * cpu:7.2f} ({cpu / median('plain', 1):4.2f}x)"
            )
    print(f"\nD06 check at the end of a cell: {1000 * bench.divergence_check():.1f} ms")


if __name__ == "__main__":
    main()
