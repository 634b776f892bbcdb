"""Run folders (``record_gradients(save_to=...)``, ``%tfrun``): size, time to open, cost of saving.

1. **Size per 1,000 steps and time to open.**  A run of 2 workers x 10,000
   recorded steps is synthesized with the writer the recording uses
   (``run_records.save_worker`` on a ``GradientReport`` built from random
   statistics) for two models: the example's regressor (4 variables in 2
   layers) and a 10-layer MLP (20 variables).  Printed: the bytes of one
   worker's folder per 1,000 steps, and the seconds ``open_run`` plus the
   text and HTML rendering take (median of ``--repeat``, in this process,
   after one warm-up; a fresh interpreter's first ``open_run`` is printed
   apart, with its imports).
2. **Cost of saving while training.**  A compiled custom-loop step of a small
   MLP, ``--steps`` steps under ``record_gradients()`` and under
   ``record_gradients(save_to=...)``, interleaved; the ratio of the medians is
   what the step timer (one scalar read after each compiled call) and the
   batch hashes add; the write at the block's end is printed apart.

Run: ``.venv/bin/python benchmarks/bench_runs.py [--repeat 5] [--steps 300]``
"""

from __future__ import annotations

import os

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
os.environ.setdefault("TF_ENABLE_ONEDNN_OPTS", "0")

import argparse  # noqa: E402
import statistics  # noqa: E402
import subprocess  # noqa: E402
import sys  # noqa: E402
import tempfile  # noqa: E402
import time  # noqa: E402
from pathlib import Path  # noqa: E402
from typing import Any  # noqa: E402

import numpy as np  # noqa: E402


def synthesize(run_dir: str, layers: int, steps: int, workers: int = 2) -> None:
    """Write ``workers`` worker folders of ``steps`` records each, as a recording would."""
    from tfnb_debug.collect.run_writer import StepTimes, WorkerIdentity
    from tfnb_debug.features.gradient_report import build_report
    from tfnb_debug.features.run_saving import save_worker
    from tfnb_debug.records.gradients import HIST_BINS, STAT_COLUMNS, GradientHistory, VariableMeta

    rng = np.random.default_rng(0)
    variables = tuple(
        VariableMeta(f"mlp/dense_{i}/{part}", f"mlp/dense_{i}", part, shape, "float32", "adam")
        for i in range(layers)
        for part, shape in (("kernel", (64, 64)), ("bias", (64,)))
    )
    n = len(variables)
    for w in range(workers):
        stats = rng.uniform(0.01, 1.0, size=(steps, n, len(STAT_COLUMNS))).astype(np.float32)
        stats[:, :, 3:5] = 0  # no NaN or Inf
        hist = rng.integers(0, 500, size=(steps, n, HIST_BINS)).astype(np.float32)
        loss = np.exp(-np.arange(steps) / steps) + rng.normal(0, 0.01, steps)
        history = GradientHistory(
            variables=variables,
            steps=np.arange(steps),
            loss=loss,
            loss_known=np.ones(steps, bool),
            stats=stats,
            hist=hist,
            total_steps=steps,
        )
        report = build_report(history, source="custom loop", model_name="mlp", max_steps=steps)
        ends = np.cumsum(rng.uniform(0.018, 0.022, steps))
        times = StepTimes(
            start=list(ends - 0.015),
            end=list(ends),
            steps=[1] * steps,
            hashes=[f"{w}{i}" * 8 for i in range(4)],
            batch_source="distributed",
        )
        save_worker(run_dir, report, WorkerIdentity(w, workers, "worker", w), times)


def folder_bytes(path: Path) -> int:
    return sum(p.stat().st_size for p in path.rglob("*") if p.is_file())


def open_once(run_dir: str) -> float:
    import tfnb_debug

    start = time.perf_counter()
    report = tfnb_debug.open_run(run_dir)
    report.to_text()
    report.to_html()
    return time.perf_counter() - start


