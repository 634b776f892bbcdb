"""What the state guard costs around an inference forward after ``fit`` (P16's predictions).

``preserved(model)`` copies variables to the host and puts back those whose bits changed
(``VariableSnapshot.restore``).  For each model, fitted once, this prints medians of
interleaved repeats, in ms:

* ``forward``: the plain eager forward P16 runs (256 training examples, inference mode);
* ``guard, optimizer left out``: what P16 and the hidden-layer probe take around it;
* ``guard, optimizer too``: what a guard around training (``%tfoverfit``, ``%tflint``) takes
  when nothing was written;
* ``old guard, all assigned back``: the guard with the optimizer as it was before the
  put-back compared (the same snapshot, then every variable assigned back), for reference;

and the ratio of forward plus guard to the plain forward.  Models: the small CNN, the
Transformer and the U-Net of ``bench_tfgrad_cells.py``; ``--mobilenet`` adds MobileNetV2.

Run: ``.venv/bin/python benchmarks/bench_guard.py [--repeats 9] [--mobilenet]``.
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

from bench_tfgrad_cells import data_for, mobilenet, small_cnn, transformer, unet  # noqa: E402


def _old_guard(model: Any) -> None:
    from tfnb_debug.collect._patching import preserve

    saved = preserve(model)
    for variable, value in zip(saved.snapshot.variables, saved.snapshot.values, strict=True):
        variable.assign(value)


def measure(model: Any, x: Any, repeats: int) -> dict[str, float]:
    import numpy as np

    from tfnb_debug.collect._patching import preserve

    rows: dict[str, Callable[[], object]] = {
        "forward": lambda: np.asarray(model(x, training=False)),
        "guard, optimizer left out": lambda: preserve(model, optimizer=False).restore(),
        "guard, optimizer too": lambda: preserve(model).restore(),
        "old guard, all assigned back": lambda: _old_guard(model),
    }
    for run in rows.values():
        run()  # first-call costs
    times: dict[str, list[float]] = {name: [] for name in rows}
    for _ in range(repeats):
        for name, run in rows.items():
            start = time.perf_counter()
            run()
            times[name].append((time.perf_counter() - start) * 1000)
    return {name: statistics.median(values) for name, values in times.items()}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=9)
    parser.add_argument("--mobilenet", action="store_true", help="also MobileNetV2 (96x96)")
    args = parser.parse_args()

    import keras
    import tensorflow as tf

    builds = {"small CNN": small_cnn, "Transformer": transformer, "U-Net": unet}
    if args.mobilenet:
        builds["MobileNetV2"] = mobilenet
    print(f"TF {tf.__version__}, Keras {keras.__version__}, {os.cpu_count()} CPU(s)")
    for name, build in builds.items():
        model = build(keras)
        x, y = data_for(name, 32, 8)
        model.fit(x, y, batch_size=8, epochs=1, verbose=0)
        result = measure(model, x[:256], args.repeats)
        forward = result["forward"]
        print(
            f"\n{name}: {len(model.variables)} model + {len(model.optimizer.variables)} "
            f"optimizer variables, median of {args.repeats} (ms)"
        )
        for row, ms in result.items():
            ratio = "" if row == "forward" else f"  forward + this: {(forward + ms) / forward:.2f}x"
            print(f"  {row:28s} {ms:7.1f}{ratio}")


if __name__ == "__main__":
    main()
