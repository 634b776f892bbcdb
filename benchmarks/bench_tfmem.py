"""Overhead of ``track_memory`` (the ``%%tfmem`` sampler) on CPU-bound training cells.

Each cell runs plain and under ``track_memory()`` at the default interval,
interleaved (plain, tracked, plain, tracked, ...) in the same process so that
drift hits both alike.  Prints the median seconds of each and their ratio:

* ``model.fit``: an MLP on synthetic data (a step marker per batch);
* an eager custom loop with ``optimizer.apply_gradients`` (a marker and a
  reading of every probe per step: the worst case for the markers);
* the same fit with ``steps=False`` (the sampler thread alone).

The ratio times the cell inside the ``with`` block; the fixed costs (start,
stop, findings) and the plot (drawn on display) are printed apart.

Run: ``.venv/bin/python benchmarks/bench_tfmem.py [--repeat 7]``
"""

from __future__ import annotations

import os

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
os.environ.setdefault("TF_ENABLE_ONEDNN_OPTS", "0")

import argparse  # noqa: E402
import statistics  # noqa: E402
import time  # noqa: E402
from collections.abc import Callable  # noqa: E402
from typing import Any  # noqa: E402


def build() -> tuple[Any, Callable[[], None], Callable[[], None]]:
    import keras
    import numpy as np
    import tensorflow as tf

    rng = np.random.default_rng(0)
    x = rng.normal(size=(8192, 256)).astype("float32")
    y = rng.normal(size=(8192, 16)).astype("float32")
    model = keras.Sequential(
        [
            keras.Input((256,)),
            keras.layers.Dense(512, activation="relu"),
            keras.layers.Dense(512, activation="relu"),
            keras.layers.Dense(16),
        ]
    )
    model.compile(optimizer="adam", loss="mse")

    def fit() -> None:  # 64 steps of batch 128
        model.fit(x, y, batch_size=128, epochs=1, verbose=0, shuffle=False)

    optimizer = keras.optimizers.Adam(1e-3)
    xb, yb = tf.constant(x[:256]), tf.constant(y[:256])

    def custom_loop() -> None:  # 60 eager steps
        for _ in range(60):
            with tf.GradientTape() as tape:
                loss = tf.reduce_mean((model(xb) - yb) ** 2)
            grads = tape.gradient(loss, model.trainable_weights)
            optimizer.apply_gradients(zip(grads, model.trainable_weights, strict=True))

    return model, fit, custom_loop


def _timed(cell: Callable[[], None]) -> tuple[float, float]:
    wall, cpu = time.perf_counter(), time.process_time()
    cell()
    return time.perf_counter() - wall, time.process_time() - cpu


def compare(name: str, cell: Callable[[], None], repeat: int, **track: Any) -> None:
    """Medians of the cell alone vs the cell inside ``track_memory`` (timed inside the block).

    Wall time and the process's CPU time (all threads, the sampler's included):
    on a shared machine the CPU time is the steadier measure of added work.
    """
    from tfnb_debug.features.memory import track_memory

    cell()  # warm up (tracing, allocations)
    plain: list[tuple[float, float]] = []
    inside: list[tuple[float, float]] = []
    fixed: list[float] = []
    for _ in range(repeat):
        plain.append(_timed(cell))
        outer = time.perf_counter()
        with track_memory(**track) as mem:
            inside.append(_timed(cell))
        fixed.append(time.perf_counter() - outer - inside[-1][0])
    report = mem.report
    assert report is not None
    start = time.perf_counter()
    report.to_html()
    plot = time.perf_counter() - start
    wall = statistics.median(t for t, _ in inside) / statistics.median(t for t, _ in plain)
    cpu = statistics.median(c for _, c in inside) / statistics.median(c for _, c in plain)
    base = statistics.median(t for t, _ in plain)
    print(
        f"{name:<38} plain {base * 1000:7.1f} ms  ratio wall {wall:5.3f} cpu {cpu:5.3f}  | "
        f"start+stop+findings {statistics.median(fixed) * 1000:5.1f} ms, plot {plot * 1000:5.1f} ms"
        f"  ({len(report.step_times)} steps)"
    )


def direct_costs(fit: Callable[[], None], steps_per_fit: int) -> None:
    """What one sample and one step mark cost, timed alone (steady on a busy machine)."""
    from tfnb_debug.features.memory import DEFAULT_INTERVAL_MS, track_memory

    with track_memory() as mem:
        recorder = mem.recorder
        sampler, markers = recorder.sampler, recorder.markers
        assert sampler is not None and markers is not None
        n = 2000
        start = time.perf_counter()
        for _ in range(n):
            sampler.read_all()
            if sampler.step_counter is not None:
                sampler.step_counter()
        sample_s = (time.perf_counter() - start) / n
        start = time.perf_counter()
        for _ in range(n):
            markers._note("apply_gradients", None, None)
        mark_s = (time.perf_counter() - start) / n
        markers.marks.clear()
    fit()  # warm up: tracing
    start = time.perf_counter()
    fit()
    step_s = (time.perf_counter() - start) / steps_per_fit
    print(
        f"one sample {sample_s * 1e6:.1f} us -> {sample_s / (DEFAULT_INTERVAL_MS / 1000):.3%} of a "
        f"core at {DEFAULT_INTERVAL_MS:g} ms; one step mark {mark_s * 1e6:.1f} us -> "
        f"{mark_s / step_s:.3%} of a {step_s * 1000:.1f} ms fit step"
    )


def main() -> None:
    from tfnb_debug.features.memory import DEFAULT_INTERVAL_MS

    parser = argparse.ArgumentParser()
    parser.add_argument("--repeat", type=int, default=7)
    repeat = parser.parse_args().repeat
    _, fit, custom_loop = build()
    print(f"default interval {DEFAULT_INTERVAL_MS:g} ms; medians of {repeat} interleaved runs")
    direct_costs(fit, 64)
    compare("model.fit (64 steps)", fit, repeat)
    compare("eager custom loop (60 steps)", custom_loop, repeat)
    compare("model.fit, sampler only (steps=False)", fit, repeat, steps=False)
    print(
        "ratio: the cell's own time inside track_memory over its time alone; the fixed costs "
        "(starting and joining the thread, restoring patches, findings) and the SVG plot "
        "(drawn when the report is displayed) are shown apart"
    )


if __name__ == "__main__":
    main()
