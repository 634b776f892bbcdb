"""What ``%%tfgrad -q`` / ``%%tfcheck -q`` cost against the plain ``fit`` and the peer tools.

One model (``--model cnn``: the small CNN of ``bench_tfgrad.py``; ``--model
unet``: the U-Net-like model of ``bench_tfgrad_cells.py``), the same synthetic
data and one epoch of ``--steps`` steps of batch ``--batch`` for every row.  Each
row is a ratio to the plain ``model.fit`` of the same model, data and epochs, in
wall time and in the process's CPU time (all threads; steadier when other jobs
share the machine).  Two figures per row:

* ``first cell``: the first cell on a fresh model (built and compiled with the
  same seed, never fit), against the first plain ``fit`` of another fresh
  identical model: both trace their train function once;
* ``repeated cell``: the same cell run again on the same model, against the
  plain ``fit`` run again on the plain model.

Rows measured in this process, through a real IPython shell with
``%load_ext tfnb_debug`` as in a notebook (the plain ``fit`` cells too).  One
throw-away plain ``fit`` of another model warms the process up first (what
any first ``fit`` in a process pays), nothing is instrumented before the first
tool cell.  Each repeat builds fresh models and runs, per row, the plain
model's first ``fit``, the tool's first cell, the plain ``fit`` again and the
tool's cell again, interleaved; each ratio is taken against the plain ``fit``
run just before it and the median over ``--repeats`` is shown.  The
``first cell`` of the first repeat is also the tool's first cell in the
process (its one-off imports; ``%%tfcheck`` runs after one ``%%tfgrad`` cell,
so the modules both use are loaded already): its wall ratio is printed below
the table for the two magics, and is in the JSON for every row of this process.

1. ``%%tfgrad -q`` around ``model.fit(...)``;
2. ``%%tfcheck -q`` around ``model.fit(...)``;
3. Keras' ``TensorBoard(log_dir=tmp, histogram_freq=1)`` callback in the
   ``fit`` (weight histograms once an epoch; Keras' other defaults);
4. the per-step summary recipe: a ``keras.Model`` subclass (the same layers,
   wrapped as a functional model) whose ``train_step`` computes the gradients
   with ``tf.GradientTape``, applies them with the optimizer and writes a
   ``tf.summary.histogram`` of every gradient every step
   (``step=optimizer.iterations``) into a ``tf.summary.create_file_writer(tmp)``
   (made once, outside the timed cells, as a notebook's earlier cell would),
   the default writer around the ``fit`` (flushed at the end of the cell).
   Shown against the plain ``fit`` and against the same subclass without the
   summaries (``custom train_step, no summaries``, also shown against the
   plain ``fit``).  The subclass compiles with ``jit_compile=False`` (summary
   ops do not compile with XLA; on a CPU-only machine Keras does not use XLA
   anyway).

Rows measured each in a process of their own, since what they install is
global and cannot be taken out again.  **Their baseline is measured in their
own process**: it warms up, builds model A, fits it (the plain first ``fit``,
then ``--repeats`` plain ``fit`` calls again), then enables the tool, builds a
fresh identical model B (after enabling: the tool instruments the ops as they
are created) and fits it the same way; the ratios are B / A (first ``fit``;
median of the repeated ones), not interleaved:

5. ``tf.debugging.enable_check_numerics()``;
6. Debugger V2, ``tf.debugging.experimental.enable_dump_debug_info(tmp,
   tensor_debug_mode="CURT_HEALTH", circular_buffer_size=-1)``;
7. the same with ``tensor_debug_mode="FULL_HEALTH"``.

The TensorBoard and summary-recipe rows need the ``tensorboard`` package
(``pip install tensorboard``, in the ``bench`` extra); without it they are
skipped.  At the end, one line per claim, on the repeated cell's wall and CPU ratios
(each tool against its own baseline).  Run::

    python benchmarks/bench_peers.py [--model cnn|unet] [--repeats 3] [--steps 128]
        [--batch 16] [--json PATH] [--quick]
"""

from __future__ import annotations

import os

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
os.environ.setdefault("TF_ENABLE_ONEDNN_OPTS", "0")

