"""Benchmark for ``%tfpipeline`` / ``inspect_pipeline`` (standalone script, not a test).

1. Throughput agreement: the steady examples/s that ``inspect_pipeline`` measures
   vs ``tfds.benchmark`` (``raw_benchmark``, its 'lasts' figure) on the same
   pipeline in the same process, alternating, medians of several runs.  tfds
   counts the first batch's examples in the steady rate; the corrected tfds
   figure (first batch excluded, as tfnb_debug does) is printed too.
2. Cost: the whole inspection of a 10,000-image pipeline vs iterating, once,
   the batches the inspection reads (the timed batches; the sample is their
   first ones), medians.

Needs ``tensorflow-datasets`` for part 1 (``pip install tensorflow-datasets``);
part 2 runs without it.  Usage: ``python benchmarks/bench_tfpipeline.py``.
"""

from __future__ import annotations

import os
import statistics
import time

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
os.environ.setdefault("TF_ENABLE_ONEDNN_OPTS", "0")

import numpy as np  # noqa: E402
import tensorflow as tf  # noqa: E402

from tfnb_debug import inspect_pipeline  # noqa: E402
from tfnb_debug.collect.pipeline_speed import measure_throughput  # noqa: E402

RUNS = 7
BATCH = 32
TIMED = 50  # inspect_pipeline's default max_batches
AGREE_BATCHES = 150
AGREE_RUNS = 9


def pipeline(n: int = 10_000) -> tf.data.Dataset:
    rng = np.random.default_rng(0)
    images = rng.integers(0, 256, size=(n, 28, 28, 1), dtype=np.uint8)
    labels = rng.integers(0, 10, size=(n,), dtype=np.int64)

    def scale(x: tf.Tensor, y: tf.Tensor) -> tuple[tf.Tensor, tf.Tensor]:
        return tf.cast(x, tf.float32) / 255.0, y

    return (
        tf.data.Dataset.from_tensor_slices((images, labels))
        .shuffle(1000)
        .map(scale, num_parallel_calls=tf.data.AUTOTUNE)
        .batch(BATCH)
        .prefetch(tf.data.AUTOTUNE)
    )


def throughput_agreement(ds: tf.data.Dataset) -> None:
    try:
        from tensorflow_datasets.core.utils.benchmark import raw_benchmark
    except ImportError:
        print("part 1 skipped: tensorflow-datasets is not installed")
        return
    ours, tfds_lasts, tfds_fixed = [], [], []
    for i in range(AGREE_RUNS):
        # alternate which one goes first, so drift in machine load hits both alike
        for which in ("ours", "tfds") if i % 2 == 0 else ("tfds", "ours"):
            if which == "ours":
                mine = measure_throughput(
                    ds, name="bench", batched=True, max_elements=AGREE_BATCHES, max_seconds=60.0
                )
                ours.append(mine.examples_per_s or float("nan"))
            else:
                raw = raw_benchmark(ds, num_iter=AGREE_BATCHES, batch_size=BATCH)
                tfds_lasts.append(raw.stats()["lasts"]["avg"])
                steady_s = raw.total_time_s(include_first=False)
                tfds_fixed.append((raw.num_examples - BATCH) / steady_s)
    ratio_lasts = statistics.median(a / b for a, b in zip(ours, tfds_lasts, strict=True))
    ratio_fixed = statistics.median(a / b for a, b in zip(ours, tfds_fixed, strict=True))
    print(
        f"[1] steady examples/s over {AGREE_BATCHES} batches of {BATCH}, "
        f"median of {AGREE_RUNS} paired runs"
    )
    print(f"    tfnb_debug measure_throughput : {statistics.median(ours):12.0f}")
    print(
        f"    tfds.benchmark 'lasts'        : {statistics.median(tfds_lasts):12.0f}"
        f"   median ratio tfnb/tfds = {ratio_lasts:.3f}"
    )
    print(
        f"    tfds, first batch excluded    : {statistics.median(tfds_fixed):12.0f}"
        f"   median ratio tfnb/tfds = {ratio_fixed:.3f}"
    )


def inspection_cost(ds: tf.data.Dataset) -> None:
    def iterate_once() -> float:
        start = time.perf_counter()
        for _ in ds.take(TIMED):
            pass
        return time.perf_counter() - start

    def inspect(per_stage: bool, html: bool) -> float:
        start = time.perf_counter()
        report = inspect_pipeline(ds, per_stage=per_stage)
        if html:
            report.to_html()
        return time.perf_counter() - start

    def draw_only() -> float:
        report = inspect_pipeline(ds, per_stage=False)
        start = time.perf_counter()
        report.to_html()
        return time.perf_counter() - start

    iterate_once()
    inspect(True, True)  # warm-up: traces, imports
    # interleaved, so that a change in the machine's load hits every row alike
    runs: dict[str, list[float]] = {"base": [], "whole": [], "shown": [], "staged": [], "draw": []}
    for _ in range(RUNS):
        runs["base"].append(iterate_once())
        runs["whole"].append(inspect(False, False))
        runs["shown"].append(inspect(False, True))
        runs["staged"].append(inspect(True, False))
        runs["draw"].append(draw_only())
    base, whole, shown, staged, draw = (statistics.median(runs[k]) for k in runs)
    print(f"[2] 10,000-image pipeline, median of {RUNS} interleaved runs")
    print(f"    iterate the {TIMED} batches the inspection reads, once  : {base * 1000:8.1f} ms")
    print(
        f"    inspect_pipeline(per_stage=False)              : {whole * 1000:8.1f} ms  ratio {whole / base:.2f}x"
    )
    print(
        f"    ... plus drawing the figures (to_html)         : {shown * 1000:8.1f} ms  ratio {shown / base:.2f}x"
    )
    print(
        f"    drawing alone (to_html of a fresh report)      : {draw * 1000:8.1f} ms  "
        f"{draw / whole:.1%} of the inspection"
    )
    print(
        f"    inspect_pipeline() incl. per-stage timing      : {staged * 1000:8.1f} ms  ratio {staged / base:.2f}x"
    )
    print("    (per-stage timing is bounded by stage_seconds=0.3 s per prefix, by design)")


if __name__ == "__main__":
    data = pipeline()
    throughput_agreement(data)
    inspection_cost(data)
