"""What ``%%tfgrad``'s per-step gradient statistics cost on models whose parameters sit in a
few large tensors, against the plain step in the same process.

Models:

* ``quickstart``: TensorFlow's "advanced" quickstart model (Conv2D(32, 3, relu) ->
  Flatten -> Dense(128, relu) -> Dense(10) on 28x28x1, 2.77M parameters, almost all
  in one Dense kernel), batch 32, trained with ``fit`` and with the quickstart's own
  custom loop (a ``tf.function`` train step around a ``GradientTape``, defined in the
  cell as the quickstart does); also with ``jit_compile=True``;
* ``U-Net``: the Keras example's U-Net-like segmentation model
  (``bench_tfgrad_cells.unet``, 2.06M parameters in 82 variables), 32x32 images,
  batch 8, trained with ``fit``.

Rows:

* ``statistics alone``: :func:`~tfnb_debug.collect.grad_stats.gradient_stats` on the
  model's real gradients and weights, in a ``tf.function`` (and one with
  ``jit_compile=True``, as inside an XLA-compiled step), milliseconds per call, as a
  share of the plain train step (its median over an epoch);
* ``repeated cell -q``: the same training cell run again under ``%%tfgrad -q`` (and
  ``--every 8``) in a real IPython shell, against the plain cell run just before it:
  wall and CPU-time ratios, and the recording's cost per step ((cell - plain) / steps).

Each figure is the median of ``--repeats`` interleaved runs.  Run::

    python benchmarks/bench_grad_stats.py [--repeats 5] [--only quickstart|unet]
"""

from __future__ import annotations

import os

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
os.environ.setdefault("TF_ENABLE_ONEDNN_OPTS", "0")

import argparse  # noqa: E402
import statistics  # noqa: E402
import time  # noqa: E402
from typing import Any  # noqa: E402

from bench_tfgrad_cells import unet  # noqa: E402  (the same U-Net as the cell benchmark)

Timing = tuple[float, float]  # (wall seconds, CPU seconds of this process, all threads)


def quickstart(keras: Any, jit_compile: bool = False) -> Any:
    """The model of TensorFlow's "advanced" quickstart, compiled as a Keras user would."""
    layers = keras.layers
    model = keras.Sequential(
        [
            keras.Input((28, 28, 1)),
            layers.Conv2D(32, 3, activation="relu"),
            layers.Flatten(),
            layers.Dense(128, activation="relu"),
            layers.Dense(10),
        ],
        name="quickstart",
    )
    model.compile(
        keras.optimizers.Adam(),
        keras.losses.SparseCategoricalCrossentropy(from_logits=True),
        jit_compile=jit_compile,
    )
    return model


#: the quickstart's custom loop, as one notebook cell (its train step is traced in the cell)
CUSTOM_LOOP = """
@tf.function
def train_step(images, labels):
    with tf.GradientTape() as tape:
        predictions = model(images, training=True)
        loss = loss_object(labels, predictions)
    gradients = tape.gradient(loss, model.trainable_variables)
    optimizer.apply_gradients(zip(gradients, model.trainable_variables))
    train_loss(loss)

for images, labels in train_ds:
    train_step(images, labels)
"""

FIT = "model.fit(x, y, batch_size=batch, epochs=1, verbose=0)"


def _now() -> Timing:
    return time.perf_counter(), time.process_time()


def _since(start: Timing) -> Timing:
    return time.perf_counter() - start[0], time.process_time() - start[1]


class Job:
    """One model and one training cell in a real IPython shell: plain and recorded, timed."""

    def __init__(self, shell: Any, model: Any, x: Any, y: Any, batch: int, code: str) -> None:
        import keras
        import tensorflow as tf

        self.shell, self.model, self.code = shell, model, code
        self.steps = len(x) // batch
        train_ds = tf.data.Dataset.from_tensor_slices((x, y)).batch(batch)
        shell.user_ns.update(
            tf=tf,
            model=model,
            x=x,
            y=y,
            batch=batch,
            train_ds=train_ds,
            loss_object=keras.losses.SparseCategoricalCrossentropy(from_logits=True),
            optimizer=model.optimizer,
            train_loss=keras.metrics.Mean(name="train_loss"),
        )

    def plain(self) -> Timing:
        start = _now()
        result = self.shell.run_cell(self.code + "\nNone")
        result.raise_error()
        return _since(start)

    def recorded(self, options: str = "") -> Timing:
        start = _now()
        self.shell.run_cell_magic("tfgrad", f"-q {options}", self.code)
        return _since(start)