import argparse  # noqa: E402
import importlib.util  # noqa: E402
import json  # noqa: E402
import shutil  # noqa: E402
import statistics  # noqa: E402
import subprocess  # noqa: E402
import sys  # noqa: E402
import tempfile  # noqa: E402
import time  # noqa: E402
from collections.abc import Callable  # noqa: E402
from typing import Any  # noqa: E402

from bench_tfgrad import build as small_cnn  # noqa: E402  (the same small CNN)
from bench_tfgrad_cells import data_for, shell_with_extension, unet  # noqa: E402

MODELS: dict[str, tuple[str, Callable[[Any], Any]]] = {
    "cnn": ("small CNN", small_cnn),
    "unet": ("U-Net", unet),
}

Timing = tuple[float, float]  # (wall seconds, CPU seconds of this process, all threads)
Ratios = tuple[float, float]  # (wall ratio, CPU ratio)

# assigned, so that no cell shows a value
FIT = "history = model.fit(x, y, batch_size=batch, epochs=1, verbose=0)"
PLAIN_CELL = FIT
TFGRAD_CELL = "%%tfgrad -q\n" + FIT
TFCHECK_CELL = "%%tfcheck -q\n" + FIT
TENSORBOARD_CELL = (
    "history = model.fit(x, y, batch_size=batch, epochs=1, verbose=0, "
    "callbacks=[keras.callbacks.TensorBoard(log_dir=logdir, histogram_freq=1)])"
)
RECIPE_CELL = f"with writer.as_default():\n    {FIT}\nwriter.flush()"

#: the tools that run in a process of their own: row name -> child argument
OWN_PROCESS = {
    "enable_check_numerics (own process)": "check_numerics",
    "Debugger V2 CURT_HEALTH (own process)": "CURT_HEALTH",
    "Debugger V2 FULL_HEALTH (own process)": "FULL_HEALTH",
}

TFGRAD, TFCHECK = "%%tfgrad -q", "%%tfcheck -q"
TENSORBOARD = "TensorBoard(histogram_freq=1)"
CUSTOM = "custom train_step, no summaries"
RECIPE = "per-step summary recipe"
RECIPE_OWN = "per-step summary recipe / custom train_step"

#: (claim, tool row, peer row), on the repeated cell's wall and CPU ratios
CLAIMS = [
    ("%%tfgrad < TensorBoard(histogram_freq=1)", TFGRAD, TENSORBOARD),
    ("%%tfgrad < per-step summary recipe", TFGRAD, RECIPE),
    ("%%tfcheck < enable_check_numerics", TFCHECK, "enable_check_numerics (own process)"),
    ("%%tfcheck < Debugger V2 CURT_HEALTH", TFCHECK, "Debugger V2 CURT_HEALTH (own process)"),
    ("%%tfcheck < Debugger V2 FULL_HEALTH", TFCHECK, "Debugger V2 FULL_HEALTH (own process)"),
]


def _now() -> Timing:
    return time.perf_counter(), time.process_time()


def _since(start: Timing) -> Timing:
    return time.perf_counter() - start[0], time.process_time() - start[1]


def _ratio(a: Timing, b: Timing) -> Ratios:
    return a[0] / b[0], a[1] / b[1]


def custom_step_classes(keras: Any) -> tuple[type, type]:
    """The recipe's ``keras.Model`` subclasses: a ``GradientTape`` train_step, and the same
    step writing a histogram of every gradient every step."""
    import tensorflow as tf

    class CustomStep(keras.Model):
        summaries = False

        def train_step(self, data: Any) -> dict[str, Any]:
            x, y = data
            with tf.GradientTape() as tape:
                y_pred = self(x, training=True)
                loss = self.compute_loss(x=x, y=y, y_pred=y_pred)
            variables = self.trainable_variables
            gradients = tape.gradient(loss, variables)
            self.optimizer.apply(gradients, variables)
            if self.summaries:
                for variable, gradient in zip(variables, gradients, strict=True):
                    tf.summary.histogram(
                        f"gradients/{variable.path}", gradient, step=self.optimizer.iterations
                    )
            for metric in self.metrics:
                if metric.name == "loss":
                    metric.update_state(loss)
                else:
                    metric.update_state(y, y_pred)
            return {metric.name: metric.result() for metric in self.metrics}

    class SummaryStep(CustomStep):
        summaries = True

    return CustomStep, SummaryStep


