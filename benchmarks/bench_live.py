"""What the live view and ``--stop-on`` add to a ``%%tfgrad`` cell, against the plain ``fit``.

The cells run through a real IPython shell in one process.  For each model,
interleaved, ``--repeats`` times (medians reported):

* ``plain fit``: ``model.fit`` without tfnb_debug;
* ``%%tfgrad --no-live``: the recording alone, the report shown;
* ``%%tfgrad --live`` at ``--live-interval 2`` (the default) and ``0.2``;
* ``%%tfgrad --no-live --stop-on nan``: the stop check on every step.

Every instrumented cell is a repeated cell (its instrumented train function was
traced by an earlier cell), so the figures are the per-step cost plus the
report; the live view's share is the difference between ``--live`` and
``--no-live``.  A bare IPython shell has no front end: the live view's
display updates are formatted and published as in a notebook and land on a
discarded stdout.

A second table drives the same view through the API (``record_gradients`` +
``LiveView``) and prints what each update cost (``LiveView.costs``: collect,
render, publish) and their sum as a share of the run.

Models: the small CNN of ``bench_tfgrad.py`` (4 epochs of 128 steps of batch
16) and the Keras example's U-Net of ``bench_tfgrad_cells.py`` (82 variables,
2 epochs of 48 steps of batch 8).  Run::

    python benchmarks/bench_live.py [--repeats 3] [--only small|unet]
"""

from __future__ import annotations

import os

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
os.environ.setdefault("TF_ENABLE_ONEDNN_OPTS", "0")

import argparse  # noqa: E402
import io  # noqa: E402
import statistics  # noqa: E402
import time  # noqa: E402
from contextlib import redirect_stdout  # noqa: E402
from typing import Any  # noqa: E402

from bench_tfgrad_cells import Cells, shell_with_extension  # noqa: E402

SIZES = {"small CNN": (128, 16, 4), "U-Net": (48, 8, 2)}  # steps, batch, epochs
VARIANTS = {
    "%%tfgrad --no-live": "--no-live",
    "%%tfgrad --live (interval 2 s)": "--live --live-interval 2",
    "%%tfgrad --live (interval 0.2 s)": "--live --live-interval 0.2",
    "%%tfgrad --no-live --stop-on nan": "--no-live --stop-on nan",
}


def timed(shell: Any, code: str, magic_line: str | None = None) -> float:
    start = time.perf_counter()
    with redirect_stdout(io.StringIO()):
        if magic_line is None:
            shell.run_cell(code)
        else:
            shell.run_cell_magic("tfgrad", magic_line, code)
    return time.perf_counter() - start


def cell_ratios(cells: Cells, epochs: int, repeats: int) -> dict[str, list[float]]:
    fit = f"model.fit(x, y, batch_size=batch, epochs={epochs}, verbose=0)"
    shell = cells.shell
    timed(shell, fit)  # trace the plain train function
    timed(shell, fit, "--no-live")  # and the instrumented one
    rows: dict[str, list[tuple[float, float]]] = {}
    for _ in range(repeats):
        plain = timed(shell, fit)
        rows.setdefault("plain fit", []).append((plain, 1.0))
        for row, line in VARIANTS.items():
            seconds = timed(shell, fit, line)
            rows.setdefault(row, []).append((seconds, seconds / plain))
    return {
        row: [statistics.median(v[0] for v in values), statistics.median(v[1] for v in values)]
        for row, values in rows.items()
    }


def update_costs(cells: Cells, epochs: int, interval: float) -> tuple[int, float, float, float]:
    """Updates, median and max seconds per update, and their sum as a share of the run."""
    from tfnb_debug.features.gradients import live_source, record_gradients
    from tfnb_debug.features.live import LiveView

    model = cells.shell.user_ns["model"]
    x, y, batch = (cells.shell.user_ns[k] for k in ("x", "y", "batch"))
    with redirect_stdout(io.StringIO()):
        start = time.perf_counter()
        with record_gradients() as recording:
            view = LiveView("%%tfgrad", mode="display", interval=interval)
            view.add(live_source(recording))
            with view:
                model.fit(x, y, batch_size=batch, epochs=epochs, verbose=0)
        elapsed = time.perf_counter() - start
    costs = view.costs or [0.0]
    return len(view.costs), statistics.median(costs), max(costs), sum(view.costs) / elapsed


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--only", choices=["small", "unet"])
    args = parser.parse_args()

    import keras
    import tensorflow as tf

    print(f"TF {tf.__version__}, Keras {keras.__version__}, {os.cpu_count()} CPU(s)")
    shell = shell_with_extension()
    names = {"small": ["small CNN"], "unet": ["U-Net"], None: ["small CNN", "U-Net"]}[args.only]
    for name in names:
        steps, batch, epochs = SIZES[name]
        cells = Cells(shell, keras, name, steps, batch)
        result = cell_ratios(cells, epochs, args.repeats)
        print(
            f"\n{name} ({cells.variables} trainable variables), {epochs} epoch(s) of {steps} "
            f"steps of batch {batch}, repeated cells, median of {args.repeats}:"
        )
        base = result["%%tfgrad --no-live"][0]
        for row, (seconds, ratio) in result.items():
            extra = ""
            if row.startswith("%%tfgrad") and row != "%%tfgrad --no-live":
                extra = f"   {seconds / base:5.3f}x the --no-live cell"
            print(f"  {row:36s} {seconds:7.2f} s {ratio:5.2f}x{extra}")
        for interval in (2.0, 0.2):
            n, median, worst, share = update_costs(cells, epochs, interval)
            print(
                f"  live view through the API, interval {interval:g} s: {n} updates, "
                f"{median * 1e3:.1f} ms median, {worst * 1e3:.1f} ms max, "
                f"{share * 100:.2f}% of the run"
            )


if __name__ == "__main__":
    main()