COLD = """
import os, sys, time
os.environ["TF_CPP_MIN_LOG_LEVEL"] = "3"
start = time.perf_counter()
import tfnb_debug
report = tfnb_debug.open_run(sys.argv[1]); report.to_text(); report.to_html()
print(time.perf_counter() - start, "tensorflow" in sys.modules)
"""


def bench_open(repeat: int, steps: int) -> None:
    for layers in (2, 10):
        with tempfile.TemporaryDirectory() as tmp:
            synthesize(tmp, layers, steps)
            size = folder_bytes(Path(tmp) / "worker-0")
            open_once(tmp)  # warm-up: imports, first rendering
            times = [open_once(tmp) for _ in range(repeat)]
            cold = subprocess.run(
                [sys.executable, "-c", COLD, tmp], capture_output=True, text=True, check=True
            ).stdout.split()
            print(
                f"{layers} layers ({2 * layers} variables), 2 workers x {steps} steps: "
                f"{size / steps * 1000 / 1024:.0f} KiB per 1,000 steps of a worker "
                f"({size / 1024 / 1024:.2f} MiB a worker); open + text + HTML median "
                f"{statistics.median(times):.3f} s (min {min(times):.3f}, {repeat} runs); "
                f"fresh interpreter {float(cold[0]):.2f} s (TensorFlow imported: {cold[1]})"
            )


def bench_saving(repeat: int, steps: int) -> None:
    import keras
    import tensorflow as tf

    import tfnb_debug

    x = np.random.default_rng(0).normal(size=(32 * steps, 32)).astype("float32")
    y = x[:, :1]
    dataset = tf.data.Dataset.from_tensor_slices((x, y)).batch(32)

    def loop(save_to: str | None) -> tuple[float, float]:
        keras.utils.set_random_seed(0)
        model = keras.Sequential(
            [keras.Input((32,)), keras.layers.Dense(64, activation="relu"), keras.layers.Dense(1)]
        )
        optimizer = keras.optimizers.Adam()
        recording: Any = tfnb_debug.record_gradients(save_to=save_to, max_steps=steps)
        with recording:

            @tf.function
            def step(xb: tf.Tensor, yb: tf.Tensor) -> tf.Tensor:
                with tf.GradientTape() as tape:
                    loss = tf.reduce_mean(tf.square(model(xb) - yb))
                grads = tape.gradient(loss, model.trainable_variables)
                optimizer.apply_gradients(zip(grads, model.trainable_variables, strict=True))
                return loss

            iterator = iter(dataset)
            step(*next(iterator))  # the trace, not timed
            start = time.perf_counter()
            for xb, yb in iterator:
                step(xb, yb)
            loop_time = time.perf_counter() - start
            end_start = time.perf_counter()
        return loop_time, time.perf_counter() - end_start

    plain, saved, ends = [], [], []
    with tempfile.TemporaryDirectory() as tmp:
        loop(None)
        for i in range(repeat):
            plain.append(loop(None)[0])
            loop_time, end_time = loop(f"{tmp}/run{i}")
            saved.append(loop_time)
            ends.append(end_time)
        size = folder_bytes(Path(tmp) / "run0" / "worker-0")
    p, s = statistics.median(plain), statistics.median(saved)
    print(
        f"custom loop, {steps - 1} timed steps: record_gradients() {p * 1000 / (steps - 1):.2f} ms "
        f"a step, with save_to {s * 1000 / (steps - 1):.2f} ms a step: ratio {s / p:.3f} "
        f"(median of {repeat}, interleaved); the block's end with the write "
        f"{statistics.median(ends):.3f} s; its folder {size / steps * 1000 / 1024:.0f} KiB per "
        "1,000 steps (4 variables, real statistics)"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--steps", type=int, default=300, help="steps of the saving benchmark")
    parser.add_argument(
        "--run-steps", type=int, default=10_000, help="steps per synthesized worker"
    )
    parser.add_argument("--saving-only", action="store_true", help="only the cost of saving")
    args = parser.parse_args()
    if not args.saving_only:
        bench_open(args.repeat, args.run_steps)
    bench_saving(args.repeat, args.steps)


if __name__ == "__main__":
    main()
