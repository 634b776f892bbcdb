"""Cost of the layer inspector, against the uninstrumented model in the same process.

Prints medians of several repeats and their ratios, for a small CNN, for
MobileNetV2 (``weights=None``, 128x128, batch 2, no download) and for a
1,000-layer model (1,000 Dense layers in a subclassed model, batch 8):

* opening the inspector (trace + model graph + widget + details of the first
  layer) vs ``trace_shapes`` alone and vs one plain forward pass;
* drawing the model graph alone (records + layout + SVG), and its size;
* selecting a layer (uncached: one forward pass with that layer's call wrapped,
  weight statistics, histograms, feature maps, HTML) vs one plain forward pass,
  with and without figures;
* the same with ``training=True`` (the pass runs inside ``preserved(model)``);
* selecting a layer again (cached details).

Run: ``.venv/bin/python benchmarks/bench_inspector.py [--best]`` (``--best``: the
fastest of the repeats instead of the median, for a machine shared with other jobs).
"""

from __future__ import annotations

import os

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
os.environ.setdefault("TF_ENABLE_ONEDNN_OPTS", "0")

import statistics  # noqa: E402
import sys  # noqa: E402
import time  # noqa: E402
from collections.abc import Callable  # noqa: E402
from typing import Any  # noqa: E402

import keras  # noqa: E402
import numpy as np  # noqa: E402

import tfnb_debug  # noqa: E402
from tfnb_debug.widgets.graph import graph_nodes, graph_svg  # noqa: E402
from tfnb_debug.widgets.inspector import InspectorOptions, LayerInspector  # noqa: E402

SUMMARY: Callable[[list[float]], float] = min if "--best" in sys.argv else statistics.median


def median_seconds(fn: Callable[[], object], *, repeat: int = 5) -> float:
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        fn()
        times.append(time.perf_counter() - start)
    return SUMMARY(times)


def small_cnn() -> tuple[keras.Model, np.ndarray]:
    model = keras.Sequential(
        [
            keras.Input((28, 28, 1)),
            keras.layers.Conv2D(16, 3, activation="relu"),
            keras.layers.MaxPooling2D(),
            keras.layers.Conv2D(32, 3, activation="relu"),
            keras.layers.Flatten(),
            keras.layers.Dense(10),
        ],
        name="small_cnn",
    )
    return model, np.random.default_rng(0).normal(size=(8, 28, 28, 1)).astype("float32")


def mobilenet() -> tuple[keras.Model, np.ndarray]:
    model = keras.applications.MobileNetV2(weights=None, input_shape=(128, 128, 3))
    return model, np.random.default_rng(0).normal(size=(2, 128, 128, 3)).astype("float32")


def deep(depth: int = 1000) -> tuple[keras.Model, np.ndarray]:
    """Subclassed: a 1000-deep Functional graph overflows Keras' own recursive graph walk."""

    class Deep(keras.Model):
        def __init__(self) -> None:
            super().__init__(name="deep")
            self.blocks = [keras.layers.Dense(32, activation="relu") for _ in range(depth)]

        def call(self, x: Any) -> Any:
            for block in self.blocks:
                x = block(x)
            return x

    return Deep(), np.random.default_rng(0).normal(size=(8, 32)).astype("float32")


def bench(label: str, model: Any, x: np.ndarray) -> None:
    model(x)  # build and warm up
    forward = median_seconds(lambda: model(x))
    trace = median_seconds(lambda: tfnb_debug.trace_shapes(model, x))

    def open_inspector() -> None:
        tfnb_debug.inspect(model, x).close()

    opened = median_seconds(open_inspector)
    report = tfnb_debug.trace_shapes(model, x)
    # A conv layer in the middle of the model, as a learner would click (else the middle row).
    convs = [c.index for c in report.calls if c.class_name == "Conv2D"]
    target = convs[len(convs) // 2] if convs else len(report.calls) // 2
    marks = [""] * len(report.calls)
    nodes = graph_nodes(report.calls, marks)
    svg = graph_svg(nodes, interactive=True)
    drawing = median_seconds(lambda: graph_svg(graph_nodes(report.calls, marks), interactive=True))
    boxes = svg.count('class="tfnb-node"')
    drawn = f"{boxes} boxes, {len(svg) / 1024:.0f} KiB of SVG"
    if not svg.startswith("<svg"):
        drawn = "not drawn (too many boxes): the list is the view"

    def select(figures: bool, training: bool = False) -> Callable[[], object]:
        def run() -> None:
            options = InspectorOptions(figures=figures, training=training)
            insp = LayerInspector(report, model=model, inputs=x, options=options)
            start = time.perf_counter()
            insp.select(target)
            timings.append(time.perf_counter() - start)
            insp.close()

        timings: list[float] = []
        for _ in range(5):
            run()
        return lambda: SUMMARY(timings)

    with_figures = float(select(True)())  # type: ignore[arg-type]
    without_figures = float(select(False)())  # type: ignore[arg-type]
    training = float(select(True, training=True)())  # type: ignore[arg-type]
    insp = LayerInspector(report, model=model, inputs=x)
    insp.select(target)
    cached = median_seconds(lambda: insp.select(target), repeat=7)
    insp.close()
    print(f"\n{label}: {len(report.calls)} rows, forward pass {forward * 1e3:.1f} ms")
    print(f"  trace_shapes                 {trace * 1e3:8.1f} ms  {trace / forward:6.1f}x forward")
    print(
        f"  open inspector               {opened * 1e3:8.1f} ms  {opened / forward:6.1f}x forward"
        f"  {opened / trace:5.2f}x trace_shapes"
    )
    print(f"  model graph (records + SVG)  {drawing * 1e3:8.1f} ms  {drawn}")
    print(
        f"  select a conv (figures)      {with_figures * 1e3:8.1f} ms"
        f"  {with_figures / forward:6.1f}x forward"
    )
    print(
        f"  select a conv (no figures)   {without_figures * 1e3:8.1f} ms"
        f"  {without_figures / forward:6.1f}x forward"
    )
    print(
        f"  select, training=True        {training * 1e3:8.1f} ms"
        f"  {training / forward:6.1f}x forward (inside preserved(): variables put back)"
    )
    print(
        f"  select again (cached)        {cached * 1e3:8.1f} ms  {cached / forward:6.2f}x forward"
    )


def main() -> None:
    keras.utils.set_random_seed(0)
    bench("small CNN, batch 8", *small_cnn())
    bench("MobileNetV2 (weights=None), 128x128, batch 2", *mobilenet())
    bench("1,000 Dense layers (subclassed), batch 8", *deep())


if __name__ == "__main__":
    main()
