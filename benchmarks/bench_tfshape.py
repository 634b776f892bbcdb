"""Benchmark of %tfshape: trace cost against the plain eager forward pass, in one process.

Prints medians of several runs and the ratios the issue asks for:

(a) ResNet50 (weights=None, batch 8) trace with statistics / plain eager forward
    pass (target <= 1.3x);
(b) a 1000-layer model, trace plus HTML rendering / plain eager forward pass
    (target <= 1.5x);
(c) the ResNet50 trace next to ``model.summary()``.

Run: ``.venv/bin/python benchmarks/bench_tfshape.py [--runs 5] [--resolution 224]``.
"""

from __future__ import annotations

import argparse
import contextlib
import io
import os
import statistics
import time
from collections.abc import Callable

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
os.environ.setdefault("TF_ENABLE_ONEDNN_OPTS", "0")


def medians(fns: dict[str, Callable[[], object]], runs: int) -> dict[str, float]:
    """Median seconds of each function, runs interleaved so that load on the machine hits all alike."""
    for fn in fns.values():
        fn()  # warm-up: build, first-call costs
    times: dict[str, list[float]] = {name: [] for name in fns}
    for _ in range(runs):
        for name, fn in fns.items():
            start = time.perf_counter()
            fn()
            times[name].append(time.perf_counter() - start)
    return {name: statistics.median(values) for name, values in times.items()}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--resolution", type=int, default=224)
    parser.add_argument("--batch", type=int, default=8)
    parser.add_argument("--layers", type=int, default=1000)
    args = parser.parse_args()

    import keras
    import numpy as np

    from tfnb_debug import trace_shapes

    rng = np.random.default_rng(0)
    print(f"keras {keras.__version__}, runs={args.runs} (medians), CPU count {os.cpu_count()}")

    # (a) ResNet50
    res = args.resolution
    resnet = keras.applications.ResNet50(weights=None, input_shape=(res, res, 3))
    x = rng.uniform(0, 1, (args.batch, res, res, 3)).astype("float32")

    def summary() -> None:
        with contextlib.redirect_stdout(io.StringIO()):
            resnet.summary()

    m = medians(
        {
            "plain": lambda: resnet(x, training=False),
            "traced": lambda: trace_shapes(resnet, x),
            "shapes": lambda: trace_shapes(resnet, x, stats=False),
            "summary": summary,
        },
        args.runs,
    )
    rows = len(trace_shapes(resnet, x, stats=False).calls)
    print(
        f"(a) ResNet50 {res}x{res} batch {args.batch}, {rows} rows: "
        f"forward {m['plain'] * 1e3:.0f} ms, trace+stats {m['traced'] * 1e3:.0f} ms "
        f"-> {m['traced'] / m['plain']:.2f}x (target <= 1.3x); shapes only "
        f"{m['shapes'] / m['plain']:.2f}x"
    )
    print(
        f"(c) ResNet50 model.summary() {m['summary'] * 1e3:.0f} ms vs trace+stats "
        f"{m['traced'] * 1e3:.0f} ms -> trace / summary = {m['traced'] / m['summary']:.2f}x "
        "(summary shows no statistics and no per-call rows)"
    )

    # (b) 1000-layer model
    # Subclassed: a 1000-deep Sequential/Functional graph overflows Keras' own recursive
    # graph walk (RecursionError in keras.src.ops.function._build_map_helper).
    class Deep(keras.Model):
        def __init__(self, depth: int) -> None:
            super().__init__(name="deep")
            self.blocks = [keras.layers.Dense(32, activation="relu") for _ in range(depth)]

        def call(self, x: object) -> object:
            for block in self.blocks:
                x = block(x)
            return x

    deep = Deep(args.layers)
    xd = rng.standard_normal((args.batch, 32)).astype("float32")
    deep(xd)
    d = medians(
        {
            "plain": lambda: deep(xd, training=False),
            "html": lambda: trace_shapes(deep, xd).to_html(),
            "trace": lambda: trace_shapes(deep, xd),
        },
        args.runs,
    )
    print(
        f"(b) {args.layers}-layer Dense model (subclassed) batch {args.batch}: forward "
        f"{d['plain'] * 1e3:.0f} ms, trace+stats+HTML {d['html'] * 1e3:.0f} ms -> "
        f"{d['html'] / d['plain']:.2f}x (target <= 1.5x); trace without HTML "
        f"{d['trace'] / d['plain']:.2f}x"
    )


if __name__ == "__main__":
    main()