def statistics_alone(model: Any, x: Any, y: Any, calls: int) -> dict[str, float]:
    """Milliseconds per call of the statistics on the model's real gradients (median)."""
    import tensorflow as tf

    from tfnb_debug.collect.grad_stats import gradient_stats

    variables = model.trainable_variables
    with tf.GradientTape() as tape:
        loss = model.compute_loss(x=x, y=y, y_pred=model(x, training=True))
    grads = [tf.identity(g) for g in tape.gradient(loss, variables)]
    w_new = [tf.identity(v) * 1.0001 for v in variables]
    out = {}
    for label, jit in (("graph", False), ("XLA", True)):
        fn = tf.function(
            lambda: gradient_stats(grads, [v.value for v in variables], w_new), jit_compile=jit
        )
        fn()[1].numpy()  # trace and compile
        times = []
        for _ in range(calls):
            start = time.perf_counter()
            fn()[1].numpy()
            times.append(time.perf_counter() - start)
        out[label] = 1000 * statistics.median(times)
    return out


def plain_step_ms(model: Any, x: Any, y: Any, batch: int, repeats: int) -> float:
    """The median plain ``fit`` step (an epoch's time / its steps, median of epochs)."""
    model.fit(x, y, batch_size=batch, epochs=1, verbose=0)
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        model.fit(x, y, batch_size=batch, epochs=1, verbose=0)
        times.append(time.perf_counter() - start)
    return 1000 * statistics.median(times) / (len(x) // batch)


def cells(job: Job, options: list[str], repeats: int) -> dict[str, list[float]]:
    """Per option: median wall ratio, CPU ratio, recording ms per step (wall), plain seconds.

    One option after the other: a cell with other options traces its step again."""
    job.plain()
    rows: dict[str, list[tuple[float, float, float, float]]] = {o: [] for o in options}
    for option in options:
        job.recorded(option)  # the first cell traces the instrumented step (not timed)
        for _ in range(repeats):
            plain = job.plain()
            cell = job.recorded(option)
            rows[option].append(
                (
                    cell[0] / plain[0],
                    cell[1] / plain[1],
                    1000 * (cell[0] - plain[0]) / job.steps,
                    plain[0],
                )
            )
    return {
        option: [statistics.median(v[i] for v in values) for i in range(4)]
        for option, values in rows.items()
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--calls", type=int, default=30, help="calls of the statistics alone")
    parser.add_argument("--only", choices=["quickstart", "unet"])
    args = parser.parse_args()

    import keras
    import numpy as np
    import tensorflow as tf
    from IPython.core.interactiveshell import InteractiveShell

    shell = InteractiveShell.instance()
    shell.run_line_magic("load_ext", "tfnb_debug")
    print(
        f"TF {tf.__version__}, Keras {keras.__version__}, {os.cpu_count()} CPU(s), "
        f"load average {os.getloadavg()[0]:.2f}; medians of {args.repeats}"
    )
    rng = np.random.default_rng(0)
    jobs: list[tuple[str, Any, Any, Any, int, str, list[str]]] = []
    if args.only in (None, "quickstart"):
        x = rng.random((100 * 32, 28, 28, 1), dtype=np.float32)
        y = rng.integers(0, 10, len(x))
        jobs.append(("quickstart, fit", quickstart(keras), x, y, 32, FIT, ["", "--every 8"]))
        jobs.append(("quickstart, custom loop", quickstart(keras), x, y, 32, CUSTOM_LOOP, [""]))
        jobs.append(
            ("quickstart, fit, jit_compile=True", quickstart(keras, True), x, y, 32, FIT, [""])
        )
    if args.only in (None, "unet"):
        x = rng.random((16 * 8, 32, 32, 3), dtype=np.float32)
        y = rng.integers(0, 3, (len(x), 32, 32, 1))
        jobs.append(("U-Net, fit", unet(keras), x, y, 8, FIT, ["", "--every 8"]))
    for label, model, x, y, batch, code, options in jobs:
        params = model.count_params()
        if "custom loop" not in label:
            step = plain_step_ms(model, x, y, batch, args.repeats)
            alone = statistics_alone(model, x[:batch], y[:batch], args.calls)
            print(
                f"\n{label}: {params / 1e6:.2f}M parameters in "
                f"{len(model.trainable_variables)} variables, plain step {step:.1f} ms"
            )
            for form, ms in alone.items():
                print(f"  statistics alone ({form}){'':18s} {ms:6.1f} ms  {100 * ms / step:5.1f}%")
        else:
            print(f"\n{label}: {params / 1e6:.2f}M parameters")
        job = Job(shell, model, x, y, batch, code)
        for option, (wall, cpu, ms, plain) in cells(job, options, args.repeats).items():
            name = f"repeated cell -q {option}".strip()
            print(
                f"  {name:36s} {wall:5.2f}x wall {cpu:5.2f}x CPU  {ms:6.1f} ms/step "
                f"(plain cell {plain:.2f} s, {job.steps} steps)"
            )


if __name__ == "__main__":
    main()