class Builder:
    """Fresh identical models (same seed): plain, or wrapped in the recipe's subclasses."""

    def __init__(self, keras: Any, build: Callable[[Any], Any]) -> None:
        self.keras, self.build = keras, build
        self.classes: tuple[type, type] | None = None

    def __call__(self, kind: str = "plain") -> Any:
        self.keras.utils.set_random_seed(0)
        inner = self.build(self.keras)
        if kind == "plain":
            return inner
        if self.classes is None:
            self.classes = custom_step_classes(self.keras)
        cls = self.classes[1] if kind == "summary" else self.classes[0]
        model = cls(inner.inputs, inner.outputs, name=f"{inner.name}_{kind}")
        model.compile(optimizer=inner.optimizer, loss=inner.loss, jit_compile=False)
        return model


# --- rows measured in a process of their own ---------------------------------------------


def child(tool: str, args: argparse.Namespace) -> None:
    """Plain model A's fits, then the tool enabled and model B's fits; prints the result."""
    import keras
    import tensorflow as tf

    name, build = MODELS[args.model]
    x, y = data_for(name, args.steps, args.batch)
    fresh = Builder(keras, build)

    def fit(model: Any) -> Timing:
        start = _now()
        model.fit(x, y, batch_size=args.batch, epochs=1, verbose=0)
        return _since(start)

    def fits(model: Any) -> tuple[Timing, list[Timing]]:
        first = fit(model)
        return first, [fit(model) for _ in range(args.repeats)]

    fresh().fit(x[: 2 * args.batch], y[: 2 * args.batch], batch_size=args.batch, verbose=0)
    plain_first, plain_again = fits(fresh())
    dump = tempfile.mkdtemp(prefix="bench_peers_dump_")
    try:
        if tool == "check_numerics":
            tf.debugging.enable_check_numerics()
        else:
            tf.debugging.experimental.enable_dump_debug_info(
                dump, tensor_debug_mode=tool, circular_buffer_size=-1
            )
        tool_first, tool_again = fits(fresh())
        if tool == "check_numerics":
            tf.debugging.disable_check_numerics()
        else:
            tf.debugging.experimental.disable_dump_debug_info()
    finally:
        shutil.rmtree(dump, ignore_errors=True)

    def median(timings: list[Timing]) -> Timing:
        return statistics.median(t[0] for t in timings), statistics.median(t[1] for t in timings)

    result = {
        "first": _ratio(tool_first, plain_first),
        "repeated": _ratio(median(tool_again), median(plain_again)),
        "plain_seconds": {"first": plain_first, "repeated": median(plain_again)},
    }
    print("RESULT " + json.dumps(result))


def own_process(tool: str, args: argparse.Namespace) -> dict[str, Any] | None:
    command = [
        sys.executable,
        os.path.abspath(__file__),
        "--child",
        tool,
        "--model",
        args.model,
        "--steps",
        str(args.steps),
        "--batch",
        str(args.batch),
        "--repeats",
        str(args.repeats),
    ]
    done = subprocess.run(command, capture_output=True, text=True, check=False)
    for line in done.stdout.splitlines():
        if line.startswith("RESULT "):
            return json.loads(line[len("RESULT ") :])
    print(f"{tool}: its process failed (exit {done.returncode}):\n{done.stderr[-2000:]}")
    return None


# --- rows measured in this process, through an IPython shell --------------------------------


class Cells:
    """Cells run through the shell on whichever model is ``model`` in its namespace (only
    one model there at a time: the magics look at every model of the notebook)."""

    def __init__(self, shell: Any, fresh: Builder, x: Any, y: Any, batch: int) -> None:
        self.shell, self.fresh = shell, fresh
        shell.user_ns.update(x=x, y=y, batch=batch, keras=fresh.keras)

    def run(self, model: Any, cell: str, writer: Any = None) -> Timing:
        """The cell on ``model``; the recipe's ``writer`` is the model's own, made once (its
        train function, once traced, writes to it)."""
        ns = self.shell.user_ns
        logdir = tempfile.mkdtemp(prefix="bench_peers_logs_")
        ns.update(model=model, logdir=logdir, writer=writer)
        try:
            start = _now()
            self.shell.run_cell(cell).raise_error()
            return _since(start)
        finally:
            del ns["model"], ns["logdir"], ns["writer"]
            ns.pop("history", None)
            shutil.rmtree(logdir, ignore_errors=True)


def measure_here(
    cells: Cells, repeats: int, tensorboard: bool
) -> tuple[dict[str, dict[str, list[Ratios]]], dict[str, list[Timing]]]:
    """Per row: the first-cell and repeated-cell ratios of every repeat; the plain fit's
    seconds (first and repeated)."""
    import tensorflow as tf

    rows: dict[str, dict[str, list[Ratios]]] = {}
    plain_seconds: dict[str, list[Timing]] = {"first": [], "repeated": []}

    def add(row: str, which: str, ratio: Ratios) -> None:
        rows.setdefault(row, {"first": [], "repeated": []})[which].append(ratio)

    tools = [(TFGRAD, TFGRAD_CELL), (TFCHECK, TFCHECK_CELL)]
    if tensorboard:
        tools.append((TENSORBOARD, TENSORBOARD_CELL))
    for _ in range(repeats):
        for row, cell in tools:
            plain, tool = cells.fresh(), cells.fresh()
            plain_first = cells.run(plain, PLAIN_CELL)
            add(row, "first", _ratio(cells.run(tool, cell), plain_first))
            plain_again = cells.run(plain, PLAIN_CELL)
            add(row, "repeated", _ratio(cells.run(tool, cell), plain_again))
            plain_seconds["first"].append(plain_first)
            plain_seconds["repeated"].append(plain_again)
        if not tensorboard:
            continue
        plain, custom, recipe = cells.fresh(), cells.fresh("custom"), cells.fresh("summary")
        summaries = tempfile.mkdtemp(prefix="bench_peers_summaries_")
        writer = tf.summary.create_file_writer(summaries)  # the notebook's, made once
        for which in ("first", "repeated"):
            plain_fit = cells.run(plain, PLAIN_CELL)
            custom_fit = cells.run(custom, PLAIN_CELL)
            recipe_fit = cells.run(recipe, RECIPE_CELL, writer)
            add(CUSTOM, which, _ratio(custom_fit, plain_fit))
            add(RECIPE, which, _ratio(recipe_fit, plain_fit))
            add(RECIPE_OWN, which, _ratio(recipe_fit, custom_fit))
            plain_seconds[which].append(plain_fit)
        writer.close()
        shutil.rmtree(summaries, ignore_errors=True)
    return rows, plain_seconds


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--model", choices=sorted(MODELS), default="cnn")
    parser.add_argument("--steps", type=int, default=128, help="steps per epoch (one epoch)")
    parser.add_argument("--batch", type=int, default=16)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--quick", action="store_true", help="8 steps, 1 repeat (smoke test)")
    parser.add_argument("--json", metavar="PATH", help="also write the table as JSON to PATH")
    parser.add_argument("--child", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.quick:
        args.steps, args.repeats = 8, 1
    if args.child:
        child(args.child, args)
        return

    tensorboard = importlib.util.find_spec("tensorboard") is not None
    # the tools that stay installed first, each in its own process, before TF loads here
    elsewhere = {row: own_process(tool, args) for row, tool in OWN_PROCESS.items()}

    import keras
    import tensorflow as tf

    name, build = MODELS[args.model]
    x, y = data_for(name, args.steps, args.batch)
    fresh = Builder(keras, build)
    shell = shell_with_extension()
    cells = Cells(shell, fresh, x, y, args.batch)
    warm = fresh()  # what any first fit in a process pays, paid by neither side
    warm.fit(x[: 2 * args.batch], y[: 2 * args.batch], batch_size=args.batch, verbose=0)
    del warm
    here, plain_seconds = measure_here(cells, args.repeats, tensorboard)

    table: list[dict[str, Any]] = [
        {
            "row": "plain fit",
            "baseline": "itself",
            "first_wall": 1.0,
            "first_cpu": 1.0,
            "repeated_wall": 1.0,
            "repeated_cpu": 1.0,
        }
    ]
    for row, ratios in here.items():
        table.append(
            {
                "row": row,
                "baseline": "custom train_step, no summaries"
                if row == RECIPE_OWN
                else "plain fit, this process",
                "first_wall": statistics.median(r[0] for r in ratios["first"]),
                "first_cpu": statistics.median(r[1] for r in ratios["first"]),
                "repeated_wall": statistics.median(r[0] for r in ratios["repeated"]),
                "repeated_cpu": statistics.median(r[1] for r in ratios["repeated"]),
                "first_in_process_wall": ratios["first"][0][0],
            }
        )
    for row, result in elsewhere.items():
        if result is None:
            continue
        table.append(
            {
                "row": row,
                "baseline": "plain fit, its own process",
                "first_wall": result["first"][0],
                "first_cpu": result["first"][1],
                "repeated_wall": result["repeated"][0],
                "repeated_cpu": result["repeated"][1],
                "plain_seconds_own_process": result["plain_seconds"],
            }
        )

    by_row = {entry["row"]: entry for entry in table}
    claims: dict[str, str] = {}
    for claim, tool, peer in CLAIMS:
        if tool in by_row and peer in by_row:
            # both clocks: on a shared 2-core machine the wall medians swing by 0.2-0.5x
            # between runs, CPU time (all threads of the process) much less
            answers = [
                "yes"
                if by_row[tool][f"repeated_{clock}"] < by_row[peer][f"repeated_{clock}"]
                else "no"
                for clock in ("wall", "cpu")
            ]
            claims[claim] = f"{answers[0]} in wall time, {answers[1]} in CPU time"
        else:
            claims[claim] = f"n/a ({peer if tool in by_row else tool} not measured)"

    first_plain = statistics.median(t[0] for t in plain_seconds["first"])
    again_plain = statistics.median(t[0] for t in plain_seconds["repeated"])
    print(
        f"\n{name}, {args.steps} steps of batch {args.batch}, one epoch per cell, median of "
        f"{args.repeats} (TF {tf.__version__}, Keras {keras.__version__}, "
        f"{os.cpu_count()} CPU(s)); plain fit here: first {first_plain:.2f} s, "
        f"repeated {again_plain:.2f} s"
    )
    if not tensorboard:
        print(
            "tensorboard is not installed here: the TensorBoard and summary-recipe rows are "
            "skipped (pip install tensorboard)"
        )
    print(
        f"{'ratio to the plain fit':46s} {'first cell':>17s} {'repeated cell':>17s}\n"
        f"{'':46s} {'wall':>8s} {'CPU':>8s} {'wall':>8s} {'CPU':>8s}"
    )
    for entry in table:
        print(
            f"{entry['row']:46s} {entry['first_wall']:7.2f}x {entry['first_cpu']:7.2f}x "
            f"{entry['repeated_wall']:7.2f}x {entry['repeated_cpu']:7.2f}x"
        )
    firsts = ", ".join(
        f"{entry['row']} {entry['first_in_process_wall']:.2f}x"
        for entry in table
        if entry["row"] in (TFGRAD, TFCHECK)
    )
    print(f"first cell of the first repeat (the magic's first in the process), wall: {firsts}")
    print("(own process): baseline measured in the row's own process, before the tool is enabled")
    for claim, answer in claims.items():
        print(f"{claim}: {answer}")
    if args.json:
        config = {
            "model": name,
            "steps": args.steps,
            "batch": args.batch,
            "repeats": args.repeats,
            "tensorflow": tf.__version__,
            "keras": keras.__version__,
            "cpus": os.cpu_count(),
            "plain_seconds": {"first": first_plain, "repeated": again_plain},
        }
        with open(args.json, "w") as file:
            json.dump({"config": config, "rows": table, "claims": claims}, file, indent=2)


if __name__ == "__main__":
    main()
